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
from tests.test_leaderboard import pg_url, postgres_server  # noqa: F401 - fixtures
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
        self.dir = tmp
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


@pytest.fixture
def hub(tmp_path: Path, redis_url: str, pg_url: str) -> Iterator[Hub]:  # noqa: F811
    if not PROXY.exists() and shutil.which("configurable-http-proxy") is None:
        pytest.skip("configurable-http-proxy is missing: `make hub` installs it (npm)")
    running = Hub(tmp_path, redis_url, pg_url)
    try:
        yield running
    finally:
        running.stop()


def test_two_learners_play_a_room_and_share_the_board_through_the_hub(
    hub: Hub,
    pg_url: str,  # noqa: F811
) -> None:
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
    board = Leaderboard(pg_url)
    try:
        rows = [(r.name, r.score) for r in board.top(today_utc(), "classic2", "easy")]
    finally:
        board.close()
    assert sorted(rows) == [("Ali", game.totals[0]), ("Bo", game.totals[0])]
