"""A referee: bots play hands and games against each other from seeds.

``play_game(bots, seed)`` plays one game to 5,000 (or ``max_hands`` hands); ``duel(a, b,
games)`` plays ``games`` games with the two levels' seats swapped every other game and gives
``a``'s share of the games won with a 95% Wilson interval.

    python -m canasta_teach.bots.arena normal easy --games 100 [--players 2] [--workers 2]
    python -m canasta_teach.bots.arena normal easy --games 40 --variant handfoot
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from canasta_teach.engine import CLASSIC4, Discard, RuleSet, TakePile
from canasta_teach.engine.game import Game
from canasta_teach.engine.variants import find_variant

from . import Bot, find_bot

#: A hand that goes on this long is stopped (bots that pass the pile back and forth).
MAX_MOVES_PER_HAND = 3000


@dataclass
class GameResult:
    totals: list[int]
    winner: int | None  # team 0 or 1; None when stopped at max_hands
    hands: int
    moves: int
    stopped_hands: int = 0
    seconds_by_bot: dict[str, list[float]] = field(default_factory=dict)
    #: Each level's discards, and how many of them the next player took the pile on at once
    #: (its very next move): how often a level feeds the pile.
    discards_by_bot: dict[str, int] = field(default_factory=dict)
    fed_by_bot: dict[str, int] = field(default_factory=dict)


def play_game(
    bots: Sequence[Bot],
    seed: int | str,
    rules: RuleSet = CLASSIC4,
    max_hands: int = 40,
    on_illegal: Callable[[str], None] | None = None,
) -> GameResult:
    """One game; ``bots[seat]`` plays each seat. A bot's refused move raises ``ValueError``."""
    game = Game(rules, seed)
    moves = 0
    stopped = 0
    timings: dict[str, list[float]] = {}
    discards: dict[str, int] = {}
    fed: dict[str, int] = {}
    last_discard: str | None = None  # the level that threw the pile's top card just now
    while not game.is_over and len(game.hands) < max_hands:
        hand = game.state.hand_number
        in_hand = 0
        while game.state.hand_number == hand and not game.is_over:
            state = game.state
            bot = bots[state.to_move]
            # Think time on one core: the process's CPU time, which other work on a shared
            # machine does not inflate (a bot is single-threaded).
            started = time.process_time()
            choice = bot.step(state)
            timings.setdefault(bot.name, []).append(time.process_time() - started)
            verdict = game.apply(choice.move)
            if not verdict.legal:
                message = f"{bot.name} tried a refused move {choice.move}: {verdict.reason}"
                if on_illegal is not None:
                    on_illegal(message)
                raise ValueError(message)
            if last_discard is not None and isinstance(choice.move, TakePile):
                fed[last_discard] = fed.get(last_discard, 0) + 1
            last_discard = None
            if isinstance(choice.move, Discard):
                discards[bot.name] = discards.get(bot.name, 0) + 1
                last_discard = bot.name
            moves += 1
            in_hand += 1
            if in_hand >= MAX_MOVES_PER_HAND:
                stopped += 1
                return GameResult(list(game.totals), None, len(game.hands) + 1, moves,
                                  stopped, timings, discards, fed)  # fmt: skip
    return GameResult(list(game.totals), game.winner, len(game.hands), moves, stopped, timings,
                      discards, fed)  # fmt: skip


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``wins / n``."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class DuelResult:
    a: str
    b: str
    games: int
    a_wins: float  # a draw (stopped game) counts half
    interval: tuple[float, float]
    seconds_by_bot: dict[str, list[float]]
    stopped: int
    simulations_by_bot: dict[str, int] = field(default_factory=dict)
    discards_by_bot: dict[str, int] = field(default_factory=dict)
    fed_by_bot: dict[str, int] = field(default_factory=dict)

    def feeding(self, name: str) -> tuple[float, float, float]:
        """How often level ``name``'s discard let the next player take the pile: the share and
        its 95% Wilson interval."""
        n = self.discards_by_bot.get(name, 0)
        fed = self.fed_by_bot.get(name, 0)
        low, high = wilson(fed, n)
        return (fed / n if n else 0.0), low, high

    def line(self) -> str:
        share = self.a_wins / self.games if self.games else 0.0
        low, high = self.interval
        return (f"{self.a} vs {self.b}: {share:.1%} (95% CI {low:.1%}–{high:.1%}, "
                f"{self.games} games)")  # fmt: skip


@dataclass
class DuelGame:
    """One game of a duel, from ``a``'s side."""

    share: float  # 1 won, 0 lost; a stopped game: ½ when level, else by the totals
    stopped: bool
    seconds_by_bot: dict[str, list[float]]
    simulations_by_bot: dict[str, int]  # rollouts of searching levels (hard)
    discards_by_bot: dict[str, int] = field(default_factory=dict)
    fed_by_bot: dict[str, int] = field(default_factory=dict)


def make_bot(name: str, seed: int | str) -> Bot:
    """A level by name, or a level that follows the coach ("easy+coach", for the coach's
    benchmark: ``coach.CoachedBot``)."""
    if name.endswith("+coach"):
        from .coach import CoachedBot

        return CoachedBot(find_bot(name[: -len("+coach")], seed=seed))
    return find_bot(name, seed=seed)


def duel_game(
    a: str,
    b: str,
    index: int,
    players: int = 4,
    seed: str = "duel",
    max_hands: int = 40,
    variant: str = "classic",
) -> DuelGame:
    """Game ``index`` of a duel of level ``a`` against level ``b`` (``variant``: "classic",
    at ``players``, or "handfoot", four players and four rounds, H-GAME-1)."""
    rules = find_variant(variant).rules_for(players)  # Hand and Foot: always four (H-GAME-1)
    players = rules.players
    game_seed = f"{seed}:{index // 2}"  # the same deals twice, once from each side
    a_team = index % 2
    bots = [make_bot(a if seat % 2 == a_team else b, seed=f"{game_seed}:{seat}")
            for seat in range(players)]  # fmt: skip
    result = play_game(bots, game_seed, rules, max_hands)
    stopped = result.winner is None
    if stopped:
        ours, theirs = result.totals[a_team], result.totals[1 - a_team]
        share = 0.5 if ours == theirs else 1.0 if ours > theirs else 0.0
        # Hand and Foot ends after its rounds; no winner there is a tie, not a stop.
        stopped = result.stopped_hands > 0 or not rules.rounds or result.hands < rules.rounds
    else:
        share = 1.0 if result.winner == a_team else 0.0
    simulations: dict[str, int] = {}
    for bot in bots:
        count = getattr(bot, "simulations", None)
        if isinstance(count, int):
            simulations[bot.name] = simulations.get(bot.name, 0) + count
    return DuelGame(share, stopped, result.seconds_by_bot, simulations, result.discards_by_bot,
                    result.fed_by_bot)  # fmt: skip


def _duel_game(args: tuple[str, str, int, int, str, int, str]) -> DuelGame:
    return duel_game(*args)


def duel(
    a: str,
    b: str,
    games: int,
    players: int = 4,
    seed: str = "duel",
    max_hands: int = 40,
    workers: int = 1,
    variant: str = "classic",
) -> DuelResult:
    """``games`` games of level ``a`` against level ``b``, seats swapped every other game.

    With ``workers`` > 1 the games are shared among that many processes; each game depends
    only on its seeds, so the result is the same, and each think time is still measured on
    one core (inside its worker)."""
    jobs = [(a, b, i, players, seed, max_hands, variant) for i in range(games)]
    if workers > 1 and games > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            played = pool.map(_duel_game, jobs, chunksize=1)
    else:
        played = [_duel_game(job) for job in jobs]
    wins = 0.0
    stopped = 0
    timings: dict[str, list[float]] = {}
    simulations: dict[str, int] = {}
    discards: dict[str, int] = {}
    fed: dict[str, int] = {}
    for game in played:
        wins += game.share
        stopped += game.stopped
        for name, values in game.seconds_by_bot.items():
            timings.setdefault(name, []).extend(values)
        for name, count in game.simulations_by_bot.items():
            simulations[name] = simulations.get(name, 0) + count
        for name, count in game.discards_by_bot.items():
            discards[name] = discards.get(name, 0) + count
        for name, count in game.fed_by_bot.items():
            fed[name] = fed.get(name, 0) + count
    return DuelResult(a, b, games, wins, wilson(wins, games), timings, stopped, simulations,
                      discards, fed)  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, choices=(2, 4), default=4)
    parser.add_argument("--seed", default="duel")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--variant", choices=("classic", "handfoot"), default="classic")
    args = parser.parse_args(argv)
    result = duel(args.a, args.b, args.games, args.players, args.seed, workers=args.workers,
                  variant=args.variant)  # fmt: skip
    print(result.line())
    for name in sorted(result.discards_by_bot):
        share, low, high = result.feeding(name)
        print(f"  {name}: fed the pile on {share:.1%} of its discards (95% CI {low:.1%}–"
              f"{high:.1%}, {result.discards_by_bot[name]:,} discards)")  # fmt: skip
    for name, values in sorted(result.seconds_by_bot.items()):
        values = sorted(values)
        print(f"  {name}: {len(values)} decisions, median {values[len(values) // 2] * 1000:.2f} ms,"
              f" worst {values[-1] * 1000:.1f} ms")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
