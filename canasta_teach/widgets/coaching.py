"""The coach at the full game's table: its words in the panel, its warnings and its review.

``TableCoach`` is what ``FullGame`` asks at a few points (before forwarding a learner's move,
after each move, when a hand ends, when the panel is drawn, for its controls); the judging
itself is ``canasta_teach.bots.coach``, from the learner's view only.  The coach speaks
through the panel's ``coach`` entry (``{"text", "kind", "actions"}``: drawn by table.js as a
``.ct-coach`` box next to the message), in the learner's language, with every fact worded from
checked claims (``Translator.claim`` in the "you" voice).

- A **warning** stops a discard that gives the pile away (``coach.warn``): "Throw it anyway"
  plays it, "Choose again" leaves the turn as it was.
- A **note** follows the learner's moves: a meld only set aside (what is still missing), or a
  turn in which the learner can go out (ask the partner first).
- After a hand, a **review** (``coach.review``): up to three decisions that cost the learner
  most, each with its estimated cost; "Show" opens the moment on the table as the learner saw
  it (the state before the move, the learner's hand), with what they did, what the coach would
  do and why, and the common mistake it names.  The review is kept with the saved game.

The coach is a setting of the full game: on by default in practice games, off in daily
(leaderboard) games, where the learner plays alone.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from canasta_teach.bots import coach as judge
from canasta_teach.engine import Answer, Move, State
from canasta_teach.engine.game import Game
from canasta_teach.engine.notation import parse_move
from canasta_teach.i18n import Translator

from .gametable import LEARNER, describe_move, setting_row
from .values import small_number

log = logging.getLogger(__name__)

#: The panel's coach box kinds (table.js draws a warning with its own mark as well as colour).
WARNING, NOTE, REVIEW = "warning", "note", "review"


class CoachedGame(Protocol):
    """What the coach reads and calls of the game it coaches (a ``fullgame.FullGame``)."""

    COACHED: bool
    tr: Translator
    mode: str
    game: Game
    awaiting_next: bool

    def learner_moves(self, moves: Sequence[Move]) -> None: ...
    def render(self) -> None: ...
    def _save(self) -> None: ...


class TableCoach:
    """The coach of one ``FullGame`` (see the module)."""

    def __init__(self, game: CoachedGame) -> None:
        self.game = game
        self.on = game.mode == "practice" and game.COACHED
        #: A learner's move the coach stopped, waiting for "Throw it anyway" / "Choose again".
        self.stopped: Move | None = None
        self.warning: judge.Warning | None = None
        self.note: judge.Note | None = None
        #: The last hand's review (``Moment.to_dict()``), its hand number, and the moment open
        #: on the table (an index into ``review``), if any.
        self.review: list[dict[str, Any]] | None = None
        self.review_hand = 0
        self.open: int | None = None
        self._shown: State | None = None
        #: Seconds the last review took (for the benchmark and the log).
        self.review_seconds = 0.0

    # ------------------------------------------------------------------ setting

    def set(self, on: bool) -> None:
        self.on = on and self.game.COACHED
        if not on:
            self.clear()

    def clear(self) -> None:
        """Forget what the coach was saying (a new game, a new hand, a move)."""
        self.stopped = None
        self.warning = None
        self.note = None
        self.close()

    def close(self) -> None:
        self.open = None
        self._shown = None

    @property
    def looking_back(self) -> bool:
        """A reviewed moment is on the table (the learner cannot play on it)."""
        return self._shown is not None

    def shown_state(self) -> State | None:
        return self._shown

    # ------------------------------------------------------------------ before a move

    def screen(self, moves: list[Move]) -> bool:
        """Before the learner's move is played: True when the coach stops it (a warning)."""
        game = self.game
        if not self.on or len(moves) != 1 or game.awaiting_next or game.game.is_over:
            return False
        move = moves[0]
        if self.stopped is not None and move == self.stopped:
            self.stopped = None  # "Throw it anyway", or the same card again: the learner insists
            self.warning = None
            return False
        started = time.perf_counter()
        warning = judge.warn(game.game.state, game_seat(game), move)
        log.debug("coach warning in %.1f ms", (time.perf_counter() - started) * 1000)
        if warning is None:
            return False
        self.stopped = move
        self.warning = warning
        self.note = None
        return True

    # ------------------------------------------------------------------ after moves

    def after_learner_move(self, move: Move, before: State) -> None:
        """A learner's move was played: a note if it only set cards aside."""
        self.warning = None
        self.stopped = None
        self.note = None
        if not self.on:
            return
        if isinstance(move, Answer):
            # The partner asked: the coach says whether it would have answered the same.
            try:
                self.note = judge.answer_note(before, game_seat(self.game), move)
            except Exception:  # noqa: BLE001 - a comment that fails must not stop the game
                log.exception("the coach could not judge an answer")
            return
        state = self.game.game.state
        if state.hand_number == before.hand_number:
            self.note = judge.set_aside_note(state, game_seat(self.game))

    def turn_begins(self) -> None:
        """The learner is to move (after the computers' turns): a note if going out is
        possible now (ask the partner first).  A note about the learner's last move (a
        set-aside, an answer) stays until the next move."""
        if not self.on or self.note is not None or self.warning is not None:
            return
        game = self.game
        if game.awaiting_next or game.game.is_over:
            return
        self.note = judge.note(game.game.state, game_seat(game))

    def hand_ended(self) -> None:
        """Review the hand just ended (the learner's decisions in it)."""
        self.clear()
        self.review = None
        if not self.on:
            return
        game = self.game
        started = time.perf_counter()
        try:
            decisions = learner_decisions(game.game, game_seat(game))
            moments = judge.review(decisions, game_seat(game))
        except Exception:  # noqa: BLE001 - a review that fails must not end the game
            log.exception("the coach's review failed")
            return
        self.review_seconds = time.perf_counter() - started
        log.info("coach review: %d decisions in %.2f s", len(decisions), self.review_seconds)
        self.review = [m.to_dict() for m in moments]
        self.review_hand = len(game.game.hands)

    # ------------------------------------------------------------------ controls

    def control(self, control: str) -> bool:
        """A panel control of the coach's (``coach:...``); True when it was one."""
        if not control.startswith("coach:"):
            return False
        what = control[6:]
        game = self.game
        if what in ("on", "off"):
            self.set(what == "on")
            game._save()
        elif what == "anyway" and self.stopped is not None:
            move = self.stopped
            game.learner_moves([move])  # screen() lets the same move through
            return True
        elif what == "again":
            self.stopped = None
            self.warning = None
        elif what.startswith("show:") and self.review is not None:
            index = _index(what[5:], len(self.review))
            if index is None:
                return False
            self.show(index)
        elif what == "back":
            self.close()
        else:
            return False
        game.render()
        return True

    def show(self, index: int) -> None:
        """Put reviewed moment ``index`` on the table: the state before the learner's move."""
        assert self.review is not None
        moment = self.review[index]
        game = self.game.game
        replayed = Game.replay(game.rules, game.seed, game.moves[: int(moment["index"])])
        self.open = index
        self._shown = replayed.state

    # ------------------------------------------------------------------ saving

    def to_json(self) -> dict[str, Any]:
        return {"on": self.on, "review": self.review, "review_hand": self.review_hand}

    def restore(self, doc: Mapping[str, Any] | None) -> None:
        """From a saved game (an older save has no coach: practice games get one)."""
        self.clear()
        if not isinstance(doc, Mapping):
            self.set(self.game.mode == "practice")
            self.review = None
            return
        self.set(bool(doc.get("on", self.game.mode == "practice")) and self.game.mode == "practice")
        review = doc.get("review")
        valid = isinstance(review, list) and all(_valid_moment(m) for m in review)
        self.review = list(review) if valid and isinstance(review, list) else None
        hand = doc.get("review_hand", 0)
        self.review_hand = hand if isinstance(hand, int) and not isinstance(hand, bool) else 0

    # ------------------------------------------------------------------ words

    def setting(self) -> dict[str, Any]:
        """The panel's Coach setting row (on / off)."""
        tr = self.game.tr
        return setting_row(
            tr.ui("coach.label"),
            "coach",
            [("on", tr.ui("coach.on"), self.on), ("off", tr.ui("coach.off"), not self.on)],
        )

    def panel(self) -> dict[str, Any] | None:
        """The coach's box for the panel, or None when the coach has nothing to say."""
        tr = self.game.tr
        if self.warning is not None:
            words = [tr.ui("coach.warning", move=_advice(self.game, self.warning.move))]
            words += [tr.claim(c.to_dict(), "you") for c in self.warning.claims]
            if self.warning.instead is not None:
                words.append(tr.ui("coach.instead", move=_advice(self.game, self.warning.instead)))
            return {
                "kind": WARNING,
                "text": " ".join(words),
                "actions": [
                    {"id": "coach:again", "label": tr.ui("coach.choose_again"), "primary": True},
                    {"id": "coach:anyway", "label": tr.ui("coach.anyway"), "primary": False},
                ],
            }
        if self._shown is not None and self.review is not None and self.open is not None:
            return self._moment_box(self.review[self.open])
        game = self.game
        if self.review is not None and (game.awaiting_next or game.game.is_over) \
                and self.review_hand == len(game.game.hands):  # fmt: skip
            return self._review_box()
        if self.note is not None:
            words = [tr.claim(c.to_dict(), "you") for c in self.note.claims]
            params = {k: tr.number(v) if isinstance(v, int) else v
                      for k, v in self.note.params.items()}  # fmt: skip
            words.append(tr.ui(f"coach.note.{self.note.key}", **params))
            return {"kind": NOTE, "text": " ".join(words), "actions": []}
        return None

    def _review_box(self) -> dict[str, Any]:
        tr = self.game.tr
        assert self.review is not None
        if not self.review:
            return {"kind": REVIEW, "text": tr.ui("coach.review.none"), "actions": []}
        lines = [tr.ui("coach.review.intro")]
        actions = []
        for i, moment in enumerate(self.review):
            played = _advice(self.game, parse_move(moment["played"]))
            lines.append(tr.ui("coach.review.item", number=tr.number(i + 1), move=played,
                               points=tr.number(int(moment["cost"]))))  # fmt: skip
            actions.append(
                {
                    "id": f"coach:show:{i}",
                    "primary": False,
                    "label": tr.ui("coach.review.show", number=tr.number(i + 1)),
                }
            )
        return {"kind": REVIEW, "text": " ".join(lines), "actions": actions}

    def _moment_box(self, moment: Mapping[str, Any]) -> dict[str, Any]:
        tr = self.game.tr
        played = _advice(self.game, parse_move(moment["played"]))
        best = _advice(self.game, parse_move(moment["best"]))
        words = [tr.ui("coach.moment.played", move=played)]
        words += [tr.claim(c, "you") for c in moment.get("why_not", [])]
        words.append(tr.ui("coach.moment.best", move=best))
        said_already = moment.get("why_not", [])
        words += [tr.claim(c, "you") for c in moment.get("why_best", []) if c not in said_already]
        words.append(tr.ui("coach.moment.cost", points=tr.number(int(moment["cost"]))))
        if moment.get("mistake"):
            words.append(tr.ui(f"coach.mistake.{moment['mistake']}"))
        assert self.review is not None and self.open is not None
        actions = [{"id": "coach:back", "label": tr.ui("coach.moment.back"), "primary": True}]
        if self.open + 1 < len(self.review):
            actions.append(
                {
                    "id": f"coach:show:{self.open + 1}",
                    "label": tr.ui("coach.moment.next"),
                    "primary": False,
                }
            )
        return {"kind": REVIEW, "text": " ".join(words), "actions": actions}


def game_seat(game: CoachedGame) -> int:
    return LEARNER


def _advice(game: CoachedGame, move: Move) -> str:
    text = describe_move(game.tr, move)
    return text


def _index(text: str, size: int) -> int | None:
    return small_number(text, size - 1) if size > 0 else None


def _valid_moment(moment: Any) -> bool:
    """A saved review moment we can show (anything else is dropped, never shown)."""
    if not isinstance(moment, Mapping):
        return False
    try:
        parse_move(str(moment["played"]))
        parse_move(str(moment["best"]))
        return (isinstance(moment["index"], int) and isinstance(moment["cost"], int)
                and isinstance(moment.get("why_best", []), list)
                and isinstance(moment.get("why_not", []), list)
                and moment.get("mistake", "") in ("", *judge.MISTAKES))  # fmt: skip
    except (KeyError, TypeError, ValueError):
        return False


def learner_decisions(game: Game, seat: int) -> list[tuple[int, State, Move]]:
    """The learner's decisions in the hand that ended last: (moves before it, the state as it
    was, the move), found by replaying the game's moves."""
    replay = Game(game.rules, game.seed)
    hand = len(game.hands)  # the hand just scored
    out: list[tuple[int, State, Move]] = []
    for index, text in enumerate(game.moves):
        state = replay.state
        if state.hand_number > hand:
            break
        move = parse_move(text)
        if state.hand_number == hand and state.to_move == seat:
            out.append((index, state.copy(), move))
        replay.apply(move)
    return out


__all__ = ["NOTE", "REVIEW", "WARNING", "TableCoach", "learner_decisions"]
