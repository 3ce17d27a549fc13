"""The canasta service (rooms and the leaderboard behind the hub), with no hub: the service runs
in a thread with a fake authenticator (token -> hub user), and learners' kernels are played by
the client classes a single-user server uses (``widgets.remote``), each with its user's token.

What a learner's code can do with its own token (F17's three attacks, now refused):
- read another seat's cards: every answer the service gives a seat holds only that seat's
  hand (the same table a browser is sent), never the seed, another seat's token or its hash;
- take a seat: another user's table is not theirs (404); a forged token seats nobody in a
  game under way; a move out of turn is refused;
- write a score: only a finished game of the day's deal, replayed by the service, is scored
  (a score in the request is ignored); a second result for the same board is refused;
and the learner's server environment that ``deploy/jupyterhub_config.py`` gives holds the
service's address only: no store URL, no password.
"""

from __future__ import annotations

import asyncio
import json
import runpy
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets

from canasta_teach.bots import find_bot
from canasta_teach.engine import Discard
from canasta_teach.engine.cards import TOKENS, kinds_of
from canasta_teach.engine.game import Game, daily_seed
from canasta_teach.engine.rules import preset
from canasta_teach.engine.state import Phase
from canasta_teach.i18n import get_translator
from canasta_teach.leaderboard import Leaderboard, today_utc
from canasta_teach.rooms import Rooms, SqliteRoomStore
from canasta_teach.rooms.room import token_hash
from canasta_teach.service import ServiceConfig, make_app
from canasta_teach.widgets.remote import (
    RemoteLeaderboard,
    RemoteRoomTable,
    ServiceClient,
    ServiceError,
)

ROOT = Path(__file__).resolve().parent.parent
USERS = {"tok-ali-0123456789": "ali", "tok-bo-0123456789": "bo", "tok-eve-0123456789": "eve"}


class Service:
    def __init__(self, tmp: Path) -> None:
        self.store = SqliteRoomStore(tmp / "rooms.sqlite3")
        self.board = Leaderboard(f"sqlite:///{tmp / 'board.sqlite3'}")
        self.loop = asyncio.new_event_loop()
        sockets = bind_sockets(0, "127.0.0.1")
        self.url = f"http://127.0.0.1:{sockets[0].getsockname()[1]}/services/canasta/"

        async def authenticate(token: str) -> str | None:
            return USERS.get(token)

        config = ServiceConfig(self.store, self.board, authenticate, prefix="/services/canasta/")
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            server = HTTPServer(make_app(config))
            server.add_sockets(sockets)
            self.loop.call_soon(ready.set)
            self.loop.run_forever()
            server.stop()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert ready.wait(10)

    def client(self, user: str) -> ServiceClient:
        token = next(t for t, u in USERS.items() if u == user)
        return ServiceClient(self.url, token)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    running = Service(tmp_path)
    yield running
    running.stop()


class Page:
    """A learner's kernel's ``RemoteRoomTable``, every message it would send its browser kept."""

    def __init__(self, service: Service, user: str, lang: str) -> None:
        self.table = RemoteRoomTable(get_translator(lang), lang, client=service.client(user),
                                     watch=False)  # fmt: skip
        self.sent: list[Any] = []
        self.table.widget.comm.send = self._send
        self.answers: list[str] = []
        original = self.table.client.call

        def call(*args: Any, **kwargs: Any) -> Any:
            answer = original(*args, **kwargs)
            self.answers.append(json.dumps(answer))
            return answer

        self.table.client.call = call  # type: ignore[method-assign]

    def _send(self, data: Any = None, metadata: Any = None, buffers: Any = None) -> None:
        self.sent.append(json.loads(json.dumps(data)))

    def intent(self, payload: dict[str, Any]) -> None:
        self.table.intent(payload)

    def control(self, control: str, **values: str) -> None:
        self.intent({"action": "game", "id": control, **({"values": values} if values else {})})

    @property
    def view(self) -> dict[str, Any]:
        return dict(self.table.widget.view)

    @property
    def game(self) -> dict[str, Any]:
        return dict(self.table.widget.game)

    def customs(self) -> list[dict[str, Any]]:
        return [d["content"] for d in self.sent if d.get("method") == "custom"]


def hand_tokens(game: Game, seat: int) -> list[str]:
    return sorted(TOKENS[k] for k in kinds_of(game.state.hands[seat]))


def test_refuses_requests_without_a_hub_users_token(service: Service) -> None:
    for token in ("", "not-a-token", "tok-ali"):
        with pytest.raises(ServiceError) as refused:
            ServiceClient(service.url, token).call("POST", "tables", {"lang": "en"})
        assert refused.value.code == "forbidden"
    request = urllib.request.Request(
        service.url + "board?day=2026-01-01&variant=classic4&level=easy"
    )
    with pytest.raises(urllib.error.HTTPError) as no_header:
        urllib.request.urlopen(request, timeout=10)
    assert no_header.value.code == 403


def test_a_room_through_the_service_shows_each_seat_only_its_own_cards(service: Service) -> None:
    made = service.client("ali").call("POST", "rooms", {"lang": "ur", "players": 2})
    code, host_token = made["code"], made["token"]
    host = Page(service, "ali", "ur")
    host.control("hello", lang="ur", room=code, token=host_token)
    friend = Page(service, "bo", "hi")
    friend.control("hello", lang="hi", room=code)
    (seated,) = [c for c in friend.customs() if c.get("kind") == "room_token"]
    friend_token = seated["token"]
    assert host.game["stage"] == friend.game["stage"] == "lobby"
    host.control("start")
    friend.table.poll()
    assert host.game["stage"] == friend.game["stage"] == "play"

    # Someone else's table, a forged seat, a move out of turn: all refused.
    eve = Page(service, "eve", "en")
    with pytest.raises(ServiceError) as not_hers:
        eve.table.client.call("POST", f"tables/{host.table.table_id}", {"payload": {}})
    assert not_hers.value.code == "bad_request"
    eve.control("hello", lang="en", room=code, token="A" * 43)
    assert eve.game["stage"] == "entry" and not [c for c in eve.customs() if "token" in c]

    rooms = Rooms(service.store)
    doc = rooms.read(code).doc
    game = rooms.game(doc)
    assert game is not None
    mover = host if game.state.to_move == 0 else friend
    waiter = friend if mover is host else host
    version_before = rooms.read(code).version
    waiter.intent({"action": "draw", "cards": []})
    assert rooms.read(code).version == version_before  # out of turn: nothing written
    assert waiter.table.widget.message.get("kind") == "refusal"

    # A few moves each, through the pages, as the browsers would send them.
    for _ in range(6):
        game = rooms.game(rooms.read(code).doc)
        assert game is not None
        page = host if game.state.to_move == 0 else friend
        seat = game.state.to_move
        if game.state.phase is Phase.DRAW:
            page.intent({"action": "draw", "cards": []})
        else:
            discard = next(
                k for k in kinds_of(game.state.hands[seat]) if game.state.check(Discard(k)).legal
            )
            page.intent({"action": "discard", "cards": [TOKENS[discard]]})
        for p in (host, friend):
            p.table.poll()
    game = rooms.game(rooms.read(code).doc)
    assert game is not None and len(game.moves) >= 6

    # Each page holds its own seat's hand, as the true game has it, and nothing secret.
    assert sorted(host.view["hand"]) == hand_tokens(game, 0)
    assert sorted(friend.view["hand"]) == hand_tokens(game, 1)
    seed = rooms.read(code).doc["game"]["seed"]
    secrets_of = {
        "host": [host_token, token_hash(host_token)],
        "friend": [friend_token, token_hash(friend_token)],
    }
    for page, own, other in ((host, "host", "friend"), (friend, "friend", "host")):
        seen = "\n".join(page.answers) + json.dumps(page.sent)
        assert seed not in seen and seed.split("/")[-1] not in seen
        for secret in secrets_of[other]:
            assert secret not in seen
        assert token_hash(secrets_of[own][0]) not in seen


def finished_daily_game() -> Game:
    game = Game(preset("classic2"), daily_seed(today_utc(), "classic2"))
    while not game.is_over:
        game.apply(find_bot("easy", seed=f"t/{len(game.moves)}").step(game.state).move)
    return game


def test_scores_only_from_the_game_replayed_by_the_service(service: Service) -> None:
    board = RemoteLeaderboard(service.client("bo"))
    day = today_utc()
    game = finished_daily_game()
    moves = list(game.record()["moves"])
    client = service.client("bo")
    # A score of one's own choosing is not a thing the service takes.
    with pytest.raises(ServiceError) as unfinished:
        client.call("POST", "board", {"name": "me", "day": day.isoformat(), "level": "hard",
                                      "rules": "classic2", "moves": moves[:-5],
                                      "score": 99_999})  # fmt: skip
    assert unfinished.value.code == "not_over"
    with pytest.raises(ServiceError) as made_up:
        client.call("POST", "board", {"name": "me", "day": day.isoformat(), "level": "hard",
                                      "rules": "classic2", "moves": ["d", "x 5"]})  # fmt: skip
    assert made_up.value.code == "bad_request"
    score = board.record_game("Bo", day, "hard", "classic2", moves)
    assert score == game.totals[0]
    with pytest.raises(Exception) as twice:
        board.record_game("Bo again", day, "hard", "classic2", moves)
    assert getattr(twice.value, "code", "") == "already_recorded"
    RemoteLeaderboard(service.client("ali")).record_game("Ali", day, "hard", "classic2", moves)
    top = [(r.name, r.score) for r in board.top(day, "classic2", "hard")]
    assert sorted(top) == [("Ali", game.totals[0]), ("Bo", game.totals[0])]
    assert all(r.score != 99_999 for r in service.board.top(day, "classic2", "hard"))


def test_the_hubs_learner_environment_holds_no_store_url() -> None:
    """``deploy/jupyterhub_config.py``: the stores' URLs are the service's environment only."""
    sections: dict[str, SimpleNamespace] = {}

    class Config:
        def __getattr__(self, name: str) -> SimpleNamespace:
            return sections.setdefault(name, SimpleNamespace())

    env = {
        "CANASTA_ROOMS_URL": "redis://:sekrit@127.0.0.1:6379/0",
        "CANASTA_DATABASE_URL": "postgresql+psycopg://canasta:sekrit@127.0.0.1/canasta",
    }
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        runpy.run_path(str(ROOT / "deploy" / "jupyterhub_config.py"),
                       init_globals={"c": Config(), "get_config": lambda: Config()})  # fmt: skip
    learner_env = sections["Spawner"].environment
    assert "CANASTA_SERVICE_URL" in learner_env
    text = json.dumps(learner_env)
    assert "sekrit" not in text and "redis://" not in text and "postgresql" not in text
    (service,) = sections["JupyterHub"].services
    assert service["environment"]["CANASTA_ROOMS_URL"] == env["CANASTA_ROOMS_URL"]


def test_a_room_link_on_a_hub_goes_through_the_hubs_user_redirect(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A learner's server prefix (``/user/NAME/``) is no friend's to open: on a hub the page's
    room link is rewritten to the hub's user-redirect; off a hub it is left alone."""
    from canasta_teach.widgets.remote import hub_share

    monkeypatch.delenv("CANASTA_SERVICE_URL", raising=False)
    monkeypatch.setenv("JUPYTERHUB_SERVICE_PREFIX", "/user/ali/")
    assert hub_share() is None
    monkeypatch.setenv("CANASTA_SERVICE_URL", "http://127.0.0.1:1/services/canasta/")
    monkeypatch.setenv("JUPYTERHUB_BASE_URL", "/")
    assert hub_share() == {"server": "/user/ali/", "redirect": "/hub/user-redirect/"}
    monkeypatch.setenv("JUPYTERHUB_BASE_URL", "/school/")
    monkeypatch.setenv("JUPYTERHUB_SERVICE_PREFIX", "/school/user/ali/")
    assert hub_share() == {"server": "/school/user/ali/", "redirect": "/school/hub/user-redirect/"}
