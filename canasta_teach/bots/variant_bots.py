"""What each variant gives the computer players and the coach, by rule family.

``engine.variants.Variant`` answers what the table asks of a variant; this table answers what
the bots ask: which player plays a level in that variant, the normal player's discard (the
coach's "throw this instead"), and the common mistakes the coach names there.  A variant's
bot module fills its entry when it is imported (``classic``, ``handfoot``), and the players
and the coach look it up by ``state.rules.family``, so neither names a variant (as
``hard.SEARCH_GAMES`` gives the search its side of each variant).

This module imports no variant's module, so a variant's module can import it without a
cycle.  The entries are there before any bot plays: importing any ``canasta_teach.bots``
module runs the package's ``__init__``, which imports ``hard`` and with it every variant's
bot module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from canasta_teach.engine import Discard, State

from .heuristics import Choice


class Player(Protocol):
    """A computer player of one level (what ``bots.Bot`` is, without importing it)."""

    name: str

    def step(self, state: State) -> Choice: ...


@dataclass(frozen=True)
class VariantBots:
    """One variant's side of the easy and normal players and of the coach."""

    #: The normal player's choice among ``discards`` from a seat's view: the discard the coach
    #: offers instead of one that feeds the next player.
    best_discard: Callable[[dict[str, Any], Sequence[Discard]], Discard]
    #: The common mistakes the coach may name in this variant (``coach.MISTAKES`` keys):
    #: Hand and Foot's late foot, Classic's wild cards spent early, and so on.
    mistakes: frozenset[str]
    #: The variant's own player for a level, by level name ("easy", "normal"); a level not
    #: listed plays the variant with ``players.EasyBot`` / ``NormalBot`` themselves.
    players: Mapping[str, Callable[[int | str], Player]] = field(default_factory=dict)
    #: Whether the coach's worlds give a partner who asked "may I go out?" a hand that goes
    #: out (``coach._fit_asker``, which deals for Classic's going out: canastas, C-OUT-1).
    fits_asker: bool = False


#: Rule family -> its bots' side, filled by each variant's bot module (``register``).
VARIANT_BOTS: dict[str, VariantBots] = {}


def register(family: str, bots: VariantBots) -> None:
    """Make ``bots`` the side of rule family ``family`` (called by its bot module)."""
    VARIANT_BOTS[family] = bots


def variant_bots(family: str) -> VariantBots:
    """The bots' side of rule family ``family``; ``ValueError`` for one without bots."""
    try:
        return VARIANT_BOTS[family]
    except KeyError:
        raise ValueError(f"no bots for rule family {family!r}") from None


__all__ = ["VARIANT_BOTS", "Player", "VariantBots", "register", "variant_bots"]
