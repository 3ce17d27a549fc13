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

from canasta_teach.i18n import get_translator
from canasta_teach.rooms import (
    RedisRoomStore,
    Rooms,
    RoomStore,
    SqliteRoomStore,
    StoreError,
    open_store,
)

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


# ------------------------------------------------------------------ thinking with no lock held


def test_write_if_writes_only_the_room_it_read_and_honours_a_claim(make_store: StoreMaker) -> None:
    store, other = make_store(), make_store()
    store.create("CAS", {"n": 0})
    assert store.write_if("CAS", 1, {"n": 1}) == 2
    # Written over a room that changed since it was read: refused, nothing written.
    assert other.write_if("CAS", 1, {"n": 99}) is None
    assert store.get("CAS") == (2, {"n": 1})
    assert store.write_if("NOSUCH", 1, {}) is None
    # A claim holds the room for its owner: the others' writes wait for it.
    assert store.claim("CAS", "mover", 5.0)
    assert not other.claim("CAS", "someone", 5.0)
    assert other.write_if("CAS", 2, {"n": 2}) is None
    assert store.write_if("CAS", 2, {"n": 2}, claim="mover") == 3
    store.release("CAS", "mover")
    assert other.write_if("CAS", 3, {"n": 3}) == 4
    # The claim of a writer that died lapses by itself.
    assert store.claim("CAS", "gone", 0.05)
    time.sleep(0.15)
    assert other.write_if("CAS", 4, {"n": 4}) == 5
    assert other.claim("CAS", "someone", 5.0)


def test_languages_and_write_counts_are_no_change_of_the_room(make_store: StoreMaker) -> None:
    store = make_store()
    store.create("LANG", {"n": 0})
    store.set_lang("LANG", "who-a", "ur")
    store.set_lang("LANG", "who-b", "te")
    store.set_lang("LANG", "who-a", "hi")
    assert store.langs("LANG") == {"who-a": "hi", "who-b": "te"}
    assert store.version("LANG") == 1
    now = 1000.0
    assert all(store.allow_write("LANG", "who-a", 3, 10.0, now + i) for i in range(3))
    assert not store.allow_write("LANG", "who-a", 3, 10.0, now + 3)
    assert store.allow_write("LANG", "who-b", 3, 10.0, now + 3)  # each seat its own count
    assert store.allow_write("LANG", "who-a", 3, 10.0, now + 10)  # a new window


class HeldThinking:
    """Computer players (the easy ones' moves) whose thinking a test can hold and watch: each
    turn's bot seed (the room's seed, the seat and the number of moves) is noted when it starts
    thinking, ``thinking`` is set, and the thinking waits for ``gate``; ``meanwhile`` runs
    inside every thinking (another writer acting while the computers think)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from canasta_teach import bots

        self.gate = threading.Event()
        self.gate.set()
        self.thinking = threading.Event()
        self.seeds: list[str] = []
        self.meanwhile: Callable[[], None] | None = None
        real_find_bot = bots.find_bot
        held = self

        class Held:
            def __init__(self, seed: str) -> None:
                self.seed = seed
                self.real = real_find_bot("easy", seed=seed)

            def step(self, state: Any) -> Any:
                held.seeds.append(self.seed)
                held.thinking.set()
                assert held.gate.wait(10), "the test never let the computer move"
                if held.meanwhile is not None:
                    held.meanwhile()
                return self.real.step(state)

        monkeypatch.setattr(bots, "find_bot", lambda level, seed=0: Held(str(seed)))


def _host_to_discard(rooms: Rooms, code: str, host: str) -> Any:
    """Play the host's draw if it is to draw; a legal discard for the host (to move)."""
    from canasta_teach.engine import Discard, Draw
    from canasta_teach.engine.state import Phase

    game = rooms.game(rooms.read(code).doc)
    assert game is not None and game.state.to_move == 0
    if game.state.phase is Phase.DRAW:
        assert rooms.submit(code, host, Draw()).legal
        game = rooms.game(rooms.read(code).doc)
        assert game is not None
    return next(m for m in game.state.legal_moves() if isinstance(m, Discard))


def _room_with_a_computer(rooms: Rooms) -> tuple[str, str]:
    """A started two-player room: the host and a computer player, the host to move."""
    code, host = rooms.create("en", players=2, level="hard")
    rooms.start(code, host)
    return code, host


def _room_of_two_people(rooms: Rooms) -> tuple[str, dict[int, str]]:
    code, host = rooms.create("en", players=2)
    _seat, friend = rooms.join(code, None, "te")
    assert friend is not None
    rooms.start(code, host)
    return code, {0: host, 1: friend}


def test_computers_think_with_no_lock_held_and_a_change_meanwhile_is_not_lost(
    make_store: StoreMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F20: while a computer thinks in one room, another room's heartbeat and moves complete
    at once (on SQLite the write lock is the whole server's), and a change made to the thinking
    room meanwhile is kept: the computers think again on the new room, never write over it."""
    from canasta_teach.engine import Draw

    held = HeldThinking(monkeypatch)
    rooms = Rooms(make_store())
    busy, host = _room_with_a_computer(rooms)
    other, people = _room_of_two_people(rooms)
    discard = _host_to_discard(rooms, busy, host)
    version = rooms.store.version(busy)
    held.gate.clear()
    held.thinking.clear()
    seeds_before = len(held.seeds)
    verdicts: list[Any] = []
    mover = threading.Thread(target=lambda: verdicts.append(
        Rooms(make_store()).submit(busy, host, discard)))  # fmt: skip
    mover.start()
    try:
        assert held.thinking.wait(10)
        elsewhere = Rooms(make_store())
        started = time.monotonic()
        elsewhere.heartbeat(other, 0)
        game = elsewhere.game(elsewhere.read(other).doc)
        assert game is not None
        assert elsewhere.submit(other, people[game.state.to_move], Draw()).legal
        assert time.monotonic() - started < 1.0
        # Someone else changes the thinking room meanwhile (it is not held either).
        changed = make_store().update(busy, lambda doc: (True, doc.update(marker="kept")))
        assert changed is not None and changed[0] == version + 1
    finally:
        held.gate.set()
        mover.join(30)
    assert verdicts and verdicts[0].legal
    got = rooms.store.get(busy)
    assert got is not None
    final_version, doc = got
    assert doc["marker"] == "kept"  # the computers' result was made again on the new room
    assert final_version == version + 2
    first_turn = held.seeds[seeds_before]
    assert held.seeds.count(first_turn) == 2  # thought twice: once on each room
    game = rooms.game(doc)
    assert game is not None and game.state.to_move == 0  # the computer has answered
    assert doc["game"]["moves"][len(doc["game"]["moves"]) - len(game.moves) :] == list(game.moves)


def test_language_switches_are_no_change_of_the_game_and_are_rate_limited(
    make_store: StoreMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F21: a guest switching language while the computers think neither changes the room's
    version nor makes the computers think again; past SEAT_LANG_WRITES switches a window it
    is refused (``too_fast``, a text in every language)."""
    from canasta_teach.rooms import RoomError
    from canasta_teach.rooms.room import SEAT_LANG_WRITES

    held = HeldThinking(monkeypatch)
    rooms = Rooms(make_store())
    code, host = rooms.create("en", players=4, level="hard")
    _seat, guest = rooms.join(code, None, "en")
    assert guest is not None
    rooms.start(code, host)
    discard = _host_to_discard(rooms, code, host)
    version = rooms.store.version(code)
    held.gate.clear()
    held.thinking.clear()
    seeds_before = len(held.seeds)
    verdicts: list[Any] = []
    mover = threading.Thread(target=lambda: verdicts.append(
        Rooms(make_store()).submit(code, host, discard)))  # fmt: skip
    mover.start()
    guest_rooms = Rooms(make_store())
    refused: list[str] = []
    try:
        assert held.thinking.wait(10)
        for n in range(SEAT_LANG_WRITES + 5):
            try:
                guest_rooms.set_language(code, guest, "hi" if n % 2 else "te")
            except RoomError as error:
                refused.append(error.code)
            guest_rooms.join(code, guest, "ur")  # a page's reload: seated, language not kept
    finally:
        held.gate.set()
        mover.join(30)
    assert verdicts and verdicts[0].legal
    # The switches within the window were kept (and shown to the others), the rest refused.
    assert refused and set(refused) == {"too_fast"}
    assert len(refused) >= 5
    snapshot = rooms.read(code)
    guest_seat = next(i for i, s in enumerate(snapshot.doc["seats"]) if s.get("token") and i)
    assert snapshot.lang(guest_seat) in ("hi", "te", "ur")
    # One write (the discard and the computers' turns), each turn thought once.
    assert snapshot.version == version + 1
    thought = held.seeds[seeds_before:]
    assert len(thought) == len(set(thought))
    for lang in ("en", "ur", "hi", "te"):
        text = get_translator(lang).ui("room.error.too_fast")
        assert text and text != "room.error.too_fast"


def test_a_move_completes_while_another_writer_keeps_changing_the_room(
    make_store: StoreMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F21: another writer changing the room during every thinking cannot keep a move from
    completing: after OPTIMISTIC_TRIES lost races the mover claims the room, the other's
    writes wait, and the move (with its computers' turns) goes through; then the room is
    free again."""
    from canasta_teach.rooms import Rooms
    from canasta_teach.rooms.room import OPTIMISTIC_TRIES

    held = HeldThinking(monkeypatch)
    rooms = Rooms(make_store())
    code, host = _room_with_a_computer(rooms)
    discard = _host_to_discard(rooms, code, host)
    hostile = make_store()
    outcomes: list[bool] = []

    def spoil() -> None:
        got = hostile.get(code)
        assert got is not None
        version, doc = got
        doc["spoiled"] = doc.get("spoiled", 0) + 1
        outcomes.append(hostile.write_if(code, version, doc) is not None)

    held.meanwhile = spoil
    started = time.monotonic()
    assert rooms.submit(code, host, discard).legal
    assert time.monotonic() - started < 10
    held.meanwhile = None
    assert outcomes[:OPTIMISTIC_TRIES] == [True] * OPTIMISTIC_TRIES
    assert False in outcomes  # refused while the mover held the room
    doc = rooms.read(code).doc
    assert doc["spoiled"] == outcomes.count(True)  # every accepted write kept
    game = rooms.game(doc)
    assert game is not None and game.state.to_move == 0
    spoil()
    assert outcomes[-1]  # the claim was given back
