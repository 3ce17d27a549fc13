"""Computer players (canasta_teach.bots): legal, blind to hidden cards, deterministic.

- Over many seeded games at 4 and 2 players, no bot ever tries a refused move (the arena
  raises on one).
- No peeking: at states reached in play, the seat to move is shown worlds that look the same
  from its seat but hold other hidden cards (``engine.determinize``); each level chooses the
  same move in every world, for the same seed.
- The same seeds give the same game, move for move.
- ``determinize`` keeps the seat's view and the 108 cards.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canasta_teach.bots import BOTS, find_bot
from canasta_teach.bots.arena import duel, play_game, wilson
from canasta_teach.engine import CLASSIC2, CLASSIC4, State
from canasta_teach.engine.determinize import determinize
from canasta_teach.engine.game import Game
from canasta_teach.engine.rng import SplitMix64
from canasta_teach.engine.view import player_view

LEVELS = sorted(BOTS)


@pytest.mark.parametrize("players", [4, 2])
@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_only_ever_plays_legal_moves(level: str, players: int) -> None:
    rules = CLASSIC4 if players == 4 else CLASSIC2
    other = LEVELS[(LEVELS.index(level) + 1) % len(LEVELS)]
    # A search player thinks a thousand times longer: two hands a game here (its own tests,
    # tests/test_bots_hard.py, play many more positions).
    max_hands = 2 if "hard" in (level, other) else 40
    for game in range(6):
        bots = [find_bot(level if seat % 2 == 0 else other, seed=f"{game}:{seat}")
                for seat in range(players)]  # fmt: skip
        result = play_game(bots, f"legal:{level}:{game}", rules, max_hands=max_hands)
        assert result.winner is not None or result.hands > 0
        assert result.moves > 0


def states_reached(seed: str, rules=CLASSIC4, every: int = 7) -> list[State]:  # noqa: ANN001
    """States met in a game between normal and easy bots (a copy every ``every`` moves)."""
    game = Game(rules, seed)
    bots = [find_bot("normal" if s % 2 == 0 else "easy", seed=s) for s in range(rules.players)]
    out: list[State] = []
    count = 0
    while not game.is_over and len(game.hands) < 3:
        if count % every == 0:
            out.append(game.state.copy())
        game.apply(bots[game.state.to_move].step(game.state).move)
        count += 1
    return out


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("players", [4, 2])
def test_no_bot_peeks_at_hidden_cards(level: str, players: int) -> None:
    rules = CLASSIC4 if players == 4 else CLASSIC2
    checked = 0
    for state in states_reached(f"peek:{players}", rules):
        seat = state.to_move
        chosen = {find_bot(level, seed=11).step(state).move}
        for world_seed in range(4):
            world = determinize(state, seat, SplitMix64(f"w{world_seed}"))
            assert player_view(world, seat) == player_view(state, seat)
            chosen.add(find_bot(level, seed=11).step(world).move)
        assert len(chosen) == 1, (seat, chosen)
        checked += 1
    assert checked > 30


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_seeds_give_the_same_game(level: str) -> None:
    def record() -> list[str]:
        game = Game(CLASSIC4, "replay")
        bots = [find_bot(level, seed=f"r{s}") for s in range(4)]
        while not game.is_over and len(game.hands) < 2:
            game.apply(bots[game.state.to_move].step(game.state).move)
        return list(game.moves)

    first = record()
    assert len(first) > 50 and record() == first


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.sampled_from([4, 2]), steps=st.integers(0, 120))
def test_determinize_keeps_the_view_and_every_card(seed: int, players: int, steps: int) -> None:
    rules = CLASSIC4 if players == 4 else CLASSIC2
    state = State.deal(seed, rules)
    rng = SplitMix64(seed)
    for _ in range(steps):
        if state.is_over:
            break
        state.play(rng.choice(state.legal_moves()))
    for seat in range(players):
        world = determinize(state, seat, SplitMix64(seed + seat))
        assert player_view(world, seat) == player_view(state, seat)
        assert world.card_total() == state.card_total() == 108
        assert world.hands[seat] == state.hands[seat]
        assert all(world.hand_size(s) == state.hand_size(s) for s in range(players))
        assert not world.is_over or state.is_over
        # The world is a state the engine plays on: its legal moves are the seat's own.
        if state.to_move == seat:
            assert world.legal_moves() == state.legal_moves()


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot level"):
        find_bot("grandmaster")


def test_wilson_interval() -> None:
    # 306 of 500: p = 0.612, worked by hand from the Wilson formula with z = 1.96.
    low, high = wilson(306, 500)
    assert abs(low - 0.5686) < 5e-4 and abs(high - 0.6537) < 5e-4
    assert wilson(0, 0) == (0.0, 1.0)


def test_duel_swaps_seats_and_counts_every_game() -> None:
    result = duel("normal", "easy", games=4, players=2, seed="t")
    assert result.games == 4
    assert 0 <= result.a_wins <= 4
    assert set(result.seconds_by_bot) == {"normal", "easy"}
    assert "normal vs easy:" in result.line() and "4 games" in result.line()


def test_every_move_a_bot_makes_is_explained_in_every_language() -> None:
    """What a computer partner says of its move (the move, then checked facts: tests in
    test_claims.py) reads as sentences in every language, whatever the bot's own label."""
    from canasta_teach.bots.claims import reason_record
    from canasta_teach.bots.heuristics import WHY_CODES
    from canasta_teach.i18n import LANGUAGES, get_translator

    given: set[str] = set()
    for players in (4, 2):
        rules = CLASSIC4 if players == 4 else CLASSIC2
        for level in LEVELS:
            game = Game(rules, f"why:{level}:{players}")
            bots = [find_bot(level, seed=s) for s in range(players)]
            while not game.is_over and len(game.hands) < 2:
                state = game.state
                choice = bots[state.to_move].step(state)
                given.add(choice.why)
                record = reason_record(state, state.to_move, choice.move, choice.claims)
                for lang in LANGUAGES:
                    text = get_translator(lang).reason_words(record)
                    assert text and "{" not in text, (lang, text)
                    assert "claim." not in text and "bot." not in text, (lang, text)
                game.apply(choice.move)
    assert given <= set(WHY_CODES), given - set(WHY_CODES)
    assert len(given) >= 8  # the games above meet most of the bots' rules of thumb


def test_the_no_peeking_check_catches_a_bot_that_peeks() -> None:
    # The check above can fail: a bot that reads the next player's hand (which the seat cannot
    # see) is caught by the same worlds.
    from canasta_teach.bots import Choice
    from canasta_teach.engine import Discard

    class Peeker:
        name = "peeker"

        def step(self, state: State) -> Choice:
            moves = state.legal_moves()
            nxt = state.hands[(state.to_move + 1) % state.players]
            discards = [m for m in moves if isinstance(m, Discard)]
            if discards:  # throw what the next player does not hold (cheating)
                return Choice(min(discards, key=lambda d: (nxt[int(d.card)], int(d.card))), "x")
            return Choice(moves[0], "x")

    caught = 0
    for state in states_reached("peek:4"):
        if not any(isinstance(m, Discard) for m in state.legal_moves()):
            continue
        seat = state.to_move
        worlds = [determinize(state, seat, SplitMix64(f"w{i}")) for i in range(4)]
        caught += len({Peeker().step(w).move for w in [state, *worlds]}) > 1
    assert caught > 0


def import_cycles(graph: Any, package: str) -> list[tuple[str, str]]:
    """Pairs of modules inside ``package`` that import each other, directly or through other
    modules (function-level imports included), in a grimp graph (import-linter's)."""
    inside = sorted(graph.find_children(package))
    return [(a, b) for i, a in enumerate(inside) for b in inside[i + 1 :]
            if graph.chain_exists(a, b) and graph.chain_exists(b, a)]  # fmt: skip


def test_no_import_cycle_inside_the_bots() -> None:
    # The search is written once (bots.search) and knows no variant; the variants' sides
    # (bots.classic, bots.handfoot) and the hard player (bots.hard) import it, never back.
    import grimp

    graph = grimp.build_graph("canasta_teach")
    assert import_cycles(graph, "canasta_teach.bots") == []
    assert graph.chain_exists("canasta_teach.bots.hard", "canasta_teach.bots.search")


def test_the_cycle_check_finds_a_cycle() -> None:
    import grimp

    graph = grimp.ImportGraph()
    for module in ("p", "p.a", "p.b", "p.c"):
        graph.add_module(module)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.c")
    assert import_cycles(graph, "p") == []
    graph.add_import(importer="p.c", imported="p.a")  # p.a -> p.b -> p.c -> p.a
    assert import_cycles(graph, "p") == [("p.a", "p.b"), ("p.a", "p.c"), ("p.b", "p.c")]
