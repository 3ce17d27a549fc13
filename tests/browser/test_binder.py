"""Binder's path, as closely as a machine without Binder allows.

repo2docker builds an environment from ``binder/requirements.txt``, runs ``binder/postBuild``
in the repository, and starts a Jupyter server in which Voilà is a server extension; the
Binder link opens ``voila/render/lessons/index.ipynb``.  Here: a fresh virtual environment
(no packages from ours), ``pip install -r binder/requirements.txt``, ``binder/postBuild`` run
in a copy of the repository with that environment first on ``PATH``, then ``jupyter server``
from that environment on a free loopback port.  In Chromium: the language chooser through
the Binder URL, in the canasta template (its stylesheet, no code shown), then a lesson where
one move is played.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from canasta_teach.app import HOST, free_port, stop_server, wait_for_port
from canasta_teach.i18n import get_translator

from .conftest import PAGE_TIMEOUT_MS, REPO_ROOT, _in_ci

if TYPE_CHECKING:
    from playwright.sync_api import Page

TOKEN = "canasta-binder-test"
#: What a checkout holds that Binder would not get (or that would slow the copy).
NOT_IN_A_CLONE = shutil.ignore_patterns(
    ".git", ".venv", "test-artifacts", "__pycache__", "*.egg-info", "build", ".*_cache",
    ".hypothesis", ".ipynb_checkpoints",
)  # fmt: skip


def _run(command: list[str], log: Path, **kwargs: object) -> None:
    with open(log, "ab") as out:
        out.write(("\n$ " + " ".join(command) + "\n").encode())
        out.flush()
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, check=False,
                              **kwargs)  # type: ignore[call-overload]  # fmt: skip
    if done.returncode != 0:
        tail = log.read_text(errors="replace")[-3000:]
        if "pip" in command[1:3] and not _in_ci() and "No matching distribution" in tail:
            pytest.skip("the package index is not reachable here")
        raise AssertionError(f"{command[:4]} exited {done.returncode}:\n{tail}")


@pytest.fixture(scope="module")
def binder(tmp_path_factory: pytest.TempPathFactory, artifacts: Path) -> Iterator[str]:
    home = tmp_path_factory.mktemp("binder")
    repo = home / "repo"
    shutil.copytree(REPO_ROOT, repo, ignore=NOT_IN_A_CLONE, symlinks=True)
    env_dir = home / "env"
    log = artifacts / "binder-build.log"
    log.write_bytes(b"")
    _run([sys.executable, "-m", "venv", str(env_dir)], log)
    python = str(env_dir / "bin" / "python")
    requirements = str(repo / "binder" / "requirements.txt")
    _run([python, "-m", "pip", "install", "--quiet", "-r", requirements], log)
    env = dict(os.environ)
    env["PATH"] = str(env_dir / "bin") + os.pathsep + env.get("PATH", "")
    env.pop("JUPYTER_PATH", None)
    env.pop("PYTHONPATH", None)
    env["HOME"] = str(home)  # nothing of ours from ~/.jupyter or ~/.local
    env["JUPYTER_CONFIG_DIR"] = str(home / ".jupyter")
    env["JUPYTER_DATA_DIR"] = str(home / ".local" / "share" / "jupyter")
    _run(["bash", str(repo / "binder" / "postBuild")], log, cwd=repo, env=env)

    port = free_port()
    command = [
        str(env_dir / "bin" / "jupyter"), "server", "--no-browser",
        f"--ServerApp.ip={HOST}", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={repo}", f"--IdentityProvider.token={TOKEN}",
    ]  # fmt: skip
    if os.geteuid() == 0:
        command.append("--allow-root")
    with open(artifacts / "binder-server.log", "wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=out, stdin=subprocess.DEVNULL,
                                env=env, cwd=repo, start_new_session=True)  # fmt: skip
        try:
            wait_for_port(port, timeout=120, proc=proc)
            yield f"http://{HOST}:{port}"
        finally:
            stop_server(proc)


def test_the_binder_link_opens_the_app_and_a_move_is_played(
    binder: str, page: Page, artifacts: Path
) -> None:
    from playwright.sync_api import expect

    # The Binder link's urlpath: voila/render/lessons/index.ipynb
    page.goto(f"{binder}/voila/render/lessons/index.ipynb?token={TOKEN}", timeout=PAGE_TIMEOUT_MS)
    for name in ("English", "اردو", "हिन्दी", "తెలుగు"):
        expect(page.get_by_role("link", name=name)).to_be_visible()
    # The canasta template, with its stylesheet and fonts.
    assert page.evaluate(
        "() => [...document.styleSheets].some(s => (s.href || '').endsWith('canasta.css'))"
    )

    page.get_by_role("link", name="हिन्दी").click()
    page.wait_for_url("**/hi/00-start.ipynb*")
    hi = get_translator("hi")
    page.goto(f"{binder}/voila/render/lessons/hi/03-melds-canastas.ipynb?token={TOKEN}")
    card = page.locator(".ct-hand [data-ct-card]").first
    expect(card).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    # The settings of voila.json hold: the lesson's code is not in the page.
    assert "from canasta_teach.widgets import play" not in page.content()
    card.click()
    expect(card).to_have_attribute("aria-pressed", "true")
    page.locator(".ct-buttons button", has_text=hi.ui("button.meld")).first.click()
    message = page.locator(".ct-message")
    expect(message).not_to_be_empty(timeout=PAGE_TIMEOUT_MS)
    assert any("\u0900" <= ch <= "\u097f" for ch in message.inner_text())
    page.screenshot(path=str(artifacts / "binder-hi-03.png"))


def test_binder_refuses_the_frame_that_hung_the_server(binder: str) -> None:
    # F1 through Jupyter Server (Voilà as an extension): postBuild's SafeFramesConnection.
    import re
    import threading
    import time
    import urllib.request

    import websocket

    with urllib.request.urlopen(
        f"{binder}/voila/render/lessons/en/00-start.ipynb?token={TOKEN}", timeout=120
    ) as response:
        body = response.read().decode()
    match = re.search(r'"kernelId"\s*:\s*"([0-9a-f-]{36})"', body)
    assert match
    sock = websocket.create_connection(
        f"ws://{binder.split('//')[1]}/api/kernels/{match.group(1)}/channels?token={TOKEN}",
        subprotocols=["v1.kernel.websocket.jupyter.org"], origin=binder, timeout=20,
    )  # fmt: skip
    took: list[float] = []

    def probe() -> None:
        time.sleep(0.3)
        start = time.monotonic()
        with urllib.request.urlopen(f"{binder}/api/status?token={TOKEN}", timeout=30) as r:
            r.read()
        took.append(time.monotonic() - start)

    thread = threading.Thread(target=probe)
    thread.start()
    sock.send_binary((2**40).to_bytes(8, "little") + b"\0" * 16)
    thread.join(timeout=40)
    sock.close()
    assert took and took[0] < 1.0, took
