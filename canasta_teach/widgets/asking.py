"""Your partner asks: arranged deals in which the computer partner asks the learner "Partner,
may I go out?" (C-ASK-1), so that a learner learns to answer.

In ordinary hands the question is rare (the walkthrough never met it in three hands).  Here
North can go out at once and asks; the learner answers with the table's buttons; the coach
(``bots.coach.answer_note``) says whether its search answers the same, with the facts an answer
weighs (the learner's own hand, the table, the score sheet), and the hand goes on as the answer
decided (North goes out after a yes, the hand's score follows).  The deals are chosen so that a
yes is right in one and a no in another: a test holds the coach to that.

    from canasta_teach.widgets import partner_asks
    partner_asks(lang="ur")
"""

from __future__ import annotations

from datetime import date
from typing import Any

from canasta_teach.bots import find_bot
from canasta_teach.engine.notation import parse_position
from canasta_teach.i18n import Translator

from .fullgame import LEARNER, FullGame, Seat

#: The arranged deals (North to play, able to go out; the normal player then asks).
DEALS: tuple[str, ...] = (
    # Yes: North–South are far ahead on the table, South holds two low cards, East and West
    # hold eleven cards each that will count against them.
    """\
rules: classic4
scores: NS 2200, EW 1800
turn: N meld
S: 4 5
W: ?11
N: K K 9 9 9 4
E: ?11
NS melds: 8 8 8 8 8 8 8 | K K K K K | A A A
EW melds: Q Q Q | 6 6 6 2
pile: 10 J 7
stock: rest
seed: partner-asks-1
""",
    # No: South holds aces, queens and two jokers (185 points) that would count against the
    # team, and East–West have not even made their first meld: there is time to meld them.
    """\
rules: classic4
scores: NS 1000, EW 2600
turn: N meld
S: A A A JK JK K 7 Q Q Q 10
W: ?11
N: K K 9 9 9 4
E: ?11
NS melds: K K K K K
pile: 10 J 7 5 6
stock: rest
seed: partner-asks-2
""",
)
#: The answer the coach's search gives in each deal (tests/test_coach.py holds it to this).
EXPECTED = (True, False)


class PartnerAsks(FullGame):
    """The full game's table on an arranged deal in which the partner asks the learner."""

    REVIEWS = False  # an arranged deal has no history to replay for a review

    def __init__(self, translator: Translator, lang: str, *, pace: str = "normal",
                 store: Any = None) -> None:  # fmt: skip
        self.deal = 0
        super().__init__(translator, lang, players=4, level="normal", pace=pace,
                         seed="partner-asks", store=store)  # fmt: skip

    def _new_game(
        self, players: int, level: str, mode: str, day: date | None, seed: str | None
    ) -> None:
        super()._new_game(4, "normal", "practice", None, f"partner-asks/{self.deal}")
        self.game.state = parse_position(DEALS[self.deal])
        self.seats = [Seat("learner")] + [
            Seat("bot", find_bot("normal", seed=f"partner-asks/{self.deal}/{s}")) for s in (1, 2, 3)
        ]

    def _save(self) -> None:
        """An arranged deal is short and always the same: nothing to keep."""

    def _on_control(self, control: str) -> None:
        if self.coach.control(control):
            return
        if control in ("next_deal", "retry"):
            if control == "next_deal":
                self.deal = (self.deal + 1) % len(DEALS)
            self.start(mode="practice")
            return
        if control == "next_hand":
            self.controller.say("info", self.tr.ui("game.asks.one_hand"))
            self.render()
            return
        self.controller.say("refusal", self.tr.ui("game.full.not_now"))
        self.render()

    def _on_values(self, control: str, values: Any) -> None:
        if control == "hello":
            return  # nothing is saved, so nothing to resume
        super()._on_values(control, values)

    def _panel(self) -> dict[str, Any]:
        tr = self.tr
        state = self.game.state
        answered = self.game.last_hand is not None or state.to_move == LEARNER and (
            state.phase.value != "answer"
        )  # fmt: skip
        over = self.game.last_hand is not None
        prompt = tr.ui("game.asks.after" if answered else "game.asks.prompt")
        controls = [
            {"id": "next_deal", "label": tr.ui("game.asks.next"), "primary": answered},
            {"id": "retry", "label": tr.ui("game.retry")},
        ]
        return {
            "kind": "full",
            "title": tr.ui("game.asks.title"),
            "puzzle": tr.ui(
                "game.asks.deal", number=tr.number(self.deal + 1), total=tr.number(len(DEALS))
            ),  # fmt: skip
            "progress": "",
            "solved": over,
            "solved_count": 0,
            "total": 0,
            "prompt": prompt,
            "notice": "",
            "choices": [],
            "groups": [],
            "sheet": self._breakdown(),
            "tables": [],
            "form": None,
            "hint": "",
            "controls": controls,
            "stage": "over" if over else "play",
            "narration_label": tr.ui("game.full.narration"),
            "why_label": tr.ui("game.full.why_label"),
            "skip_label": tr.ui("game.full.skip"),
            "coach": self.coach.panel(),
        }


def partner_asks(lang: str = "en", *, pace: str = "normal") -> Any:
    """The "your partner asks" deals in language ``lang``: display it (the cell's value).
    Never raises: a bad language code shows a clear message instead."""
    from .games import shown_safely

    return shown_safely(lang, "partner_asks",
                        lambda tr, code: PartnerAsks(tr, code, pace=pace).widget)  # fmt: skip


__all__ = ["DEALS", "EXPECTED", "PartnerAsks", "partner_asks"]
