"""Computer players, on the engine's public API and one seat's view only.

A bot is asked for a move with ``bot.step(state)`` when ``state.to_move`` is its seat, and
answers with a :class:`Choice`: a legal move and why it chose it (a reason code and facts, which
``canasta_teach.i18n`` turns into a sentence, as refusals are).  Bots read the state only
through ``player_view(state, seat)`` and ``state.legal_moves()`` (which depend on the seat's own
hand and the public table), and the hard player also through ``engine.determinize`` (which
deals every hidden card again): a test proves that two states that look the same from the seat get
the same move for the same seed.  Each bot is deterministic given its seed.

    from canasta_teach.bots import find_bot
    bot = find_bot("normal", seed=7)
    choice = bot.step(state)          # Choice(move=Discard(card=...), why="safe_discard", ...)

Levels are data (:data:`BOTS`), like ``engine.rules.PRESETS``; ``find_bot`` raises
``ValueError`` for an unknown name.  "easy" and "normal" are heuristic players
(``players``); "hard" searches: it plays the normal player's moves out in worlds dealt again
from what it sees and keeps the move that comes out best (``hard``: one search, ``search``,
with each variant's policy and evaluation, ``classic`` and ``handfoot``; a few tens of
milliseconds a decision).

The same bots play Hand and Foot: ``step`` looks the state's rule family up in
``variant_bots`` and hands the state to the level's own player there (``handfoot``:
``HandFootEasy``, ``HandFootNormal``; the hard player's search with ``HandFootSearch``), so
neither a table nor a bot needs a branch per variant.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from canasta_teach.engine import State

from .hard import HardBot
from .heuristics import Choice
from .players import EasyBot, NormalBot


class Bot(Protocol):
    """What the table and the arena need of a computer player."""

    name: str

    def step(self, state: State) -> Choice: ...


#: Level name -> constructor (seed -> bot).
BOTS: dict[str, Callable[[int | str], Bot]] = {
    "easy": EasyBot,
    "normal": NormalBot,
    "hard": HardBot,
}


def find_bot(name: str, seed: int | str = 0) -> Bot:
    """A bot of level ``name`` ("easy", "normal", "hard"), seeded with ``seed``."""
    try:
        make = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot level {name!r}; levels: {', '.join(BOTS)}") from None
    return make(seed)


__all__ = ["BOTS", "Bot", "Choice", "EasyBot", "HardBot", "NormalBot", "find_bot"]
