"""The next lesson, prerendered while the learner reads the one before (issue 22), in real
Chromium against a real server with a small cap.

Playwright's way of attaching to a page turns Chromium's prerendering off, so these tests drive
Chromium through its tab target (:class:`tests.browser.tabdriver.TabBrowser`). What the server
does with a prerendered page is read in its log (``canasta_teach.app``'s ``PageHandler`` and the
kernel websocket name the kernel: given to a prerendered page, shown, evicted, refused).

- A learner who reads lesson 2 gets lesson 3 prerendered, with a kernel the server counts as
  speculative; the click shows that very page (activated from prerender), and its game plays.
- With the cap nearly full, the prerender gets no kernel (a quiet 503 the browser drops) and
  the learner's own click loads the lesson as a plain page.
- A learner the cap would turn away takes the prerendered page's place instead; that page,
  shown later, sees its kernel gone and opens itself again, and its game plays.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from canasta_teach import app
from canasta_teach.app import free_port, kernel_pids, start_server, stop_server, wait_for_port
from tests.browser.conftest import CHROMIUM
from tests.browser.tabdriver import TabBrowser
from tests.test_server import Server

#: Lesson 2, the lesson its link opens, and the one after.
FROM, TO, AFTER = "02-deal-and-turn.ipynb", "03-melds-canastas.ipynb", "04-threes.ipynb"
#: Room for lesson 2 and its prerendered next lesson, and one learner more.
CAP = 3
#: Generous: cold kernels on a busy 2-core machine.
TIMEOUT_S = 90.0

DRAWN = "(e => !!e && e.getClientRects().length > 0)(document.querySelector('[data-ct-card]'))"
KERNEL_ID = (
    "(e => !!e && JSON.parse(e.textContent).kernelId)"
    "(document.getElementById('jupyter-config-data'))"
)
NAVIGATION = "performance.getEntriesByType('navigation')[0]"
LINK = json.dumps(f"#rendered_cells a[href='{TO}']")
CLICK_NEXT = f"Array.from(document.querySelectorAll({LINK})).pop().click()"
SHOWN = f"location.pathname.endsWith('/en/{TO}') && !document.prerendering && {DRAWN}"


class Voila(Server):
    """The test's server: a visitor of its own (``get``, ``page_kernel``: another learner's
    browser) and its log."""

    log: Path

    def logged(self, pattern: str, since: int = 0, timeout: float = TIMEOUT_S) -> re.Match[str]:
        """The first match of ``pattern`` in the log after offset ``since``, once it is there."""
        deadline = time.monotonic() + timeout
        while True:
            found = re.search(pattern, self.log.read_text(errors="replace")[since:])
            if found:
                return found
            if time.monotonic() > deadline:
                raise TimeoutError(f"{pattern!r} not in the server's log after {timeout} s")
            time.sleep(0.05)

    def log_size(self) -> int:
        return len(self.log.read_text(errors="replace"))

    def kernels(self) -> int:
        return len(kernel_pids(self.proc.pid))

    def shut_down_every_kernel(self) -> None:
        """Shut down every kernel the server started (as closed tabs do), pages still rendering
        included (a prerender the browser gave up on), and wait until none is left."""
        # Tornado's check wants the same token in the cookie and the header, whatever it is.
        token = {"Cookie": "_xsrf=test", "X-XSRFToken": "test"}
        done: set[str] = set()
        deadline = time.monotonic() + 60
        while True:
            started = set(re.findall(r"Kernel started: (\S+)", self.log.read_text()))
            for kernel_id in started - done:
                shutdown = f"{self.base}/voila/api/shutdown/{kernel_id}"
                request = urllib.request.Request(shutdown, headers=token, data=b"")
                with contextlib.suppress(urllib.error.HTTPError):  # 404: gone already
                    urllib.request.urlopen(request, timeout=60).close()
            done |= started
            if not self.kernels():
                return
            assert time.monotonic() < deadline, "kernels outlived their pages"
            time.sleep(0.1)


@pytest.fixture(scope="module")
def voila(artifacts: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Voila]:
    """A server of its own, with a cap of :data:`CAP` and no warm kernels (every kernel in it
    is a page's)."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing")
    port = free_port()
    env = {**os.environ, "CANASTA_DATA_DIR": str(tmp_path_factory.mktemp("data"))}
    env.pop("CANASTA_ROOMS_URL", None)
    log = artifacts / "voila-prerender-server.log"
    with open(log, "wb") as out:
        proc = start_server(
            port, options={"max_kernels": CAP}, stdout=out, stderr=out, stdin=None, env=env
        )
        try:
            wait_for_port(port, timeout=120, proc=proc)
            served = Voila(port, proc)
            served.log = log
            yield served
        finally:
            stop_server(proc)


@pytest.fixture
def tab(voila: Voila, tmp_path: Path) -> Iterator[TabBrowser]:
    """A learner's browser (one tab, a fresh profile); every kernel is gone after the test."""
    browser = TabBrowser(tmp_path / "profile", app.CHROMIUM, app.CHROMIUM_ARGS)
    try:
        yield browser
    finally:
        # Every prerender the tab asked for settles first: a page still rendering when the test
        # ends would hold its place on the server into the next test, whose own prerender would
        # then find no room (a lesson shown asks for the one after it at once).
        asked = {e["params"]["key"]["url"] for e in list(browser.events)
                 if e["method"] == "Preload.prerenderStatusUpdated"}  # fmt: skip
        for url in asked:
            with contextlib.suppress(TimeoutError):
                settled(browser, url.rsplit("/", 1)[-1])
        with contextlib.suppress(Exception):
            browser.goto("about:blank")
        browser.close()
        voila.shut_down_every_kernel()


def read_lesson_2(tab: TabBrowser, voila: Voila) -> None:
    tab.goto(f"{voila.base}/voila/render/en/{FROM}")
    tab.wait_for(DRAWN, TIMEOUT_S)


def settled(tab: TabBrowser, lesson: str) -> dict[str, Any]:
    """Chromium's last word on its prerender of ``lesson`` (in English): ready, or failed."""
    return tab.wait_event(
        lambda e: (
            e["method"] == "Preload.prerenderStatusUpdated"
            and e["params"]["key"]["url"].endswith(f"/en/{lesson}")
            and e["params"]["status"] in ("Ready", "Failure")
        ),
        TIMEOUT_S,
    )


def ready(tab: TabBrowser, voila: Voila, lesson: str) -> None:
    """Wait until Chromium says it prerendered ``lesson`` (in English), loaded and ready."""
    status = settled(tab, lesson)
    # On a failure, what the server did with the request (given a kernel, or none, and why).
    said = [line for line in voila.log.read_text(errors="replace").splitlines()
            if "prerender" in line or "Kernel" in line]  # fmt: skip
    assert status["params"]["status"] == "Ready", (status["params"], said[-12:])


def plays(tab: TabBrowser) -> None:
    """Lesson 3's first puzzle answers clicks: two fours are too few for a meld (C-MELD-1), so
    the game says why and keeps the hand."""
    hand = ".ct-hand [data-ct-card]"
    tab.wait_for(f"document.querySelectorAll({json.dumps(hand)}).length === 12", TIMEOUT_S)
    message = "document.querySelector('.ct-message').innerText"
    before = tab.evaluate(message)
    fours = json.dumps(".ct-hand [data-ct-card='4']")
    for n in range(2):
        tab.evaluate(f"document.querySelectorAll({fours})[{n}].click()")
    pressed = json.dumps(".ct-hand [aria-pressed='true']")
    tab.wait_for(f"document.querySelectorAll({pressed}).length === 2", TIMEOUT_S)
    tab.evaluate("document.querySelector(\"[data-ct-action='meld']\").click()")
    said = tab.wait_for(f"{message} !== {json.dumps(before)} && {message}.trim()", TIMEOUT_S)
    assert said
    assert tab.evaluate(f"document.querySelectorAll({json.dumps(hand)}).length") == 12
    assert tab.evaluate("document.querySelectorAll(\".ct-us [data-ct-meld='4']\").length") == 0


def prerender_lesson_3(tab: TabBrowser, voila: Voila) -> tuple[int, str, str]:
    """The learner reads lesson 2 and Chromium prerenders lesson 3, which the server gives a
    speculative kernel: (the log's size before, the hidden page's session, its kernel)."""
    since = voila.log_size()
    read_lesson_2(tab, voila)
    hidden = tab.prerendered(f"/en/{TO}", TIMEOUT_S)
    ready(tab, voila, TO)
    kernel = tab.wait_for(KERNEL_ID, TIMEOUT_S, session=hidden)  # the page still arrives
    voila.logged(rf"kernel {kernel}: a prerendered page's", since)
    return since, hidden, kernel


def test_the_next_lesson_is_prerendered_then_shown_at_once_and_plays(
    voila: Voila, tab: TabBrowser
) -> None:
    since, hidden, kernel = prerender_lesson_3(tab, voila)
    assert tab.evaluate("document.prerendering", hidden) is True
    assert voila.kernels() == 2  # lesson 2's and the prerendered lesson 3's
    assert f"kernel {kernel}: its prerendered page is shown" not in voila.log.read_text()

    tab.evaluate(CLICK_NEXT)
    tab.wait_for(SHOWN, TIMEOUT_S, session=hidden)
    tab.show(hidden)
    assert tab.evaluate(f"{NAVIGATION}.activationStart") > 0  # the prerendered page, activated
    assert tab.evaluate(KERNEL_ID) == kernel
    voila.logged(rf"kernel {kernel}: its prerendered page is shown", since)
    plays(tab)
    # And the lesson shown asks for the one after it. (Whether that prerender gets a kernel
    # depends on a race the test does not control: the browser asks as soon as lesson 3 is
    # shown, and lesson 2's kernel, still counted until its page's beacon shuts it down, may
    # leave no place to spare under a cap of three.)
    voila.logged(rf"prerendered page.*\(/voila/render/en/{re.escape(AFTER)}\)", since)


def test_with_the_cap_nearly_full_the_click_loads_the_lesson_itself(
    voila: Voila, tab: TabBrowser
) -> None:
    since = voila.log_size()
    voila.page_kernel(f"/voila/render/en/{FROM}")  # another learner: one place of three
    read_lesson_2(tab, voila)  # two of three: none to spare for a prerender
    voila.logged(r"no kernel for a prerendered page", since)
    tab.wait_event(
        lambda e: (
            e["method"] == "Preload.prerenderStatusUpdated" and e["params"]["status"] == "Failure"
        ),
        TIMEOUT_S,
    )
    assert voila.kernels() == 2

    tab.evaluate(CLICK_NEXT)
    tab.wait_for(SHOWN, TIMEOUT_S)
    assert tab.evaluate(f"{NAVIGATION}.activationStart") == 0  # a plain page load
    plays(tab)


def test_a_learner_the_cap_would_refuse_takes_the_prerendered_pages_place(
    voila: Voila, tab: TabBrowser
) -> None:
    since, hidden, kernel = prerender_lesson_3(tab, voila)
    voila.page_kernel(f"/voila/render/en/{FROM}")  # another learner: the cap is reached
    assert voila.kernels() == CAP
    # One more learner: at the cap, but the page never shown gives its place.
    voila.page_kernel(f"/voila/render/en/{FROM}")
    voila.logged(rf"kernel {kernel}: its page was never shown; it makes room for a learner", since)
    voila.logged(rf"Kernel shutdown: {kernel}", since)
    voila.close_pages()  # the other learners leave: room for the prerendered page's return

    tab.evaluate(CLICK_NEXT)
    # Shown, the page finds its kernel gone and opens itself again, as a plain page.
    tab.wait_for(f"{NAVIGATION}.type === 'reload' && {SHOWN}", TIMEOUT_S, session=hidden)
    tab.show(hidden)
    assert tab.evaluate(KERNEL_ID) != kernel
    assert tab.evaluate(f"{NAVIGATION}.activationStart") == 0
    plays(tab)
