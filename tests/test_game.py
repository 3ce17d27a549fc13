"""A whole game: the seat draw (C-SEAT-1), dealers in turn (C-DEAL-1), scores to 5,000
(C-GAME-1), and records that replay to the identical game."""

from __future__ import annotations

import json
import random

import pytest
from engine_helpers import choose
from hypothesis import given
from hypothesis import strategies as st

from canasta_teach.engine.game import SEAT_RANKS, SUITS, Game, SeatCard, draw_for_seats
from canasta_teach.engine.moves import Draw
from canasta_teach.engine.rules import CLASSIC2, CLASSIC4, RuleSet
from canasta_teach.engine.scoring import game_winner


def final_cards(rounds: tuple[tuple[SeatCard | None, ...], ...], people: int) -> list[SeatCard]:
    final: list[SeatCard | None] = [None] * people
    for drawn in rounds:
        for person, card in enumerate(drawn):
            if card is not None:
                final[person] = card
    assert all(card is not None for card in final)
    return [card for card in final if card is not None]


def order(card: SeatCard) -> tuple[int, int]:
    return (SEAT_RANKS.index(card.rank), SUITS.index(card.suit))


@pytest.mark.rule("C-SEAT-1")
@pytest.mark.parametrize("people", [4, 2])
def test_seat_draw(people: int) -> None:
    joker_redraws = equal_redraws = 0
    for seed in range(300):
        draw = draw_for_seats(seed, people)
        final = final_cards(draw.rounds, people)
        assert all(card.rank != "JK" for card in final)
        assert len({(c.rank, c.suit) for c in final}) == people
        # Whoever draws again drew a joker or a card equal to another's, and only they.
        for i, after in enumerate(draw.rounds[1:], start=1):
            so_far = final_cards(draw.rounds[:i], people)
            again = [p for p, card in enumerate(after) if card is not None]
            expected = [
                p for p, card in enumerate(so_far)
                if card.rank == "JK" or any(o != p and so_far[o] == card for o in range(people))
            ]  # fmt: skip
            assert again == expected
            joker_redraws += any(so_far[p].rank == "JK" for p in again)
            equal_redraws += any(so_far[p].rank != "JK" for p in again)
        # Highest takes seat 0 (South, plays first); second highest sits opposite (seat 2).
        ranked = sorted(range(people), key=lambda p: order(final[p]), reverse=True)
        places = (0, 2, 1, 3) if people == 4 else (0, 1)
        assert [draw.seats[p] for p in ranked] == list(places)
    assert joker_redraws > 0
    if people == 4:
        assert equal_redraws > 0


@pytest.mark.rule("C-SEAT-1")
def test_seat_draw_order_spades_high() -> None:
    assert order(SeatCard("A", "C")) > order(SeatCard("K", "S"))
    assert order(SeatCard("7", "S")) > order(SeatCard("7", "H")) > order(SeatCard("7", "D"))
    assert order(SeatCard("7", "D")) > order(SeatCard("7", "C")) > order(SeatCard("3", "S"))
    assert order(SeatCard("3", "C")) > order(SeatCard("2", "S"))


def finish_hand(game: Game, rng: random.Random) -> None:
    number = game.state.hand_number
    while game.state.hand_number == number and not game.is_over:
        verdict = game.apply(choose(rng, game.state.legal_moves()))
        assert verdict.legal


@pytest.mark.rule("C-DEAL-1")
@pytest.mark.parametrize("rules", [CLASSIC4, CLASSIC2], ids=["4p", "2p"])
def test_dealer_rotates_clockwise_and_scores_carry_over(rules: RuleSet) -> None:
    game = Game(rules, seed=11)
    n = rules.players
    rng = random.Random(11)
    for number in range(1, 5):
        state = game.state
        assert state.hand_number == number
        assert state.dealer == (n - 1 + number - 1) % n
        assert state.current == (state.dealer + 1) % n  # the dealer's left plays first
        assert state.scores == game.totals  # C-MIN-1 reads the cumulative score
        assert [state.hand_size(s) for s in range(n)] == [rules.hand_size] * n
        finish_hand(game, rng)
        if game.is_over:
            break
        assert len(game.hands) == number
        assert game.totals == [sum(h.totals[t] for h in game.hands) for t in (0, 1)]


@pytest.mark.rule("C-GAME-1")
def test_game_winner() -> None:
    assert game_winner([4990, 4995]) is None
    assert game_winner([5000, 4995]) == 0
    assert game_winner([4000, 5010]) == 1
    assert game_winner([5200, 5100]) == 0  # both passed: the higher total wins
    assert game_winner([5100, 5200]) == 1
    assert game_winner([5000, 5000]) is None  # exact tie: another hand
    assert game_winner([6000, 6000]) is None
    assert game_winner([-300, 120], target=100) == 1


@pytest.mark.rule("C-GAME-1")
def test_game_ends_at_the_target_and_refuses_further_moves() -> None:
    rules = CLASSIC4.with_options(game_target=300)
    game = Game(rules, seed=5)
    rng = random.Random(5)
    for _ in range(60):
        if game.is_over:
            break
        finish_hand(game, rng)
    assert game.is_over
    winner = game.winner
    assert winner is not None and winner == game_winner(game.totals, 300)
    assert max(game.totals) >= 300 and game.totals[winner] > game.totals[1 - winner]
    verdict = game.apply(Draw())
    assert verdict.reason is not None and verdict.reason.code == "game_over"
    assert verdict.reason.rule == "C-GAME-1"


@pytest.mark.rule("C-DEAL-1")
@given(seed=st.integers(0, 10**9), two=st.booleans(), hands=st.integers(1, 3))
def test_record_replays_to_the_identical_game(seed: int, two: bool, hands: int) -> None:
    rules = CLASSIC2 if two else CLASSIC4
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    for _ in range(hands):
        if game.is_over:
            break
        finish_hand(game, rng)
    record = json.loads(json.dumps(game.record()))  # JSON-ready
    again = Game.replay(RuleSet(**record["rules"]), record["seed"], record["moves"])
    assert again.state == game.state
    assert again.totals == game.totals and again.moves == game.moves
    assert [h.totals for h in again.hands] == [h.totals for h in game.hands]


def test_replay_names_the_first_refused_move() -> None:
    with pytest.raises(ValueError, match="move 2"):
        Game.replay(CLASSIC4, 3, ["draw", "draw"])
