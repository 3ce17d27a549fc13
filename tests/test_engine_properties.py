"""Properties of Classic random legal play, 4- and 2-player, with every rule option switched.

The rule sets are the presets with each yes/no option flipped, and random rule sets drawn
from every value a position or a saved game may name (``rules.INT_RANGES``: every field,
``max_wilds`` 0 to 3, ``hand_size`` up to what a deck holds, ...).

Each example deals a hand from a random seed (and random cumulative scores, so every
first-meld minimum is met) and plays random legal moves to its end, leaning towards
melding and pile pickups so that canastas, going out and concealed hands happen too.
At every state reached the tests check the invariants of classic.md (every card kind in
full, meld shapes, the pile's freezers, phases, red threes); random positions, which reach
corners play rarely meets, pin ``legal_moves`` to ``check``.

What every variant must keep (cards conserved, ``check`` agreeing with ``legal_moves`` in play,
refusals changing nothing and saying why, copies, views that hide what they must, notation
round trips, the public record) is checked for every preset and option, and for random rule
sets of both families, in ``test_presets.py``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import asdict, fields

from engine_helpers import (
    assert_reason_registered,
    canonical_move,
    choose,
    junk_moves,
    kind_totals,
)
from hypothesis import Phase as Phase_
from hypothesis import find, given, settings
from hypothesis import strategies as st

from canasta_teach.engine.cards import DECK_COUNTS, DECK_SIZE, MELD_RANKS, Kind
from canasta_teach.engine.game import Game
from canasta_teach.engine.moves import (
    Add,
    Meld,
    Move,
    TakePile,
)
from canasta_teach.engine.rules import (
    CLASSIC2,
    CLASSIC4,
    INT_RANGES,
    OPTION_NAMES,
    TEXT_VALUES,
    RuleSet,
    int_range,
)
from canasta_teach.engine.state import Asked, MeldGroup, Phase, State

JOKER, TWO, RED3, BLACK3 = Kind.JOKER, Kind.TWO, Kind.RED_THREE, Kind.BLACK_THREE

RULESETS: list[RuleSet] = [CLASSIC4, CLASSIC2] + [
    base.with_options(**{option: not getattr(base, option)})
    for base in (CLASSIC4, CLASSIC2)
    for option in OPTION_NAMES
]


@st.composite
def any_rules(draw: st.DrawFn) -> RuleSet:
    """A rule set with every field drawn from the values positions and saves accept:
    each integer field half the time at its preset value, else anywhere in its range
    (the ends of the range are likelier), each yes/no option at random."""
    base = draw(st.sampled_from([CLASSIC4, CLASSIC2]))
    players = draw(st.sampled_from([2, 4]))
    options: dict[str, object] = {"players": players}
    for f in fields(RuleSet):
        if f.name in ("name", "players"):
            continue
        value = getattr(base, f.name)
        if f.name in TEXT_VALUES:
            options[f.name] = draw(st.sampled_from(TEXT_VALUES[f.name]))
        elif isinstance(value, bool):
            options[f.name] = draw(st.booleans())
        else:
            low, high = int_range(f.name, players)
            if f.name == "game_target":
                high = min(high, 20_000)  # beyond it only the number printed differs
            choices = st.sampled_from([low, high, min(max(value, low), high)])
            options[f.name] = draw(st.one_of(choices, st.integers(low, high)))
    return base.with_options(**options)


def test_random_rule_sets_reach_every_field_and_every_end_of_its_range() -> None:
    """``any_rules`` draws every field a position or a save may set, over its whole range."""
    settable = {f.name for f in fields(RuleSet)} - {"name"}
    assert settable == set(INT_RANGES) | set(TEXT_VALUES) | {
        f.name for f in fields(RuleSet) if isinstance(getattr(CLASSIC4, f.name), bool)
    }
    search = settings(max_examples=5000, database=None, phases=[Phase_.generate])
    for name in INT_RANGES:
        for players in (2, 4) if name == "hand_size" else (None,):
            low, high = int_range(name, players or 2)
            high = min(high, 20_000) if name == "game_target" else high
            for end in (low, high):
                found = find(any_rules(), lambda r, n=name, e=end, p=players: (
                    getattr(r, n) == e and r.players == (p or r.players)),
                    settings=search)  # fmt: skip
                assert getattr(found, name) == end
    for name in settable - set(INT_RANGES) - set(TEXT_VALUES):
        for value in (False, True):
            found = find(any_rules(), lambda r, n=name, v=value: getattr(r, n) is v,
                         settings=search)  # fmt: skip
            assert getattr(found, name) is value


rulesets = st.one_of(st.sampled_from(RULESETS), any_rules())
seeds = st.integers(0, 2**32 - 1)
# Cumulative scores pick the first-meld minimum: 15, 50, 90 or 120 (C-MIN-1).
scores = st.tuples(*[st.sampled_from([-150, 0, 1600, 3200])] * 2)
greed = st.sampled_from([0.0, 0.5, 0.8, 0.95])
MAX_MOVES = 1500


def walk(rules: RuleSet, seed: int, score: tuple[int, int], greedy: float) -> Iterator[State]:
    """Every state of one randomly played hand (the same object, moved on in place)."""
    state = State.deal(seed, rules, scores=score)
    rng = random.Random(seed)
    yield state
    for _ in range(MAX_MOVES):
        if state.is_over:
            return
        state.play(choose(rng, state.legal_moves(), greedy))
        yield state


def wild_mixes(jokers: int, twos: int) -> Iterator[tuple[Kind, ...]]:
    """Every choice of wild cards the hand can offer, up to four (one past the limit)."""
    for j in range(min(jokers, 4) + 1):
        for t in range(min(twos, 4 - j) + 1):
            yield (TWO,) * t + (JOKER,) * j


def shaped_moves(state: State) -> Iterator[Move]:
    """Every meld, addition and pickup of one rank plus wild cards from the hand: the only
    shapes that can be legal, so together with ``junk_moves`` this covers every move."""
    seat = state.current
    hand = state.hands[seat]
    team = seat % 2
    mixes = list(wild_mixes(hand[JOKER], hand[TWO]))
    targets = state.melds[team] if state.down[team] else state.staged
    for rank in range(RED3, 15):
        for n in range(hand[rank] + 1):
            for wilds in mixes:
                cards = (Kind(rank),) * n + wilds
                if n and rank != RED3 or not n and rank == RED3:
                    yield Meld(cards)
                if rank in targets or rank == RED3:
                    yield Add(Kind(rank), cards)
    if state.pile:
        top = state.pile[-1]
        for n in range(hand[top] + 1):
            for wilds in mixes:
                yield TakePile((Kind(top),) * n + wilds)
    for rank in targets:
        for wilds in mixes[:3]:
            yield Add(Kind(rank), (Kind(rank),) * (hand[rank] + 1) + wilds)  # one too many


# ------------------------------------------------------------------ invariants


def check_meld_shape(group: MeldGroup, rank: int, rules: RuleSet) -> None:
    assert group.rank == rank and rank in MELD_RANKS
    if rank == BLACK3:
        assert 3 <= group.naturals <= 4 and group.wilds == 0  # C-OUT-4
    else:
        assert group.naturals >= 2 and group.wilds <= rules.max_wilds  # C-MELD-2
        assert group.size >= 3  # C-MELD-1
        if rules.two_naturals_per_wild:
            assert group.naturals >= 2 * group.wilds
    assert min(group.naturals, group.jokers, group.twos) >= 0


def check_invariants(state: State, started: set[int]) -> None:
    rules = state.rules
    # C-DECK-1: all 108 cards, each kind in full.
    assert state.card_total() == DECK_SIZE
    assert kind_totals(state) == list(DECK_COUNTS)
    assert all(min(hand) >= 0 for hand in state.hands)
    for team in (0, 1):
        for rank, group in state.melds[team].items():
            check_meld_shape(group, rank, rules)
        # C-MELD-3 (one meld per rank) holds by construction: melds are keyed by rank.
        if state.melds[team]:
            assert state.down[team]
    for rank, group in state.staged.items():
        assert rank != BLACK3 or state.phase is Phase.MELD
        check_meld_shape(group, rank, rules)
    if state.staged:
        assert not state.down[state.current % 2]
        assert state.phase in (Phase.DRAW, Phase.MELD)
    # C-FRZ-1: the freezer count is the pile's wild cards and red threes (and black threes
    # under the option).
    freezers = {JOKER, TWO, RED3} | ({BLACK3} if rules.black_three_freezes else set())
    assert state.pile_freezers == sum(1 for k in state.pile if k in freezers)
    # Phase and the seat to move agree.
    assert (state.phase is Phase.ENDED) == (state.end is not None)
    assert (state.phase is Phase.ANSWER) == (state.asked is Asked.PENDING)
    if state.phase is Phase.ANSWER:
        assert rules.players == 4 and rules.ask_partner
        assert state.to_move == state.partner(state.current) != state.current
    else:
        assert state.to_move == state.current
    assert 0 <= state.current < rules.players
    # C-RED-1: a red three never stays in the hand of a player whose turn has begun.
    if state.phase is not Phase.ENDED:
        started.add(state.current)
        for seat in started:
            assert state.hands[seat][RED3] == 0, f"red three in seat {seat}'s hand"
    assert sum(state.red_threes) <= 4


# ------------------------------------------------------------------ properties


@given(rules=rulesets, seed=seeds, score=scores, greedy=greed)
def test_random_play_keeps_every_invariant(
    rules: RuleSet, seed: int, score: tuple[int, int], greedy: float
) -> None:
    started: set[int] = set()
    for state in walk(rules, seed, score, greedy):
        check_invariants(state, started)


@given(rules=rulesets, seed=seeds, hands=st.integers(1, 2))
def test_game_record_replays_identically(rules: RuleSet, seed: int, hands: int) -> None:
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    moves = 0
    while not game.is_over and game.state.hand_number <= hands and moves < 3 * MAX_MOVES:
        assert game.apply(choose(rng, game.state.legal_moves())).legal
        moves += 1
    record = json.loads(json.dumps(game.record()))
    again = Game.replay(RuleSet(**record["rules"]), record["seed"], record["moves"])
    assert again.state == game.state and again.totals == game.totals
    assert asdict(again.rules) == asdict(game.rules)


# ------------------------------------------------------------------ random positions
#
# Random play rarely meets some corners (one or two cards in hand, set-aside melds with a
# frozen pile, a canasta about to be made while going out, an answer of "no").  Positions
# built at random reach them directly.  They need not be reachable by play, so only the
# properties that hold for every position are checked here.


def random_position(rules: RuleSet, rng: random.Random) -> State:
    pool = [k for k, c in enumerate(DECK_COUNTS) for _ in range(c)]
    rng.shuffle(pool)

    def take(kind: int, count: int) -> int:
        got = min(count, pool.count(kind))
        for _ in range(got):
            pool.remove(kind)
        return got

    n = rules.players
    current = rng.randrange(n)
    team = current % 2
    phases = [Phase.DRAW, Phase.MELD]
    if n == 4 and rules.ask_partner:
        phases.append(Phase.ANSWER)
    phase = rng.choice(phases)
    down = [rng.random() < 0.6, rng.random() < 0.6]
    melds: list[dict[int, MeldGroup]] = [{}, {}]
    for t in (0, 1):
        if not down[t]:
            continue
        for _ in range(rng.randint(1, 4)):
            rank = rng.randrange(4, 15)
            if rank in melds[t]:
                continue
            naturals = take(rank, rng.randint(2, 8))
            if naturals < 2:
                pool.extend([rank] * naturals)
                continue
            wild_room = rules.max_wilds
            if rules.two_naturals_per_wild:
                wild_room = min(wild_room, naturals // 2)
            jokers = take(JOKER, rng.randint(0, wild_room))
            twos = take(TWO, rng.randint(0, wild_room - jokers))
            if naturals + jokers + twos < 3:
                pool.extend([rank] * naturals + [JOKER] * jokers + [TWO] * twos)
                continue
            melds[t][rank] = MeldGroup(rank, naturals, jokers, twos)
    staged: dict[int, MeldGroup] = {}
    if not down[team] and phase is not Phase.ANSWER and rng.random() < 0.4:
        rank = rng.randrange(4, 15)
        naturals = take(rank, rng.randint(2, 4))
        twos = take(TWO, rng.randint(0, min(1, rules.max_wilds)))
        if naturals >= 2 and naturals + twos >= 3:
            staged[rank] = MeldGroup(rank, naturals, 0, twos)
        else:
            pool.extend([rank] * naturals + [TWO] * twos)
    state = State(rules)
    # Small hands are where going out, keep-a-card and C-PILE-5 decide things.
    size = rng.choice([1, 2, 2, 3, 3, 4, 5, 8, 12])
    hand = [k for k in pool[:size] if k != RED3]
    del pool[:size]
    pool.extend([RED3] * (size - len(hand)))
    state.hands[current] = [hand.count(k) for k in range(15)]
    for seat in range(n):
        if seat != current:
            other = pool[: rng.randint(1, 11)]
            del pool[: len(other)]
            state.hands[seat] = [other.count(k) for k in range(15)]
    pile = pool[: rng.choice([0, 1, 1, 2, 3, 6])]
    del pool[: len(pile)]
    if pile and rng.random() < 0.5:
        # Mostly a natural on top, so that taking the pile is in question.
        natural = next((i for i, k in enumerate(pool) if k >= 4), None)
        if natural is not None:
            pile.append(pool.pop(natural))
    if pile and pile[-1] >= 4 and rng.random() < 0.5:
        # A pair (or one) of the top card's rank in hand puts taking the pile in question.
        state.hands[current][pile[-1]] += take(pile[-1], rng.randint(1, 2))
    state.pile = pile
    state.pile_freezers = sum(1 for k in pile if state._is_freezer(k))
    state.red_threes = [pool.count(RED3) // 2, 0]
    for _ in range(state.red_threes[0]):
        pool.remove(RED3)
    state.stock = pool if rng.random() < 0.9 else []
    if not state.stock:
        state.hands[(current + 1) % n] = [
            c + pool.count(k) for k, c in enumerate(state.hands[(current + 1) % n])
        ]
    state.melds = melds
    state.down = down
    state.staged = staged
    state.current = current
    state.phase = phase
    state.scores = [rng.choice([-150, 0, 1600, 3200]) for _ in (0, 1)]
    state.has_melded = [rng.random() < 0.5 for _ in range(n)]
    if phase is Phase.ANSWER:
        state.asked = Asked.PENDING
    elif phase is Phase.MELD and n == 4 and rules.ask_partner:
        state.asked = rng.choice(list(Asked)[:1] + [Asked.YES, Asked.NO])
    state.took_pile = phase is not Phase.DRAW and rng.random() < 0.2
    state.melded_this_turn = phase is not Phase.DRAW and rng.random() < 0.3
    assert state.card_total() == DECK_SIZE, state.card_total()
    return state


@given(rules=rulesets, seed=seeds)
def test_random_positions_pin_legal_moves_to_check(rules: RuleSet, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(8):
        state = random_position(rules, rng)
        legal = check_legal_moves_listed(state)
        for move in [*shaped_moves(state), *junk_moves(state, rng, count=6)]:
            listed = canonical_move(move) in legal
            verdict = state.check(move)
            assert verdict.legal == listed, (
                f"{move}: check says {verdict.reason or 'legal'}, legal_moves "
                f"{'lists' if listed else 'omits'} it"
            )
            if not verdict.legal:
                assert_reason_registered(state, move)


@given(rules=rulesets, seed=seeds)
def test_legal_moves_from_random_positions_keep_cards_and_melds_whole(
    rules: RuleSet, seed: int
) -> None:
    rng = random.Random(seed)
    for _ in range(8):
        state = random_position(rules, rng)
        for move in state.legal_moves():
            after = state.copy()
            after.play(move)
            assert after.card_total() == DECK_SIZE and kind_totals(after) == list(DECK_COUNTS)
            for team in (0, 1):
                for rank, group in after.melds[team].items():
                    check_meld_shape(group, rank, rules)
            for rank, group in after.staged.items():
                check_meld_shape(group, rank, rules)
            freezers = sum(1 for k in after.pile if after._is_freezer(k))
            assert after.pile_freezers == freezers


def check_legal_moves_listed(state: State) -> set[Move]:
    legal = state.legal_moves()
    assert len(set(legal)) == len(legal)
    for move in legal:
        assert canonical_move(move) == move
        assert state.check(move).legal, f"listed {move} is refused: {state.check(move).reason}"
    return set(legal)
