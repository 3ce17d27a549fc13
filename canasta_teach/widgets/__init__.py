"""Widgets of canasta-teach: the card table and the mini-games (ipywidgets 8 + anywidget).

Lessons need one import and one call per game::

    from canasta_teach.widgets import play
    play("build-a-meld", lang="ur")
"""

from __future__ import annotations

from .games import GAMES, PuzzleGame, play
from .table import ACTIONS, CardTable, TableController

__all__ = ["ACTIONS", "GAMES", "CardTable", "PuzzleGame", "TableController", "play"]
