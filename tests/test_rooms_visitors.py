"""Rooms against careless and hostile visitors (issue 21), on both stores where the store
matters (SQLite, and a real ``redis-server`` started by ``conftest.redis_url``):

- F18: one browser, one address hold only so many rooms; a room nobody but its host came to
  closes within minutes; the refusal is about that visitor, not everyone.
- F25: a room's deal rests on 128 bits of the system's randomness.
- F26: a damaged rooms file is set aside for a fresh one; an unreadable room is kept aside.
- F31: a host away past the keep time hands the host role on, and gets their seat back.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from canasta_teach.engine.game import Game
from canasta_teach.engine.rules import preset
from canasta_teach.rooms import (
    RedisRoomStore,
    RoomError,
    Rooms,
    RoomStore,
    SqliteRoomStore,
    seat_of,
)
from canasta_teach.rooms import room as room_module
from canasta_teach.rooms.room import (
    EMPTY_ROOM_S,
    MAX_ROOMS_PER_ADDRESS,
    MAX_ROOMS_PER_BROWSER,
    SEED_BYTES,
)
from canasta_teach.rooms.store import DAMAGED_PREFIX, ROOM_TTL_S

StoreMaker = Callable[..., RoomStore]


@pytest.fixture(params=["sqlite", "redis"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreMaker]:
    made: list[RoomStore] = []
    if request.param == "sqlite":

        def make(**kwargs: Any) -> RoomStore:
            store = SqliteRoomStore(tmp_path / "rooms.sqlite3", **kwargs)
            made.append(store)
            return store
    else:
        url = request.getfixturevalue("redis_url")
        RedisRoomStore(url).client.flushdb()

        def make(**kwargs: Any) -> RoomStore:
            store = RedisRoomStore(url, **kwargs)
            made.append(store)
            return store

    yield make
    for store in made:
        store.close()


def refused(call: Callable[..., Any], *args: Any, **kwargs: Any) -> RoomError:
    with pytest.raises(RoomError) as error:
        call(*args, **kwargs)
    return error.value


def life_left(store: RoomStore, code: str) -> float:
    """Seconds until the room expires, as the store keeps it."""
    if isinstance(store, SqliteRoomStore):
        row = store._connect().execute("SELECT expires FROM rooms WHERE code = ?", (code,))
        return float(row.fetchone()[0]) - time.time()
    assert isinstance(store, RedisRoomStore)
    return float(store.client.pttl(store._key(code))) / 1000


# ---------------------------------------------------------------------- F18


def test_one_browser_and_one_address_hold_only_so_many_rooms(make_store: StoreMaker) -> None:
    rooms = Rooms(make_store())
    made = [rooms.create("en", browser="b-1", address="10.0.0.1")
            for _ in range(MAX_ROOMS_PER_BROWSER)]  # fmt: skip
    error = refused(rooms.create, "en", browser="b-1", address="10.0.0.1")
    assert error.code == "own_rooms" and error.params == {"minutes": round(EMPTY_ROOM_S / 60)}
    # The refusal is this visitor's: another browser, and another address, still invite.
    rooms.create("en", browser="b-2", address="10.0.0.1")
    rooms.create("en", browser="b-1x", address="10.0.0.2")
    # One address (a classroom behind one router) holds more, but not without end.
    for n in range(MAX_ROOMS_PER_ADDRESS - MAX_ROOMS_PER_BROWSER - 1):
        rooms.create("en", browser=f"b-more-{n}", address="10.0.0.1")
    assert refused(rooms.create, "en", browser="b-new", address="10.0.0.1").code == "own_rooms"
    # A room that closes gives its place back.
    rooms.store.expire_now(made[0][0])  # type: ignore[attr-defined]
    rooms.create("en", browser="b-1", address="10.0.0.3")
    assert refused(rooms.create, "en", browser="b-1").code == "own_rooms"


def test_a_room_nobody_joined_closes_in_minutes_and_a_friend_keeps_it(
    make_store: StoreMaker,
) -> None:
    rooms = Rooms(make_store())
    code, host = rooms.create("en", browser="b-1")
    assert 0 < life_left(rooms.store, code) <= EMPTY_ROOM_S + 1
    # The host's own settings do not keep an empty room for hours ...
    rooms.configure(code, host, "level", "hard")
    assert life_left(rooms.store, code) <= EMPTY_ROOM_S + 1
    # ... nor does the host's page saying "still here" (it keeps it for minutes more) ...
    rooms.heartbeat(code, 0)
    assert EMPTY_ROOM_S - 60 < life_left(rooms.store, code) <= EMPTY_ROOM_S + 1
    # ... but a friend who came does: the room lives as long as any room.
    rooms.join(code, None, "hi")
    assert life_left(rooms.store, code) > ROOM_TTL_S - 60


def test_an_empty_room_is_gone_after_its_minutes(tmp_path: Path) -> None:
    store = SqliteRoomStore(tmp_path / "rooms.sqlite3", max_rooms=2)
    rooms = Rooms(store)
    first, _ = rooms.create("en", browser="b-1")
    rooms.create("en", browser="b-2")
    assert refused(rooms.create, "en", browser="b-3").code == "too_many_rooms"
    # Minutes later (nobody came, no page open): the room has closed and the cap has room.
    store.purge(now=time.time() + EMPTY_ROOM_S + 1)
    assert refused(rooms.read, first).code == "no_room"
    rooms.create("en", browser="b-3")


# ---------------------------------------------------------------------- F25


def test_a_room_is_dealt_from_128_bits_of_system_randomness(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    asked: list[int] = []
    system_token_hex = secrets.token_hex

    def token_hex(nbytes: int | None = None) -> str:
        asked.append(nbytes or 0)
        return system_token_hex(nbytes)

    monkeypatch.setattr(room_module.secrets, "token_hex", token_hex)
    rooms = Rooms(SqliteRoomStore(tmp_path / "rooms.sqlite3"))
    seeds, deals = set(), set()
    for n in range(12):
        code, host = rooms.create("en", players=2, browser=f"b-{n}")
        rooms.start(code, host)
        seed = rooms.read(code).doc["game"]["seed"]
        suffix = seed.rsplit("/", 1)[1]
        assert len(suffix) == 2 * SEED_BYTES and int(suffix, 16) >= 0
        seeds.add(seed)
        deals.add(tuple(map(tuple, Game(preset("classic2"), seed).state.hands)))
    assert SEED_BYTES * 8 >= 128 and asked and min(asked) >= 16
    assert len(seeds) == 12 and len(deals) == 12  # no two rooms share a deal


# ---------------------------------------------------------------------- F26


@pytest.mark.parametrize("damage", ["junk", "half", "folder"])
def test_a_damaged_rooms_file_is_set_aside_for_a_fresh_one(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "rooms.sqlite3"
    old = Rooms(SqliteRoomStore(path))
    for n in range(30):
        old.create("en", browser=f"b-{n}")
    old.store.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    if damage == "junk":
        path.write_bytes(b"this is not a database " * 400)
    elif damage == "half":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
        with pytest.raises(sqlite3.DatabaseError):  # damaged for SQLite itself
            sqlite3.connect(path).execute("PRAGMA integrity_check").fetchall()
    else:
        path.unlink()
        path.mkdir()
    # Opening the store sets the file aside and starts afresh: Invite works at once.
    store = SqliteRoomStore(path)
    assert store.set_aside is not None and store.set_aside.exists()
    assert store.set_aside.name.startswith("rooms.sqlite3.damaged-")
    assert path.is_file()
    Rooms(store).create("en", browser="b-1")
    assert store.count() == 1


def test_a_kernel_that_finds_the_damage_says_so_and_the_next_try_works(tmp_path: Path) -> None:
    path = tmp_path / "rooms.sqlite3"
    rooms = Rooms(SqliteRoomStore(path))
    code, _ = rooms.create("en")
    rooms.store.close()
    path.write_bytes(b"junk" * 2000)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    assert refused(rooms.read, code).code == "store_reset"
    assert refused(rooms.read, code).code == "no_room"  # its rooms went with the file
    rooms.create("en")
    assert len(list(tmp_path.glob("rooms.sqlite3.damaged-*"))) == 1


def test_a_room_whose_document_cannot_be_read_is_kept_aside(make_store: StoreMaker) -> None:
    store = make_store()
    rooms = Rooms(store)
    code, host = rooms.create("en")
    other, _ = rooms.create("en")
    if isinstance(store, SqliteRoomStore):
        store._connect().execute("UPDATE rooms SET doc = '{not json' WHERE code = ?", (code,))
    else:
        assert isinstance(store, RedisRoomStore)
        store.client.hset(store._key(code), "doc", "{not json")
    assert refused(rooms.join, code, host, "en").code == "no_room"
    assert refused(rooms.read, code).code == "no_room"
    # Kept for the operator under a key no room code can name:
    if isinstance(store, SqliteRoomStore):
        kept = store._connect().execute("SELECT doc FROM rooms WHERE code = ?",
                                        (DAMAGED_PREFIX + code,)).fetchone()  # fmt: skip
        assert kept == ("{not json",)
    else:
        assert isinstance(store, RedisRoomStore)
        assert store.client.hget(store._key(DAMAGED_PREFIX + code), "doc") == b"{not json"
    rooms.read(other)  # the other rooms are untouched


# ---------------------------------------------------------------------- F31


def _game_of_three(rooms: Rooms) -> tuple[str, str, str, str]:
    code, host = rooms.create("en", players=4, keep_minutes=2)
    _s, partner = rooms.join(code, None, "hi")
    _s, third = rooms.join(code, None, "te")
    rooms.start(code, host)
    return code, host, partner or "", third or ""


def _host_seats(rooms: Rooms, code: str) -> list[int]:
    return [i for i, s in enumerate(rooms.read(code).doc["seats"]) if s.get("host")]


def test_a_host_away_too_long_hands_the_host_role_to_a_player_here(
    make_store: StoreMaker,
) -> None:
    rooms = Rooms(make_store())
    code, host, partner, third = _game_of_three(rooms)
    now = time.time()
    rooms.store.touch(code, 0, now=now - 3 * 60)  # the host's tab closed 3 minutes ago
    rooms.store.touch(code, 1, now=now - 60)  # the third player is away too (1 minute)
    rooms.heartbeat(code, 2)  # the partner's kernel: still here
    doc = rooms.read(code).doc
    assert doc["seats"][0]["kind"] == "released" and _host_seats(rooms, code) == [2]
    assert doc["notes"][-1]["code"] == "host" and doc["notes"][-1]["seat"] == 2
    assert seat_of(doc, partner) == 2
    # The new host can let the computer play for the away player, as a host may.
    rooms.stand_in(code, partner, 1)
    assert refused(rooms.stand_in, code, third, 1).code == "not_host"
    # The old host comes back to their own seat (the same token), as a player.
    assert rooms.join(code, host, "en") == (0, None)
    doc = rooms.read(code).doc
    assert seat_of(doc, host) == 0 and _host_seats(rooms, code) == [2]


def test_with_nobody_here_the_role_waits_for_whoever_sits_down_next(
    make_store: StoreMaker,
) -> None:
    rooms = Rooms(make_store())
    code, host = rooms.create("en", players=2, keep_minutes=2)
    _s, friend = rooms.join(code, None, "hi")
    rooms.start(code, host)
    now = time.time()
    rooms.store.touch(code, 0, now=now - 3 * 60)
    rooms.heartbeat(code, 1)  # the friend's kernel: the role passes to the friend
    assert _host_seats(rooms, code) == [1]
    # Then the friend goes too; a late beat of the host's old kernel finds nobody here.
    rooms.store.touch(code, 1, now=now - 3 * 60)
    rooms.heartbeat(code, 0)
    doc = rooms.read(code).doc
    assert [s["kind"] for s in doc["seats"][:2]] == ["released", "released"]
    assert _host_seats(rooms, code) == [1]  # kept with the released seat
    # The first person back (here the old host, to their own seat) is the host again.
    assert rooms.join(code, host, "en") == (0, None)
    assert _host_seats(rooms, code) == [0]
    # The friend, back too, gets their own seat as a player.
    assert rooms.join(code, friend, "hi") == (1, None)
    assert _host_seats(rooms, code) == [0]
