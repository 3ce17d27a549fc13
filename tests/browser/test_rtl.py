"""Urdu pages: right-to-left, `lang="ur"`, Nastaliq from the shipped web font, Urdu loading text."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .conftest import PAGE_TIMEOUT_MS, TEST_PREFIX, render_url

pytestmark = pytest.mark.browser

URDU_PROBE = f"{TEST_PREFIX}/ur/rtl_probe.ipynb"


# Records every text the loading screen shows, from the first parsed element on (the screen is
# gone by the time the page's load event fires).
RECORD_LOADING_TEXT = """
window.__ctLoadingTexts = [];
new MutationObserver(() => {
    const el = document.getElementById("loading_text");
    const text = el ? el.textContent : null;
    const seen = window.__ctLoadingTexts;
    if (text && seen[seen.length - 1] !== text) seen.push(text);
}).observe(document, {childList: true, subtree: true, characterData: true});
"""


def test_urdu_page_is_rtl_with_nastaliq(page: Page, voila_url: str, artifacts: Path) -> None:
    page.add_init_script(RECORD_LOADING_TEXT)
    page.goto(render_url(voila_url, URDU_PROBE))
    html = page.locator("html")
    expect(html).to_have_attribute("lang", "ur")
    expect(html).to_have_attribute("dir", "rtl")
    expect(html).to_have_class("ct-lang-ur")

    text = page.locator("div.ct-lang-ur", has_text="کناسٹا")
    expect(text).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    # The loading screen spoke Urdu, never Voilà's English.
    assert page.evaluate("window.__ctLoadingTexts") == ["آپ کا سبق تیار ہو رہا ہے…"]
    style = text.evaluate(
        "el => { const s = getComputedStyle(el);"
        " return {direction: s.direction, font: s.fontFamily, lineHeight: s.lineHeight}; }"
    )
    assert style["direction"] == "rtl"
    assert style["font"].startswith('"Noto Nastaliq Urdu"')
    # The web font itself (not a system font) was loaded and covers the text.
    loaded = page.evaluate(
        """async () => {
            await document.fonts.load('16px "Noto Nastaliq Urdu"', 'کناسٹا');
            await document.fonts.ready;
            return [...document.fonts]
                .filter(f => f.family.replace(/"/g, '') === 'Noto Nastaliq Urdu')
                .map(f => f.status);
        }"""
    )
    assert "loaded" in loaded
    # The widget (a Label) is drawn right to left too.
    label = page.locator(".widget-label", has_text="سبق")
    expect(label).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    assert label.evaluate("el => getComputedStyle(el).direction") == "rtl"
    page.screenshot(path=str(artifacts / "rtl-urdu-probe.png"), full_page=True)
