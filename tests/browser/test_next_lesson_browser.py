"""The next lesson, opened from the previous lesson's link on a server with warm kernels (as
``make app`` runs it, ``--preheat``): its game is there and answers a click (issue 22).

How fast belongs to ``benchmarks.app_bench`` (next-lesson time); this checks the state: the page
that a warm kernel served is the lesson asked for, in its language, and its game works.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from canasta_teach import app
from canasta_teach.app import free_port, kernel_pids, start_server, stop_server, wait_for_port

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

FROM, TO = "02-deal-and-turn.ipynb", "03-melds-canastas.ipynb"
TIMEOUT_MS = 90_000


@pytest.fixture(scope="module")
def warm_url(artifacts: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own with the launcher's warm kernels, once they are running."""
    port = free_port()
    env = {**os.environ, "CANASTA_DATA_DIR": str(tmp_path_factory.mktemp("data"))}
    env.pop("CANASTA_ROOMS_URL", None)
    with open(artifacts / "voila-warm-server.log", "wb") as log:
        # Warm kernels alone (prerendering, which Playwright's Chromium never shows, is off:
        # see conftest.voila_url); test_prerender_browser.py has the prerendered next lesson.
        options = {"preheat": app.DEFAULT_PREHEAT, "prerender": False}
        proc = start_server(port, options=options, stdout=log, stderr=log, stdin=None, env=env)
        try:
            wait_for_port(port, timeout=120, proc=proc)
            deadline = time.monotonic() + 120
            while len(kernel_pids(proc.pid)) < app.DEFAULT_PREHEAT:
                assert time.monotonic() < deadline, "the warm kernels never started"
                time.sleep(0.2)
            yield f"http://127.0.0.1:{port}/voila/render"
        finally:
            stop_server(proc)


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_the_next_lesson_from_its_link_is_usable(
    warm_url: str, browser_context: BrowserContext, lang: str
) -> None:
    from playwright.sync_api import expect

    page = browser_context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(f"{warm_url}/{lang}/{FROM}")
        page.locator("[data-ct-card]").first.wait_for(state="visible")
        page.locator(f"#rendered_cells a[href='{TO}']").last.click()
        page.wait_for_url(f"**/{lang}/{TO}")
        root = page.locator(".ct-root")
        expect(root).to_have_attribute("lang", lang)
        hand = page.locator(".ct-hand [data-ct-card]")
        expect(hand.first).to_be_visible()
        cards = hand.count()
        assert cards == 12  # build-a-meld's first puzzle: A K K K Q 10 9 7 6 5 4 4
        message = page.locator(".ct-message").first
        before = message.inner_text()
        # Two fours are too few for a meld (C-MELD-1): the game refuses, says why, keeps the hand.
        for n in range(2):
            page.locator(".ct-hand [data-ct-card='4']").nth(n).click()
        expect(page.locator(".ct-hand [aria-pressed='true']")).to_have_count(2)
        page.locator("[data-ct-action='meld']").click()
        expect(message).not_to_have_text(before)
        assert message.inner_text().strip()
        expect(hand).to_have_count(cards)
        expect(page.locator(".ct-us [data-ct-meld='4']")).to_have_count(0)
    finally:
        page.close(run_before_unload=True)
