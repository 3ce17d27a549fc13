"""What happened at the table (``State.apply_with_events``): the events match the state change.

Over random legal play at four and two players, for every applied move: the cards the events
say were drawn, melded, added, set aside, taken back, taken with the pile and thrown away
account for the change in the mover's hand; red threes laid down match the change on the
table; a discard event names the new top card; a turn event names the next player; the hand is
over exactly when a ``hand_over`` event says so. A refused move has no events. Every event
reads as a sentence in every language.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from canasta_teach.engine import CLASSIC2, CLASSIC4, Discard, State, parse_kind
from canasta_teach.engine.rng import SplitMix64
from canasta_teach.i18n import LANGUAGES, get_translator

CODES = {
    "drew", "red_three", "took_pile", "melded", "set_aside", "added", "went_down", "taken_back",
    "discarded", "asked", "answered", "penalty", "turn", "hand_over",
}  # fmt: skip


def hand_change(events: list, seat: int) -> int | None:  # noqa: ANN001
    """The change in ``seat``'s hand size the events account for (None: not countable)."""
    change = 0
    for e in events:
        if e.seat != seat:
            continue
        p = e.params
        if e.code == "drew":
            change += p["count"]
        elif e.code in ("melded", "set_aside", "added"):
            change -= len(p["cards"])
        elif e.code == "taken_back":
            change += len(p["cards"])
        elif e.code == "discarded":
            change -= 1
        elif e.code == "took_pile":
            return None  # the pile's red threes do not reach the hand: counted below
    return change


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.sampled_from([4, 2]))
def test_events_account_for_every_change(seed: int, players: int) -> None:
    rules = CLASSIC4 if players == 4 else CLASSIC2
    state = State.deal(seed, rules)
    rng = SplitMix64(seed)
    seen: set[str] = set()
    while not state.is_over:
        move = rng.choice(state.legal_moves())
        seat = state.current
        before = state.copy()
        verdict, events = state.apply_with_events(move)
        assert verdict.legal and events
        seen |= {e.code for e in events}
        assert {e.code for e in events} <= CODES
        change = hand_change(events, seat)
        if change is not None:
            assert state.hand_size(seat) - before.hand_size(seat) == change, (move, events)
        reds = sum(e.params["count"] for e in events if e.code == "red_three")
        assert sum(state.red_threes) - sum(before.red_threes) == reds
        for e in events:
            if e.code == "discarded":
                assert isinstance(move, Discard) and parse_kind(e.params["card"]) == move.card
                assert state.pile[-1] == move.card
            if e.code == "took_pile":
                assert e.params["size"] == len(before.pile)
                assert parse_kind(e.params["top"]) == before.pile[-1]
                assert not state.pile
            if e.code == "turn":
                assert e.seat == state.current == (seat + 1) % players
        ended = [e for e in events if e.code == "hand_over"]
        assert bool(ended) == state.is_over
        if ended:
            assert state.end is not None and ended[-1].params["how"] == state.end.how
    assert "drew" in seen or "took_pile" in seen


def test_a_refused_move_has_no_events_and_changes_nothing() -> None:
    state = State.deal(5)
    before = state.snapshot()
    verdict, events = state.apply_with_events(Discard(parse_kind("A")))  # before the draw
    assert not verdict.legal and events == []
    assert state.snapshot() == before


def test_events_are_off_outside_apply_with_events() -> None:
    state = State.deal(6)
    state.play(state.legal_moves()[0])
    assert state.copy()._events is None  # noqa: SLF001 - the recorder costs nothing elsewhere


def test_every_event_reads_as_a_sentence_in_every_language() -> None:
    codes: set[str] = set()
    for players, rules in ((4, CLASSIC4), (2, CLASSIC2)):
        for seed in range(12):
            state = State.deal(seed, rules)
            rng = SplitMix64(seed)
            while not state.is_over:
                _, events = state.apply_with_events(rng.choice(state.legal_moves()))
                for event in events:
                    codes.add(event.code)
                    for lang in LANGUAGES:
                        tr = get_translator(lang)
                        text = tr.event(event, players)
                        assert text and "{" not in text and not text.startswith("event."), text
                        assert tr.event(event.to_dict(), players) == text
    assert codes >= {"drew", "discarded", "turn", "hand_over", "melded"}
    for lang in LANGUAGES:
        tr = get_translator(lang)
        keys = [f"event.{c}" for c in CODES - {"answered", "hand_over"}]
        keys += ["event.answered_yes", "event.answered_no"]
        keys += [f"event.hand_over.{how}" for how in ("out", "concealed", "stock")]
        for key in keys:
            assert tr.has("engine", key), (lang, key)
