"""The going-out planner (canasta_teach.engine.goingout) against its old exhaustive version.

The planner makes its plans one at a time and replays only what a plan adds to one already
played (``_Trials``); the old version built every way of sharing the wild cards up front and
played every plan from scratch.  ``reference_plan`` below is the old version, kept verbatim
but for the bound (it tries every plan).  Over positions reached in seeded games, for every
way of laying down a small hand (a sub-multiset of it, and the card left over as the
discard):

- without black threes the two give the same answer: the same first plan, or the same
  refusal; with the same bound too;
- with black threes laid, the planner now lays them last (C-OUT-4: they go down only as the
  player goes out), so it finds every plan the old one found and more, and each plan it
  gives does take the player out.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canasta_teach.bots import find_bot
from canasta_teach.engine import CLASSIC2, CLASSIC4, Phase, State
from canasta_teach.engine.cards import NUM_KINDS, Kind
from canasta_teach.engine.game import Game
from canasta_teach.engine.goingout import (
    GoingOut,
    canastas_within_reach,
    going_out_plan,
    plan_going_out,
)
from canasta_teach.engine.moves import Add, Discard, Meld, Move, Reason

# ---------------------------------------------------------------------- the old planner


def _old_shares(total: int, caps: Sequence[int]) -> Iterator[tuple[int, ...]]:
    if not caps:
        if total == 0:
            yield ()
        return
    first, rest = caps[0], caps[1:]
    for here in range(min(total, first), -1, -1):
        for tail in _old_shares(total - here, rest):
            yield (here, *tail)


def _old_plans(state: State, laid: Sequence[int], discard: Kind | None) -> Iterator[list[Move]]:
    seat = state.current
    team = seat % 2
    targets = state.melds[team] if state.down[team] else state.staged
    ranks = [r for r in range(NUM_KINDS - 1, Kind.RED_THREE, -1) if laid[r]]
    jokers, twos = laid[Kind.JOKER], laid[Kind.TWO]
    caps = []
    for r in ranks:
        if r == Kind.BLACK_THREE:
            caps.append(0)
        elif r in targets:
            caps.append(max(state.rules.max_wilds - targets[r].wilds, 0))
        else:
            caps.append(state.rules.max_wilds)
    if not ranks:
        cards = tuple(Kind(k) for k in range(NUM_KINDS) for _ in range(laid[k]))
        only_wilds: list[Move] = [Meld(cards)]
        if discard is not None:
            only_wilds.append(Discard(discard))
        yield only_wilds
        return
    joker_shares = list(_old_shares(jokers, caps)) or [(jokers,) + (0,) * (len(ranks) - 1)]
    for js in joker_shares:
        left = [c - j for c, j in zip(caps, js, strict=True)]
        two_shares = list(_old_shares(twos, left)) or [(twos,) + (0,) * (len(ranks) - 1)]
        for ts in two_shares:
            groups = []
            for r, j, t in zip(ranks, js, ts, strict=True):
                cards = (Kind(r),) * laid[r] + (Kind.TWO,) * t + (Kind.JOKER,) * j
                existing = targets.get(r)
                size_before = existing.size if existing else 0
                move: Move = Add(Kind(r), cards) if existing else Meld(cards)
                makes_canasta = size_before < state.rules.canasta_size <= size_before + len(cards)
                groups.append((not makes_canasta, -len(cards), move))
            groups.sort(key=lambda g: (g[0], g[1]))
            moves = [g[2] for g in groups]
            if discard is not None:
                moves.append(Discard(discard))
            yield moves


def _old_goes_out(state: State, seat: int, moves: Sequence[Move]) -> tuple[bool, Reason | None]:
    trial = state.copy()
    for move in moves:
        verdict = trial.apply(move)
        if not verdict.legal:
            return False, verdict.reason
    went_out = (
        trial.end is not None and trial.end.seat == seat and trial.end.how in ("out", "concealed")
    )
    return went_out, None


def reference_plan(
    state: State, laid: Sequence[int], discard: Kind | None, limit: int = 10**9
) -> GoingOut:
    """The old ``plan_going_out``: every plan built, each played from scratch."""
    seat = state.current
    first_reason: Reason | None = None
    for tried, moves in enumerate(_old_plans(state, laid, discard)):
        if tried >= limit:
            break
        went_out, reason = _old_goes_out(state, seat, moves)
        if went_out:
            return GoingOut(tuple(moves), None)
        if first_reason is None:
            first_reason = reason
    return GoingOut(None, first_reason)


# ---------------------------------------------------------------------- positions


def meld_positions(seed: int, players: int, most_cards: int = 9) -> list[State]:
    """States of a seeded game of normal players at a meld phase, the hand small enough to
    try every way of laying it down."""
    rules = CLASSIC4 if players == 4 else CLASSIC2
    game = Game(rules, f"planner:{seed}")
    bots = [find_bot("normal", seed=s) for s in range(players)]
    out = []
    while not game.is_over and len(game.hands) < 2:
        state = game.state
        if state.phase is Phase.MELD and state.hand_size(state.current) <= most_cards:
            out.append(state.copy())
        game.apply(bots[state.to_move].step(state).move)
    return out


def ways_to_lay(hand: Sequence[int]) -> Iterator[tuple[list[int], Kind | None]]:
    """Every sub-multiset of ``hand`` to lay down, with the one card left (if any) thrown."""
    kinds = [k for k in range(NUM_KINDS) if hand[k]]
    for counts in itertools.product(*(range(hand[k] + 1) for k in kinds)):
        laid = [0] * NUM_KINDS
        for k, c in zip(kinds, counts, strict=True):
            laid[k] = c
        left = [hand[k] - laid[k] for k in range(NUM_KINDS)]
        if sum(laid) == 0 or sum(left) > 1:
            continue
        yield laid, next((Kind(k) for k in range(NUM_KINDS) if left[k]), None)


def goes_out(state: State, moves: Sequence[Move]) -> bool:
    trial = state.copy()
    seat = trial.current
    for move in moves:
        if not trial.apply(move).legal:
            return False
    return trial.end is not None and trial.end.seat == seat


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.sampled_from([4, 2]))
def test_the_planner_answers_as_the_old_exhaustive_one(seed: int, players: int) -> None:
    compared = found = 0
    for state in meld_positions(seed, players)[::3]:
        hand = state.hands[state.current]
        for laid, discard in ways_to_lay(hand):
            new = plan_going_out(state, laid, discard, limit=10**9)
            old = reference_plan(state, laid, discard)
            if new.moves is not None:
                assert goes_out(state, new.moves)
                found += 1
            if laid[Kind.BLACK_THREE]:
                assert old.moves is None or new.moves is not None
            else:
                assert (new.moves, new.reason) == (old.moves, old.reason)
                bounded = plan_going_out(state, laid, discard, limit=3)
                assert bounded == reference_plan(state, laid, discard, limit=3)
            compared += 1
    assert compared > 0


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.sampled_from([4, 2]))
def test_no_way_out_is_lost_to_the_canasta_bound(seed: int, players: int) -> None:
    # ``canastas_within_reach`` lets the planners skip hands short of the canastas going out
    # needs (C-OUT-1): it must never skip a hand with a way out, and it must skip some.
    skipped = 0
    for state in meld_positions(seed, players)[::2]:
        needed = state.rules.canastas_to_go_out
        team = state.current % 2
        for laid, discard in ways_to_lay(state.hands[state.current]):
            reach = canastas_within_reach(state, laid)
            plan = plan_going_out(state, laid, discard, limit=10**9)
            if plan.moves is not None:
                trial = state.copy()
                for move in plan.moves:
                    assert trial.apply(move).legal
                assert reach >= max(needed, trial.canastas(team)), (laid, plan.moves)
            skipped += reach < needed
    assert players == 4 or skipped > 0


def ways_out_compared(states: Sequence[State]) -> int:
    """Check ``viable_only`` against every way on each way of laying down each hand of
    ``states``; the number of ways out found."""
    found = 0
    for state in states:
        for laid, discard in ways_to_lay(state.hands[state.current]):
            every = plan_going_out(state, laid, discard, limit=10**9)
            viable = plan_going_out(state, laid, discard, limit=10**9, viable_only=True)
            assert (every.moves is None) == (viable.moves is None), laid
            if viable.moves is not None:
                assert goes_out(state, viable.moves)
                found += 1
    return found


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.sampled_from([4, 2]))
def test_the_viable_ways_find_a_way_out_exactly_when_every_way_does(
    seed: int, players: int
) -> None:
    # ``viable_only`` (the computer players' rollouts) skips the ways that leave a new meld
    # short of three cards; it finds a way out whenever one exists, and tries fewer ways.
    # A seeded game may hold no way out at all (seed 834 with two players had one in 114
    # positions): that the comparison meets ways out is the next test's business.
    ways_out_compared(meld_positions(seed, players)[::2])


@pytest.mark.parametrize("players", [4, 2])
def test_the_viable_ways_are_compared_on_hands_that_go_out(players: int) -> None:
    # Seed 0's games hold ways out (7 with four players, 3 with two, measured when written):
    # the comparison above is not only ever made on hands that cannot go out.
    assert ways_out_compared(meld_positions(0, players)) > 0


def test_black_threes_go_down_last_when_going_out() -> None:
    # The old planner laid three black threes before a one-card addition, which the engine
    # refuses (C-OUT-4), so it found no way out of this hand; the planner lays them last.
    from canasta_teach.engine.notation import parse_position

    state = parse_position(
        """\
        rules: classic4
        turn: S meld
        S: 3B 3B 3B K 5
        W: ?11
        N: ?11
        E: ?11
        NS melds: K K K K K K K | 5 5 5
        pile: 4
        stock: rest
        """
    )
    laid = list(state.hands[0])
    laid[Kind.FIVE] -= 1
    assert reference_plan(state, laid, Kind.FIVE).moves is None
    plan = plan_going_out(state, laid, Kind.FIVE)
    assert plan.moves is not None and goes_out(state, plan.moves)
    assert going_out_plan(state) is not None
