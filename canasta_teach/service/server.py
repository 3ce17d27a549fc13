"""The canasta service's HTTP API (tornado), and ``main`` to run it as a JupyterHub service.

Every request carries the learner's hub token (``Authorization: token …``: the kernel's
``$JUPYTERHUB_API_TOKEN``) and is answered for the hub user it names, or refused (403).

    POST   {prefix}rooms                {lang, players, variant, level} -> {code, token}
    POST   {prefix}tables               {lang} -> {id, state, customs, watching}
    POST   {prefix}tables/<id>          {payload: a page's message} -> {state, customs, watching}
    GET    {prefix}tables/<id>/wait     ?timeout=S -> {state, customs, watching}
    DELETE {prefix}tables/<id>
    POST   {prefix}board                {name, day, level, rules, moves} -> {score}
    GET    {prefix}board                ?day&variant&level -> {results: [{name, score}]}

A table is a page of ``play-together``: the service keeps that page's ``RoomTable`` (the same
object a single server keeps in the page's kernel) and returns what that page would be sent.
A user holds at most ``max_tables`` tables (the oldest is closed past that); a table nobody
asked about for ``table_idle_s`` is closed.  Refusals are structured:
``{"error": code, "params": {...}}`` with the room's or the leaderboard's own codes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Final
from urllib.parse import urlsplit

import tornado.web
from tornado.httpserver import HTTPServer

from canasta_teach.engine.game import Game, daily_seed
from canasta_teach.engine.notation import parse_move
from canasta_teach.engine.rules import PRESETS, preset
from canasta_teach.i18n import UnknownLanguage, get_translator
from canasta_teach.leaderboard import Leaderboard, LeaderboardError, Result, today_utc
from canasta_teach.rooms import HEARTBEAT_S, RoomError, Rooms, RoomStore, open_store
from canasta_teach.widgets.friends import RoomTable
from canasta_teach.widgets.fullgame import LEARNER

log = logging.getLogger(__name__)

#: The widget's synced traits a page draws from (everything but its code and style sheet).
TRAITS: Final = ("view", "labels", "lang", "dir", "font", "message", "game")
MAX_TABLES_PER_USER: Final = 8
TABLE_IDLE_S: Final = 15 * 60.0
#: The longest a page's watch waits for a change before it is answered anyway.
MAX_WAIT_S: Final = 25.0
#: A game's record as a page sends it: far above any real game's moves.
MAX_BODY_BYTES: Final = 1 << 20
MAX_MOVES: Final = 20_000

#: Who a hub token belongs to (the user's name), or None: JupyterHub's ``HubAuth`` on a hub,
#: a fake in tests.
Authenticate = Callable[[str], Awaitable[str | None]]


@dataclass
class ServiceConfig:
    store: RoomStore
    board: Leaderboard
    authenticate: Authenticate
    prefix: str = "/"
    max_tables: int = MAX_TABLES_PER_USER
    table_idle_s: float = TABLE_IDLE_S


@dataclass
class Table:
    """One page's seat, kept for its user."""

    id: str
    user: str
    room_table: RoomTable
    customs: list[dict[str, Any]] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    used: float = field(default_factory=time.monotonic)
    next_beat: float = 0.0

    def answer(self) -> dict[str, Any]:
        """What the page would have been sent since the last answer: the widget's state and
        its custom messages (a new seat's token, the language it keeps)."""
        widget = self.room_table.widget
        customs, self.customs = self.customs, []
        return {
            "state": {name: getattr(widget, name) for name in TRAITS},
            "customs": customs,
            "watching": self.watching,
        }

    @property
    def watching(self) -> bool:
        table = self.room_table
        return table.code is not None and table.snapshot is not None and not table.closed


class Tables:
    """Every user's tables."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self.by_id: dict[str, Table] = {}

    def open(self, user: str, lang: str) -> Table:
        self.tidy()
        mine = sorted((t for t in self.by_id.values() if t.user == user), key=lambda t: t.used)
        for old in mine[: max(0, len(mine) - self.config.max_tables + 1)]:
            self.close(old.id)
        room_table = RoomTable(get_translator(lang), lang, rooms=Rooms(self.config.store),
                               watch=False)  # fmt: skip
        table = Table(secrets.token_urlsafe(18), user, room_table)
        # The page's custom messages are kept for its next answer (no comm here).
        room_table.widget.send = lambda content, buffers=None: table.customs.append(content)
        self.by_id[table.id] = table
        return table

    def get(self, user: str, table_id: str) -> Table:
        table = self.by_id.get(table_id)
        if table is None or table.user != user:
            raise tornado.web.HTTPError(404)
        table.used = time.monotonic()
        return table

    def close(self, table_id: str) -> None:
        table = self.by_id.pop(table_id, None)
        if table is not None:
            table.room_table.closed = True
            table.room_table.widget.close()

    def tidy(self) -> None:
        now = time.monotonic()
        for table in list(self.by_id.values()):
            if now - table.used > self.config.table_idle_s:
                self.close(table.id)


async def in_thread(function: Callable[..., Any], *args: Any) -> Any:
    """Store calls and the computer players' thinking, off the event loop."""
    return await asyncio.get_running_loop().run_in_executor(None, function, *args)


class Handler(tornado.web.RequestHandler):
    config: ServiceConfig
    tables: Tables
    user: str

    def initialize(self, config: ServiceConfig, tables: Tables) -> None:
        self.config = config
        self.tables = tables

    async def prepare(self) -> None:
        scheme, _, token = self.request.headers.get("Authorization", "").partition(" ")
        user = None
        if scheme.lower() in ("token", "bearer") and token:
            user = await self.config.authenticate(token.strip())
        if user is None:
            self.refuse(403, "forbidden")
            return
        self.user = user

    def refuse(self, status: int, code: str, **params: Any) -> None:
        self.set_status(status)
        self.finish({"error": code, "params": params})

    def body(self) -> dict[str, Any]:
        try:
            data = json.loads(self.request.body or b"{}")
        except ValueError:
            raise tornado.web.HTTPError(400) from None
        if not isinstance(data, dict):
            raise tornado.web.HTTPError(400)
        return data

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        # No traceback ever leaves the service.
        self.finish({"error": "bad_request" if status_code < 500 else "error", "params": {}})


def _lang(data: dict[str, Any]) -> str:
    try:
        return get_translator(str(data.get("lang", "en"))).lang
    except UnknownLanguage:
        raise tornado.web.HTTPError(400) from None


class RoomsHandler(Handler):
    async def post(self) -> None:
        data = self.body()
        rooms = Rooms(self.config.store)
        try:
            code, token = await in_thread(
                lambda: rooms.create(
                    _lang(data), players=int(data.get("players", 4)),
                    variant=str(data.get("variant", "classic")),
                    level=str(data.get("level", "normal")), browser=f"hub:{self.user}",
                )
            )  # fmt: skip
        except RoomError as error:
            self.refuse(409, error.code, **error.params)
            return
        except (TypeError, ValueError):
            raise tornado.web.HTTPError(400) from None
        self.finish({"code": code, "token": token})


class TablesHandler(Handler):
    async def post(self) -> None:
        table = await in_thread(self.tables.open, self.user, _lang(self.body()))
        self.finish({"id": table.id, **table.answer()})


class TableHandler(Handler):
    async def post(self, table_id: str) -> None:
        table = self.tables.get(self.user, table_id)
        payload = self.body().get("payload")
        async with table.lock:
            # ``intent`` never raises: a bad message becomes the page's own refusal.
            await in_thread(table.room_table.controller.intent, payload)
            self.finish(table.answer())

    def delete(self, table_id: str) -> None:
        self.tables.get(self.user, table_id)
        self.tables.close(table_id)
        self.set_status(204)
        self.finish()


class WaitHandler(Handler):
    """A page's watch: says "still here" every few seconds and answers when the room changed
    (at once on Redis, within a poll on SQLite) or when the wait is over."""

    async def get(self, table_id: str) -> None:
        table = self.tables.get(self.user, table_id)
        try:
            timeout = min(MAX_WAIT_S, max(0.05, float(self.get_argument("timeout", "10"))))
        except ValueError:
            raise tornado.web.HTTPError(400) from None
        deadline = time.monotonic() + timeout
        room_table = table.room_table
        while table.watching and time.monotonic() < deadline:
            try:
                if time.monotonic() >= table.next_beat:
                    table.next_beat = time.monotonic() + HEARTBEAT_S
                    async with table.lock:
                        await in_thread(room_table.heartbeat)
                if not table.watching or table.customs:
                    break
                code, snapshot = room_table.code, room_table.snapshot
                assert code is not None and snapshot is not None
                until = min(deadline, table.next_beat)
                version = await room_table.rooms.store.wait(
                    code, snapshot.version, max(0.05, until - time.monotonic())
                )
                async with table.lock:
                    if version is None:
                        room_table._fail(RoomError("no_room"))
                        break
                    if room_table.snapshot is not None and version != room_table.snapshot.version:
                        await in_thread(_redraw, room_table)
                        break
            except RoomError as error:
                room_table._fail(error)
                break
            except Exception:  # noqa: BLE001 - a bad moment must not end the page
                log.exception("table watch failed")
                break
        self.finish(table.answer())


class BoardHandler(Handler):
    async def get(self) -> None:
        try:
            day = date.fromisoformat(self.get_argument("day"))
            variant, level = self.get_argument("variant"), self.get_argument("level")
            results = await in_thread(self.config.board.top, day, variant, level)
        except LeaderboardError as error:
            self.refuse(400, error.code, **error.params)
            return
        except ValueError:
            raise tornado.web.HTTPError(400) from None
        self.finish({"results": [{"name": r.name, "score": r.score} for r in results]})

    async def post(self) -> None:
        """A daily game's result, from its moves: replayed on the day's deal, scored by the
        replay.  Only a finished game of today's (or yesterday's, for a game that ran past
        midnight UTC) deal is recorded, once per hub user and board."""
        data = self.body()
        try:
            day = date.fromisoformat(str(data.get("day")))
            rules, moves = str(data.get("rules")), data.get("moves")
            if (today_utc() - day).days not in (0, 1):
                raise LeaderboardError("bad_date", day=day.isoformat())
            if not isinstance(moves, list) or len(moves) > MAX_MOVES:
                raise ValueError("moves")
            score = await in_thread(_replayed_score, rules, day, moves)
            if score is None:
                self.refuse(409, "not_over")
                return
            await in_thread(
                self.config.board.record,
                Result(name=str(data.get("name", "")), day=day, variant=rules,
                       level=str(data.get("level")), score=score,
                       player=f"hub:{self.user}"),
            )  # fmt: skip
        except LeaderboardError as error:
            self.refuse(409, error.code, **error.params)
            return
        except (KeyError, ValueError):
            raise tornado.web.HTTPError(400) from None
        self.finish({"score": score})


def _redraw(room_table: RoomTable) -> None:
    room_table.refresh()
    room_table.render()


def _replayed_score(rules: str, day: date, moves: list[Any]) -> int | None:
    """The learner's team's total of the game these moves play on the day's deal; None when
    the game is not over; ``ValueError`` for a move that is not one or is refused."""
    if rules not in PRESETS:
        raise LeaderboardError("bad_variant", variant=rules)
    game = Game(preset(rules), daily_seed(day, rules))
    for text in moves:
        if not isinstance(text, str) or not game.apply(parse_move(text)).legal:
            raise ValueError("move")
    return game.totals[LEARNER % 2] if game.is_over else None


def make_app(config: ServiceConfig) -> tornado.web.Application:
    prefix = "/" + config.prefix.strip("/") + "/" if config.prefix.strip("/") else "/"
    tables = Tables(config)
    args = {"config": config, "tables": tables}
    app = tornado.web.Application(
        [
            (prefix + "rooms", RoomsHandler, args),
            (prefix + "tables", TablesHandler, args),
            (prefix + r"tables/([A-Za-z0-9_-]{8,40})", TableHandler, args),
            (prefix + r"tables/([A-Za-z0-9_-]{8,40})/wait", WaitHandler, args),
            (prefix + "board", BoardHandler, args),
        ],
        serve_traceback=False,
    )
    app.settings["canasta_tables"] = tables
    return app


def hub_authenticator() -> Authenticate:
    """JupyterHub's own answer to "whose token is this?" (``HubAuth``, cached a minute)."""
    from jupyterhub.services.auth import HubAuth  # type: ignore[import-untyped]

    auth = HubAuth(cache_max_age=60)

    async def authenticate(token: str) -> str | None:
        try:
            model = await auth.user_for_token(token, sync=False)
        except Exception:  # noqa: BLE001 - the hub out of reach: refused, and logged
            log.exception("the hub could not tell whose token this is")
            return None
        if not model or model.get("kind", "user") != "user":
            log.info("refused a token the hub does not know as a user's")
            return None
        # The token must be one that may reach this service (``access:services``).
        if not auth.check_scopes(auth.access_scopes, model):
            log.info("refused %s's token: it may not reach this service", model.get("name"))
            return None
        name = model.get("name")
        return name if isinstance(name, str) else None

    return authenticate


def main() -> None:  # pragma: no cover - run by JupyterHub (tests/test_hub.py)
    """Run as a JupyterHub-managed service: JupyterHub sets ``$JUPYTERHUB_SERVICE_URL`` (where
    to listen), ``$JUPYTERHUB_SERVICE_PREFIX`` and the API token; the stores come from
    ``$CANASTA_ROOMS_URL`` and ``$CANASTA_DATABASE_URL``, which only this process holds."""
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s canasta-service %(message)s")
    logging.getLogger("canasta_teach").setLevel(logging.INFO)
    logging.getLogger("tornado.access").setLevel(logging.INFO)
    where = urlsplit(os.environ.get("JUPYTERHUB_SERVICE_URL", "http://127.0.0.1:10101"))
    config = ServiceConfig(
        store=open_store(), board=Leaderboard(), authenticate=hub_authenticator(),
        prefix=os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/services/canasta/"),
    )  # fmt: skip

    async def serve() -> None:
        server = HTTPServer(make_app(config), max_body_size=MAX_BODY_BYTES)
        server.listen(where.port or 80, where.hostname or "127.0.0.1")
        log.info("listening on %s, prefix %s", where.geturl(), config.prefix)
        await asyncio.Event().wait()

    asyncio.run(serve())


if __name__ == "__main__":  # pragma: no cover
    main()
