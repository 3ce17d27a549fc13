"""Going out in one action: turn a set of cards into melds, additions and a discard.

The engine knows moves one at a time; a learner going out thinks of one action ("lay all
these down and throw the last one").  ``plan_going_out`` groups the selected cards by rank,
tries ways of sharing the wild cards among the groups, and plays each plan on a *copy* of
the state: a plan counts only when the copy ends with the learner going out.  The real state
is never touched here, so going out is all or nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .cards import NUM_KINDS, Kind
from .moves import Add, Discard, Meld, Move, Reason
from .state import Phase, State

#: Enough for every real hand (a few groups, a few wild cards); bounds the work per click.
MAX_PLANS = 400


@dataclass(frozen=True)
class GoingOut:
    """The outcome of planning: the moves that go out, or the engine's first refusal."""

    moves: tuple[Move, ...] | None
    reason: Reason | None

    @property
    def ok(self) -> bool:
        return self.moves is not None


def _shares(total: int, caps: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every way of putting ``total`` identical cards into groups with these capacities, the
    first groups fullest first; made one at a time (a caller that stops early pays only for
    the ways it saw)."""
    if not caps:
        if total == 0:
            yield ()
        return
    if total > sum(caps):
        return  # no way: the generator would search every split to find none
    first, rest = caps[0], caps[1:]
    for here in range(min(total, first), -1, -1):
        for tail in _shares(total - here, rest):
            yield (here, *tail)


def _shares_or_first(total: int, caps: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """``_shares``, or (when there is no way within the capacities) every card in the first
    group, so that the engine says why."""
    found = False
    for share in _shares(total, caps):
        found = True
        yield share
    if not found:
        yield (total,) + (0,) * (len(caps) - 1)


def _shares_from(
    total: int, floors: Sequence[int], caps: Sequence[int]
) -> Iterator[tuple[int, ...]]:
    """``_shares`` with at least ``floors[i]`` cards in group ``i``."""
    if total < sum(floors) or any(f > c for f, c in zip(floors, caps, strict=True)):
        return
    rooms = [c - f for f, c in zip(floors, caps, strict=True)]
    for share in _shares(total - sum(floors), rooms):
        yield tuple(f + s for f, s in zip(floors, share, strict=True))


def _plans(
    state: State, laid: Sequence[int], discard: Kind | None, viable_only: bool = False
) -> Iterator[list[Move]]:
    """Candidate move lists for laying down the counts ``laid`` (then discarding), made one
    at a time: the wild cards shared among the groups in every way their room allows.
    ``viable_only``: only the ways that give every new meld its three cards (C-MELD-1)."""
    seat = state.current
    team = seat % 2
    targets = state.melds[team] if state.down[team] else state.staged
    ranks = [r for r in range(NUM_KINDS - 1, Kind.RED_THREE, -1) if laid[r]]
    jokers, twos = laid[Kind.JOKER], laid[Kind.TWO]
    # Room for wild cards in each group (C-MELD-2); black threes take none (C-OUT-4).
    caps = []
    for r in ranks:
        if r == Kind.BLACK_THREE:
            caps.append(0)
        elif r in targets:
            caps.append(max(state.rules.max_wilds - targets[r].wilds, 0))
        else:
            caps.append(state.rules.max_wilds)
    if not ranks:
        # Only wild cards (or red threes) selected: let the engine say why.
        cards = tuple(Kind(k) for k in range(NUM_KINDS) for _ in range(laid[k]))
        only_wilds: list[Move] = [Meld(cards)]
        if discard is not None:
            only_wilds.append(Discard(discard))
        yield only_wilds
        return
    canasta = state.rules.canasta_size
    # The wild cards a new meld needs to reach three cards (C-MELD-1), when only viable ways
    # are wanted; a black three takes none (it goes down only as three or more).
    floors = [max(0, 3 - laid[r]) if viable_only and r not in targets and r != Kind.BLACK_THREE
              else 0 for r in ranks]  # fmt: skip
    # The wild cards each group needs to become a canasta (None: it is one, or cannot be).
    needs: list[int | None] = []
    for r in ranks:
        before = targets[r].size if r in targets else 0
        need = canasta - before - laid[r]
        needs.append(None if r == Kind.BLACK_THREE or before >= canasta else max(0, need))

    def ways() -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
        """(jokers, twos) for each group, every way the groups' room allows."""
        if viable_only:
            # The way most likely to work first: the one that finishes the most canastas.
            first = _canasta_first_share(jokers, twos, floors, caps, needs)
            if first is not None:
                yield first
        else:
            first = None
        joker_shares = _shares(jokers, caps) if viable_only else _shares_or_first(jokers, caps)
        for js in joker_shares:
            left = [c - j for c, j in zip(caps, js, strict=True)]
            if viable_only:
                still = [max(0, f - j) for f, j in zip(floors, js, strict=True)]
                two_shares = _shares_from(twos, still, left)
            else:
                two_shares = _shares_or_first(twos, left)
            for ts in two_shares:
                if (js, ts) != first:
                    yield js, ts

    for js, ts in ways():
        groups = []
        for r, j, t in zip(ranks, js, ts, strict=True):
            cards = (Kind(r),) * laid[r] + (Kind.TWO,) * t + (Kind.JOKER,) * j
            existing = targets.get(r)
            size_before = existing.size if existing else 0
            move: Move = Add(Kind(r), cards) if existing else Meld(cards)
            # Canastas first: a finished canasta is what allows the rest (C-OUT-1,
            # C-OUT-5); black threes last, since they go down only as the player goes
            # out (C-OUT-4).
            makes_canasta = size_before < canasta <= size_before + len(cards)
            groups.append((r == Kind.BLACK_THREE, not makes_canasta, -len(cards), move))
        groups.sort(key=lambda g: g[:3])
        moves = [g[3] for g in groups]
        if discard is not None:
            moves.append(Discard(discard))
        yield moves


def _canasta_first_share(
    jokers: int,
    twos: int,
    floors: Sequence[int],
    caps: Sequence[int],
    needs: Sequence[int | None],
) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """One way of sharing the wild cards that finishes the most canastas (the groups that need
    fewest beyond their floor first, as ``canastas_within_reach`` counts them), every group its
    floor, the rest where there is room (canastas first); None when the floors do not fit."""
    wild = jokers + twos
    amounts = list(floors)
    spare = wild - sum(amounts)
    if spare < 0:
        return None
    finishing = sorted(
        (need - floor, i)
        for i, (need, floor, cap) in enumerate(zip(needs, floors, caps, strict=True))
        if need is not None and floor <= need <= cap
    )
    canastas = set()
    for cost, i in finishing:
        if cost > spare:
            break
        amounts[i] += cost
        spare -= cost
        canastas.add(i)
    for i in sorted(range(len(amounts)), key=lambda i: i not in canastas):
        more = min(spare, caps[i] - amounts[i])
        amounts[i] += more
        spare -= more
    if spare:
        return None
    js, ts = [], []
    jokers_left = jokers
    for amount in amounts:
        j = min(amount, jokers_left)
        jokers_left -= j
        js.append(j)
        ts.append(amount - j)
    return tuple(js), tuple(ts)


class _Trials:
    """Plays plans on copies of one state, remembering the state after every run of moves
    already played and every refused run: plans that share their first moves (most of them:
    they differ in where a wild card goes) replay only what is new, and a plan that starts
    with a refused run is refused without playing it again.  The engine is deterministic,
    so the answers are the ones playing each plan from scratch gives.  The first plan is
    played without keeping anything: most answers come from it."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.seat = state.current
        self.after: dict[tuple[Move, ...], State] = {}
        self.refused: dict[tuple[Move, ...], Reason | None] = {}
        self.keep = False  # from the second plan on

    def goes_out(self, moves: Sequence[Move]) -> tuple[bool, Reason | None]:
        """(went out, the first refusal if any), as ``_goes_out`` says."""
        played = len(moves)
        for i in range(1, len(moves) + 1):
            if tuple(moves[:i]) in self.refused:
                return False, self.refused[tuple(moves[:i])]
        while played and tuple(moves[:played]) not in self.after:
            played -= 1
        trial = (self.after[tuple(moves[:played])] if played else self.state).copy()
        keep = self.keep
        self.keep = True
        for i in range(played, len(moves)):
            verdict = trial.apply(moves[i])
            if not verdict.legal:
                self.refused[tuple(moves[: i + 1])] = verdict.reason
                return False, verdict.reason
            if keep and i + 1 < len(moves):
                self.after[tuple(moves[: i + 1])] = trial.copy()
        return _went_out(trial, self.seat), None


def _went_out(trial: State, seat: int) -> bool:
    return (
        trial.end is not None and trial.end.seat == seat and trial.end.how in ("out", "concealed")
    )


def _goes_out(state: State, seat: int, moves: Sequence[Move]) -> tuple[bool, Reason | None]:
    """Play the moves in order on a copy: (went out, the first refusal if any)."""
    trial = state.copy()
    for move in moves:
        verdict = trial.apply(move)
        if not verdict.legal:
            return False, verdict.reason
    # Every move legal but the hand not over (a meld stayed set aside): no reason to give.
    return _went_out(trial, seat), None


def plan_going_out(
    state: State,
    laid: Sequence[int],
    discard: Kind | None,
    limit: int = MAX_PLANS,
    viable_only: bool = False,
) -> GoingOut:
    """Find moves that lay down the counts ``laid`` (then discard ``discard``) and go out.

    Returns the first plan that works (among the first ``limit`` ways of sharing the wild
    cards, made one at a time), or the engine's reason for refusing the first plan tried
    (the most natural grouping: wild cards with the first groups); the reason is None when
    every move was legal and still cards stayed behind.  ``viable_only`` (for a computer
    player, who needs no reason) makes and counts only the ways that give every new meld its
    three cards: most ways of sharing the wild cards of a big hand leave one short, and the
    engine would refuse each (C-MELD-1).
    """
    first_reason: Reason | None = None
    trials = _Trials(state)
    for tried, moves in enumerate(_plans(state, laid, discard, viable_only)):
        if tried >= limit:
            break
        went_out, reason = trials.goes_out(moves)
        if went_out:
            return GoingOut(tuple(moves), None)
        if first_reason is None:
            first_reason = reason
    return GoingOut(None, first_reason)


def canastas_within_reach(state: State, laid: Sequence[int]) -> int:
    """The most canastas the player's team could hold after laying down the counts ``laid``
    (C-CAN-1): those it has (or has set aside), and the groups ``laid`` could finish, each
    with the wild cards it needs, fewest first, as far as the wild cards laid go (after those
    every new meld needs to reach three cards, C-MELD-1) and each group's room for them allows
    (C-MELD-2).

    An upper bound on every plan's canastas: going out needs ``canastas_to_go_out`` of them
    (C-OUT-1, C-OUT-5), so a hand short of that bound cannot go out, whatever the plan, and
    the planner need not try one (in a two-player rollout most tries were such hands)."""
    team = state.current % 2
    targets = state.melds[team] if state.down[team] else state.staged
    size = state.rules.canasta_size
    have = sum(1 for group in targets.values() if group.size >= size)
    # Every new meld takes the wild cards it needs to reach three cards (C-MELD-1), canasta or
    # not: those are spoken for. A group made a canasta takes the rest of what it needs, so
    # its cost is the difference, and the cheapest go first.
    wild_cards = laid[Kind.JOKER] + laid[Kind.TWO]
    extra = []
    for rank in range(Kind.FOUR, NUM_KINDS):
        if not laid[rank]:
            continue
        group = targets.get(rank)
        before = group.size if group is not None else 0
        if before >= size:
            continue  # counted in ``have``
        floor = max(0, 3 - laid[rank]) if group is None else 0
        wild_cards -= floor
        need = max(0, size - before - laid[rank])
        room = state.rules.max_wilds - (group.wilds if group is not None else 0)
        if need <= room:
            extra.append(need - floor)
    for cost in sorted(extra):
        if cost > wild_cards:
            break
        wild_cards -= cost
        have += 1
    return have


def plan_for_selection(state: State, selected: Sequence[Kind]) -> GoingOut | None:
    """Plan going out with the learner's selection: the selected cards are laid down and
    the one card left over (if any) is discarded.  ``None`` when more than one card would
    be left over (the selection cannot be a way out)."""
    hand = state.hands[state.current]
    laid = [0] * NUM_KINDS
    for kind in selected:
        laid[kind] += 1
    if any(laid[k] > hand[k] for k in range(NUM_KINDS)):
        return None
    rest = [hand[k] - laid[k] for k in range(NUM_KINDS)]
    if sum(rest) > 1:
        return None
    discard = next((Kind(k) for k in range(NUM_KINDS) if rest[k]), None)
    return plan_going_out(state, laid, discard)


def can_go_out(state: State, limit: int = 120) -> bool:
    """Whether the player to move could go out now, laying down cards from the hand.

    Used to enable the Go out button; cheap tests first, then a bounded search.
    """
    return going_out_plan(state, limit) is not None


def going_out_plan(state: State, limit: int = 120) -> tuple[Move, ...] | None:
    """Moves that take the player to move out now (melds, additions, maybe a discard), or
    None.  Reads only the player's own hand and the table: a computer player may use it."""
    if state.phase is not Phase.MELD or state.to_move != state.current:
        return None
    seat = state.current
    team = seat % 2
    hand = state.hands[seat]
    targets = state.melds[team] if state.down[team] else state.staged
    # Naturals that can go nowhere (one card of an unmelded rank): at most one, the discard.
    stranded = [
        k for k in range(Kind.FOUR, NUM_KINDS) if hand[k] and k not in targets and hand[k] < 2
    ]
    if hand[Kind.BLACK_THREE] in (1, 2):
        stranded.append(int(Kind.BLACK_THREE))
    if len(stranded) > 1:
        return None
    discards: list[Kind | None] = (
        [Kind(stranded[0])] if stranded else [None] + [Kind(k) for k in range(NUM_KINDS) if hand[k]]
    )
    for discard in discards:
        laid = hand[:]
        if discard is not None:
            laid[discard] -= 1
        if sum(laid) == 0 or canastas_within_reach(state, laid) < state.rules.canastas_to_go_out:
            continue
        # Only the ways that give every new meld its three cards: the others are refused
        # (C-MELD-1), so the plan found is the one every way would find first, and the
        # ``limit`` is spent on ways that may work (a big hand has hundreds of the others).
        plan = plan_going_out(state, laid, discard, limit=limit, viable_only=True)
        if plan.moves is not None:
            return plan.moves
    return None
