"""A lesson opened in JupyterLab, as a learner who has never used Jupyter would open it.

JupyterLab (``python -m canasta_teach.app lab``'s command, with the project's Lab settings) on a
free loopback port serves a copy of ``lessons/`` (Lab may save a run notebook; the lessons stay
clean). In Chromium: the lesson shows how to start it (the JupyterLab cue), no "Jupyter news"
question pops up, Run > Run All Cells draws the game, the game draws in the shipped Nastaliq
font (Lab does not load the app's stylesheet: the widget fetches the fonts from its kernel), and
a card clicked then Meld gets the game's answer in Urdu.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from canasta_teach.app import (
    LESSONS_DIR,
    free_port,
    lab_command,
    lab_url,
    stop_server,
    wait_for_port,
    write_lab_overrides,
)
from canasta_teach.i18n import get_translator

from .conftest import PAGE_TIMEOUT_MS

if TYPE_CHECKING:
    from playwright.sync_api import Page

LESSON = "ur/03-melds-canastas.ipynb"
TOKEN = "canasta-test-token"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, artifacts: Path) -> Iterator[str]:
    home = tmp_path_factory.mktemp("lab")
    root = home / "lessons"
    shutil.copytree(LESSONS_DIR, root, symlinks=False)
    # The settings `make lab` and Binder write into the environment, here into a folder of
    # the test's own (LabApp.app_settings_dir), so the test leaves the environment as it was.
    settings = write_lab_overrides(home / "prefix").parent
    env = dict(os.environ)
    env.update(
        JUPYTERLAB_SETTINGS_DIR=str(home / "user-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTER_CONFIG_DIR=str(home / "config"),
    )
    port = free_port()
    command = [*lab_command(port, root, TOKEN), f"--LabApp.app_settings_dir={settings}"]
    with open(artifacts / "jupyterlab-server.log", "wb") as log:
        proc = subprocess.Popen(
            command, stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env,
            start_new_session=True,
        )  # fmt: skip
        try:
            wait_for_port(port, timeout=120, proc=proc)
            yield f"http://127.0.0.1:{port}"
        finally:
            stop_server(proc)


def test_lab_settings_turn_the_news_question_off(lab: str) -> None:
    url = f"{lab}/lab/api/settings/@jupyterlab/apputils-extension:notification?token={TOKEN}"
    with urllib.request.urlopen(url, timeout=30) as response:
        properties = json.load(response)["schema"]["properties"]
    # The overrides become the defaults Lab starts from (a user's saved choice would win).
    assert properties["fetchNews"]["default"] == "false"
    assert properties["checkForUpdates"]["default"] is False


def test_a_lesson_runs_in_jupyterlab_in_the_shipped_fonts(
    lab: str, page: Page, artifacts: Path
) -> None:
    from playwright.sync_api import expect

    ur = get_translator("ur")
    port = int(lab.rsplit(":", 1)[1])
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(lab_url(port, LESSON, token=TOKEN), timeout=PAGE_TIMEOUT_MS)
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook", timeout=PAGE_TIMEOUT_MS)
    # Stored without outputs: no game yet, and the cue says how to start it.
    cue = page.locator(".jp-RenderedMarkdown .ct-lab-only").first
    expect(cue).to_be_visible()
    expect(cue).to_contain_text("Run All Cells")
    expect(page.locator(".ct-root")).to_have_count(0)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']",
                           timeout=PAGE_TIMEOUT_MS)  # fmt: skip

    # What the cue says: the menu Run, then Run All Cells.
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    card = page.locator(".ct-hand [data-ct-card]").first
    expect(card).to_be_visible(timeout=PAGE_TIMEOUT_MS)

    # The widget found none of its fonts in Lab's page, asked its kernel, and added them.
    page.wait_for_function(
        """() => window.__ctFontsAsked === true && [...document.fonts].some(f =>
               f.family.replace(/["']/g, '') === 'Noto Nastaliq Urdu' && f.status === 'loaded')""",
        timeout=PAGE_TIMEOUT_MS,
    )
    assert page.evaluate("() => document.fonts.check('16px \"Noto Nastaliq Urdu\"', 'کناسٹا')")

    # A card clicked is selected; Meld sends it to the kernel, whose answer is in Urdu.
    card.click()
    expect(card).to_have_attribute("aria-pressed", "true")
    page.locator(".ct-buttons button", has_text=ur.ui("button.meld")).first.click()
    message = page.locator(".ct-message")
    expect(message).not_to_be_empty(timeout=PAGE_TIMEOUT_MS)
    text = message.inner_text()
    assert any("\u0600" <= ch <= "\u06ff" for ch in text), text

    # No "Would you like to receive official Jupyter news?" over the lesson.
    page.wait_for_timeout(1500)
    toasts = page.locator(".jp-Notification-Toast, .Toastify__toast").all_inner_texts()
    assert not any("news" in toast.lower() for toast in toasts), toasts
    page.screenshot(path=str(artifacts / "jupyterlab-ur-03.png"))


def test_the_web_app_never_asks_for_fonts(voila_url: str, page: Page) -> None:
    # The app's stylesheet has loaded the fonts: the widget must not fetch them again.
    from .conftest import render_url

    page.goto(render_url(voila_url, LESSON))
    page.wait_for_selector(".ct-hand [data-ct-card]", timeout=PAGE_TIMEOUT_MS)
    assert page.evaluate("() => window.__ctFontsAsked === undefined")
    assert page.locator(".ct-lab-only").evaluate_all(
        "els => els.every(e => e.getBoundingClientRect().height === 0)"
    )
