"""Classic's side of the hard player's search (``search.Search``): its policy, candidates and
evaluation.

- **Candidates** (``ClassicSearch.candidates``): the normal player's move first, then other
  discards, plays, the pile or the stock, going out.
- **Policy** (``rollout_move``): the normal player's move read straight off a world the
  search dealt itself (a test holds them equal over played games), with the going-out planner
  trying fewer ways inside rollouts.
- **Evaluation** (``evaluate``): the hand's real score difference when the hand is over,
  otherwise a linear evaluation (``EvalWeights``) fitted to the end-of-hand score differences
  of normal players' hands (``python -m canasta_teach.bots.classic fit``).

``determinize`` keeps the discard pile under its top card as it is: every one of those cards
was shown when it was discarded, so the hard player plays as one who remembers the discards
(the view itself shows only the top card and the size).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import astuple, dataclass, fields
from typing import Any

from canasta_teach.engine import (
    Add,
    AskPartner,
    Discard,
    Meld,
    MeldGroup,
    Move,
    Phase,
    RuleSet,
    State,
    TakePile,
)
from canasta_teach.engine.cards import BLACK3, FOUR, JOKER, NUM_KINDS, TWO, VALUES, Kind
from canasta_teach.engine.goingout import canastas_within_reach, plan_going_out
from canasta_teach.engine.scoring import score_hand
from canasta_teach.engine.variants import find_variant
from canasta_teach.engine.view import player_view

from .heuristics import (
    Choice,
    DiscardWeights,
    discard_score,
    discard_value,
    feeding,
    first_meld_within_reach,
    seen,
)
from .players import NormalBot
from .search import SearchLimit, fit_report
from .variant_bots import VariantBots, register

CANASTA = 7  # C-CAN-1 (``RuleSet.canasta_size`` is not read by the engine yet)


#: The budget by number of players: a 2-player round is two turns, so it looks further.
LIMITS = {4: SearchLimit(worlds=32, horizon=1), 2: SearchLimit(worlds=32, horizon=3)}


# --------------------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class EvalWeights:
    """What a position is worth to a team, in points of the hand's final score difference.

    Each feature is ours minus theirs (see ``features``), at the start of a turn of ours.
    Fitted by least squares to normal players' hands (``python -m canasta_teach.bots.classic
    fit``); the constant is left out, since it is the same for every move compared."""

    meld_value: float  # card values on the table (C-VAL-2)
    natural_canastas: float  # C-CAN-1: 500 each at the end ...
    mixed_canastas: float  # ... and 300
    red_threes: float  # C-RED-2 / C-RED-3: counted against a team not down
    hand_value: float  # card values in the team's hands (wild cards build canastas)
    hand_cards: float  # cards in the team's hands (they count against it at the end)
    near_canastas: float  # melds of 5 or 6 cards
    down: float  # the team has made its first meld (C-MIN-1)
    may_go_out: float  # the team has the canastas it needs to go out (C-OUT-1)
    pile_ours: float  # the pile's size, when the seat to move (ours) may take it now
    pile: float  # the pile's size
    stock_hand: float  # cards in hand times the share of the stock left


W4 = EvalWeights(2.32, 444.56, 193.15, 120.45, 3.35, -8.39, 68.48, 106.90, 18.81, 34.32,
                 -0.41, 0.01)  # fmt: skip
W2 = EvalWeights(2.29, 361.75, 113.49, 129.40, 2.43, -29.27, 45.69, -79.19, 3.06, 30.26,
                 0.58, 30.61)  # fmt: skip
FEATURES = tuple(f.name for f in fields(EvalWeights))
#: About a full stock, for the ``stock_hand`` feature (108 cards less the hands and upcard).
_STOCK_SCALE = 60.0


def features(state: State, team: int) -> list[float]:
    """The ``EvalWeights`` features of ``state`` for ``team``: ours minus theirs."""
    out = [0.0] * len(FEATURES)
    need = state.rules.canastas_to_go_out
    stock_share = len(state.stock) / _STOCK_SCALE
    for t, sign in ((team, 1.0), (1 - team, -1.0)):
        value = natural = mixed = near = 0
        for group in state.melds[t].values():
            value += group.value
            size = group.size
            if size >= CANASTA:
                if group.is_natural:
                    natural += 1
                else:
                    mixed += 1
            elif size >= CANASTA - 2:
                near += 1
        in_hand = cards = 0
        for seat in range(t, state.players, 2):
            hand = state.hands[seat]
            cards += sum(hand)
            in_hand += sum(c * v for c, v in zip(hand, VALUES, strict=True))
        out[0] += sign * value
        out[1] += sign * natural
        out[2] += sign * mixed
        out[3] += sign * state.red_threes[t] * (1 if state.down[t] else -1)
        out[4] += sign * in_hand
        out[5] += sign * cards
        out[6] += sign * near
        out[7] += sign * state.down[t]
        out[8] += sign * (natural + mixed >= need)
        out[11] += sign * cards * stock_share
    if state.phase is Phase.DRAW and state.current % 2 == team:
        moves = state.legal_moves()
        if len(moves) > 1 and moves[1].__class__ is TakePile:
            out[9] = len(state.pile)
    out[10] = len(state.pile)
    return out


def hand_difference(state: State, team: int) -> float:
    """The finished hand's score, ``team`` minus the other team (C-SCORE-1)."""
    totals = score_hand(state).totals
    return float(totals[team] - totals[1 - team])


_WEIGHT_ROWS: dict[int, tuple[float, ...]] = {4: astuple(W4), 2: astuple(W2)}


def evaluate(state: State, team: int, weights: EvalWeights | None = None) -> float:
    """What ``state`` is worth to ``team``: exact when the hand is over, else estimated
    (``weights``: by default ``W4`` or ``W2`` by the number of players)."""
    if state.is_over:
        return hand_difference(state, team)
    row: tuple[float, ...] = (
        astuple(weights) if weights is not None else _WEIGHT_ROWS[state.players]
    )
    return float(sum(w * x for w, x in zip(row, features(state, team), strict=True)))


# --------------------------------------------------------------------------- rollouts

_WEIGHTS = DiscardWeights()
_NORMAL = NormalBot(0)


def _wilds(cards: Sequence[int]) -> int:
    return sum(1 for k in cards if k <= TWO)


def _may_reach_out(state: State) -> bool:
    """False when the player to move surely cannot go out this turn: two cards that can go
    nowhere, more pairs of new ranks than wild cards, or too few canastas even laying down
    every card (C-OUT-1).  A cheap test before the planner, which tries many ways with a big
    hand; it never says False when the planner could find a way."""
    seat = state.current
    team = seat % 2
    hand = state.hands[seat]
    targets = state.melds[team] if state.down[team] else state.staged
    wilds = hand[JOKER] + hand[TWO]
    # A natural rank with no meld yet needs three cards: a pair takes a wild card
    # (C-MELD-1); a lone card can only be the discard.
    pairs = singles = 0
    for rank in range(FOUR, NUM_KINDS):
        if hand[rank] and rank not in targets:
            if hand[rank] == 1:
                singles += 1
            elif hand[rank] == 2:
                pairs += 1
    if singles > 1 or pairs > wilds or (hand[BLACK3] in (1, 2) and singles):
        return False
    have = sum(1 for g in targets.values() if g.size >= CANASTA)
    need = state.rules.canastas_to_go_out
    if have >= need:
        return True
    for rank in range(FOUR, NUM_KINDS):
        if hand[rank]:
            group = targets.get(rank)
            size = group.size if group is not None else 0
            if size < CANASTA <= size + hand[rank] + wilds:
                have += 1
                if have >= need:
                    return True
    return False


#: ``going_out_plan`` answers by the facts it reads (see ``_plan_out``); rollouts ask again
#: and again about the same hands, and a big hand costs the planner milliseconds.
_PLANS: dict[tuple[Any, ...], tuple[Move, ...] | None] = {}
_PLANS_KEPT = 20_000
#: How many ways of going out the planner tries per discard inside rollouts (the normal
#: player tries 120): a hand it cannot take out costs the planner that many trials each time.
ROLLOUT_PLANS = 12


def _plan_out(state: State) -> tuple[Move, ...] | None:
    """``_going_out_plan(state)``, remembered by everything it depends on: the rules, the
    hand, the team's melds (or those set aside), whether it is down, the partner's answer,
    and the first-meld minimum while it is not down."""
    seat = state.current
    team = seat % 2
    down = state.down[team]
    targets = state.melds[team] if down else state.staged
    key = (
        state.rules,
        state.phase,
        tuple(state.hands[seat]),
        down,
        tuple(sorted((r, g.naturals, g.jokers, g.twos) for r, g in targets.items())),
        state.asked,
        0 if down else state.minimum(team),
    )
    try:
        return _PLANS[key]
    except KeyError:
        pass
    if len(_PLANS) >= _PLANS_KEPT:
        _PLANS.clear()
    plan = _PLANS[key] = _going_out_plan(state)
    return plan


def _going_out_plan(state: State) -> tuple[Move, ...] | None:
    """``goingout.going_out_plan`` with ``ROLLOUT_PLANS`` tries a discard, and without trying
    a discard that surely strands a card (a lone natural of a rank with no meld, one or two
    black threes, a pair with no wild card left for it) or leaves the team short of the
    canastas going out needs (``canastas_within_reach``): its answer, in less time."""
    if state.phase is not Phase.MELD or state.to_move != state.current:
        return None
    seat = state.current
    team = seat % 2
    hand = state.hands[seat]
    targets = state.melds[team] if state.down[team] else state.staged
    # The planner's own first test: more than one card that can go nowhere.
    stranded = [k for k in range(FOUR, NUM_KINDS) if hand[k] == 1 and k not in targets]
    if hand[BLACK3] in (1, 2):
        stranded.append(BLACK3)
    if len(stranded) > 1:
        return None
    discards: list[int | None] = (
        [stranded[0]] if stranded else [None, *(k for k in range(NUM_KINDS) if hand[k])]
    )
    for discard in discards:
        laid = hand[:]
        if discard is not None:
            laid[discard] -= 1
        short = canastas_within_reach(state, laid) < state.rules.canastas_to_go_out
        if sum(laid) == 0 or short or _strands(laid, targets):
            continue
        plan = plan_going_out(state, laid, None if discard is None else Kind(discard),
                              limit=ROLLOUT_PLANS, viable_only=True)  # fmt: skip
        if plan.moves is not None:
            return plan.moves
    return None


def _strands(laid: list[int], targets: dict[int, MeldGroup]) -> bool:
    """Whether laying down exactly ``laid`` must leave a card that cannot go down."""
    pairs = 0
    for rank in range(FOUR, NUM_KINDS):
        if laid[rank] and rank not in targets:
            if laid[rank] == 1:
                return True
            pairs += laid[rank] == 2
    return laid[BLACK3] in (1, 2) or pairs > laid[JOKER] + laid[TWO]


def rollout_move(state: State) -> Move:
    """The normal player's move for the seat to move, read off a world the search dealt.

    ``NormalBot.step``'s move (a test holds them equal over played games) without building a
    view: rollouts make tens of thousands of these a second.  Inside rollouts the going-out
    planner tries ``ROLLOUT_PLANS`` ways a discard instead of the normal player's 120."""
    moves = state.legal_moves()
    phase = state.phase
    if phase is Phase.ANSWER:
        return _NORMAL.choose(player_view(state, state.to_move), moves).move
    seat = state.current
    team = seat % 2
    down = state.down[team]
    if phase is Phase.DRAW:
        if len(moves) > 1 and (len(state.pile) >= 3 or not down):
            takes = [m for m in moves if isinstance(m, TakePile)]
            if takes:
                return min(takes, key=lambda m: (_wilds(m.cards), len(m.cards)))
        return moves[0]  # the stock: always the first move of the draw phase
    asking = any(isinstance(m, AskPartner) for m in moves)
    if (asking or state.asked.value == "yes" or state.players == 2) and _may_reach_out(state):
        plan = _plan_out(state)
        if plan is not None:
            return AskPartner() if asking else plan[0]
    ours = state.melds[team]
    adds: list[Add] = []
    melds: list[Meld] = []
    discards: list[Discard] = []
    # As NormalBot._best_play: nothing is set aside unless the first meld is within reach.
    playing = down or first_meld_within_reach(state.hands[seat], state.staged_value(),
                                              state.minimum(team))  # fmt: skip
    for m in moves:
        if isinstance(m, Add):
            if playing:
                adds.append(m)
        elif isinstance(m, Meld):
            if playing:
                melds.append(m)
        elif isinstance(m, Discard):
            discards.append(m)
    # As NormalBot._best_play: natural additions, a wild card to finish a canasta, natural
    # melds, then wild cards only for the first meld or a canasta; else the best discard.
    natural_adds = [a for a in adds if not _wilds(a.cards)]
    if natural_adds:
        return max(natural_adds, key=lambda a: _size(ours, a.rank) + len(a.cards))
    for add in adds:
        before = _size(ours, add.rank)
        if before < CANASTA <= before + len(add.cards):
            return add
    natural = [m for m in melds if not _wilds(m.cards)]
    if natural:
        return max(natural, key=lambda m: (len(m.cards), int(m.cards[0])))
    if melds and (not down or any(len(m.cards) >= CANASTA for m in melds)):
        return max(melds, key=lambda m: (len(m.cards) >= CANASTA, -_wilds(m.cards), len(m.cards)))
    if discards:
        return max(discards, key=lambda d: (_discard_value(state, int(d.card)), int(d.card)))
    return moves[0]


def _size(melds: dict[int, MeldGroup], rank: int) -> int:
    group = melds.get(rank)
    return 0 if group is None else group.size


def _discard_value(state: State, card: int) -> float:
    """``heuristics.discard_score`` for the player to move (as the normal player weighs it)."""
    team = state.current % 2
    nxt = (state.current + 1) % state.players
    return discard_value(card, state.hands[state.current], len(state.pile),
                         state.pile_freezers > 0, state.down[1 - team], state.melds[1 - team],
                         state.melds[team], _WEIGHTS) + feeding(
        card, len(state.pile), state.pile_freezers > 0 or not state.down[nxt % 2],
        state.melds[nxt % 2], state.known[nxt], state.thrown[nxt], _WEIGHTS)  # fmt: skip


class ClassicSearch:
    """Classic as ``search.SearchGame``: the normal player's policy and ``evaluate``."""

    def __init__(self) -> None:
        self.normal = NormalBot(0)  # the normal player's moves depend on no seed

    def limit(self, players: int) -> SearchLimit:
        return LIMITS.get(players, SearchLimit())

    def prior(self, state: State) -> Choice:
        return self.normal.step(state)

    def policy(self, world: State) -> Move:
        return rollout_move(world)

    def evaluate(self, world: State, team: int) -> float:
        return evaluate(world, team)

    def face_down(self, world: State) -> list[list[int]]:
        return []  # Classic keeps nothing face down but the stock

    def take_size(self, state: State) -> int:
        return len(state.pile)

    def candidates(self, state: State, moves: list[Move], prior: Move, cap: int) -> list[Move]:
        """The moves worth searching, the normal player's first (at most ``cap``)."""
        out: list[Move] = [prior]

        def consider(move: Move) -> None:
            if move not in out and len(out) < cap:
                out.append(move)

        phase = state.phase
        if phase is Phase.ANSWER:
            for move in moves:
                consider(move)
            return out
        if phase is Phase.DRAW:
            consider(moves[0])  # the stock
            takes = [m for m in moves if isinstance(m, TakePile)]
            for take in sorted(takes, key=lambda m: (_wilds(m.cards), len(m.cards))):
                consider(take)
            return out
        held = state.hand_size(state.current)
        plan = _plan_out(state) if _may_reach_out(state) else None
        if plan is not None:
            consider(plan[0])
        plays = [m for m in moves if isinstance(m, Meld | Add)]
        discards = [m for m in moves if isinstance(m, Discard)]
        discards.sort(key=lambda d: (_discard_value(state, int(d.card)), int(d.card)), reverse=True)
        # Stopping here (the best discard), then the biggest natural plays, then discards.
        if discards:
            consider(discards[0])
        natural = sorted((m for m in plays if not _wilds(m.cards)), key=lambda m: -len(m.cards))
        for play in natural[:2]:
            consider(play)
        for play in plays:
            if len(play.cards) >= held - 1:
                consider(play)  # a play that leaves at most the discard: going out
        for discard in discards[1:]:
            consider(discard)
        return out

    def review_candidates(
        self, state: State, moves: list[Move], prior: Move, cap: int
    ) -> list[Move]:
        return self.candidates(state, moves, prior, cap)


CLASSIC_SEARCH = ClassicSearch()


# --------------------------------------------------------------------------- the coach's side


def coach_discard(view: dict[str, Any], discards: Sequence[Discard]) -> Discard:
    """The normal player's choice among ``discards`` (the coach's "throw this instead")."""
    s = seen(view)
    weights = DiscardWeights()  # the normal player's
    return max(discards, key=lambda d: (discard_score(int(d.card), s, weights), int(d.card)))


#: What the coach asks of Classic (``variant_bots``): this discard, the mistakes of a game of
#: canastas, and worlds where a partner who asked "may I go out?" can go out.  The easy and
#: normal levels are ``players.EasyBot`` and ``NormalBot`` themselves.
register("classic", VariantBots(
    best_discard=coach_discard,
    mistakes=frozenset({"feeding", "black_three", "breaking_pair", "holding_cards",
                        "wild_early"}),
    fits_asker=True,
))  # fmt: skip

# --------------------------------------------------------------------------- fitting


def training_rows(rules: RuleSet, hands: int, seed: str = "fit") -> list[tuple[list[float], float]]:
    """(features, final score difference) at the start of every turn of ``hands`` hands
    played by the normal policy, for the team whose turn it is; scores at the deal are
    spread over the first-meld minimums' ranges (C-MIN-1)."""
    rows: list[tuple[list[float], float]] = []
    for i in range(hands):
        scores = ((i * 37) % 3000, (i * 91) % 3000)
        state = State.deal(f"{seed}:{i}", rules, scores=scores)
        seen_at: list[tuple[int, list[float]]] = []
        last = -1
        while not state.is_over:
            if state.phase is Phase.DRAW and state.current != last:
                last = state.current
                seen_at.append((last % 2, features(state, last % 2)))
            state.play(rollout_move(state))
        for team, row in seen_at:
            rows.append((row, hand_difference(state, team)))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fit the hard player's evaluation weights.")
    parser.add_argument("command", choices=["fit"])
    parser.add_argument("--players", type=int, choices=(2, 4), default=4)
    parser.add_argument("--hands", type=int, default=3000)
    args = parser.parse_args(argv)
    rules = find_variant("classic").rules_for(args.players)
    rows = training_rows(rules, args.hands)
    fit_report(rows, FEATURES, f"{args.hands} hands", "EvalWeights")
    return 0


if __name__ == "__main__":
    sys.exit(main())
