"""What a full game's table and its settings panel share: the full game (``fullgame``), a room
of friends (``friends``) and the coach (``coaching``) each draw one.

- ``GameTable``: the card table of a whole game, forwarding the learner's accepted moves;
- the words of the settings (``LEVEL_KEYS``, ``PLAYER_KEYS``, ``VARIANT_KEYS``) and of a move
  given as advice (``describe_move``);
- ``setting_row``: a row of setting buttons.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from canasta_teach.engine import (
    Add,
    Answer,
    Discard,
    Kind,
    Meld,
    Move,
    Verdict,
)
from canasta_teach.engine.cards import TOKENS
from canasta_teach.engine.moves import MOVE_KINDS
from canasta_teach.i18n import Translator

from .table import TableController

#: The learner sits South (seat 0) at both tables; the partner (four players) sits North.
LEARNER = 0

LEVEL_KEYS = {
    "easy": "game.full.level.easy",
    "normal": "game.full.level.normal",
    "hard": "game.full.level.hard",
}
PLAYER_KEYS = {4: "game.full.players.four", 2: "game.full.players.two"}
#: The games the table plays: Classic Canasta (2 or 4 players) and Hand and Foot (4 players).
VARIANT_KEYS = {"classic": "game.full.variant.classic", "handfoot": "game.full.variant.handfoot"}
MOVE_KEYS = {
    kind.move_type: f"game.full.move.{kind.narrated}"
    for kind in MOVE_KINDS
    if kind.narrated is not None
}


def describe_move(tr: Translator, move: Move) -> str:
    """A move as advice: "meld three kings", "discard a nine"."""
    if isinstance(move, Answer):
        return tr.ui("game.full.move.answer_yes" if move.yes else "game.full.move.answer_no")
    key = MOVE_KEYS[type(move)]
    if isinstance(move, Meld):
        return tr.ui(key, cards=tr.cards([TOKENS[k] for k in move.cards]))
    if isinstance(move, Add):
        if move.rank == Kind.JOKER:  # Hand and Foot's meld of wild cards
            return tr.ui("game.full.move.add_wild", cards=tr.cards([TOKENS[k] for k in move.cards]))
        return tr.ui(key, cards=tr.cards([TOKENS[k] for k in move.cards]),
                     rank_of=tr.card_of(TOKENS[move.rank]))  # fmt: skip
    if isinstance(move, Discard):
        return tr.ui(key, card=tr.card(TOKENS[move.card]))
    return tr.ui(key)


class GameTable(TableController):
    """The card table of a whole game: the learner's moves, once the engine here has accepted
    them (a refusal is explained at once), go to ``forward``: ``FullGame.learner_moves``, or a
    room's authority (``RoomTable.submit``)."""

    forward: Callable[[Sequence[Move]], None]

    def play(self, move: Move) -> Verdict:
        verdict = self.state.check(move)
        if not verdict.legal:
            assert verdict.reason is not None
            self.refuse(verdict.reason)
            return verdict
        self.forward([move])
        return verdict

    def _go_out(self, cards: list[Kind]) -> None:
        moves = self.going_out_moves(cards)
        if moves is not None:
            self.forward(moves)


def setting_row(label: str, name: str, options: list[tuple[Any, str, bool]]) -> dict[str, Any]:
    """A row of setting buttons (``name:value`` controls), the chosen one pressed."""
    return {
        "id": name,
        "label": label,
        "choices": [
            {"id": f"{name}:{value}", "label": text, "pressed": pressed}
            for value, text, pressed in options
        ],
    }
