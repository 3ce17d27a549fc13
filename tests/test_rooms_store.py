"""The room store suite, run against both stores: SQLite (the default, a file) and Redis (a real
``redis-server`` this module starts on a free loopback port; ``make test`` installs it when
missing and we are root).

It checks what the room authority relies on: a change is atomic (concurrent writers from
several threads, each with its own connection, lose nothing), a change that raises writes
nothing, the version moves only when the document changed, a waiting reader is woken by a
change, rooms expire, and a server holds no more rooms than its cap."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from canasta_teach.rooms import RedisRoomStore, RoomStore, SqliteRoomStore, StoreError, open_store

StoreMaker = Callable[..., RoomStore]


@pytest.fixture(params=["sqlite", "redis"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreMaker]:
    made: list[RoomStore] = []
    if request.param == "sqlite":
        path = tmp_path / "rooms.sqlite3"

        def make(**kwargs: Any) -> RoomStore:
            store = SqliteRoomStore(path, **kwargs)
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


def _bump(doc: dict[str, Any]) -> tuple[bool, int]:
    doc["n"] = doc.get("n", 0) + 1
    return True, doc["n"]


def test_create_read_and_update_move_the_version(make_store: StoreMaker) -> None:
    store = make_store()
    store.create("ROOM1", {"n": 0})
    assert store.get("ROOM1") == (1, {"n": 0})
    assert store.version("ROOM1") == 1
    assert store.update("ROOM1", _bump) == (2, 1)
    # A change that changes nothing is not written: same version.
    assert store.update("ROOM1", lambda doc: (False, "looked")) == (2, "looked")
    assert store.get("ROOM1") == (2, {"n": 1})
    with pytest.raises(StoreError) as taken:
        store.create("ROOM1", {"n": 5})
    assert taken.value.code == "exists"
    assert store.get("NOSUCH") is None and store.version("NOSUCH") is None
    assert store.update("NOSUCH", _bump) is None


def test_a_change_that_raises_writes_nothing(make_store: StoreMaker) -> None:
    store = make_store()
    store.create("ROOM2", {"cards": [1, 2, 3]})

    def half_done(doc: dict[str, Any]) -> tuple[bool, None]:
        doc["cards"].pop()
        raise ValueError("refused halfway")

    with pytest.raises(ValueError):
        store.update("ROOM2", half_done)
    assert store.get("ROOM2") == (1, {"cards": [1, 2, 3]})


def test_concurrent_writers_lose_nothing(make_store: StoreMaker) -> None:
    """Eight threads, each with its own connection, add to one room at once."""
    make_store().create("BUSY", {"n": 0})
    per_thread, threads = 40, 8
    seen: list[int] = []
    lock = threading.Lock()
    errors: list[BaseException] = []

    def writer() -> None:
        store = make_store()
        try:
            for _ in range(per_thread):
                done = store.update("BUSY", _bump)
                assert done is not None
                with lock:
                    seen.append(done[1])
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    workers = [threading.Thread(target=writer) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors
    total = per_thread * threads
    assert make_store().get("BUSY") == (1 + total, {"n": total})
    # Every writer saw its own step: no two changes read the same document.
    assert sorted(seen) == list(range(1, total + 1))


def test_a_waiting_reader_is_woken_by_a_change(make_store: StoreMaker) -> None:
    store = make_store()
    store.create("WAIT", {"n": 0})
    writer = make_store()
    timer = threading.Timer(0.2, lambda: writer.update("WAIT", _bump))
    timer.start()
    started = time.monotonic()
    assert store.wait_sync("WAIT", 1, timeout=10) == 2
    assert time.monotonic() - started < 5
    timer.join()

    async def wait_async() -> int | None:
        loop = asyncio.get_running_loop()
        loop.call_later(0.2, lambda: writer.update("WAIT", _bump))
        return await store.wait("WAIT", 2, timeout=10)

    # In a thread of its own: after the browser tests, this thread may still hold Playwright's
    # running loop (asyncio.run refuses to start inside it).
    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(asyncio.run, wait_async()).result() == 3
    # No change: the wait ends at its timeout with the same version.
    assert store.wait_sync("WAIT", 3, timeout=0.2) == 3


def test_rooms_expire(make_store: StoreMaker) -> None:
    store = make_store(ttl_s=0.3)
    store.create("SHORT", {"n": 0})
    store.create("GONE", {"n": 0})
    store.expire_now("GONE")  # type: ignore[attr-defined]
    assert store.get("GONE") is None and store.update("GONE", _bump) is None
    assert store.get("SHORT") is not None
    time.sleep(0.5)
    assert store.get("SHORT") is None and store.version("SHORT") is None
    assert store.update("SHORT", _bump) is None
    store.purge()
    assert store.count() == 0


def test_a_server_holds_no_more_rooms_than_its_cap(make_store: StoreMaker) -> None:
    store = make_store(max_rooms=3)
    for code in ("CAP1", "CAP2", "CAP3"):
        store.create(code, {})
    with pytest.raises(StoreError) as refused:
        store.create("CAP4", {})
    assert refused.value.code == "too_many_rooms"
    assert store.count() == 3
    # An expired room frees its place.
    store.expire_now("CAP1")  # type: ignore[attr-defined]
    store.create("CAP4", {})
    assert store.count() == 3


def test_presence_is_kept_apart_from_the_document(make_store: StoreMaker) -> None:
    store = make_store()
    store.create("SEEN", {"n": 0})
    store.touch("SEEN", 0, now=100.0)
    store.touch("SEEN", 2, now=200.0)
    store.touch("SEEN", 0, now=300.0)
    assert store.presence("SEEN") == {0: 300.0, 2: 200.0}
    assert store.version("SEEN") == 1


def test_open_store_reads_the_url(tmp_path: Path, redis_url: str,
                                  monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setenv("CANASTA_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("CANASTA_ROOMS_URL", raising=False)
    default = open_store()
    assert isinstance(default, SqliteRoomStore) and default.path == tmp_path / "rooms.sqlite3"
    file_store = open_store(f"sqlite:///{tmp_path}/other.sqlite3")
    assert isinstance(file_store, SqliteRoomStore)
    monkeypatch.setenv("CANASTA_ROOMS_URL", redis_url)
    monkeypatch.setenv("CANASTA_MAX_ROOMS", "7")
    shared = open_store()
    assert isinstance(shared, RedisRoomStore) and shared.max_rooms == 7
    with pytest.raises(StoreError):
        open_store("ftp://nowhere")
    with pytest.raises(StoreError):
        open_store("redis://127.0.0.1:1/0")  # nothing listens there
    for store in (default, file_store, shared):
        store.close()
