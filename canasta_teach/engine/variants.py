"""The variants the engine plays, by rule family: one table that the game, the views, the
notation, saved games and the command line look up (``find_variant``), so no module outside
a variant's own needs a branch per variant."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .rules import CLASSIC4, HAND_AND_FOOT, RuleSet
from .scoring import TeamScore
from .state import State


@dataclass(frozen=True, slots=True)
class Variant:
    family: str
    state_class: type[State]
    #: The preset a new game of this family starts from.
    default_rules: RuleSet
    #: ``score_team(state, team)`` (``scoring.TeamScore``).
    score_team: Callable[[Any, int], TeamScore]
    #: Cards in the whole deck (108 for Classic, 270 for Hand and Foot with five decks).
    deck_size: Callable[[RuleSet], int]


def _classic() -> Variant:
    from . import scoring

    def classic_score(state: Any, team: int) -> TeamScore:
        return scoring.score_team(state, team)

    return Variant("classic", State, CLASSIC4, classic_score, lambda rules: 108)


def _handfoot() -> Variant:
    from . import handfoot

    def deck_size(rules: RuleSet) -> int:
        return sum(handfoot.deck_counts(rules.decks))

    return Variant("handfoot", handfoot.HandFootState, HAND_AND_FOOT, handfoot.score_team,
                   deck_size)  # fmt: skip


_MAKERS: dict[str, Callable[[], Variant]] = {"classic": _classic, "handfoot": _handfoot}
_MADE: dict[str, Variant] = {}


def find_variant(family: str) -> Variant:
    """The variant of a rule family; ``ValueError`` for an unknown one."""
    variant = _MADE.get(family)
    if variant is None:
        maker = _MAKERS.get(family)
        if maker is None:
            raise ValueError(family)
        variant = _MADE[family] = maker()
    return variant


def state_class(rules: RuleSet) -> type[State]:
    return find_variant(rules.family).state_class


__all__ = ["Variant", "find_variant", "state_class"]
