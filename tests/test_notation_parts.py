"""The position readers' shape: Hand and Foot's reader is Classic's, extended."""

from __future__ import annotations

import pytest

from canasta_teach.engine.handfoot_notation import HandFootReader
from canasta_teach.engine.notation import (
    POSITION_FORMATS,
    NotationError,
    PositionReader,
    known_keys,
    parse_position,
)

OPENING = "turn: S draw\nS: ?13\nW: ?13\nN: ?13\nE: ?13\n"


def test_hand_and_foot_reads_its_parts_in_classics_order() -> None:
    """The variant overrides parts, never the sequence that reads them (``read``)."""
    assert "read" not in HandFootReader.__dict__
    assert "build" not in HandFootReader.__dict__
    own = {name for name in HandFootReader.__dict__ if not name.startswith("__")}
    assert own <= {name for name in dir(PositionReader)} | {"check_hands"}


def test_every_family_registers_its_format_and_keys() -> None:
    assert set(POSITION_FORMATS) == {"classic", "handfoot"}
    assert "round, S/W/N/E foot, NS/EW piles" in known_keys()


@pytest.mark.parametrize("rules", ["classic4", "handfoot"])
def test_a_team_score_given_twice_is_refused_in_every_family(rules: str) -> None:
    hands = OPENING if rules == "handfoot" else OPENING.replace("?13", "?11")
    with pytest.raises(NotationError) as info:
        parse_position(f"rules: {rules}\nscores: NS 0, NS 50\n{hands}")
    assert info.value.code == "bad_scores"
    assert info.value.column == len("scores: NS 0, ") + 1
