"""Puzzle sets: data beside the lessons, never code.

A set is a folder ``lessons/puzzles/<set-name>/`` with a ``set.toml`` listing its puzzles in
order, each a position file in the project's notation (``docs/notation.md``)::

    game = "build-a-meld"            # optional; defaults to the folder name

    next_lesson = "04-threes.ipynb"  # optional: the lesson a finished set leads to

    [[puzzle]]
    file = "01-three-kings.txt"
    goal = "meld"                    # see GOALS below
    rank = "K"                       # optional: the meld must be of this rank
    proposed = "7 7 2 JK JK"         # optional (goal "meld"): judge this meld first
    canasta = "natural"              # optional (goal "meld"): the meld must be a canasta
                                     # ("any", "natural" or "mixed")
    choices = ["C-PILE-3", "C-BLK-1"]  # optional (goal "take_or_explain"): reasons offered
    explain = "threes.stop"          # optional: ui message "why.<explain>", shown when solved
    kind = "clean"                   # optional (goal "pile", Hand and Foot): the pile's kind
                                     # ("clean", "dirty" or "wild"; any when left out)
    rules = ["C-BLK-1", "C-PILE-2"]  # the rules the learner needs for this puzzle (what the
                                     # table shows included); each must be taught by the
                                     # puzzle's lesson or an earlier one (tests/test_lessons.py)

Set-wide keys, before the first ``[[puzzle]]``: ``reasons`` (the rule ids a take-or-explain
puzzle without ``choices`` draws its offered reasons from; by default every rule that can stop
a pickup) and ``hide`` (parts of the table a lesson has not taught yet, kept off it:
``"frozen"``, the pile's frozen mark; ``"minimum"``, the first meld's minimum).

Goals:

- ``meld``: lay down a legal new meld (of ``rank``).
- ``take_or_explain``: take the pile if allowed, else choose the rule that stops you.
- ``pile`` (Hand and Foot): complete a pile of seven cards (of ``kind``) with one meld or
  one addition (H-MELD-3); a legal play that makes no such pile is explained, not played.
- ``out_or_explain``: go out if allowed, else choose the rule that stops you (``choices``;
  by default the variant's going-out and pile rules).  Legal plays that do not go out are
  explained, not played; a refused attempt to go out does not print the rule.
- ``turn``: play the whole turn (draw or take the pile, meld if you like, discard); with
  ``require = ["meld"]`` (or ``"take"``, ``"add"``, ``"ask"``) the turn must include that
  move (``go_out`` takes ``require`` too).
- ``first_meld``: make the team's first meld of the hand (reach the minimum).
- ``go_out``: go out this turn (Hand and Foot: from the foot, H-OUT-1); ``concealed = true``
  asks for going out concealed;
  ``partner = "yes"`` or ``"no"`` is the partner's answer to "Partner, may I go out?"
  (the learner may ask; with ``"no"`` use goal ``turn``: finish the turn without going out).
- ``value``: a question about card values, ``question = "count"`` (what the hand counts to)
  or ``"most"`` (which card is worth most); answered with buttons.
- ``score_walk``: a hand that has ended, scored line by line for the learner (the worked
  example); ``score``: the learner enters each team's score lines and totals.

The learner is always the seat to move in the position.  ``load_set`` checks every puzzle
against the engine (a meld puzzle has a legal answer, a proposed meld comes from the hand,
offered reasons include the right one, a turn, first-meld or going-out goal can be reached
by legal moves, a pile puzzle has a play that makes the pile), so a broken puzzle fails in
the tests, not in class.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from canasta_teach.engine import (
    Add,
    Answer,
    AskPartner,
    Discard,
    Draw,
    Kind,
    Meld,
    Move,
    Reason,
    State,
    TakePile,
)
from canasta_teach.engine.cards import NUM_KINDS, TOKENS, VALUES, parse_kind
from canasta_teach.engine.goingout import going_out_plan, plan_going_out
from canasta_teach.engine.moves import canonical
from canasta_teach.engine.notation import NotationError, parse_position
from canasta_teach.engine.reasons import RULES
from canasta_teach.engine.variants import variant_of

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

GOALS = (
    "meld", "take_or_explain", "turn", "first_meld", "go_out", "value", "score_walk", "score",
    "pile", "out_or_explain",
)  # fmt: skip
#: Moves a ``turn`` puzzle may require.
REQUIREMENTS = ("take", "meld", "add", "ask")
QUESTIONS = ("count", "most")
CANASTAS = ("any", "natural", "mixed")
#: Hand and Foot's piles of seven (H-MELD-3): the kinds a ``pile`` puzzle may ask for.
PILE_KINDS = ("clean", "dirty", "wild")
#: How many positions the solver may visit to show that a goal can be reached.
SOLVER_NODES = 20_000
PUZZLES_FOLDER = "puzzles"
#: Rules that stop a pile pickup, and going out: the reasons a take-the-pile or a "can you
#: go out?" puzzle offers by default are the position's own (``State.TAKE_RULES``,
#: ``State.OUT_RULES``; Hand and Foot's are H-PILE-1, H-PILE-2, H-MIN-1 and H-OUT-*).
TAKE_RULES = State.TAKE_RULES
OUT_RULES = State.OUT_RULES
CHOICES_SHOWN = 4
#: Parts of the table a set may keep off it until its lesson has taught them (``hide``).
HIDEABLE = ("frozen", "minimum")


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
    require: tuple[str, ...] = ()
    concealed: bool = False
    partner: bool | None = None  # the partner's answer to "may I go out?", when asked
    question: str | None = None
    explain: str | None = None
    canasta: str | None = None  # a meld puzzle that asks for a canasta: any, natural, mixed
    kind: str | None = None  # a pile puzzle's kind: clean, dirty, wild (None: any)
    rules: tuple[str, ...] = ()  # the rules the learner needs (set.toml ``rules``)
    reasons: tuple[str, ...] | None = None  # the set's pool of offered reasons (``reasons``)

    def state(self) -> State:
        """A fresh engine state of the position (every call: retries start clean)."""
        return parse_position(self.position)


@dataclass(frozen=True)
class PuzzleSet:
    name: str
    game: str
    folder: Path
    puzzles: tuple[Puzzle, ...]
    next_lesson: str | None = None
    hide: frozenset[str] = frozenset()  # table parts kept off it (``hide``)


def find_puzzle_set(name: str, start: Path | None = None) -> Path | None:
    """The folder of puzzle set ``name``: looked for as ``puzzles/<name>`` or
    ``lessons/puzzles/<name>`` in ``start`` (the working directory: Voilà and nbval run a
    notebook in its own folder, ``lessons/<lang>/``) and each of its parents."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        return None
    for root in _puzzle_roots(start):
        if (root / name / "set.toml").is_file():
            return root / name
    return None


def _puzzle_roots(start: Path | None) -> Iterator[Path]:
    """Where puzzle sets may be, nearest first: ``puzzles/`` and ``lessons/puzzles/`` in
    ``start`` (default: the working directory) and in each of its parents."""
    here = (start or Path.cwd()).absolute()
    for folder in (here, *here.parents):
        yield folder / PUZZLES_FOLDER
        yield folder / "lessons" / PUZZLES_FOLDER


def _cards(text: Any, where: str) -> tuple[Kind, ...]:
    if not isinstance(text, str) or not text.split():
        raise PuzzleError(f'{where}: expected cards such as "7 7 2 JK"')
    try:
        return canonical([parse_kind(t) for t in text.split()])
    except ValueError as err:
        raise PuzzleError(f"{where}: {err.args[0]!r} is not a card") from None


def _rule_ids(raw: Any, where: str, key: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(c, str) and c in RULES for c in raw):
        raise PuzzleError(f"{where}: '{key}' must be a list of rule ids")
    return tuple(raw)


def _read_puzzle(
    folder: Path, entry: Any, number: int, reasons: tuple[str, ...] | None = None
) -> Puzzle:
    where = f"{folder / 'set.toml'}, puzzle {number}"
    if not isinstance(entry, dict):
        raise PuzzleError(f"{where}: expected a [[puzzle]] table")
    unknown = set(entry) - {
        "file", "goal", "rank", "proposed", "choices", "require", "concealed", "partner",
        "question", "explain", "canasta", "kind", "rules",
    }  # fmt: skip
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
    choices = _rule_ids(entry["choices"], where, "choices") if "choices" in entry else None
    rules = _rule_ids(entry.get("rules", []), where, "rules")
    require = entry.get("require", [])
    if not isinstance(require, list) or not all(r in REQUIREMENTS for r in require):
        raise PuzzleError(f"{where}: 'require' must list moves among {', '.join(REQUIREMENTS)}")
    concealed = entry.get("concealed", False)
    if not isinstance(concealed, bool):
        raise PuzzleError(f"{where}: 'concealed' must be true or false")
    partner = entry.get("partner")
    if partner not in (None, "yes", "no"):
        raise PuzzleError(f'{where}: \'partner\' must be "yes" or "no"')
    question = entry.get("question")
    if (goal == "value") != (question is not None) or question not in (None, *QUESTIONS):
        raise PuzzleError(f"{where}: a value puzzle, and only one, asks 'question' = count|most")
    explain = entry.get("explain")
    if explain is not None and (not isinstance(explain, str) or not explain.strip()):
        raise PuzzleError(f"{where}: 'explain' must name a message")
    canasta = entry.get("canasta")
    if canasta not in (None, *CANASTAS) or (canasta is not None and goal != "meld"):
        raise PuzzleError(f"{where}: 'canasta' (meld puzzles) is one of {', '.join(CANASTAS)}")
    kind = entry.get("kind")
    if kind not in (None, *PILE_KINDS) or (kind is not None and goal != "pile"):
        raise PuzzleError(f"{where}: 'kind' (pile puzzles) is one of {', '.join(PILE_KINDS)}")
    puzzle = Puzzle(
        file_name, goal, position, rank, proposed, choices, tuple(require), concealed,
        None if partner is None else partner == "yes", question, explain, canasta, kind,
        rules, reasons,
    )  # fmt: skip
    _validate(puzzle, f"{where} ({file_name})")
    return puzzle


def canasta_problem(cards: Sequence[Kind], wanted: str | None) -> str | None:
    """Why a legal meld does not answer a puzzle asking for a canasta (``wanted``): "size"
    (fewer than seven cards), "mixed" (a wild card in a natural one), "natural" (no wild card
    in a mixed one), or None."""
    if wanted is None:
        return None
    if len(cards) < 7:
        return "size"
    wild = any(not Kind(k).is_natural for k in cards)
    if wanted == "natural" and wild:
        return "mixed"
    if wanted == "mixed" and not wild:
        return "natural"
    return None


def legal_melds(state: State, rank: Kind | None, canasta: str | None = None) -> list[Meld]:
    """The legal new melds (of ``rank`` when given, a canasta of the kind ``canasta`` asks
    for when given) for the seat to move."""
    return [
        m
        for m in state.legal_moves()
        if isinstance(m, Meld)
        and (rank is None or max(m.cards) == rank)
        and canasta_problem(m.cards, canasta) is None
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


def stopping_rules(state: State) -> frozenset[str]:
    """Every rule that on its own stops the seat to move from taking the pile (empty when some
    pickup is legal): the engine's refusal, and the rules that say the same of this position
    in other words.  With a black three on top both C-BLK-1 (it stops the next player) and
    C-PILE-2 (never taken under a black three or a wild card) are true; a pile frozen for a
    team without a natural pair is stopped by C-PILE-3 and by what froze it (C-FRZ-1, C-FRZ-2);
    a first meld that no pickup can bring to the minimum, by C-PILE-6.  A quiz accepts each."""
    reason = take_refusal(state)
    if reason is None:
        return frozenset()
    found = {reason.rule}
    top = state.pile_top
    if not state.PILE_FREEZES or top is None:  # a pile that never freezes (H-PILE-1)
        return frozenset(found)
    seat = state.current
    team = seat % 2
    hand = state.hands[seat]
    if top == Kind.BLACK_THREE:
        return frozenset(found | {"C-BLK-1", "C-PILE-2"})
    if top.is_wild:
        return frozenset(found | {"C-PILE-2"})
    if not top.is_natural:
        return frozenset(found)
    if sum(hand) == 1 and len(state.pile) == 1:
        found.add("C-PILE-5")
    frozen = state.frozen_by(team)
    pair = hand[top] >= 2
    if frozen is not None and not pair:
        found.add("C-PILE-3")
        if not state.down[team]:
            found.add("C-FRZ-2")
        if frozen in ("wild", "red_three"):
            found.add("C-FRZ-1")
    if frozen is None and not pair and state.melds[team].get(top) is None:
        wild = hand[Kind.JOKER] + hand[Kind.TWO]
        if hand[top] == 0 or not wild:
            found.add("C-PILE-4")
    if not state.down[team]:
        # The most any pickup could count towards the first meld (C-MIN-2): the top card, every
        # natural of its rank held, and as many wild cards as a meld may hold (C-MELD-2),
        # jokers first.
        wilds = [VALUES[Kind.JOKER]] * hand[Kind.JOKER] + [VALUES[Kind.TWO]] * hand[Kind.TWO]
        most = VALUES[top] * (1 + hand[top]) + sum(wilds[: state.rules.max_wilds])
        if most < state.minimum(team):
            found.add("C-PILE-6")
    return frozenset(found)


def pile_made(before: State, after: State, team: int) -> str | None:
    """The kind of the pile of seven (H-MELD-3) that ``after`` has and ``before`` had not,
    or None (no new pile, or not a Hand and Foot position)."""
    was = [kind for kind, _ in before.complete_piles(team)]
    now = [kind for kind, _ in after.complete_piles(team)]
    for kind in PILE_KINDS:
        if now.count(kind) > was.count(kind):
            return kind
    return None


def pile_problem(state: State, move: Move, wanted: str | None) -> str | None:
    """Why a legal play does not answer a puzzle asking for a pile of kind ``wanted`` (None:
    any kind): "short" (no pile of seven is made) or the kind it would make instead; None
    when it answers it.  The play is tried on a copy."""
    trial = state.copy()
    if not trial.apply(move).legal:
        return None  # the engine's own refusal says why
    made = pile_made(state, trial, state.current % 2)
    if made is None:
        return "short"
    if wanted is not None and made != wanted:
        return made
    return None


def pile_plays(state: State, wanted: str | None) -> list[Meld | Add]:
    """The legal melds and additions that complete a pile of the kind ``wanted`` (any when
    None) for the seat to move."""
    return [
        m
        for m in state.legal_moves()
        if isinstance(m, (Meld, Add)) and pile_problem(state, m, wanted) is None
    ]


def going_out_refusal(state: State) -> Reason | None:
    """Why the seat to move may not go out now (None when it may): the engine's refusal of
    laying the whole hand down, or all of it but one card that is then discarded.  A going-out
    rule's refusal is preferred to a meld's (a card that fits nowhere)."""
    if going_out_plan(state) is not None:
        return None
    hand = state.hands[state.current]
    found: list[Reason] = []
    for discard in (None, *(Kind(k) for k in range(NUM_KINDS - 1, -1, -1) if hand[k])):
        laid = hand[:]
        if discard is not None:
            laid[discard] -= 1
        if not any(laid):
            continue
        reason = plan_going_out(state, laid, discard).reason
        if reason is not None:
            found.append(reason)
    for reason in found:
        if reason.rule in state.OUT_RULES:
            return reason
    return found[0] if found else None


def default_reasons(puzzle: Puzzle) -> Sequence[str]:
    """The rule ids a take-or-explain or go-out-or-explain puzzle offers by default."""
    state = puzzle.state()
    return state.OUT_RULES if puzzle.goal == "out_or_explain" else state.TAKE_RULES


# ---------------------------------------------------------------------- goals


@dataclass
class TurnRecord:
    """What the learner has done in the puzzle's turn (a ``turn`` puzzle may require it)."""

    took: bool = False
    melded: bool = False
    added: bool = False
    asked: bool = False

    def note(self, move: Move) -> None:
        self.took |= isinstance(move, TakePile)
        self.melded |= isinstance(move, Meld)
        self.added |= isinstance(move, Add)
        self.asked |= isinstance(move, AskPartner)

    def missing(self, require: Sequence[str]) -> list[str]:
        done = {"take": self.took, "meld": self.melded, "add": self.added, "ask": self.asked}
        return [r for r in require if not done[r]]


def turn_over(state: State, seat: int) -> bool:
    """The learner's turn has ended: the next seat is to move, or the hand is over."""
    return state.is_over or state.current != seat


def goal_reached(puzzle: Puzzle, state: State, seat: int, record: TurnRecord) -> bool:
    """Whether ``state`` (after the learner's moves, noted in ``record``) answers ``puzzle``."""
    if puzzle.goal == "turn":
        return turn_over(state, seat) and not record.missing(puzzle.require)
    if puzzle.goal == "first_meld":
        return state.down[seat % 2]
    if puzzle.goal in ("go_out", "out_or_explain"):
        end = state.end
        if end is None or end.seat != seat or end.how == "stock":
            return False
        if record.missing(puzzle.require):
            return False
        return end.how == "concealed" or not puzzle.concealed
    return False


def answer_question(state: State, seat: int, question: str) -> tuple[str, list[str]]:
    """A value puzzle's right answer and the choices offered (numbers or card tokens)."""
    hand = state.hands[seat]
    held = [Kind(k) for k in range(NUM_KINDS) if hand[k]]
    if question == "count":
        total = sum(hand[k] * VALUES[k] for k in range(NUM_KINDS))
        # Near misses a learner makes: one card counted at a wrong value (5, 10 or 20 off).
        near = [n for n in (total - 10, total + 10, total + 5, total - 5, total + 20) if n > 0]
        return str(total), [str(n) for n in sorted({total, *near[:3]})]
    best = max(VALUES[k] for k in held)
    return TOKENS[next(k for k in held if VALUES[k] == best)], [TOKENS[k] for k in held]


def _partner_reply(puzzle: Puzzle, state: State) -> Move | None:
    """The scripted partner's answer, when the question waits for it."""
    if state.phase.value == "answer" and puzzle.partner is not None:
        return Answer(puzzle.partner)
    return None


def solve(
    puzzle: Puzzle,
    state: State,
    max_nodes: int = SOLVER_NODES,
    record: TurnRecord | None = None,
) -> list[Move] | None:
    """A shortest-first list of the learner's moves that reaches the puzzle's goal from
    ``state`` (the scripted partner answering when asked), or None if none is found within
    ``max_nodes`` positions.  Depth-first by iterative deepening, melds before discards.
    ``record``: what the learner has already done in this turn (a puzzle that requires asking
    the partner is still solvable after the question, though the rest of the turn asks none)."""
    seat = state.current
    nodes = 0
    done = record or TurnRecord()

    def moves_of(current: State) -> list[Move]:
        moves = current.legal_moves()
        if puzzle.partner is None:
            moves = [m for m in moves if not isinstance(m, AskPartner)]
        # Melds and additions first: the goals are about laying cards down.
        order = {Meld: 0, Add: 1, TakePile: 2, Draw: 3, AskPartner: 4, Discard: 5}
        return sorted(moves, key=lambda m: order.get(type(m), 6))

    def search(
        current: State, record: TurnRecord, depth: int, path: list[Move]
    ) -> list[Move] | None:
        nonlocal nodes
        if goal_reached(puzzle, current, seat, record):
            return path
        if depth == 0 or turn_over(current, seat) or nodes >= max_nodes:
            return None
        reply = _partner_reply(puzzle, current)
        if reply is not None:
            following = current.copy()
            following.apply(reply)
            return search(following, record, depth, path)
        for move in moves_of(current):
            nodes += 1
            if nodes >= max_nodes:
                return None
            following = current.copy()
            following.apply(move)
            seen = TurnRecord(record.took, record.melded, record.added, record.asked)
            seen.note(move)
            found = search(following, seen, depth - 1, [*path, move])
            if found is not None:
                return found
        return None

    for depth in range(1, 9):
        start = TurnRecord(done.took, done.melded, done.added, done.asked)
        found = search(state.copy(), start, depth, [])
        if found is not None or nodes >= max_nodes:
            return found
    return None


def _validate_handfoot(puzzle: Puzzle, state: State, where: str) -> bool:
    """Checks of the Hand and Foot goals; True when the puzzle's goal was one of them."""
    if puzzle.goal == "pile":
        if not variant_of(state).piles_of_seven:
            raise PuzzleError(f"{where}: a pile puzzle is a Hand and Foot position")
        if state.phase.value != "meld" or not state.down[state.current % 2]:
            raise PuzzleError(f"{where}: a pile puzzle starts after the draw, the team down")
        if not pile_plays(state, puzzle.kind):
            kind = f" {puzzle.kind}" if puzzle.kind else ""
            raise PuzzleError(f"{where}: no legal play makes a{kind} pile")
        return True
    if puzzle.goal == "out_or_explain":
        if state.phase.value != "meld":
            raise PuzzleError(f"{where}: a go-out-or-explain puzzle starts after the draw")
        reason = going_out_refusal(state)
        if reason is None and solve(puzzle, state) is None:
            raise PuzzleError(f"{where}: no reason and no way out: the puzzle has no answer")
        offered = puzzle.choices if puzzle.choices is not None else default_reasons(puzzle)
        if reason is not None and reason.rule not in offered:
            raise PuzzleError(f"{where}: the right reason {reason.rule} is not among the choices")
        return True
    return False


def _validate(puzzle: Puzzle, where: str) -> None:
    try:
        state = puzzle.state()
    except NotationError as err:
        raise PuzzleError(f"{where}: {err}") from None
    if state.is_over != (puzzle.goal in ("score_walk", "score")):
        if state.is_over:
            raise PuzzleError(f"{where}: the hand is over; nothing to play")
        raise PuzzleError(f"{where}: a scoring puzzle shows a hand that has ended")
    hand = state.hands[state.current]
    if puzzle.goal == "meld":
        if puzzle.choices is not None:
            raise PuzzleError(f"{where}: 'choices' belongs to take_or_explain puzzles")
        if not legal_melds(state, puzzle.rank, puzzle.canasta):
            rank = f" of {TOKENS[puzzle.rank]}" if puzzle.rank is not None else ""
            kind = f" ({puzzle.canasta} canasta)" if puzzle.canasta else ""
            raise PuzzleError(f"{where}: no legal meld{rank}{kind} can be made from the hand")
        if puzzle.proposed is not None:
            need = [0] * NUM_KINDS
            for k in puzzle.proposed:
                need[k] += 1
            if any(need[k] > hand[k] for k in range(NUM_KINDS)):
                raise PuzzleError(f"{where}: the proposed meld is not in the hand")
        return
    if puzzle.rank is not None or puzzle.proposed is not None:
        raise PuzzleError(f"{where}: 'rank' and 'proposed' belong to meld puzzles")
    if puzzle.goal not in ("take_or_explain", "out_or_explain") and puzzle.choices is not None:
        raise PuzzleError(f"{where}: 'choices' belongs to take_or_explain puzzles")
    if puzzle.require and puzzle.goal not in ("turn", "go_out"):
        raise PuzzleError(f"{where}: 'require' belongs to turn and go_out puzzles")
    if "ask" in puzzle.require and puzzle.partner is None:
        raise PuzzleError(f"{where}: requiring 'ask' needs the partner's answer ('partner')")
    if puzzle.concealed and puzzle.goal != "go_out":
        raise PuzzleError(f"{where}: 'concealed' belongs to go_out puzzles")
    if puzzle.goal == "value":
        if puzzle.question == "count" and hand[Kind.RED_THREE]:
            raise PuzzleError(f"{where}: a red three is a bonus, not a card value to count")
        if puzzle.question == "most":
            values = sorted((VALUES[k] for k in range(NUM_KINDS) if hand[k]), reverse=True)
            if len(values) < 2 or values[0] == values[1]:
                raise PuzzleError(f"{where}: one card kind must be worth the most")
        return
    if puzzle.goal in ("score_walk", "score"):
        return
    if _validate_handfoot(puzzle, state, where):
        return
    if puzzle.goal in ("turn", "first_meld", "go_out"):
        if puzzle.goal == "first_meld" and state.down[state.current % 2]:
            raise PuzzleError(f"{where}: the team has made its first meld already")
        if solve(puzzle, state) is None:
            raise PuzzleError(f"{where}: no legal way to reach the goal {puzzle.goal!r} was found")
        return
    # take_or_explain
    if state.phase.value != "draw":
        raise PuzzleError(f"{where}: a take-the-pile puzzle starts in the draw phase")
    reason = take_refusal(state)
    if reason is None and not legal_takes(state):  # pragma: no cover - defensive
        raise PuzzleError(f"{where}: the engine gives no reason")
    accepted = stopping_rules(state)
    if puzzle.choices is not None and reason is not None and not accepted & set(puzzle.choices):
        raise PuzzleError(f"{where}: the right reason {reason.rule} is not among the choices")


#: Sets read and checked in this process: resolved folder -> (its files' stamp, the set).
_LOADED: dict[Path, tuple[tuple[tuple[str, int, int], ...], PuzzleSet]] = {}


def _stamp(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """Each file of ``folder``: name, modification time, size (a changed file reads again)."""
    try:
        entries = [(p.name, p.stat()) for p in folder.iterdir() if p.is_file()]
    except OSError:
        return ()
    return tuple(sorted((name, st.st_mtime_ns, st.st_size) for name, st in entries))


def load_set(folder: Path) -> PuzzleSet:
    """Read and check a puzzle set folder (raises ``PuzzleError``), once per process while its
    files stay the same: checking a set solves its puzzles, and a warm kernel
    (:func:`warm_puzzle_sets`) does it before its page asks."""
    key = folder.resolve()
    stamp = _stamp(key)
    loaded = _LOADED.get(key)
    if loaded is not None and stamp and loaded[0] == stamp:
        return dataclasses.replace(loaded[1], folder=folder)
    puzzle_set = _read_set(folder)
    if stamp:
        _LOADED[key] = (stamp, puzzle_set)
    return puzzle_set


def warm_puzzle_sets(start: Path | None = None) -> int:
    """Read and check every puzzle set found from ``start`` (as :func:`find_puzzle_set` looks:
    ``puzzles/`` or ``lessons/puzzles/`` in it or a parent); how many. A set that fails is left
    for its page to report."""
    root = next((r for r in _puzzle_roots(start) if r.is_dir()), None)
    count = 0
    for candidate in sorted(root.iterdir()) if root is not None else ():
        if (candidate / "set.toml").is_file():
            with contextlib.suppress(PuzzleError):
                load_set(candidate)
                count += 1
    return count


def _read_set(folder: Path) -> PuzzleSet:
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
    next_lesson = data.get("next_lesson")
    if next_lesson is not None and (
        not isinstance(next_lesson, str) or not next_lesson.endswith(".ipynb") or "/" in next_lesson
    ):
        raise PuzzleError(f"{toml_path}: 'next_lesson' must name a lesson notebook beside this one")
    reasons = _rule_ids(data["reasons"], str(toml_path), "reasons") if "reasons" in data else None
    if reasons is not None and len(reasons) < CHOICES_SHOWN:
        raise PuzzleError(f"{toml_path}: 'reasons' needs at least {CHOICES_SHOWN} rule ids")
    hide = data.get("hide", [])
    if not isinstance(hide, list) or not all(h in HIDEABLE for h in hide):
        raise PuzzleError(f"{toml_path}: 'hide' lists parts among {', '.join(HIDEABLE)}")
    puzzles = tuple(_read_puzzle(folder, entry, i + 1, reasons) for i, entry in enumerate(entries))
    return PuzzleSet(folder.name, game, folder, puzzles, next_lesson, frozenset(hide))


def offered_reasons(puzzle: Puzzle, right: str | None, salt: int) -> list[str]:
    """The rule ids offered as answers: the right one (if the pile cannot be taken, or the
    player may not go out) and distractors, in an order that does not give the answer away
    (fixed per puzzle)."""
    if puzzle.choices is not None:
        return list(puzzle.choices)
    pool: Sequence[str] = puzzle.reasons or default_reasons(puzzle)
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
