"""The hard computer player: one search (``search.Search``) for every variant.

``HardBot.step`` looks up the variant's side of the search by rule family
(:data:`SEARCH_GAMES`: ``classic.CLASSIC_SEARCH``, ``handfoot.HANDFOOT_SEARCH``) and runs the
same search with it, as OpenSpiel's ``MCTSBot`` runs with any game and evaluator.  It explains
itself like the others: with the normal player's reason when the search kept that move, and
with ``searched`` ("I tried N ways the hand could go on ...") otherwise.
"""

from __future__ import annotations

from canasta_teach.engine import RuleSet, State

from .classic import CLASSIC_SEARCH
from .handfoot import HANDFOOT_SEARCH
from .heuristics import Choice
from .search import Search, SearchGame, SearchLimit

#: Rule family -> the variant's side of the search (its policy, candidates and evaluation).
SEARCH_GAMES: dict[str, SearchGame] = {"classic": CLASSIC_SEARCH, "handfoot": HANDFOOT_SEARCH}


def search_game(rules: RuleSet) -> SearchGame:
    """The variant's side of the search for ``rules``."""
    return SEARCH_GAMES[rules.family]


class HardBot:
    """Determinized Monte Carlo search over the normal player's moves (``search``), for
    every variant.  ``limit`` replaces the variant's budget (``SearchGame.limit``)."""

    name = "hard"

    def __init__(self, seed: int | str = 0, limit: SearchLimit | None = None) -> None:
        self.seed = seed
        self.limit = limit
        #: Rollouts played so far, in every variant (the benchmark's simulations per second).
        self.simulations = 0
        self._searches: dict[tuple[str, int], Search] = {}

    def search(self, state: State) -> Search:
        """The search for ``state``'s variant and number of players, made on first use."""
        key = (state.rules.family, state.players)
        found = self._searches.get(key)
        if found is None:
            game = search_game(state.rules)
            found = self._searches[key] = Search(game, self.limit or game.limit(state.players))
        return found

    def step(self, state: State) -> Choice:
        """A legal move for the seat to move, and why."""
        search = self.search(state)
        before = search.simulations
        choice = search.choose(state, self.seed)
        self.simulations += search.simulations - before
        return choice
