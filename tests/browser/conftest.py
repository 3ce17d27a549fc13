"""Browser test harness: a real Voilà server (canasta_teach.app) and Debian's Chromium.

Fixtures:
- ``site_root``: the folder Voilà serves: every entry of ``lessons/`` (symlinked) plus ``_test/``
  -> ``tests/browser/notebooks/`` (test-only notebooks such as ``_test/bare_button.ipynb``).
- ``voila_url``: base URL (``http://127.0.0.1:PORT``) of one Voilà server for the session,
  started with ``canasta_teach.app.start_server`` on a free loopback port; its log goes to
  ``test-artifacts/voila-server[-gwN].log`` (one per pytest-xdist worker).
  ``render_url(voila_url, "en/01_x.ipynb")`` gives a page.
- ``browser_context`` / ``page``: Chromium from ``/usr/bin/chromium`` driven by Playwright's sync
  API (never ``playwright install``). Without Chromium the tests fail under CI and skip locally.
- ``second_browser``: another Chromium with a fresh profile of its own (a friend's browser).
- ``artifacts``: ``test-artifacts/`` (gitignored) for screenshots.

Mark browser tests with ``@pytest.mark.browser`` (tests in this folder get it automatically).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from canasta_teach import app
from canasta_teach.app import (
    CHROMIUM_ARGS,
    free_port,
    link_site,
    start_server,
    stop_server,
    wait_for_port,
)

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page, Playwright

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "test-artifacts"
CHROMIUM = Path(app.CHROMIUM)
TEST_NOTEBOOKS = Path(__file__).resolve().parent / "notebooks"
TEST_PREFIX = "_test"
#: Generous: a cold kernel plus JupyterLab's bundle on a busy 2-core CI machine.
PAGE_TIMEOUT_MS = 90_000


def render_url(base_url: str, notebook: str) -> str:
    """URL of the Voilà page of ``notebook`` (a path relative to the served root)."""
    return f"{base_url}/voila/render/{notebook.lstrip('/')}"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)


#: The test server's log under test-artifacts/: each pytest-xdist worker runs a server of its own,
#: so each has its own log (two servers writing one file would clobber each other's lines).
SERVER_LOG = "voila-server{}.log".format(
    f"-{os.environ['PYTEST_XDIST_WORKER']}" if os.environ.get("PYTEST_XDIST_WORKER") else ""
)


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def site_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return link_site(tmp_path_factory.mktemp("site"), {TEST_PREFIX: TEST_NOTEBOOKS})


@pytest.fixture(scope="session")
def voila_url(
    site_root: Path, artifacts: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    port = free_port()
    # Saved games, the leaderboard and the rooms of this run: a fresh folder, never the home's.
    env = {**os.environ, "CANASTA_DATA_DIR": str(tmp_path_factory.mktemp("data"))}
    env.pop("CANASTA_ROOMS_URL", None)
    with open(artifacts / SERVER_LOG, "wb") as log:
        # Prerendering off: Playwright's Chromium asks for the next lesson's prerender (the
        # server starts its kernel) but never shows it, so every lesson with a game would hold
        # a second kernel against the suite's one browser share, and a later page gets a 429.
        # The prerendered next lesson has its own tests (test_prerender_browser.py).
        proc = start_server(
            port, site_root, options={"prerender": False}, stdout=log, stderr=log, stdin=None,
            env=env,
        )  # fmt: skip
        try:
            wait_for_port(port, timeout=120, proc=proc)
            yield f"http://127.0.0.1:{port}"
        finally:
            stop_server(proc)


@pytest.fixture(scope="session")
def playwright_api() -> Iterator[Playwright]:
    if not CHROMIUM.exists():
        message = (
            f"{CHROMIUM} is missing: run `make browser` (as root: apt-get install chromium "
            "fonts-noto-core)"
        )
        if _in_ci():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


def launch(p: Playwright, profile: Path) -> BrowserContext:
    """Debian's Chromium with a profile of its own (its own storage: another person's browser)."""
    context = p.chromium.launch_persistent_context(
        str(profile),
        executable_path=str(CHROMIUM),
        headless=True,
        args=CHROMIUM_ARGS,
        viewport={"width": 1100, "height": 800},
    )
    context.set_default_timeout(PAGE_TIMEOUT_MS)
    return context


@pytest.fixture(scope="session")
def browser_context(
    playwright_api: Playwright, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BrowserContext]:
    context = launch(playwright_api, tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield context
    finally:
        context.close()


@pytest.fixture
def second_browser(
    playwright_api: Playwright, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BrowserContext]:
    """A second Chromium with a fresh profile (a friend's browser), closed after the test."""
    context = launch(playwright_api, tmp_path_factory.mktemp("chromium-friend"))
    try:
        yield context
    finally:
        context.close()


@pytest.fixture
def page(browser_context: BrowserContext) -> Iterator[Page]:
    page = browser_context.new_page()
    try:
        yield page
    finally:
        # The app keeps progress in the browser's storage; the context is shared by all the
        # tests, so each one leaves it empty for the next.
        if page.url.startswith("http"):
            with contextlib.suppress(Exception):
                page.evaluate("() => window.localStorage.clear()")
        page.close(run_before_unload=True)
