"""Seats and teams: who plays with whom, said once (as OpenSpiel bridge's ``Partnership``).

Seats are numbered clockwise from South (0).  Partners sit opposite in the 4-player game,
so a seat's team is the parity of its number; in the 2-player game each player is a team
of one (seats 0 and 1, teams 0 and 1).
"""

from __future__ import annotations

from typing import Final

#: Two teams in every game (C-DECK-1: partnerships of two, or two players alone).
NUM_TEAMS: Final = 2


#: ``team_of`` as a table, for the engine's hot paths (a subscript costs what ``% 2`` does; a
#: call costs more).
TEAM_OF_SEAT: Final = (0, 1, 0, 1)


def team_of(seat: int) -> int:
    """The team ``seat`` plays for: 0 (South's) or 1."""
    return seat & 1


def partner(seat: int, players: int) -> int:
    """``seat``'s partner (the seat opposite); in the 2-player game, the seat itself."""
    return (seat + 2) % players


def seats_of(team: int, players: int) -> range:
    """The seats of ``team``, in seat order."""
    return range(team & 1, players, NUM_TEAMS)


__all__ = ["NUM_TEAMS", "TEAM_OF_SEAT", "partner", "seats_of", "team_of"]
