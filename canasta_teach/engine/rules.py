"""Rule sets as data: the presets and the options named in ``classic.md``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Final

from .cards import DECK_SIZE

#: C-CAN-1, H-MELD-3: a canasta (a Hand and Foot pile) is seven cards, in every rule set
#: this engine plays (``INT_RANGES`` pins ``canasta_size`` to it).
CANASTA_SIZE: Final = 7


class RuleRangeError(ValueError):
    """A rule set built with a whole number outside what this engine plays (``INT_RANGES``
    of every family): ``option``, ``value`` and the range ``low`` to ``high``."""

    def __init__(self, option: str, value: object, low: int, high: int) -> None:
        super().__init__(f"rule option '{option}' must be from {low} to {high}, not {value!r}")
        self.option = option
        self.value = value
        self.low = low
        self.high = high


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Everything that differs between the variants the engine plays.

    The engine reads only these fields; a new variant of a family is a new ``RuleSet``.
    ``family`` picks the turn rules (``engine.variants``): ``classic`` (``state.State``) or
    ``handfoot`` (``handfoot.HandFootState``).  Fields a family does not read stay at their
    defaults: a position or saved game may not change them (``int_range``).
    """

    name: str = "classic4"
    family: str = "classic"
    players: int = 4  # C-DECK-1, C-TWO-*
    hand_size: int = 11  # C-DEAL-1 (15 for two players, C-TWO-1)
    draw_count: int = 1  # C-TURN-1 (2 for two players, C-TWO-2)
    canastas_to_go_out: int = 1  # C-OUT-1 (2 for two players, C-TWO-3)
    ask_partner: bool = True  # C-ASK-1 house rule, on by default with 4 players
    black_three_freezes: bool = False  # C-BLK-1 option (Telugu seed)
    upcard_turn_until_natural: bool = False  # C-DEAL-3 option (Telugu seed)
    two_naturals_per_wild: bool = False  # C-MELD-2 option (Telugu seed read literally)
    game_target: int = 5000  # C-GAME-1
    max_wilds: int = 3  # C-MELD-2
    canasta_size: int = CANASTA_SIZE  # C-CAN-1 (H-MELD-3: a pile is exactly seven)
    # Hand and Foot only (``handfoot.py``):
    decks: int = 2  # C-DECK-1 (H-DECK-2: five 54-card decks)
    foot_size: int = 0  # H-DEAL-1: 13 (0: no foot)
    rounds: int = 0  # H-GAME-1: 4 (0: play to ``game_target``)
    clean_to_go_out: int = 0  # H-OUT-1: clean piles a team needs to go out
    dirty_to_go_out: int = 0  # H-OUT-1: dirty piles
    wild_to_go_out: int = 0  # H-OUT-1: wild piles
    red_three_value: int = 100  # H-RED-1 (C-RED-2 is fixed)
    pile_take: int = 0  # H-TURN-1: the top 7 cards (0: the whole pile, as in Classic)

    def __post_init__(self) -> None:
        # Every family's ranges at once: which family's apply (and the deal's bound on
        # ``hand_size``) is for positions and saved games to say (``unsupported_value``),
        # with their own structured errors; no rule set holds a number no family plays.
        for option, (low, high) in _ANY_FAMILY_RANGES.items():
            value = getattr(self, option)
            if type(value) is not int or not low <= value <= high:
                raise RuleRangeError(option, value, low, high)

    def first_meld_minimum(self, cumulative_score: int) -> int:
        """C-MIN-1: the first-meld minimum for a team with this cumulative score."""
        if cumulative_score < 0:
            return 15
        if cumulative_score < 1500:
            return 50
        if cumulative_score < 3000:
            return 90
        return 120

    @property
    def partner_is_asked(self) -> bool:
        """Whether a player asks the partner before going out (C-ASK-1, H-OUT-3): the option
        is on and a partner sits at the table."""
        return self.ask_partner and self.players == 4

    def with_options(self, **options: Any) -> RuleSet:
        known = {f.name for f in fields(self)}
        unknown = set(options) - known
        if unknown:
            raise ValueError(f"unknown rule option(s): {', '.join(sorted(unknown))}")
        return replace(self, **options)

    def options_differing_from_preset(self) -> dict[str, Any]:
        """The fields that differ from the preset named by ``self.name``."""
        base = PRESETS.get(self.name)
        if base is None:
            return {}
        mine, theirs = asdict(self), asdict(base)
        return {k: v for k, v in mine.items() if theirs[k] != v and k != "name"}


#: The families and the presets of each.
FAMILIES: Final = ("classic", "handfoot")

#: Options a position or a game may switch (``docs/notation.md``).
OPTION_NAMES: Final = (
    "ask_partner", "black_three_freezes", "upcard_turn_until_natural", "two_naturals_per_wild",
)  # fmt: skip
#: Yes/no options each family reads (the others must keep their preset's value).
BOOL_OPTIONS: Final[dict[str, tuple[str, ...]]] = {
    "classic": OPTION_NAMES,
    "handfoot": ("ask_partner",),
}


#: The whole numbers each integer field may hold in this engine, both ends included.
#: Positions (``docs/notation.md``) and saved games (``docs/cli.md``) refuse anything else,
#: rather than pretend: the move tables stop at three wild cards in a meld (``max_wilds``),
#: a canasta is seven cards everywhere (``canasta_size``), and the deal must leave a stock
#: (``hand_size`` times ``players`` at most ``DEALT_MAX``, see ``int_range``).
INT_RANGES: Final[dict[str, tuple[int, int]]] = {
    "players": (2, 4),  # 2 or 4 (C-DECK-1, C-TWO-*)
    "hand_size": (1, 41),  # 20 with four players
    "draw_count": (1, 108),
    "canastas_to_go_out": (0, 11),  # 11 natural ranks: more canastas than that cannot be
    "game_target": (1, 999_999_999),
    "max_wilds": (0, 3),
    "canasta_size": (7, 7),
    # Read by Hand and Foot only: Classic keeps the defaults.
    "decks": (2, 2),
    "foot_size": (0, 0),
    "rounds": (0, 0),
    "clean_to_go_out": (0, 0),
    "dirty_to_go_out": (0, 0),
    "wild_to_go_out": (0, 0),
    "red_three_value": (100, 100),
    "pile_take": (0, 0),
}
#: Hand and Foot's ranges (``HAND_AND_FOOT``'s values first; tables really play the others).
HANDFOOT_INT_RANGES: Final[dict[str, tuple[int, int]]] = {
    "players": (4, 4),  # H-DECK-1: partnerships
    "hand_size": (11, 15),
    "draw_count": (2, 2),
    "canastas_to_go_out": (0, 0),  # the piles decide (H-OUT-1)
    "game_target": (1, 999_999_999),  # not read: the rounds decide (H-GAME-1)
    "max_wilds": (2, 2),  # H-MELD-2 allows at most two in a seven-card pile
    "canasta_size": (7, 7),
    "decks": (4, 6),
    "foot_size": (11, 15),
    "rounds": (1, 4),  # one first-meld minimum per round (H-MIN-1)
    "clean_to_go_out": (0, 5),
    "dirty_to_go_out": (0, 5),
    "wild_to_go_out": (0, 2),
    "red_three_value": (0, 500),
    "pile_take": (0, 7),  # 0: the whole pile
}
#: The ranges by family.
FAMILY_INT_RANGES: Final[dict[str, dict[str, tuple[int, int]]]] = {
    "classic": INT_RANGES, "handfoot": HANDFOOT_INT_RANGES,
}  # fmt: skip
#: What some family plays, for each whole-number field: ``RuleSet`` refuses anything else.
_ANY_FAMILY_RANGES: Final[dict[str, tuple[int, int]]] = {
    option: (
        min(ranges[option][0] for ranges in FAMILY_INT_RANGES.values()),
        max(ranges[option][1] for ranges in FAMILY_INT_RANGES.values()),
    )
    for option in INT_RANGES
}
CLASSIC4: Final = RuleSet()
CLASSIC2: Final = RuleSet(
    name="classic2", players=2, hand_size=15, draw_count=2, canastas_to_go_out=2,
    ask_partner=False,
)  # fmt: skip
#: H-*: Hand and Foot as the Hindi seed plays it (``../shared/rules/hand-and-foot.md``).
HAND_AND_FOOT: Final = RuleSet(
    name="handfoot", family="handfoot", players=4, hand_size=13, draw_count=2,
    canastas_to_go_out=0, ask_partner=False, max_wilds=2, decks=5, foot_size=13, rounds=4,
    clean_to_go_out=2, dirty_to_go_out=2, wild_to_go_out=1, red_three_value=100, pile_take=7,
)  # fmt: skip
PRESETS: Final[dict[str, RuleSet]] = {
    "classic4": CLASSIC4, "classic2": CLASSIC2, "handfoot": HAND_AND_FOOT,
}  # fmt: skip
#: The most cards the hands may take together.  Turning the upcard can take 21 cards (every
#: wild card and three, then a natural, C-DEAL-3) and the first player's red threes up to 4
#: more (C-RED-1): a stock of 26 is never used up by the deal itself, so a hand never ends
#: before its first move.
DEALT_MAX: Final = DECK_SIZE - 26
#: Values of the text fields this engine plays.
#: Values of the text fields a Classic preset may take (a preset's family is its own: a
#: position or saved game never changes it).
TEXT_VALUES: Final[dict[str, tuple[str, ...]]] = {"family": ("classic",)}


def int_range(option: str, players: int = 2, family: str = "classic") -> tuple[int, int]:
    """The values ``option`` may take, both ends included (``hand_size``: for ``players``)."""
    low, high = FAMILY_INT_RANGES.get(family, INT_RANGES)[option]
    if option == "hand_size":
        # The deal must leave a stock (Hand and Foot's hands, 15 at most, are well inside).
        high = min(high, DEALT_MAX // players)
    return low, high


def unsupported_value(rules: RuleSet) -> str | None:
    """The first field of ``rules`` this engine cannot play (in field order), or None."""
    family = rules.family if rules.family in FAMILIES else "classic"
    base = PRESETS.get(rules.name)
    for f in fields(rules):
        value = getattr(rules, f.name)
        if f.name in INT_RANGES:
            players = rules.players if rules.players in (2, 4) else 2
            low, high = int_range(f.name, players, family)
            if type(value) is not int or not low <= value <= high:
                return f.name
            if f.name == "players" and value not in (2, 4):
                return f.name
        elif f.name == "family":
            if value not in FAMILIES or (base is not None and value != base.family):
                return f.name
        elif (
            type(value) is bool
            and f.name not in BOOL_OPTIONS[family]
            and base is not None
            and value != getattr(base, f.name)
        ):
            return f.name  # a yes/no option this family does not read
    return None


def preset(name: str) -> RuleSet:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(name) from None
