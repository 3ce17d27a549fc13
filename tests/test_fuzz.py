"""Fuzzers kept in the suite (issue 8): the command line, and random positions.

- ``cli_fuzz``: ``canasta_teach.cli.main`` in-process with random and mutated positions,
  moves, saved games and flags.  Every run exits 0, 1 or 2 (never 3, the internal error),
  prints no traceback, and with ``--json`` prints one JSON document.
- ``position_fuzz``: random positions under random rule sets drawn from every option the
  notation accepts (and values it must refuse): parse -> legal_moves -> check and apply
  every legal move -> score -> views -> round trip.  The only exception allowed is the
  documented ``NotationError`` of a position that cannot be read.

Each runs for a time budget: ``CANASTA_FUZZ_SECONDS`` (default 3 s each), with the seed
``CANASTA_FUZZ_SEED`` (default: new each run, printed with any failure).  ``make bench``
runs them for longer (``benchmarks/fuzz_bench.py``)::

    CANASTA_FUZZ_SECONDS=300 python -m pytest -q -s tests/test_fuzz.py
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from engine_helpers import choose, junk_moves
from test_engine_properties import random_position

from canasta_teach import cli
from canasta_teach.engine.cards import TOKENS
from canasta_teach.engine.game import Game
from canasta_teach.engine.notation import NotationError, format_position, parse_position
from canasta_teach.engine.rules import (
    CLASSIC2,
    CLASSIC4,
    INT_RANGES,
    TEXT_VALUES,
    RuleRangeError,
    RuleSet,
    int_range,
)
from canasta_teach.engine.savefile import game_to_json
from canasta_teach.engine.scoring import score_hand
from canasta_teach.engine.state import Phase, State
from canasta_teach.engine.view import player_view

ROOT = Path(__file__).resolve().parent.parent
SECONDS = float(os.environ.get("CANASTA_FUZZ_SECONDS", "3"))
STRICT = True
SEED = int(os.environ.get("CANASTA_FUZZ_SEED", str(time.time_ns() % 2**32)))


@dataclass
class Figures:
    """What a fuzz run did: cases run, by outcome, and the time it took."""

    name: str
    cases: int = 0
    seconds: float = 0.0
    outcomes: Counter[str] = field(default_factory=Counter)

    def __str__(self) -> str:
        rate = self.cases / self.seconds if self.seconds else 0.0
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items()))
        return (f"{self.name}: {self.cases} cases in {self.seconds:.1f} s ({rate:.0f}/s; "
                f"seed {SEED}): {kinds}")  # fmt: skip


# ---------------------------------------------------------------------------- rule sets


def random_rules(rng: random.Random, wrong: float = 0.0) -> dict[str, str]:
    """Rule options as the notation writes them (``name -> value``), drawn from every
    option and its whole range; with probability ``wrong`` per option, a value the engine
    must refuse (just outside the range, absurdly long, Unicode digits, not a number)."""
    players = rng.choice([2, 4])
    options: dict[str, str] = {}
    if rng.random() < 0.5:
        options["players"] = str(players)
    for f in fields(RuleSet):
        if f.name in ("name", "players") or rng.random() < 0.4:
            continue
        if f.name in TEXT_VALUES:
            options[f.name] = rng.choice(TEXT_VALUES[f.name])
        elif isinstance(getattr(CLASSIC4, f.name), bool):
            options[f.name] = rng.choice(["yes", "no", "on", "off", "true", "false"])
        else:
            low, high = int_range(f.name, players)
            options[f.name] = str(rng.choice([low, high, rng.randint(low, high)]))
        if rng.random() < wrong:
            options[f.name] = rng.choice(WRONG_VALUES)(f.name)
    return options


WRONG_VALUES: list[Callable[[str], str]] = [
    lambda name: str(INT_RANGES.get(name, (0, 1))[1] + 1),
    lambda name: str(INT_RANGES.get(name, (0, 1))[0] - 1),
    lambda name: "9" * 5000,
    lambda name: "٣",
    lambda name: "²",
    lambda name: "maybe",
    lambda name: "",
]


def rules_of(base: RuleSet, options: dict[str, str]) -> RuleSet | None:
    """The rule set the options name, or None when it is not one the engine plays."""
    values: dict[str, Any] = {}
    for name, text in options.items():
        if isinstance(getattr(base, name), bool):
            if text not in ("yes", "no", "on", "off", "true", "false"):
                return None
            values[name] = text in ("yes", "on", "true")
        elif name in TEXT_VALUES:
            if text not in TEXT_VALUES[name]:
                return None
            values[name] = text
        elif text.isascii() and text.lstrip("-").isdigit() and len(text) < 12:
            values[name] = int(text)
        else:
            return None
    try:
        rules = base.with_options(**values)
    except RuleRangeError:
        return None  # a number no family plays: refused when the rule set is built
    for name in INT_RANGES:
        low, high = int_range(name, rules.players)
        if not low <= getattr(rules, name) <= high or rules.players not in (2, 4):
            return None
    return rules


def rules_line(base: RuleSet, options: dict[str, str]) -> str:
    return " ".join([f"rules: {base.name}", *(f"{k}={v}" for k, v in options.items())])


# ---------------------------------------------------------------------------- positions


def played_position(rules: RuleSet, rng: random.Random) -> State:
    """A state of a randomly played hand (sometimes its end)."""
    state = State.deal(rng.randrange(2**32), rules, scores=(rng.choice([0, 1600, 3200]), 0))
    for _ in range(rng.choice([0, 3, 10, 40, 200, 2000])):
        if state.is_over:
            break
        state.play(choose(rng, state.legal_moves(), rng.choice([0.0, 0.8, 0.95])))
    return state


def position_text(rng: random.Random, wrong: float = 0.0) -> tuple[str, RuleSet | None]:
    """A position as text: random play or a random (maybe unreachable) position, under
    random rule options; the rule set it names (None when those options are refused)."""
    base = rng.choice([CLASSIC4, CLASSIC2])
    options = random_rules(rng, wrong)
    rules = rules_of(base, options)
    state_rules = rules or base
    state = played_position(state_rules, rng) if rng.random() < 0.5 else random_position(
        state_rules, rng)  # fmt: skip
    lines = format_position(state).splitlines()
    lines[0] = rules_line(base, options)
    if rng.random() < 0.3:
        lines.append(f"seed: {rng.choice([rng.randrange(10**6), 'lesson', '-3', '١٢'])}")
    return "\n".join(lines) + "\n", rules


NOISE = [
    *TOKENS, "?", "?3", "?0", "?108", "?109", "?200", "rest", "-", "|", ":", ",", "=", "S", "W",
    "N", "E", "NS", "EW", "meld", "draw", "answer", "ended", "out", "concealed", "stock", "yes",
    "0", "-5", "999999999", "1000000000", "99999999999999999999", "1" * 5000, "?" + "9" * 400,
    "?²", "?١١", "١١", "٣", "²", "took-pile", "asked=yes", "created=K", "has-melded=S",
    "penalty-NS=100", "penalty-EW=" + "9" * 5000, "T", "jk", "3", "x", "#", "classic2",
    "players=2", "players=3", "max_wilds=0", "max_wilds=4", "max_wilds=5", "canasta_size=3",
    "canasta_size=7", "hand_size=41", "hand_size=200", "draw_count=0", "game_target=0",
    "canastas_to_go_out=0", "\u200f", "\ufeff", "\x00", "é", "NaN",
]  # fmt: skip
LINES = [
    "ended: out S", "ended: concealed N", "ended: stock W", "turn: S ended", "turn: N meld",
    "turn: S answer", "set aside: 7 7 7", "flags: took-pile melded-this-turn", "hand: 3",
    "dealer: W", "NS red threes: 2", "scores: NS 5000, EW -40", "seed: 7", "stock: -",
    "pile: 7 JK 3R", "S: -", "N: ?15", "NS melds: K K K K K K K",
]  # fmt: skip


def mutate(text: str, rng: random.Random) -> str:
    lines = text.splitlines()
    for _ in range(rng.randint(1, 3)):
        action = rng.choice(["replace", "insert", "delete", "line", "drop", "dup", "case"])
        if not lines:
            lines = [rng.choice(LINES)]
        i = rng.randrange(len(lines))
        tokens = lines[i].split(" ")
        j = rng.randrange(len(tokens))
        if action == "replace":
            tokens[j] = rng.choice(NOISE)
        elif action == "insert":
            tokens.insert(j, rng.choice(NOISE))
        elif action == "delete" and len(tokens) > 1:
            del tokens[j]
        elif action == "line":
            lines.insert(i, rng.choice(LINES))
        elif action == "drop":
            del lines[i]
            continue
        elif action == "dup":
            lines.insert(i, lines[i])
        else:
            tokens[j] = tokens[j].swapcase()
        if lines:
            lines[i] = " ".join(tokens)
    return "\n".join(lines) + "\n"


def corpus() -> list[str]:
    texts = [(ROOT / "examples" / "frozen-pile.txt").read_text(encoding="utf-8")]
    texts += [p.read_text(encoding="utf-8") for p in sorted(ROOT.glob("lessons/puzzles/*/*.txt"))]
    return texts


# ---------------------------------------------------------------------------- the CLI


def _bytes_of(text: str, rng: random.Random) -> bytes:
    data = text.encode("utf-8")
    roll = rng.random()
    if roll < 0.05:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
    if roll < 0.1:
        return data[: rng.randint(0, len(data))]
    if roll < 0.15 and data:
        flipped = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        return bytes(flipped)
    if roll < 0.17:
        return b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n")
    if roll < 0.18:
        return data.decode().encode("utf-16")
    return data


def _move_text(state: State | None, rng: random.Random) -> str:
    roll = rng.random()
    if state is not None and roll < 0.6:
        legal = state.legal_moves()
        pool = [str(m) for m in legal] + [str(m) for m in junk_moves(state, rng, count=3)[:8]]
        moves = [rng.choice(pool) for _ in range(rng.randint(1, 4))] if pool else ["draw"]
        text = rng.choice(["; ", "\n", ";"]).join(moves)
    else:
        text = " ".join(rng.choice(NOISE + ["draw", "take", "add", "discard", "ask", "answer",
                                            "meld", "7:"])
                        for _ in range(rng.randint(0, 5)))  # fmt: skip
    if rng.random() < 0.05:
        text += " \udcff"  # an argv byte that is not UTF-8
    if rng.random() < 0.01:
        text = "draw; " * 11_000  # over the 64 KB limit
    return text


def _save_bytes(rng: random.Random) -> bytes:
    base = rng.choice([CLASSIC4, CLASSIC2])
    rules = rules_of(base, random_rules(rng)) or base
    game = Game(rules, rng.choice([rng.randrange(2**40), "daily", "٣"]))
    for _ in range(rng.choice([0, 5, 60, 300])):
        if game.is_over:
            break
        game.apply(choose(rng, game.state.legal_moves()))
    doc: Any = game_to_json(game)
    roll = rng.random()
    if roll < 0.5:
        target = doc if rng.random() < 0.5 else doc["rules"]
        key = rng.choice([*target.keys(), "extra"])
        target[key] = rng.choice([
            None, True, -1, 0, 4, 5, 99, 10**20, 10**4000, 1.5, "", "x", "\ud800", "٣", [], {},
            [[[]]], "classic4", "meld \udcff", rng.choice(NOISE),
        ])  # fmt: skip
    elif roll < 0.6 and doc["moves"]:
        doc["moves"][rng.randrange(len(doc["moves"]))] = rng.choice(NOISE)
    text = json.dumps(doc)
    if rng.random() < 0.05:
        text = text.replace('"seed": ', '"seed": ' + "1" * 5000 + " and ", 1)
    return _bytes_of(text, rng) if rng.random() < 0.3 else text.encode("utf-8", "surrogatepass")


def _flags(rng: random.Random) -> tuple[list[str], list[str]]:
    before: list[str] = []
    after: list[str] = []
    if rng.random() < 0.5:
        (before if rng.random() < 0.3 else after).append("--json")
    if rng.random() < 0.5:
        lang = [
            "--lang",
            rng.choice(["en", "ur", "hi", "te", "ur_PK", "hi-IN", "xx", "", "\udcff"]),
        ]
        (before if rng.random() < 0.3 else after).extend(lang)
    if rng.random() < 0.03:
        after.append(rng.choice(["--bogus", "--lang", "-h", "extra", "--position"]))
    return before, after


@dataclass
class _Run:
    argv: list[str]
    stdin: bytes = b""


def cli_case(rng: random.Random, folder: Path, texts: list[str]) -> _Run:
    command = rng.choices(["explain", "moves", "score", "replay", "none"], [4, 2, 2, 2, 0.2])[0]
    before, after = _flags(rng)
    stdin = b""
    if command == "replay":
        path = folder / "save.json"
        path.write_bytes(_save_bytes(rng))
        args = [str(path)] + (["--position"] if rng.random() < 0.5 else [])
        if rng.random() < 0.02:
            args = [rng.choice(["/dev/zero", str(folder), str(folder / "missing.json")])]
        return _Run([*before, "replay", *args, *after])
    if command == "none":
        return _Run(rng.choice([[], ["--help"], ["explain"], ["moves", "a", "b"], ["dance"]]))
    roll = rng.random()
    rules: RuleSet | None = None
    if roll < 0.35:
        text, rules = position_text(rng, wrong=0.05)
    else:
        text = rng.choice(texts)
    if rng.random() < 0.6:
        text = mutate(text, rng)
    data = _bytes_of(text, rng)
    try:
        state: State | None = parse_position(data.decode("utf-8-sig"))
    except (NotationError, UnicodeDecodeError):
        state = None
    if rng.random() < 0.2:
        position, stdin = "-", data
    else:
        position = str(folder / "position.txt")
        Path(position).write_bytes(data)
    if rng.random() < 0.01:
        position = rng.choice(["/dev/zero", str(folder), str(folder / "missing.txt")])
    args = [command, position]
    if command == "explain":
        move = _move_text(state, rng)
        if rng.random() < 0.1:
            (folder / "moves.txt").write_bytes(_bytes_of(move.replace("\udcff", "?"), rng))
            move = "@" + str(folder / "moves.txt")
        args.append(move)
    del rules
    return _Run([*before, *args, *after], stdin)


def run_main(case: _Run) -> tuple[int, str, str, str]:
    """``cli.main`` with captured streams; the traceback of any exception it swallowed."""
    out, err = io.StringIO(), io.StringIO()
    caught: list[str] = []
    real_run = cli._run

    def spy(*args: Any) -> int:
        try:
            return real_run(*args)
        except cli._InputError:
            raise
        except Exception:
            caught.append(traceback.format_exc())
            raise

    stdin = io.TextIOWrapper(io.BytesIO(case.stdin), encoding="utf-8")
    saved = sys.stdin
    cli._run = spy  # type: ignore[assignment]
    try:
        sys.stdin = stdin
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(case.argv)
    finally:
        cli._run = real_run  # type: ignore[assignment]
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue(), "".join(caught)


def cli_fuzz(seconds: float, seed: int, folder: Path) -> Figures:
    rng = random.Random(seed)
    texts = corpus()
    figures = Figures("CLI fuzz")
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        case = cli_case(rng, folder, texts)
        code, out, err, caught = run_main(case)
        figures.cases += 1
        figures.outcomes[f"exit {code}"] += 1
        shown = f"argv={[a[:200] for a in case.argv]!r} stdin={case.stdin[:200]!r}"
        assert code in (0, 1, 2), f"exit {code} (seed {seed}): {shown}\n{caught}{err[:500]}"
        assert "Traceback" not in out + err, f"{shown}\n{out[:500]}{err[:500]}"
        if "--json" in case.argv and not {"-h", "--help"} & set(case.argv) and out.strip():
            json.loads(out)  # one JSON document
    figures.seconds = time.perf_counter() - start
    return figures


# ---------------------------------------------------------------------------- positions


def _round_trip(state: State, figures: Figures, where: str) -> None:
    try:
        again = parse_position(format_position(state))
    except NotationError as exc:
        if STRICT:
            raise AssertionError(f"{where}: not re-read: {exc}\n{format_position(state)}") from exc
        figures.outcomes[f"{where} not re-read ({exc.code})"] += 1
        return
    assert again == state, f"{where}: the round trip changed the state"
    assert format_position(again) == format_position(state)


RULE_REFUSALS = {"option_out_of_range", "unsupported_option_value", "bad_option_value",
                 "bad_number", "number_out_of_range"}  # fmt: skip


def position_case(rng: random.Random, figures: Figures) -> None:
    text, rules = position_text(rng, wrong=0.04)
    mutated = rng.random() < 0.25
    if mutated:
        text = mutate(text, rng)
    try:
        state = parse_position(text)
    except NotationError as exc:
        assert exc.code and str(exc)
        if not mutated and rules is None:
            assert (exc.code, exc.line) in {(c, 1) for c in RULE_REFUSALS}, str(exc)
        figures.outcomes[f"refused: {exc.code}"] += 1
        return
    figures.outcomes["parsed"] += 1
    if not mutated:
        # Options outside what the engine plays are refused; the others are the rules.
        assert rules is not None, f"accepted {text.splitlines()[0]!r}"
        assert state.rules == rules
    # Every legal move is legal to check and plays; the rest are refused with a reason.
    legal = state.legal_moves()
    assert bool(legal) != (state.phase is Phase.ENDED), "no move, or moves after the end"
    score_hand(state)
    for seat in range(state.players):
        json.dumps(player_view(state, seat))
    _round_trip(state, figures, "parsed")
    listed = set(legal)
    for move in junk_moves(state, rng, count=3) if legal else []:
        verdict = state.check(move)
        assert verdict.legal or verdict.reason is not None
    for i, move in enumerate(legal):
        verdict = state.check(move)
        assert verdict.legal, f"listed {move} is refused: {verdict.reason}"
        after = state.copy()
        assert after.apply(move).legal
        assert move in listed
        figures.outcomes["moves applied"] += 1
        score_hand(after)
        if i < 3 or rng.random() < 0.05:
            after.legal_moves()
            json.dumps(player_view(after, after.to_move))
            _round_trip(after, figures, "after a move")


def position_fuzz(seconds: float, seed: int) -> Figures:
    rng = random.Random(seed)
    figures = Figures("position fuzz")
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        figures.cases += 1
        try:
            position_case(rng, figures)
        except AssertionError as exc:
            raise AssertionError(f"seed {seed}, case {figures.cases}: {exc}") from exc
    figures.seconds = time.perf_counter() - start
    return figures


# ---------------------------------------------------------------------------- the tests


def test_cli_fuzz_never_exits_3_nor_shows_a_traceback(tmp_path: Path) -> None:
    figures = cli_fuzz(SECONDS, SEED, tmp_path)
    print(figures)
    assert figures.cases >= 20
    assert figures.outcomes["exit 2"] and figures.outcomes["exit 0"] + figures.outcomes["exit 1"]


def test_position_fuzz_every_rule_option() -> None:
    figures = position_fuzz(SECONDS, SEED)
    print(figures)
    assert figures.cases >= 20
    assert figures.outcomes["parsed"] and figures.outcomes["moves applied"]
    assert any(k.startswith("refused") for k in figures.outcomes)


def test_the_fuzz_rule_sets_cover_every_option() -> None:
    rng = random.Random(SEED)
    seen: set[str] = set()
    for _ in range(300):
        seen |= set(random_rules(rng))
    assert seen == {f.name for f in fields(RuleSet)} - {"name"}
