"""Rooms at the widget level against careless visitors (issue 21): one ``RoomTable`` per seat,
as each kernel has, on a real SQLite store.

- F19: a friend the host moves (table size, variant, partner) follows the seat their token
  holds: the table stays on their page, their "still here" names that seat, and a language
  switch never seats a token nobody holds.
- F30: after ten wrong codes, the right one is told to wait, and for how long.
- F18, F26: an Invite past this visitor's rooms, and a damaged rooms file, are told in the
  page's language with what to do; errors inside a kernel reach the server's log.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pytest

from canasta_teach.i18n import get_translator
from canasta_teach.rooms import Rooms, SqliteRoomStore, seat_of
from canasta_teach.rooms.room import CLIENT_ADDRESS_ENV, EMPTY_ROOM_S, MAX_ROOMS_PER_BROWSER
from canasta_teach.widgets import friends
from canasta_teach.widgets.friends import MAX_BAD_CODES, RoomTable, create_room_for
from canasta_teach.widgets.serverlog import ServerLogHandler, log_to_server


@pytest.fixture
def rooms(tmp_path: Path) -> Rooms:
    return Rooms(SqliteRoomStore(tmp_path / "rooms.sqlite3"))


def seat(rooms: Rooms, lang: str, values: dict[str, str]) -> RoomTable:
    table = RoomTable(get_translator(lang), lang, rooms=Rooms(rooms.store), watch=False)
    table.sent = []  # type: ignore[attr-defined]
    table.widget.comm.send = (  # type: ignore[union-attr]
        lambda data=None, metadata=None, buffers=None: table.sent.append(data)  # type: ignore[attr-defined]
    )
    table.controller.intent({"action": "game", "id": "hello", "values": {"lang": lang, **values}})
    return table


def control(table: RoomTable, name: str) -> None:
    table.controller.intent({"action": "game", "id": name})


def shown(table: RoomTable) -> str:
    return str(table.widget.message.get("text") or table.widget.game.get("prompt") or "")


# ---------------------------------------------------------------------- F19


def test_a_friend_the_host_moves_follows_their_seat(rooms: Rooms) -> None:
    code, host_token = rooms.create("en", players=4)
    host = seat(rooms, "en", {"room": code, "token": host_token})
    friend = seat(rooms, "hi", {"room": code})
    assert friend.seat == 2 and not friend.error
    control(host, "players:2")  # the friend moves from seat 2 to seat 1
    assert friend.poll()
    assert friend.seat == 1 and friend.controller.seat == 1 and not friend.error
    assert friend.widget.game["stage"] == "lobby"
    # Their "still here" names the seat the token holds: a room older than the keep time does
    # not free the friend who is there.
    rooms.store.update(code, lambda doc: (doc.update(created=time.time() - 11 * 60) or True, None))
    friend.heartbeat()
    host.heartbeat()
    doc = rooms.read(code).doc
    assert [s["kind"] for s in doc["seats"][:2]] == ["human", "human"]
    # A language switch keeps the one seat (no second person with a token nobody holds).
    control(friend, "lang:te")
    doc = rooms.read(code).doc
    assert sum(s["kind"] == "human" for s in doc["seats"]) == 2
    assert seat_of(doc, friend.token) == 1 and friend.lang == "te"
    # Back to four, Hand and Foot: the friend becomes the partner (seat 2) and sees the game.
    control(host, "variant:handfoot")
    friend.poll()
    assert friend.seat == 2 and not friend.error
    control(host, "start")
    friend.poll()
    assert friend.widget.game["stage"] == "play" and not friend.widget.view.get("hidden")
    assert friend.controller.seat == 2 and friend.controller.state is not None


def test_choosing_the_partner_moves_the_friend_and_their_page_follows(rooms: Rooms) -> None:
    code, host_token = rooms.create("en", players=4)
    host = seat(rooms, "en", {"room": code, "token": host_token})
    friend = seat(rooms, "ur", {"room": code})
    host.poll()  # the host's page sees the friend (its watch would)
    control(host, "partner:0")  # the computer partners the host: the friend moves to East/West
    friend.poll()
    assert friend.seat in (1, 3) and not friend.error
    assert seat_of(rooms.read(code).doc, friend.token) == friend.seat


# ---------------------------------------------------------------------- F30


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_after_ten_wrong_codes_the_right_one_is_told_to_wait(rooms: Rooms, lang: str) -> None:
    code, _ = rooms.create("en", players=2)
    page = seat(rooms, lang, {"room": ""})
    for n in range(MAX_BAD_CODES):
        page.controller.intent({"action": "game", "id": "join",
                                "values": {"code": f"ZZZZZ-ZZZZ{'ABCDEFGHJK'[n]}"}})  # fmt: skip
    page.controller.intent({"action": "game", "id": "join", "values": {"code": code}})
    tr = get_translator(lang)
    said = shown(page)
    assert said in {tr.ntext("ui", "room.wait_codes", n, count=tr.number(n)) for n in range(55, 61)}
    assert said != tr.ui("room.error.bad_code") and page.code is None
    # When the pause is over, the same code seats them.
    page._paused_until = time.monotonic() - 1
    page.controller.intent({"action": "game", "id": "join", "values": {"code": code}})
    assert page.code == code and page.seat == 1


# ---------------------------------------------------------------------- F18


class _Game:
    """What ``create_room_for`` reads from the full game."""

    def __init__(self, player: str) -> None:
        self.lang, self.players, self.variant, self.level = "ur", 2, "classic", "normal"
        self.player = player


def test_invite_past_this_visitors_rooms_says_what_to_do(
    rooms: Rooms, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(friends, "open_rooms", lambda: Rooms(rooms.store))
    monkeypatch.setenv(CLIENT_ADDRESS_ENV, "192.0.2.7")
    for _ in range(MAX_ROOMS_PER_BROWSER):
        create_room_for(_Game("browser-one-1234"))
    with pytest.raises(friends.RoomError) as refused:
        create_room_for(_Game("browser-one-1234"))
    ur = get_translator("ur")
    text = ur.ui(refused.value.key, **refused.value.params)
    assert refused.value.code == "own_rooms" and ur.number(round(EMPTY_ROOM_S / 60)) in text
    # Another browser behind the same address is not refused for it.
    create_room_for(_Game("browser-two-1234"))
    # A page that never said its browser's id counts as this kernel.
    create_room_for(_Game("this-kernel"))


# ---------------------------------------------------------------------- F26


def test_a_damaged_rooms_file_is_told_in_the_pages_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CANASTA_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("CANASTA_ROOMS_URL", raising=False)
    monkeypatch.setattr(
        friends, "shared_store", lambda: SqliteRoomStore(tmp_path / "rooms.sqlite3")
    )
    (tmp_path / "rooms.sqlite3").write_bytes(b"not a database at all " * 500)
    page = RoomTable(get_translator("te"), "te", watch=False)
    page._on_values("join", {"code": "ABCDE-FGH23"})
    te = get_translator("te")
    assert page.error == te.ui("room.error.store_reset")
    assert list(tmp_path.glob("rooms.sqlite3.damaged-*"))
    # The next try reaches the fresh store (this code names no room there).
    page._rooms = None
    page._on_values("join", {"code": "ABCDE-FGH23"})
    assert page.error == te.ui("room.error.no_room")


class _KernelStderr:
    """Stands for ipykernel's ``OutStream``: the copy of the server's stderr it keeps."""

    def __init__(self, fd: int) -> None:
        self._original_stdstream_copy = fd


_KernelStderr.__module__ = "ipykernel.iostream"


def test_errors_inside_a_kernel_reach_the_servers_log(tmp_path: Path) -> None:
    logger = logging.getLogger("canasta_teach")
    before = list(logger.handlers)
    server_log = tmp_path / "server.log"
    fd = os.open(server_log, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        assert not log_to_server(object())  # outside a kernel: nothing changes
        assert log_to_server(_KernelStderr(fd))
        assert not log_to_server(_KernelStderr(fd))  # once per kernel
        try:
            raise ValueError("the rooms file is not JSON")
        except ValueError:
            logging.getLogger("canasta_teach.widgets.friends").exception("room watch failed")
        for handler in logger.handlers:
            handler.flush()
        text = server_log.read_text()
        assert f"[canasta kernel {os.getpid()}] ERROR canasta_teach.widgets.friends" in text
        assert "room watch failed" in text and "ValueError: the rooms file is not JSON" in text
    finally:
        for handler in logger.handlers[:]:
            if isinstance(handler, ServerLogHandler):
                logger.removeHandler(handler)
                handler.close()
        os.close(fd)
        assert logger.handlers == before
        logger.setLevel(logging.NOTSET)
