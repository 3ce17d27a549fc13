"""The fast paths of the engine against slow, obvious references.

``State.legal_moves`` is written for speed (inlined checks, cached move tuples), and
``apply`` skips work that ``legal_moves`` has already done.  These tests hold the fast code
to the plain definitions:

* ``legal_moves()`` is exactly the brute-force list "every candidate move, in the documented
  order, that ``check`` calls legal" - the same moves in the same order;
* a move ``legal_moves`` lists is never refused by ``apply``, ``apply_with_events`` or
  ``play``, and the three leave the same state (a copy played on equals the original);
* a refused move leaves the state as it was.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from engine_helpers import position
from hypothesis import given
from hypothesis import strategies as st
from test_engine_properties import RULESETS, any_rules, random_position

from canasta_teach.engine.cards import Kind
from canasta_teach.engine.moves import (
    ASK,
    DRAW,
    NO,
    YES,
    Add,
    Discard,
    Meld,
    Move,
    TakePile,
    canonical,
)
from canasta_teach.engine.rules import RuleSet
from canasta_teach.engine.state import Phase, State

JOKER, TWO, BLACK3, ACE = Kind.JOKER, Kind.TWO, Kind.BLACK_THREE, Kind.ACE

rulesets = st.one_of(st.sampled_from(RULESETS), any_rules())
seeds = st.integers(0, 2**32 - 1)
scores = st.tuples(*[st.sampled_from([-150, 0, 1600, 3200])] * 2)


def _wilds(state: State) -> Iterator[tuple[int, int]]:
    """(jokers, twos) the hand holds, jokers outer: up to one past the rules' limit."""
    hand = state.hands[state.current]
    limit = state.rules.max_wilds + 1
    for j in range(min(hand[JOKER], limit) + 1):
        for t in range(min(hand[TWO], limit - j) + 1):
            yield j, t


def _cards(rank: int, n: int, j: int, t: int) -> tuple[Kind, ...]:
    return canonical([rank] * n + [JOKER] * j + [TWO] * t)


def ordered_candidates(state: State) -> Iterator[Move]:
    """Every move that could be legal, in the order ``legal_moves`` documents: draw, take,
    meld, add, ask, answer, discard; within a kind by rank, then naturals and wild cards as
    ``legal_moves`` nests them.  Nothing here knows a rule beyond "cards come from the hand"
    and "at most ``max_wilds`` wild cards" (one past it is still offered)."""
    hand = state.hands[state.current]
    yield DRAW
    if state.pile:
        top = state.pile[-1]
        for j, t in _wilds(state):
            for n in range(hand[top] + 1):
                yield TakePile(_cards(top, n, j, t))
    for rank in (BLACK3, *range(Kind.FOUR, ACE + 1)):
        for n in range(1, hand[rank] + 1):
            for j, t in _wilds(state):
                yield Meld(_cards(rank, n, j, t))
    for rank in range(BLACK3, ACE + 1):
        for j, t in _wilds(state):
            for n in range(hand[rank] + 1):
                if n + j + t:
                    yield Add(Kind(rank), _cards(rank, n, j, t))
    yield ASK
    yield YES
    yield NO
    for kind in range(ACE, JOKER - 1, -1):
        yield Discard(Kind(kind))


def reference_legal_moves(state: State) -> list[Move]:
    """The slow definition: the candidates ``check`` calls legal, in order."""
    return [move for move in ordered_candidates(state) if state.check(move).legal]


def assert_fast_paths_agree(state: State, rng: random.Random) -> list[Move]:
    legal = state.legal_moves()
    assert legal == reference_legal_moves(state), state.snapshot()
    before = state.snapshot()
    # A few of the listed moves, each played three ways on copies.
    for move in rng.sample(legal, min(3, len(legal))):
        applied, with_events, played = state.copy(), state.copy(), state.copy()
        verdict = applied.apply(move)
        assert verdict == state.check(move) and verdict.legal, (move, verdict)
        verdict2, events = with_events.apply_with_events(move)
        assert verdict2 == verdict and events
        played.play(move)
        assert applied.snapshot() == with_events.snapshot() == played.snapshot()
        assert state.snapshot() == before, f"playing {move} on a copy changed the original"
    return legal


def assert_refusals_change_nothing(state: State) -> None:
    """Candidates that ``check`` refuses: ``apply`` refuses them too, with the same reason,
    and changes nothing."""
    before = state.snapshot()
    for move in ordered_candidates(state):
        verdict = state.check(move)
        if not verdict.legal:
            assert state.apply(move) == verdict
            assert state.apply_with_events(move) == (verdict, [])
    assert state.snapshot() == before


@given(rules=rulesets, seed=seeds, score=scores)
def test_legal_moves_are_the_brute_force_list_in_order(
    rules: RuleSet, seed: int, score: tuple[int, int]
) -> None:
    state = State.deal(seed, rules, scores=score)
    rng = random.Random(seed)
    for step in range(1500):
        legal = assert_fast_paths_agree(state, rng)
        if not legal:
            break
        if step % 16 == 0:
            assert_refusals_change_nothing(state)
        # Uniform random play, as the benchmark plays.
        assert state.apply(rng.choice(legal)).legal
    assert state.is_over


@given(rules=rulesets, seed=seeds)
def test_random_positions_list_the_brute_force_moves(rules: RuleSet, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(8):
        state = random_position(rules, rng)
        assert_fast_paths_agree(state, rng)
        assert_refusals_change_nothing(state)


def test_the_reference_sees_order_and_omissions() -> None:
    """The comparison can fail: the reference lists every meld shape of a hand in order,
    and a list in another order or with a move missing differs from it."""
    state = position(
        hands={0: "7 7 7 8 8 JK 2 K"},
        melds={0: ["8 8 8"]},
        pile="K",
        phase=Phase.MELD,
        scores=(0, 0),
    )
    legal = reference_legal_moves(state)
    assert legal == state.legal_moves()
    melds = [str(m) for m in legal if isinstance(m, Meld)]
    assert melds == [
        "meld 7 7 2", "meld 7 7 JK", "meld 7 7 2 JK",
        "meld 7 7 7", "meld 7 7 7 2", "meld 7 7 7 JK", "meld 7 7 7 2 JK",
    ]  # fmt: skip
    assert legal[::-1] != legal and legal[:-1] != legal


def test_moves_of_a_subclass_are_checked_and_played_as_their_base_type() -> None:
    """``check`` and ``apply`` look moves up by their exact type; a subclass of a move type
    still goes the way of its base, and anything else is no move."""

    class MarkedDiscard(Discard):
        pass

    def table() -> State:
        return position(hands={0: "7 7 9"}, melds={0: ["8 8 8"]}, phase=Phase.MELD)

    plain, marked = table(), table()
    assert marked.check(MarkedDiscard(Kind.NINE)) == plain.check(Discard(Kind.NINE))
    assert marked.apply(MarkedDiscard(Kind.NINE)) == plain.apply(Discard(Kind.NINE))
    assert marked.snapshot() == plain.snapshot() and marked.current == 1
    refused = table().apply(MarkedDiscard(Kind.KING))
    assert refused.reason is not None and refused.reason.code == "not_in_hand"
    for call in (table().check, table().apply):
        with pytest.raises(TypeError):
            call("discard 9")  # type: ignore[arg-type]
