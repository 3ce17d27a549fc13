"""Computer players for Hand and Foot (canasta_teach.bots.handfoot): legal, blind to hidden
cards, deterministic, explained.

- ``find_bot``'s bots play both families: a Hand and Foot state goes to the variant's players.
- Over seeded games (four rounds; the hard level one round), no level tries a refused move.
- No peeking: at states reached in play, worlds that look the same from the seat to move but
  hold other hidden cards, every face-down foot included (``engine.determinize``), get the same
  move from each level for the same seed.
- The same seeds give the same game, move for move.
- The search's rollouts read a world as the view shows it (``Table.of_state`` equals
  ``Table.of_view``) and play the normal player's moves.
- Every reason given is a ``bot.*`` key the English catalog says in words.

Strength is not tested here: ``python -m benchmarks.bots_bench`` measures it.
"""

from __future__ import annotations

import pytest

from canasta_teach.bots import BOTS, find_bot
from canasta_teach.bots.arena import play_game
from canasta_teach.bots.handfoot import (
    HANDFOOT_SEARCH,
    HARD_STYLE,
    HARD_WEIGHTS,
    HF_LIMIT,
    HF_SHARED_WHY_CODES,
    HF_WHY_CODES,
    NORMAL_STYLE,
    HandFootWeights,
    Table,
    best_play,
    normal_choice,
    rollout_move,
)
from canasta_teach.bots.hard import HardBot
from canasta_teach.bots.heuristics import WHY_CODES, Choice
from canasta_teach.bots.search import canonical
from canasta_teach.engine import Add, Discard, Kind, Meld, Phase, State
from canasta_teach.engine.cards import NUM_KINDS
from canasta_teach.engine.determinize import determinize
from canasta_teach.engine.game import Game
from canasta_teach.engine.handfoot import HandFootState
from canasta_teach.engine.moves import LayDown
from canasta_teach.engine.rng import SplitMix64
from canasta_teach.engine.rules import HAND_AND_FOOT
from canasta_teach.engine.view import player_view

LEVELS = sorted(BOTS)
WHYS = set(HF_WHY_CODES) | set(HF_SHARED_WHY_CODES)


def states_reached(seed: str, every: int = 9, rounds: int = 2) -> list[HandFootState]:
    """Copies of the states met (one every ``every`` moves) in a game of normal against easy
    players: cheap to reach, and varied (set aside, laid down, piles, feet, going out)."""
    game = Game(HAND_AND_FOOT, seed)
    bots = [find_bot("normal" if s % 2 == 0 else "easy", seed=s) for s in range(4)]
    out: list[HandFootState] = []
    count = 0
    while not game.is_over and len(game.hands) < rounds:
        if count % every == 0:
            state = game.state.copy()
            assert isinstance(state, HandFootState)
            out.append(state)
        game.apply(bots[game.state.to_move].step(game.state).move)
        count += 1
    return out


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_a_bot_only_ever_plays_legal_moves_in_whole_games(level: str) -> None:
    other = "normal" if level == "easy" else "easy"
    for game in range(3):
        bots = [find_bot(level if seat % 2 == game % 2 else other, seed=f"{game}:{seat}")
                for seat in range(4)]  # fmt: skip
        result = play_game(bots, f"hf-legal:{level}:{game}", HAND_AND_FOOT, max_hands=4)
        assert result.hands == 4 and result.stopped_hands == 0
        assert result.moves > 200


def test_hard_only_plays_legal_moves_and_searches() -> None:
    simulations = 0
    for game, other in enumerate(("normal", "easy")):
        bots = [find_bot("hard" if seat % 2 == game % 2 else other, seed=f"{game}:{seat}")
                for seat in range(4)]  # fmt: skip
        result = play_game(bots, f"hf-hard:{game}", HAND_AND_FOOT, max_hands=1)
        assert result.moves > 50
        assert set(result.seconds_by_bot) == {"hard", other}
        simulations += sum(bot.simulations for bot in bots if isinstance(bot, HardBot))
    assert simulations > 0  # the search ran: hard is not only the normal player


def test_a_whole_game_is_four_rounds_with_every_level() -> None:
    game = Game(HAND_AND_FOOT, "hf-four")
    bots = [find_bot(level, seed=seat) for seat, level in enumerate(("normal", "easy") * 2)]
    while not game.is_over:
        game.apply(bots[game.state.to_move].step(game.state).move)
    assert len(game.hands) == 4
    assert game.winner is None or game.winner in (0, 1)


@pytest.mark.parametrize("level", LEVELS)
def test_no_bot_peeks_at_hidden_cards(level: str) -> None:
    states = states_reached("hf-peek", every=9 if level != "hard" else 23)
    checked = 0
    for state in states:
        seat = state.to_move
        chosen = {find_bot(level, seed=11).step(state).move}
        for world_seed in range(3):
            world = determinize(state, seat, SplitMix64(f"w{world_seed}"))
            assert player_view(world, seat) == player_view(state, seat)
            chosen.add(find_bot(level, seed=11).step(world).move)
        assert len(chosen) == 1, (seat, chosen)
        checked += 1
    assert checked > (8 if level == "hard" else 25)


def test_worlds_deal_the_feet_again() -> None:
    # The no-peeking test above means something: worlds differ in the feet, the seat's own too.
    state = states_reached("hf-feet", every=5, rounds=1)[3]
    seat = state.to_move
    worlds = [determinize(state, seat, SplitMix64(i)) for i in range(4)]
    assert any(w.feet[seat] != state.feet[seat] for w in worlds)
    assert all(w.card_total() == state.card_total() for w in worlds)
    # Canonical: two states that look the same from the seat give the same root.
    feet = HANDFOOT_SEARCH.face_down
    assert (
        canonical(worlds[0], seat, feet).snapshot() == canonical(worlds[1], seat, feet).snapshot()
    )


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_seeds_give_the_same_game(level: str) -> None:
    def record() -> list[str]:
        game = Game(HAND_AND_FOOT, "hf-replay")
        bots = [find_bot(level, seed=f"r{s}") for s in range(4)]
        rounds = 1 if level == "hard" else 2
        while not game.is_over and len(game.hands) < rounds:
            game.apply(bots[game.state.to_move].step(game.state).move)
        return list(game.moves)

    first = record()
    assert len(first) > 100 and record() == first


def test_rollouts_read_worlds_as_the_view_shows_them_and_play_normal_moves() -> None:
    normal = find_bot("normal", seed=0)
    for state in states_reached("hf-rollout", every=3):
        seat = state.to_move
        assert Table.of_state(state, seat) == Table.of_view(player_view(state, seat))
        assert rollout_move(state) == normal.step(state).move


def test_every_move_is_explained_in_english() -> None:
    from canasta_teach.bots.claims import reason_record
    from canasta_teach.i18n import get_translator

    tr = get_translator("en")
    given: set[str] = set()
    for level in ("easy", "normal"):
        game = Game(HAND_AND_FOOT, f"hf-why:{level}")
        bots = [find_bot(level, seed=s) for s in range(4)]
        while not game.is_over and len(game.hands) < 2:
            state = game.state
            choice = bots[state.to_move].step(state)
            given.add(choice.why)
            text = tr.reason_words(reason_record(state, state.to_move, choice.move))
            assert text and "{" not in text and "claim." not in text, (choice.why, text)
            game.apply(choice.move)
    assert given <= WHYS, given - WHYS
    assert len(given) >= 10
    assert set(HF_SHARED_WHY_CODES) <= set(WHY_CODES)


def test_normal_lays_down_and_discards_in_a_first_turn() -> None:
    # A deal's first turn: draw, then (when the hand reaches the minimum) set aside and lay
    # down, and a discard ends the turn; never a refused move.
    for seed in range(6):
        state = HandFootState.deal(f"hf-first:{seed}")
        bot = find_bot("normal", seed=seed)
        seat = state.current
        whys = []
        while state.current == seat and not state.is_over:
            choice = bot.step(state)
            whys.append(choice.why)
            assert state.check(choice.move).legal
            state.play(choice.move)
            if isinstance(choice.move, LayDown):
                assert state.down[seat % 2]
        assert whys[0] in ("draw", "take_pile") and isinstance(choice.move, Discard)
        assert state.phase is Phase.DRAW


def test_hard_keeps_to_its_budget() -> None:
    bot = HardBot(seed=1)
    state: State = states_reached("hf-budget", every=7, rounds=1)[6]
    bot.step(state)
    assert bot.simulations <= HF_LIMIT.worlds * HF_LIMIT.candidates


# ---------------------------------------------------------------------------- the hard prior


def _table(hand: dict[Kind, int], **fields: object) -> Table:
    """A down team's view after the draw, with ``hand`` and any other fields given."""
    counts = [0] * NUM_KINDS
    for kind, n in hand.items():
        counts[kind] = n
    base: dict[str, object] = dict(
        hand=tuple(counts), seat=0, phase="meld", pile_top=None, pile_size=4, take_count=4,
        ours={}, theirs={}, staged={}, staged_value=0, our_down=True, minimum=0,
        our_piles=(0, 0, 0), their_piles=(0, 0, 0), needed=(2, 2, 1), in_foot=False,
        partner_in_foot=False,
    )  # fmt: skip
    base.update(fields)
    return Table(**base)  # type: ignore[arg-type]


def test_the_hard_prior_throws_a_rank_the_other_team_is_melding_the_normal_one_keeps_it() -> None:
    # West and East have an unfinished meld of 9s: they add every 9 they get to it at once, so
    # West (next) hardly holds the natural pair that takes the pile (H-PILE-1).  A lone 9 is
    # the hard player's discard; the normal player keeps it from them and throws the lone 8.
    t = _table({Kind.NINE: 1, Kind.EIGHT: 1, Kind.KING: 2}, theirs={int(Kind.NINE): (4, 0)})
    moves = [Discard(Kind.NINE), Discard(Kind.EIGHT), Discard(Kind.KING)]
    assert normal_choice(t, moves, HARD_WEIGHTS, HARD_STYLE).move == Discard(Kind.NINE)
    assert normal_choice(t, moves, HandFootWeights()).move == Discard(Kind.EIGHT)


def test_the_hard_prior_puts_wild_cards_on_the_wild_meld_before_natural_plays() -> None:
    wild = Add(Kind.JOKER, (Kind.TWO,))
    natural = Meld((Kind.SEVEN, Kind.SEVEN, Kind.SEVEN))
    t = _table({Kind.TWO: 1, Kind.SEVEN: 3, Kind.FIVE: 1}, ours={int(Kind.JOKER): (0, 4)})
    moves = [natural, wild, Discard(Kind.FIVE)]
    assert best_play(t, moves, HARD_STYLE) == Choice(wild, "hf_wild_pile", {"cards": 1})
    assert best_play(t, moves, NORMAL_STYLE) is not None
    assert best_play(t, moves, NORMAL_STYLE).move == natural  # type: ignore[union-attr]


def test_the_hard_prior_spends_no_wild_card_on_a_spare_dirty_pile_before_its_wild_pile() -> None:
    # Two dirty piles made already, no wild pile, a dirty meld of six queens: the seventh
    # card would be a wild one worth a seventh of the wild pile (1,500) for a 300 pile.
    finish = Add(Kind.QUEEN, (Kind.TWO,))
    t = _table({Kind.TWO: 1, Kind.FIVE: 1, Kind.SIX: 1, Kind.EIGHT: 1},
               ours={int(Kind.QUEEN): (5, 1)}, our_piles=(2, 2, 0))  # fmt: skip
    moves = [finish, Discard(Kind.FIVE), Discard(Kind.SIX), Discard(Kind.EIGHT)]
    assert best_play(t, moves, HARD_STYLE) is None
    assert best_play(t, moves, NORMAL_STYLE) == Choice(finish, "hf_dirty_pile",
                                                       {"rank": int(Kind.QUEEN)})  # fmt: skip
    # With the wild pile made, the spare dirty pile is worth its wild card.
    made = _table({Kind.TWO: 1, Kind.FIVE: 1, Kind.SIX: 1, Kind.EIGHT: 1},
                  ours={int(Kind.QUEEN): (5, 1)}, our_piles=(2, 2, 1))  # fmt: skip
    assert best_play(made, moves, HARD_STYLE) == best_play(made, moves, NORMAL_STYLE)


def test_the_searchs_rollouts_play_the_hard_prior() -> None:
    hard = HANDFOOT_SEARCH
    for state in states_reached("hf-hard-rollout", every=5):
        assert hard.policy(state) == hard.prior(state).move
