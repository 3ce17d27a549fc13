"""Puzzle sets: data beside the lessons, never code.

A set is a folder ``lessons/puzzles/<set-name>/`` with a ``set.toml`` listing its puzzles in
order, each a position file in the project's notation (``docs/notation.md``)::

    game = "build-a-meld"            # optional; defaults to the folder name

    [[puzzle]]
    file = "01-three-kings.txt"
    goal = "meld"                    # or "take_or_explain"
    rank = "K"                       # optional: the meld must be of this rank
    proposed = "7 7 2 JK JK"         # optional (goal "meld"): judge this meld first
    choices = ["C-PILE-3", "C-BLK-1"]  # optional (goal "take_or_explain"): reasons offered

The learner is always the seat to move in the position.  ``load_set`` checks every puzzle
against the engine (a meld puzzle has a legal answer, a proposed meld comes from the hand,
offered reasons include the right one), so a broken puzzle fails in the tests, not in class.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from canasta_teach.engine import Kind, Meld, Reason, State, TakePile
from canasta_teach.engine.cards import NUM_KINDS, TOKENS, parse_kind
from canasta_teach.engine.moves import canonical
from canasta_teach.engine.notation import NotationError, parse_position
from canasta_teach.engine.reasons import RULES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

GOALS = ("meld", "take_or_explain")
PUZZLES_FOLDER = "puzzles"
#: Rules that stop a pile pickup: the reasons a take-the-pile puzzle offers by default.
TAKE_RULES = ("C-PILE-3", "C-BLK-1", "C-PILE-6", "C-PILE-5", "C-PILE-2", "C-PILE-4", "C-FRZ-2")
CHOICES_SHOWN = 4


class PuzzleError(ValueError):
    """A puzzle set that cannot be used, with the file at fault (for authors, in English)."""


@dataclass(frozen=True)
class Puzzle:
    name: str  # the position file's name
    goal: str
    position: str  # the notation text
    rank: Kind | None = None
    proposed: tuple[Kind, ...] | None = None
    choices: tuple[str, ...] | None = None

    def state(self) -> State:
        """A fresh engine state of the position (every call: retries start clean)."""
        return parse_position(self.position)


@dataclass(frozen=True)
class PuzzleSet:
    name: str
    game: str
    folder: Path
    puzzles: tuple[Puzzle, ...]


def find_puzzle_set(name: str, start: Path | None = None) -> Path | None:
    """The folder of puzzle set ``name``: looked for as ``puzzles/<name>`` or
    ``lessons/puzzles/<name>`` in ``start`` (the working directory: Voilà and nbval run a
    notebook in its own folder, ``lessons/<lang>/``) and each of its parents."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        return None
    here = (start or Path.cwd()).absolute()
    for folder in (here, *here.parents):
        for candidate in (
            folder / PUZZLES_FOLDER / name,
            folder / "lessons" / PUZZLES_FOLDER / name,
        ):
            if (candidate / "set.toml").is_file():
                return candidate
    return None


def _cards(text: Any, where: str) -> tuple[Kind, ...]:
    if not isinstance(text, str) or not text.split():
        raise PuzzleError(f'{where}: expected cards such as "7 7 2 JK"')
    try:
        return canonical([parse_kind(t) for t in text.split()])
    except ValueError as err:
        raise PuzzleError(f"{where}: {err.args[0]!r} is not a card") from None


def _read_puzzle(folder: Path, entry: Any, number: int) -> Puzzle:
    where = f"{folder / 'set.toml'}, puzzle {number}"
    if not isinstance(entry, dict):
        raise PuzzleError(f"{where}: expected a [[puzzle]] table")
    unknown = set(entry) - {"file", "goal", "rank", "proposed", "choices"}
    if unknown:
        raise PuzzleError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    file_name = entry.get("file")
    goal = entry.get("goal")
    if not isinstance(file_name, str) or not file_name:
        raise PuzzleError(f"{where}: 'file' is missing")
    if goal not in GOALS:
        raise PuzzleError(f"{where}: 'goal' must be one of {', '.join(GOALS)}")
    path = folder / file_name
    if path.resolve().parent != folder.resolve() or not path.is_file():
        raise PuzzleError(f"{where}: no file {file_name!r} in {folder}")
    position = path.read_text(encoding="utf-8")
    rank = None
    if "rank" in entry:
        try:
            rank = parse_kind(str(entry["rank"]))
        except ValueError:
            raise PuzzleError(f"{where}: rank {entry['rank']!r} is not a card") from None
    proposed = _cards(entry["proposed"], f"{where}, proposed") if "proposed" in entry else None
    choices = None
    if "choices" in entry:
        raw = entry["choices"]
        if not isinstance(raw, list) or not all(isinstance(c, str) and c in RULES for c in raw):
            raise PuzzleError(f"{where}: 'choices' must be a list of rule ids")
        choices = tuple(raw)
    puzzle = Puzzle(file_name, goal, position, rank, proposed, choices)
    _validate(puzzle, f"{where} ({file_name})")
    return puzzle


def legal_melds(state: State, rank: Kind | None) -> list[Meld]:
    """The legal new melds (of ``rank`` when given) for the seat to move."""
    return [
        m
        for m in state.legal_moves()
        if isinstance(m, Meld) and (rank is None or max(m.cards) == rank)
    ]


def legal_takes(state: State) -> list[TakePile]:
    return [m for m in state.legal_moves() if isinstance(m, TakePile)]


def best_take_attempt(state: State) -> TakePile:
    """The pickup a learner would try: the natural cards of the top card's rank they hold
    (at most two), plus one wild card when they hold only one natural."""
    top = state.pile_top
    if top is None:
        return TakePile(())
    hand = state.hands[state.current]
    naturals = min(hand[top], 2) if top.is_natural else 0
    cards: list[Kind] = [top] * naturals
    if naturals == 1:
        wild = Kind.JOKER if hand[Kind.JOKER] else (Kind.TWO if hand[Kind.TWO] else None)
        if wild is not None:
            cards.append(wild)
    return TakePile(canonical(tuple(cards)))


def take_refusal(state: State) -> Reason | None:
    """Why the seat to move may not take the pile (None when some pickup is legal)."""
    if legal_takes(state):
        return None
    return state.check(best_take_attempt(state)).reason


def _validate(puzzle: Puzzle, where: str) -> None:
    try:
        state = puzzle.state()
    except NotationError as err:
        raise PuzzleError(f"{where}: {err}") from None
    if state.is_over:
        raise PuzzleError(f"{where}: the hand is over; nothing to play")
    hand = state.hands[state.current]
    if puzzle.goal == "meld":
        if puzzle.choices is not None:
            raise PuzzleError(f"{where}: 'choices' belongs to take_or_explain puzzles")
        if not legal_melds(state, puzzle.rank):
            rank = f" of {TOKENS[puzzle.rank]}" if puzzle.rank is not None else ""
            raise PuzzleError(f"{where}: no legal meld{rank} can be made from the hand")
        if puzzle.proposed is not None:
            need = [0] * NUM_KINDS
            for k in puzzle.proposed:
                need[k] += 1
            if any(need[k] > hand[k] for k in range(NUM_KINDS)):
                raise PuzzleError(f"{where}: the proposed meld is not in the hand")
    else:
        if puzzle.rank is not None or puzzle.proposed is not None:
            raise PuzzleError(f"{where}: 'rank' and 'proposed' belong to meld puzzles")
        if state.phase.value != "draw":
            raise PuzzleError(f"{where}: a take-the-pile puzzle starts in the draw phase")
        reason = take_refusal(state)
        if reason is None and not legal_takes(state):  # pragma: no cover - defensive
            raise PuzzleError(f"{where}: the engine gives no reason")
        if puzzle.choices is not None and reason is not None and reason.rule not in puzzle.choices:
            raise PuzzleError(f"{where}: the right reason {reason.rule} is not among the choices")


def load_set(folder: Path) -> PuzzleSet:
    """Read and check a puzzle set folder (raises ``PuzzleError``)."""
    toml_path = folder / "set.toml"
    try:
        data = tomllib.loads(toml_path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise PuzzleError(f"{toml_path}: {err}") from None
    entries = data.get("puzzle")
    if not isinstance(entries, list) or not entries:
        raise PuzzleError(f"{toml_path}: no [[puzzle]] entries")
    game = data.get("game", folder.name)
    if not isinstance(game, str):
        raise PuzzleError(f"{toml_path}: 'game' must be a name")
    puzzles = tuple(_read_puzzle(folder, entry, i + 1) for i, entry in enumerate(entries))
    return PuzzleSet(folder.name, game, folder, puzzles)


def offered_reasons(puzzle: Puzzle, right: str | None, salt: int) -> list[str]:
    """The rule ids offered as answers: the right one (if the pile cannot be taken) and
    distractors, in an order that does not give the answer away (fixed per puzzle)."""
    if puzzle.choices is not None:
        return list(puzzle.choices)
    pool: Sequence[str] = TAKE_RULES
    picked = [right] if right else []
    start = salt % len(pool)
    for i in range(len(pool)):
        rule = pool[(start + i) % len(pool)]
        if rule not in picked:
            picked.append(rule)
        if len(picked) == CHOICES_SHOWN:
            break
    # Rotate so the right answer's place varies from puzzle to puzzle.
    shift = (salt * 7 + 3) % len(picked)
    return picked[shift:] + picked[:shift]
