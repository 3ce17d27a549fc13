"""While a widget loads, the page speaks its own language, not Voilà's "Loading widget..."."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .conftest import PAGE_TIMEOUT_MS, TEST_PREFIX, render_url

pytestmark = pytest.mark.browser

# What the page holds while a widget loads (seen in Voilà 0.5 with a MutationObserver): the
# widget manager's renderer sets the text of the result's output node to "Loading widget...".
PLACEHOLDER = """() => {
    const child = document.createElement("div");
    child.className = "lm-Widget jp-OutputArea-child jp-OutputArea-executeResult";
    const node = document.createElement("div");
    node.className = "lm-Widget lm-Panel jp-OutputArea-output";
    node.textContent = "Loading widget...";
    child.append(node);
    document.body.append(child);
    const shown = getComputedStyle(node, "::after");
    return {
        textSize: getComputedStyle(node).fontSize,
        after: shown.content,
        afterSize: shown.fontSize,
    };
}"""


def test_the_loading_placeholder_speaks_urdu(page: Page, voila_url: str) -> None:
    page.goto(render_url(voila_url, f"{TEST_PREFIX}/ur/rtl_probe.ipynb"))
    expect(page.locator("html")).to_have_class("ct-lang-ur", timeout=PAGE_TIMEOUT_MS)
    result = page.evaluate(PLACEHOLDER)
    assert result["textSize"] == "0px"  # the English text takes no room and cannot be read
    assert result["after"] == '"آپ کا سبق تیار ہو رہا ہے…"'
    assert result["afterSize"] != "0px"


def test_drawn_results_are_left_alone(page: Page, voila_url: str) -> None:
    page.goto(render_url(voila_url, "ur/03-melds-canastas.ipynb"))
    expect(page.locator("[data-ct-card]").first).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    sizes = page.evaluate(
        """() => [...document.querySelectorAll(
                '.jp-OutputArea-executeResult > .jp-OutputArea-output')]
            .map(node => getComputedStyle(node).fontSize)"""
    )
    assert sizes and "0px" not in sizes  # the card table's output keeps its size
