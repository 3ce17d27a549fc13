"""The variants the engine plays, by rule family: one table that the game, the views, the
notation, saved games, the rooms and the widgets look up (``find_variant``, ``variant_of``),
so no module outside a variant's own needs a branch per variant.

A variant answers what callers would otherwise test its name for: its presets by number of
players (``rules_for``), the table's buttons (``table_actions``, from ``moves.MOVE_KINDS``),
what its table shows (``piles_of_seven``, ``feet``) and the catalog keys it words its own way
(``word``). Behaviour of a position is the state class's (``State.complete_piles``,
``State.face_down_foot``, ``State.variant_view``; ``RuleSet.partner_is_asked``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

# Registers Hand and Foot's position format with ``notation`` (a variant's notation module
# is imported here, where the variants are listed, and nowhere else).
from . import handfoot_notation as _handfoot_notation  # noqa: F401
from .moves import MOVE_KINDS, Answer, AskPartner, Discard, LayDown
from .rules import CLASSIC2, CLASSIC4, FAMILIES, HAND_AND_FOOT, RuleSet
from .scoring import TeamScore
from .state import State

#: The table's button that plays no single move kind: the going-out planner (several moves).
GO_OUT: Final = "go_out"
#: The partner's question and its answer: not plays of a turn, so shown after them, and only
#: at a table whose rules ask (``RuleSet.partner_is_asked``).
_QUESTION_TYPES: Final = (AskPartner, Answer)


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
    #: The presets by number of players, the default first (Hand and Foot: four, H-DECK-1).
    presets: Mapping[int, RuleSet]
    #: The move types this family plays (``moves.MOVE_KINDS``; Classic lays nothing down).
    move_types: frozenset[type]
    #: Table buttons that play no move kind (Classic's going-out planner, ``GO_OUT``).
    table_extras: tuple[str, ...] = ()
    #: Whether a finished meld leaves the melds as a pile of seven with a kind (H-MELD-3),
    #: rather than staying a canasta among them (C-CAN-1).
    piles_of_seven: bool = False
    #: Whether each player has a foot to play after the hand (H-FOOT-1).
    feet: bool = False
    #: Catalog keys this family words its own way: the shared key to the family's own.
    words: Mapping[str, str] = field(default_factory=dict)

    @property
    def player_counts(self) -> tuple[int, ...]:
        """The numbers of players this family is played with, the default first."""
        return tuple(self.presets)

    def rules_for(self, players: int) -> RuleSet:
        """The preset for ``players``, or the default one when the family has none for it
        (Hand and Foot is four players whatever was asked)."""
        return self.presets.get(players, self.default_rules)

    @property
    def table_buttons(self) -> tuple[str, ...]:
        """Every button this family's table may show, in the order shown: the plays of a turn
        (``MOVE_KINDS`` order, the discard last), the extras, then the partner's question."""
        kinds = [k for k in MOVE_KINDS if k.move_type in self.move_types]
        plays = [k for k in kinds if k.move_type not in _QUESTION_TYPES]
        plays.sort(key=lambda k: k.move_type is Discard)  # the discard ends a turn (C-TURN-3)
        question = [k.button for k in kinds if k.move_type in _QUESTION_TYPES]
        return (*(k.button for k in plays), *self.table_extras, *question)

    def table_actions(self, rules: RuleSet) -> tuple[str, ...]:
        """The buttons a game of ``rules`` shows: the question to the partner and its answer
        only when these rules ask (C-ASK-1 with four players and the option on, H-OUT-3)."""
        asks = rules.partner_is_asked
        question = {k.button for k in MOVE_KINDS if k.move_type in _QUESTION_TYPES}
        return tuple(b for b in self.table_buttons if asks or b not in question)

    def word(self, key: str) -> str:
        """The catalog key this family uses for the shared ``key``."""
        return self.words.get(key, key)


def _classic() -> Variant:
    from . import scoring

    def classic_score(state: Any, team: int) -> TeamScore:
        return scoring.score_team(state, team)

    return Variant(
        "classic", State, CLASSIC4, classic_score, lambda rules: 108,
        presets={4: CLASSIC4, 2: CLASSIC2},
        move_types=frozenset(k.move_type for k in MOVE_KINDS) - {LayDown},
        table_extras=(GO_OUT,),
    )  # fmt: skip


#: Hand and Foot's own words for what both families say (its rounds, piles and feet).
_HANDFOOT_WORDS: Final = {
    "table.turn_draw": "table.hf.turn_draw",  # draw two, or the top seven (H-TURN-1)
    "game.full.breakdown": "game.full.hf.breakdown",
    "game.full.leftover.caption": "game.full.hf.leftover_caption",
    "game.score.why.red_threes": "game.score.why.hf_red_threes",
    "game.full.hand_scored": "game.full.hf.round_scored",
    "game.full.hand_starts": "game.full.hf.round_starts",
    "game.full.sheet.caption": "game.full.hf.sheet_caption",
    "game.full.sheet.hand": "game.full.hf.sheet_round",
    "game.full.hand_over": "game.full.hf.round_over",
    "game.full.next_hand": "game.full.hf.next_round",
    "game.full.hand_number": "game.full.hf.round_number",
    "game.full.title": "game.full.hf.title",
    "game.full.intro.four": "game.full.hf.intro",
    # One reason for every pickup (H-PILE-1), whichever way Classic's would be worded.
    "game.why.take_pair": "game.why.hf_take",
    "game.why.take_natural_wild": "game.why.hf_take",
    "game.why.take_onto_meld": "game.why.hf_take",
    "game.why.go_out": "game.why.hf_go_out",
    "game.why.go_out_concealed": "game.why.hf_go_out",
    "hint.out_explain": "hint.hf_out_explain",
    "game.prompt.go_out": "game.prompt.hf_go_out",
    "game.prompt.go_out_concealed": "game.prompt.hf_go_out",
    "game.prompt.go_out_ask": "game.prompt.hf_go_out",
}


def _handfoot() -> Variant:
    from . import handfoot

    def deck_size(rules: RuleSet) -> int:
        return sum(handfoot.deck_counts(rules.decks))

    return Variant(
        "handfoot", handfoot.HandFootState, HAND_AND_FOOT, handfoot.score_team, deck_size,
        presets={4: HAND_AND_FOOT},
        move_types=frozenset(k.move_type for k in MOVE_KINDS),
        piles_of_seven=True,
        feet=True,
        words=_HANDFOOT_WORDS,
    )  # fmt: skip


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


def variant_of(state: State) -> Variant:
    """The variant a position is played under."""
    return find_variant(state.rules.family)


def all_variants() -> tuple[Variant, ...]:
    """Every variant, in ``rules.FAMILIES`` order (Classic first)."""
    return tuple(find_variant(family) for family in FAMILIES)


def state_class(rules: RuleSet) -> type[State]:
    return find_variant(rules.family).state_class


__all__ = ["GO_OUT", "Variant", "all_variants", "find_variant", "state_class", "variant_of"]
