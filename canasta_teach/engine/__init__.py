"""The Classic Canasta rules engine (4 players in partnerships, or 2): pure Python, no Jupyter.

Exported here: small value types (``Kind``, the moves, ``Reason``, ``Verdict``), ``State`` with
``check``, ``apply`` and ``legal_moves``, and the rule sets (``CLASSIC4``, ``CLASSIC2``).  The
modules: ``rules`` (rule sets as data, with options), ``reasons`` (the registry of rule ids and
reason codes), ``notation`` (positions and moves as text), ``scoring`` (``score_hand``),
``game`` (a game to 5,000 and its record), ``savefile`` (saved games as versioned JSON) and
``view`` (what one seat may see).
"""

from __future__ import annotations

from .cards import Kind, card_value, parse_kind
from .moves import (
    Add,
    Answer,
    AskPartner,
    Discard,
    Draw,
    Meld,
    Move,
    Reason,
    TakePile,
    Verdict,
)
from .rules import CLASSIC2, CLASSIC4, PRESETS, RuleSet, preset
from .state import Event, HandEnd, IllegalMove, MeldGroup, Phase, State

# Every variant's positions: ``variants`` imports each variant's notation module, which
# registers its format (``notation`` reads every family's positions through that registry,
# and imports no variant's module).
from . import variants  # noqa: E402, F401  # isort: skip


def legal_moves(state: State) -> list[Move]:
    """Every legal move for the seat to move, in a stable order."""
    return state.legal_moves()


def check(state: State, move: Move) -> Verdict:
    """Legal, or refused with a structured reason; never changes ``state``."""
    return state.check(move)


__all__ = [
    "Add", "Answer", "AskPartner", "CLASSIC2", "CLASSIC4", "Discard", "Draw", "Event", "HandEnd",
    "IllegalMove", "Kind", "Meld", "MeldGroup", "Move", "PRESETS", "Phase", "Reason",
    "RuleSet", "State", "TakePile", "Verdict", "card_value", "check", "legal_moves",
    "parse_kind", "preset",
]  # fmt: skip
