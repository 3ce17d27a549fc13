"""Run every benchmark module found in this package, or the ones named on the command line.

``python -m benchmarks``                 all ``*_bench`` modules (engine_bench, app_bench first)
``python -m benchmarks app_bench``       only that one
"""

from __future__ import annotations

import importlib
import sys
import time
import traceback
from pathlib import Path

FIRST = ("engine_bench", "app_bench")


def discover() -> list[str]:
    here = Path(__file__).resolve().parent
    found = {p.stem for p in here.glob("*_bench.py")}
    return [name for name in FIRST if name in found] + sorted(found - set(FIRST))


def main(argv: list[str] | None = None) -> int:
    names = list(sys.argv[1:] if argv is None else argv) or discover()
    if not names:
        print("benchmarks: no *_bench module found")
        return 0
    failed: list[str] = []
    for name in names:
        print(f"\n=== benchmarks.{name} ===", flush=True)
        started = time.perf_counter()
        try:
            module = importlib.import_module(f"benchmarks.{name}")
            code = module.main([])
        except Exception:
            traceback.print_exc()
            code = 1
        print(f"--- {name}: {time.perf_counter() - started:.1f} s, exit {code}", flush=True)
        if code:
            failed.append(name)
    if failed:
        print(f"\nbenchmarks that failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
