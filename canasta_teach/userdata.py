"""The per-user data folder, and saving small JSON documents there without ever leaving half
a file behind.

``data_dir()`` is ``$CANASTA_DATA_DIR`` when that is set, else the platform's user data folder
for "canasta-teach" (``~/.local/share/canasta-teach`` on Linux, via platformdirs).  It is
created on first use, private to the user (mode 0700).

``write_json_atomic`` writes a temporary file in the same folder, syncs it to disk and renames
it over the target (``os.replace``), so a crash, a full disk or a second process never sees a
half-written file.  ``read_json`` raises ``CorruptDataError`` for a file that is not JSON text,
so callers can tell "damaged" (keep the file, tell the learner) from "missing"
(``FileNotFoundError``: start afresh).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Final

import platformdirs

APP_NAME: Final = "canasta-teach"
#: Set this to keep the learner's data somewhere else (a test, a classroom share).
DATA_DIR_ENV: Final = "CANASTA_DATA_DIR"


class CorruptDataError(ValueError):
    """A data file that exists but does not hold JSON text (``path`` and the ``reason``)."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path} is damaged: {reason}")


def data_dir() -> Path:
    """The folder for this user's canasta-teach data, created (mode 0700) when missing.

    A folder that already exists keeps its permissions: it may be one the user chose."""
    configured = os.environ.get(DATA_DIR_ENV, "").strip()
    if configured:
        folder = Path(configured).expanduser()
    else:
        folder = platformdirs.user_data_path(APP_NAME, appauthor=False)
    try:
        folder.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        if not folder.is_dir():
            raise
    else:
        # mkdir's mode is masked by the umask; a new folder of ours is private whatever it is.
        os.chmod(folder, 0o700)
    return folder


def write_json_atomic(path: str | os.PathLike[str], obj: Any) -> None:
    """Write ``obj`` as UTF-8 JSON to ``path`` atomically (the old file stays whole on failure).

    The new file is private to the user (mode 0600).  ``TypeError``/``ValueError`` for an
    object JSON cannot hold (raised before anything is written), ``OSError`` for the disk."""
    target = Path(path)
    data = (json.dumps(obj, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    _fsync_folder(target.parent)


def read_json(path: str | os.PathLike[str]) -> Any:
    """The JSON document in ``path``: ``CorruptDataError`` when it is not UTF-8 JSON text,
    ``FileNotFoundError`` (an ``OSError``) when there is no file.  Never writes."""
    source = Path(path)
    data = source.read_bytes()
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise CorruptDataError(source, "not UTF-8 text") from exc
    except RecursionError as exc:  # thousands of nested brackets: not a file we wrote
        raise CorruptDataError(source, "nested too deeply") from exc
    except ValueError as exc:  # JSONDecodeError, and int() refusing a huge number
        raise CorruptDataError(source, f"not JSON ({exc})") from exc


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX); a no-op where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
