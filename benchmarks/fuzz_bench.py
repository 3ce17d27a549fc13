"""Fuzz benchmark: the two fuzzers of ``tests/test_fuzz.py`` for longer than the test suite.

The command line in-process (random and mutated positions, moves, saved games, flags:
never exit 3, never a traceback) and random positions under every rule option (parse,
legal moves, check and apply each, score, round trip).  Prints cases per second.

    python -m benchmarks.fuzz_bench [--seconds S] [--seed N]

``CANASTA_FUZZ_SECONDS`` (default 60 here, per fuzzer) and ``CANASTA_FUZZ_SEED`` also work.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fuzz_bench")
    parser.add_argument("--seconds", type=float,
                        default=float(os.environ.get("CANASTA_FUZZ_SECONDS", "60")))  # fmt: skip
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    if args.seed is not None:
        os.environ["CANASTA_FUZZ_SEED"] = str(args.seed)
    sys.path.insert(0, str(TESTS))  # test_fuzz imports its neighbours as the tests do
    import test_fuzz

    seed = test_fuzz.SEED
    with tempfile.TemporaryDirectory(prefix="canasta-fuzz-") as folder:
        print(test_fuzz.cli_fuzz(args.seconds, seed, Path(folder)), flush=True)
    print(test_fuzz.position_fuzz(args.seconds, seed), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
