"""The app benchmark's plan of loads (the benchmark itself runs with `make bench`)."""

from __future__ import annotations

from benchmarks.app_bench import BARE, load_order, wait_for_quiet


def test_the_bare_page_is_loaded_again_before_each_languages_pages() -> None:
    names = [BARE, "index.ipynb", "en/00-start.ipynb", "en/01-a.ipynb", "ur/00-start.ipynb"]
    assert load_order(names) == [
        BARE,
        "index.ipynb",
        BARE,
        "en/00-start.ipynb",
        "en/01-a.ipynb",
        BARE,
        "ur/00-start.ipynb",
    ]


def test_without_the_bare_page_the_order_is_the_given_one() -> None:
    names = ["en/01-a.ipynb", "hi/01-a.ipynb", "hi/02-b.ipynb"]
    assert load_order(names) == names


def test_a_load_waits_for_the_warm_kernels_and_an_idle_server() -> None:
    # A page's own kernel still shutting down (3 kernels), the refill starting (CPU in use),
    # then two warm kernels, idle: quiet at the first reading that is both.
    readings = [(3, 100), (2, 180), (2, 240), (2, 241), (2, 241)]

    def state() -> tuple[int, int]:
        return readings.pop(0)

    assert wait_for_quiet(state, 2, window=0, ticks=2, timeout=5)
    assert readings == [(2, 241)]  # it went ahead at the first quiet window


def test_a_server_that_never_settles_is_given_up_on() -> None:
    busy = iter(range(0, 10**9, 50))  # 50 ticks per window: never idle
    assert not wait_for_quiet(lambda: (2, next(busy)), 2, window=0.01, timeout=0.2)
    # One kernel more than the warm ones (a page's, still running) is never quiet, idle or not.
    assert not wait_for_quiet(lambda: (3, 0), 2, window=0.01, timeout=0.2)
