"""Bot strength and think time: level against level over fixed seeds, seats swapped.

Each pair plays ``--games`` games to 5,000 (the same deals twice, once from each side) at four
and at two players, and prints one line a pair, ``normal vs easy: 61.2% (95% CI 57.0–65.3%, 500
games)``, then each level's think time per decision on one core. Targets: the stronger level's
interval excludes 50%; median think time under 50 ms for easy and normal.

    python -m benchmarks.bots_bench [--games 400] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
from typing import Any

from canasta_teach.bots.arena import duel

PAIRS = (("normal", "easy"),)
TARGET_MEDIAN_MS = 50.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    ok = True
    for players in (4, 2):
        for a, b in PAIRS:
            result = duel(a, b, args.games, players=players, seed=f"bench{players}")
            low, high = result.interval
            beats = low > 0.5
            ok &= beats
            print(f"{players} players: {result.line()}  {'ok' if beats else 'NOT CLEAR'}")
            for name, values in sorted(result.seconds_by_bot.items()):
                median = statistics.median(values) * 1000
                worst = max(values) * 1000
                fast = median < TARGET_MEDIAN_MS
                ok &= fast
                print(f"    {name}: {len(values):,} decisions, median {median:.2f} ms, "
                      f"worst {worst:.1f} ms  {'ok' if fast else 'SLOW'}")  # fmt: skip
            rows.append({"players": players, "a": a, "b": b, "games": result.games,
                         "a_share": result.a_wins / result.games, "interval": [low, high],
                         "stopped": result.stopped})  # fmt: skip
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
