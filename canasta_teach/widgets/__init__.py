"""Widgets of canasta-teach: the card table and the mini-games (ipywidgets 8 + anywidget).

Lessons need one import and one call per game::

    from canasta_teach.widgets import play
    play("build-a-meld", lang="ur")

    from canasta_teach.widgets import guided_hand, partner_asks, play_game
    guided_hand(lang="hi")            # a first hand with a coach
    partner_asks(lang="hi")           # arranged deals in which your partner asks to go out
    play_game(lang="hi", level="normal", players=4)   # a game to 5,000 against the computer
"""

from __future__ import annotations

from .asking import PartnerAsks, partner_asks
from .friends import RoomTable, play_together
from .fullgame import FullGame, play_game
from .games import GAMES, PuzzleGame, play, warm_up
from .guided import GuidedHand, guided_hand
from .serverlog import log_to_server
from .table import ACTIONS, CardTable, TableController

# In a page's kernel, this package's errors go to the server's log (never to the browser).
log_to_server()

__all__ = [
    "ACTIONS", "GAMES", "CardTable", "FullGame", "GuidedHand", "PartnerAsks", "PuzzleGame",
    "RoomTable", "TableController", "guided_hand", "partner_asks", "play", "play_game",
    "play_together", "warm_up",
]  # fmt: skip
