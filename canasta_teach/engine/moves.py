"""Moves (what a player does) and verdicts (whether the engine allows it, and why not).

A move names cards by kind (``cards.Kind``); which physical card of a kind goes where is
not a question in Canasta.  Moves are small immutable values, hashable, with a notation
(``str(move)``, parsed by ``notation.parse_move``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from .cards import TOKENS, Kind


def _cards_text(cards: tuple[Kind, ...]) -> str:
    return " ".join(TOKENS[k] for k in cards)


def canonical(cards: tuple[int, ...] | list[int]) -> tuple[Kind, ...]:
    """Cards in the canonical order: highest kind first (naturals, then threes, 2s, jokers)."""
    return tuple(Kind(k) for k in sorted(cards, reverse=True))


@dataclass(frozen=True, slots=True)
class Draw:
    """C-TURN-1: take the top card of the stock (two in the 2-player game, C-TWO-2).

    With the stock empty, drawing ends the hand (C-END-2)."""

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class TakePile:
    """C-PILE-1: take the discard pile, melding its top card with ``cards`` from the hand.

    With ``cards`` empty, the top card goes onto the team's meld of its rank (C-PILE-4).
    When the team already has a meld of that rank, the top card and ``cards`` go onto it.
    """

    cards: tuple[Kind, ...] = ()

    def __str__(self) -> str:
        return f"take {_cards_text(self.cards)}".rstrip()


@dataclass(frozen=True, slots=True)
class Meld:
    """C-TURN-2: lay down a new meld from the hand.

    Before the team has met its first-meld minimum, the meld is *set aside* and goes down
    with the others once their values reach the minimum (C-MIN-2, C-MIN-4)."""

    cards: tuple[Kind, ...]

    def __str__(self) -> str:
        return f"meld {_cards_text(self.cards)}"


@dataclass(frozen=True, slots=True)
class Add:
    """C-MELD-3: add cards from the hand to the team's meld of ``rank``."""

    rank: Kind
    cards: tuple[Kind, ...]

    def __str__(self) -> str:
        return f"add {TOKENS[self.rank]}: {_cards_text(self.cards)}"


@dataclass(frozen=True, slots=True)
class LayDown:
    """H-MIN-1: put every group set aside down together, once they reach the round's
    first-meld minimum (Hand and Foot; in Classic a first meld goes down by itself)."""

    def __str__(self) -> str:
        return "lay down"


@dataclass(frozen=True, slots=True)
class Discard:
    """C-TURN-3: put one card on the discard pile; the turn ends."""

    card: Kind

    def __str__(self) -> str:
        return f"discard {TOKENS[self.card]}"


@dataclass(frozen=True, slots=True)
class AskPartner:
    """C-ASK-1: "Partner, may I go out?"."""

    def __str__(self) -> str:
        return "ask"


@dataclass(frozen=True, slots=True)
class Answer:
    """C-ASK-1: the partner's binding answer."""

    yes: bool

    def __str__(self) -> str:
        return "answer yes" if self.yes else "answer no"


Move: TypeAlias = Draw | TakePile | Meld | Add | LayDown | Discard | AskPartner | Answer

DRAW = Draw()
LAY_DOWN = LayDown()
ASK = AskPartner()
YES = Answer(True)
NO = Answer(False)


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a move is refused: a rule id, a message key and the facts that decide it.

    ``params`` holds only JSON-ready values (ints, strings, lists of card tokens), so a
    reason can be shown in any language (``canasta_teach.i18n``) or sent as JSON.
    """

    code: str
    rule: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        inner = ", ".join(f"{k}: {v}" for k, v in self.params.items())
        return f"{self.rule} {self.code} {{{inner}}}"

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "rule": self.rule, "params": dict(self.params)}


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer of ``check``: legal, or refused with a ``Reason``.

    ``note`` carries a fact about a legal move worth telling a learner (for example that a
    meld was set aside because the first-meld minimum is not reached yet)."""

    reason: Reason | None = None
    note: Reason | None = None

    @property
    def legal(self) -> bool:
        return self.reason is None

    def __bool__(self) -> bool:
        return self.reason is None


LEGAL = Verdict()


@dataclass(frozen=True, slots=True)
class MoveKind:
    """One kind of move, declared once: everything else that lists move kinds reads this.

    The engine holds only identifiers: ``check`` and ``play`` name the state's methods
    (``State`` builds its dispatch tables from them, per class, so a variant's override
    counts); ``button`` is the table's button (catalog key ``button.<button>``), ``told``
    the learner's own move in words (``msg.<told>``; Draw and Answer pick a variant of it)
    and ``narrated`` a computer player's move (``game.full.move.<narrated>``; None: an
    answer is told by the game itself)."""

    move_type: type
    verb: str  # the notation's first word (``notation.parse_move``)
    check: str
    play: str
    button: str
    told: str
    narrated: str | None


#: Every move kind, in ``legal_moves`` order.
MOVE_KINDS: tuple[MoveKind, ...] = (
    MoveKind(Draw, "draw", "_check_draw", "_do_draw", "draw", "drew", "draw"),
    MoveKind(TakePile, "take", "_check_take", "_do_take", "take", "took", "take"),
    MoveKind(Meld, "meld", "_check_meld", "_do_meld", "meld", "melded", "meld"),
    MoveKind(Add, "add", "_check_add", "_do_add", "add", "added", "add"),
    MoveKind(
        LayDown, "lay", "_check_lay_down", "_do_lay_down", "lay_down", "laid_down", "lay_down"
    ),  # fmt: skip
    MoveKind(AskPartner, "ask", "_check_ask", "_do_ask", "ask", "asked", "ask"),
    MoveKind(Answer, "answer", "_check_answer", "_do_answer", "answer", "answered", None),
    MoveKind(
        Discard, "discard", "_check_discard", "_do_discard", "discard", "discarded", "discard"
    ),  # fmt: skip
)
#: The kind of each move type.
KIND_OF: dict[type, MoveKind] = {kind.move_type: kind for kind in MOVE_KINDS}


def refuse(code: str, rule: str, **params: Any) -> Verdict:
    return Verdict(Reason(code, rule, params))
