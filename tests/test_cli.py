"""The ``canasta-teach`` command, run as a real subprocess (``python -m canasta_teach``).

Exit codes: 0 legal / done, 1 refused, 2 bad input, 3 internal error; never a traceback.
Expected words come from ``canasta_teach.i18n`` itself, so the tests follow the catalogs.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from engine_helpers import MAX_WILDS_5

from canasta_teach import cli
from canasta_teach.engine.game import Game
from canasta_teach.engine.moves import Discard, Draw
from canasta_teach.engine.notation import format_position, parse_moves, parse_position
from canasta_teach.engine.savefile import save_game
from canasta_teach.engine.scoring import score_hand
from canasta_teach.i18n import get_translator

ROOT = Path(__file__).resolve().parent.parent
FROZEN = ROOT / "examples" / "frozen-pile.txt"
SCRIPTS = {
    "ur": re.compile("[\u0600-\u06ff]"),  # Arabic script
    "hi": re.compile("[\u0900-\u097f]"),  # Devanagari
    "te": re.compile("[\u0c00-\u0c7f]"),  # Telugu
}

SET_ASIDE = """rules: classic4
turn: S meld
S: K K K Q 9 8 7 6 5 4
W: ?11
N: ?11
E: ?11
pile: 6
seed: 3
"""


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run(
        [sys.executable, "-m", "canasta_teach", *args],
        input=stdin, capture_output=True, text=True, encoding="utf-8", env=env, cwd=ROOT,
        timeout=120,
    )  # fmt: skip
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr
    return proc


def expected(lang: str, key: str, default: str, **params: object) -> str:
    return cli._t(get_translator(lang), key, default, **params)


def frozen_reason():  # type: ignore[no-untyped-def]
    state = parse_position(FROZEN.read_text(encoding="utf-8"))
    verdict = state.check(parse_moves("take 7 JK")[0])
    assert verdict.reason is not None
    return verdict.reason


# ---------------------------------------------------------------------------- explain


def test_explain_refused_move_exits_1_with_reason_and_rule() -> None:
    proc = run("explain", str(FROZEN), "take 7 JK")
    assert proc.returncode == 1
    tr = get_translator("en")
    reason = frozen_reason()
    lines = proc.stdout.splitlines()
    assert lines[0] == expected("en", "cli.refused", "{move}: not allowed.", move="take 7 JK")
    assert lines[1] == tr.reason(reason)
    assert lines[2] == expected("en", "cli.rule", "Rule {rule}: {title}", rule="C-PILE-3",
                                title=tr.rule_title("C-PILE-3"))  # fmt: skip
    assert "C-PILE-3" in proc.stdout


def test_explain_reads_the_move_from_a_file() -> None:
    proc = run("explain", str(FROZEN), "@" + str(ROOT / "examples" / "frozen-pile.move"))
    assert proc.returncode == 1 and "C-PILE-3" in proc.stdout


def test_explain_legal_move_exits_0() -> None:
    proc = run("explain", str(FROZEN), "draw")
    assert proc.returncode == 0
    assert proc.stdout.strip() == expected("en", "cli.legal", "{move}: legal.", move="draw")


def test_explain_legal_move_with_a_note() -> None:
    proc = run("explain", "-", "meld K K K", stdin=SET_ASIDE)
    assert proc.returncode == 0
    state = parse_position(SET_ASIDE)
    note = state.check(parse_moves("meld K K K")[0]).note
    assert note is not None and note.code == "set_aside"
    assert get_translator("en").reason(note) in proc.stdout


def test_explain_sequence_reports_the_first_refusal_with_its_index() -> None:
    proc = run("explain", str(FROZEN), "draw; discard 3R; discard K", "--json")
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert out["legal"] is False and out["refused_at"] == 1
    assert out["refused_move"] == "discard 3R"
    assert out["moves"] == ["draw", "discard 3R", "discard K"]
    assert out["reason"]["code"] == "not_in_hand" and out["reason"]["rule"] == "C-TURN-3"
    assert out["reason"]["text"] == get_translator("en").reason(out["reason"])
    after = parse_position(FROZEN.read_text(encoding="utf-8"))
    after.play(Draw())
    assert parse_position(out["position"]) == after  # only the legal prefix was played
    human = run("explain", str(FROZEN), "draw; discard 3R")
    assert human.returncode == 1
    assert (
        expected(
            "en",
            "cli.refused_numbered",
            "Move {number} of {count} ({move}) is not allowed.",
            number=2,
            count=2,
            move="discard 3R",
        )
        in human.stdout
    )


def test_explain_json_for_a_legal_sequence() -> None:
    proc = run("explain", str(FROZEN), "draw\ndiscard K", "--json")
    assert proc.returncode == 0
    out = json.loads(proc.stdout)
    assert out["legal"] is True and out["refused_at"] is None and out["reason"] is None
    assert parse_position(out["position"]).current == 1  # West's turn now


@pytest.mark.parametrize("lang", ["ur", "hi", "te"])
def test_explain_in_each_language(lang: str) -> None:
    proc = run("explain", str(FROZEN), "take 7 JK", "--lang", lang)
    assert proc.returncode == 1
    tr = get_translator(lang)
    text = tr.reason(frozen_reason())
    assert text in proc.stdout
    assert tr.rule_title("C-PILE-3") in proc.stdout
    assert SCRIPTS[lang].search(text), f"the {lang} reason is not in {lang}'s script: {text}"
    before = run("--lang", lang, "--json", "explain", str(FROZEN), "take 7 JK")
    assert before.returncode == 1 and json.loads(before.stdout)["reason"]["text"] == text


# ---------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["explain", "-", "draw"], "rules: classic4\nturn: S drw\n"),
        (["explain", "does-not-exist.txt", "draw"], None),
        (["explain", str(FROZEN), "tak 7"], None),
        (["explain", str(FROZEN), "add 7 7"], None),
        (["explain", str(FROZEN), "@does-not-exist.move"], None),
        (["explain", str(FROZEN), "draw", "--lang", "xx"], None),
        (["explain", str(FROZEN)], None),
        (["frobnicate"], None),
        ([], None),
        (["moves", "-"], "rules: classic4\nturn: S draw\nS: 7 7 7 7 7 7 7 7 7\n"),
        (["score", "-"], "\x00\x01 not a position"),
        (["replay", str(FROZEN)], None),
    ],
)
def test_bad_input_exits_2_with_a_message(args: list[str], stdin: str | None) -> None:
    proc = run(*args, stdin=stdin)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.strip() and not proc.stdout.strip()
    as_json = run(*args, "--json", stdin=stdin)
    assert as_json.returncode == 2
    error = json.loads(as_json.stdout)["error"]
    assert error["code"] and error["message"]


def test_a_notation_error_says_where(tmp_path: Path) -> None:
    bad = FROZEN.read_text(encoding="utf-8").replace("EW melds: 8 8 8", "EW melds: 8 8 X")
    path = tmp_path / "bad.txt"
    path.write_text(bad, encoding="utf-8")
    proc = run("score", str(path), "--json")
    assert proc.returncode == 2
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == "bad_card"
    line = 1 + bad.splitlines().index("EW melds: 8 8 X")
    assert error["details"]["notation"]["line"] == line
    assert error["details"]["notation"]["token"] == "X"
    human = run("score", str(path), "--lang", "ur")
    assert human.returncode == 2 and str(line) in human.stderr
    assert SCRIPTS["ur"].search(human.stderr)


def test_a_file_that_is_not_text(tmp_path: Path) -> None:
    path = tmp_path / "cards.bin"
    path.write_bytes(b"\xff\xfe\x00rules")
    assert run("moves", str(path)).returncode == 2


def test_an_unknown_language_is_refused_in_every_language() -> None:
    proc = run("moves", str(FROZEN), "--lang", "klingon")
    assert proc.returncode == 2
    for script in SCRIPTS.values():
        assert script.search(proc.stderr)


def test_an_internal_error_is_one_translated_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(out: object, args: object) -> int:
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli, "_run", broken)
    assert cli.main(["moves", str(FROZEN), "--lang", "hi"]) == cli.EXIT_INTERNAL
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "a bug" not in captured.err
    assert captured.err.strip() == expected(
        "hi", "cli.internal_error",
        "Internal error: canasta-teach could not finish. Please report the command you ran.",
    )  # fmt: skip


def test_a_closed_pipe_is_not_an_error() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "canasta_teach", "replay", "--json", str(FROZEN)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode("utf-8")
    proc.wait(timeout=60)
    assert "Traceback" not in err


# ---------------------------------------------------------------------------- moves, score


def test_moves_lists_every_legal_move() -> None:
    text = SET_ASIDE
    state = parse_position(text)
    legal = [str(m) for m in state.legal_moves()]
    proc = run("moves", "-", stdin=text)
    assert proc.returncode == 0 and proc.stdout.splitlines() == legal
    as_json = run("moves", "-", "--json", stdin=text)
    assert json.loads(as_json.stdout) == legal
    assert [str(m) for m in parse_moves("\n".join(legal))] == legal


def test_moves_of_an_ended_hand() -> None:
    text = FROZEN.read_text(encoding="utf-8").replace("turn: S draw", "turn: S ended")
    text += "ended: stock S\n"
    proc = run("moves", "-", stdin=text)
    assert proc.returncode == 0
    assert proc.stdout.strip() == expected("en", "cli.no_moves", "No legal moves: the hand is "
                                           "over.")  # fmt: skip
    assert json.loads(run("moves", "-", "--json", stdin=text).stdout) == []
    score = run("score", "-", "--lang", "te", stdin=text)
    assert score.returncode == 0
    tr = get_translator("te")
    assert score.stdout.splitlines()[0] == expected(
        "te", "cli.ended_stock", "The hand is over: the stock ran out on {seat}'s turn.",
        seat=tr.seat("S"),
    )  # fmt: skip
    out = json.loads(run("score", "-", "--json", stdin=text).stdout)
    assert out["ended"] is True and out["end"] == {"how": "stock", "seat": "S"}


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_score_breakdown(lang: str) -> None:
    state = parse_position(FROZEN.read_text(encoding="utf-8"))
    hand = score_hand(state)
    out = json.loads(run("score", str(FROZEN), "--json", "--lang", lang).stdout)
    assert out["ended"] is False and out["end"] is None
    assert [t["team"] for t in out["teams"]] == ["NS", "EW"]
    assert [t["total"] for t in out["teams"]] == list(hand.totals)
    tr = get_translator(lang)
    for team, score in zip(out["teams"], hand.teams, strict=True):
        assert [ln["code"] for ln in team["lines"]] == [ln.code for ln in score.lines]
        assert [ln["text"] for ln in team["lines"]] == [tr.score_line(ln) for ln in score.lines]
    human = run("score", str(FROZEN), "--lang", lang)
    assert human.returncode == 0
    for score in hand.teams:
        for line in score.lines:
            assert tr.score_line(line) in human.stdout
    assert tr.team("NS") in human.stdout and tr.team("EW") in human.stdout


# ---------------------------------------------------------------------------- replay


def _finished_game() -> Game:
    """A game played randomly until at least one hand is scored."""
    import random

    rng = random.Random(5)
    game = Game(seed=11)
    while not game.hands:
        legal = game.state.legal_moves()
        active = [m for m in legal if not isinstance(m, Discard | Draw)]
        game.apply(rng.choice(active) if active and rng.random() < 0.7 else rng.choice(legal))
    for _ in range(7):
        game.apply(game.state.legal_moves()[0])
    return game


def test_replay_prints_scores_and_the_final_position(tmp_path: Path) -> None:
    game = _finished_game()
    path = tmp_path / "game.json"
    save_game(game, path)
    out = json.loads(run("replay", str(path), "--json").stdout)
    assert out["moves"] == len(game.moves)
    assert out["totals"] == {"NS": game.totals[0], "EW": game.totals[1]}
    assert [[t["total"] for t in h["teams"]] for h in out["hands"]] == [
        list(h.totals) for h in game.hands
    ]  # fmt: skip
    assert out["game_over"] is False and out["winner"] is None
    assert parse_position(out["position"]) == game.state
    human = run("replay", str(path), "--position")
    assert human.returncode == 0
    assert human.stdout.rstrip("\n").endswith(format_position(game.state).rstrip("\n"))
    tr = get_translator("en")
    assert expected("en", "cli.game_score", "Game score: {team0} {score0}, {team1} {score1}",
                    team0=tr.team("NS"), score0=game.totals[0], team1=tr.team("EW"),
                    score1=game.totals[1]) in human.stdout  # fmt: skip


def test_replay_of_a_tampered_game_exits_2_and_names_the_move(tmp_path: Path) -> None:
    game = _finished_game()
    path = tmp_path / "game.json"
    save_game(game, path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["moves"][2] = "meld A A A A A A A A A"
    path.write_text(json.dumps(doc), encoding="utf-8")
    before = path.read_bytes()
    proc = run("replay", str(path), "--json")
    assert proc.returncode == 2
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == "move_refused" and error["details"]["save"]["params"]["number"] == 3
    assert path.read_bytes() == before


@pytest.mark.parametrize("lang", ["ur", "hi", "te"])
def test_a_position_error_names_the_seat_in_the_readers_words(lang: str) -> None:
    # The notation writes seats as letters ("W"); a translated message must not show them.
    text = FROZEN.read_text(encoding="utf-8").replace("W: ?11", "W: -")
    proc = run("moves", "-", "--lang", lang, stdin=text)
    assert proc.returncode == 2, proc.stderr
    tr = get_translator(lang)
    assert tr.seat("W") in proc.stderr, proc.stderr
    assert not re.search(r"(?<![A-Za-z])W(?![A-Za-z])", proc.stderr.split("\n")[0]), proc.stderr


# ---------------------------------------------------------------------------- issue 8
# F6-F13: unsupported rules, Unicode counts, absurd numbers, bad saves, non-UTF-8 argv,
# input limits, closed or full standard output.  Always exit 2 (or 4 for the output),
# never 3, never a traceback.


def run_raw(args: list[str | bytes], *, stdout: object = subprocess.PIPE,
            stdin: object = subprocess.DEVNULL, encoding: str = "utf-8",
            shell_redirect: str = "") -> subprocess.CompletedProcess[bytes]:  # fmt: skip
    """The CLI with byte arguments and a chosen stdout (``shell_redirect``: e.g. ``>&-``)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": encoding,
           "LC_ALL": "C.UTF-8"}  # fmt: skip
    command: list[str | bytes] = [sys.executable, "-m", "canasta_teach", *args]
    if shell_redirect:
        command = ["sh", "-c", f'"$@" {shell_redirect}', "sh", *command]
    proc = subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, stdin=stdin,
                          env=env, cwd=ROOT, timeout=60)  # type: ignore[call-overload]  # fmt: skip
    for stream in (proc.stdout or b"", proc.stderr):
        assert b"Traceback" not in stream and b"Internal error" not in stream, proc.stderr
    return proc  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (MAX_WILDS_5, "option_out_of_range"),  # F6: exit 3 from legal_moves before
        (MAX_WILDS_5.replace("max_wilds=5", "max_wilds=4"), "option_out_of_range"),
        (MAX_WILDS_5.replace("max_wilds=5", "canasta_size=3"), "unsupported_option_value"),
        ("rules: classic4\nturn: S draw\nS: ?²\nW: ?11\nN: ?11\nE: ?11\n", "bad_count"),  # F7
        (f"rules: classic4\nscores: NS {'1' * 5000}, EW 0\nturn: S draw\nS: ?11\nW: ?11\n"
         "N: ?11\nE: ?11\n", "number_out_of_range"),  # F8
        (f"rules: classic4\nturn: S draw\nS: ?11\nW: ?11\nN: ?11\nE: ?11\nseed: {'7' * 5000}\n",
         "seed_too_long"),
        ("rules: classic4 canasta_size=3\nturn: S ended\nS: -\nW: ?11\nN: ?11\nE: ?11\n"
         "NS melds: K K K | 7 7 7\npile: ?1\nstock: rest\nended: out S\n",
         "unsupported_option_value"),  # F12
        ("rules: classic4\nturn: S ended\nS: -\nW: ?11\nN: ?11\nE: ?11\n"
         "NS melds: K K K | 7 7 7\npile: ?1\nstock: rest\nended: out S\n",
         "end_needs_canastas"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("command", ["moves", "score", "explain"])
def test_positions_the_engine_cannot_play_exit_2(
    tmp_path: Path, text: str, code: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "position.txt"
    path.write_text(text, encoding="utf-8")
    extra = ["meld 9 9 JK 2 2"] if command == "explain" else []
    assert cli.main([command, str(path), *extra, "--json"]) == cli.EXIT_BAD_INPUT
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == code and error["details"]["notation"]["code"] == code
    for lang in ("en", "ur"):
        assert cli.main([command, str(path), *extra, "--lang", lang]) == cli.EXIT_BAD_INPUT
        captured = capsys.readouterr()
        assert captured.out == "" and "Traceback" not in captured.err
        assert len(captured.err) < 600  # a 5,000-digit number is quoted by its start


def test_the_new_notation_errors_have_english_catalog_messages() -> None:
    tr = get_translator("en")
    for code in ("number_out_of_range", "option_out_of_range", "unsupported_option_value",
                 "seed_too_long", "end_holds_cards", "end_needs_canastas"):  # fmt: skip
        assert tr.text("engine", f"notation.{code}") != f"notation.{code}"
    assert tr.text("engine", "save.number_too_long", path="x") != "save.number_too_long"


@pytest.mark.parametrize(
    ("content", "code"),
    [
        ('{"format":"canasta-teach/game","version":1,"rules":{"name":"classic4"},'
         f'"seed":{"1" * 5000},"moves":[]}}', "number_too_long"),  # F8
        ('{"format": "canasta-teach/game", "version": 1, "rules": {"name": "classic4"}, '
         '"seed": "\\ud800", "moves": []}', "bad_field"),  # F9
        ('{"format": "canasta-teach/game", "version": 1, "rules": {"name": "classic4", '
         '"max_wilds": 5}, "seed": 1, "moves": ["draw"]}', "bad_rule_value"),  # F6
        ('{"format": "canasta-teach/game", "version": 1, "rules": {"name": "classic4", '
         '"canasta_size": 3}, "seed": 1, "moves": []}', "bad_rule_value"),  # F12
        ('{"format": "canasta-teach/game", "version": 1, "rules": {"name": "classic4"}, '
         '"seed": 1, "moves": ["meld \\udcff"]}', "bad_move"),
    ],
)  # fmt: skip
def test_saves_that_cannot_be_played_exit_2(tmp_path: Path, content: str, code: str) -> None:
    path = tmp_path / "save.json"
    path.write_text(content, encoding="utf-8")
    for encoding in ("utf-8", "utf-8:strict"):
        proc = run_raw(["replay", str(path), "--json"], encoding=encoding)
        assert proc.returncode == 2
        assert json.loads(proc.stdout)["error"]["code"] == code
        human = run_raw(["replay", str(path)], encoding=encoding)
        assert human.returncode == 2 and human.stdout == b"" and human.stderr


def test_json_output_survives_argv_bytes_that_are_not_utf8() -> None:
    # F10: ensure_ascii=False wrote the \udcff surrogate to a strict UTF-8 stdout: exit 3.
    proc = run_raw(["explain", str(FROZEN), b"meld \xff", "--json"], encoding="utf-8:strict")
    assert proc.returncode == 2
    error = json.loads(proc.stdout.decode("utf-8"))["error"]  # valid UTF-8, valid JSON
    assert error["code"] == "bad_card" and error["details"]["notation"]["token"] == "\ufffd"
    text = run_raw(["explain", str(FROZEN), b"meld \xff"], encoding="utf-8:strict")
    assert text.returncode == 2 and b"'\\xff' is not a card" in text.stderr
    # Elsewhere in argv too: a path, a language, a command.
    assert run_raw(["moves", b"pos\xff.txt", "--json"], encoding="utf-8:strict").returncode == 2
    assert run_raw(["moves", str(FROZEN), "--lang", b"\xff"]).returncode == 2
    assert run_raw([b"mov\xffes", str(FROZEN), "--json"], encoding="utf-8:strict").returncode == 2


def test_input_over_its_limit_is_refused_at_once(tmp_path: Path) -> None:
    # F11: /dev/zero was read until memory ran out.
    for args in (["moves", "/dev/zero"], ["explain", str(FROZEN), "@/dev/zero"]):
        proc = run_raw([*args, "--json"])
        assert proc.returncode == 2
        error = json.loads(proc.stdout)["error"]
        assert error["code"] == "too_large" and error["details"]["path"] == "/dev/zero"
    with open("/dev/zero", "rb") as zero:
        proc = run_raw(["score", "-"], stdin=zero)
    assert proc.returncode == 2 and b"more than 1,048,576 bytes" in proc.stderr
    big = tmp_path / "big.txt"
    big.write_bytes(FROZEN.read_bytes() + b"#" * cli.MAX_POSITION_BYTES)
    assert run_raw(["moves", str(big)]).returncode == 2
    padded = tmp_path / "padded.txt"  # exactly at the limit: read
    padded.write_bytes(FROZEN.read_bytes().ljust(cli.MAX_POSITION_BYTES, b"\n"))
    assert run_raw(["moves", str(padded)]).returncode == 0


def test_moves_over_their_limit_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = "draw; " * (cli.MAX_MOVES_BYTES // 6 + 1)
    assert cli.main(["explain", str(FROZEN), long, "--json"]) == cli.EXIT_BAD_INPUT
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "too_large" and error["details"]["limit"] == "65,536"
    path = tmp_path / "moves.txt"
    path.write_text(long, encoding="utf-8")
    assert cli.main(["explain", str(FROZEN), f"@{path}"]) == cli.EXIT_BAD_INPUT
    assert "65,536" in capsys.readouterr().err
    assert cli.main(["explain", str(FROZEN), "draw; discard 9"]) in (0, 1)


@pytest.mark.parametrize(
    "args", [["moves", str(FROZEN)], ["score", str(FROZEN), "--json"], ["--help"],
             ["replay", "missing.json", "--json"]],
)  # fmt: skip
@pytest.mark.parametrize("redirect", [">&-", ">/dev/full"])
def test_a_closed_or_full_stdout_is_not_an_internal_error(args: list[str], redirect: str) -> None:
    # F13: both gave exit 3 and "Internal error ... please report".
    proc = run_raw(list(args), stdout=None, shell_redirect=redirect)
    assert proc.returncode == cli.EXIT_OUTPUT == 4
    assert proc.stderr.decode().startswith("Cannot write the output: "), proc.stderr
    assert b"Exception ignored" not in proc.stderr and len(proc.stderr.splitlines()) == 1


def test_a_closed_stderr_with_an_error_to_report_exits_4_quietly() -> None:
    proc = run_raw(["moves", "missing.txt"], shell_redirect="2>&-")
    assert proc.returncode == 4 and proc.stdout == b"" and proc.stderr == b""


def test_a_closed_stdin_is_unreadable() -> None:
    proc = run_raw(["moves", "-"], shell_redirect="<&-")
    assert proc.returncode == 2 and b"Cannot read standard input" in proc.stderr
