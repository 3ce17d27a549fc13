"""A guided first hand: a fixed deal, and a coach who says what to do at each step and why.

The learner sits South with North as partner.  The deal (``POSITION``, in the project's
notation) and every move of the hand (``SCRIPT``) are fixed, so the hand always goes the same
way: draw, a first meld of six kings, a discard; taking the pile with a pair of 9s; a canasta
with the joker; a meld of aces; asking "Partner, may I go out?" and going out.  The other three
seats play their scripted moves through the same seat machinery as computer players, narrated
from the engine's events.  A legal move that is not the coach's is politely refused (the hand
follows its plan); an illegal one is explained by the engine as everywhere else.  The hand ends
with its score, line by line, each line with why it counts and its rule.

    from canasta_teach.widgets import guided_hand
    guided_hand(lang="te")
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from canasta_teach.bots import Choice
from canasta_teach.engine import State
from canasta_teach.engine.notation import parse_move, parse_position

from .fullgame import LEARNER, FullGame, Seat
from .table import ACTIONS, Translator

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

    def __init__(self, translator: Translator, lang: str, *, pace: str = "normal") -> None:
        super().__init__(translator, lang, players=4, level="easy", pace=pace,
                         seed="guided-first-hand")  # fmt: skip

    # The script replaces the deal and the computer players.
    def _new_game(
        self, players: int, level: str, mode: str, day: date | None, seed: str | None
    ) -> None:
        super()._new_game(4, level, "practice", None, "guided-first-hand")
        self.game.state = guided_state()
        self.seats = [Seat("learner")] + [Seat("bot", ScriptedSeat(s)) for s in (1, 2, 3)]  # type: ignore[arg-type]
        self.coached = 0

    def _save(self) -> None:
        """A guided hand is short and always the same: nothing to keep."""

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
        super().learner_moves(moves)

    def _on_control(self, control: str) -> None:
        if control == "retry":
            self.start()
            return
        self.controller.say("refusal", self.tr.ui("game.full.not_now"))
        self.render()

    def _on_values(self, control: str, values: Any) -> None:
        if control == "hello":
            return  # nothing is saved, so nothing to resume
        super()._on_values(control, values)

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
            self.controller.actions = ACTIONS
        elif step is COACHED[-1]:
            self.controller.actions = (step.button, "go_out")  # going out: either button
        else:
            self.controller.actions = (step.button,)
        return {
            "kind": "full",
            "title": tr.ui("game.guide.title"),
            "puzzle": tr.ui(
                "game.guide.step", number=tr.number(number), total=tr.number(len(COACHED))
            ),  # fmt: skip
            "progress": tr.ui("game.guide.finished") if done else "",
            "solved": done,
            "solved_count": self.coached,
            "total": len(COACHED),
            "prompt": prompt,
            "notice": "",
            "choices": [],
            "groups": [],
            "sheet": self._breakdown(),
            "tables": [],
            "form": None,
            "hint": "",
            "controls": [{"id": "retry", "label": tr.ui("game.retry"), "primary": done}],
            "stage": "over" if done else "play",
            "narration_label": tr.ui("game.full.narration"),
            "why_label": tr.ui("game.full.why_label"),
            "skip_label": tr.ui("game.full.skip"),
        }


def guided_hand(lang: str = "en", *, pace: str = "normal") -> Any:
    """The guided first hand in language ``lang``: display it (the value of the cell).
    Never raises: a bad language code shows a clear message instead."""
    from .games import shown_safely

    return shown_safely(lang, "guided_hand",
                        lambda tr, code: GuidedHand(tr, code, pace=pace).widget)  # fmt: skip


__all__ = ["COACHED", "POSITION", "SCRIPT", "GuidedHand", "guided_hand", "guided_state"]
