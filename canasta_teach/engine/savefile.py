"""Saved games: a versioned JSON record (rules, seed, moves) that replays to the same game.

``save_game`` writes to a temporary file in the same folder and renames it over the target
(``os.replace``), so a crash or a full disk never leaves half a file where a good one was.
``load_game`` checks everything before trusting it, replays the moves through the engine
(which refuses any illegal one), and never writes to the file.  Every problem raises
``SaveFileError`` with a ``code`` and the facts (``params``), so it can be shown in any
language.

The format (``docs/cli.md``)::

    {"format": "canasta-teach/game", "version": 1,
     "rules": {"name": "classic4", ...every RuleSet field...},
     "seed": 7, "moves": ["draw", "meld K K K", "discard 9", ...],
     "saved_at": "2026-11-29T12:00:00+00:00"}
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from dataclasses import fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final

from .game import Game
from .notation import NotationError, parse_move
from .rules import BOOL_OPTIONS, INT_RANGES, PRESETS, RuleSet, int_range

FORMAT: Final = "canasta-teach/game"
VERSION: Final = 1
#: A saved game is small (a few thousand moves at most); anything far larger is not ours.
MAX_BYTES: Final = 16 * 1024 * 1024
#: A seed that is a number has at most 20 digits (a 64-bit seed has 20).
SEED_LIMIT: Final = 10**20
#: Format versions are small numbers; a longer one is not a version.
VERSION_LIMIT: Final = 999_999_999


class SaveFileError(ValueError):
    """A saved game that cannot be loaded (or a game that cannot be saved).

    ``code``: ``unreadable``, ``not_json``, ``number_too_long``, ``not_a_save``,
    ``newer_version``,
    ``bad_version``, ``bad_field``, ``unknown_rule``, ``unknown_rule_option``,
    ``bad_rule_value``, ``bad_move``, ``move_refused``, ``write_failed``.
    ``params`` holds the facts (field names, the move number and text, the engine's reason).
    """

    def __init__(self, code: str, message: str, **params: Any) -> None:
        self.code = code
        self.message = message
        self.params: dict[str, Any] = params
        super().__init__(message)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "params": dict(self.params)}


def game_to_json(game: Game, saved_at: datetime | None = None) -> dict[str, Any]:
    """The saved-game document for ``game`` (its ``record()`` plus format, version, time)."""
    record = game.record()
    when = saved_at or datetime.now(timezone.utc)
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": record["rules"],
        "seed": record["seed"],
        "moves": record["moves"],
        "saved_at": when.isoformat(timespec="seconds"),
    }


def save_game(game: Game, path: str | os.PathLike[str]) -> None:
    """Write ``game`` to ``path`` atomically: the old file stays intact if anything fails.

    A symbolic link is followed: the file it points to is replaced, and the link stays.
    The file keeps its permission bits (a new file gets the mode ``open`` would give it).
    A hard link is not kept: the path gets a new file, other names keep the old content."""
    target = Path(path)
    text = json.dumps(game_to_json(game), ensure_ascii=False, indent=1) + "\n"
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a seed or a move that is not text (a lone surrogate)
        raise SaveFileError("write_failed", f"could not save the game to {target}: it holds "
                            "text that is not valid Unicode",
                            path=str(target)) from exc  # fmt: skip
    tmp_name: str | None = None
    try:
        # Follow symbolic links (a dangling one too): the link stays, its target is saved.
        real = Path(os.path.realpath(target)) if target.is_symlink() else target
        folder = real.parent if str(real.parent) else Path(".")
        mode = _mode_for(real)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.replace(tmp_name, real)
        tmp_name = None
    except OSError as exc:
        raise SaveFileError("write_failed", f"could not save the game to {target}: "
                            f"{exc.strerror or exc}", path=str(target)) from exc  # fmt: skip
    finally:
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)


def _mode_for(path: Path) -> int:
    """The permission bits a save to ``path`` keeps: the file's own, or for a new file
    what ``open`` gives (0666 less the umask), not ``mkstemp``'s 0600."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without changing it where the system allows (Linux)."""
    with (
        contextlib.suppress(OSError, ValueError, IndexError),
        open("/proc/self/status", encoding="ascii", errors="replace") as handle,
    ):
        for line in handle:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def load_game(path: str | os.PathLike[str]) -> Game:
    """Read, check and replay a saved game.  Raises ``SaveFileError``; never writes."""
    target = Path(path)
    try:
        with open(target, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise SaveFileError("unreadable", f"could not read {target}: {exc.strerror or exc}",
                            path=str(target)) from exc  # fmt: skip
    if len(data) > MAX_BYTES:
        raise SaveFileError("not_a_save", f"{target} is too large to be a saved game",
                            path=str(target))  # fmt: skip
    return game_from_bytes(data, source=str(target))


def game_from_bytes(data: bytes, source: str = "<data>") -> Game:
    """Check and replay a saved-game document given as bytes."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SaveFileError("not_json", f"{source} is not a saved game (not JSON text)",
                            path=source) from exc  # fmt: skip
    except RecursionError as exc:
        raise SaveFileError("not_json", f"{source} is nested too deeply to be a saved game",
                            path=source) from exc  # fmt: skip
    except ValueError as exc:
        # json.loads refuses integers of more than 4,300 digits (Python's limit on int()).
        raise SaveFileError("number_too_long", f"{source} holds a number too long for a "
                            "saved game", path=source) from exc  # fmt: skip
    return game_from_json(doc, source)


def game_from_json(doc: Any, source: str = "<data>") -> Game:
    """Check and replay a saved-game document already read from JSON."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise SaveFileError("not_a_save", f"{source} is JSON, but not a canasta-teach game",
                            path=source)  # fmt: skip
    version = doc.get("version")
    if type(version) is not int or not 1 <= version <= VERSION_LIMIT:
        raise SaveFileError("bad_version", f"{source} has no valid format version",
                            path=source, version=repr(version))  # fmt: skip
    if version > VERSION:
        raise SaveFileError("newer_version", f"{source} was saved by a newer canasta-teach "
                            f"(format version {version}; this one reads up to {VERSION})",
                            path=source, version=version, supported=VERSION)  # fmt: skip
    rules = _rules(doc.get("rules"), source)
    seed = doc.get("seed")
    seed_expected = "a whole number of at most 20 digits, or a text"
    if type(seed) is int:
        if not -SEED_LIMIT < seed < SEED_LIMIT:
            raise _field(source, "seed", seed_expected)
    elif type(seed) is str:
        if not _is_text(seed):  # a lone surrogate ("\ud800") is not text
            raise _field(source, "seed", seed_expected)
    else:
        raise _field(source, "seed", seed_expected)
    moves = doc.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise _field(source, "moves", "a list of moves in notation")
    saved_at = doc.get("saved_at")
    if saved_at is not None:
        if not isinstance(saved_at, str):
            raise _field(source, "saved_at", "an ISO 8601 time")
        try:
            datetime.fromisoformat(saved_at)
        except ValueError:
            raise _field(source, "saved_at", "an ISO 8601 time") from None
    game = Game(rules, seed)
    for index, text in enumerate(moves):
        number = index + 1
        try:
            move = parse_move(text)
        except NotationError as exc:
            raise SaveFileError("bad_move", f"{source}: move {number} ('{text}') cannot be "
                                f"read: {exc}", path=source, number=number, move=text,
                                error=exc.to_dict()) from exc  # fmt: skip
        verdict = game.apply(move)
        if verdict.reason is not None:
            reason = verdict.reason
            raise SaveFileError("move_refused", f"{source}: move {number} ('{text}') is "
                                f"refused: {reason}", path=source, number=number, move=text,
                                reason=reason.to_dict())  # fmt: skip
    return game


def _is_text(value: str) -> bool:
    """True when ``value`` is valid Unicode text (no lone surrogates from JSON escapes)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _field(source: str, name: str, expected: str) -> SaveFileError:
    return SaveFileError("bad_field", f"{source}: '{name}' should be {expected}",
                         path=source, field=name, expected=expected)  # fmt: skip


def _rules(value: Any, source: str) -> RuleSet:
    """A RuleSet from its saved fields; every field checked for name and type."""
    if not isinstance(value, dict):
        raise _field(source, "rules", "an object of rule settings")
    name = value.get("name")
    if not isinstance(name, str) or name not in PRESETS:
        raise SaveFileError("unknown_rule", f"{source}: '{name}' is not a rule set this "
                            "version knows", path=source, rules=str(name),
                            known=sorted(PRESETS))  # fmt: skip
    base = PRESETS[name]
    types = {f.name: type(getattr(base, f.name)) for f in fields(RuleSet)}
    options: dict[str, Any] = {}
    for key, item in value.items():
        if key == "name":
            continue
        if key not in types:
            raise SaveFileError("unknown_rule_option", f"{source}: '{key}' is not a rule "
                                "option this version knows", path=source,
                                option=_short(str(key)))  # fmt: skip
        if type(item) is not types[key]:
            raise SaveFileError("bad_rule_value", f"{source}: rule option '{key}' should be "
                                f"{types[key].__name__}, not {_short(repr(item))}",
                                path=source, option=key,
                                value=_short(repr(item)))  # fmt: skip
        options[key] = item
    if options.get("players", base.players) not in (2, 4):
        raise SaveFileError("bad_rule_value", f"{source}: a game has 2 or 4 players",
                            path=source, option="players",
                            value=repr(options.get("players")))  # fmt: skip
    if options.get("family", base.family) != base.family:
        raise SaveFileError("bad_rule_value", f"{source}: this version plays only the "
                            f"'{base.family}' family", path=source, option="family",
                            value=repr(options.get("family")))  # fmt: skip
    players = options.get("players", base.players)
    for key, item in options.items():
        if (
            type(item) is bool
            and key not in BOOL_OPTIONS[base.family]
            and item != getattr(base, key)
        ):
            raise SaveFileError("bad_rule_value", f"{source}: '{key}' is not an option of "
                                f"{name}", path=source, option=key,
                                value=_short(repr(item)))  # fmt: skip
    for key in INT_RANGES:
        # The values this engine plays (rules.INT_RANGES, by family): max_wilds 0 to 3, ...
        low, high = int_range(key, players, base.family)
        value = options.get(key, getattr(base, key))
        if not low <= value <= high:
            what = f"from {low} to {high}" if low < high else f"{low}"
            raise SaveFileError("bad_rule_value", f"{source}: rule option '{key}' must be "
                                f"{what}, not {_short(repr(value))}", path=source,
                                option=key, value=_short(repr(value)),
                                minimum=low, maximum=high)  # fmt: skip
    return base.with_options(**options)


def _short(text: str) -> str:
    """A value as a message shows it: whole, or its first characters and "…"."""
    return text if len(text) <= 40 else text[:32] + "…"


__all__ = ["FORMAT", "VERSION", "SaveFileError", "game_from_json", "load_game", "save_game"]
