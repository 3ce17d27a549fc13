"""Bot strength and think time: level against level over fixed seeds, seats swapped.

Each pair plays games to 5,000 (the same deals twice, once from each side) at four and at two
players, and prints one line a pair, ``normal vs easy: 61.2% (95% CI 57.0–65.3%, 500
games)``, then how often each level's discard let the next player take the pile at once (its
feeding rate), then each level's think time per decision on one core. ``hard`` plays
``--hard-games``
games (it thinks some 300 times longer), shared among ``--workers`` processes: every game depends
only on its seeds, so the figures do not depend on the number of workers, and each think time
is measured inside its worker, on one core. Targets: the stronger level's interval excludes
50%; median think time under 50 ms for easy and normal, under 1,000 ms for hard, and every
hard decision (the worst) under 1,000 ms.

Then Hand and Foot (four players, four rounds a game, H-GAME-1; a tie counts half): normal
against easy over ``--handfoot-games`` games and hard against normal over
``--handfoot-hard-games``, seats swapped, the same targets; ``--handfoot-games 0`` skips it.

    python -m benchmarks.bots_bench [--games 400] [--hard-games 60] [--workers 2] [--json]
        [--handfoot-games 200] [--handfoot-hard-games 200] [--only hard-normal] [--players 4]

Think times are CPU time of the deciding process (one core), so a busy machine does not
inflate them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from canasta_teach.bots.arena import DuelResult, duel

PAIRS = (("normal", "easy"), ("hard", "normal"))
#: Median think time a decision, by level (ms).
TARGET_MEDIAN_MS = {"easy": 50.0, "normal": 50.0, "hard": 1000.0}
#: The slowest decision allowed, by level (ms): every hard decision under a second.
TARGET_WORST_MS = {"hard": 1000.0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--hard-games", type=int, default=60)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--handfoot-games", type=int, default=200)
    parser.add_argument("--handfoot-hard-games", type=int, default=200)
    parser.add_argument("--only", choices=[f"{a}-{b}" for a, b in PAIRS],
                        help="play only this pair (e.g. hard-normal)")  # fmt: skip
    parser.add_argument("--players", type=int, choices=(4, 2), action="append",
                        help="Classic at these numbers of players only (repeatable)")  # fmt: skip
    args = parser.parse_args(argv)
    pairs = [(a, b) for a, b in PAIRS if args.only in (None, f"{a}-{b}")]
    rows: list[dict[str, Any]] = []
    ok = True
    for players in args.players or (4, 2):
        for a, b in pairs:
            searching = "hard" in (a, b)
            games = args.hard_games if searching else args.games
            if games <= 0:
                continue
            started = time.perf_counter()
            result = duel(a, b, games, players=players, seed=f"bench{players}",
                          workers=args.workers if searching else 1)  # fmt: skip
            wall = time.perf_counter() - started
            ok &= _report(result, f"{players} players", wall, rows, {"players": players})
    if args.handfoot_games > 0:
        for a, b in pairs:
            searching = "hard" in (a, b)
            games = args.handfoot_hard_games if searching else args.handfoot_games
            if games <= 0:
                continue
            started = time.perf_counter()
            result = duel(a, b, games, seed="bench-hf", workers=args.workers,
                          variant="handfoot", max_hands=4)  # fmt: skip
            wall = time.perf_counter() - started
            ok &= _report(result, "Hand and Foot", wall, rows,
                          {"players": 4, "variant": "handfoot"})  # fmt: skip
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0 if ok else 1


def _report(
    result: DuelResult, label: str, wall: float, rows: list[dict[str, Any]], extra: dict[str, Any]
) -> bool:
    """Print a duel's line and each level's think time; add its JSON row; True when the
    stronger level is clearly ahead and every level is fast enough."""
    low, high = result.interval
    beats = low > 0.5
    ok = beats
    print(f"{label}: {result.line()}  {'ok' if beats else 'NOT CLEAR'}"
          f"  ({wall:.0f} s)", flush=True)  # fmt: skip
    feeding = {}
    for name in sorted(result.discards_by_bot):
        share, f_low, f_high = result.feeding(name)
        feeding[name] = [share, f_low, f_high]
        print(f"    {name}: fed the pile on {share:.1%} of its discards (95% CI {f_low:.1%}–"
              f"{f_high:.1%}, {result.discards_by_bot[name]:,} discards: the next player "
              f"took the pile at once)", flush=True)  # fmt: skip
    for name, values in sorted(result.seconds_by_bot.items()):
        median = statistics.median(values) * 1000
        p90 = sorted(values)[int(len(values) * 0.9)] * 1000
        worst = max(values) * 1000
        fast = median < TARGET_MEDIAN_MS.get(name, 50.0)
        fast &= worst < TARGET_WORST_MS.get(name, float("inf"))
        ok &= fast
        print(f"    {name}: {len(values):,} decisions, median {median:.2f} ms, "
              f"90% under {p90:.1f} ms, worst {worst:.1f} ms  "
              f"{'ok' if fast else 'SLOW'}", flush=True)  # fmt: skip
        simulations = result.simulations_by_bot.get(name)
        if simulations:
            rate = simulations / sum(values)
            print(f"    {name}: {simulations:,} simulations, {rate:,.0f} a second "
                  f"of thinking", flush=True)  # fmt: skip
    medians = {name: statistics.median(values) * 1000
               for name, values in result.seconds_by_bot.items()}  # fmt: skip
    worsts = {name: max(values) * 1000 for name, values in result.seconds_by_bot.items()}
    rows.append({**extra, "a": result.a, "b": result.b, "games": result.games,
                 "a_share": result.a_wins / result.games, "interval": [low, high],
                 "stopped": result.stopped, "median_ms": medians, "worst_ms": worsts,
                 "simulations": result.simulations_by_bot, "feeding": feeding,
                 "seconds": round(wall, 1)})  # fmt: skip
    return ok


if __name__ == "__main__":
    raise SystemExit(main())
