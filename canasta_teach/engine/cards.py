"""Card kinds: what the rules of Canasta can tell apart.

Suits matter to Canasta only for threes (red or black) and for the seat draw
(``seating.py`` uses its own suited cards).  Everywhere else a card is one of 15
*kinds*, and a hand is a vector of 15 counts.  That keeps the engine small and
fast: a meld is "four 7s, one joker", never "7♠ 7♥ 7♥ 7♣ JK".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum
from typing import Final


class Kind(IntEnum):
    """A card kind.  The integer value is its index in a count vector."""

    JOKER = 0
    TWO = 1
    RED_THREE = 2
    BLACK_THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def is_wild(self) -> bool:
        """C-DECK-2: jokers and 2s are wild."""
        return self <= Kind.TWO

    @property
    def is_natural(self) -> bool:
        """C-DECK-2: 4 through A are natural."""
        return self >= Kind.FOUR

    @property
    def token(self) -> str:
        return TOKENS[self]


NUM_KINDS: Final = 15
#: The kinds the rules single out, as plain ints: engine loops index count vectors with them,
#: and a module global is cheaper than ``Kind.JOKER`` (an Enum attribute lookup).  Every
#: module takes them from here.
JOKER: Final = 0
TWO: Final = 1
RED3: Final = 2
BLACK3: Final = 3
FOUR: Final = 4
WILDS: Final = (Kind.JOKER, Kind.TWO)
NATURALS: Final = tuple(Kind(k) for k in range(Kind.FOUR, Kind.ACE + 1))
#: Kinds that can form melds on the table (C-MELD-1, C-MELD-4): naturals, plus black
#: threes when going out.
MELD_RANKS: Final = (Kind.BLACK_THREE, *NATURALS)

#: C-VAL-1.  A red three's 100 is a bonus (C-RED-2), never a card value.
VALUES: Final[tuple[int, ...]] = (50, 20, 0, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 20)

#: C-DECK-1: how many of each kind a 108-card Canasta deck holds.
DECK_COUNTS: Final[tuple[int, ...]] = (4, 8, 4, 4, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8)
DECK_SIZE: Final = 108

#: Notation tokens (docs/notation.md).  Upper case, one token per card.
TOKENS: Final[tuple[str, ...]] = (
    "JK", "2", "3R", "3B", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
)  # fmt: skip
_BY_TOKEN: Final[dict[str, Kind]] = {t: Kind(i) for i, t in enumerate(TOKENS)}
_ALIASES: Final[dict[str, Kind]] = {"T": Kind.TEN, "JOKER": Kind.JOKER, "*": Kind.JOKER}


def card_value(kind: int) -> int:
    """C-VAL-1: the point value of one card of ``kind``."""
    return VALUES[kind]


def parse_kind(token: str) -> Kind:
    """Parse one card token (``7``, ``10``/``T``, ``JK``, ``3R``, ``3B``...).

    Raises ``ValueError`` for anything else; callers turn that into a located error.
    """
    t = token.strip().upper()
    kind = _BY_TOKEN.get(t)
    if kind is None:
        kind = _ALIASES.get(t)  # not `or`: Kind.JOKER is 0, which is falsy
    if kind is None:
        raise ValueError(token)
    return kind


def counts_of(kinds: Iterable[int]) -> list[int]:
    """A count vector from a sequence of kinds."""
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
    return counts


def kinds_of(counts: Sequence[int]) -> list[Kind]:
    """The kinds in a count vector, highest first (the order a hand is shown in)."""
    out: list[Kind] = []
    for k in range(NUM_KINDS - 1, -1, -1):
        out.extend([Kind(k)] * counts[k])
    return out


def format_cards(kinds: Iterable[int]) -> str:
    return " ".join(TOKENS[k] for k in kinds)


def counts_value(counts: Sequence[int]) -> int:
    return sum(c * v for c, v in zip(counts, VALUES, strict=True))
