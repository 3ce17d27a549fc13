"""Seats and teams by their letters, the one place they are named (C-DEAL-1).

Seats are numbered clockwise from South (seat 0); a seat's team is ``seat % 2``.  The letters
are the notation's and the view's ids ("S", "NS"), never words for a learner: each language's
names for them are in the i18n catalogs (``Translator.seat``, ``Translator.team``).
"""

from __future__ import annotations

from typing import Final

#: Four players, clockwise from South: South and North are partners (team 0, "NS").
SEATS_4: Final[tuple[str, ...]] = ("S", "W", "N", "E")
#: Two players sit opposite each other: South and North.
SEATS_2: Final[tuple[str, ...]] = ("S", "N")
TEAMS_4: Final[tuple[str, str]] = ("NS", "EW")
#: With two players each team is one player, named by its seat.
TEAMS_2: Final[tuple[str, str]] = ("S", "N")
#: Every seat letter and every team name any table uses.
ALL_SEATS: Final[tuple[str, ...]] = SEATS_4
ALL_TEAMS: Final[tuple[str, ...]] = (*TEAMS_4, *TEAMS_2)


def seat_names(players: int) -> tuple[str, ...]:
    """The seats' letters at a table of ``players``, by seat number."""
    return SEATS_4 if players == 4 else SEATS_2


def team_names(players: int) -> tuple[str, str]:
    """The teams' names at a table of ``players``, by team number."""
    return TEAMS_4 if players == 4 else TEAMS_2


def seat_name(players: int, seat: int) -> str:
    """One seat's letter."""
    return seat_names(players)[seat]


__all__ = [
    "ALL_SEATS", "ALL_TEAMS", "SEATS_2", "SEATS_4", "TEAMS_2", "TEAMS_4", "seat_name",
    "seat_names", "team_names",
]  # fmt: skip
