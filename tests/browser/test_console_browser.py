"""The browser's console stays quiet over a session (issue 19).

The walkthrough counted about 380 "Unsatisfied version 4.2.5 … (required ^4.6.2)" warnings a
session: the page's widget code (Voilà's widget manager, the Jupyter widgets extension) was
built for newer JupyterLab packages than the ones Voilà's page provides. With the versions that
agree (pyproject.toml), a learner's session logs no warning and no error at all: a lesson page
whose game is played, the start page, a full game with a turn played, and the room its Invite
button opens, started and shown. Nothing is allow-listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Playwright,
    WebSocket,
    expect,
)

from canasta_teach.app import CHROMIUM_ARGS

from .conftest import CHROMIUM, PAGE_TIMEOUT_MS, TEST_PREFIX, render_url

pytestmark = pytest.mark.browser

STEP_MS = 20_000


@pytest.fixture(scope="module")
def chromium(playwright_api: Playwright) -> Iterator[Browser]:
    browser = playwright_api.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
    )
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture
def session(chromium: Browser) -> Iterator[tuple[BrowserContext, list[str]]]:
    """A fresh browser (its own storage) and what its pages said: every console warning and
    error, and every uncaught error, of every page it opens (a tab opened by a page too)."""
    context = chromium.new_context(viewport={"width": 1366, "height": 768})
    context.set_default_timeout(PAGE_TIMEOUT_MS)
    said: list[str] = []

    def heard(message: ConsoleMessage) -> None:
        if message.type in ("warning", "error"):
            said.append(f"{message.type}: {message.text} ({message.page and message.page.url})")

    context.on("console", heard)
    context.on("weberror", lambda error: said.append(f"uncaught: {error.error}"))
    try:
        yield context, said
    finally:
        context.close()


class KernelSockets:
    """The websockets a page opens (its kernel's channels) and whether each has heard from the
    server yet."""

    def __init__(self, page: Page) -> None:
        self.heard: dict[str, bool] = {}
        page.on("websocket", self._opened)

    def _opened(self, socket: WebSocket) -> None:
        self.heard.setdefault(socket.url, False)

        def answered(_frame: object) -> None:
            self.heard[socket.url] = True

        socket.on("framereceived", answered)
        socket.on("close", answered)


def test_a_session_logs_no_warning_and_no_error(
    session: tuple[BrowserContext, list[str]], voila_url: str, artifacts: Path
) -> None:
    context, said = session
    page = context.new_page()

    # A lesson with its game: a meld of three kings.
    page.goto(render_url(voila_url, "en/03-melds-canastas.ipynb"))
    root = page.locator(".ct-root")
    for nth in range(3):
        card = root.locator(".ct-hand [data-ct-card='K']").nth(nth)
        card.click()
        expect(card).to_have_attribute("aria-pressed", "true")
    root.locator("[data-ct-action='meld']").click()
    expect(root.locator(".ct-message")).to_have_class(re.compile(r"\bct-success\b"),
                                                     timeout=STEP_MS)  # fmt: skip

    # The start page (it marks the lesson's progress). It has no code, so no kernel: no socket.
    sockets = KernelSockets(page)
    page.goto(render_url(voila_url, "en/00-start.ipynb"))
    expect(page.locator(".ct-progress-mark").first).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    page.wait_for_load_state("networkidle")
    assert sockets.heard == {}, "a page without code opened a kernel socket"

    # A full game: one turn, the computer players' turns after it.
    page.goto(render_url(voila_url, f"{TEST_PREFIX}/widgets/fullgame_en_4p.ipynb"))
    root = page.locator(".ct-root.ct-full")
    draw = root.locator(".ct-buttons [data-ct-action='draw']:not([aria-disabled='true'])")
    expect(draw).to_have_count(1, timeout=PAGE_TIMEOUT_MS)
    message = root.locator(".ct-message")
    seq = message.get_attribute("data-ct-seq") or ""
    draw.click()
    expect(message).not_to_have_attribute("data-ct-seq", seq, timeout=STEP_MS)
    root.locator(".ct-hand [data-ct-card]").first.click()
    root.locator("[data-ct-action='discard']").click()
    expect(draw).to_have_count(1, timeout=STEP_MS)

    # Invite friends: the room opens in a tab of its own; its host starts the game.
    with context.expect_page(timeout=PAGE_TIMEOUT_MS) as opened:
        root.locator("[data-ct-game='invite']").click()
    room = opened.value
    room.wait_for_url(re.compile(r"play-together\.ipynb#room="), timeout=PAGE_TIMEOUT_MS)
    start = room.locator("[data-ct-game='start']")
    start.click()
    expect(room.locator(".ct-root .ct-hand [data-ct-card]").first).to_be_visible(timeout=STEP_MS)
    room.screenshot(path=str(artifacts / "console-room.png"))

    # Every page is done loading: what it logged is all it will log for these steps.
    for done in (page, room):
        done.wait_for_load_state("networkidle")
    assert said == []
