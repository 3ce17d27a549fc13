"""The hard computer player (canasta_teach.bots.hard, .search, .classic): legal, blind to
hidden cards, deterministic, within its budget, and explained.

- In seeded hands at 4 and 2 players and in random positions, hard only plays legal moves.
- No peeking: at states reached in play, worlds that look the same from the seat to move but
  hold other hidden cards (``engine.determinize``) get the same choice for the same seed; the
  search ran at many of them and its worlds are the same for every such world.
- The same seeds give the same hand, move for move; a fresh bot repeats a choice.
- The rollout policy is the normal player's (same move at every state of played hands).
- The budget is counted in simulations; one legal move means no search at all.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canasta_teach.bots import BOTS, find_bot
from canasta_teach.bots.arena import play_game
from canasta_teach.bots.classic import evaluate, rollout_move
from canasta_teach.bots.hard import HardBot
from canasta_teach.bots.heuristics import WHY_CODES
from canasta_teach.bots.search import SearchLimit, canonical, least_squares, sample_worlds
from canasta_teach.engine import CLASSIC2, CLASSIC4, Draw, RuleSet, State
from canasta_teach.engine.determinize import determinize
from canasta_teach.engine.game import Game
from canasta_teach.engine.rng import SplitMix64
from canasta_teach.engine.scoring import score_hand
from canasta_teach.engine.view import player_view

RULES = {4: CLASSIC4, 2: CLASSIC2}


def states_reached(seed: str, rules: RuleSet, every: int = 6, hands: int = 3) -> list[State]:
    """Copies of the states met (one every ``every`` moves) in a game of normal against easy
    players: cheap to reach, and varied (piles taken, melds, asking, going out)."""
    game = Game(rules, seed)
    bots = [find_bot("normal" if s % 2 == 0 else "easy", seed=s) for s in range(rules.players)]
    out: list[State] = []
    count = 0
    while not game.is_over and len(game.hands) < hands:
        if count % every == 0:
            out.append(game.state.copy())
        game.apply(bots[game.state.to_move].step(game.state).move)
        count += 1
    return out


def test_hard_is_a_level() -> None:
    assert "hard" in BOTS
    bot = find_bot("hard", seed=3)
    assert isinstance(bot, HardBot) and bot.name == "hard"


@pytest.mark.parametrize("players", [4, 2])
def test_hard_only_plays_legal_moves_in_seeded_hands(players: int) -> None:
    rules = RULES[players]
    simulations = 0
    for game, other in enumerate(("normal", "easy")):
        bots = [find_bot("hard" if seat % 2 == game % 2 else other, seed=f"{game}:{seat}")
                for seat in range(players)]  # fmt: skip
        # play_game raises on a refused move; one hand each keeps the test quick.
        result = play_game(bots, f"hard-legal:{players}:{game}", rules, max_hands=1)
        assert result.moves > 20
        assert set(result.seconds_by_bot) == {"hard", other}
        simulations += sum(bot.simulations for bot in bots if isinstance(bot, HardBot))
    assert simulations > 0  # the search ran: hard is not only the normal player


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.sampled_from([4, 2]), steps=st.integers(0, 150))
def test_hard_chooses_a_legal_move_in_random_positions(seed: int, players: int, steps: int) -> None:
    state = State.deal(seed, RULES[players])
    rng = SplitMix64(seed)
    for _ in range(steps):
        if state.is_over:
            return
        state.play(rng.choice(state.legal_moves()))
    if state.is_over:
        return
    before = state.snapshot()
    choice = HardBot(seed, SearchLimit(worlds=4)).step(state)
    assert state.snapshot() == before  # the search works on copies
    assert state.check(choice.move).legal, choice
    assert choice.why in WHY_CODES


@pytest.mark.parametrize("players", [4, 2])
def test_hard_does_not_peek_at_hidden_cards(players: int) -> None:
    rules = RULES[players]
    searched = differed = 0
    states = states_reached(f"hard-peek:{players}", rules)
    for state in states:
        seat = state.to_move
        bot = HardBot(11)
        chosen = bot.step(state)
        for i in range(3):
            world = determinize(state, seat, SplitMix64(f"w{i}"))
            assert player_view(world, seat) == player_view(state, seat)
            differed += world.hands != state.hands
            assert HardBot(11).step(world) == chosen, seat  # move, reason and facts
        searched += bot.simulations > 0
    assert len(states) > 25 and differed > 2 * len(states)  # the worlds did hide other cards
    assert searched >= len(states) // 3  # the search ran at many of them


@pytest.mark.parametrize("players", [4, 2])
def test_the_searched_worlds_depend_only_on_the_view(players: int) -> None:
    # Why the choice cannot depend on hidden cards: the canonical state, from which the
    # worlds are dealt, is the same for every world that looks the same from the seat.
    for state in states_reached(f"hard-canon:{players}", RULES[players], every=15):
        seat = state.to_move
        root = canonical(state, seat)
        assert player_view(root, seat) == player_view(state, seat)
        for i in range(3):
            world = determinize(state, seat, SplitMix64(i))
            assert canonical(world, seat) == root
        dealt = sample_worlds(state, seat, SplitMix64("s"), 4)
        assert len({w.snapshot() for w in dealt}) > 1 or not state.stock
        for world in dealt:
            assert player_view(world, seat) == player_view(state, seat)
            assert world.card_total() == 108
            assert world.hands[seat] == state.hands[seat]


def test_the_same_seeds_give_the_same_hand() -> None:
    def record() -> list[str]:
        game = Game(CLASSIC4, "hard-replay")
        bots = [find_bot("hard" if s % 2 == 0 else "normal", seed=f"r{s}") for s in range(4)]
        while len(game.hands) < 1:
            game.apply(bots[game.state.to_move].step(game.state).move)
        return list(game.moves)

    first = record()
    assert len(first) > 40 and record() == first


def test_a_fresh_bot_repeats_a_choice() -> None:
    # The generator of a decision comes from the seed and the view, not from the history.
    for state in states_reached("hard-fresh", CLASSIC2, every=20):
        played = HardBot("f")
        for earlier in states_reached("hard-fresh-other", CLASSIC2, every=40)[:3]:
            played.step(earlier)
        assert played.step(state) == HardBot("f").step(state)


@pytest.mark.parametrize("players", [4, 2])
def test_rollouts_play_as_the_normal_player(players: int) -> None:
    rules = RULES[players]
    compared = 0
    for g in range(4):
        game = Game(rules, f"hard-rollout:{g}")
        normal = find_bot("normal", seed=0)
        while not game.is_over and len(game.hands) < 2:
            expected = normal.step(game.state).move
            assert rollout_move(game.state) == expected
            game.apply(expected)
            compared += 1
    assert compared > 300


def test_the_budget_is_counted_in_simulations() -> None:
    limit = SearchLimit(worlds=4, candidates=3)
    assert limit.simulations == 12
    ran = 0
    for state in states_reached("hard-budget", CLASSIC4, every=5):
        bot = HardBot(1, limit)
        bot.step(state)
        assert bot.simulations in (0, 8, 12)  # two or three candidates, four worlds each
        ran += bot.simulations > 0
        if state.legal_moves() == [Draw()]:
            assert bot.simulations == 0  # one legal move: no search
    assert ran > 5


def test_searched_choices_say_how_many_worlds_and_points() -> None:
    limit = SearchLimit(worlds=8)
    found = 0
    for state in states_reached("hard-why", CLASSIC2, every=3):
        choice = HardBot(5, limit).step(state)
        assert choice.why in WHY_CODES
        if choice.why == "searched":
            found += 1
            assert choice.facts["worlds"] == 8
            assert choice.facts["margin"] >= 10 and choice.facts["margin"] % 10 == 0
    assert found > 0


def test_searched_is_said_in_every_language() -> None:
    from canasta_teach.i18n import LANGUAGES, get_translator

    for lang in LANGUAGES:
        for voice in ("me", "you"):
            text = get_translator(lang).claim(
                {"key": "searched", "params": {"worlds": 32, "margin": 120}}, voice
            )
            assert "{" not in text and "claim." not in text and "120" in text, (lang, text)


@pytest.mark.parametrize("players", [4, 2])
def test_a_finished_hand_is_valued_at_its_score(players: int) -> None:
    state = State.deal("hard-value", RULES[players])
    while not state.is_over:
        state.play(rollout_move(state))
    totals = score_hand(state).totals
    assert evaluate(state, 0) == totals[0] - totals[1] == -evaluate(state, 1)


def test_least_squares_recovers_a_linear_rule() -> None:
    rng = SplitMix64(9)
    rows = []
    for _ in range(200):
        x = [rng.below(100) / 10, rng.below(100) / 10]
        rows.append((x, 3 * x[0] - 2 * x[1] + 5))
    w = least_squares(rows, ridge=0.0)
    assert [round(v, 6) for v in w] == [3.0, -2.0, 5.0]
