"""The easy and normal computer players.

Both read a state only through ``player_view(state, seat)`` and ``state.legal_moves()``, and
choose among the legal moves, so they can never try a refused move.

- **Easy** plays as a beginner does: takes the pile whenever it may, lays down the biggest meld
  it can (wild cards and all), says yes when its partner asks, and throws away a random lone
  card.
- **Normal** is a solid heuristic player: it takes the pile when it is worth it, melds and adds
  natural cards, spends wild cards only to make a canasta or its first meld, keeps pairs (they
  take the pile), freezes a big pile with a wild card when the opponents threaten it, throws a
  black three to stop the next player, and answers "Partner, may I go out?" from the team's
  position.
"""

from __future__ import annotations

from typing import Any

from canasta_teach.engine import (
    Add,
    Answer,
    AskPartner,
    Discard,
    Draw,
    Meld,
    Move,
    State,
    TakePile,
)
from canasta_teach.engine.cards import BLACK3, VALUES
from canasta_teach.engine.goingout import going_out_plan
from canasta_teach.engine.rng import SplitMix64, seed_to_int
from canasta_teach.engine.view import player_view

from .heuristics import (
    WILDS,
    Choice,
    DiscardWeights,
    Seen,
    cards_of,
    discard_score,
    first_meld_within_reach,
    seen,
    wild_count,
)
from .variant_bots import Player, variant_bots

#: The normal player answers "may I go out?" with yes when its hand would cost at most this.
ANSWER_HAND_POINTS = 50


class _Player:
    name = "bot"

    def __init__(self, seed: int | str = 0) -> None:
        self.seed = seed
        #: This level's player of each variant that has its own (``variant_bots``), by rule
        #: family, made on first use; None where this class plays the variant itself.
        self._own: dict[str, Player | None] = {}

    def variant_player(self, state: State) -> Player | None:
        """This level's own player for ``state``'s variant (Hand and Foot's ``bots.handfoot``),
        or None when this class plays it (Classic)."""
        family = state.rules.family
        if family not in self._own:
            make = variant_bots(family).players.get(self.name)
            self._own[family] = make(self.seed) if make is not None else None
        return self._own[family]

    def step(self, state: State) -> Choice:
        """A legal move for the seat to move (``state.to_move``), and why."""
        own = self.variant_player(state)
        if own is not None:
            return own.step(state)
        view = player_view(state, state.to_move)
        moves = state.legal_moves()
        if not moves:
            raise ValueError("no legal move: the hand is over")
        return self.choose(view, moves)

    def rng(self, view: dict[str, Any]) -> SplitMix64:
        """A generator for one decision, from the seed and what the seat sees: the same view
        and seed always give the same move, whatever happened before (replays, tests)."""
        key = f"{seed_to_int(self.seed)}:{view['hand_number']}:{view['hand']}:{view['pile']}"
        key += f":{view['stock']}:{view['phase']}:{len(view['teams'][0]['melds'])}"
        return SplitMix64(key)

    def choose(self, view: dict[str, Any], moves: list[Move]) -> Choice:
        raise NotImplementedError


def _of(moves: list[Move], kind: type) -> list[Any]:
    return [m for m in moves if isinstance(m, kind)]


class EasyBot(_Player):
    """A beginner: eager, generous with wild cards, never asks."""

    name = "easy"

    def choose(self, view: dict[str, Any], moves: list[Move]) -> Choice:
        s = seen(view)
        answers = _of(moves, Answer)
        if answers:
            return Choice(Answer(True), "answer_yes_always")
        takes = _of(moves, TakePile)
        if takes and s.pile_size >= 2:
            return Choice(takes[0], "take_pile", {"size": s.pile_size})
        if any(isinstance(m, Draw) for m in moves):
            return Choice(Draw(), "draw")
        plays = _of(moves, Meld) + _of(moves, Add)
        if plays:
            best = max(plays, key=lambda m: (len(cards_of(m)), -moves.index(m)))
            if isinstance(best, Add):
                return Choice(best, "add_most", {"rank": int(best.rank)})
            return Choice(best, "meld_most", {"cards": len(cards_of(best))})
        discards = _of(moves, Discard)
        if discards:
            lone = [d for d in discards if s.hand[int(d.card)] == 1 and int(d.card) not in WILDS]
            pool = lone or [d for d in discards if int(d.card) not in WILDS] or discards
            pick = self.rng(view).choice(pool)
            return Choice(pick, "discard")
        return Choice(moves[0], "only_move")


class NormalBot(_Player):
    """A solid heuristic player (see the module's docstring)."""

    name = "normal"

    def __init__(self, seed: int | str = 0, weights: DiscardWeights | None = None) -> None:
        super().__init__(seed)
        self.weights = weights or DiscardWeights()

    def step(self, state: State) -> Choice:
        """As every player, plus going out: when it can go out this turn it first asks its
        partner (C-ASK-1, four players), and after a yes it goes out.  The plan reads only
        its own hand and the table (``engine.goingout``).  A variant with its own normal
        player (Hand and Foot: ``bots.handfoot``) is played by that one."""
        own = self.variant_player(state)
        if own is not None:
            return own.step(state)
        view = player_view(state, state.to_move)
        moves = state.legal_moves()
        if not moves:
            raise ValueError("no legal move: the hand is over")
        if view["phase"] == "meld":
            asking = any(isinstance(m, AskPartner) for m in moves)
            if asking or view.get("asked") == "yes" or state.players == 2:
                plan = going_out_plan(state)
                if plan is not None:
                    if asking:
                        return Choice(AskPartner(), "ask_partner")
                    return Choice(plan[0], "going_out")
        return self.choose(view, moves)

    def choose(self, view: dict[str, Any], moves: list[Move]) -> Choice:
        s = seen(view)
        answers = _of(moves, Answer)
        if answers:
            # Yes when our side's table is worth at least theirs, or when little would count
            # against us (the partner's hand); otherwise play on and meld more first.
            held = sum(c * v for c, v in zip(s.hand, VALUES, strict=True))
            yes = s.our_table_value >= s.their_table_value or held <= ANSWER_HAND_POINTS
            return Choice(Answer(yes), "answer_yes" if yes else "answer_no",
                          {"ours": s.our_table_value, "theirs": s.their_table_value,
                           "held": held})  # fmt: skip
        takes = _of(moves, TakePile)
        if takes and (s.pile_size >= 3 or not s.our_down):
            best = min(takes, key=lambda m: (wild_count(m), len(cards_of(m))))
            return Choice(best, "take_pile", {"size": s.pile_size})
        if any(isinstance(m, Draw) for m in moves):
            return Choice(Draw(), "draw")
        play = self._best_play(s, _of(moves, Add), _of(moves, Meld))
        if play is not None:
            return play
        discards = _of(moves, Discard)
        if discards:
            best = max(discards, key=lambda d: (discard_score(int(d.card), s, self.weights),
                                                int(d.card)))  # fmt: skip
            card = int(best.card)
            why = ("discard_black_three" if card == BLACK3
                   else "freeze_pile" if card in WILDS else "safe_discard")  # fmt: skip
            return Choice(best, why, {"card": card})
        return Choice(moves[0], "only_move")

    def _best_play(self, s: Seen, adds: list[Add], melds: list[Meld]) -> Choice | None:
        # Adds first: natural cards onto a meld always help; a wild card only to finish a
        # canasta (C-CAN-1). Then melds of natural cards; wild cards only to make a canasta
        # or the first meld (which needs the points, C-MIN-1).  Before the first meld, cards
        # are set aside only when the minimum is within reach this turn: otherwise they come
        # back at the discard (C-MIN-4) and only showed the table what we hold.
        if not s.our_down and not first_meld_within_reach(s.hand, s.staged_value, s.minimum):
            return None
        natural_adds = [a for a in adds if wild_count(a) == 0]
        if natural_adds:
            best = max(natural_adds, key=lambda a: s.our_melds.get(int(a.rank), 0) + len(a.cards))
            return Choice(best, "add", {"rank": int(best.rank), "cards": len(best.cards)})
        for add in adds:
            before = s.our_melds.get(int(add.rank), 0)
            if before < 7 <= before + len(add.cards):
                return Choice(add, "add_for_canasta", {"rank": int(add.rank)})
        natural = [m for m in melds if wild_count(m) == 0]
        if natural:
            meld = max(natural, key=lambda m: (len(m.cards), int(m.cards[0])))
            return Choice(meld, "meld_natural", {"cards": len(meld.cards)})
        if melds and (not s.our_down or any(len(m.cards) >= 7 for m in melds)):
            meld = max(melds, key=lambda m: (len(m.cards) >= 7, -wild_count(m), len(m.cards)))
            return Choice(meld, "meld_first" if not s.our_down else "meld_canasta",
                          {"cards": len(meld.cards)})  # fmt: skip
        return None
