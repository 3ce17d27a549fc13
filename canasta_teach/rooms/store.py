"""Where rooms live: outside the kernels, behind one small interface (``RoomStore``).

Each visitor of the web app has a kernel of their own, so a table shared by several browsers
cannot live in any one of them.  A room is one JSON document with a version number; the store
can create it, read it, change it atomically (``update``: read, change, write, under the room's
lock, so two players acting at once cannot corrupt it), write it only if nobody changed it since
it was read (``write_if``: a compare-and-set on the version, so slow work such as the computer
players' thinking happens outside any lock), let one writer claim a room for a moment
(``claim``: the others' ``write_if`` then waits its turn, so a move that keeps losing the race
finally wins), tell a waiting reader that it changed, keep who is connected
(``touch``/``presence``) and each seat's language (``set_lang``/``langs``: not a change of the
game, so no new version), count a seat's writes (``allow_write``), forget expired rooms and cap
how many it holds.

Two implementations, chosen by a URL (``$CANASTA_ROOMS_URL``, see :func:`open_store`):

- ``SqliteRoomStore`` (the default, no set-up): a file database in the data folder, WAL mode,
  ``BEGIN IMMEDIATE`` for each change; readers notice a change by short polling of the room's
  version (one indexed row, a few microseconds).
- ``RedisRoomStore`` (``redis://host:port/db``), for several servers (JupyterHub): a change is a
  ``WATCH``/``MULTI`` transaction that also publishes on the room's channel; readers wait on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, TypeVar

ROOMS_URL_ENV: Final = "CANASTA_ROOMS_URL"
MAX_ROOMS_ENV: Final = "CANASTA_MAX_ROOMS"
SQLITE_FILENAME: Final = "rooms.sqlite3"
#: A room nobody has changed for this long is gone (its link then says so).
ROOM_TTL_S: Final = 6 * 3600.0
#: The most rooms one server holds at once (a setting: ``$CANASTA_MAX_ROOMS``).
DEFAULT_MAX_ROOMS: Final = 500
#: A room a page is connected to lives at least this long after the page last said "still
#: here" (``touch``); a room whose document asks for less (``ttl_s``: nobody but its host ever
#: came, F18) closes this long after that.
KEEP_ALIVE_S: Final = 10 * 60.0
#: How often a waiting reader looks at an SQLite room's version.
POLL_S: Final = 0.03

log = logging.getLogger(__name__)
#: SQLite's result codes for a file that is not (or no longer) a database.
_SQLITE_DAMAGE: Final = (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB
#: Where a room whose document cannot be read is kept (for the operator) under its code.
DAMAGED_PREFIX: Final = "damaged/"

T = TypeVar("T")
#: ``update``'s change function: given the document, return ``(changed, result)``; a
#: document left unchanged is not written.
Change = Callable[[dict[str, Any]], tuple[bool, T]]


class StoreError(Exception):
    """The store cannot be reached, read or written (``unavailable``), was found damaged and
    set aside for a fresh one (``reset``), or refuses (``too_many_rooms``, ``own_rooms``: one
    of the room's owners already holds as many as they may, ``exists``)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class RoomStore:
    """The interface (SQLite and Redis implement it the same way; one test suite runs both).

    A room lives ``ttl_s`` after its last change, or the document's own ``ttl_s`` when it has
    a shorter one, and at least ``KEEP_ALIVE_S`` after a page connected to it last said "still
    here" (``touch``)."""

    ttl_s: float = ROOM_TTL_S
    max_rooms: int = DEFAULT_MAX_ROOMS

    def create(self, code: str, doc: dict[str, Any], owners: Mapping[str, int] | None = None,
               ) -> None:  # fmt: skip
        """Store a new room; ``StoreError("exists")`` if the code is taken,
        ``StoreError("too_many_rooms")`` when the server holds ``max_rooms`` live rooms,
        ``StoreError("own_rooms")`` when one of ``owners`` (an opaque key: its limit) already
        has that many live rooms."""
        raise NotImplementedError

    def take_reset(self) -> bool:
        """Whether this store was found damaged and started afresh when it was opened, and
        nobody was told yet (then it is told: False next time)."""
        return False

    def lifetime(self, doc: dict[str, Any]) -> float:
        """How long the room lives after this change."""
        own = doc.get("ttl_s")
        return self.ttl_s if not isinstance(own, (int, float)) else min(self.ttl_s, float(own))

    def get(self, code: str) -> tuple[int, dict[str, Any]] | None:
        """The room's version and document, None when there is no such live room."""
        raise NotImplementedError

    def version(self, code: str) -> int | None:
        raise NotImplementedError

    def update(self, code: str, change: Change[T]) -> tuple[int, T] | None:
        """Apply ``change`` atomically; the new version and the change's result (None: no
        such live room).  A change that raises writes nothing."""
        raise NotImplementedError

    async def wait(self, code: str, since: int, timeout: float) -> int | None:
        """Wait until the room's version differs from ``since`` (or ``timeout`` passes);
        the version then (None: the room is gone)."""
        deadline = time.monotonic() + timeout
        while True:
            version = self.version(code)
            if version != since or time.monotonic() >= deadline:
                return version
            await asyncio.sleep(POLL_S)

    def wait_sync(self, code: str, since: int, timeout: float) -> int | None:
        """``wait`` for callers without an event loop (benchmarks, tests)."""
        deadline = time.monotonic() + timeout
        while True:
            version = self.version(code)
            if version != since or time.monotonic() >= deadline:
                return version
            time.sleep(POLL_S)

    def write_if(self, code: str, version: int, doc: dict[str, Any], *,
                 claim: str | None = None) -> int | None:  # fmt: skip
        """Write ``doc`` as the room's next version if the room is still at ``version`` and
        nobody but ``claim`` holds a claim on it; the new version, or None (changed meanwhile,
        claimed by another writer, or gone: read it again)."""
        raise NotImplementedError

    def claim(self, code: str, owner: str, ttl_s: float) -> bool:
        """Hold the room for ``owner`` for at most ``ttl_s`` (other writers' ``write_if`` is
        refused meanwhile); False when another owner holds it."""
        raise NotImplementedError

    def release(self, code: str, owner: str) -> None:
        """Give up ``owner``'s claim (if it still holds it)."""
        raise NotImplementedError

    def set_lang(self, code: str, who: str, lang: str) -> None:
        """The language of the person ``who`` (their token's hash), kept apart from the
        document: a change of language is not a change of the game (no new version)."""
        raise NotImplementedError

    def langs(self, code: str) -> dict[str, str]:
        """Each person's language as ``set_lang`` kept it, by ``who``."""
        raise NotImplementedError

    def allow_write(self, code: str, who: str, limit: int, window_s: float,
                    now: float | None = None) -> bool:  # fmt: skip
        """Count one write by ``who`` in this room; False once they made ``limit`` in the
        current ``window_s``-second window (the write is then refused)."""
        raise NotImplementedError

    def touch(self, code: str, seat: int, now: float | None = None) -> None:
        """A seat's browser is connected now (kept apart from the document: no new version)."""
        raise NotImplementedError

    def presence(self, code: str) -> dict[int, float]:
        """When each seat was last seen."""
        raise NotImplementedError

    def purge(self, now: float | None = None) -> int:
        """Forget expired rooms; how many."""
        raise NotImplementedError

    def count(self) -> int:
        """Live rooms."""
        raise NotImplementedError

    def close(self) -> None:
        pass


# ---------------------------------------------------------------------- SQLite

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY,
    doc TEXT NOT NULL,
    version INTEGER NOT NULL,
    expires REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS presence (
    code TEXT NOT NULL,
    seat INTEGER NOT NULL,
    seen REAL NOT NULL,
    PRIMARY KEY (code, seat)
);
CREATE TABLE IF NOT EXISTS claims (
    code TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    until REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS langs (
    code TEXT NOT NULL,
    who TEXT NOT NULL,
    lang TEXT NOT NULL,
    PRIMARY KEY (code, who)
);
CREATE TABLE IF NOT EXISTS writes (
    code TEXT NOT NULL,
    who TEXT NOT NULL,
    since REAL NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (code, who)
);
CREATE TABLE IF NOT EXISTS owners (
    owner TEXT NOT NULL,
    code TEXT NOT NULL,
    PRIMARY KEY (owner, code)
);
"""


class SqliteRoomStore(RoomStore):
    """Rooms in one SQLite file (WAL: readers never wait for a writer)."""

    def __init__(self, path: str | os.PathLike[str], *, ttl_s: float = ROOM_TTL_S,
                 max_rooms: int = DEFAULT_MAX_ROOMS) -> None:  # fmt: skip
        self.path = Path(path)
        self.ttl_s = ttl_s
        self.max_rooms = max_rooms
        #: The damaged file this store set aside and replaced by a fresh one (F26), if any.
        self.set_aside: Path | None = None
        self._reset_untold = False
        self._local = threading.local()
        self._aside_lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._open_schema()
        except StoreError as error:
            if error.code != "reset":
                raise
            self._open_schema()  # the damaged file is aside: a fresh one
            self._reset_untold = True
        except OSError as error:
            raise StoreError("unavailable") from error

    def take_reset(self) -> bool:
        untold, self._reset_untold = self._reset_untold, False
        return untold

    def _open_schema(self) -> None:
        try:
            self._connect().executescript(_SCHEMA)
        except sqlite3.Error as error:
            raise self._failed(error) from error

    def _connect(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None and self._file_id() != getattr(self._local, "file_id", None):
            # Another kernel set a damaged file aside and started a fresh one: use that.
            self.close()
            conn = None
        if conn is None:
            # isolation_level=None: we open our own transactions (BEGIN IMMEDIATE).
            conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None,
                                   check_same_thread=False)  # fmt: skip
            self._local.conn = conn
            self._local.file_id = self._file_id()
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _file_id(self) -> tuple[int, int] | None:
        try:
            found = os.stat(self.path)
        except OSError:
            return None
        return found.st_dev, found.st_ino

    def _failed(self, error: sqlite3.Error) -> StoreError:
        """The ``StoreError`` for an SQLite failure: ``reset`` after a damaged file (not a
        database, corrupt, a folder in its place) was set aside, else ``unavailable``."""
        code = getattr(error, "sqlite_errorcode", 0) & 0xFF
        if code not in _SQLITE_DAMAGE and not self.path.is_dir():
            return StoreError("unavailable")
        self._set_aside(error)
        return StoreError("reset")

    def _set_aside(self, error: sqlite3.Error) -> None:
        """Move the damaged file (and its WAL files) out of the way, as damaged saves are
        (never deleted: the operator may want it), and start a fresh store in its place."""
        damaged_id = getattr(self._local, "file_id", None)
        self.close()
        with self._aside_lock:
            current = self._file_id()
            # Another kernel (or thread) may have set it aside already: then only reconnect.
            if current is not None and (damaged_id is None or current == damaged_id):
                stamp = time.strftime("%Y%m%d-%H%M%S")
                aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}-{os.getpid()}")
                try:
                    os.replace(self.path, aside)
                except OSError:
                    log.exception("the damaged rooms file %s could not be set aside", self.path)
                    return
                for suffix in ("-wal", "-shm"):
                    with contextlib.suppress(OSError):
                        os.replace(f"{self.path}{suffix}", f"{aside}{suffix}")
                self.set_aside = aside
                log.error("the rooms file %s was damaged (%s): set aside as %s, and a fresh "
                          "one started (its rooms are gone)", self.path, error, aside)  # fmt: skip
        with contextlib.suppress(sqlite3.Error):
            self._connect().executescript(_SCHEMA)

    def _unreadable(self, conn: sqlite3.Connection, code: str, error: ValueError) -> None:
        """A room whose document is not JSON: kept aside under another code, the room gone."""
        log.error("room %s: its document cannot be read (%s); kept as %s%s",
                  code, error, DAMAGED_PREFIX, code)  # fmt: skip
        conn.execute("UPDATE OR REPLACE rooms SET code = ? WHERE code = ?",
                     (DAMAGED_PREFIX + code, code))  # fmt: skip

    @contextlib.contextmanager
    def _transaction(self) -> Any:
        try:
            conn = self._connect()
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise self._failed(error) from error
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")

    def create(self, code: str, doc: dict[str, Any], owners: Mapping[str, int] | None = None,
               ) -> None:  # fmt: skip
        now = time.time()
        owners = owners or {}
        try:
            with self._transaction() as conn:
                conn.execute("DELETE FROM rooms WHERE expires < ?", (now,))
                conn.execute("DELETE FROM owners WHERE code NOT IN (SELECT code FROM rooms)")
                live = conn.execute("SELECT COUNT(*) FROM rooms").fetchone()[0]
                if live >= self.max_rooms:
                    raise StoreError("too_many_rooms")
                for owner, limit in owners.items():
                    held = conn.execute("SELECT COUNT(*) FROM owners WHERE owner = ?",
                                        (owner,)).fetchone()[0]  # fmt: skip
                    if held >= limit:
                        raise StoreError("own_rooms")
                if conn.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone():
                    raise StoreError("exists")
                conn.execute("INSERT INTO rooms VALUES (?, ?, 1, ?)",
                             (code, json.dumps(doc), now + self.lifetime(doc)))  # fmt: skip
                conn.executemany("INSERT OR IGNORE INTO owners VALUES (?, ?)",
                                 [(owner, code) for owner in owners])  # fmt: skip
        except sqlite3.Error as error:
            raise self._failed(error) from error

    def get(self, code: str) -> tuple[int, dict[str, Any]] | None:
        try:
            row = self._connect().execute(
                "SELECT version, doc FROM rooms WHERE code = ? AND expires >= ?",
                (code, time.time()),
            ).fetchone()  # fmt: skip
            if row is None:
                return None
            try:
                return int(row[0]), json.loads(row[1])
            except ValueError as error:
                self._unreadable(self._connect(), code, error)
                return None
        except sqlite3.Error as error:
            raise self._failed(error) from error

    def version(self, code: str) -> int | None:
        try:
            row = (
                self._connect()
                .execute(
                    "SELECT version FROM rooms WHERE code = ? AND expires >= ?", (code, time.time())
                )
                .fetchone()
            )
        except sqlite3.Error as error:
            raise self._failed(error) from error
        return None if row is None else int(row[0])

    def update(self, code: str, change: Change[T]) -> tuple[int, T] | None:
        now = time.time()
        try:
            with self._transaction() as conn:
                row = conn.execute(
                    "SELECT version, doc FROM rooms WHERE code = ? AND expires >= ?", (code, now)
                ).fetchone()
                if row is None:
                    return None
                try:
                    version, doc = int(row[0]), json.loads(row[1])
                except ValueError as error:
                    self._unreadable(conn, code, error)
                    return None
                changed, result = change(doc)
                if changed:
                    version += 1
                    conn.execute(
                        "UPDATE rooms SET doc = ?, version = ?, expires = ? WHERE code = ?",
                        (json.dumps(doc), version, now + self.lifetime(doc), code),
                    )
                return version, result
        except sqlite3.Error as error:
            raise self._failed(error) from error

    def write_if(self, code: str, version: int, doc: dict[str, Any], *,
                 claim: str | None = None) -> int | None:  # fmt: skip
        now = time.time()
        try:
            # One statement: the version check, the claim check and the write are atomic, and
            # the file's write lock is held only for this (never while anyone thinks).
            written = (
                self._connect()
                .execute(
                    "UPDATE rooms SET doc = ?, version = version + 1, expires = ?"
                    " WHERE code = ? AND version = ? AND expires >= ? AND NOT EXISTS"
                    " (SELECT 1 FROM claims WHERE claims.code = rooms.code AND claims.owner <> ?"
                    " AND claims.until >= ?)",
                    (
                        json.dumps(doc),
                        now + self.lifetime(doc),
                        code,
                        version,
                        now,
                        claim or "",
                        now,
                    ),
                )
                .rowcount
            )
        except sqlite3.Error as error:
            raise StoreError("unavailable") from error
        return version + 1 if written == 1 else None

    def claim(self, code: str, owner: str, ttl_s: float) -> bool:
        now = time.time()
        try:
            taken = (
                self._connect()
                .execute(
                    "INSERT INTO claims VALUES (?, ?, ?) ON CONFLICT (code) DO UPDATE SET"
                    " owner = excluded.owner, until = excluded.until"
                    " WHERE claims.until < ? OR claims.owner = excluded.owner",
                    (code, owner, now + ttl_s, now),
                )
                .rowcount
            )
        except sqlite3.Error as error:
            raise StoreError("unavailable") from error
        return taken == 1

    def release(self, code: str, owner: str) -> None:
        try:
            self._connect().execute(
                "DELETE FROM claims WHERE code = ? AND owner = ?", (code, owner)
            )
        except sqlite3.Error as error:
            raise StoreError("unavailable") from error

    def set_lang(self, code: str, who: str, lang: str) -> None:
        try:
            self._connect().execute(
                "INSERT OR REPLACE INTO langs VALUES (?, ?, ?)", (code, who, lang)
            )
        except sqlite3.Error as error:
            raise StoreError("unavailable") from error

    def langs(self, code: str) -> dict[str, str]:
        try:
            rows = (
                self._connect()
                .execute("SELECT who, lang FROM langs WHERE code = ?", (code,))
                .fetchall()
            )
        except sqlite3.Error as error:
            raise StoreError("unavailable") from error
        return {str(who): str(lang) for who, lang in rows}

    def allow_write(self, code: str, who: str, limit: int, window_s: float,
                    now: float | None = None) -> bool:  # fmt: skip
        now = time.time() if now is None else now
        window = now // window_s * window_s
        try:
            # One statement: a new window starts the count again, else the count goes up.
            row = (
                self._connect()
                .execute(
                    "INSERT INTO writes VALUES (?, ?, ?, 1) ON CONFLICT (code, who) DO UPDATE SET"
                    " n = CASE WHEN writes.since = excluded.since THEN writes.n + 1 ELSE 1 END,"
                    " since = excluded.since RETURNING n",
                    (code, who, window),
                )
                .fetchone()
            )
        except sqlite3.Error as error:
            raise StoreError("unavailable") from error
        return row is not None and int(row[0]) <= limit

    def touch(self, code: str, seat: int, now: float | None = None) -> None:
        seen = time.time() if now is None else now
        try:
            conn = self._connect()
            conn.execute("INSERT OR REPLACE INTO presence VALUES (?, ?, ?)", (code, seat, seen))
            conn.execute("UPDATE rooms SET expires = MAX(expires, ?) WHERE code = ?",
                         (seen + min(KEEP_ALIVE_S, self.ttl_s), code))  # fmt: skip
        except sqlite3.Error as error:
            raise self._failed(error) from error

    def presence(self, code: str) -> dict[int, float]:
        try:
            rows = (
                self._connect()
                .execute("SELECT seat, seen FROM presence WHERE code = ?", (code,))
                .fetchall()
            )
        except sqlite3.Error as error:
            raise self._failed(error) from error
        return {int(seat): float(seen) for seat, seen in rows}

    def purge(self, now: float | None = None) -> int:
        now = time.time() if now is None else now
        try:
            with self._transaction() as conn:
                gone = conn.execute("DELETE FROM rooms WHERE expires < ?", (now,)).rowcount
                for table in ("presence", "claims", "langs", "writes", "owners"):
                    conn.execute(f"DELETE FROM {table} WHERE code NOT IN (SELECT code FROM rooms)")  # noqa: S608 - our own table names
        except sqlite3.Error as error:
            raise self._failed(error) from error
        return int(gone)

    def count(self) -> int:
        row = (
            self._connect()
            .execute("SELECT COUNT(*) FROM rooms WHERE expires >= ?", (time.time(),))
            .fetchone()
        )
        return int(row[0])

    def expire_now(self, code: str) -> None:
        """Make a room expire at once (tests: "an expired room")."""
        self._connect().execute("UPDATE rooms SET expires = 0 WHERE code = ?", (code,))

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                conn.close()
            self._local.conn = None


# ---------------------------------------------------------------------- Redis


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisRoomStore(RoomStore):
    """Rooms on a Redis server: ``canasta:room:<code>`` (the document and its version, a hash
    with the room's time to live), ``canasta:rooms`` (a sorted set of live codes by expiry, for
    the cap), ``canasta:seen:<code>`` (presence) and the channel ``canasta:changed:<code>``."""

    PREFIX = "canasta:"

    def __init__(self, url: str, *, ttl_s: float = ROOM_TTL_S,
                 max_rooms: int = DEFAULT_MAX_ROOMS) -> None:  # fmt: skip
        try:
            import redis
        except ImportError as error:  # pragma: no cover - installed with the app
            raise StoreError("unavailable") from error
        self.url = url
        self.ttl_s = ttl_s
        self.max_rooms = max_rooms
        self._redis = redis
        self.client = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5)
        self._async: Any = None
        try:
            self.client.ping()
        except redis.RedisError as error:
            raise StoreError("unavailable") from error

    def _key(self, code: str) -> str:
        return f"{self.PREFIX}room:{code}"

    def _ttl_ms(self) -> int:
        return max(1, int(self.ttl_s * 1000))

    def _owner_key(self, owner: str) -> str:
        return f"{self.PREFIX}owner:{owner}"

    def create(self, code: str, doc: dict[str, Any], owners: Mapping[str, int] | None = None,
               ) -> None:  # fmt: skip
        now = time.time()
        rooms = f"{self.PREFIX}rooms"
        key = self._key(code)
        owners = owners or {}
        owner_keys = [self._owner_key(owner) for owner in owners]
        life = self.lifetime(doc)
        try:
            with self.client.pipeline() as pipe:
                while True:
                    try:
                        pipe.watch(rooms, key, *owner_keys)  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
                        pipe.zremrangebyscore(rooms, "-inf", now)
                        if pipe.zcard(rooms) >= self.max_rooms:
                            raise StoreError("too_many_rooms")
                        gone: dict[str, list[str]] = {}
                        for owner_key, limit in zip(owner_keys, owners.values(), strict=True):
                            held = [_text(c) for c in pipe.smembers(owner_key)]
                            # An owner's set is tidied here: its rooms expire on their own.
                            alive = [c for c in held if pipe.exists(self._key(c))]
                            gone[owner_key] = [c for c in held if c not in alive]
                            if len(alive) >= limit:
                                raise StoreError("own_rooms")
                        if pipe.exists(key):
                            raise StoreError("exists")
                        pipe.multi()
                        pipe.hset(key, mapping={"doc": json.dumps(doc), "version": 1})
                        pipe.pexpire(key, max(1, int(life * 1000)))
                        pipe.zadd(rooms, {code: now + life})
                        for owner_key, stale in gone.items():
                            if stale:
                                pipe.srem(owner_key, *stale)
                            pipe.sadd(owner_key, code)
                            pipe.pexpire(owner_key, self._ttl_ms())
                        pipe.execute()
                        return
                    except self._redis.WatchError:
                        continue
        except self._redis.RedisError as error:
            raise StoreError("unavailable") from error

    def get(self, code: str) -> tuple[int, dict[str, Any]] | None:
        try:
            doc, version = self.client.hmget(self._key(code), "doc", "version")
            if doc is None or version is None:
                return None
            try:
                return int(version), json.loads(doc)
            except ValueError as error:
                self._unreadable(code, error)
                return None
        except self._redis.RedisError as error:
            raise StoreError("unavailable") from error

    def _unreadable(self, code: str, error: ValueError) -> None:
        """A room whose document is not JSON: kept aside under another key, the room gone."""
        log.error("room %s: its document cannot be read (%s); kept as %s%s",
                  code, error, DAMAGED_PREFIX, code)  # fmt: skip
        with contextlib.suppress(self._redis.ResponseError):  # already moved by another kernel
            self.client.rename(self._key(code), self._key(DAMAGED_PREFIX + code))
        self.client.zrem(f"{self.PREFIX}rooms", code)

    def version(self, code: str) -> int | None:
        try:
            version = self.client.hget(self._key(code), "version")
        except self._redis.RedisError as error:
            raise StoreError("unavailable") from error
        return None if version is None else int(version)

    def update(self, code: str, change: Change[T]) -> tuple[int, T] | None:
        key = self._key(code)
        try:
            with self.client.pipeline() as pipe:
                while True:
                    try:
                        pipe.watch(key)  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
                        doc_text, version_text = pipe.hmget(key, "doc", "version")
                        if doc_text is None or version_text is None:
                            pipe.unwatch()
                            return None
                        try:
                            version, doc = int(version_text), json.loads(doc_text)
                        except ValueError as error:
                            pipe.unwatch()
                            self._unreadable(code, error)
                            return None
                        changed, result = change(doc)
                        if not changed:
                            pipe.unwatch()
                            return version, result
                        version += 1
                        pipe.multi()
                        life = self.lifetime(doc)
                        pipe.hset(key, mapping={"doc": json.dumps(doc), "version": version})
                        pipe.pexpire(key, max(1, int(life * 1000)))
                        pipe.zadd(f"{self.PREFIX}rooms", {code: time.time() + life})
                        pipe.publish(f"{self.PREFIX}changed:{code}", str(version))
                        pipe.execute()
                        return version, result
                    except self._redis.WatchError:
                        continue  # someone else changed the room first: read it again
        except self._redis.RedisError as error:
            raise StoreError("unavailable") from error

    async def wait(self, code: str, since: int, timeout: float) -> int | None:
        """Wait on the room's channel (a published change wakes us at once)."""
        import redis.asyncio as aioredis

        if self._async is None:
            self._async = aioredis.Redis.from_url(self.url)
        channel = f"{self.PREFIX}changed:{code}"
        try:
            async with self._async.pubsub() as pubsub:
                await pubsub.subscribe(channel)
                # Subscribed first, then read: a change in between is not missed.
                version = self.version(code)
                if version != since:
                    return version
                deadline = time.monotonic() + timeout
                while (left := deadline - time.monotonic()) > 0:
                    message = await pubsub.get_message(ignore_subscribe_messages=True,
                                                       timeout=min(left, 1.0))  # fmt: skip
                    if message is not None:
                        break
                return self.version(code)
        except self._redis.RedisError as error:
            raise StoreError("unavailable") from error

    def wait_sync(self, code: str, since: int, timeout: float) -> int | None:
        channel = f"{self.PREFIX}changed:{code}"
        try:
            # redis-py leaves ``pubsub`` unannotated.
            pubsub = self.client.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call]
            try:
                pubsub.subscribe(channel)
                version = self.version(code)
                if version != since:
                    return version
                deadline = time.monotonic() + timeout
                while (left := deadline - time.monotonic()) > 0:
                    if pubsub.get_message(timeout=min(left, 1.0)) is not None:
                        break
                return self.version(code)
            finally:
                pubsub.close()
        except self._redis.RedisError as error:
            raise StoreError("unavailable") from error

    def _claim_key(self, code: str) -> str:
        return f"{self.PREFIX}claim:{code}"

    def write_if(self, code: str, version: int, doc: dict[str, Any], *,
                 claim: str | None = None) -> int | None:  # fmt: skip
        key, claim_key = self._key(code), self._claim_key(code)
        try:
            with self.client.pipeline() as pipe:
                pipe.watch(key, claim_key)  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
                now_version = pipe.hget(key, "version")
                holder = pipe.get(claim_key)
                if (
                    now_version is None
                    or int(now_version) != version
                    or (holder is not None and _text(holder) != (claim or ""))
                ):
                    pipe.unwatch()
                    return None
                pipe.multi()
                life = self.lifetime(doc)
                pipe.hset(key, mapping={"doc": json.dumps(doc), "version": version + 1})
                pipe.pexpire(key, max(1, int(life * 1000)))
                pipe.zadd(f"{self.PREFIX}rooms", {code: time.time() + life})
                pipe.publish(f"{self.PREFIX}changed:{code}", str(version + 1))
                pipe.execute()
                return version + 1
        except self._redis.WatchError:
            return None  # changed (or claimed) between our reading and our writing
        except self._redis.RedisError as error:
            raise StoreError("unavailable") from error

    def claim(self, code: str, owner: str, ttl_s: float) -> bool:
        claim_key = self._claim_key(code)
        ttl_ms = max(1, int(ttl_s * 1000))
        try:
            if self.client.set(claim_key, owner, nx=True, px=ttl_ms):
                return True
            with self.client.pipeline() as pipe:
                pipe.watch(claim_key)  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
                holder = pipe.get(claim_key)
                if holder is not None and _text(holder) != owner:
                    pipe.unwatch()
                    return False
                pipe.multi()
                pipe.set(claim_key, owner, px=ttl_ms)
                pipe.execute()
                return True
        except self._redis.WatchError:
            return False
        except self._redis.RedisError as error:
            raise StoreError("unavailable") from error

    def release(self, code: str, owner: str) -> None:
        claim_key = self._claim_key(code)
        try:
            with self.client.pipeline() as pipe:
                pipe.watch(claim_key)  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
                holder = pipe.get(claim_key)
                if holder is None or _text(holder) != owner:
                    pipe.unwatch()
                    return
                pipe.multi()
                pipe.delete(claim_key)
                pipe.execute()
        except self._redis.WatchError:
            return  # it expired and another writer claimed the room: theirs now
        except self._redis.RedisError as error:
            raise StoreError("unavailable") from error

    def set_lang(self, code: str, who: str, lang: str) -> None:
        key = f"{self.PREFIX}langs:{code}"
        try:
            with self.client.pipeline(transaction=False) as pipe:
                pipe.hset(key, who, lang)
                pipe.pexpire(key, self._ttl_ms())
                pipe.execute()
        except self._redis.RedisError as error:
            raise StoreError("unavailable") from error

    def langs(self, code: str) -> dict[str, str]:
        try:
            kept = self.client.hgetall(f"{self.PREFIX}langs:{code}")
        except self._redis.RedisError as error:
            raise StoreError("unavailable") from error
        return {_text(who): _text(lang) for who, lang in kept.items()}

    def allow_write(self, code: str, who: str, limit: int, window_s: float,
                    now: float | None = None) -> bool:  # fmt: skip
        now = time.time() if now is None else now
        window = int(now // window_s)
        key = f"{self.PREFIX}writes:{code}:{who}:{window}"
        try:
            with self.client.pipeline() as pipe:
                pipe.incr(key)
                pipe.pexpire(key, max(1, int(window_s * 2000)))
                made, _ = pipe.execute()
        except self._redis.RedisError as error:
            raise StoreError("unavailable") from error
        return int(made) <= limit

    def touch(self, code: str, seat: int, now: float | None = None) -> None:
        key = f"{self.PREFIX}seen:{code}"
        seen = time.time() if now is None else now
        keep = min(KEEP_ALIVE_S, self.ttl_s)
        try:
            with self.client.pipeline(transaction=False) as pipe:
                pipe.hset(key, str(seat), seen)
                pipe.pexpire(key, self._ttl_ms())
                # The room lives at least KEEP_ALIVE_S past this "still here" (never less:
                # GT; and a room that is gone stays gone: XX).
                pipe.pexpire(self._key(code), max(1, int((seen - time.time() + keep) * 1000)),
                             gt=True)  # fmt: skip
                pipe.zadd(f"{self.PREFIX}rooms", {code: seen + keep}, xx=True, gt=True)
                pipe.execute()
        except self._redis.RedisError as error:
            raise StoreError("unavailable") from error

    def presence(self, code: str) -> dict[int, float]:
        try:
            seen = self.client.hgetall(f"{self.PREFIX}seen:{code}")
        except self._redis.RedisError as error:
            raise StoreError("unavailable") from error
        return {int(seat): float(value) for seat, value in seen.items()}

    def purge(self, now: float | None = None) -> int:
        # Redis forgets an expired room by itself; only the cap's index needs tidying.
        now = time.time() if now is None else now
        try:
            return int(self.client.zremrangebyscore(f"{self.PREFIX}rooms", "-inf", now))
        except self._redis.RedisError as error:
            raise StoreError("unavailable") from error

    def count(self) -> int:
        return int(self.client.zcount(f"{self.PREFIX}rooms", time.time(), "+inf"))

    def expire_now(self, code: str) -> None:
        self.client.delete(self._key(code))
        self.client.zadd(f"{self.PREFIX}rooms", {code: 0})

    def close(self) -> None:
        self.client.close()


# ---------------------------------------------------------------------- choosing one


def open_store(url: str | None = None) -> RoomStore:
    """The store named by ``url`` or ``$CANASTA_ROOMS_URL``: ``redis://...`` or
    ``sqlite:///path/to/rooms.sqlite3``; by default ``rooms.sqlite3`` in the data folder.
    ``$CANASTA_MAX_ROOMS`` caps the rooms it holds."""
    url = url or os.environ.get(ROOMS_URL_ENV, "").strip() or None
    try:
        max_rooms = int(os.environ.get(MAX_ROOMS_ENV, "") or DEFAULT_MAX_ROOMS)
    except ValueError:
        max_rooms = DEFAULT_MAX_ROOMS
    if url is None:
        from canasta_teach.userdata import data_dir

        return SqliteRoomStore(data_dir() / SQLITE_FILENAME, max_rooms=max_rooms)
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisRoomStore(url, max_rooms=max_rooms)
    if url.startswith("sqlite:///"):
        return SqliteRoomStore(url[len("sqlite:///") :], max_rooms=max_rooms)
    raise StoreError("unavailable")


_shared: dict[str, RoomStore] = {}


def shared_store() -> RoomStore:
    """One store per kernel (opened on first use)."""
    key = os.environ.get(ROOMS_URL_ENV, "") + "|" + os.environ.get("CANASTA_DATA_DIR", "")
    store = _shared.get(key)
    if store is None:
        store = _shared[key] = open_store()
    return store
