"""Smoke test: a one-button notebook through Voilà and Chromium, end to end."""

from __future__ import annotations

import json
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from .conftest import PAGE_TIMEOUT_MS, SERVER_LOG, TEST_PREFIX, render_url

pytestmark = pytest.mark.browser

BARE = f"{TEST_PREFIX}/bare_button.ipynb"


def test_bare_button_click_updates_label(page: Page, voila_url: str, artifacts: Path) -> None:
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))

    page.goto(render_url(voila_url, BARE))
    button = page.locator(".ct-bare-button")
    label = page.locator(".ct-bare-label")
    expect(button).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    expect(label).to_have_text("0")

    button.click()
    expect(label).to_have_text("1", timeout=10_000)
    button.click()
    expect(label).to_have_text("2", timeout=10_000)
    page.screenshot(path=str(artifacts / "smoke-bare-button.png"), full_page=True)

    # The page loads offline: nothing but the Voilà server (no CDN, no third party).
    server = urlsplit(voila_url).netloc
    foreign = [
        url
        for url in requested
        if urlsplit(url).scheme not in ("data", "blob") and urlsplit(url).netloc != server
    ]
    assert foreign == []
    # The canasta template was used: its stylesheet was requested.
    assert any(url.endswith("/static/styles/canasta.css") for url in requested)


def test_english_page_language_and_loading_text(page: Page, voila_url: str) -> None:
    page.goto(render_url(voila_url, BARE))
    expect(page.locator(".ct-bare-button")).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    html = page.locator("html")
    expect(html).to_have_attribute("lang", "en")
    expect(html).to_have_attribute("dir", "ltr")
    assert page.evaluate("window.canasta.loadingText") == "Preparing your lesson…"
    # Voilà's English loading screen is gone once the cells are shown.
    expect(page.locator("#loading")).to_have_count(0)


def test_closing_the_tab_shuts_the_kernel_down(
    browser_context: BrowserContext, voila_url: str, artifacts: Path
) -> None:
    # Voilà's own page never sets the _xsrf cookie its shutdown beacon needs (voila#1458);
    # canasta_teach.app's page handler does, so a closed tab does not leave a kernel behind.
    page = browser_context.new_page()
    page.goto(render_url(voila_url, BARE))
    expect(page.locator(".ct-bare-button")).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    config = json.loads(page.locator("#jupyter-config-data").text_content() or "{}")
    kernel_id = config["kernelId"]
    assert any(c["name"] == "_xsrf" for c in browser_context.cookies(voila_url))
    page.close(run_before_unload=True)

    log = artifacts / SERVER_LOG
    deadline = time.monotonic() + 60  # a busy machine: the beacon, then the kernel's shutdown
    while f"Kernel shutdown: {kernel_id}" not in log.read_text(errors="replace"):
        assert time.monotonic() < deadline, f"kernel {kernel_id} still running after tab close"
        time.sleep(0.2)
    assert "'_xsrf' argument missing" not in log.read_text(errors="replace")
