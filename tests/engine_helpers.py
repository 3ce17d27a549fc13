"""Helpers for engine tests: build positions directly, and play random legal moves.

``position(...)`` sets ``State`` fields by hand (hands, melds, pile, stock, flags) and puts
every card not placed anywhere into the stock (or into a named hand), so the 108-card
total of C-DECK-1 always holds and the engine sees a position it could really meet.
Cards are written as notation tokens: ``"7 7 JK"`` or ``["7", "7", "JK"]``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from canasta_teach.engine import cards
from canasta_teach.engine.cards import DECK_COUNTS, NUM_KINDS, Kind
from canasta_teach.engine.moves import (
    Add,
    Answer,
    AskPartner,
    Discard,
    Draw,
    Meld,
    Move,
    TakePile,
    canonical,
)
from canasta_teach.engine.reasons import FROZEN_BY, REASONS, RULES
from canasta_teach.engine.rules import CLASSIC4, RuleSet
from canasta_teach.engine.state import Asked, HandEnd, MeldGroup, Phase, State

CardsSpec = str | Sequence[str] | Sequence[int]


_BY_TOKEN = {t: Kind(i) for i, t in enumerate(cards.TOKENS)}


def token_kind(token: str) -> Kind:
    """One token to its kind.  (Not ``cards.parse_kind``: the helpers must not depend on the
    code under test for reading a position.)"""
    return _BY_TOKEN[token.upper()]


def kinds(spec: CardsSpec) -> list[Kind]:
    """Cards from ``"7 7 JK"``, a list of tokens, or a list of kinds."""
    if isinstance(spec, str):
        return [token_kind(t) for t in spec.split()]
    return [token_kind(t) if isinstance(t, str) else Kind(t) for t in spec]


def ks(spec: str) -> tuple[Kind, ...]:
    """A tuple of kinds in the order written, for building moves: ``Meld(ks("7 7 JK"))``."""
    return tuple(kinds(spec))


def group(spec: CardsSpec) -> MeldGroup:
    """A meld from its cards; the rank is the highest non-wild kind."""
    ks_ = kinds(spec)
    rank = max(ks_)
    if rank <= Kind.TWO:
        raise ValueError(f"a meld needs a rank: {spec!r}")
    jokers = sum(1 for k in ks_ if k == Kind.JOKER)
    twos = sum(1 for k in ks_ if k == Kind.TWO)
    naturals = len(ks_) - jokers - twos
    if any(k not in (rank, Kind.JOKER, Kind.TWO) for k in ks_):
        raise ValueError(f"mixed ranks in a meld: {spec!r}")
    return MeldGroup(int(rank), naturals, jokers, twos)


def _group_counts(g: MeldGroup) -> list[int]:
    counts = [0] * NUM_KINDS
    counts[g.rank] += g.naturals
    counts[Kind.JOKER] += g.jokers
    counts[Kind.TWO] += g.twos
    return counts


def position(
    rules: RuleSet = CLASSIC4,
    *,
    hands: Mapping[int, CardsSpec] | None = None,
    melds: Mapping[int, Iterable[CardsSpec]] | None = None,
    staged: Iterable[CardsSpec] = (),
    pile: CardsSpec = "",
    stock_top: CardsSpec = "",
    red_threes: Sequence[int] = (0, 0),
    down: Sequence[bool] | None = None,
    scores: Sequence[int] = (0, 0),
    current: int = 0,
    phase: Phase = Phase.DRAW,
    has_melded: Sequence[bool] | None = None,
    asked: Asked = Asked.NOT_ASKED,
    took_pile: bool = False,
    melded_this_turn: bool = False,
    created_this_turn: Iterable[str] = (),
    penalties: Sequence[int] = (0, 0),
    end: HandEnd | None = None,
    dealer: int | None = None,
    leftover_to: int | None = None,
) -> State:
    """A position built field by field.

    ``pile`` is written bottom to top (the last card is the top card); ``stock_top`` is the
    top of the stock, the last card drawn first.  Cards not placed anywhere go to the bottom
    of the stock, or into the hand of seat ``leftover_to`` (for positions with an empty
    stock).  ``down`` defaults to "the team has melds on the table".
    """
    state = State(rules)
    n = rules.players
    placed = [0] * NUM_KINDS

    def take(ks_: Iterable[int]) -> None:
        for k in ks_:
            placed[k] += 1

    for seat, spec in (hands or {}).items():
        state.hands[seat] = cards.counts_of(kinds(spec))
        take(kinds(spec))
    state.melds = [{}, {}]
    for team, specs in (melds or {}).items():
        for spec in specs:
            g = group(spec)
            if g.rank in state.melds[team]:
                raise ValueError(f"team {team} already has a meld of {g.rank}")
            state.melds[team][g.rank] = g
            take(cards.kinds_of(_group_counts(g)))
    state.staged = {}
    for spec in staged:
        g = group(spec)
        state.staged[g.rank] = g
        take(cards.kinds_of(_group_counts(g)))
    state.pile = [int(k) for k in kinds(pile)]
    take(state.pile)
    state.pile_freezers = sum(1 for k in state.pile if state._is_freezer(k))
    top_of_stock = [int(k) for k in kinds(stock_top)]
    take(top_of_stock)
    state.red_threes = list(red_threes)
    placed[Kind.RED_THREE] += sum(red_threes)
    leftover: list[int] = []
    for k in range(NUM_KINDS):
        extra = DECK_COUNTS[k] - placed[k]
        if extra < 0:
            raise ValueError(f"too many cards of {cards.TOKENS[k]}: {placed[k]}")
        leftover.extend([k] * extra)
    if leftover_to is None:
        # Red threes at the very bottom, so a test's next draws are the cards it names.
        leftover.sort(key=lambda k: (k != Kind.RED_THREE, k))
        state.stock = leftover + top_of_stock
    else:
        state.stock = top_of_stock
        for k in leftover:
            state.hands[leftover_to][k] += 1
    state.down = list(down) if down is not None else [bool(state.melds[t]) for t in (0, 1)]
    state.scores = list(scores)
    state.dealer = (n - 1) if dealer is None else dealer
    state.current = current
    state.phase = phase
    state.has_melded = list(has_melded) if has_melded is not None else [False] * n
    state.asked = asked
    state.took_pile = took_pile
    state.melded_this_turn = melded_this_turn
    state.created_this_turn = {int(token_kind(t)) for t in created_this_turn}
    state.penalties = list(penalties)
    state.end = end
    assert state.card_total() == cards.DECK_SIZE
    return state


def kind_totals(state: State) -> list[int]:
    """How many cards of each kind the state holds, wherever they are."""
    totals = [0] * NUM_KINDS
    for hand in state.hands:
        for k in range(NUM_KINDS):
            totals[k] += hand[k]
    for k in state.stock:
        totals[k] += 1
    for k in state.pile:
        totals[k] += 1
    for team in state.melds:
        for g in team.values():
            for k, c in enumerate(_group_counts(g)):
                totals[k] += c
    for g in state.staged.values():
        for k, c in enumerate(_group_counts(g)):
            totals[k] += c
    totals[Kind.RED_THREE] += sum(state.red_threes)
    return totals


# Move preferences for random play: a pure uniform choice almost never builds canastas,
# so the hand would nearly always end with an empty stock.  Leaning towards melding and
# taking the pile reaches canastas, going out and concealed hands as well.
_WEIGHTS: dict[type, float] = {
    TakePile: 6.0,
    Meld: 5.0,
    Add: 5.0,
    AskPartner: 1.0,
    Answer: 1.0,
    Draw: 1.0,
    Discard: 1.0,
}


def choose(rng: random.Random, moves: Sequence[Move], greedy: float = 0.7) -> Move:
    """A random legal move; with probability ``greedy`` weighted towards melding."""
    if rng.random() >= greedy:
        return rng.choice(list(moves))
    weights = [_WEIGHTS[type(m)] for m in moves]
    return rng.choices(list(moves), weights=weights, k=1)[0]


def play_random(
    state: State, rng: random.Random, max_moves: int = 2000, greedy: float = 0.7
) -> list[Move]:
    """Play random legal moves until the hand ends; the moves played."""
    played: list[Move] = []
    while not state.is_over and len(played) < max_moves:
        move = choose(rng, state.legal_moves(), greedy)
        state.play(move)
        played.append(move)
    return played


def canonical_move(move: Move) -> Move:
    """``move`` with its cards in the canonical order (as ``legal_moves`` lists them)."""
    if isinstance(move, Meld):
        return Meld(canonical(move.cards))
    if isinstance(move, TakePile):
        return TakePile(canonical(move.cards))
    if isinstance(move, Add):
        return Add(move.rank, canonical(move.cards))
    return move


def junk_moves(state: State, rng: random.Random, count: int = 12) -> list[Move]:
    """Moves of every kind, in and out of phase, mostly illegal: random multisets of the
    hand's cards (in random order, sometimes with a card not held), wrong ranks, and the
    legal moves with a card added or taken away."""
    hand = state.hand_cards(state.current)
    out: list[Move] = [Draw(), AskPartner(), Answer(True), Answer(False), TakePile(())]
    out += [Discard(Kind(k)) for k in range(15)]
    for _ in range(count):
        size = rng.randint(0, min(8, len(hand)))
        cards = rng.sample(hand, size)
        if rng.random() < 0.3:
            cards.append(Kind(rng.randrange(15)))
        rng.shuffle(cards)
        rank = Kind(rng.randrange(15))
        out += [Meld(tuple(cards)), TakePile(tuple(cards)), Add(rank, tuple(cards))]
    legal = state.legal_moves()
    for move in rng.sample(legal, min(6, len(legal))):
        extra = Kind(rng.randrange(15))
        if isinstance(move, Meld):
            out += [Meld((*move.cards, extra)), Meld(move.cards[1:])]
        elif isinstance(move, TakePile):
            out += [TakePile((extra, *move.cards)), TakePile(move.cards[:-1])]
        elif isinstance(move, Add):
            out += [Add(move.rank, (*move.cards, extra)), Add(extra, move.cards)]
    return out


def assert_reason_registered(state: State, move: Move) -> None:
    """A refused move: a registered code, rule and facts, and the state is untouched."""
    before = state.snapshot()
    verdict = state.apply(move)
    assert state.snapshot() == before, f"refused {move} changed the state"
    reason = verdict.reason
    assert reason is not None
    assert reason.code in REASONS, reason.code
    rules, params = REASONS[reason.code]
    assert reason.rule in RULES and reason.rule in rules, (reason.code, reason.rule)
    # The registry names every fact a reason carries; their order carries no meaning.
    assert sorted(reason.params) == sorted(params), (reason.code, dict(reason.params), params)
    if reason.code == "frozen_needs_pair":
        assert reason.params["frozen_by"] in FROZEN_BY
    json.dumps(reason.to_dict())


def params_of(state: State, move: Move) -> dict[str, Any]:
    """The refusal's facts (fails the test when the move is legal)."""
    verdict = state.check(move)
    assert verdict.reason is not None, f"{move} should be refused"
    return dict(verdict.reason.params)


#: A position with a rule value the engine does not play (``max_wilds`` above 3; the
#: reliability review's F6): the notation tests and the command-line tests refuse it.
MAX_WILDS_5 = """rules: classic4 max_wilds=5
turn: S meld
S: 7 7 9 9 JK 2 2 K Q
W: ?11
N: ?11
E: ?11
NS melds: 8 8 8
stock: rest
"""
