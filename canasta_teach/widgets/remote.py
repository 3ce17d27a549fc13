"""The learner's side of the canasta service (``canasta_teach.service``): rooms and the
leaderboard reached over HTTP with the learner's own hub token, never a store's URL.

Chosen by ``$CANASTA_SERVICE_URL`` (a JupyterHub single-user server has it; see
``deploy/jupyterhub_config.py``): then

- ``play_together`` draws a :class:`RemoteRoomTable`: the page's widget here, its seat's
  ``RoomTable`` in the service; each message of the page goes to the service, and what the
  service answers (the widget's state, its custom messages) is what the page is sent;
- the full game's Invite asks the service for the room (:func:`create_room`);
- the full game's leaderboard is a :class:`RemoteLeaderboard`: a result is the game's moves
  (the service replays them on the day's deal and scores them), the board is read back.

The token is ``$JUPYTERHUB_API_TOKEN``: every kernel of a single-user server has it, and the
service asks the hub whose it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import urllib.error
import urllib.request
from datetime import date
from typing import Any, Final

from canasta_teach.i18n import Translator
from canasta_teach.leaderboard import LeaderboardError, Result
from canasta_teach.rooms import RoomError
from canasta_teach.rooms.room import ERROR_CODES

from .fonts import font_message
from .table import FONTS_ACTION, CardTable

log = logging.getLogger(__name__)

SERVICE_URL_ENV: Final = "CANASTA_SERVICE_URL"
TOKEN_ENV: Final = "JUPYTERHUB_API_TOKEN"
#: A request to the service (a move with hard computer players may think a few seconds).
REQUEST_TIMEOUT_S: Final = 60.0
#: How long one watch request waits for the room to change.
WATCH_S: Final = 10.0


def service_url() -> str | None:
    """The service's address when this server reaches rooms and the board through it."""
    url = os.environ.get(SERVICE_URL_ENV, "").strip()
    return url.rstrip("/") + "/" if url else None


def hub_share() -> dict[str, str] | None:
    """On a hub, how a room link reaches the friend's own server: the page's address starts
    with this learner's server prefix (``/user/NAME/``), which the friend may not open; the
    hub's ``user-redirect`` sends whoever follows the link to their own server (JupyterLab's
    shareable links do the same).  None off a hub."""
    server = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "")
    if service_url() is None or not server.startswith("/"):
        return None
    hub = os.environ.get("JUPYTERHUB_BASE_URL", "/").rstrip("/") + "/hub/"
    return {"server": server.rstrip("/") + "/", "redirect": hub + "user-redirect/"}


class ServiceError(Exception):
    """The service refused (``code``, ``params``: the room's or the board's own codes) or
    could not be reached (``unavailable``)."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


class ServiceClient:
    def __init__(self, url: str | None = None, token: str | None = None) -> None:
        self.url = url or service_url() or ""
        self.token = token if token is not None else os.environ.get(TOKEN_ENV, "")

    def call(self, method: str, path: str, body: Any = None,
             timeout: float = REQUEST_TIMEOUT_S) -> Any:  # fmt: skip
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Authorization": f"token {self.token}",
                                                  "Content-Type": "application/json"})  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - our own service
                raw = response.read()
        except urllib.error.HTTPError as error:
            try:
                refusal = json.loads(error.read())
                raise ServiceError(str(refusal["error"]), **refusal.get("params", {})) from None
            except (ValueError, KeyError, TypeError):
                raise ServiceError("unavailable") from error
        except OSError as error:
            raise ServiceError("unavailable") from error
        return json.loads(raw) if raw else None


def _room_error(error: ServiceError) -> RoomError:
    return RoomError(error.code if error.code in ERROR_CODES else "unavailable", **error.params)


def create_room(lang: str, *, players: int, variant: str, level: str) -> tuple[str, str]:
    """A room made by the service, with this hub user as host: its code and the host's token."""
    try:
        wanted = {"lang": lang, "players": players, "variant": variant, "level": level}
        made = ServiceClient().call("POST", "rooms", wanted)
    except ServiceError as error:
        raise _room_error(error) from error
    return str(made["code"]), str(made["token"])


class RemoteRoomTable:
    """A page of ``play-together`` whose seat lives in the service."""

    def __init__(self, translator: Translator, lang: str, *, client: ServiceClient | None = None,
                 watch: bool = True) -> None:  # fmt: skip
        self.client = client or ServiceClient()
        self.watch = watch
        self._task: Any = None
        opened = self.client.call("POST", "tables", {"lang": lang})
        self.table_id = str(opened["id"])
        state = opened["state"]
        self.widget = CardTable(**state)
        self.widget.game_name = "play-together"
        self.widget.on_msg(self._on_msg)
        self._apply(opened)

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        self.intent(content)

    def intent(self, payload: Any) -> None:
        """One message of the page, answered by its seat in the service."""
        if isinstance(payload, dict) and payload.get("action") == FONTS_ACTION:
            content, buffers = font_message(self.widget.lang)  # the fonts are ours to send
            self.widget.send(content, buffers=buffers)
            return
        try:
            answer = self.client.call("POST", f"tables/{self.table_id}", {"payload": payload})
        except ServiceError as error:
            self._unavailable(error)
            return
        self._apply(answer)

    def _unavailable(self, error: ServiceError) -> None:
        log.warning("the canasta service refused or failed: %s", error.code)
        from canasta_teach.i18n import get_translator

        tr = get_translator(self.widget.lang)
        self.widget.message = {"kind": "refusal", "text": tr.ui("room.error.unavailable")}

    def _apply(self, answer: Any) -> None:
        state = answer["state"]
        share = hub_share()
        invite = state.get("game", {}).get("invite")
        if share is not None and isinstance(invite, dict):
            # The service does not know this learner's server: the link's way is said here.
            state = {**state, "game": {**state["game"], "invite": {**invite, "share": share}}}
        with self.widget.hold_sync():
            for name, value in state.items():
                setattr(self.widget, name, value)
        for content in answer["customs"]:
            self.widget.send(content)
        if answer.get("watching"):
            self._start_watching()

    def poll(self, timeout: float = 0.05) -> None:
        """One watch by hand (no event loop): the room's changes since the last answer."""
        self._apply(self.client.call("GET", f"tables/{self.table_id}/wait?timeout={timeout}"))

    def _start_watching(self) -> None:
        if not self.watch or self._task is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._task = loop.create_task(self._watch())

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        path = f"tables/{self.table_id}/wait?timeout={WATCH_S}"
        try:
            while getattr(self.widget, "comm", None) is not None:
                try:
                    answer = await loop.run_in_executor(None, self.client.call, "GET", path)
                except ServiceError as error:
                    self._unavailable(error)
                    await asyncio.sleep(5.0)
                    continue
                self._apply(answer)
                if not answer.get("watching"):
                    return
        finally:
            self._task = None
            if getattr(self.widget, "comm", None) is None:
                with contextlib.suppress(ServiceError):
                    self.client.call("DELETE", f"tables/{self.table_id}", timeout=5.0)


class RemoteLeaderboard:
    """The shared board through the service: ``top`` as ``Leaderboard.top``; a result is
    recorded from the game's moves (``record_game``), never from a score."""

    remote = True

    def __init__(self, client: ServiceClient | None = None) -> None:
        self.client = client or ServiceClient()

    def top(self, day: date, variant: str, level: str) -> list[Result]:
        query = f"board?day={day.isoformat()}&variant={variant}&level={level}"
        try:
            found = self.client.call("GET", query)
        except ServiceError as error:
            raise LeaderboardError(_board_code(error.code), **error.params) from error
        return [Result(name=str(r["name"]), day=day, variant=variant, level=level,
                       score=int(r["score"])) for r in found["results"]]  # fmt: skip

    def record_game(self, name: str, day: date, level: str, rules: str,
                    moves: list[str]) -> int:  # fmt: skip
        """Send the finished daily game; the score the service's replay gave."""
        try:
            done = self.client.call("POST", "board", {"name": name, "day": day.isoformat(),
                                                      "level": level, "rules": rules,
                                                      "moves": moves})  # fmt: skip
        except ServiceError as error:
            raise LeaderboardError(_board_code(error.code), **error.params) from error
        return int(done["score"])


def _board_code(code: str) -> str:
    from canasta_teach.leaderboard import ERROR_CODES as BOARD_CODES

    return code if code in BOARD_CODES else "unavailable"


__all__ = ["RemoteLeaderboard", "RemoteRoomTable", "ServiceClient",
           "ServiceError", "create_room", "service_url"]  # fmt: skip
