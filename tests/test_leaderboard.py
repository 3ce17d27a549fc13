"""The leaderboard store: round trips and ordering, refusals that write nothing, many processes
writing at once, and a damaged database that is reported, not deleted -- on SQLite and on a real
PostgreSQL server that this file starts itself (``postgres_server`` below)."""

from __future__ import annotations

import contextlib
import glob
import itertools
import multiprocessing
import os
import pwd
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import threading
import unicodedata
from collections.abc import Iterator
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st

from canasta_teach import leaderboard
from canasta_teach.i18n import LANGUAGES, get_translator
from canasta_teach.leaderboard import (
    DATABASE_URL_ENV,
    ERROR_CODES,
    LEVELS,
    NAME_MAX_CHARS,
    SCHEMA_VERSION,
    SQLITE_FILENAME,
    Leaderboard,
    LeaderboardError,
    Result,
    meta_table,
    name_key,
    normalise_name,
    results_table,
    today_utc,
)
from canasta_teach.userdata import DATA_DIR_ENV

DAY = date(2026, 3, 14)
PG_USER = "canasta"

# -- a throwaway PostgreSQL server -------------------------------------------------------------


def _postgres_bin_dir() -> Path | None:
    """Where initdb and pg_ctl are: PATH, /usr/local/bin, or Debian's newest
    /usr/lib/postgresql/<version>/bin."""
    found = shutil.which("pg_ctl")
    candidates = [Path(found).parent] if found else []
    candidates.append(Path("/usr/local/bin"))
    debian = glob.glob("/usr/lib/postgresql/*/bin")
    debian.sort(
        key=lambda folder: (
            int(Path(folder).parent.name) if Path(folder).parent.name.isdigit() else 0
        )
    )
    candidates.extend(Path(folder) for folder in reversed(debian))
    for folder in candidates:
        if (folder / "pg_ctl").is_file() and (folder / "initdb").is_file():
            return folder
    return None


def _server_user() -> dict[str, Any]:
    """subprocess arguments that run PostgreSQL as an unprivileged user: it refuses root."""
    if os.geteuid() != 0:
        return {}
    for name in ("nobody", "canasta-pg"):
        with contextlib.suppress(KeyError):
            entry = pwd.getpwnam(name)
            return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
    subprocess.run(["useradd", "--system", "--no-create-home", "canasta-pg"], check=True)
    entry = pwd.getpwnam("canasta-pg")
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[str]:
    """A PostgreSQL server of our own on 127.0.0.1 (trust auth, a socket folder in /tmp);
    yields its base URL, ``postgresql+psycopg://canasta@127.0.0.1:PORT``. Stopped and removed
    afterwards."""
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install '.[test]')")
    bin_dir = _postgres_bin_dir()
    if bin_dir is None:
        pytest.skip(
            "PostgreSQL (initdb, pg_ctl) not found on PATH, in /usr/local/bin or "
            "/usr/lib/postgresql/*/bin: `make postgres` installs it as root"
        )
    as_user = _server_user()
    # Directly in /tmp (not pytest's root-only tmp folder), so the unprivileged user reaches it.
    root = Path(tempfile.mkdtemp(prefix="canasta-pg-"))
    if as_user:
        os.chown(root, as_user["user"], as_user["group"])
    data, log = root / "data", root / "server.log"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}
    run: dict[str, Any] = {"env": env, "cwd": root, "capture_output": True, "text": True}
    run.update(as_user)
    port = _free_port()
    try:
        made = subprocess.run(
            [bin_dir / "initdb", "-D", data, "-U", PG_USER, "--auth=trust", "-E", "UTF8",
             "--no-locale", "--no-sync"],
            **run,
        )  # fmt: skip
        if made.returncode != 0:
            pytest.fail(f"initdb failed: {made.stderr}")
        options = f"-c listen_addresses=127.0.0.1 -p {port} -k {root} -c fsync=off"
        started = subprocess.run(
            [bin_dir / "pg_ctl", "-D", data, "-l", log, "-o", options, "-w", "-t", "60", "start"],
            **run,
        )
        if started.returncode != 0:
            log_text = log.read_text(errors="replace") if log.exists() else ""
            pytest.fail(f"PostgreSQL did not start: {started.stderr}\n{log_text}")
        yield f"postgresql+psycopg://{PG_USER}@127.0.0.1:{port}"
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run([bin_dir / "pg_ctl", "-D", data, "-m", "fast", "-w", "stop"], **run)
        shutil.rmtree(root, ignore_errors=True)


_database_numbers = itertools.count(1)


def new_database(postgres_server: str) -> str:
    """The URL of a new, empty database on the test server."""
    name = f"leaderboard_{os.getpid()}_{next(_database_numbers)}"
    admin = sa.create_engine(f"{postgres_server}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    admin.dispose()
    return f"{postgres_server}/{name}"


@pytest.fixture
def pg_url(postgres_server: str) -> str:
    """A new, empty database on the test server."""
    return new_database(postgres_server)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / SQLITE_FILENAME}"


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest) -> str:
    """Each database kind the leaderboard supports."""
    fixture = "sqlite_url" if request.param == "sqlite" else "pg_url"
    return str(request.getfixturevalue(fixture))


def row_count(url: str) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            if not sa.inspect(conn).has_table(results_table.name):
                return 0
            return int(
                conn.execute(sa.select(sa.func.count()).select_from(results_table)).scalar_one()
            )
    finally:
        engine.dispose()


def result(name: str = "Ayesha", score: int = 1200, **changes: Any) -> Result:
    return replace(Result(name, DAY, "classic4", "normal", score), **changes)


# -- round trips and ordering ------------------------------------------------------------------


def test_a_recorded_result_comes_back_with_its_id_and_time(url: str) -> None:
    before = datetime.now(timezone.utc)
    with Leaderboard(url) as board:
        row_id = board.record(result("  Ayesha\u0301 ", 1234))  # decomposed: NFC joins it
        (back,) = board.top(DAY, "classic4")
    after = datetime.now(timezone.utc)
    assert isinstance(row_id, int)
    assert back.id == row_id
    assert back.name == unicodedata.normalize("NFC", "Ayesha\u0301") == "Ayeshá"
    assert (back.day, back.variant, back.level, back.score) == (DAY, "classic4", "normal", 1234)
    assert back.created_at is not None and back.created_at.tzinfo is not None
    assert before - timedelta(seconds=1) <= back.created_at <= after + timedelta(seconds=1)


@pytest.mark.parametrize(
    "name",
    [
        "عائشہ خان",
        "अनन्या",
        "వెంకటేశ్వర్లు",
        "ہم\u200cنام",  # a zero-width non-joiner, as Urdu writes it
        "क्\u200dष",  # a zero-width joiner
        "Zoë-Ann O'Neil",
        "李小龍",
        "🂡 Ace",
    ],
)
def test_names_in_any_script_round_trip(url: str, name: str) -> None:
    with Leaderboard(url) as board:
        board.record(result(name))
        assert [r.name for r in board.top(DAY, "classic4")] == [unicodedata.normalize("NFC", name)]


def test_top_orders_by_score_then_by_who_recorded_first(url: str) -> None:
    with Leaderboard(url) as board:
        ids = {}
        for name, score, level in [
            ("a", 300, "easy"),
            ("b", 900, "hard"),
            ("c", 300, "normal"),
            ("d", -50, "easy"),
            ("e", 900, "easy"),
        ]:
            ids[name] = board.record(result(name, score, level=level))
        # Other days and variants stay off this board.
        board.record(result("x", 5000, day=DAY - timedelta(days=1)))
        board.record(result("y", 5000, variant="classic2"))
        assert [r.name for r in board.top(DAY, "classic4")] == ["b", "e", "a", "c", "d"]
        assert [r.name for r in board.top(DAY, "classic4", limit=2)] == ["b", "e"]
        assert [r.name for r in board.top(DAY, "classic4", level="easy")] == ["e", "a", "d"]
        assert [r.name for r in board.top(DAY, "classic2")] == ["y"]
        assert board.top(DAY + timedelta(days=1), "classic4") == []
        assert [r.id for r in board.top(DAY, "classic4")] == [ids[n] for n in "beacd"]


def test_the_url_comes_from_the_environment_and_defaults_to_the_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "data"))
    monkeypatch.delenv(DATABASE_URL_ENV, raising=False)
    with Leaderboard() as board:
        assert board.url.database == str(tmp_path / "data" / SQLITE_FILENAME)
        board.record(result())
    assert (tmp_path / "data" / SQLITE_FILENAME).is_file()
    elsewhere = tmp_path / "shared.sqlite3"
    monkeypatch.setenv(DATABASE_URL_ENV, f"sqlite:///{elsewhere}")
    with Leaderboard() as board:
        board.record(result())
    assert row_count(f"sqlite:///{elsewhere}") == 1
    # An explicit URL wins over the environment.
    with Leaderboard(f"sqlite:///{tmp_path / 'explicit.sqlite3'}") as board:
        assert board.url.database == str(tmp_path / "explicit.sqlite3")


def test_the_schema_version_is_stored_and_a_newer_one_refused(sqlite_url: str) -> None:
    with Leaderboard(sqlite_url) as board:
        board.record(result())
    engine = sa.create_engine(sqlite_url)
    with engine.begin() as conn:
        stored = conn.execute(sa.select(meta_table.c.value)).scalar_one()
        assert stored == str(SCHEMA_VERSION)
        conn.execute(sa.update(meta_table).values(value=str(SCHEMA_VERSION + 1)))
    engine.dispose()
    with Leaderboard(sqlite_url) as board, pytest.raises(LeaderboardError) as refused:
        board.top(DAY, "classic4")
    assert refused.value.code == "newer_schema"
    assert refused.value.params == {"version": SCHEMA_VERSION + 1, "supported": SCHEMA_VERSION}


# -- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"name": ""}, "name_empty"),
        ({"name": " \t\u3000 "}, "name_empty"),
        ({"name": "\u200d\u200c"}, "name_empty"),  # joiners alone show nothing
        ({"name": "x" * (NAME_MAX_CHARS + 1)}, "name_too_long"),
        ({"name": "ख" * NAME_MAX_CHARS + "ि"}, "name_too_long"),
        ({"name": "Ali\nKhan"}, "name_control"),
        ({"name": "Ali\x00"}, "name_control"),
        ({"name": "evil\u202eniaga"}, "name_control"),  # a right-to-left override
        ({"name": "a\u2028b"}, "name_control"),
        ({"name": "\ud800x"}, "name_control"),
        ({"variant": "classic6"}, "bad_variant"),
        ({"variant": "Classic4"}, "bad_variant"),
        ({"level": "expert"}, "bad_level"),
        ({"level": None}, "bad_level"),
        ({"day": date(2025, 12, 31)}, "bad_date"),
        ({"day": today_utc() + timedelta(days=2)}, "bad_date"),
        ({"day": datetime(2026, 3, 14, 12, 0)}, "bad_date"),
        ({"day": "2026-03-14"}, "bad_date"),
        ({"score": 100_001}, "bad_score"),
        ({"score": -50_001}, "bad_score"),
        ({"score": 12.5}, "bad_score"),
        ({"score": True}, "bad_score"),
        ({"score": "900"}, "bad_score"),
    ],
)
def test_bad_results_are_refused_with_their_code_and_write_nothing(
    sqlite_url: str, changes: dict[str, Any], code: str
) -> None:
    with Leaderboard(sqlite_url) as board:
        board.record(result("kept"))
        with pytest.raises(LeaderboardError) as refused:
            board.record(result(**changes))
    assert refused.value.code == code
    assert refused.value.key == f"leaderboard.error.{code}"
    assert row_count(sqlite_url) == 1


def test_a_refused_first_result_does_not_even_create_the_database(tmp_path: Path) -> None:
    path = tmp_path / SQLITE_FILENAME
    with Leaderboard(f"sqlite:///{path}") as board, pytest.raises(LeaderboardError):
        board.record(result(score=10**9))
    assert not path.exists()


def test_edge_values_are_accepted(sqlite_url: str) -> None:
    with Leaderboard(sqlite_url) as board:
        for name, score, day in [
            ("x" * NAME_MAX_CHARS, 100_000, date(2026, 1, 1)),
            ("y", -50_000, today_utc()),
        ]:
            board.record(result(name, score, day=day))
        assert [r.score for r in board.top(today_utc(), "classic4")] == [-50_000]
        assert [r.name for r in board.top(date(2026, 1, 1), "classic4")] == ["x" * NAME_MAX_CHARS]


@given(st.text(max_size=40))
def test_a_name_is_stored_normalised_or_refused_with_a_name_code(name: str) -> None:
    try:
        stored = normalise_name(name)
    except LeaderboardError as refused:
        assert refused.code in {
            "name_empty",
            "name_too_long",
            "name_control",
            "name_invisible",
            "name_marks",
        }
        return
    assert stored == unicodedata.normalize("NFC", name).strip()
    assert 1 <= len(stored) <= NAME_MAX_CHARS
    assert normalise_name(stored) == stored
    assert all(unicodedata.category(c) not in {"Cc", "Cs", "Zl", "Zp"} for c in stored)


def test_top_checks_its_arguments(sqlite_url: str) -> None:
    with Leaderboard(sqlite_url) as board:
        for call, code in [
            (lambda: board.top(DAY, "canasta"), "bad_variant"),
            (lambda: board.top(DAY, "classic4", level="master"), "bad_level"),
            (lambda: board.top("today", "classic4"), "bad_date"),
        ]:
            with pytest.raises(LeaderboardError) as refused:
                call()
            assert refused.value.code == code
        with pytest.raises(ValueError):
            board.top(DAY, "classic4", limit=0)


# -- an unreachable or damaged database -----------------------------------------------------


def test_a_damaged_sqlite_file_is_unavailable_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / SQLITE_FILENAME
    damaged = b"this is not a database, but it was someone's file\n" * 200
    path.write_bytes(damaged)
    with Leaderboard(f"sqlite:///{path}") as board:
        for call in (lambda: board.record(result()), lambda: board.top(DAY, "classic4")):
            with pytest.raises(LeaderboardError) as refused:
                call()
            assert refused.value.code == "unavailable"
            assert refused.value.params["database"].endswith(SQLITE_FILENAME)
    assert path.read_bytes() == damaged


def test_a_sqlite_file_with_damaged_pages_is_unavailable(sqlite_url: str) -> None:
    with Leaderboard(sqlite_url) as board:
        for n in range(200):
            board.record(result(f"p{n}", n))
    path = Path(sa.make_url(sqlite_url).database or "")
    data = bytearray(path.read_bytes())
    data[4096:] = b"\xff" * (len(data) - 4096)  # every page after the first
    path.write_bytes(bytes(data))
    with Leaderboard(sqlite_url) as board, pytest.raises(LeaderboardError) as refused:
        board.top(DAY, "classic4")
    assert refused.value.code == "unavailable"
    assert path.read_bytes() == bytes(data)


def test_a_locked_database_is_waited_for_and_then_given_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SQLite's own wait made short, so the leaderboard's retries do the waiting.
    monkeypatch.setattr(leaderboard, "BUSY_TIMEOUT_S", 0.05)
    monkeypatch.setattr(leaderboard, "LOCK_PATIENCE_S", 5.0)
    path = tmp_path / SQLITE_FILENAME
    with Leaderboard(f"sqlite:///{path}") as board:
        board.record(result("first"))
        locker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        locker.execute("BEGIN EXCLUSIVE")  # another writer, holding the lock for 0.5 s
        release = threading.Timer(0.5, locker.execute, args=("COMMIT",))
        release.start()
        board.record(result("waited"))
        release.join()
        assert row_count(f"sqlite:///{path}") == 2
        monkeypatch.setattr(leaderboard, "LOCK_PATIENCE_S", 0.3)
        locker.execute("BEGIN EXCLUSIVE")  # and now one that never lets go
        with pytest.raises(LeaderboardError) as refused:
            board.record(result("gave up"))
        assert refused.value.code == "unavailable"
        locker.execute("ROLLBACK")
        locker.close()
        assert [r.name for r in board.top(DAY, "classic4")] == ["first", "waited"]


@pytest.mark.parametrize(
    "bad_url",
    [
        "postgresql+psycopg://nobody:secret@127.0.0.1:{port}/leaderboard",  # nothing listens
        "sqlite:////nonexistent-folder/for/sure/leaderboard.sqlite3",
        "not a url at all",
        "postgresql+nosuchdriver://127.0.0.1/x",
    ],
)
def test_an_unreachable_database_is_unavailable_and_hides_passwords(bad_url: str) -> None:
    pytest.importorskip("psycopg")
    with pytest.raises(LeaderboardError) as refused:  # either step may refuse
        board = Leaderboard(bad_url.format(port=_free_port()))
        board.top(DAY, "classic4")
    assert refused.value.code == "unavailable"
    assert "secret" not in str(refused.value) and "secret" not in repr(refused.value.params)


# -- many writers at once --------------------------------------------------------------------


WRITERS = 6
RESULTS_EACH = 50


def record_many(url: str, writer: int, start: Any) -> None:
    """One writer process: waits for the others, then records RESULTS_EACH results."""
    board = Leaderboard(url)
    start.wait(60)
    for n in range(RESULTS_EACH):
        board.record(result(f"w{writer}-{n}", writer * 1000 + n, level=LEVELS[n % 3]))
    board.close()


def test_many_processes_recording_at_once_lose_nothing(url: str) -> None:
    # Every writer opens its own connections, as separate kernels would (fork only saves the
    # imports; spawn where there is no fork).  All start together on a database that does not
    # exist yet, so they also race to create the tables.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    start = context.Event()
    writers = [context.Process(target=record_many, args=(url, w, start)) for w in range(WRITERS)]
    for process in writers:
        process.start()
    start.set()
    for process in writers:
        process.join(120)
    assert [p.exitcode for p in writers] == [0] * WRITERS
    with Leaderboard(url) as board:
        everyone = board.top(DAY, "classic4", limit=WRITERS * RESULTS_EACH + 10)
    names = sorted(r.name for r in everyone)
    assert names == sorted(f"w{w}-{n}" for w in range(WRITERS) for n in range(RESULTS_EACH))
    assert len({r.id for r in everyone}) == WRITERS * RESULTS_EACH
    assert [r.score for r in everyone] == sorted((r.score for r in everyone), reverse=True)


# -- the messages ----------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_error_code_has_a_message_in_every_language(lang: str) -> None:
    translator = get_translator(lang)
    facts = {
        "char": "U+0007",
        "length": 30,
        "max": 24,
        "variant": "x",
        "level": "x",
        "allowed": "a, b",
        "day": "2025-01-01",
        "earliest": "2026-01-01",
        "latest": "2026-12-01",
        "score": "1e9",
        "min": -50_000,
        "database": "sqlite://",
        "version": 2,
        "supported": 1,
        "name": "Ali",
    }
    for code in ERROR_CODES:
        assert translator.has("ui", f"leaderboard.error.{code}"), (lang, code)
        text = translator.ui(f"leaderboard.error.{code}", **facts)
        assert text.strip() and "{" not in text, (lang, code, text)


# -- one result a browser, one look of a name, per board (issue 21: F24, F29) -------------------


def test_one_result_a_browser_per_board_and_the_store_itself_enforces_it(url: str) -> None:
    with Leaderboard(url) as board:
        board.record(result("Ayesha", 900, player="browser-1"))
        with pytest.raises(LeaderboardError) as refused:
            board.record(result("Someone else", 5000, player="browser-1"))
        assert refused.value.code == "already_recorded"
        assert refused.value.params == {"day": DAY.isoformat()}
        # Another board (level, variant, day) or another browser is another result.
        board.record(result("Ayesha", 800, player="browser-1", level="hard"))
        board.record(result("Ayesha", 800, player="browser-1", variant="classic2"))
        board.record(result("Ayesha", 800, player="browser-1", day=DAY - timedelta(days=1)))
        board.record(result("Bilal", 700, player="browser-2"))
        assert [r.name for r in board.top(DAY, "classic4", "normal")] == ["Ayesha", "Bilal"]
        # The browser's id is never read back, and stored only hashed.
        assert {r.player for r in board.top(DAY, "classic4", limit=100)} == {None}
    assert row_count(url) == 5
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            keys = conn.execute(sa.select(results_table.c.player_key)).scalars().all()
        assert "browser-1" not in keys and all(k is None or len(k) == 64 for k in keys)
        # Two kernels that both passed record()'s check at the same moment: the unique index
        # refuses the second row, whatever wrote it.
        row = {
            "name": "Zed", "day": DAY, "variant": "classic4", "level": "normal", "score": 1,
            "created_at": datetime.now(timezone.utc), "name_key": name_key("Zed"),
            "player_key": keys[0],
        }  # fmt: skip
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
            conn.execute(sa.insert(results_table).values(**row))
        row.update(player_key=None, name="ayesha", name_key=name_key("ayesha"))
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
            conn.execute(sa.insert(results_table).values(**row))
    finally:
        engine.dispose()
    assert row_count(url) == 5


@pytest.mark.parametrize(
    "look_alike",
    [
        "Ali",
        "ali",  # case
        "\u0410li",  # a Cyrillic capital A
        "A1i",  # a digit one for the l
        "AIi",  # a capital I for the l
        "\U0001d400li",  # a mathematical bold A
        "\uff21li",  # a fullwidth A
        "Al\u0456",  # a Cyrillic i
        "  Ali ",
    ],
)
def test_a_name_that_looks_like_one_on_the_board_is_refused(url: str, look_alike: str) -> None:
    with Leaderboard(url) as board:
        board.record(result("Ali", 900, player="first"))
        with pytest.raises(LeaderboardError) as refused:
            board.record(result(look_alike, 5000, player="second"))
        assert refused.value.code == "name_confusable"
        # Only on that board: the same name is welcome on another level or day.
        board.record(result(look_alike, 100, player="second", level="easy"))
        board.record(result("Aly", 100, player="second"))
    assert row_count(url) == 3


def test_skeletons_follow_unicodes_confusables_and_keep_other_scripts_apart() -> None:
    assert name_key("Ali") == name_key("\u0410\u217c\u0456")  # Cyrillic A, Roman numeral l
    assert name_key("rn") == name_key("m")  # UTS #39's own example
    assert name_key("B0b") == name_key("Bob")
    # Names in Urdu, Hindi and Telugu are told apart from each other and kept whole.
    names = ["عائشہ", "عائشہ خان", "अनन्या", "अनन्य", "వెంకట", "వెంకటేశ్", "Ali"]
    assert len({name_key(n) for n in names}) == len(names)


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("\u3164", "name_empty"),  # Hangul filler: a letter to unicodedata, drawn as nothing
        ("\u115f\u115f", "name_empty"),
        ("\u2800\u2800\u2800", "name_empty"),  # braille blank
        ("\uffa0 \u3164", "name_empty"),
        ("\u200d", "name_empty"),
        ("\u2800\u200d\u2800", "name_empty"),
        ("A\u200dli", "name_invisible"),  # a joiner where no script shapes with it
        ("Al\u200ci", "name_invisible"),
        ("Ali\u3164", "name_invisible"),  # a filler after a name
        ("Al\u034fi", "name_invisible"),  # combining grapheme joiner
        ("A" + "\ufe0f" * 20, "name_invisible"),  # variation selectors on a letter
        ("\u2764\ufe0f\ufe0f", "name_invisible"),  # one picks an emoji's look; two do nothing
        ("Z" + "\u0336\u0337\u0338\u0334" * 5, "name_marks"),  # stacked marks
    ],
)
def test_names_that_look_empty_or_hide_characters_are_refused(name: str, code: str) -> None:
    with pytest.raises(LeaderboardError) as refused:
        normalise_name(name)
    assert refused.value.code == code


@pytest.mark.parametrize(
    "name",
    [
        "ہم\u200cنام",  # Urdu's zero-width non-joiner
        "क्\u200dष",  # Devanagari's joiner
        "శ్రీ\u200cనివాస్",  # Telugu
        "\u2764\ufe0f Ali",  # an emoji with its variation selector
        "\U0001f468\u200d\U0001f469\u200d\U0001f467",  # an emoji family (joiners)
        "Nguyễn",  # two marks on one letter
        "ضُّحىٰ",  # Arabic vowel marks and a shadda
    ],
)
def test_names_that_need_joiners_or_marks_are_accepted(name: str) -> None:
    assert normalise_name(name) == unicodedata.normalize("NFC", name)


def test_a_schema_1_database_is_brought_up_to_2(url: str) -> None:
    # A database set up by the version before: no keys, the same name twice on one board.
    old = sa.MetaData()
    old_results = sa.Table(
        results_table.name,
        old,
        *(sa.Column(c.name, c.type, primary_key=c.primary_key, nullable=c.nullable)
          for c in results_table.columns if c.name not in ("player_key", "name_key")),
    )  # fmt: skip
    sa.Table(meta_table.name, old, *(sa.Column(c.name, c.type, primary_key=c.primary_key)
                                     for c in meta_table.columns))  # fmt: skip
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            old.create_all(conn)
            conn.execute(sa.insert(old.tables[meta_table.name]).values(key="schema_version",
                                                                       value="1"))  # fmt: skip
            for name in ("Ali", "A\u200dli"):
                conn.execute(sa.insert(old_results).values(
                    name=name, day=DAY, variant="classic4", level="normal", score=10,
                    created_at=datetime.now(timezone.utc)))  # fmt: skip
        with Leaderboard(url) as board:
            board.record(result("Bilal", 20, player="b"))
            with pytest.raises(LeaderboardError) as refused:
                board.record(result("Bilal2", 30, player="b"))
            assert refused.value.code == "already_recorded"
            assert [r.name for r in board.top(DAY, "classic4")] == ["Bilal", "Ali", "A\u200dli"]
        with engine.connect() as conn:
            stored = conn.execute(sa.select(meta_table.c.value)).scalar_one()
            indexes = {i["name"] for i in sa.inspect(conn).get_indexes(results_table.name)}
        assert stored == str(SCHEMA_VERSION) == "2"
        assert {"uq_leaderboard_results_player", "uq_leaderboard_results_name"} <= indexes
    finally:
        engine.dispose()
