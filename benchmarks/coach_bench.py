"""The coach, measured: what its advice is worth, and how long it takes.

1. **Lift.** An easy player that follows the coach (``coach.CoachedBot``: it chooses again
   when warned, keeps a first meld out of reach rather than set it aside, asks its partner and
   goes out when it can) and the plain easy player each play ``--games`` four-player games
   against the normal player (the same deals, seats swapped).  The lift is the difference of
   their shares of games won, with a 95% interval (Newcombe's method from the two Wilson
   intervals); target: the interval's low end above zero.
2. **Time.** A hand's review (``coach.review``: every decision of an easy learner against the
   hard player's candidates in worlds dealt again), over ``--hands`` hands at four and two
   players and ``--hf-rounds`` Hand and Foot rounds: median and worst, target at most 5 s; a
   warning (``coach.warn``, before every learner discard): median, 99th percentile and worst,
   target at most 200 ms.  Times are CPU seconds of this process (one core), so a busy
   machine does not make them look slower than the coach is.

    python -m benchmarks.coach_bench [--games 600] [--hands 8] [--hf-rounds 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from typing import Any

from canasta_teach.bots import find_bot
from canasta_teach.bots.arena import duel, wilson
from canasta_teach.bots.coach import review, warn
from canasta_teach.engine import CLASSIC2, CLASSIC4, Discard
from canasta_teach.engine.game import Game
from canasta_teach.engine.rules import HAND_AND_FOOT, RuleSet
from canasta_teach.widgets.coaching import learner_decisions

REVIEW_TARGET_S = 5.0
WARNING_TARGET_MS = 200.0


def newcombe(a_wins: float, a_n: int, b_wins: float, b_n: int) -> tuple[float, float, float]:
    """The difference of two proportions (a - b) and its 95% interval (Newcombe 1998, method
    10: from each proportion's Wilson interval)."""
    p1, p2 = a_wins / a_n, b_wins / b_n
    l1, u1 = wilson(a_wins, a_n)
    l2, u2 = wilson(b_wins, b_n)
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return d, low, high


def lift(games: int, workers: int) -> dict[str, Any]:
    coached = duel("easy+coach", "normal", games, seed="coach-lift", workers=workers)
    plain = duel("easy", "normal", games, seed="coach-lift", workers=workers)
    d, low, high = newcombe(coached.a_wins, coached.games, plain.a_wins, plain.games)
    print(f"  {coached.line()}")
    print(f"  {plain.line()}")
    ok = low > 0
    print(f"  lift: {d:+.1%} (95% CI {low:+.1%} to {high:+.1%})  {'ok' if ok else 'NOT CLEAR'}")
    return {"coached": coached.a_wins / coached.games, "plain": plain.a_wins / plain.games,
            "lift": d, "interval": [low, high], "games": games, "ok": ok}  # fmt: skip


def timings(rules: RuleSet, hands: int, seed: str) -> tuple[list[float], list[float]]:
    """CPU seconds of each hand's review and of each warning check, an easy learner (South)
    against normal players."""
    reviews: list[float] = []
    warnings: list[float] = []
    game = Game(rules, seed)
    bots = [find_bot("easy" if s == 0 else "normal", seed=f"{seed}:{s}")
            for s in range(rules.players)]  # fmt: skip
    while len(reviews) < hands and not game.is_over:
        state = game.state
        choice = bots[state.to_move].step(state)
        if state.to_move == 0 and isinstance(choice.move, Discard):
            started = time.process_time()
            warn(state, 0, choice.move)
            warnings.append(time.process_time() - started)
        before = len(game.hands)
        game.apply(choice.move)
        if len(game.hands) > before:
            started = time.process_time()
            review(learner_decisions(game, 0), 0)
            reviews.append(time.process_time() - started)
    return reviews, warnings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--hands", type=int, default=8)
    parser.add_argument("--hf-rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    ok = True
    out: dict[str, Any] = {}
    print("coach: easy following the coach against normal, and plain easy against normal "
          "(4 players)", flush=True)  # fmt: skip
    if args.games > 0:
        out["lift"] = lift(args.games, args.workers)
        ok &= out["lift"]["ok"]
    print("coach: a hand's review and a warning, CPU time on one core", flush=True)
    all_warnings: list[float] = []
    for label, rules, hands in (("4 players", CLASSIC4, args.hands),
                                ("2 players", CLASSIC2, args.hands),
                                ("Hand and Foot", HAND_AND_FOOT, args.hf_rounds)):  # fmt: skip
        if hands <= 0:
            continue
        reviews, warnings = timings(rules, hands, f"coach-time:{rules.name}")
        all_warnings += warnings
        worst = max(reviews)
        fits = worst <= REVIEW_TARGET_S
        ok &= fits
        print(f"  review, {label}: {len(reviews)} hands, median {statistics.median(reviews):.2f} s,"
              f" worst {worst:.2f} s  {'ok' if fits else 'SLOW'}", flush=True)  # fmt: skip
        out[f"review_{rules.name}"] = {"median_s": statistics.median(reviews), "worst_s": worst}
    if all_warnings:
        ms = sorted(w * 1000 for w in all_warnings)
        p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
        fits = ms[-1] <= WARNING_TARGET_MS
        ok &= fits
        print(f"  warning: {len(ms)} discards, median {statistics.median(ms):.1f} ms, 99% under "
              f"{p99:.1f} ms, worst {ms[-1]:.1f} ms  {'ok' if fits else 'SLOW'}")  # fmt: skip
        out["warning_ms"] = {"median": statistics.median(ms), "p99": p99, "worst": ms[-1]}
    if args.json:
        print(json.dumps(out, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
