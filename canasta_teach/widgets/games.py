"""The lessons' mini-games, and ``play``: one import and one call per game.

``play("build-a-meld", lang="ur")`` finds the puzzle set ``puzzles/build-a-meld`` (walking up
from the working directory), and returns the widget to display: the card table with a game
panel above it (prompt, progress "3 of 8 solved", Hint, Start again, Previous, Next).

- Goal ``meld`` (build a meld): lay down a legal new meld (of the puzzle's rank, if given).
  With ``proposed``, first judge a meld (Legal / Not legal), then make a legal one.
- Goal ``take_or_explain`` (take the pile): take the pile if the rules allow it; if they
  don't, pick the rule that stops you among three or four offered.  A refused pickup does
  not print the rule: choosing it is the question.
- Goals ``turn``, ``first_meld``, ``go_out``: play at the table until the turn is over, the
  team's first meld is down, or the learner has gone out (``puzzles.goal_reached``).
- Goal ``value``: a question about card values, answered with buttons.
- Hand and Foot: goal ``pile`` (complete a clean, dirty or wild pile of seven with one play)
  and goal ``out_or_explain`` (go out if the rules allow it, else pick the rule that stops
  you); ``take_or_explain``, ``go_out`` and the others play on a Hand and Foot table too.

Every answer gets feedback at once: a refusal explained by the engine's reason and rule id,
and a right answer by why it is right.  The status line states the puzzle's task.
"""

from __future__ import annotations

import html
import logging
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from canasta_teach.bots.claims import Claim, claims_for
from canasta_teach.engine import (
    Add,
    Answer,
    Discard,
    Draw,
    Meld,
    Move,
    Reason,
    State,
    TakePile,
    Verdict,
)
from canasta_teach.engine.cards import TOKENS, VALUES
from canasta_teach.engine.goingout import going_out_plan
from canasta_teach.engine.scoring import ScoreLine, score_hand
from canasta_teach.engine.state import Phase
from canasta_teach.engine.variants import variant_of
from canasta_teach.engine.view import team_names
from canasta_teach.i18n import RTL_LANGUAGES, Translator

from .fonts import FONT_FAMILIES
from .puzzles import (
    Puzzle,
    PuzzleError,
    PuzzleSet,
    TurnRecord,
    answer_question,
    best_take_attempt,
    canasta_problem,
    find_puzzle_set,
    goal_reached,
    going_out_refusal,
    legal_melds,
    legal_takes,
    load_set,
    offered_reasons,
    pile_plays,
    pile_problem,
    solve,
    stopping_rules,
    take_refusal,
    turn_over,
    warm_puzzle_sets,
)
from .sheet import leftover_hands, line_facts, signed
from .table import (
    CardTable,
    TableController,
    build_labels,
    default_actions,
)
from .values import small_numbers

log = logging.getLogger(__name__)

SCORE_GOALS = ("score_walk", "score")
#: Score lines that only ever take points off (C-VAL-2, C-RED-3, C-ASK-1, H-VAL-1, H-RED-1): the
#: sheet labels them as deductions, and a learner's entry without its minus sign is accepted.
DEDUCTIONS = frozenset(
    {"cards_in_hand", "cards_in_hand_foot", "ask_penalty", "red_threes_unmelded",
     "red_threes_left"}
)  # fmt: skip
#: The Hint for a score line not yet right: how to count it (never its value).
SCORE_HINTS = {
    "canastas_natural": "hint.score.canastas",
    "canastas_mixed": "hint.score.canastas",
    "red_threes": "hint.score.red_threes",
    "red_threes_unmelded": "hint.score.red_threes",
    "going_out": "hint.score.going_out",
    "going_out_concealed": "hint.score.going_out",
    "melded_cards": "hint.score.melded_cards",
    "cards_in_hand": "hint.score.cards_in_hand",
    "cards_in_hand_foot": "hint.score.cards_in_hand",
}
#: Deduction lines whose label does not already say "minus": the sheet says it.
DEDUCTION_LABELS = frozenset({"cards_in_hand", "cards_in_hand_foot", "ask_penalty"})
GAMES = (
    "card-values",
    "your-turn",
    "build-a-meld",
    "threes",
    "take-the-pile",
    "go-down",
    "go-out",
    "score-a-hand",
    "two-players",
    "review",
    "hand-and-foot",
)
REASON_PREFIX = "reason:"
ANSWER_PREFIX = "answer:"
#: Messages chosen by a puzzle's fields (written out so that every key stands in the code).
TURN_PROMPTS = {
    "any": "game.prompt.turn.any",
    "take": "game.prompt.turn.take",
    "meld": "game.prompt.turn.meld",
    "add": "game.prompt.turn.add",
    "ask": "game.prompt.turn.ask",
}
#: The same tasks for a puzzle that starts after the draw (saying "press Draw" there would
#: contradict the greyed-out button).
TURN_PROMPTS_DRAWN = {
    "any": "game.prompt.turn.any_drawn",
    "meld": "game.prompt.turn.meld_drawn",
    "add": "game.prompt.turn.add_drawn",
    "ask": "game.prompt.turn.ask",
}
#: What each prompt asks the learner to do first, in order: a table button ("draw", "take",
#: "meld", "add", "discard", "ask"), "out" (go out), or an answer in the panel ("reason": a
#: rule that stops the move, "answer", "legal", "not_legal", "next_line", "check").  "a|b":
#: either.  tests/test_widgets_games.py checks each against the puzzle's starting position:
#: what a prompt asks for is possible there (no "press Draw" after the draw, no "you would
#: like to go out" with a hand that cannot).
PROMPT_ACTIONS: dict[str, tuple[str, ...]] = {
    "game.prompt.judge": ("legal", "not_legal"),
    "game.prompt.meld": ("meld",),
    "game.prompt.meld_rank": ("meld",),
    "game.prompt.canasta": ("meld",),
    "game.prompt.canasta_natural": ("meld",),
    "game.prompt.canasta_mixed": ("meld",),
    "game.prompt.pile": ("meld|add",),
    "game.prompt.pile_clean": ("meld|add",),
    "game.prompt.pile_dirty": ("meld|add",),
    "game.prompt.pile_wild": ("meld|add",),
    "game.prompt.out_or_explain": ("out|reason",),
    "game.prompt.take": ("take|reason",),
    "game.prompt.value_count": ("answer",),
    "game.prompt.value_most": ("answer",),
    "game.prompt.turn.any": ("draw",),
    "game.prompt.turn.take": ("take",),
    "game.prompt.turn.meld": ("draw",),
    "game.prompt.turn.add": ("draw",),
    "game.prompt.turn.ask": ("ask", "out"),
    "game.prompt.turn.any_drawn": ("discard",),
    "game.prompt.turn.meld_drawn": ("meld",),
    "game.prompt.turn.add_drawn": ("add",),
    "game.prompt.first_meld": ("meld",),
    "game.prompt.first_meld_draw": ("draw|take",),
    "game.prompt.go_out": ("out",),
    "game.prompt.go_out_concealed": ("out",),
    "game.prompt.go_out_ask": ("ask", "out"),
    "game.prompt.hf_go_out": ("out",),
    "game.prompt.score_walk": ("next_line",),
    "game.prompt.score": ("check",),
}
TURN_MISSING = {
    "take": "game.feedback.turn_missing.take",
    "meld": "game.feedback.turn_missing.meld",
    "add": "game.feedback.turn_missing.add",
    "ask": "game.feedback.turn_missing.ask",
}
VALUE_PROMPTS = {"count": "game.prompt.value_count", "most": "game.prompt.value_most"}
CANASTA_PROBLEMS = {
    "size": "game.feedback.not_a_canasta",
    "mixed": "game.feedback.mixed_not_natural",
    "natural": "game.feedback.natural_not_mixed",
}
CANASTA_PROMPTS = {
    "any": "game.prompt.canasta",
    "natural": "game.prompt.canasta_natural",
    "mixed": "game.prompt.canasta_mixed",
}
#: Hand and Foot's pile puzzles (H-MELD-3): the task by kind, and why a play is not it.
PILE_PROMPTS = {
    "any": "game.prompt.pile",
    "clean": "game.prompt.pile_clean",
    "dirty": "game.prompt.pile_dirty",
    "wild": "game.prompt.pile_wild",
}
PILE_PROBLEMS = {
    "short": "game.feedback.pile_short",
    "clean": "game.feedback.pile_clean_not_asked",
    "dirty": "game.feedback.pile_dirty_not_asked",
    "wild": "game.feedback.pile_wild_not_asked",
}
PILE_WHY = {
    "clean": "game.why.pile_clean",
    "dirty": "game.why.pile_dirty",
    "wild": "game.why.pile_wild",
}
#: The table's buttons each goal offers (the table shows only these, and of them only the
#: ones the variant's table has: Hand and Foot has Lay down, and no Go out planner).
GOAL_ACTIONS = {
    "turn": ("draw", "take", "meld", "add", "lay_down", "discard", "go_out", "ask"),
    "first_meld": ("draw", "take", "meld", "add", "lay_down", "discard"),
    "go_out": ("meld", "add", "lay_down", "discard", "go_out", "ask"),
    "out_or_explain": ("meld", "add", "discard", "go_out"),
}

#: The facts a puzzle's hint gives for the move it proposes (``bots.claims``, in the learner's
#: voice), in the order they are said: what makes the move right (a first meld, a canasta, a
#: pile of seven, going out) and, for a discard, why that card. Facts that are true but
#: explain nothing (whether the pile is frozen for the team after you) are left to the table.
HINT_CLAIMS: dict[str, tuple[str, ...]] = {
    "take": ("takes_with", "pile_size", "pile_take", "first_meld", "set_aside",
             "set_aside_enough", "makes_canasta", "makes_pile"),
    "play": ("goes_out", "first_meld", "set_aside", "set_aside_enough", "makes_canasta",
             "makes_pile", "meld_size", "uses_wilds", "keeps_wilds"),
    "discard": ("goes_out", "hand_count", "blocks_pile", "freezes", "their_meld",
                "no_their_meld", "known_holds", "thrown_before", "gives_pile"),
    "ask": ("can_go_out",),
}  # fmt: skip


class PuzzleGame:
    """A run through one puzzle set on one ``CardTable``."""

    def __init__(self, puzzle_set: PuzzleSet, translator: Translator, lang: str) -> None:
        self.set = puzzle_set
        self.tr = translator
        self.lang = lang
        self.index = 0
        self.solved: set[int] = set()
        self.stage = "play"  # "judge" (proposed meld), "play", "done"
        self.hint = ""
        self.record = TurnRecord()
        self.tries = 0  # wrong answers to this puzzle's question (value puzzles)
        self.revealed = 0  # score lines shown so far (the worked example)
        self.entered: dict[str, str] = {}  # the learner's score sheet, as typed
        self.marks: dict[str, bool] = {}  # checked entries: right or wrong
        first = puzzle_set.puzzles[0]
        self.start: State = first.state()  # the puzzle's position as given (see ``load``)
        self.controller = TableController(
            first.state(),
            translator,
            lang,
            seat=first.state().current,
            actions=(),
            check_move=self._check_move,
            on_move=self._on_move,
            on_game_intent=self._on_control,
            on_refusal=self._on_refusal,
        )
        self.controller.on_game_values = self._on_values
        self.widget: CardTable = self.controller.widget
        self.widget.game_controller = self
        self.widget.game_name = puzzle_set.name
        self.load(0)

    # ------------------------------------------------------------------ puzzles

    @property
    def puzzle(self) -> Puzzle:
        return self.set.puzzles[self.index]

    @property
    def total(self) -> int:
        return len(self.set.puzzles)

    def load(self, index: int) -> None:
        """Show puzzle ``index`` from its starting position."""
        self.index = max(0, min(index, self.total - 1))
        puzzle = self.puzzle
        state = puzzle.state()
        self.start = puzzle.state()  # the position as the puzzle gives it (never played on)
        self.hint = ""
        self.record = TurnRecord()
        self.tries = 0
        self.revealed = 0
        self.entered = {}
        self.marks = {}
        self.controller.seat = 0 if puzzle.goal in SCORE_GOALS else state.current
        if puzzle.goal == "meld" and puzzle.proposed is not None:
            self.stage = "judge"
        else:
            self.stage = "play"
        self._set_actions()
        # The partner answers "Partner, may I go out?" as the puzzle says; nobody else moves.
        partner = (state.current + 2) % 4
        self.controller.players = (
            {partner: self._partner_answer} if puzzle.partner is not None else {}
        )
        self.controller.pile_hints = puzzle.goal != "take_or_explain"
        self.controller.hidden = self.set.hide  # what the lesson has not taught yet
        self.controller.pile_spread = True  # a puzzle may hinge on a card under the top one
        with self.widget.hold_sync():
            self.controller.reset(state)
            self.controller.status_override = self._task()
            self.controller.render()
            self.render()

    def _partner_answer(self, state: State) -> Move:
        return Answer(bool(self.puzzle.partner))

    def _task(self) -> str | None:
        """What the status line says while the puzzle is open: its task (a free table's
        "draw a card" would contradict a puzzle in which no card is drawn)."""
        tr = self.tr
        goal = self.puzzle.goal
        if goal == "meld":
            return tr.ui("game.task.meld")
        if goal == "take_or_explain":
            return tr.ui("game.task.take")
        if goal == "value":
            return tr.ui("game.task.value")
        if goal == "first_meld":
            return tr.ui("game.task.first_meld")
        if goal == "go_out":
            return tr.ui("game.task.go_out")
        if goal == "pile":
            return tr.ui("game.task.pile")
        if goal == "out_or_explain":
            return tr.ui("game.task.out_or_explain")
        if goal in SCORE_GOALS:
            return tr.ui("game.task.score")
        return None  # a whole turn: the table's own "your turn: ..." is the task

    def _set_actions(self) -> None:
        self.controller.always_offered = frozenset()
        goal = self.puzzle.goal
        if self.stage != "play" or goal in ("value", *SCORE_GOALS):
            self.controller.actions = ()
        elif goal == "meld":
            self.controller.actions = ("meld",)
        elif goal == "pile":
            self.controller.actions = ("meld", "add")
        elif goal in GOAL_ACTIONS:
            variant = default_actions(self.controller.state)
            actions = tuple(a for a in GOAL_ACTIONS[goal] if a in variant)
            if self.puzzle.partner is None:
                actions = tuple(a for a in actions if a != "ask")
            self.controller.actions = actions
        else:
            # "May you take the pile?" is the question: trying is how the learner finds out.
            self.controller.actions = ("take",)
            self.controller.always_offered = frozenset({"take"})

    # ------------------------------------------------------------------ game intents

    def _on_control(self, control: str) -> None:
        if control == "next":
            if self.index >= self.total - 1:
                # The greyed-out Next still answers (and must not reload this puzzle).
                self.controller.say("refusal", self.tr.ui("msg.last_puzzle"))
                return
            self.load(self.index + 1)
        elif control == "previous":
            if self.index <= 0:
                self.controller.say("refusal", self.tr.ui("msg.first_puzzle"))
                return
            self.load(self.index - 1)
        elif control == "retry":
            self.load(self.index)
        elif control == "hint":
            self.hint = self.hint_text()
            self.render()
        elif control in ("legal", "not_legal") and self.stage == "judge":
            self._judge(control == "legal")
        elif control.startswith(REASON_PREFIX) and control[len(REASON_PREFIX) :] in (
            self._offered_rules()
        ):
            # Only a reason on offer counts: not one of a meld puzzle, nor an id the page
            # never showed (its made-up "title" would be echoed back to the learner).
            self._choose_reason(control[len(REASON_PREFIX) :])
        elif control == "next_line" and self.puzzle.goal == "score_walk" and self.stage == "play":
            self._next_line()
        elif control == "check" and self.puzzle.goal == "score" and self.stage == "play":
            self._on_values("check", {})
        elif (
            control.startswith(ANSWER_PREFIX)
            and self.puzzle.goal == "value"
            and self.stage == "play"
            and control[len(ANSWER_PREFIX) :] in self._value_choices()
        ):
            self._answer_value(control[len(ANSWER_PREFIX) :])
        else:
            self.controller.say("refusal", self.tr.ui("msg.unknown_action"))

    def _judge(self, says_legal: bool) -> None:
        puzzle = self.puzzle
        assert puzzle.proposed is not None
        verdict = self.controller.state.check(Meld(puzzle.proposed))
        tr = self.tr
        if verdict.legal:
            key = "game.feedback.right_legal" if says_legal else "game.feedback.wrong_legal"
            self.controller.say("success" if says_legal else "refusal", tr.ui(key))
        else:
            assert verdict.reason is not None
            key = "game.feedback.wrong_illegal" if says_legal else "game.feedback.right_illegal"
            self.controller.say(
                "refusal" if says_legal else "success",
                tr.ui(key, reason=tr.reason(verdict.reason)),
                verdict.reason.rule,
            )
        # Either way the learner now makes a legal meld from the hand.
        self.stage = "play"
        self._set_actions()
        with self.widget.hold_sync():
            self.controller.render()
            self.render()

    def _offered_rules(self) -> list[str]:
        """The rule ids offered as answers now (none outside a take-the-pile puzzle's play)."""
        puzzle = self.puzzle
        if puzzle.goal not in ("take_or_explain", "out_or_explain") or self.stage != "play":
            return []
        reason = self._right_reason()
        salt = zlib.crc32(puzzle.name.encode())
        return offered_reasons(puzzle, reason.rule if reason else None, salt)

    def _right_reason(self) -> Reason | None:
        """The rule that stops the pickup (take puzzles) or going out (go-out puzzles)."""
        state = self.controller.state
        if self.puzzle.goal == "out_or_explain":
            return going_out_refusal(state)
        return take_refusal(state)

    def _choose_reason(self, rule: str) -> None:
        state = self.controller.state
        tr = self.tr
        out = self.puzzle.goal == "out_or_explain"
        if not out and legal_takes(state):
            self.controller.say("refusal", tr.ui("game.feedback.can_take"))
            return
        reason = self._right_reason()
        if reason is None:  # out_or_explain: going out is allowed here
            self.controller.say("refusal", tr.ui("game.feedback.can_go_out"))
            return
        if rule == reason.rule:
            self.controller.say(
                "success",
                tr.ui("game.feedback.right_reason", reason=tr.reason(reason)),
                reason.rule,
            )
            self._solved()
        elif not out and rule in stopping_rules(state):
            # Another rule that truly stops the pickup (C-PILE-2 under a black three): right,
            # and the engine's more specific reason is added.
            text = tr.ui(
                "game.feedback.right_reason_also",
                rule=tr.rule_title(rule),
                reason=tr.reason(reason),
            )
            self.controller.say("success", text, reason.rule)
            self._solved()
        else:
            key = "game.feedback.wrong_out_reason" if out else "game.feedback.wrong_reason"
            self.controller.say("refusal", tr.ui(key, rule=tr.rule_title(rule)))

    # ------------------------------------------------------------------ scoring a hand

    def _score_rows(self) -> list[tuple[int, str, ScoreLine | None]]:
        """(team, entry id, line) in sheet order: each team's lines, then its total (None)."""
        rows: list[tuple[int, str, ScoreLine | None]] = []
        for team in score_hand(self.controller.state).teams:
            rows += [(team.team, f"{team.team}.{i}", line) for i, line in enumerate(team.lines)]
            rows.append((team.team, f"{team.team}.total", None))
        return rows

    def _line_facts(self, team: int, line: ScoreLine | None) -> tuple[str, list[str]]:
        """Why a line (or a team's total) is what it is, and the table parts it counts."""
        return line_facts(self.tr, self.controller.state, self.controller.seat, team, line)

    def _next_line(self) -> None:
        rows = self._score_rows()
        self.revealed = min(self.revealed + 1, len(rows))
        team, _id, line = rows[self.revealed - 1]
        why, _selectors = self._line_facts(team, line)
        if self.revealed == len(rows):
            totals = score_hand(self.controller.state).totals
            self.controller.say("success", self._score_summary(totals))
            self._solved()
            return
        self.controller.say("info", why, line.rule if line is not None else "")
        self.render()

    def _score_summary(self, totals: tuple[int, int]) -> str:
        tr = self.tr
        teams = team_names(self.controller.state.players)
        return tr.ui(
            "game.feedback.score_right",
            team0=tr.team(teams[0]),
            total0=signed(totals[0]),
            team1=tr.team(teams[1]),
            total1=signed(totals[1]),
        )

    def _restore(self, values: Mapping[str, str]) -> None:
        """Puzzles solved in an earlier visit, as the page remembers them (the browser's
        storage): marked solved again, and the lesson reopens at its first unsolved puzzle
        (unless the learner has already moved on from the first).  Anything else in the
        message is ignored."""
        untouched = self.index == 0 and not self.solved and self.stage != "done"
        self.solved |= small_numbers(values.get("solved", ""), self.total - 1)
        unsolved = [n for n in range(self.total) if n not in self.solved]
        if untouched and unsolved and unsolved[0] != self.index:
            self.load(unsolved[0])  # draws the table and the panel
            return
        self.render()

    def _on_values(self, control: str, values: Mapping[str, str]) -> None:
        if control == "restore":
            self._restore(values)
            return
        if control != "check" or self.puzzle.goal != "score" or self.stage != "play":
            self.controller.say("refusal", self.tr.ui("msg.unknown_action"))
            return
        rows = self._score_rows()
        ids = {row_id for _team, row_id, _line in rows}
        self.entered.update({k: v.strip() for k, v in values.items() if k in ids})
        score = score_hand(self.controller.state)
        self.marks = {}
        for team, row_id, line in rows:
            right = line.points if line is not None else score.teams[team].total
            entered = _as_number(self.entered.get(row_id, ""))
            # A line labelled as a deduction takes its points off: "15" there means −15.
            deduction = line is not None and line.code in DEDUCTIONS
            self.marks[row_id] = entered == right or (deduction and entered == -right)
        wrong = sum(1 for ok in self.marks.values() if not ok)
        if wrong:
            self.controller.say("refusal", self.tr.ntext("ui", "game.feedback.score_wrong", wrong,
                                                          count=self.tr.number(wrong)))  # fmt: skip
            self.render()
            return
        self.controller.say("success", self._score_summary(score.totals))
        self._solved()

    def _sheet(self) -> tuple[dict[str, Any], list[str]]:
        """The score sheet the page draws, and the table parts to highlight."""
        tr = self.tr
        state = self.controller.state
        score = score_hand(state)
        teams = team_names(state.players)
        walk = self.puzzle.goal == "score_walk"
        done = self.stage == "done"
        highlight: list[str] = []
        sheet_teams = []
        index = 0
        for team in score.teams:
            entries = []
            for i, line in enumerate((*team.lines, None)):
                index += 1
                row_id = f"{team.team}.{i}" if line is not None else f"{team.team}.total"
                label = tr.score_label(line) if line is not None else tr.ui("game.score.total")
                if line is not None and line.code in DEDUCTION_LABELS:
                    label = tr.ui("game.score.deduction", label=label)
                right = line.points if line is not None else team.total
                why, selectors = self._line_facts(team.team, line)
                entry: dict[str, Any] = {"id": row_id, "label": label}
                shown = (walk and index <= self.revealed) or done
                if walk:
                    entry["value"] = signed(right) if shown else ""
                    if shown:
                        entry.update(why=why, rule=line.rule if line else "")
                    if walk and index == self.revealed and not done:
                        entry["state"] = "current"
                        highlight = selectors
                else:
                    entry["input"] = not done
                    entry["entered"] = self.entered.get(row_id, "")
                    entry["value"] = signed(right) if done else ""
                    if row_id in self.marks:
                        ok = self.marks[row_id]
                        entry["state"] = "right" if ok else "wrong"
                        entry["state_text"] = tr.ui(
                            "game.score.right" if ok else "game.score.wrong"
                        )
                        if not ok:
                            entry["why"] = (
                                tr.ui("game.score.should_be", points=signed(right)) + " " + why
                            )
                            entry["rule"] = line.rule if line else ""
                            highlight += selectors  # the cards to count again, marked
                if entry.get("rule"):
                    entry["rule_title"] = tr.rule_title(entry["rule"])
                entries.append(entry)
            *lines, total = entries
            name = tr.ui("game.score.team", team=tr.team(teams[team.team]))
            sheet_teams.append(
                {"id": teams[team.team], "name": name, "lines": lines, "total": total}
            )
        # Every player's cards left in hand, face up, partners together: the "cards left in
        # hand" lines count them, and the learner counts them too.
        hands = leftover_hands(tr, state, self.controller.seat, by_team=True)
        return {"label": tr.ui("game.score.sheet"), "teams": sheet_teams,
                "hands": hands}, highlight  # fmt: skip

    # ------------------------------------------------------------------ value questions

    def _value_choices(self) -> list[str]:
        state = self.controller.state
        return answer_question(state, state.current, self.puzzle.question or "count")[1]

    def _hand_tokens(self) -> list[tuple[str, int]]:
        state = self.controller.state
        hand = state.hands[state.current]
        return [(TOKENS[k], hand[k]) for k in range(len(hand) - 1, -1, -1) if hand[k]]

    def _working(self) -> tuple[str, int]:
        """The count card by card, "a joker 50 + two 7s 10 = 60", and the total."""
        tr = self.tr
        parts = []
        total = 0
        for token, count in self._hand_tokens():
            value = count * VALUES[TOKENS.index(token)]
            total += value
            parts.append(tr.ui("game.value_part", cards=tr.card(token, count),
                               points=tr.number(value)))  # fmt: skip
        return " + ".join(parts), total

    def _answer_value(self, answer: str) -> None:
        tr = self.tr
        state = self.controller.state
        question = self.puzzle.question or "count"
        right, _choices = answer_question(state, state.current, question)
        if question == "count":
            working, total = self._working()
            if answer == right:
                self.controller.say("success", tr.ui("game.why.count", working=working,
                                                     total=tr.number(total)))  # fmt: skip
                self._solved()
                return
            self.tries += 1
            key = (
                "game.feedback.wrong_count"
                if self.tries == 1
                else "game.feedback.wrong_count_again"
            )
            self.controller.say("refusal", tr.ui(key, answer=answer, working=working,
                                                 total=tr.number(total)))  # fmt: skip
            return
        value = VALUES[TOKENS.index(answer)]
        if answer == right:
            self.controller.say("success", tr.ui("game.why.most", card=tr.card_name(answer),
                                                 points=tr.number(value)))  # fmt: skip
            self._solved()
            return
        self.tries += 1
        text = tr.ui("game.feedback.wrong_most", card=tr.card_name(answer), points=tr.number(value))
        self.controller.say("refusal", text)

    # ------------------------------------------------------------------ table hooks

    def _on_refusal(self, move: Move, reason: Reason) -> dict[str, str] | None:
        """In "take the pile or not?", a refused pickup says only that it is refused: the
        rule that refuses it is the answer the learner is asked to choose."""
        if (
            self.puzzle.goal == "take_or_explain"
            and self.stage == "play"
            and isinstance(move, TakePile)
            and not legal_takes(self.controller.state)
        ):
            return self._message("refusal", self.tr.ui("game.feedback.take_refused"))
        if (
            self.puzzle.goal == "out_or_explain"
            and self.stage == "play"
            and reason.rule in self._offered_rules()
            and going_out_refusal(self.controller.state) is not None
        ):
            # Trying to go out is how the learner finds out; the rule is the question.
            return self._message("refusal", self.tr.ui("game.feedback.out_refused"))
        return None

    def _check_move(self, move: Move, verdict: Verdict) -> dict[str, str] | None:
        """Refuse legal moves that do not answer the puzzle (nothing is played)."""
        puzzle = self.puzzle
        state = self.controller.state
        if puzzle.goal == "pile" and isinstance(move, (Meld, Add)):
            problem = pile_problem(state, move, puzzle.kind)
            if problem is not None:
                cards = self.tr.cards([TOKENS[k] for k in move.cards])
                message = self._message("refusal", self.tr.ui(PILE_PROBLEMS[problem], cards=cards))
                message["rule"] = "H-MELD-3"
                message["rule_title"] = self.tr.rule_title("H-MELD-3")
                return message
        if puzzle.goal == "out_or_explain" and going_out_refusal(state) is not None:
            # Going out is not allowed: a legal play here would only hide the question.
            return self._message("info", self.tr.ui("game.feedback.out_not_a_way"))
        if puzzle.goal == "meld" and isinstance(move, Meld):
            problem = canasta_problem(move.cards, puzzle.canasta)
            if problem is not None:
                cards = self.tr.cards([TOKENS[k] for k in move.cards])
                message = self._message(
                    "refusal", self.tr.ui(CANASTA_PROBLEMS[problem], cards=cards)
                )
                message["rule"] = "C-CAN-1"
                message["rule_title"] = self.tr.rule_title("C-CAN-1")
                return message
        if (
            puzzle.goal == "meld"
            and isinstance(move, Meld)
            and puzzle.rank is not None
            and max(move.cards) != puzzle.rank
        ):
            return self._message(
                "info", self.tr.ui("game.feedback.wrong_rank", cards=self._rank_name())
            )
        return None

    def _on_move(self, move: Move, verdict: Verdict) -> None:
        puzzle = self.puzzle
        # A hint was about the position before this move: it goes (a stale "Now discard a
        # king" after another discard would contradict the table).
        stale, self.hint = bool(self.hint), ""
        if (
            (puzzle.goal == "meld" and isinstance(move, Meld))
            or (puzzle.goal == "take_or_explain" and isinstance(move, TakePile))
            or (puzzle.goal == "pile" and isinstance(move, (Meld, Add)))
        ):
            note = self.tr.reason(verdict.note) if verdict.note is not None else ""
            text = self._why(move)
            self.controller.say(
                "success", f"{text} {note}".strip(), verdict.note.rule if verdict.note else ""
            )
            self._solved()
            return
        if puzzle.goal not in GOAL_ACTIONS:
            return
        self.record.note(move)
        state = self.controller.state
        seat = self.controller.seat
        if goal_reached(puzzle, state, seat, self.record):
            self.controller.say("success", self._why(move))
            self._solved()
        elif turn_over(state, seat):
            self._missed()
        elif stale:
            self.render()

    def _missed(self) -> None:
        """The turn ended without answering the puzzle: say what was missing; Start again."""
        tr = self.tr
        puzzle = self.puzzle
        state = self.controller.state
        if puzzle.goal == "turn":
            missing = self.record.missing(puzzle.require)
            text = tr.ui(TURN_MISSING[missing[0]]) if missing else ""
        elif puzzle.goal == "first_meld":
            text = tr.ui("game.feedback.no_first_meld")
        elif self.record.missing(puzzle.require):
            text = tr.ui(TURN_MISSING[self.record.missing(puzzle.require)[0]])
        elif state.end is not None and state.end.seat == self.controller.seat:
            text = tr.ui("game.feedback.not_concealed")
        else:
            text = tr.ui("game.feedback.not_out")
        self.controller.say("refusal", text)
        self.stage = "over"
        self.controller.status_override = tr.ui("game.task.retry")
        self._set_actions()
        with self.widget.hold_sync():
            self.controller.render()
            self.render()

    def _why(self, move: Move) -> str:
        """Why the answer is right: the puzzle's own explanation, or one from the facts."""
        tr = self.tr
        puzzle = self.puzzle
        state = self.controller.state
        if puzzle.explain:
            return tr.ui("why." + puzzle.explain)
        if puzzle.goal == "meld" and isinstance(move, Meld):
            cards = tr.cards([TOKENS[k] for k in move.cards])
            if len(move.cards) >= 7:
                wild = any(not k.is_natural for k in move.cards)
                key = "game.why.canasta_mixed" if wild else "game.why.canasta_natural"
                return tr.ui(key, cards=cards)
            return tr.ui("game.why.meld", cards=cards)
        if puzzle.goal == "pile" and isinstance(move, (Meld, Add)):
            made = pile_problem(puzzle.state(), move, None) is None
            kind = puzzle.kind or self._last_pile_kind()
            if made and kind in PILE_WHY:
                return tr.ui(PILE_WHY[kind], cards=tr.cards([TOKENS[k] for k in move.cards]))
        if puzzle.goal == "take_or_explain" and isinstance(move, TakePile):
            return tr.ui(variant_of(state).word(_take_why(move, self._top_before)))
        if puzzle.goal == "first_meld":
            team = self.controller.seat % 2
            have = sum(group.value for group in state.melds[team].values())
            return tr.ui("game.why.first_meld", have=tr.number(have),
                         needed=tr.number(self.puzzle.state().minimum(team)))  # fmt: skip
        if puzzle.goal in ("go_out", "out_or_explain"):
            concealed = state.end is not None and state.end.how == "concealed"
            key = "game.why.go_out_concealed" if concealed else "game.why.go_out"
            return tr.ui(variant_of(state).word(key))
        return tr.ui("game.why.turn")

    def _last_pile_kind(self) -> str | None:
        """The kind of the team's newest pile (a pile puzzle that asked for any kind)."""
        piles = self.controller.state.complete_piles(self.controller.seat % 2)
        return piles[-1][0] if piles else None

    @property
    def _top_before(self) -> int | None:
        top = self.puzzle.state().pile_top
        return None if top is None else int(top)

    def _solved(self) -> None:
        self.solved.add(self.index)
        self.stage = "done"
        self.controller.status_override = self.tr.ui("game.solved")
        self._set_actions()
        with self.widget.hold_sync():
            self.controller.render()
            self.render()

    def _message(self, kind: str, text: str) -> dict[str, str]:
        return {"kind": kind, "text": text, "rule": "", "rule_title": ""}

    # ------------------------------------------------------------------ hints

    def _rank_name(self) -> str:
        rank = self.puzzle.rank
        return self.tr.card_of(TOKENS[rank]) if rank is not None else ""

    def hint_text(self) -> str:
        """A hint derived from the engine for the puzzle as it stands."""
        tr = self.tr
        state = self.controller.state
        puzzle = self.puzzle
        if self.stage == "done":
            return tr.ui("hint.solved")
        if self.stage == "judge":
            return tr.ui("hint.judge")
        if self.stage == "over":
            return tr.ui("hint.retry")
        if puzzle.goal == "score_walk":
            return tr.ui("hint.score.walk", button=tr.ui("game.next_line"))
        if puzzle.goal == "score":
            return self._score_hint()
        if puzzle.goal == "value":
            if puzzle.question == "most":
                return tr.ui("hint.value_most")
            return tr.ui("hint.value_count")
        if puzzle.goal == "out_or_explain" and going_out_refusal(state) is not None:
            return tr.ui(variant_of(state).word("hint.out_explain"))
        if puzzle.goal in GOAL_ACTIONS:
            return self._next_step_hint(state)
        if puzzle.goal == "pile":
            plays = pile_plays(state, puzzle.kind)
            if not plays:  # pragma: no cover - load_set checks this
                return tr.ui("hint.generic")
            return self._move_hint(state, plays[0])
        if puzzle.goal == "meld":
            melds = legal_melds(state, puzzle.rank, puzzle.canasta)
            if not melds:  # pragma: no cover - load_set checks this
                return tr.ui("hint.generic")
            plain = [m for m in melds if all(k == m.cards[0] for k in m.cards)]
            meld = plain[0] if plain else melds[0]
            rank = max(meld.cards)
            held = state.hands[state.current][rank]
            cards = tr.card(TOKENS[rank], held)
            return tr.ui("hint.meld_rank" if plain else "hint.meld_wild", cards=cards)
        takes = legal_takes(state)
        top = state.pile_top
        top_name = tr.card(TOKENS[top]) if top is not None else ""
        pair = tr.card_plural(TOKENS[top]) if top is not None else ""
        if takes:
            take = max(takes, key=lambda t: sum(1 for k in t.cards if k == top))
            naturals = sum(1 for k in take.cards if k == top)
            if naturals >= 2:
                return tr.ui("hint.take_pair", card=top_name, cards=pair)
            if naturals == 1:
                return tr.ui("hint.take_natural_wild", card=top_name)
            return tr.ui("hint.take_onto_meld", card=top_name)
        reason = state.check(best_take_attempt(state)).reason
        return self._refusal_hint(reason, top_name, pair)

    def _score_hint(self) -> str:
        """How to count the first line of the sheet not yet right (never its value)."""
        tr = self.tr
        for _team, row_id, line in self._score_rows():
            if self.marks.get(row_id):
                continue
            if line is None:
                return tr.ui("hint.score.total")
            if line.code in SCORE_HINTS:
                return tr.ui(SCORE_HINTS[line.code])
            return tr.ui("hint.score.line", line=tr.score_label(line))
        return tr.ui("hint.score.total")  # pragma: no cover - every line right is solved

    def _next_step_hint(self, state: State) -> str:
        """The first move of a way to the goal from here, in words, and why: the rule that
        asks for it and the engine's facts about it (``bots.claims``), in the learner's voice.
        The way follows what the puzzle asks (from what the learner has done in this turn so
        far: a partner already asked is not asked again)."""
        tr = self.tr
        plan = solve(self.puzzle, state, record=self.record)
        if not plan:
            return tr.ui("hint.retry")
        move = self._hinted_move(state, plan[0])
        return self._move_hint(state, move)

    def _move_hint(self, state: State, move: Move) -> str:
        """``move`` (legal, the learner's) as advice: what to do, then why."""
        tr = self.tr
        facts = claims_for(state, state.current, move)

        def said(kind: str) -> list[str]:
            order = HINT_CLAIMS[kind]
            # Black threes are melded only to go out (C-OUT-4) and never make a canasta: "seven
            # make a canasta" would mislead there.
            chosen = sorted((c for c in facts if c.key in order and not (
                c.key == "meld_size" and c.params.get("rank") == "3B")),
                key=lambda c: order.index(c.key))  # fmt: skip
            return [tr.claim(c.to_dict(), "you") for c in chosen]

        if isinstance(move, Draw):
            step = tr.ui("hint.step.draw_two" if state.players == 2 else "hint.step.draw")
            takes = any(isinstance(m, TakePile) for m in state.legal_moves())
            return f"{step} {tr.ui('hint.why.draw' if takes else 'hint.why.draw_no_take')}"
        if isinstance(move, TakePile):
            why = [tr.ui("hint.why.take")] if move.cards else [
                tr.ui("hint.why.take_onto_meld", rank_of=tr.card_of(TOKENS[state.pile_top]))
            ] if state.pile_top is not None else []  # fmt: skip
            taken = said("take")
            # "You take it with two queens": the words about the top card follow them.
            first = taken[:1] if move.cards else []
            return " ".join([tr.ui("hint.step.take"), *first, *why, *taken[len(first) :]])
        if isinstance(move, Meld | Add):
            cards = tr.cards([TOKENS[k] for k in move.cards])
            step = tr.ui(
                "hint.step.add" if isinstance(move, Add) else "hint.step.meld", cards=cards
            )
            why = said("play")
            if self.puzzle.goal in ("go_out", "out_or_explain") and going_out_plan(state):
                why.insert(0, tr.claim(Claim("can_go_out").to_dict(), "you"))
            return " ".join([step, *(why or [tr.ui("hint.why.meld_more")])])
        if isinstance(move, Discard):
            step = tr.ui("hint.step.discard", card=tr.card(TOKENS[move.card]))
            why = said("discard")
            if not any(c.key == "goes_out" for c in facts):
                why.insert(0, tr.ui("hint.why.discard"))
            return " ".join([step, *why])
        return " ".join([tr.ui("hint.step.ask"), *said("ask"), tr.ui("hint.why.ask")])

    def _hinted_move(self, state: State, first: Move) -> Move:
        """The move the hint proposes: the solver's first step (a shortest way to the goal),
        except that a turn puzzle that says "meld if you can" gets a meld that keeps the goal
        in reach before its discard (lesson 10's hint proposed a discard beside a meld), and
        that of the discards that reach the goal, the one the facts favour is proposed."""
        puzzle = self.puzzle
        if not isinstance(first, Discard):
            return first
        legal = state.legal_moves()
        if puzzle.goal == "turn" and not puzzle.require:
            for play in legal:
                if isinstance(play, Meld | Add) and self._keeps_goal(state, play):
                    return play
        discards = [m for m in legal if isinstance(m, Discard) and self._keeps_goal(state, m)]
        return min(discards or [first], key=lambda m: (self._discard_cost(state, m), m != first))

    def _keeps_goal(self, state: State, move: Move) -> bool:
        """Whether the goal is still reached (or reachable) after ``move``."""
        after = state.copy()
        after.apply(move)
        record = TurnRecord(self.record.took, self.record.melded, self.record.added,
                            self.record.asked)  # fmt: skip
        record.note(move)
        return solve(self.puzzle, after, record=record) is not None

    @staticmethod
    def _discard_cost(state: State, move: Discard) -> tuple[int, ...]:
        """How a discard would hurt, from the facts the learner can see: it gives the next
        player the pile, it feeds the other team's meld, it throws a wild card away, it breaks
        a pair (smaller is better)."""
        keys = {c.key for c in claims_for(state, state.current, move)}
        held = state.hands[state.current][move.card]
        return (
            int("gives_pile" in keys),
            int("their_meld" in keys),
            int(int(move.card) <= 1),  # a joker or a 2
            int(held > 1),
        )

    def _refusal_hint(self, reason: Reason | None, card: str, pair: str) -> str:
        tr = self.tr
        rule = reason.rule if reason is not None else ""
        if rule in ("C-BLK-1", "H-PILE-2"):
            return tr.ui("hint.take_black_three")
        if rule == "H-PILE-1":
            return tr.ui("hint.hf_take_pair", card=card, cards=pair)
        if rule == "C-PILE-2":
            return tr.ui("hint.take_wild_top", card=card)
        if rule == "C-PILE-3":
            return tr.ui("hint.take_frozen", card=card, cards=pair)
        if rule == "C-PILE-4":
            return tr.ui("hint.take_unfrozen", card=card)
        if rule == "C-PILE-5":
            return tr.ui("hint.take_one_card")
        if rule == "C-PILE-6" and reason is not None:
            return tr.ui(
                "hint.take_minimum",
                needed=reason.params.get("needed", 0),
                have=reason.params.get("have", 0),
            )
        return tr.ui("hint.generic")

    # ------------------------------------------------------------------ drawing

    def prompt(self) -> tuple[str, dict[str, str]]:
        """The prompt's message key and its words: the puzzle's task as it stands at the start
        of the puzzle (``PROMPT_ACTIONS`` names the action each key asks the learner for, and a
        test checks that it is a legal one there: no "press Draw" after the draw)."""
        tr = self.tr
        puzzle = self.puzzle
        start = self.start
        drawn = start.phase is not Phase.DRAW  # the puzzle starts after the draw
        buttons = {
            "meld": tr.ui("button.meld"), "add": tr.ui("button.add"),
            "discard": tr.ui("button.discard"), "take": tr.ui("button.take"),
            "ask": tr.ui("button.ask"), "go_out": tr.ui("button.go_out"),
            # The two-player table's draw button says "Draw 2" (C-TWO-2).
            "draw": tr.ui("button.draw_two" if start.players == 2 else "button.draw"),
        }  # fmt: skip
        if puzzle.goal == "meld":
            if self.stage == "judge":
                return "game.prompt.judge", {}
            if puzzle.canasta is not None:
                return CANASTA_PROMPTS[puzzle.canasta], {
                    "cards": self._rank_name(), "button": buttons["meld"]}  # fmt: skip
            if puzzle.rank is not None:
                return "game.prompt.meld_rank", {"cards": self._rank_name(),
                                                 "button": buttons["meld"]}  # fmt: skip
            return "game.prompt.meld", {"button": buttons["meld"]}
        if puzzle.goal == "pile":
            return PILE_PROMPTS[puzzle.kind or "any"], {"meld": buttons["meld"],
                                                       "add": buttons["add"]}  # fmt: skip
        if puzzle.goal == "out_or_explain":
            return "game.prompt.out_or_explain", {"meld": buttons["meld"],
                                                  "discard": buttons["discard"]}  # fmt: skip
        if puzzle.goal == "take_or_explain":
            return "game.prompt.take", {"button": buttons["take"]}
        if puzzle.goal == "value":
            return VALUE_PROMPTS[puzzle.question or "count"], {}
        if puzzle.goal == "turn":
            wanted = puzzle.require[0] if puzzle.require else "any"
            table = TURN_PROMPTS_DRAWN if drawn and wanted in TURN_PROMPTS_DRAWN else TURN_PROMPTS
            return table[wanted], buttons
        if puzzle.goal in SCORE_GOALS:
            walk = puzzle.goal == "score_walk"
            button = tr.ui("game.next_line" if walk else "game.check")
            return ("game.prompt.score_walk" if walk else "game.prompt.score"), {"button": button}
        if puzzle.goal == "first_meld":
            # The minimum of the puzzle's starting position: once the meld is down the team's
            # minimum is 0, but the task was (and the solved puzzle still says) the original one.
            needed = tr.number(start.minimum(start.current % 2))
            if not drawn:  # the first meld may come with the pile: the turn starts with a draw
                return "game.prompt.first_meld_draw", {"needed": needed, **buttons}
            return "game.prompt.first_meld", {"needed": needed, "button": buttons["meld"]}
        key = "game.prompt.go_out_concealed" if puzzle.concealed else "game.prompt.go_out"
        if puzzle.partner is not None:
            key = "game.prompt.go_out_ask"
        # Hand and Foot words it its own way (no planner: a discard or a meld goes out).
        return variant_of(start).word(key), {**buttons, "button": buttons["go_out"]}

    def _proposed_label(self) -> str:
        """The visible caption (and accessible name) of the proposed meld's cards.

        The cards stay on the table after the learner's verdict: the feedback explains them
        (its rule names what is wrong with them) and the learner's own meld is made beside
        them. Once judged, the caption says what they are now, the meld judged, and its
        verdict, so that they no longer read as part of the new task."""
        tr = self.tr
        proposed = self.puzzle.proposed
        if self.stage == "judge" or proposed is None:
            return tr.ui("game.proposed_label")
        legal = self.start.check(Meld(proposed)).legal
        return tr.ui("game.proposed_judged_legal" if legal else "game.proposed_judged_not_legal")

    def render(self) -> None:
        """Send the game panel (one trait update)."""
        tr = self.tr
        puzzle = self.puzzle
        title_key = "game.title." + self.set.game.replace("-", "_")
        title = tr.ui(title_key) if self.set.game in GAMES else self.set.game
        choices: list[dict[str, Any]] = []
        proposed: list[str] = []
        proposed_label = ""
        choices_label = ""
        key, params = self.prompt()
        prompt = tr.ui(key, **params)
        if puzzle.goal == "score":
            prompt += " " + tr.ui("game.score.minus_note", example=signed(-35))
        if puzzle.goal == "meld":
            if self.stage == "judge":
                choices = [
                    {"id": "legal", "label": tr.ui("game.legal")},
                    {"id": "not_legal", "label": tr.ui("game.not_legal")},
                ]
                choices_label = tr.ui("game.judge_question")
            if puzzle.proposed is not None:
                proposed = [TOKENS[k] for k in puzzle.proposed]
                proposed_label = self._proposed_label()
        elif puzzle.goal in ("out_or_explain", "take_or_explain") and self.stage == "play":
            rules = self._offered_rules()
            choices = [{"id": REASON_PREFIX + r, "label": tr.rule_title(r)} for r in rules]
            out = puzzle.goal == "out_or_explain"
            choices_label = tr.ui("game.why_not_out" if out else "game.why_not")
        elif puzzle.goal == "value" and self.stage == "play":
            question = puzzle.question or "count"
            choices = [
                {"id": ANSWER_PREFIX + c, "label": tr.card_name(c) if question == "most" else c}
                for c in self._value_choices()
            ]
            choices_label = tr.ui("game.your_answer")
        elif puzzle.goal in SCORE_GOALS and self.stage == "play":
            walk = puzzle.goal == "score_walk"
            button = tr.ui("game.next_line" if walk else "game.check")
            choices = [{"id": "next_line" if walk else "check", "label": button, "primary": True}]
        solved_now = self.index in self.solved
        all_done = len(self.solved) == self.total
        progress = tr.ui("game.progress", solved=len(self.solved), total=self.total)
        if all_done:
            progress = tr.ntext("ui", "game.all_solved", self.total, total=tr.number(self.total))
        controls = [
            {"id": "hint", "label": tr.ui("game.hint"), "enabled": self.stage not in ("done",)},
            {"id": "retry", "label": tr.ui("game.retry")},
            {"id": "previous", "label": tr.ui("game.previous"), "enabled": self.index > 0},
            {
                "id": "next",
                "label": tr.ui("game.next"),
                "enabled": self.index < self.total - 1,
                "primary": self.stage == "done",
            },
        ]
        next_lesson = None
        if self.set.next_lesson and all_done:
            next_lesson = {"href": self.set.next_lesson, "label": tr.ui("game.next_lesson")}
        sheet: dict[str, Any] | None = None
        highlight: list[str] = []
        if puzzle.goal in SCORE_GOALS:
            sheet, highlight = self._sheet()
        self.widget.game = {
            # What the page keeps in the browser between visits (no account, no server).
            "kept": {"set": self.set.name, "solved": sorted(self.solved), "total": self.total},
            "sheet": sheet,
            "highlight": highlight,
            "next_lesson": next_lesson,
            "title": title,
            "puzzle": tr.ui("game.puzzle_number", number=self.index + 1, total=self.total),
            "progress": progress,
            "solved": solved_now,
            "solved_count": len(self.solved),
            "total": self.total,
            "prompt": prompt,
            "proposed": proposed,
            "proposed_label": proposed_label,
            "choices": choices,
            "choices_label": choices_label,
            "hint": self.hint,
            "controls": controls,
            "stage": self.stage,
            # Hand and Foot: each player's hand-or-foot state is on the table (a puzzle may
            # hinge on whether the partner plays from the foot, H-OUT-1).
            "show_others": variant_of(self.start).feet,
        }


#: The longest answer read as a number (a score has at most 5 digits and a sign).
MAX_TYPED_DIGITS = 12


def _as_number(text: str) -> int | None:
    """A score as a learner types it: "1,475", "-35", "−35", " 185 ", or in the digits of
    their own script ("۱۴۷۵", "१४७५", "౧౪౭౫": Python reads every decimal digit)."""
    cleaned = text.strip().replace(",", "").replace("،", "").replace("٬", "").replace(" ", "")
    cleaned = cleaned.replace("\u2212", "-").replace("\u2013", "-")
    if cleaned.startswith("+"):
        cleaned = cleaned[1:]
    if len(cleaned) > MAX_TYPED_DIGITS or not cleaned.lstrip("-").isdecimal():
        return None  # "²" or thousands of digits: no score a learner types (F27)
    try:
        return int(cleaned)
    except ValueError:
        return None


def _take_why(move: TakePile, top: int | None) -> str:
    """The message saying which way of taking the pile (C-PILE-3, C-PILE-4) was used."""
    naturals = sum(1 for k in move.cards if top is not None and k == top)
    if naturals >= 2:
        return "game.why.take_pair"
    if naturals == 1:
        return "game.why.take_natural_wild"
    return "game.why.take_onto_meld"


# ---------------------------------------------------------------------- play()


def language_error_widget(error: Exception) -> Any:
    """A widget telling, in all four languages, that a language code is unknown.

    ``UnknownLanguage`` already says it once per language, one line each, in the order of
    ``LANGUAGES`` (and keeps whatever the learner typed printable and short)."""
    import ipywidgets

    from canasta_teach.i18n import LANGUAGES

    lines = str(error).splitlines()
    parts = [
        _html_block(lang, html.escape(line)) for lang, line in zip(LANGUAGES, lines, strict=False)
    ]
    return ipywidgets.HTML(
        "".join(parts), layout=ipywidgets.Layout(border="2px solid #9b1c1c", padding="4px 12px")
    )


def _html_block(lang: str, text: str) -> str:
    direction = "rtl" if lang in RTL_LANGUAGES else "ltr"
    height = "2.2" if lang == "ur" else "1.6"
    family = html.escape(FONT_FAMILIES.get(lang, FONT_FAMILIES["en"]), quote=True)
    return (
        f'<p role="alert" class="ct-error" dir="{direction}" lang="{lang}" '
        f'style="font-family: {family}; line-height: {height}; margin: 4px 0;">{text}</p>'
    )


def error_widget(translator: Translator, lang: str, key: str, **params: Any) -> Any:
    import ipywidgets

    safe = {k: html.escape(str(v)) for k, v in params.items()}
    return ipywidgets.HTML(
        _html_block(lang, translator.ui(key, **safe)),
        layout=ipywidgets.Layout(border="2px solid #9b1c1c", padding="4px 12px"),
    )


def shown_safely(lang: str, what: str, build: Callable[[Translator, str], Any]) -> Any:
    """``build(translator, lang)``'s widget for a notebook cell, never a traceback: an unknown
    language code or a failure shows a clear message instead (the failure is logged)."""
    from canasta_teach.i18n import UnknownLanguage, get_translator

    try:
        translator = get_translator(lang)
    except UnknownLanguage as error:
        return language_error_widget(error)
    try:
        return build(translator, translator.lang)
    except Exception:  # noqa: BLE001 - no traceback may reach a learner
        log.exception("%s(%r) failed", what, lang)
        return error_widget(translator, translator.lang, "msg.error")


def play(
    name: str, lang: str = "en", *, start: Path | None = None, puzzles_dir: Path | None = None
) -> Any:
    """The widget of mini-game ``name`` in language ``lang``: display it (the value of the
    notebook cell).  Never raises: a bad language code or a missing puzzle set shows a
    clear message instead of a traceback.  ``puzzles_dir`` names the folder holding the sets
    (tests use it); by default it is found from ``start`` or the working directory."""
    from canasta_teach.i18n import UnknownLanguage, get_translator

    try:
        translator = get_translator(lang)
    except UnknownLanguage as error:
        return language_error_widget(error)
    lang = translator.lang  # "UR", "ur_PK" -> "ur"
    try:
        folder = None
        if isinstance(name, str):
            if puzzles_dir is not None:
                candidate = puzzles_dir / name
                folder = candidate if (candidate / "set.toml").is_file() else None
            else:
                folder = find_puzzle_set(name, start)
        if folder is None:
            return error_widget(translator, lang, "error.unknown_game", name=name,
                          choices=", ".join(GAMES))  # fmt: skip
        puzzle_set = load_set(folder)
        game = PuzzleGame(puzzle_set, translator, lang)
        return game.widget
    except PuzzleError:
        log.exception("puzzle set %r could not be loaded", name)
        return error_widget(translator, lang, "error.puzzles", name=name)
    except Exception:  # noqa: BLE001 - no traceback may reach a learner
        log.exception("play(%r, %r) failed", name, lang)
        return error_widget(translator, lang, "msg.error")


def warm_up(start: Path | None = None) -> None:
    """Load what a lesson's first game needs before any page asks for it: every language's
    texts and every puzzle set found from ``start`` (default: the working directory), read and
    checked. A warm kernel runs this (``canasta_teach.warmkernels.WARM_CODE``): a page then
    spends its time on its own game only. Shows nothing; never raises (a page that needs what
    failed here reports it itself)."""
    from canasta_teach.i18n import LANGUAGES, get_translator

    try:
        for lang in LANGUAGES:
            build_labels(get_translator(lang))  # reads the language's catalogs
        warm_puzzle_sets(start)
    except Exception:
        log.exception("warming up failed")


__all__ = ["GAMES", "PuzzleGame", "play", "warm_up"]
