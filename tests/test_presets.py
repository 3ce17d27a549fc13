"""One property suite for every preset and every rule option (OpenSpiel's ``random_sim_test``).

The cases are the golden traces' (``golden.trace.CASES``): ``classic4``, ``classic2`` and
``handfoot``, and each of them with one rule option switched; then rule sets drawn at random
from every value a position or a saved game may name, in both families (hypothesis).  Nothing
below knows a family: each check goes through the engine's one contract (``State``'s API,
``variants.find_variant``, ``view.player_view``, ``determinize``, the notation).

Each case plays hands by a seeded random choice over ``legal_moves()`` (leaning towards melds
and pickups), and checks the states it reaches:

- the cards are conserved: ``card_total()`` is the variant's ``deck_size``;
- ``legal_moves()`` is empty exactly when the hand is over, has no duplicate, lists moves in
  canonical form that ``check`` calls legal (a note it gives is a registered reason), and
  every listed move's notation reads back to it;
- ``check`` agrees with ``legal_moves``: every meld, addition and pickup of one kind plus wild
  cards the hand can make (the only shapes that can be legal), every other move kind and
  random junk is legal exactly when its canonical form is listed;
- a refused move changes nothing: ``apply`` and ``apply_with_events`` refuse it with the same
  verdict, no event and the same snapshot, and the reason is registered with its facts;
- a copy is equal and independent;
- views hide what they must: each seat's ``player_view`` is the same in worlds dealt again
  (by ``engine.determinize``, and by shuffling the other hands with the stock), yet a change
  to the seat's own hand shows, and no card list but the seat's hand and the table's melds
  appears in it;
- the notation round-trips: ``parse_position(format_position(s)) == s`` and the text is
  canonical (written again, it is the same);
- the public record holds: cards known to be in a hand are in it, and the view says so.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from engine_helpers import assert_reason_registered, canonical_move, junk_moves
from golden.trace import CASES, Case, Chooser
from hypothesis import given
from hypothesis import strategies as st
from test_engine_properties import any_rules

from canasta_teach.engine.cards import NATURALS, TOKENS, Kind
from canasta_teach.engine.determinize import determinize
from canasta_teach.engine.moves import (
    ASK,
    DRAW,
    LAY_DOWN,
    NO,
    YES,
    Add,
    Discard,
    Meld,
    Move,
    TakePile,
)
from canasta_teach.engine.notation import format_position, parse_move, parse_position
from canasta_teach.engine.reasons import REASONS
from canasta_teach.engine.rng import SplitMix64
from canasta_teach.engine.rules import (
    HAND_AND_FOOT,
    HANDFOOT_INT_RANGES,
    RuleSet,
    unsupported_value,
)
from canasta_teach.engine.state import State
from canasta_teach.engine.variants import find_variant
from canasta_teach.engine.view import player_view

JOKER, TWO = Kind.JOKER, Kind.TWO
MAX_MOVES = 3000
#: Cumulative scores pick the Classic first-meld minimum: 15, 50, 90 or 120 (C-MIN-1).
SCORES = (-150, 0, 1600, 3200)


def deal(rules: RuleSet, seed: int, scores: tuple[int, int], hand_number: int) -> State:
    """A hand of ``rules``'s family (``variants``: the one place that knows them)."""
    state_class = find_variant(rules.family).state_class
    return state_class.deal(seed, rules, scores=scores, hand_number=hand_number)


def hand_setting(rules: RuleSet, seed: int) -> tuple[tuple[int, int], int]:
    """Scores and hand number for a seed: every first-meld minimum comes up (C-MIN-1 by
    score, H-MIN-1 by round)."""
    scores = (SCORES[seed % 4], SCORES[seed // 4 % 4])
    rounds = rules.rounds or 3
    return scores, 1 + seed % rounds


def walk(rules: RuleSet, seed: int) -> Iterator[State]:
    """Every state of one randomly played hand (the same object, moved on in place)."""
    scores, number = hand_setting(rules, seed)
    state = deal(rules, seed, scores, number)
    choose = Chooser(f"presets/{seed}")
    yield state
    for _ in range(MAX_MOVES):
        if state.is_over:
            return
        state.play(choose(state.legal_moves()))
        yield state
    raise AssertionError(f"the hand did not end in {MAX_MOVES} moves")


# ------------------------------------------------------------------ candidate moves


def wild_mixes(jokers: int, twos: int, most: int) -> list[tuple[Kind, ...]]:
    """Every choice of wild cards the hand can offer, ``most`` at most."""
    return [
        (TWO,) * t + (JOKER,) * j
        for j in range(min(jokers, most) + 1)
        for t in range(min(twos, most - j) + 1)
    ]


def candidates(state: State) -> list[Move]:
    """Every move that could be legal, and more: each move kind without cards, every discard;
    every meld, addition and pickup of naturals of one kind (threes too) with up to four wild
    cards (one past Classic's three, two past Hand and Foot's two beside naturals), melds and
    additions of wild cards only up to eight (one past a Hand and Foot wild pile), one card
    too many for each meld, pickups with another kind.  In canonical form, so "listed" is a
    plain membership test."""
    seat = state.current
    hand = state.hands[seat]
    team = seat % 2
    targets = set(state.melds[team]) | set(state.staged)
    out: list[Move] = [DRAW, LAY_DOWN, ASK, YES, NO, *(Discard(kind) for kind in Kind)]
    mixes = wild_mixes(hand[JOKER], hand[TWO], 4)
    for rank in (Kind.RED_THREE, Kind.BLACK_THREE, *NATURALS):
        for n in range(hand[rank] + 1):
            for wilds in mixes:
                cards = (rank,) * n + wilds
                if not cards:
                    continue
                if n:
                    out.append(Meld(cards))
                if rank in targets:
                    out.append(Add(rank, cards))
        if rank in targets:
            out.append(Add(rank, (rank,) * (hand[rank] + 1)))  # one more than held
    for wilds in wild_mixes(hand[JOKER], hand[TWO], 8):
        if wilds:
            out.append(Meld(wilds))
            if JOKER in targets:  # a meld of wild cards (H-MELD-2)
                out.append(Add(JOKER, wilds))
    if state.pile:
        top = Kind(state.pile[-1])
        for n in range(hand[top] + 1):
            for wilds in mixes:
                out.append(TakePile((top,) * n + wilds))
        for kind in NATURALS:  # with cards of another kind
            if hand[kind] and kind != top:
                out.append(TakePile((top,) * min(hand[top], 2) + (kind,) * hand[kind]))
    else:
        out.append(TakePile(()))
    return list(dict.fromkeys(canonical_move(move) for move in out))


# ------------------------------------------------------------------ the checks


@dataclass
class Seen:
    """What the checks met, so a test can tell it checked something."""

    legal: int = 0
    refused: int = 0
    worlds_differing: int = 0


def check_legal_moves(state: State) -> list[Move]:
    legal = state.legal_moves()
    assert (legal == []) == state.is_over, "legal moves are empty exactly when the hand ended"
    assert len(set(legal)) == len(legal), "duplicate legal moves"
    for move in legal:
        assert canonical_move(move) == move, f"{move} is not in canonical form"
        verdict = state.check(move)
        assert verdict.legal, f"listed {move} is refused: {verdict.reason}"
        if verdict.note is not None:
            assert verdict.note.code in REASONS
            assert tuple(verdict.note.params) == REASONS[verdict.note.code][1]
        assert parse_move(str(move)) == move, f"{move}'s notation does not read back"
    return legal


def check_agreement(state: State, legal: list[Move], rng: random.Random, seen: Seen,
                    refusals: bool) -> None:  # fmt: skip
    """``check`` agrees with ``legal_moves``; with ``refusals``, every refused candidate is
    refused by ``apply`` and ``apply_with_events`` too, changing nothing."""
    listed = set(legal)
    before = state.snapshot()
    for move in [*candidates(state), *junk_moves(state, rng, count=4)]:
        verdict = state.check(move)
        assert verdict.legal == (canonical_move(move) in listed), (
            f"{move}: check says {verdict.reason or 'legal'}, legal_moves "
            f"{'lists' if canonical_move(move) in listed else 'omits'} it"
        )
        if verdict.legal:
            seen.legal += 1
            continue
        seen.refused += 1
        if refusals:
            assert state.apply_with_events(move) == (verdict, [])
            assert state.apply(move) == verdict
            assert_reason_registered(state, move)
    assert state.snapshot() == before, "check changed the state"


def check_copy(state: State, legal: list[Move], rng: random.Random) -> None:
    before = state.snapshot()
    twin = state.copy()
    assert twin.snapshot() == before and twin == state
    if legal:
        twin.play(rng.choice(legal))
        assert state.snapshot() == before, "playing on a copy changed the original"


def shuffle_hidden(state: State, seat: int, rng: random.Random) -> State:
    """The same table with the other hands (same sizes) and the stock shuffled together:
    every card ``seat`` cannot see, dealt without regard to what anyone knows."""
    other = state.copy()
    hidden: list[int] = list(other.stock)
    others = [s for s in range(state.players) if s != seat]
    for s in others:
        for kind, count in enumerate(other.hands[s]):
            hidden.extend([kind] * count)
    rng.shuffle(hidden)
    for s in others:
        size = state.hand_size(s)
        other.hands[s] = [0] * len(Kind)
        for kind in hidden[:size]:
            other.hands[s][kind] += 1
        hidden = hidden[size:]
    other.stock = hidden
    return other


def _items(node: object, key: str = "") -> Iterator[tuple[str, object]]:
    if isinstance(node, dict):
        for k, v in node.items():
            yield k, v
            yield from _items(v, k)
    elif isinstance(node, list):
        for v in node:
            yield from _items(v, key)


def check_views(state: State, seats: Iterable[int], salt: str, seen: Seen) -> None:
    for seat in seats:
        view = player_view(state, seat)
        json.dumps(view)
        assert view["hand"] == [TOKENS[k] for k in state.hand_cards(seat)]
        assert view["stock"] == len(state.stock)
        worlds = [determinize(state, seat, SplitMix64(f"{salt}/{seat}")),
                  shuffle_hidden(state, seat, random.Random(f"{salt}/{seat}"))]  # fmt: skip
        for world in worlds:
            assert world.card_total() == state.card_total()
            assert player_view(world, seat) == view, "a view shows a card the seat cannot see"
            seen.worlds_differing += world.snapshot() != state.snapshot()
        # The comparison can fail: a change to the seat's own hand shows.
        if state.hand_size(seat):
            mine = state.copy()
            kind = next(k for k, count in enumerate(mine.hands[seat]) if count)
            mine.hands[seat][kind] -= 1
            mine.hands[seat][(kind + 5) % len(Kind)] += 1
            assert player_view(mine, seat) != view
        # The public record (known cards, kinds thrown away) is what the state records; no
        # other value lists cards but the seat's own hand and the cards on the table.
        public = dict(view)
        known, _thrown = public.pop("known"), public.pop("thrown")
        names = list(view["hand_counts"])
        for name, tokens in known.items():
            counts = tuple(tokens.count(token) for token in TOKENS)
            assert counts == tuple(state.known[names.index(name)]), name
        for key, value in _items(public):
            if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                assert key in ("hand", "cards"), f"view key {key} lists cards"


def check_record(state: State) -> None:
    """Cards every player saw go into a hand are in that hand (``State.known``)."""
    for seat in range(state.players):
        known, hand = state.known[seat], state.hands[seat]
        assert all(k <= h for k, h in zip(known, hand, strict=True)), (seat, known, hand)


def check_notation(state: State) -> None:
    text = format_position(state)
    again = parse_position(text)
    assert again == state, text
    assert format_position(again) == text, "the notation is not canonical"


def play_and_check(rules: RuleSet, seed: int, every: int = 1) -> Seen:
    """One hand of ``rules``, checked at its states: the cheap checks at each, the others at
    every ``every``-th state (``2 * every``-th for the refusals, views and notation) and at
    the end."""
    deck = find_variant(rules.family).deck_size(rules)
    rng = random.Random(seed)
    seen = Seen()
    for i, state in enumerate(walk(rules, seed)):
        assert state.card_total() == deck, f"{state.card_total()} cards, not {deck}"
        legal = check_legal_moves(state)
        check_record(state)
        check_copy(state, legal, rng)
        end = state.is_over
        if i % every == 0 or end:
            check_agreement(state, legal, rng, seen, refusals=i % (2 * every) == 0 or end)
        if i % (2 * every) == every or end:
            # One seat at a time, in turn (every seat at the end).
            seats = range(state.players) if end else [i // (2 * every) % state.players]
            check_views(state, seats, f"{seed}/{i}", seen)
            check_notation(state)
    return seen


# ------------------------------------------------------------------ the properties

#: Hands per case: a preset plays two (other scores or another round), a case with an option one.
PRESET_SEEDS = (0, 5)
OPTION_SEEDS = (1,)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_random_play_keeps_the_engines_contract(case: Case) -> None:
    total = Seen()
    for seed in PRESET_SEEDS if case.option is None else OPTION_SEEDS:
        seen = play_and_check(case.rules, seed, every=3)
        total.legal += seen.legal
        total.refused += seen.refused
        total.worlds_differing += seen.worlds_differing
    # The candidates reach both sides and the worlds differ, so the checks say something.
    assert total.legal and total.refused and total.worlds_differing


@st.composite
def any_handfoot_rules(draw: st.DrawFn) -> RuleSet:
    """A Hand and Foot rule set from every value a position or a saved game may name
    (``rules.HANDFOOT_INT_RANGES``), the ends of each range likelier."""
    options: dict[str, object] = {"ask_partner": draw(st.booleans())}
    for name, (low, high) in HANDFOOT_INT_RANGES.items():
        if low < high:
            value = getattr(HAND_AND_FOOT, name)
            options[name] = draw(st.one_of(st.sampled_from([low, high, value]),
                                           st.integers(low, high)))  # fmt: skip
    return HAND_AND_FOOT.with_options(**options)


@given(rules=st.one_of(any_rules(), any_handfoot_rules()), seed=st.integers(0, 2**32 - 1))
def test_random_rule_sets_keep_the_engines_contract(rules: RuleSet, seed: int) -> None:
    assert unsupported_value(rules) is None
    play_and_check(rules, seed, every=7)


# ------------------------------------------------------------------ the checks can fail


def _midhand() -> State:
    """South has drawn, with a score that sets the first-meld minimum to 90."""
    state = deal(CASES[0].rules, 3, (1600, 0), 1)
    state.play(DRAW)
    return state


def test_the_agreement_check_sees_a_move_missing_from_legal_moves() -> None:
    state = _midhand()
    legal = state.legal_moves()
    with pytest.raises(AssertionError, match="legal_moves omits it"):
        check_agreement(state, legal[1:], random.Random(0), Seen(), refusals=False)


def test_the_refusal_check_sees_a_refused_move_that_changes_the_state() -> None:
    class Careless(State):
        __slots__ = ()

        def apply(self, move: Move) -> Any:
            verdict = super().apply(move)
            if not verdict.legal:
                self.scores[0] += 1
            return verdict

    state = _midhand()
    state.__class__ = Careless
    with pytest.raises(AssertionError, match="changed the state"):
        assert_reason_registered(state, Discard(Kind.JOKER) if not state.hands[0][JOKER]
                                 else Meld(()))  # fmt: skip


def test_the_view_check_sees_a_hidden_card(monkeypatch: pytest.MonkeyPatch) -> None:
    def peeking(state: State, seat: int) -> dict[str, Any]:
        view = player_view_of_engine(state, seat)
        view["aces_on_the_left"] = state.hands[(seat + 1) % state.players][Kind.ACE]
        return view

    monkeypatch.setattr(sys.modules[__name__], "player_view", peeking)
    with pytest.raises(AssertionError, match="a view shows a card the seat cannot see"):
        for salt in range(20):  # some world deals the next seat another number of aces
            check_views(_midhand(), [0], str(salt), Seen())


def test_the_notation_check_sees_a_lost_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def forgetful(state: State) -> str:
        lines = format_position_of_engine(state).splitlines(keepends=True)
        return "".join(line for line in lines if not line.startswith("scores:"))

    monkeypatch.setattr(sys.modules[__name__], "format_position", forgetful)
    with pytest.raises(AssertionError):
        check_notation(_midhand())


def test_the_conservation_check_sees_a_lost_card() -> None:
    state = _midhand()
    state.stock.pop()
    assert state.card_total() != find_variant(state.rules.family).deck_size(state.rules)


player_view_of_engine = player_view
format_position_of_engine = format_position
