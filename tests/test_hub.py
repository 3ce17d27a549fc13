"""JupyterHub really run: ``deploy/jupyterhub_config.py`` on loopback, its proxy
(configurable-http-proxy, ``make hub``), two learners' single-user servers (local processes)
opening the lessons in Voilà, the canasta service with the rooms on a real redis-server and the
leaderboard on a real PostgreSQL.

Two learners log in with the hub's password; each learner's code runs with its own server's
whole environment (read from the running server process, as a notebook cell or a terminal
there has it): it holds the service's address and the learner's own token, and no store URL.
With those, one learner invites and the other joins through the service, they play moves, and
both daily results reach the shared board in PostgreSQL.

Marked ``hub`` (``pytest -m hub``); skipped with the reason when jupyterhub or the proxy is
missing (``make test`` installs both through ``make hub``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from canasta_teach.i18n import get_translator
from canasta_teach.leaderboard import Leaderboard, today_utc
from canasta_teach.widgets.remote import RemoteLeaderboard, RemoteRoomTable, ServiceClient
from tests.test_leaderboard import new_database, postgres_server  # noqa: F401 - fixture
from tests.test_service import finished_daily_game

pytestmark = pytest.mark.hub
requests = pytest.importorskip("requests")
pytest.importorskip("jupyterhub", reason="jupyterhub is not installed: pip install '.[hub]'")

ROOT = Path(__file__).resolve().parent.parent
PROXY = ROOT / ".hub" / "node_modules" / ".bin" / "configurable-http-proxy"
PASSWORD = "canasta-hub-test"
T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(what: str, check: Callable[[], T | None], timeout: float = 120.0,
              hub: subprocess.Popen[bytes] | None = None) -> T:  # fmt: skip
    """Poll ``check`` until it gives a value (a state, not a fixed time)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if hub is not None and hub.poll() is not None:
            pytest.fail(f"the hub exited ({hub.returncode}) while waiting for {what}")
        with contextlib.suppress(requests.RequestException, OSError):
            found = check()
            if found is not None and found is not False:
                return found
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


class Hub:
    def __init__(self, tmp: Path, rooms_url: str, database_url: str) -> None:
        self.port, self.api_port = free_port(), free_port()
        self.proxy_api_port, self.service_port = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.dir, self.database_url = tmp, database_url
        env = {
            **os.environ,
            "CANASTA_HUB_DIR": str(tmp), "CANASTA_HUB_PORT": str(self.port),
            "CANASTA_HUB_API_PORT": str(self.api_port),
            "CANASTA_PROXY_API_PORT": str(self.proxy_api_port),
            "CANASTA_SERVICE_PORT": str(self.service_port), "CANASTA_PROXY": str(PROXY),
            "CANASTA_HUB_PASSWORD": PASSWORD, "CANASTA_ROOMS_URL": rooms_url,
            "CANASTA_DATABASE_URL": database_url,
        }  # fmt: skip
        self.log = open(tmp / "hub.log", "wb")  # noqa: SIM115 - closed in stop()
        # Its own process group: the proxy, the service and the learners' servers go with it.
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "jupyterhub", "-f", str(ROOT / "deploy/jupyterhub_config.py")],
            cwd=tmp, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        wait_for("the hub's API", lambda: requests.get(f"{self.url}/hub/api/", timeout=5).ok,
                 hub=self.proc)  # fmt: skip

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # the hub stops its servers and services
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=60)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # anything left of the group
        self.proc.wait()
        self.log.close()


class Learner:
    """A learner in a requests session: logged in, their server started and open in Voilà."""

    def __init__(self, hub: Hub, name: str) -> None:
        self.hub, self.name = hub, name
        self.http = requests.Session()
        form = self.http.get(f"{hub.url}/hub/login", timeout=30)
        xsrf = re.search(r'name="_xsrf"\s+value="([^"]+)"', form.text)
        assert xsrf, "no _xsrf in the login form"
        done = self.http.post(f"{hub.url}/hub/login", timeout=60, allow_redirects=False,
                              data={"username": name, "password": PASSWORD,
                                    "_xsrf": xsrf.group(1)})  # fmt: skip
        assert done.status_code == 302, done.status_code
        self.xsrf = self.http.cookies.get("_xsrf", xsrf.group(1))
        started = self.api("POST", f"users/{name}/server")
        assert started.status_code in (201, 202), started.text

    def api(self, method: str, path: str) -> Any:
        return self.http.request(method, f"{self.hub.url}/hub/api/{path}", timeout=30,
                                 headers={"X-XSRFToken": self.xsrf})  # fmt: skip

    def ready(self) -> bool:
        model = self.api("GET", "user").json()
        return bool(model.get("servers", {}).get("", {}).get("ready"))

    def server_environment(self) -> dict[str, str]:
        """The whole environment of this learner's running server: what its kernels, its
        terminals and anything the learner runs there inherit."""
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                if b"jupyterhub.singleuser" not in (entry / "cmdline").read_bytes():
                    continue
                raw = (entry / "environ").read_bytes().split(b"\0")
                env = dict(item.decode().split("=", 1) for item in raw if b"=" in item)
                if env.get("JUPYTERHUB_USER") == self.name:
                    return env
        raise AssertionError(f"no single-user server for {self.name}")


@pytest.fixture(scope="module")
def hub(
    tmp_path_factory: pytest.TempPathFactory,
    redis_url: str,
    postgres_server: str,  # noqa: F811
) -> Iterator[Hub]:
    """One hub for this module's tests (each test logs in learners of its own), the board
    on a database of its own."""
    if not PROXY.exists() and shutil.which("configurable-http-proxy") is None:
        pytest.skip("configurable-http-proxy is missing: `make hub` installs it (npm)")
    running = Hub(tmp_path_factory.mktemp("hub"), redis_url, new_database(postgres_server))
    try:
        yield running
    finally:
        running.stop()


def test_two_learners_play_a_room_and_share_the_board_through_the_hub(hub: Hub) -> None:
    ali, bo = Learner(hub, "ali"), Learner(hub, "bo")
    for learner in (ali, bo):
        wait_for(f"{learner.name}'s server", learner.ready, hub=hub.proc)
    # Each opens the lessons in Voilà, as the hub's default URL does (through the proxy, the
    # hub's OAuth and the learner's own server).
    for learner in (ali, bo):
        page = learner.http.get(f"{hub.url}/user/{learner.name}/voila/render/lessons/index.ipynb",
                                timeout=120)  # fmt: skip
        assert page.status_code == 200 and "voila" in page.text.lower(), page.status_code
    # Nobody opens another's server.
    other = ali.http.get(f"{hub.url}/user/bo/api/status", timeout=30, allow_redirects=False)
    assert other.status_code in (302, 403, 404)

    envs = {learner.name: learner.server_environment() for learner in (ali, bo)}
    for env in envs.values():
        text = json.dumps(env)
        assert "CANASTA_ROOMS_URL" not in env and "CANASTA_DATABASE_URL" not in env
        assert "redis://" not in text and "postgresql" not in text
        assert env["CANASTA_SERVICE_URL"].startswith("http://127.0.0.1:")

    def client(name: str) -> ServiceClient:
        return ServiceClient(envs[name]["CANASTA_SERVICE_URL"], envs[name]["JUPYTERHUB_API_TOKEN"])

    # The learner's code with its own token: invite, join, start, a few moves.
    made = client("ali").call("POST", "rooms", {"lang": "ur", "players": 2})
    host = RemoteRoomTable(get_translator("ur"), "ur", client=client("ali"), watch=False)
    hello = {"lang": "ur", "room": made["code"], "token": made["token"]}
    host.intent({"action": "game", "id": "hello", "values": hello})
    friend = RemoteRoomTable(get_translator("te"), "te", client=client("bo"), watch=False)
    friend.intent({"action": "game", "id": "hello", "values": {"lang": "te", "room": made["code"]}})
    assert host.widget.game["stage"] == friend.widget.game["stage"] == "lobby"
    assert host.widget.dir == "rtl" and friend.widget.lang == "te"
    host.intent({"action": "game", "id": "start"})
    friend.poll()
    assert friend.widget.game["stage"] == "play"
    moves = 0
    for _ in range(12):
        for page in (host, friend):
            page.poll()
        page = next((p for p in (host, friend) if p.widget.view.get("my_turn")), None)
        if page is None:
            continue
        view = page.widget.view
        if view.get("phase") == "draw":
            page.intent({"action": "draw", "cards": []})
        else:
            page.intent({"action": "discard", "cards": [view["hand"][-1]]})
        moves += page.widget.message.get("kind") != "refusal"
    assert moves >= 2, host.widget.message

    # Both daily results, from the game's moves, onto the shared board (PostgreSQL).
    game = finished_daily_game()
    record = list(game.record()["moves"])
    for name, shown in (("ali", "Ali"), ("bo", "Bo")):
        RemoteLeaderboard(client(name)).record_game(shown, today_utc(), "easy", "classic2", record)
    board = Leaderboard(hub.database_url)
    try:
        rows = [(r.name, r.score) for r in board.top(today_utc(), "classic2", "easy")]
    finally:
        board.close()
    assert sorted(rows) == [("Ali", game.totals[0]), ("Bo", game.totals[0])]


def chromium_for_the_hub() -> None:
    """Skip with the reason when the browser test cannot run here."""
    pytest.importorskip("playwright", reason="playwright is not installed: pip install '.[test]'")
    from canasta_teach import app

    if not Path(app.CHROMIUM).exists():
        pytest.skip(f"{app.CHROMIUM} is missing: `make browser` installs it (apt, as root)")


@pytest.mark.browser
def test_two_learners_in_two_browsers_invite_join_and_play_through_the_hub(
    hub: Hub, tmp_path: Path
) -> None:
    """In Chromium: each learner logs in to the hub, their own server opens the lessons in
    Voilà; the Urdu learner presses Invite in lesson 11's full game, the Telugu learner opens
    the room link (the hub sends it to their own server), and both move, each seeing the
    other's move in their own language."""
    chromium_for_the_hub()
    from playwright.sync_api import Page, sync_playwright

    from tests.browser.conftest import PAGE_TIMEOUT_MS, launch
    from tests.browser.test_friends_browser import (
        expect,
        play_turn,
        reader,
        seat_rows,
        whose_turn,
    )

    ur, te = get_translator("ur"), get_translator("te")

    def log_in(page: Page, name: str) -> None:
        page.goto(f"{hub.url}/hub/login")
        page.locator("input[name='username']").fill(name)
        page.locator("input[name='password']").fill(PASSWORD)
        page.locator("input[type='submit'], button[type='submit']").first.click()
        # The hub starts the learner's server and sends the browser to the lessons in Voilà.
        page.wait_for_url(re.compile(rf"/user/{name}/voila/render/lessons/index\.ipynb"),
                          timeout=PAGE_TIMEOUT_MS)  # fmt: skip
        expect(page.locator(".ct-lang-tile").first).to_be_visible()

    with sync_playwright() as p:
        usha_browser = launch(p, tmp_path / "usha")
        teja_browser = launch(p, tmp_path / "teja")
        try:
            lessons = reader(usha_browser, "ur", new_player=True)
            friend = reader(teja_browser, "te")
            log_in(lessons, "usha")
            log_in(friend, "teja")
            # The Urdu learner's lesson 11, on her own server: Invite makes the room.
            lessons.goto(lessons.url.replace("index.ipynb", "ur/11-full-game.ipynb"))
            with usha_browser.expect_page(timeout=PAGE_TIMEOUT_MS) as opened:
                lessons.locator(".ct-full [data-ct-game='invite']").click()
            host = opened.value
            host.wait_for_url(re.compile(r"play-together\.ipynb#room="), timeout=PAGE_TIMEOUT_MS)
            link = host.locator("[data-ct-room-link]").get_attribute("href") or ""
            assert "/user/usha/" in host.url
            # The link is not her server's (the friend may not open it) but the hub's way to
            # whoever follows it's own.
            assert "/hub/user-redirect/voila/render/lessons/play-together.ipynb#room=" in link
            expect(host.locator(".ct-root")).to_have_attribute("dir", "rtl")
            expect(host.locator(".ct-prompt")).to_have_text(ur.ui("room.lobby.host_prompt"))

            friend.goto(link)
            friend.wait_for_url(re.compile(r"/user/teja/voila/render/lessons/play-together"))
            expect(friend.locator(".ct-prompt")).to_have_text(te.ui("room.lobby.guest_prompt"))
            expect(friend.locator(".ct-root")).to_have_attribute("lang", "te")
            expect(friend.locator(".ct-puzzle-number")).to_contain_text(
                te.ui("room.you_are", seat=te.seat("N")))  # fmt: skip
            # The host's page learns of the friend through the service, by itself.
            expect(seat_rows(host).nth(2)).to_contain_text(ur.ui("room.who.friend"))

            host.locator("[data-ct-game='start']").click()
            for page, tr in ((host, ur), (friend, te)):
                expect(page.locator(".ct-root [data-ct-action='draw']")).to_have_text(
                    tr.ui("button.draw"))  # fmt: skip
            moved: dict[str, int] = {"host": 0, "friend": 0}
            mover: Page | None = None
            while min(moved.values()) == 0 and sum(moved.values()) < 8:
                mover = whose_turn([host, friend], mover)
                assert mover is not None, "the hand ended before both learners moved"
                play_turn(mover)
                moved["host" if mover is host else "friend"] += 1
            assert min(moved.values()) >= 1, moved
            # Each sees the other's move, told in their own language.
            expect(host.locator(".ct-log")).to_contain_text(ur.seat("N"))
            expect(friend.locator(".ct-log")).to_contain_text(te.seat("S"))
        finally:
            for context in (usha_browser, teja_browser):
                with contextlib.suppress(Exception):
                    context.close()
