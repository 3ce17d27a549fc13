"""The ``canasta-teach`` command: explain a move, list legal moves, score, replay a game.

    canasta-teach explain POSITION MOVE   [--lang en|ur|hi|te] [--json]
    canasta-teach moves POSITION          [--lang ...] [--json]
    canasta-teach score POSITION          [--lang ...] [--json]
    canasta-teach replay RECORD           [--lang ...] [--json] [--position]

POSITION is a file in the position notation (``docs/notation.md``) or ``-`` for standard
input; MOVE is a move or several separated by ``;`` (``@FILE`` reads them from a file);
RECORD is a saved game (JSON).  Exit codes: 0 done (for ``explain``: every move is legal),
1 a move is refused, 2 bad input (notation, file, language, usage), 3 internal error,
4 the output cannot be written (standard output closed or full).
Every word shown comes from ``canasta_teach.i18n``; no traceback ever reaches the user.
(``docs/cli.md`` documents the commands and the JSON shapes.)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from .engine.game import Game
from .engine.moves import Move, Reason
from .engine.notation import (
    NotationError,
    format_position,
    parse_moves,
    parse_position,
    shown_token,
)
from .engine.savefile import SaveFileError, load_game
from .engine.scoring import TeamScore, score_hand
from .engine.seats import seat_names, team_names
from .engine.state import State
from .i18n import LANGUAGES, Translator, UnknownLanguage, get_translator

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3
EXIT_OUTPUT = 4
#: Input limits: a position file (or standard input) and the text of the moves, in bytes.
#: Saved games have their own (``savefile.MAX_BYTES``, 16 MB).  At most limit + 1 bytes are
#: ever read, so ``/dev/zero`` is refused at once.
MAX_POSITION_BYTES = 1024 * 1024
MAX_MOVES_BYTES = 64 * 1024


class _InputError(Exception):
    """Bad input: shown as a translated message, exit code 2."""

    def __init__(self, key: str, default: str, code: str, **params: Any) -> None:
        super().__init__(default)
        self.key = key
        self.default = default
        self.code = code
        self.params = params


class _UsageError(Exception):
    pass


class _OutputError(Exception):
    """Standard output (or error) is closed or cannot take the text (a full disk)."""

    def __init__(self, stream: Any, error: str) -> None:
        super().__init__(error)
        self.stream = stream
        self.error = error


def _t(tr: Translator | None, key: str, default: str, /, **params: Any) -> str:
    """The catalog's text for ``key`` in the ``engine`` domain, or ``default`` (English) while
    the catalog lacks it (``text`` raising ``KeyError`` or giving the key back)."""
    if tr is not None:
        try:
            text = tr.text("engine", key, **params)
        except (KeyError, LookupError, ValueError, TypeError):
            text = key
        if isinstance(text, str) and text and text != key:
            return text
    try:
        return default.format(**params)
    except (KeyError, IndexError, ValueError):
        return default


def _nt(tr: Translator | None, key: str, n: int, one: str, other: str, /) -> str:
    """A plural entry of the ``engine`` domain for the count ``n`` ("1 move", "2 moves"),
    with ``{count}`` in digits; English ``one``/``other`` while the catalog lacks it."""
    count = f"{n:,}"
    if tr is not None:
        try:
            text = tr.ntext("engine", key, n, count=count)
        except (KeyError, LookupError, ValueError, TypeError):
            text = key
        if isinstance(text, str) and text and text != key:
            return text
    return (one if n == 1 else other).format(count=count)


def _safe(call: Any, fallback: str, *args: Any) -> str:
    """A translator lookup that must never break the output (a missing entry shows raw)."""
    try:
        text = call(*args)
    except Exception:  # noqa: BLE001 - a missing translation must not crash the CLI
        return fallback
    return text if isinstance(text, str) and text else fallback


# ---------------------------------------------------------------------------- input


class _TooLarge(Exception):
    """Input over its size limit (the caller says which, in the learner's language)."""


def _read_text(tr: Translator | None, path: str, limit: int) -> str:
    """The UTF-8 text of ``path`` (``-``: standard input); ``_TooLarge`` above ``limit``
    bytes, found by reading at most ``limit`` + 1 of them."""
    try:
        if path == "-":
            if sys.stdin is None:
                raise OSError(9, os.strerror(9))  # EBADF: standard input is closed
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with open(path, "rb") as handle:
                data = handle.read(limit + 1)
    except OSError as exc:
        raise _InputError("cli.unreadable", "Cannot read {path}: {error}.", "unreadable",
                          path=_source_name(tr, path),
                          error=exc.strerror or str(exc)) from exc  # fmt: skip
    if len(data) > limit:
        raise _TooLarge
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _InputError("cli.not_text", "{path} is not a text file (UTF-8).", "not_text",
                          path=_source_name(tr, path)) from exc  # fmt: skip


def _notation_detail(tr: Translator | None, exc: NotationError) -> str:
    params = {**exc.params, "token": shown_token(exc.token or ""), "expected": exc.expected or ""}
    if getattr(tr, "lang", "en") == "en":
        # The engine's own English names the exact problem and what would be right (a
        # teacher fixing a position wants "write ?11", not just "not a card").
        message = exc.message + (f" (expected {exc.expected})" if exc.expected else "")
    else:
        english = exc.message.replace("{", "{{").replace("}", "}}")
        if tr is not None and "seat" in params:
            # The position names seats in English ("South"): say them in the reader's words.
            params["seat"] = _safe(tr.seat, str(params["seat"]), str(params["seat"]))
        message = _t(tr, f"notation.{exc.code}", english, **params)
    if exc.line is not None and exc.column is not None:
        return _t(tr, "cli.at_line_column", "line {line}, column {column}: {message}",
                  line=exc.line, column=exc.column, message=message)  # fmt: skip
    if exc.line is not None:
        return _t(tr, "cli.at_line", "line {line}: {message}", line=exc.line, message=message)
    return message


def _source_name(tr: Translator | None, path: str) -> str:
    return _t(tr, "cli.stdin", "standard input") if path == "-" else path


def _load_position(tr: Translator | None, path: str) -> State:
    try:
        text = _read_text(tr, path, MAX_POSITION_BYTES)
    except _TooLarge:
        raise _InputError("cli.position_too_large", "{path} is too large to be a position "
                          "(more than {limit} bytes).", "too_large",
                          path=_source_name(tr, path),
                          limit=f"{MAX_POSITION_BYTES:,}") from None  # fmt: skip
    try:
        return parse_position(text)
    except NotationError as exc:
        raise _InputError("cli.bad_position", "The position in {path} cannot be read: "
                          "{detail}", exc.code, path=_source_name(tr, path),
                          detail=_notation_detail(tr, exc),
                          notation=exc.to_dict()) from exc  # fmt: skip


def _load_moves(tr: Translator | None, text: str) -> list[Move]:
    if text.startswith("@"):
        path = text[1:]
        try:
            text = _read_text(tr, path, MAX_MOVES_BYTES)
        except _TooLarge:
            raise _InputError("cli.moves_file_too_large", "{path} is too large to hold moves "
                              "(more than {limit} bytes).", "too_large",
                              path=_source_name(tr, path),
                              limit=f"{MAX_MOVES_BYTES:,}") from None  # fmt: skip
    elif len(text.encode("utf-8", "surrogatepass")) > MAX_MOVES_BYTES:
        raise _InputError("cli.moves_too_long", "The moves are too long (more than {limit} "
                          "bytes).", "too_large", limit=f"{MAX_MOVES_BYTES:,}")  # fmt: skip
    try:
        return parse_moves(text)
    except NotationError as exc:
        raise _InputError("cli.bad_move", "The move cannot be read: {detail}", exc.code,
                          detail=_notation_detail(tr, exc),
                          notation=exc.to_dict()) from exc  # fmt: skip


# ---------------------------------------------------------------------------- output


@dataclass
class _Out:
    tr: Translator
    as_json: bool
    lines: list[str]

    def say(self, text: str = "") -> None:
        self.lines.append(text)


def _reason_dict(tr: Translator, reason: Reason) -> dict[str, Any]:
    return {
        **reason.to_dict(),
        "text": _safe(tr.reason, str(reason), reason),
        "rule_title": _safe(tr.rule_title, reason.rule, reason.rule),
    }


def _names(state: State) -> tuple[tuple[str, ...], tuple[str, str]]:
    return seat_names(state.players), team_names(state.players)


def _explain(out: _Out, state: State, moves: list[Move]) -> int:
    tr = out.tr
    notes: list[dict[str, Any]] = []
    board = state.copy()
    refused_at: int | None = None
    refusal: Reason | None = None
    for index, move in enumerate(moves):
        verdict = board.apply(move)
        if verdict.reason is not None:
            refused_at, refusal = index, verdict.reason
            break
        if verdict.note is not None:
            notes.append({"index": index, "move": str(move), **_reason_dict(tr, verdict.note)})
        if not out.as_json:
            if len(moves) == 1:
                out.say(_t(tr, "cli.legal", "{move}: legal.", move=str(move)))
            else:
                out.say(_t(tr, "cli.legal_numbered", "{number}. {move}: legal.",
                           number=index + 1, move=str(move)))  # fmt: skip
            if verdict.note is not None:
                out.say("   " + _t(tr, "cli.note", "Note: {text}",
                                   text=_safe(tr.reason, str(verdict.note),
                                              verdict.note)))  # fmt: skip
    if out.as_json:
        out.say(_json({
            "legal": refusal is None,
            "moves": [str(m) for m in moves],
            "refused_at": refused_at,
            "refused_move": None if refused_at is None else str(moves[refused_at]),
            "reason": None if refusal is None else _reason_dict(tr, refusal),
            "notes": notes,
            "position": format_position(board),
        }))  # fmt: skip
        return EXIT_OK if refusal is None else EXIT_REFUSED
    if refusal is None or refused_at is None:
        if len(moves) > 1:
            out.say(_t(tr, "cli.all_legal", "All {count} moves are legal.", count=len(moves)))
        return EXIT_OK
    move_text = str(moves[refused_at])
    if len(moves) == 1:
        out.say(_t(tr, "cli.refused", "{move}: not allowed.", move=move_text))
    else:
        out.say(_t(tr, "cli.refused_numbered", "Move {number} of {count} ({move}) is not "
                   "allowed.", number=refused_at + 1, count=len(moves),
                   move=move_text))  # fmt: skip
    out.say(_safe(tr.reason, str(refusal), refusal))
    out.say(_t(tr, "cli.rule", "Rule {rule}: {title}", rule=refusal.rule,
               title=_safe(tr.rule_title, refusal.rule, refusal.rule)))  # fmt: skip
    return EXIT_REFUSED


def _moves(out: _Out, state: State) -> int:
    legal = [str(m) for m in state.legal_moves()]
    if out.as_json:
        out.say(_json(legal))
    elif legal:
        out.lines.extend(legal)
    else:
        out.say(_t(out.tr, "cli.no_moves", "No legal moves: the hand is over."))
    return EXIT_OK


def _team_dict(tr: Translator, team: TeamScore, name: str, before: int) -> dict[str, Any]:
    return {
        "team": name,
        "lines": [
            {**line.to_dict(), "text": _safe(tr.score_line, line.code, line)} for line in team.lines
        ],
        "total": team.total,
        "before": before,
        "after": before + team.total,
    }


def _say_team(out: _Out, team: dict[str, Any], rounds: bool = False) -> None:
    """One team's lines and totals; ``rounds``: Hand and Foot, where a deal is a round (and
    "hand" means the player's first set of cards)."""
    tr = out.tr
    out.say(_safe(tr.team, team["team"], team["team"]))
    for line in team["lines"]:
        out.say(f"  {line['text']}")
    if rounds:
        out.say("  " + _t(tr, "cli.round_total", "Round total: {points}", points=team["total"]))
        cumulative = _t(tr, "cli.cumulative_round", "Game score: {before} before this round, "
                        "{after} after it", before=team["before"], after=team["after"])  # fmt: skip
        out.say("  " + cumulative)
        return
    out.say("  " + _t(tr, "cli.hand_total", "Hand total: {points}", points=team["total"]))
    out.say("  " + _t(tr, "cli.cumulative", "Game score: {before} before this hand, {after} "
                      "after it", before=team["before"], after=team["after"]))  # fmt: skip


def _score(out: _Out, state: State) -> int:
    tr = out.tr
    seats, teams = _names(state)
    hand = score_hand(state)
    rows = [_team_dict(tr, hand.teams[t], teams[t], state.scores[t]) for t in (0, 1)]
    end = state.end
    if out.as_json:
        out.say(_json({
            "ended": end is not None,
            "end": None if end is None else {"how": end.how, "seat": seats[end.seat]},
            "teams": rows,
        }))  # fmt: skip
        return EXIT_OK
    rounds = bool(state.rules.rounds)
    if end is None and rounds:
        out.say(_t(tr, "cli.round_not_over", "The round is not over: this is what each team "
                   "would score if it ended now (no going-out bonus)."))  # fmt: skip
    elif end is None:
        out.say(_t(tr, "cli.score_not_over", "The hand is not over: this is what each team "
                   "would score if it ended now (no going-out bonus)."))  # fmt: skip
    else:
        seat = _safe(tr.seat, seats[end.seat], seats[end.seat])
        key = f"cli.round_ended_{end.how}" if rounds else f"cli.ended_{end.how}"
        out.say(_t(tr, key, (_ROUND_ENDED if rounds else _ENDED)[end.how], seat=seat))
    for row in rows:
        out.say()
        _say_team(out, row, rounds)
    return EXIT_OK


_ROUND_ENDED = {
    "out": "The round is over: {seat} went out.",
    "stock": "The round is over: the stock ran out on {seat}'s turn.",
}
_ENDED = {
    "out": "The hand is over: {seat} went out.",
    "concealed": "The hand is over: {seat} went out concealed.",
    "stock": "The hand is over: the stock ran out on {seat}'s turn.",
}


def _replay(out: _Out, game: Game, show_position: bool) -> int:
    tr = out.tr
    seats, teams = _names(game.state)
    hands: list[dict[str, Any]] = []
    before = [0, 0]
    for number, hand in enumerate(game.hands, start=1):
        rows = [_team_dict(tr, hand.teams[t], teams[t], before[t]) for t in (0, 1)]
        before = [before[t] + hand.teams[t].total for t in (0, 1)]
        hands.append({"number": number, "teams": rows})
    winner = None if game.winner is None else teams[game.winner]
    position = format_position(game.state)
    if out.as_json:
        out.say(_json({
            "moves": len(game.moves),
            "hands": hands,
            "totals": {teams[t]: game.totals[t] for t in (0, 1)},
            "winner": winner,
            "game_over": game.is_over,
            "position": position,
        }))  # fmt: skip
        return EXIT_OK
    moves_text = _nt(tr, "cli.moves_replayed", len(game.moves),
                     "{count} move replayed", "{count} moves replayed")  # fmt: skip
    hands_text = _nt(tr, "cli.hands_finished", len(game.hands),
                     "{count} hand finished", "{count} hands finished")  # fmt: skip
    out.say(_t(tr, "cli.replay_summary", "{moves}; {hands}.", moves=moves_text, hands=hands_text))
    for hand_row in hands:
        out.say()
        out.say(_t(tr, "cli.hand_number", "Hand {number}", number=hand_row["number"]))
        for row in hand_row["teams"]:
            _say_team(out, row)
    out.say()
    names = [_safe(tr.team, teams[t], teams[t]) for t in (0, 1)]
    out.say(_t(tr, "cli.game_score", "Game score: {team0} {score0}, {team1} {score1}",
               team0=names[0], score0=game.totals[0], team1=names[1],
               score1=game.totals[1]))  # fmt: skip
    if game.winner is not None:
        out.say(_t(tr, "cli.winner", "{team} won the game.", team=names[game.winner]))
    else:
        state = game.state
        out.say(_t(tr, "cli.game_goes_on", "The game goes on: hand {number}, {seat} to play.",
                   number=state.hand_number,
                   seat=_safe(tr.seat, seats[state.to_move], seats[state.to_move])))  # fmt: skip
    if show_position:
        out.say()
        out.lines.extend(position.rstrip("\n").split("\n"))
    return EXIT_OK


#: A lone surrogate: from argv bytes that are not UTF-8 (``\udcff`` for the byte 0xff).
_SURROGATE = re.compile("[\ud800-\udfff]")


def _json(value: Any) -> str:
    # Every JSON reader takes U+FFFD; not every one takes an escaped lone surrogate.
    return _SURROGATE.sub("\ufffd", json.dumps(value, ensure_ascii=False, indent=2))


def _printable(text: str) -> str:
    """``text`` with lone surrogates shown as escapes: ``\xff`` for an argv byte that is not
    UTF-8, ``\ud800`` for any other (a strict UTF-8 stream cannot encode them)."""

    def escape(match: re.Match[str]) -> str:
        code = ord(match.group(0))
        return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"

    return _SURROGATE.sub(escape, text)


# ---------------------------------------------------------------------------- arguments


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)

    def _print_message(self, message: str, file: Any = None) -> None:
        # argparse would drop a failed write of --help silently: report it (exit 4).
        if message:
            _print([message.removesuffix("\n")], file)  # None: the stream is closed


def _build_parser(tr: Translator | None) -> _Parser:
    common = _Parser(add_help=False)
    common.add_argument("--lang", default="en", metavar="LANG",
                        help=_t(tr, "cli.help_lang", "language of the messages: "
                                "en, ur, hi or te (default en)"))  # fmt: skip
    common.add_argument(
        "--json",
        action="store_true",
        dest="as_json",
        help=_t(tr, "cli.help_json", "print JSON instead of text"),
    )
    parser = _Parser(prog="canasta-teach",
                     description=_t(tr, "cli.help_description", "Canasta positions from the "
                                    "command line: explain a move, list the legal moves, "
                                    "score a hand, replay a saved game."))  # fmt: skip
    # Also accepted before the command (``canasta-teach --lang ur explain ...``); separate
    # dests, because a subcommand's defaults would overwrite the values parsed here.
    parser.add_argument("--lang", dest="lang_before", metavar="LANG",
                        help=_t(tr, "cli.help_lang", "language of the messages: "
                                "en, ur, hi or te (default en)"))  # fmt: skip
    parser.add_argument(
        "--json",
        action="store_true",
        dest="json_before",
        help=_t(tr, "cli.help_json", "print JSON instead of text"),
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    position_help = _t(tr, "cli.help_position", "a position file (notation), or - for "
                       "standard input")  # fmt: skip
    explain = sub.add_parser(
        "explain", parents=[common], help=_t(tr, "cli.help_explain", "is a move legal? If not, why")
    )
    explain.add_argument("position", metavar="POSITION", help=position_help)
    explain.add_argument("move", metavar="MOVE",
                         help=_t(tr, "cli.help_move", "a move, or several separated by ';' "
                                 "(@FILE reads them from a file)"))  # fmt: skip
    moves = sub.add_parser(
        "moves", parents=[common], help=_t(tr, "cli.help_moves", "list the legal moves")
    )
    moves.add_argument("position", metavar="POSITION", help=position_help)
    score = sub.add_parser(
        "score", parents=[common], help=_t(tr, "cli.help_score", "score the hand, team by team")
    )
    score.add_argument("position", metavar="POSITION", help=position_help)
    replay = sub.add_parser(
        "replay", parents=[common], help=_t(tr, "cli.help_replay", "replay a saved game")
    )
    replay.add_argument(
        "record", metavar="RECORD", help=_t(tr, "cli.help_record", "a saved game (JSON)")
    )
    replay.add_argument("--position", action="store_true", dest="show_position",
                        help=_t(tr, "cli.help_show_position",
                                "also print the final position"))  # fmt: skip
    return parser


def _scan_lang(argv: Sequence[str]) -> str:
    """The ``--lang`` value, read before parsing so that usage errors are translated too."""
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1]
    return "en"


# ---------------------------------------------------------------------------- main


def _print(lines: Sequence[str], stream: Any) -> None:
    if lines:
        if stream is None:  # started with the descriptor closed (``>&-``)
            raise _OutputError(stream, os.strerror(9))
        try:
            stream.write(_printable("\n".join(lines) + "\n"))
            stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:  # a full disk (``> /dev/full``), an I/O error
            raise _OutputError(stream, exc.strerror or str(exc)) from exc


def _flush(stream: Any) -> None:
    if stream is not None:
        try:
            stream.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:
            raise _OutputError(stream, getattr(exc, "strerror", None) or str(exc)) from exc


def _quiet(stream: Any) -> None:
    """Point ``stream``'s descriptor at /dev/null, so that the interpreter's last flush of
    what could not be written stays quiet (no "Exception ignored" and no exit code 120)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)


def _utf8_streams() -> None:
    """Urdu, Hindi and Telugu must print even where the locale says ASCII."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", "") or "").lower().replace("-", "")
        if encoding != "utf8" and hasattr(stream, "reconfigure"):
            with contextlib.suppress(ValueError, OSError):
                stream.reconfigure(encoding="utf-8", errors="replace")


def error_widget(tr: Translator | None, as_json: bool, code: str, message: str,
           details: dict[str, Any] | None = None) -> None:  # fmt: skip
    if as_json:
        _print([_json({"error": {"code": code, "message": message,
                                 "details": details or {}}})], sys.stdout)  # fmt: skip
    else:
        _print([message], sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit code (0 legal/done, 1 refused, 2 bad input,
    3 internal error, 4 the output cannot be written)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    tr: Translator | None = None
    as_json = "--json" in args_list
    # i18n logs a missing catalog entry; the CLI falls back to English text on its own, and
    # a log line must not reach the user's terminal (Python's last-resort handler would).
    logger = logging.getLogger("canasta_teach")
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())  # once, however often main() runs
    try:
        _utf8_streams()
        lang = _scan_lang(args_list)
        try:
            tr = get_translator(lang)
        except UnknownLanguage as exc:
            # We cannot know the reader's language: i18n says it in every language it has.
            tr = get_translator("en")
            message = str(exc) or _t(tr, "cli.unknown_language", "Unknown language '{lang}'. "
                                     "Languages: {languages}.", lang=lang,
                                     languages=", ".join(LANGUAGES))  # fmt: skip
            error_widget(tr, as_json, "unknown_language", message,
                   {"lang": lang, "languages": list(LANGUAGES)})  # fmt: skip
            return EXIT_BAD_INPUT
        parser = _build_parser(tr)
        try:
            args = parser.parse_args(args_list)
        except SystemExit as exc:  # --help: argparse has printed it
            _flush(sys.stdout)
            return exc.code if isinstance(exc.code, int) else EXIT_OK
        except _UsageError as exc:
            error_widget(tr, as_json, "usage",
                   _t(tr, "cli.usage_error", "{detail}. Try: canasta-teach --help",
                      detail=str(exc)), {"detail": str(exc)})  # fmt: skip
            return EXIT_BAD_INPUT
        args.as_json = args.as_json or args.json_before
        out = _Out(tr, args.as_json, [])
        try:
            code = _run(out, args)
        except _InputError as exc:
            message = _t(tr, exc.key, exc.default, **exc.params)
            details = {k: v for k, v in exc.params.items() if k != "detail"}
            error_widget(tr, args.as_json, exc.code, message, details)
            return EXIT_BAD_INPUT
        _print(out.lines, sys.stdout)
        return code
    except BrokenPipeError:
        # The reader went away (``| head``): nothing more to say, and nothing went wrong.
        # Point stdout at /dev/null so that the interpreter's final flush stays quiet.
        _quiet(sys.stdout)
        return EXIT_OK
    except _OutputError as exc:
        # Not a bug: standard output is closed or full.  Say so on standard error, if it
        # can take it, and exit 4 (docs/cli.md).
        _quiet(exc.stream)
        if exc.stream is not sys.stderr:
            with contextlib.suppress(Exception):
                message = _t(tr, "cli.output_failed", "Cannot write the output: {error}.",
                             error=exc.error)  # fmt: skip
                _print([message], sys.stderr)
        return EXIT_OUTPUT
    except KeyboardInterrupt:
        return 130
    except Exception:  # noqa: BLE001 - the last line of defence: never a traceback
        with contextlib.suppress(Exception):
            message = _t(tr, "cli.internal_error", "Internal error: canasta-teach could not "
                         "finish. Please report the command you ran.")  # fmt: skip
            error_widget(tr, as_json, "internal_error", message)
        return EXIT_INTERNAL


def _run(out: _Out, args: argparse.Namespace) -> int:
    tr = out.tr
    if args.command == "explain":
        state = _load_position(tr, args.position)
        moves = _load_moves(tr, args.move)
        return _explain(out, state, moves)
    if args.command == "moves":
        return _moves(out, _load_position(tr, args.position))
    if args.command == "score":
        return _score(out, _load_position(tr, args.position))
    # replay
    try:
        game = load_game(args.record)
    except SaveFileError as exc:
        detail = _t(tr, f"save.{exc.code}", exc.message, **exc.params)
        raise _InputError("cli.bad_save", "The saved game cannot be loaded: {detail}",
                          exc.code, path=args.record, detail=detail,
                          save=exc.to_dict()) from exc  # fmt: skip
    return _replay(out, game, args.show_position)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
