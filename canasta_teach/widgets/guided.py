"""A guided first hand: a fixed deal, and a coach who says what to do at each step and why.

The learner sits South with North as partner.  The deal (``POSITION``, in the project's
notation) and every move of the hand (``SCRIPT``) are fixed, so the hand always goes the same
way: draw, a first meld of six kings, a discard; taking the pile with a pair of 9s; a canasta
with the joker; a meld of aces; asking "Partner, may I go out?" and going out.  The other three
seats play their scripted moves through the same seat machinery as computer players, narrated
from the engine's events.  A legal move that is not the coach's is politely refused (the hand
follows its plan); an illegal one is explained by the engine as everywhere else.  The hand ends
with its score, line by line, each line with why it counts and its rule.

How far the learner got is kept under the browser's id (``<id>.guided.json``): a reload
replays the script to that step.  The steps played are reported to the page (``kept``) as a
lesson's solved puzzles are, so the start page marks lesson 11 done once the hand is played.

    from canasta_teach.widgets import guided_hand
    guided_hand(lang="te")
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, TypeGuard

from canasta_teach.bots import Choice
from canasta_teach.engine import State
from canasta_teach.engine.notation import parse_move, parse_position
from canasta_teach.engine.savefile import SaveFileError
from canasta_teach.i18n import Translator

from .fullgame import LEARNER, PLAYER_ID, SAVE_VERSION, FullGame, Playback, Seat
from .table import default_actions

log = logging.getLogger(__name__)

#: The guided hand's save: how far the learner got (``coached``: the coach's steps played
#: in the hand now on the table; ``best``: the most ever played, what the start page shows).
GUIDED_FORMAT = "canasta-teach/guided"
#: The name its progress goes by in the browser (the page's ``kept`` report).
GUIDED_SET = "guided-hand"

#: The deal.  South's hand makes the lesson; the others' hands and the top of the stock only
#: have to let the script run (the script's draws come off the top of the stock, last first).
POSITION = """\
rules: classic4
scores: NS 0, EW 0
turn: S draw
S: K K K K K A A JK 9 9 4
W: 5 6 8 10 J Q 4 7 8 5 6
N: 4 5 6 7 8 10 J 10 J 6 Q
E: 5 7 8 9 10 J 4 6 8 7 5
pile: A
stock: rest Q 5 6 7 J 10 Q K
seed: guided-first-hand
"""


@dataclass(frozen=True)
class Step:
    """One move of the script: the seat, the move, and for South the coach's words (a ui key)
    and the button the move is played with (the only one shown then); for a computer seat the
    reason code its partner's explanation uses."""

    seat: int
    move: str
    coach: str = ""
    button: str = ""
    why: str = ""


SCRIPT: tuple[Step, ...] = (
    Step(0, "draw", "game.guide.draw", "draw"),
    Step(0, "meld K K K K K K", "game.guide.meld_first", "meld"),
    Step(0, "discard 4", "game.guide.discard", "discard"),
    Step(1, "draw"), Step(1, "discard Q"),
    Step(2, "draw", why="draw"), Step(2, "discard Q", why="discard"),
    Step(3, "draw"), Step(3, "discard 9"),
    Step(0, "take 9 9", "game.guide.take", "take"),
    Step(0, "add K: JK", "game.guide.canasta", "add"),
    Step(0, "meld A A A", "game.guide.meld_aces", "meld"),
    Step(0, "discard 4", "game.guide.discard_again", "discard"),
    Step(1, "draw"), Step(1, "discard 7"),
    Step(2, "draw", why="draw"), Step(2, "discard 6", why="discard"),
    Step(3, "draw"), Step(3, "discard 5"),
    Step(0, "draw", "game.guide.draw_again", "draw"),
    Step(0, "ask", "game.guide.ask", "ask"),
    Step(2, "answer yes", why="answer_yes_always"),
    Step(0, "meld Q Q Q", "game.guide.go_out", "meld"),
)  # fmt: skip
#: The coach's steps (South's moves), in order.
COACHED: tuple[Step, ...] = tuple(step for step in SCRIPT if step.seat == LEARNER)


class ScriptedSeat:
    """A computer seat that plays its part of the script, one move per call."""

    name = "script"

    def __init__(self, seat: int) -> None:
        self.moves = [step for step in SCRIPT if step.seat == seat]
        self.played = 0

    def step(self, state: State) -> Choice:
        step = self.moves[self.played]
        self.played += 1
        return Choice(parse_move(step.move), step.why or "only_move", {})


def guided_state() -> State:
    return parse_position(POSITION)


class GuidedHand(FullGame):
    """The full game's table, playing the scripted hand with the coach's words."""

    COACHED = False  # the script's coach speaks here, not the table's

    def __init__(self, translator: Translator, lang: str, *, pace: str = "normal",
                 store: Any = None) -> None:  # fmt: skip
        self.best = 0  # the most coach's steps ever played here (the lesson's progress)
        self._replaying = False
        super().__init__(translator, lang, players=4, level="easy", pace=pace,
                         seed="guided-first-hand", store=store)  # fmt: skip

    # The script replaces the deal and the computer players.
    def _new_game(
        self, players: int, level: str, mode: str, day: date | None, seed: str | None
    ) -> None:
        super()._new_game(4, level, "practice", None, "guided-first-hand")
        self.game.state = guided_state()
        self.seats = [Seat("learner")] + [Seat("bot", ScriptedSeat(s)) for s in (1, 2, 3)]
        self.coached = 0

    def _save(self) -> None:
        """Keep how far the learner got, under the browser's id (the script replays it)."""
        if not self._said_hello or self._replaying:
            return  # before the browser says who it is, there is nobody to keep it for
        doc = {"format": GUIDED_FORMAT, "version": SAVE_VERSION, "coached": self.coached,
               "best": self.best}  # fmt: skip
        try:
            self.store.save(self.player, doc, "guided")
        except (OSError, ValueError) as error:  # a read-only home: the hand goes on unsaved
            log.warning("could not save the guided hand: %s", error)

    def resume(self, steps: int) -> None:
        """Replay the script until the learner has played ``steps`` of the coach's steps
        (the other seats' moves in between too), as if they had been clicked."""
        self._replaying = True
        try:
            while self.coached < steps and self.step is not None and self.game.last_hand is None:
                self.learner_moves([parse_move(self.step.move)])
        except ValueError:  # pragma: no cover - the script is legal from its start
            log.exception("the guided hand could not be replayed to step %s", steps)
        finally:
            self._replaying = False
        # The table shows where the hand is now: nothing to replay at the computer's pace.
        self.playback = Playback()
        self._playback_id += 1
        tr = self.tr
        if self.game.last_hand is not None:
            self.controller.say("info", tr.ui("game.full.restored"))
        else:
            self.controller.say("info", tr.ui("game.guide.resumed",
                                              number=tr.number(self.coached + 1),
                                              total=tr.number(len(COACHED))))  # fmt: skip

    def render(self) -> None:
        if not self._replaying:  # a replay draws once, at its end
            super().render()

    @property
    def step(self) -> Step | None:
        return COACHED[self.coached] if self.coached < len(COACHED) else None

    def learner_moves(self, moves: Any) -> None:
        step = self.step
        expected = parse_move(step.move) if step is not None else None
        if expected is None or list(moves) != [expected]:
            self.controller.say("refusal", self.tr.ui("game.guide.other_move"))
            self.render()
            return
        self.coached += 1
        self.best = max(self.best, self.coached)
        super().learner_moves(moves)

    def _on_control(self, control: str) -> None:
        if control == "retry":
            self.start()
            return
        self.controller.say("refusal", self.tr.ui("game.full.not_now"))
        self.render()

    def _on_values(self, control: str, values: Any) -> None:
        if control == "hello":
            self._guided_hello(str(values.get("player", "")))
        elif control == "restore":
            self._restore_progress(values)
        else:
            super()._on_values(control, values)

    def _guided_hello(self, player: str) -> None:
        """The browser says who it is: the hand goes on from the step it had reached."""
        if not PLAYER_ID.fullmatch(player) or (self._said_hello and player != self.player):
            self.controller.say("refusal", self.tr.ui("msg.bad_request"))
            self.render()
            return
        if self._said_hello:
            return
        self._said_hello = True
        self.player = player
        steps = 0
        try:
            doc = self.store.load(player, "guided", kind=GUIDED_FORMAT)
        except SaveFileError as error:
            log.warning("guided hand of %s unreadable: %s", player, error)
            self._keep_unreadable(player, "guided")
            doc = None
        if doc is not None:
            coached, best = doc.get("coached"), doc.get("best")
            if _step_count(coached) and _step_count(best):
                steps = coached
                self.best = max(self.best, best, coached)
        if steps > self.coached and self.game.last_hand is None:
            self.resume(steps)
        self._save()
        self.render()

    def _restore_progress(self, values: Mapping[str, Any]) -> None:
        """The steps this browser remembers having played (its storage, as the start page
        reads it): the lesson stays marked however the hand on the table goes."""
        done = {int(part) for part in str(values.get("solved", "")).split(",")
                if part.strip().isdigit() and int(part) < len(COACHED)}  # fmt: skip
        self.best = max(self.best, len(done))
        self.render()

    def _panel(self) -> dict[str, Any]:
        tr = self.tr
        step = self.step
        done = self.game.last_hand is not None
        if done:
            prompt = tr.ui("game.guide.done")
        elif step is not None:
            button = tr.ui(f"button.{step.button}")
            prompt = tr.ui(step.coach, button=button)
        else:  # pragma: no cover - the script ends with the hand
            prompt = ""
        number = min(self.coached + 1, len(COACHED))
        if done or step is None:
            self.controller.actions = default_actions(self.game.state)
        elif step is COACHED[-1]:
            self.controller.actions = (step.button, "go_out")  # going out: either button
        else:
            self.controller.actions = (step.button,)
        return {
            "kind": "full",
            "wants_player": True,
            # What the page keeps in the browser: the steps played (all of them: the lesson is
            # done), read by the start page as a lesson's puzzles are.
            "kept": {
                "set": GUIDED_SET,
                "solved": list(range(self.best)),
                "total": len(COACHED),
                "unit": "steps",
            },
            "title": tr.ui("game.guide.title"),
            "puzzle": tr.ui(
                "game.guide.step", number=tr.number(number), total=tr.number(len(COACHED))
            ),  # fmt: skip
            "progress": tr.ui("game.guide.finished") if done else "",
            "solved": done,
            "solved_count": self.coached,
            "total": len(COACHED),
            "prompt": prompt,
            "notice": self.notice,
            "choices": [],
            "groups": [],
            "sheet": self._breakdown(),
            "tables": [],
            "form": None,
            "hint": "",
            "controls": [{"id": "retry", "label": tr.ui("game.retry"), "primary": done}],
            "coach": self.coach.panel(),  # silent: the script's coach speaks in the prompt
            "stage": "over" if done else "play",
            "narration_label": tr.ui("game.full.narration"),
            "why_label": tr.ui("game.full.why_label"),
            "skip_label": tr.ui("game.full.skip"),
        }


def _step_count(value: object) -> TypeGuard[int]:
    """A number of the coach's steps, as a save may hold it."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= len(COACHED)


def guided_hand(lang: str = "en", *, pace: str = "normal") -> Any:
    """The guided first hand in language ``lang``: display it (the value of the cell).
    Never raises: a bad language code shows a clear message instead."""
    from .games import shown_safely

    return shown_safely(lang, "guided_hand",
                        lambda tr, code: GuidedHand(tr, code, pace=pace).widget)  # fmt: skip


__all__ = ["COACHED", "POSITION", "SCRIPT", "GuidedHand", "guided_hand", "guided_state"]
