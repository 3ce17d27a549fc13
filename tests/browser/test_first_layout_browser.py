"""A lesson is laid out once, in its own fonts (issue 22: time to interactive).

Voilà shows the cells when its theme is ready and moves them into its page shell a moment
later; a moved element is laid out afresh. And a web font is asked for only when text is first
laid out in it, so a page whose cells appear before its face has loaded is laid out again when
it arrives. The template therefore shows the cells only once they sit in the shell, and loads the
page language's faces while the page and Voilà's scripts arrive. What is checked here is the
state at the moment the cells first show: where they are and which faces are loaded.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .conftest import PAGE_TIMEOUT_MS, render_url

pytestmark = pytest.mark.browser

# Installed before any page script: when #rendered_cells first shows (Voilà's loading screen
# gone, the cells' display no longer "none"), record its parent and the loaded faces.
AT_FIRST_SHOW = """
(() => {
  const seen = window.__ctFirstShow = {at: null};
  const look = () => {
    if (seen.at !== null) return;
    const cells = document.getElementById("rendered_cells");
    if (!cells || cells.style.display === "none" || document.getElementById("loading")) return;
    seen.at = performance.now();
    seen.inBody = cells.parentNode === document.body;
    seen.inShell = !!cells.parentElement && cells.parentElement.classList.contains("lm-Widget");
    seen.loaded = Array.from(document.fonts)
      .filter((face) => face.status === "loaded")
      .map((face) => face.family.replace(/["']/g, "") + " " + face.weight);
    watch.disconnect();
  };
  const watch = new MutationObserver(look);
  watch.observe(document, {childList: true, subtree: true, attributes: true});
})();
"""

FACE = {"ur": "Noto Nastaliq Urdu", "hi": "Noto Sans Devanagari", "te": "Noto Sans Telugu",
        "en": "Noto Sans"}  # fmt: skip


@pytest.mark.parametrize(
    ("notebook", "ready"),
    [
        ("ur/10-review.ipynb", "[data-ct-card]"),
        ("hi/05-discard-pile.ipynb", "[data-ct-card]"),
        ("te/03-melds-canastas.ipynb", "[data-ct-card]"),
        ("en/09-two-players.ipynb", "[data-ct-card]"),
        # a page without code: no kernel, no widgets; Voilà still moves its cells
        ("ur/00-start.ipynb", "#rendered_cells a[href]:not(.anchor-link)"),
    ],
)
def test_the_cells_first_show_inside_voilas_shell_with_their_faces_loaded(
    page: Page, voila_url: str, notebook: str, ready: str
) -> None:
    page.add_init_script(AT_FIRST_SHOW)
    page.goto(render_url(voila_url, notebook))
    expect(page.locator(ready).first).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    seen = page.evaluate("window.__ctFirstShow")
    assert seen["at"] is not None, "the cells never showed"
    assert not seen["inBody"] and seen["inShell"], seen
    face = FACE[notebook.split("/")[0]]
    assert f"{face} 400" in seen["loaded"] and f"{face} 700" in seen["loaded"], seen
