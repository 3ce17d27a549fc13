"""What happened at the table (``State.apply_with_events``): the events match the state change.

Over random legal play at four and two players, for every applied move: the cards the events
say were drawn, melded, added, set aside, taken back, taken with the pile and thrown away
account for the change in the mover's hand; red threes laid down match the change on the
table; a discard event names the new top card; a turn event names the next player; the hand is
over exactly when a ``hand_over`` event says so. A refused move has no events. Every event
reads as a sentence in every language, to everyone and, in the second person, to its own player.

A red three says where it came from (dealt, drawn, the pile) and whether a card from the stock
replaced it; that card is the player's own secret (``Event.private``), named only in their
words.  A pickup names the cards that came into the hand (all seen face up in the pile).
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
                # What came into the hand: the rest of the pile but its red threes (C-RED-1).
                rest = sorted((k for k in before.pile[:-1] if k != parse_kind("3R")), reverse=True)
                assert [parse_kind(t) for t in e.params["gained"]] == rest
            if e.code == "red_three":
                # Replaced from the stock unless it came with the pile; the card is a secret.
                assert e.params["source"] in ("dealt", "drawn", "pile")
                assert bool(e.private) == e.params["replaced"]
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
                        own = tr.event(event, players, you=event.seat)
                        assert own and "{" not in own and not own.startswith("event."), own
                        assert tr.event(event.to_dict(), players, you=event.seat) == own
    assert codes >= {"drew", "discarded", "turn", "hand_over", "melded"}
    for lang in LANGUAGES:
        tr = get_translator(lang)
        keys = [f"event.{c}" for c in CODES - {"answered", "hand_over"}]
        keys += ["event.answered_yes", "event.answered_no"]
        keys += [f"event.hand_over.{how}" for how in ("out", "concealed", "stock")]
        for key in keys:
            assert tr.has("engine", key), (lang, key)


# ---------------------------------------------------------------------- red threes and pickups

RED_THREES = """rules: classic4
turn: E meld
S: 3R K K Q Q 9 9 8 7 6 5
W: ?11
N: ?11
E: 4 5 6 7 8 9 10 J Q K A
pile: 9 3R 7 5
stock: rest 10 3R
"""


def test_red_threes_say_where_they_came_from_and_what_replaced_them() -> None:
    from canasta_teach.engine import Draw
    from canasta_teach.engine.notation import parse_position

    state = parse_position(RED_THREES)
    # East's discard: South's turn begins with the red three dealt into its hand (C-RED-1),
    # replaced from the stock by another red three, itself replaced by a 10.
    _, events = state.apply_with_events(Discard(parse_kind("4")))
    reds = [e for e in events if e.code == "red_three"]
    assert [(e.seat, e.params["source"], e.params["replaced"]) for e in reds] == [
        (0, "dealt", True),
        (0, "drawn", True),
    ]
    assert [e.private for e in reds] == [{"card": "3R"}, {"card": "10"}]
    assert [e.code for e in events].index("turn") < [e.code for e in events].index("red_three")
    # The replacement is South's secret: the public dict holds it apart, and only when there.
    params = {"count": 1, "source": "drawn", "replaced": True}
    expected = {"code": "red_three", "seat": 0, "params": params, "private": {"card": "10"}}
    assert reds[1].to_dict() == expected
    assert "private" not in events[0].to_dict()
    # South's own draw after that: an ordinary one.
    _, events = state.apply_with_events(Draw())
    assert [e.code for e in events] == ["drew"] and events[0].private == {}


def test_a_red_three_with_nothing_left_to_replace_it_ends_the_hand() -> None:
    from canasta_teach.engine.notation import parse_position

    state = parse_position(RED_THREES)
    state.stock = [parse_kind("3R")]  # the last card of the stock is a red three (C-END-2)
    _, events = state.apply_with_events(Discard(parse_kind("4")))
    reds = [e for e in events if e.code == "red_three"]
    assert [(e.params["source"], e.params["replaced"]) for e in reds] == [
        ("dealt", True),
        ("drawn", False),
    ]
    assert reds[0].private == {"card": "3R"} and reds[1].private == {}
    assert events[-1].code == "hand_over" and state.is_over
    en = get_translator("en")
    assert en.event(reds[1], 4) == (
        "South laid down a red three; the stock is empty, so nothing takes its place."
    )


def test_a_pickup_says_what_came_into_the_hand_and_its_red_threes_are_not_replaced() -> None:
    from canasta_teach.engine import TakePile
    from canasta_teach.engine.notation import parse_position

    text = RED_THREES.replace("turn: E meld", "turn: S draw").replace("S: 3R K K", "S: 4 K K")
    text = text.replace("pile: 9 3R 7 5", "pile: 9 3R 7 Q\nNS melds: 8 8 8")
    state = parse_position(text)
    verdict, events = state.apply_with_events(TakePile((parse_kind("Q"), parse_kind("Q"))))
    assert verdict.legal, verdict
    took = next(e for e in events if e.code == "took_pile")
    assert took.params["gained"] == ["9", "7"]  # highest first; the top went to the meld
    reds = [e for e in events if e.code == "red_three"]
    assert [(e.params["source"], e.params["replaced"], e.private) for e in reds] == [
        ("pile", False, {})
    ]
    en = get_translator("en")
    assert en.event(took, 4).endswith("into the hand came one 9 and one 7.")
    assert en.event(took, 4, you=0) == (
        "You took the discard pile: four cards, with a queen on top; "
        "into your hand came one 9 and one 7."
    )


def test_the_readers_own_moves_are_in_the_second_person_and_only_theirs_name_a_secret() -> None:
    from canasta_teach.engine.notation import parse_position

    state = parse_position(RED_THREES)
    _, events = state.apply_with_events(Discard(parse_kind("4")))
    red = next(e for e in events if e.code == "red_three" and e.params["source"] == "drawn")
    for lang in LANGUAGES:
        tr = get_translator(lang)
        ten = tr.card("10", 1)
        mine, west, north = (tr.event(red, 4, you=s) for s in (0, 1, 2))
        assert ten in mine and tr.seat("S") not in mine, (lang, mine)
        # Another seat's reader (an opponent, the partner) never learns the card.
        assert ten not in west and tr.seat("S") in west, (lang, west)
        assert north == west == tr.event(red, 4)
        # The words are the same from the kept dict as from the event.
        assert tr.event(red.to_dict(), 4, you=0) == mine
    en = get_translator("en")
    assert en.event(red, 4, you=0) == (
        "You drew a red three: it went down at once, and you drew one 10 in its place."
    )
    assert en.event(events[0], 4, you=3) == "You threw away one 4."
    assert en.event(events[0], 4, you=0) == "East threw away one 4."


def test_hand_and_foot_pickups_and_red_threes_are_told_the_same_way() -> None:
    from canasta_teach.engine.handfoot import HandFootState
    from canasta_teach.engine.rules import HAND_AND_FOOT

    seen: set[tuple[str, str]] = set()
    for seed in range(6):
        state = HandFootState.deal(seed, HAND_AND_FOOT)
        rng = SplitMix64(seed)
        for _ in range(600):
            if state.is_over:
                break
            move = rng.choice(state.legal_moves())
            before = state.copy()
            _, events = state.apply_with_events(move)
            for e in events:
                if e.code == "took_pile":
                    taken = before.pile[-e.params["size"] :][:-1]
                    expected = sorted((k for k in taken if k != 2), reverse=True)
                    assert [parse_kind(t) for t in e.params["gained"]] == expected
                    seen.add(("took_pile", ""))
                if e.code == "red_three":
                    source = e.params["source"]
                    assert source in ("dealt", "drawn", "pile")
                    assert bool(e.private) == e.params["replaced"]
                    assert source != "pile" or not e.params["replaced"]
                    seen.add(("red_three", source))
                for lang in LANGUAGES:
                    text = get_translator(lang).event(e, 4, you=e.seat)
                    assert text and "{" not in text and not text.startswith("event."), text
    assert ("took_pile", "") in seen and ("red_three", "dealt") in seen


def test_every_second_person_sentence_is_in_every_language() -> None:
    from canasta_teach.i18n.translator import YOU_EVENTS

    new = ["event.red_three.dealt", "event.red_three.drawn", "event.red_three.pile",
           "event.red_three.last", "event.took_pile.gained"]  # fmt: skip
    assert set(new) <= YOU_EVENTS
    for lang in LANGUAGES:
        tr = get_translator(lang)
        for key in [*new, *(k.replace("event.", "event.you.", 1) for k in YOU_EVENTS)]:
            assert tr.has("engine", key), (lang, key)
