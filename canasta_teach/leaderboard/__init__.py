"""The leaderboard of daily deals: who scored what on which UTC day, variant and level.

Stored through SQLAlchemy Core, so the same code runs on the default SQLite file
(``leaderboard.sqlite3`` in ``userdata.data_dir()``) and on a shared server database named by a
URL (``$CANASTA_DATABASE_URL`` or the ``url`` argument), e.g.
``postgresql+psycopg://canasta:secret@db.example/canasta`` (``docs/deploy.md``).

Every refusal raises ``LeaderboardError(code, **params)``; the UI shows it with the key
``leaderboard.error.<code>``.  Input is checked before the database is touched, so a refused
result writes nothing.  Codes: ``name_empty``, ``name_too_long``, ``name_control``,
``name_invisible``, ``name_marks`` (``names.normalise_name``), ``name_confusable`` (a name that
looks like one already on that board: ``names.name_key``), ``already_recorded`` (this browser
has a result on that board already), ``bad_variant``, ``bad_level``, ``bad_date``,
``bad_score``, ``unavailable`` (the database cannot be opened, reached, read or written:
missing server, damaged file, locked for too long) and ``newer_schema`` (the database was set
up by a newer canasta-teach).

Several processes may record at once (learners' kernels on one machine, or many machines on one
server) and lose nothing: each result is one transaction; SQLite runs in WAL mode with a busy
timeout, and a "database is locked" is retried for up to ``LOCK_PATIENCE_S`` seconds.
"""

from __future__ import annotations

import hashlib
import os
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any, Final, TypeVar

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import URL, Connection, Engine, make_url

from ..userdata import data_dir
from .errors import LeaderboardError
from .names import NAME_MAX_CHARS, name_key, normalise_name

__all__ = [
    "DATABASE_URL_ENV",
    "ERROR_CODES",
    "LEVELS",
    "NAME_MAX_CHARS",
    "SCHEMA_VERSION",
    "SQLITE_FILENAME",
    "VARIANTS",
    "Leaderboard",
    "LeaderboardError",
    "Result",
    "meta_table",
    "name_key",
    "normalise_name",
    "results_table",
    "today_utc",
]

DATABASE_URL_ENV: Final = "CANASTA_DATABASE_URL"
SQLITE_FILENAME: Final = "leaderboard.sqlite3"
#: 2: ``player_key`` and ``name_key`` with their unique indexes (one result a browser, one a
#: look of a name, per board); a version 1 database is brought up to 2 when opened.
SCHEMA_VERSION: Final = 2

VARIANTS: Final = ("classic4", "classic2", "handfoot")
LEVELS: Final = ("easy", "normal", "hard")
#: The first daily deal; nothing before it can be a real result.
FIRST_DAY: Final = date(2026, 1, 1)
#: Far outside any real game's total (a game ends at 5,000), far inside a 32-bit column.
SCORE_MIN: Final = -50_000
SCORE_MAX: Final = 100_000
TOP_LIMIT_MAX: Final = 1000
#: Every ``LeaderboardError.code``; the UI has a ``leaderboard.error.<code>`` text for each.
ERROR_CODES: Final = (
    "name_empty",
    "name_too_long",
    "name_control",
    "name_invisible",
    "name_marks",
    "name_confusable",
    "already_recorded",
    "bad_variant",
    "bad_level",
    "bad_date",
    "bad_score",
    "unavailable",
    "newer_schema",
)

#: SQLite's own wait for a lock, per statement.
BUSY_TIMEOUT_S: Final = 10.0
#: How long a record or a query keeps retrying a locked SQLite database in all.
LOCK_PATIENCE_S: Final = 30.0
#: How long to wait for a database server to answer a connection.
CONNECT_TIMEOUT_S: Final = 10

_metadata = sa.MetaData()

results_table: Final = sa.Table(
    "leaderboard_results",
    _metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    # Wider than NAME_MAX_CHARS so a later, longer limit needs no migration.
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("day", sa.Date, nullable=False),
    sa.Column("variant", sa.String(16), nullable=False),
    sa.Column("level", sa.String(16), nullable=False),
    sa.Column("score", sa.Integer, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    # SHA-256 of the browser's id: one result a browser per board (day, variant and level).
    # A hash, so the shared database never holds the id that opens the browser's saved game.
    # Empty (NULL, never equal to another) for results of schema 1 and for results recorded
    # without a browser (``Result.player`` None: tools, tests).
    sa.Column("player_key", sa.String(64), nullable=True),
    # ``names.name_key``: one result a look of a name per board (NULL for schema-1 results).
    sa.Column("name_key", sa.String(64), nullable=True),
    sa.Index("ix_leaderboard_results_board", "day", "variant", "level", "score"),
)

#: The store's own guards (not only ``record``'s checks): two kernels recording at once for one
#: browser, or for one name, cannot both succeed.  Created apart from the table so that a
#: version 1 table gets them too (``Leaderboard._migrate``).
UNIQUE_INDEXES: Final = (
    sa.Index(
        "uq_leaderboard_results_player",
        results_table.c.player_key,
        results_table.c.day,
        results_table.c.variant,
        results_table.c.level,
        unique=True,
    ),
    sa.Index(
        "uq_leaderboard_results_name",
        results_table.c.name_key,
        results_table.c.day,
        results_table.c.variant,
        results_table.c.level,
        unique=True,
    ),
)

meta_table: Final = sa.Table(
    "leaderboard_meta",
    _metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.String(256), nullable=False),
)

_T = TypeVar("_T")


@dataclass(frozen=True)
class Result:
    """One player's result on one daily deal.

    ``created_at`` and ``id`` are the store's: ``record`` sets them (any given are ignored),
    ``top`` fills them in.  ``player`` is the recording browser's id: one result a browser per
    board (day, variant, level); it is stored hashed and never read back (``top`` leaves it
    None)."""

    name: str
    day: date
    variant: str
    level: str
    score: int
    created_at: datetime | None = None
    id: int | None = None
    player: str | None = None


def today_utc() -> date:
    """The day of the daily deal now (UTC, as ``engine.game.daily_seed``)."""
    return datetime.now(timezone.utc).date()


def check_variant(variant: object) -> str:
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise LeaderboardError("bad_variant", variant=str(variant), allowed=", ".join(VARIANTS))
    return variant


def check_level(level: object) -> str:
    if not isinstance(level, str) or level not in LEVELS:
        raise LeaderboardError("bad_level", level=str(level), allowed=", ".join(LEVELS))
    return level


def check_day(day: object, *, latest: date | None = None) -> date:
    """A result's day: a ``date`` (not a ``datetime``) from ``FIRST_DAY`` to today (UTC)."""
    latest = latest or today_utc()
    facts = {"day": str(day), "earliest": FIRST_DAY.isoformat(), "latest": latest.isoformat()}
    if isinstance(day, datetime) or not isinstance(day, date):
        raise LeaderboardError("bad_date", **facts)
    if not FIRST_DAY <= day <= latest:
        raise LeaderboardError("bad_date", **facts)
    return day


def check_score(score: object) -> int:
    # bool is an int to Python, but True is no score.
    if isinstance(score, bool) or not isinstance(score, int) or not SCORE_MIN <= score <= SCORE_MAX:
        raise LeaderboardError("bad_score", score=str(score), min=SCORE_MIN, max=SCORE_MAX)
    return score


def database_url(url: str | URL | None = None) -> URL:
    """The database to use: ``url``, else ``$CANASTA_DATABASE_URL``, else the SQLite file in
    the user's data folder (created on demand)."""
    configured = url if url is not None else os.environ.get(DATABASE_URL_ENV, "").strip()
    if configured:
        try:
            return make_url(configured)
        except sa_exc.ArgumentError as exc:
            raise LeaderboardError("unavailable", database="(unreadable URL)") from exc
    try:
        folder = data_dir()
    except OSError as exc:
        raise LeaderboardError("unavailable", database=str(exc.filename or exc)) from exc
    return URL.create("sqlite", database=str(folder / SQLITE_FILENAME))


class Leaderboard:
    """The daily results, in the database ``database_url(url)`` names.

    Safe to share between threads; each process opens its own.  Use as a context manager, or
    call ``close()``."""

    def __init__(self, url: str | URL | None = None) -> None:
        self.url = database_url(url)
        #: The URL without its password, for messages and logs.
        self.display_url = self.url.render_as_string(hide_password=True)
        self._is_sqlite = self.url.get_backend_name() == "sqlite"
        self._schema_ready = False
        self._schema_lock = threading.Lock()
        try:
            self._engine = self._create_engine()
        except (ImportError, sa_exc.ArgumentError) as exc:  # no driver for this URL
            raise self._unavailable() from exc

    def _create_engine(self) -> Engine:
        if self._is_sqlite:
            engine = sa.create_engine(self.url, connect_args={"timeout": BUSY_TIMEOUT_S})
            sa.event.listen(engine, "connect", _sqlite_on_connect)
            return engine
        connect_args: dict[str, Any] = {}
        if self.url.get_backend_name() == "postgresql" and "connect_timeout" not in self.url.query:
            connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
        # pre_ping: a server restarted since the last result gives a fresh connection, not an
        # error.
        return sa.create_engine(self.url, connect_args=connect_args, pool_pre_ping=True)

    def __enter__(self) -> Leaderboard:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every pooled connection (the leaderboard opens new ones if used again)."""
        self._engine.dispose()

    def record(self, result: Result) -> int:
        """Store ``result`` (stamped with the time now, UTC) and return its id.

        The name is stored normalised (``normalise_name``).  Bad input raises
        ``LeaderboardError`` before anything is written; so do a second result of one browser
        (``already_recorded``) and a name that looks like one already on that board
        (``name_confusable``), which the store's unique indexes also refuse should two kernels
        record at the same moment."""
        name = normalise_name(result.name)
        day = check_day(result.day)
        row = {
            "name": name,
            "day": day,
            "variant": check_variant(result.variant),
            "level": check_level(result.level),
            "score": check_score(result.score),
            "created_at": datetime.now(timezone.utc),
            "player_key": _player_key(result.player),
            "name_key": name_key(name),
        }
        table = results_table
        board = (
            table.c.day == day,
            table.c.variant == row["variant"],
            table.c.level == row["level"],
        )

        def insert(conn: Connection) -> int:
            if (
                row["player_key"] is not None
                and conn.execute(
                    sa.select(table.c.id).where(table.c.player_key == row["player_key"], *board)
                ).first()
            ):
                raise LeaderboardError("already_recorded", day=day.isoformat())
            if conn.execute(
                sa.select(table.c.id).where(table.c.name_key == row["name_key"], *board)
            ).first():
                raise LeaderboardError("name_confusable", name=name)
            inserted = conn.execute(sa.insert(results_table).values(**row))
            key = inserted.inserted_primary_key
            assert key is not None  # an INSERT of one row always has one
            return int(key[0])

        return self._run(insert)

    def top(
        self, day: date, variant: str, level: str | None = None, limit: int = 10
    ) -> list[Result]:
        """The best ``limit`` results of ``day`` and ``variant`` (of one ``level``, or of all):
        highest score first; on equal scores, whoever recorded first."""
        if isinstance(day, datetime) or not isinstance(day, date):
            raise LeaderboardError("bad_date", day=str(day), earliest=FIRST_DAY.isoformat(),
                                   latest=today_utc().isoformat())  # fmt: skip
        check_variant(variant)
        if level is not None:
            check_level(level)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= TOP_LIMIT_MAX:
            raise ValueError(f"limit must be an int from 1 to {TOP_LIMIT_MAX}, not {limit!r}")
        table = results_table
        query = sa.select(table).where(table.c.day == day, table.c.variant == variant)
        if level is not None:
            query = query.where(table.c.level == level)
        query = query.order_by(table.c.score.desc(), table.c.created_at, table.c.id).limit(limit)

        def read(conn: Connection) -> list[Result]:
            return [_result_from_row(row) for row in conn.execute(query).mappings()]

        return self._run(read)

    # -- running statements --------------------------------------------------------------

    def _run(self, work: Callable[[Connection], _T]) -> _T:
        """``work`` in one transaction, retried while SQLite says the database is locked;
        any other database failure becomes ``LeaderboardError("unavailable")``."""
        deadline = time.monotonic() + LOCK_PATIENCE_S
        pause = 0.02
        while True:
            try:
                self._ensure_schema()
                with self._engine.begin() as conn:
                    return work(conn)
            except sa_exc.IntegrityError as exc:
                # A unique index refused a row another process wrote after our checks: the
                # next attempt's checks see that row and say which (a bounded wait, as locks).
                if time.monotonic() >= deadline:
                    raise self._unavailable() from exc
            except sa_exc.DBAPIError as exc:
                if not (self._is_locked(exc) and time.monotonic() < deadline):
                    raise self._unavailable() from exc
            except (sa_exc.SQLAlchemyError, OSError) as exc:
                raise self._unavailable() from exc
            # Jitter, so processes that collided do not collide again in step.
            time.sleep(pause * random.uniform(0.5, 1.5))
            pause = min(pause * 2, 0.5)

    def _ensure_schema(self) -> None:
        """Create the tables on first use and check the schema version (once per instance)."""
        if self._schema_ready:
            return
        with self._schema_lock:
            if self._schema_ready:
                return
            version = self._create_schema()
            try:
                stored = int(version)
            except ValueError:
                raise self._unavailable() from None
            if stored > SCHEMA_VERSION:
                raise LeaderboardError("newer_schema", version=stored, supported=SCHEMA_VERSION)
            if stored < SCHEMA_VERSION:
                self._migrate()
            self._schema_ready = True

    def _migrate(self, attempts: int = 10) -> None:
        """Version 1 -> 2: add ``player_key`` and ``name_key`` and their unique indexes.  The
        results already there keep both empty (their names were never compared), so the
        indexes are created whatever they hold.  Two processes migrating at once: the second
        fails on a column that is there by then, and looks again."""
        for attempt in range(attempts):
            try:
                with self._engine.begin() as conn:
                    columns = {c["name"] for c in sa.inspect(conn).get_columns(results_table.name)}
                    for column in (results_table.c.player_key, results_table.c.name_key):
                        if column.name not in columns:
                            kind = column.type.compile(dialect=conn.dialect)
                            conn.execute(
                                sa.text(
                                    f"ALTER TABLE {results_table.name} "
                                    f"ADD COLUMN {column.name} {kind}"
                                )
                            )
                    for index in UNIQUE_INDEXES:
                        index.create(conn, checkfirst=True)
                    conn.execute(
                        sa.update(meta_table)
                        .where(meta_table.c.key == "schema_version")
                        .values(value=str(SCHEMA_VERSION))
                    )
                return
            except (sa_exc.ProgrammingError, sa_exc.OperationalError) as exc:
                if self._is_locked(exc) or attempt == attempts - 1:
                    raise

    def _create_schema(self, attempts: int = 10) -> str:
        """``create_all`` plus the version row; returns the stored schema version.

        Two processes opening a new database at once both find no table and both create it:
        the second fails ("already exists", or a unique violation on PostgreSQL), and simply
        looks again, when the table is there."""
        for attempt in range(attempts):
            try:
                with self._engine.begin() as conn:
                    _metadata.create_all(conn)
                    version = conn.execute(
                        sa.select(meta_table.c.value).where(meta_table.c.key == "schema_version")
                    ).scalar_one_or_none()
                    if version is None:
                        version = str(SCHEMA_VERSION)
                        conn.execute(
                            sa.insert(meta_table).values(key="schema_version", value=version)
                        )
                    return version
            except (sa_exc.IntegrityError, sa_exc.ProgrammingError, sa_exc.OperationalError) as exc:
                if self._is_locked(exc) or attempt == attempts - 1:
                    raise  # _run waits for a lock; anything that persists is a real failure
        raise AssertionError("unreachable")

    def _is_locked(self, exc: sa_exc.DBAPIError) -> bool:
        """SQLite's "database is locked" / "busy": another writer, worth waiting for."""
        if not self._is_sqlite:
            return False
        name = str(getattr(exc.orig, "sqlite_errorname", ""))
        if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
            return True
        message = str(exc.orig).lower()
        return "locked" in message or "busy" in message

    def _unavailable(self) -> LeaderboardError:
        return LeaderboardError("unavailable", database=self.display_url)


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    """WAL (readers never block the writer, writers queue) and a busy timeout, on every new
    SQLite connection.  WAL is stored in the file, so only the first connection changes it."""
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        cursor.execute("PRAGMA journal_mode = WAL")
    finally:
        cursor.close()


def _player_key(player: str | None) -> str | None:
    if player is None:
        return None
    return hashlib.sha256(player.encode("utf-8")).hexdigest()


def _result_from_row(row: sa.RowMapping) -> Result:
    created = row["created_at"]
    # SQLite keeps no time zone: what it holds was written as UTC.
    created = (
        created.replace(tzinfo=timezone.utc)
        if created.tzinfo is None
        else created.astimezone(timezone.utc)
    )
    return Result(
        name=row["name"],
        day=row["day"],
        variant=row["variant"],
        level=row["level"],
        score=row["score"],
        created_at=created,
        id=row["id"],
    )
