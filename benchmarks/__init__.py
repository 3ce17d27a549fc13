"""Benchmarks of canasta-teach: ``python -m benchmarks [NAME ...]`` (or ``make bench``).

Each ``benchmarks/*_bench.py`` module has ``main(argv: list[str] | None) -> int`` and prints its
own report; ``engine_bench`` (the rules engine) and ``app_bench`` (Voilà + Chromium) run first.
"""
