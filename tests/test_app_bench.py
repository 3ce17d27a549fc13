"""The app benchmark's plan of loads (the benchmark itself runs with `make bench`)."""

from __future__ import annotations

from benchmarks.app_bench import BARE, load_order


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
