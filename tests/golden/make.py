"""Write the golden traces: one JSON file per case in this folder (``trace.py`` says what a
trace holds).

    python -m tests.golden.make                 # every case: write the files, print sizes
    python -m tests.golden.make --check         # compare with the files, write nothing
    python -m tests.golden.make --only classic4 handfoot.rounds=2
    python -m tests.golden.make --show classic4 random 3    # a hand's trace, line by line

Run it only when the engine is meant to behave differently (a rule fixed, a reason
reworded): review the diff of the files (one trace line per text line), and say in the
commit what changed and why.  Run twice, it writes identical files.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .trace import CASES, find_case, first_difference, kept, play_case, script_of, store
from .trace import dumps as dump_case

HERE = Path(__file__).resolve().parent


def path_of(case_name: str) -> Path:
    return HERE / f"{case_name}.json"


def load(case_name: str) -> dict[str, object]:
    data: dict[str, object] = json.loads(path_of(case_name).read_text(encoding="utf-8"))
    return data


def write(names: list[str]) -> int:
    total = 0
    started = time.perf_counter()
    for name in names:
        case = find_case(name)
        t0 = time.perf_counter()
        text = dump_case(store(play_case(case), case))
        path_of(name).write_text(text, encoding="utf-8")
        total += len(text.encode("utf-8"))
        print(f"{name:40s} {len(text) / 1024:8.1f} KB {time.perf_counter() - t0:6.2f} s")
    kept = {path.stem for path in HERE.glob("*.json")}
    stale = sorted(kept - {case.name for case in CASES})
    for name in stale:
        print(f"note: {name}.json is no case any more (delete it)", file=sys.stderr)
    print(f"{len(names)} cases, {total / 2**20:.2f} MB, {time.perf_counter() - started:.1f} s")
    return 0


def check(names: list[str]) -> int:
    failures = 0
    for name in names:
        case = find_case(name)
        golden = load(name)
        now = play_case(case, script_of(golden))
        problem = first_difference(golden, now)
        if problem is not None:
            failures += 1
            print(problem)
    print(f"{len(names) - failures} of {len(names)} cases agree with their golden traces")
    return 1 if failures else 0


def show(name: str, kind: str, hand: int) -> int:
    """Every line of one hand as the engine plays it now (digest hands are not stored)."""
    case = find_case(name)
    now = play_case(case, script_of(load(name)) if path_of(name).exists() else None)
    game = next(g for g in now["games"] if g["kind"] == kind)
    record = game["hands"][hand - 1]
    for line in record["trace"]:
        print(json.dumps(kept(line), separators=(", ", ": ")))
    tail = {k: v for k, v in record.items() if k != "trace"}
    print(json.dumps(tail, separators=(", ", ": ")))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="CASE", help="these cases only")
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("--show", nargs=3, metavar=("CASE", "KIND", "HAND"),
                        help="print one hand's trace (KIND: random or normal)")  # fmt: skip
    parser.add_argument("--list", action="store_true", help="print the case names")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(case.name for case in CASES))
        return 0
    if args.show:
        name, kind, hand = args.show
        return show(name, kind, int(hand))
    names = args.only or [case.name for case in CASES]
    for name in names:
        find_case(name)  # an unknown name fails here, before any work
    return check(names) if args.check else write(names)


if __name__ == "__main__":
    raise SystemExit(main())
