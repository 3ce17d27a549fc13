"""Rule sets as data: the presets and the options named in ``classic.md``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Final

from .cards import DECK_SIZE


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Everything that differs between variants of Classic Canasta.

    The engine reads only these fields; a new variant is a new ``RuleSet``.
    (Hand and Foot will need more than fields: ``family`` leaves room for it.)
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
    canasta_size: int = 7  # C-CAN-1

    def first_meld_minimum(self, cumulative_score: int) -> int:
        """C-MIN-1: the first-meld minimum for a team with this cumulative score."""
        if cumulative_score < 0:
            return 15
        if cumulative_score < 1500:
            return 50
        if cumulative_score < 3000:
            return 90
        return 120

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


CLASSIC4: Final = RuleSet()
CLASSIC2: Final = RuleSet(
    name="classic2", players=2, hand_size=15, draw_count=2, canastas_to_go_out=2,
    ask_partner=False,
)  # fmt: skip
PRESETS: Final[dict[str, RuleSet]] = {"classic4": CLASSIC4, "classic2": CLASSIC2}

#: Options a position or a game may switch (``docs/notation.md``).
OPTION_NAMES: Final = (
    "ask_partner", "black_three_freezes", "upcard_turn_until_natural", "two_naturals_per_wild",
)  # fmt: skip


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
}
#: The most cards the hands may take together.  Turning the upcard can take 21 cards (every
#: wild card and three, then a natural, C-DEAL-3) and the first player's red threes up to 4
#: more (C-RED-1): a stock of 26 is never used up by the deal itself, so a hand never ends
#: before its first move.
DEALT_MAX: Final = DECK_SIZE - 26
#: Values of the text fields this engine plays.
TEXT_VALUES: Final[dict[str, tuple[str, ...]]] = {"family": ("classic",)}


def int_range(option: str, players: int = 2) -> tuple[int, int]:
    """The values ``option`` may take, both ends included (``hand_size``: for ``players``)."""
    low, high = INT_RANGES[option]
    if option == "hand_size":
        high = min(high, DEALT_MAX // players)
    return low, high


def unsupported_value(rules: RuleSet) -> str | None:
    """The first field of ``rules`` this engine cannot play (in field order), or None."""
    for f in fields(rules):
        value = getattr(rules, f.name)
        if f.name in INT_RANGES:
            low, high = int_range(f.name, rules.players if rules.players in (2, 4) else 2)
            if type(value) is not int or not low <= value <= high:
                return f.name
            if f.name == "players" and value not in (2, 4):
                return f.name
        elif f.name in TEXT_VALUES and value not in TEXT_VALUES[f.name]:
            return f.name
    return None


def preset(name: str) -> RuleSet:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(name) from None
