"""The per-user data folder and its JSON files: where the folder is, that it is private, that a
save is all-or-nothing even with readers and writers at work, and that damage is reported."""

from __future__ import annotations

import json
import multiprocessing
import os
import stat
from pathlib import Path
from typing import Any

import platformdirs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from canasta_teach.userdata import (
    APP_NAME,
    DATA_DIR_ENV,
    CorruptDataError,
    data_dir,
    read_json,
    write_json_atomic,
)

JSON_TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=20)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | JSON_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(JSON_TEXT, inner, max_size=4),
    max_leaves=20,
)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_data_folder_comes_from_the_environment_and_is_made_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wanted = tmp_path / "deep" / "er" / "data"
    monkeypatch.setenv(DATA_DIR_ENV, str(wanted))
    old_umask = os.umask(0o022)
    try:
        assert data_dir() == wanted
    finally:
        os.umask(old_umask)
    assert wanted.is_dir()
    assert mode_of(wanted) == 0o700
    assert data_dir() == wanted  # a second call finds it


def test_an_existing_data_folder_keeps_its_permissions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "classroom"
    shared.mkdir(mode=0o755)
    os.chmod(shared, 0o755)
    monkeypatch.setenv(DATA_DIR_ENV, str(shared))
    assert data_dir() == shared
    assert mode_of(shared) == 0o755


def test_without_the_setting_the_folder_is_the_platforms_user_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # where Linux keeps it
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    expected = platformdirs.user_data_path(APP_NAME, appauthor=False)
    assert expected.is_relative_to(tmp_path)
    assert data_dir() == expected
    assert expected.is_dir() and mode_of(expected) == 0o700


def test_a_file_where_the_folder_should_be_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "data").write_text("not a folder")
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "data"))
    with pytest.raises(FileExistsError):
        data_dir()


@given(value=JSON_VALUES)
def test_what_is_written_reads_back_the_same(
    tmp_path_factory: pytest.TempPathFactory, value: Any
) -> None:
    path = tmp_path_factory.mktemp("json") / "doc.json"
    write_json_atomic(path, value)
    assert read_json(path) == value
    assert mode_of(path) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["doc.json"]


def test_a_failed_save_leaves_the_old_file_whole_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "progress.json"
    write_json_atomic(path, {"lessons": ["L1", "L2"]})
    old = path.read_bytes()
    with pytest.raises(TypeError):
        write_json_atomic(path, {"lessons": {"L3"}})  # a set is not JSON
    with pytest.raises(ValueError):
        write_json_atomic(path, {"name": "\ud800"})  # not valid Unicode

    def full_disk(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space"):
        write_json_atomic(path, {"lessons": ["L1", "L2", "L3"]})
    assert path.read_bytes() == old
    assert [p.name for p in tmp_path.iterdir()] == ["progress.json"]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b'{"lessons": ["L1",', "not JSON"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b"1" * 5000, "not JSON"),  # longer than Python's int() accepts
        (b"", "not JSON"),
    ],
)
def test_a_damaged_file_raises_corrupt_data_and_is_left_alone(
    tmp_path: Path, data: bytes, reason: str
) -> None:
    path = tmp_path / "progress.json"
    path.write_bytes(data)
    with pytest.raises(CorruptDataError) as damaged:
        read_json(path)
    assert damaged.value.path == path
    assert damaged.value.reason.startswith(reason)
    assert isinstance(damaged.value, ValueError)
    assert path.read_bytes() == data


def test_a_missing_file_is_not_corrupt(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_json(tmp_path / "nothing.json")


def keep_saving(path: str, writer: int, saves: int) -> None:
    for n in range(saves):
        write_json_atomic(path, {"writer": writer, "n": n, "padding": "x" * 20_000})


def test_readers_never_see_half_a_file_while_others_save(tmp_path: Path) -> None:
    path = tmp_path / "progress.json"
    write_json_atomic(path, {"writer": -1, "n": 0, "padding": ""})
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    writers = [context.Process(target=keep_saving, args=(str(path), w, 150)) for w in range(2)]
    for process in writers:
        process.start()
    reads = 0
    while any(p.is_alive() for p in writers) and reads < 5000:
        document = read_json(path)  # a torn file would raise CorruptDataError
        assert set(document) == {"writer", "n", "padding"}
        reads += 1
    for process in writers:
        process.join(60)
    assert [p.exitcode for p in writers] == [0, 0]
    assert read_json(path)["n"] == 149
    assert reads > 0
    assert [p.name for p in tmp_path.iterdir()] == ["progress.json"]
    assert json.loads(path.read_text(encoding="utf-8"))["writer"] in (0, 1)
