"""Scoring: a hand as a breakdown of lines (C-SCORE-1), and a game to 5,000 (C-GAME-1).

Each line carries a message code, its facts and its points, so the same breakdown can be
read in any language or as JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .cards import counts_value
from .state import State
from .teams import seats_of, team_of


@dataclass(frozen=True, slots=True)
class ScoreLine:
    code: str  # message key: canastas_natural, red_threes, going_out, ...
    rule: str  # the rule id the line applies
    points: int
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "rule": self.rule, "points": self.points,
                "params": dict(self.params)}  # fmt: skip


@dataclass(frozen=True, slots=True)
class TeamScore:
    team: int
    lines: tuple[ScoreLine, ...]

    @property
    def total(self) -> int:
        return sum(line.points for line in self.lines)

    def to_dict(self) -> dict[str, Any]:
        return {"team": self.team, "lines": [ln.to_dict() for ln in self.lines],
                "total": self.total}  # fmt: skip


@dataclass(frozen=True, slots=True)
class HandScore:
    teams: tuple[TeamScore, TeamScore]

    @property
    def totals(self) -> tuple[int, int]:
        return (self.teams[0].total, self.teams[1].total)

    def to_dict(self) -> dict[str, Any]:
        return {"teams": [t.to_dict() for t in self.teams]}


#: C-CAN-1: a natural canasta's bonus, and a mixed one's (H-SCORE-1: a clean pile's, a
#: dirty one's); H-SCORE-1: a pile of wild cards only.
NATURAL_CANASTA_BONUS: Final = 500
MIXED_CANASTA_BONUS: Final = 300
WILD_PILE_BONUS: Final = 1500
#: C-OUT-2, C-OUT-3 (H-SCORE-1): going out, and going out concealed.
GOING_OUT_BONUS: Final = 100
CONCEALED_BONUS: Final = 200


#: A variant that scores its own way registers its scorer here for its state class (its module
#: is imported wherever one of its states exists), so this module needs no variant import.
_VARIANT_SCORERS: dict[type[State], Callable[[Any, int], TeamScore]] = {}


def register_variant_scorer(
    state_class: type[State], scorer: Callable[[Any, int], TeamScore]
) -> None:
    """``score_team`` of ``state_class``'s states is ``scorer`` (Hand and Foot's, H-SCORE-1)."""
    _VARIANT_SCORERS[state_class] = scorer


def red_three_points(count: int) -> int:
    """C-RED-2: 100 each, 800 for all four."""
    return 800 if count == 4 else 100 * count


def score_team(state: State, team: int) -> TeamScore:
    """The breakdown of one team's hand score, for the state as it stands.

    At the end of a hand this is the hand's score; before it, it is what the team would
    score if the hand ended now (with no going-out bonus).
    """
    variant_scorer = _VARIANT_SCORERS.get(type(state))
    if variant_scorer is not None:
        return variant_scorer(state, team)
    lines: list[ScoreLine] = []
    melds = state.melds[team].values()
    natural = sum(1 for g in melds if g.is_canasta and g.is_natural)
    mixed = sum(1 for g in melds if g.is_canasta and not g.is_natural)
    if natural:
        lines.append(
            ScoreLine(
                "canastas_natural", "C-CAN-1", NATURAL_CANASTA_BONUS * natural, {"count": natural}
            )
        )
    if mixed:
        lines.append(
            ScoreLine("canastas_mixed", "C-CAN-1", MIXED_CANASTA_BONUS * mixed, {"count": mixed})
        )
    reds = state.red_threes[team]
    if reds:
        points = red_three_points(reds)
        if not state.down[team]:
            lines.append(ScoreLine("red_threes_unmelded", "C-RED-3", -points, {"count": reds}))
        else:
            lines.append(ScoreLine("red_threes", "C-RED-2", points, {"count": reds}))
    end = state.end
    if end is not None and end.how in ("out", "concealed") and team_of(end.seat) == team:
        if end.how == "concealed":
            lines.append(ScoreLine("going_out_concealed", "C-OUT-3", CONCEALED_BONUS))
        else:
            lines.append(ScoreLine("going_out", "C-OUT-2", GOING_OUT_BONUS))
    melded = sum(g.value for g in melds)
    if melded:
        lines.append(ScoreLine("melded_cards", "C-VAL-2", melded))
    seats = seats_of(team, state.players)
    in_hand = sum(counts_value(state.hands[s]) for s in seats)
    if in_hand:
        lines.append(ScoreLine("cards_in_hand", "C-VAL-2", -in_hand))
    if state.penalties[team]:
        lines.append(ScoreLine("ask_penalty", "C-ASK-1", -state.penalties[team]))
    return TeamScore(team, tuple(lines))


def score_hand(state: State) -> HandScore:
    """C-SCORE-1 for both teams."""
    return HandScore((score_team(state, 0), score_team(state, 1)))


def game_winner(totals: Sequence[int], target: int = 5000) -> int | None:
    """C-GAME-1: the winning team, or None while the game goes on (or on an exact tie)."""
    a, b = totals[0], totals[1]
    if a < target and b < target:
        return None
    if a == b:
        return None  # a tie at or above the target is settled by another hand
    return 0 if a > b else 1
