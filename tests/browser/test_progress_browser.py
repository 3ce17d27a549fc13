"""Progress belongs to the lesson and its puzzles, not to the language (issue 19).

The lessons' puzzles are the same in all four languages, so a puzzle solved in English is
solved in Urdu too: the games keep one record per lesson (``canasta-teach:v1:progress:<lesson>``)
and the start pages of every language read it. Records an older page kept per language
(``progress:<lang>:<lesson>``) are merged into the lesson's, in every language's start page and
lesson, and removed; "Forget my progress" forgets it all.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from canasta_teach.i18n import get_translator
from canasta_teach.widgets.puzzles import load_set

from .conftest import PAGE_TIMEOUT_MS, REPO_ROOT, render_url

pytestmark = pytest.mark.browser

STEP_MS = 20_000
PREFIX = "canasta-teach:v1:progress:"
MELDS = "03-melds-canastas.ipynb"
PILE = "05-discard-pile.ipynb"
PUZZLES = REPO_ROOT / "lessons" / "puzzles"


def total(game: str) -> int:
    return len(load_set(PUZZLES / game).puzzles)


def kept(page: Page) -> dict[str, Any]:
    """The progress records in the browser's storage, by key."""
    script = (
        "p => JSON.stringify(Object.fromEntries(Object.keys(localStorage)"
        ".filter(k => k.startsWith(p)).map(k => [k, localStorage.getItem(k)])))"
    )
    records: dict[str, str] = json.loads(page.evaluate(script, PREFIX))
    return {key: json.loads(value) for key, value in records.items()}


def open_start(page: Page, voila_url: str, lang: str) -> None:
    page.goto(render_url(voila_url, f"{lang}/00-start.ipynb"))
    expect(page.locator(f".ct-lang-{lang} p").first).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    expect(page.locator("#loading")).to_have_count(0, timeout=PAGE_TIMEOUT_MS)


def test_a_puzzle_solved_in_english_counts_in_urdu(
    page: Page, voila_url: str, artifacts: Path
) -> None:
    en, ur = get_translator("en"), get_translator("ur")
    melds = total("build-a-meld")
    page.goto(render_url(voila_url, f"en/{MELDS}"))
    root = page.locator(".ct-root")
    for nth in range(3):
        card = root.locator(".ct-hand [data-ct-card='K']").nth(nth)
        card.click()
        expect(card).to_have_attribute("aria-pressed", "true")
    root.locator("[data-ct-action='meld']").click()
    expect(root.locator(".ct-progress")).to_have_text(
        en.ui("game.progress", solved=1, total=melds), timeout=STEP_MS
    )
    # One record, the lesson's: no language in its key.
    assert kept(page) == {PREFIX + MELDS: {"solved": [0], "total": melds}}

    # The Urdu start page marks the lesson with it.
    open_start(page, voila_url, "ur")
    mark = page.locator(f".ct-progress-mark[data-ct-lesson='{MELDS}']")
    expect(mark.first).to_have_text(f" 1/{melds}")
    # "Continue where you left off" (the first lesson of the course not done: lesson 1) is on
    # the page's own side: right, in Urdu.
    box = page.locator(".ct-continue")
    expect(box).to_have_attribute("data-ct-continue", "01-cards-values.ipynb")
    sides = box.evaluate(
        "b => { const r = b.getBoundingClientRect(), s = getComputedStyle(b);"
        " const l = b.querySelector('a').getBoundingClientRect();"
        " return {gap: r.right - parseFloat(s.paddingRight) - parseFloat(s.borderRightWidth)"
        " - l.right}; }"
    )
    assert abs(sides["gap"]) <= 1, sides
    page.screenshot(path=str(artifacts / "progress-start-ur-from-en.png"))

    # The Urdu lesson opens with it: one solved, at the first puzzle not solved.
    page.goto(render_url(voila_url, f"ur/{MELDS}"))
    root = page.locator(".ct-root")
    expect(root.locator(".ct-progress")).to_have_text(
        ur.ui("game.progress", solved=1, total=melds), timeout=PAGE_TIMEOUT_MS
    )
    expect(root.locator(".ct-puzzle-number")).to_have_text(
        ur.ui("game.puzzle_number", number=2, total=melds)
    )


def test_progress_kept_per_language_by_an_older_page_still_counts(
    page: Page, voila_url: str, artifacts: Path
) -> None:
    en = get_translator("en")
    pile = total("take-the-pile")
    open_start(page, voila_url, "en")
    expect(page.locator(".ct-progress-mark")).to_have_count(0)
    # As an older page kept them: puzzles 1 and 2 solved in Hindi, 2 and 3 in Urdu, and the
    # guided hand's steps in Telugu.
    page.evaluate(
        "([p, records]) => { for (const [k, v] of Object.entries(records))"
        " localStorage.setItem(p + k, JSON.stringify(v)); }",
        [PREFIX, {
            f"hi:{PILE}": {"solved": [0, 1], "total": pile},
            f"ur:{PILE}": {"solved": [1, 2], "total": pile},
            "te:11-full-game.ipynb": {"solved": [0, 1, 2], "total": 10, "unit": "steps"},
        }],
    )  # fmt: skip
    open_start(page, voila_url, "en")
    expect(page.locator(f".ct-progress-mark[data-ct-lesson='{PILE}']").first).to_have_text(
        f" 3/{pile}"
    )
    expect(page.locator(".ct-progress-mark[data-ct-lesson='11-full-game.ipynb']").first
           ).to_have_attribute("aria-label", "3 of 10 steps played")  # fmt: skip
    assert kept(page) == {
        PREFIX + PILE: {"solved": [0, 1, 2], "total": pile},
        PREFIX + "11-full-game.ipynb": {"solved": [0, 1, 2], "total": 10, "unit": "steps"},
    }
    # The English lesson shows the three, and opens at the first puzzle not solved.
    page.goto(render_url(voila_url, f"en/{PILE}"))
    root = page.locator(".ct-root")
    expect(root.locator(".ct-progress")).to_have_text(
        en.ui("game.progress", solved=3, total=pile), timeout=PAGE_TIMEOUT_MS
    )
    expect(root.locator(".ct-puzzle-number")).to_have_text(
        en.ui("game.puzzle_number", number=4, total=pile)
    )

    # A lesson page merges an older record by itself too (JupyterLab has no start page).
    page.evaluate(
        "([k, v]) => localStorage.setItem(k, JSON.stringify(v))",
        [f"{PREFIX}hi:{MELDS}", {"solved": [4], "total": total("build-a-meld")}],
    )
    page.goto(render_url(voila_url, f"te/{MELDS}"))
    root = page.locator(".ct-root")
    expect(root.locator(".ct-progress")).to_have_text(
        get_translator("te").ui("game.progress", solved=1, total=total("build-a-meld")),
        timeout=PAGE_TIMEOUT_MS,
    )
    assert not [key for key in kept(page) if re.match(rf"{PREFIX}(en|ur|hi|te):", key)]

    # Forget my progress, on any language's start page, forgets all of it.
    open_start(page, voila_url, "hi")
    page.locator(".ct-reset-progress").click()
    expect(page.locator(".ct-progress-mark")).to_have_count(0)
    assert kept(page) == {}
