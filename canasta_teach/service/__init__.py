"""Rooms and the daily leaderboard as a service: the stores behind code learners cannot run.

On JupyterHub every learner's single-user server runs its learner's code (a notebook cell, a
terminal).  A server that held the room store's or the leaderboard database's URL would give
that learner every card of every room and any score they like (F17).  So on a hub the stores
are opened by this service alone (a JupyterHub-managed service, ``server.main``), and a
learner's kernel reaches rooms and the board only through it (``widgets.remote``), with the
learner's own hub token:

- a room is played through a *table*: the service keeps, per page, the very ``RoomTable``
  a single Voilà server keeps in that page's kernel, and answers each of the page's messages
  with what that page would have been sent (the widget's state and its custom messages).
  The kernel thus learns exactly what a browser learns on a single server: its own seat's
  view, never another hand, the stock, the seed or another seat's token;
- a daily result is recorded from the game itself: the kernel sends the moves, the service
  replays them on the day's public deal and records the score the replay gives (never a
  score the kernel names), one result per hub user and board.

Without a hub (one Voilà server: learners cannot run code) the widgets keep using the
stores directly, as before.
"""

from .server import ServiceConfig, make_app

__all__ = ["ServiceConfig", "make_app"]
