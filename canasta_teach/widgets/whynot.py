"""Why not?  The refusal that stops a button's kind of move right now.

A button the learner cannot use is still pressable (the table greys it out, but keeps it
focusable): pressing it with a selection builds that move and the engine refuses it (the table
does that already); pressing it *without* a selection asks this module which refusal stops
every move of that kind now, so that the learner hears the rule instead of nothing.

``why_not(state, action)`` gives the engine's ``Reason`` (or None when a move of that kind is
legal, or no move can be tried); ``refusal_for`` also gives the move tried, for a game that
words a refusal itself (``TableController.on_refusal``), or a sentence of the table's own when
no move can even be built.

How the answer is found, per button:

- Draw, Ask partner, Lay down: the engine's refusal of that move (they take no cards).
- Take the pile: the engine's refusal of the pickup a learner would try, the hand's natural
  cards of the top card's rank (a pair) or one natural and a wild card (``best_take_attempt``):
  a C-PILE-*, C-BLK-1 or C-FRZ-* reason, or the turn's order (C-TURN-1).
- Meld, Add, Discard, Go out: first the turn's order (they come after the draw: C-TURN-1,
  H-TURN-1; a question waiting for the partner's answer: C-ASK-1), then, for Go out, the
  going-out planner's refusal (``going_out_refusal``: C-OUT-*, H-OUT-*), and for the others
  the refusal of the most *telling* candidate built from the learner's hand:

  * Meld: each rank held with all or all but one of its cards, with 0 to all of the hand's
    wild cards (jokers first); wild cards alone too.
  * Add: for each of the team's melds (or the one tapped), the hand's cards of its rank
    (all, or all but one) with 0 to all of the wild cards; when nothing in the hand fits a
    meld, the hand's other cards offered to it (the engine says what a meld takes).
  * Discard: each card held.

  The telling candidate is the first by, in order: (1) its cards make a well-formed meld, so
  the refusal names what truly stops it (a going-out rule, the first-meld minimum) rather than
  the shape of a meld; (2) it leaves a card in the hand, because a turn ends with a discard
  (a move that empties the hand is going out, and Go out says why not); (3) it uses the most
  cards.  Holding a 2 and a 10 with a meld of 10s and no canasta, "add the 10" (one card left)
  is refused with C-OUT-5, "add both" (none left) with C-OUT-1: the learner hears C-OUT-5, a
  card must be kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from canasta_teach.engine import (
    Add,
    Answer,
    AskPartner,
    Discard,
    Draw,
    Kind,
    Meld,
    Move,
    Reason,
    State,
    TakePile,
)
from canasta_teach.engine.cards import NUM_KINDS
from canasta_teach.engine.moves import LayDown, canonical
from canasta_teach.engine.state import Phase

from .goout import can_go_out
from .puzzles import best_take_attempt, going_out_refusal

#: The move types each button plays.
MOVE_OF_ACTION: dict[str, type] = {
    "draw": Draw,
    "take": TakePile,
    "meld": Meld,
    "add": Add,
    "lay_down": LayDown,
    "discard": Discard,
    "ask": AskPartner,
    "answer": Answer,
}

#: Refusals about the cards themselves (what a meld is made of), not about what stops a
#: well-formed move: a candidate refused for one of these tells the learner less.
SHAPE_CODES = frozenset(
    {
        "no_cards", "not_in_hand", "too_few", "mixed_ranks", "wrong_rank", "all_wild",
        "needs_two_naturals", "too_many_wilds", "two_naturals_per_wild",
        "black_threes_no_wilds", "red_three_meld", "black_three_meld", "wild_ratio",
        "wild_meld_naturals", "pile_full",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Refusal:
    """Why no move of a button's kind can be played now: the engine's ``reason`` for the
    ``move`` tried, or (no move to try) a table message ``key`` with its ``rule``."""

    reason: Reason | None = None
    move: Move | None = None
    key: str = ""
    rule: str = ""


def why_not(state: State, action: str, rank: Kind | None = None) -> Reason | None:
    """The engine's refusal that stops every move of the button ``action`` now (for Add,
    ``rank`` narrows it to the team's meld of that rank), or None: some move of that kind is
    legal, or the answer is not one of the engine's reasons (see ``refusal_for``)."""
    refusal = refusal_for(state, action, rank)
    return None if refusal is None else refusal.reason


def refusal_for(state: State, action: str, rank: Kind | None = None) -> Refusal | None:
    """Why the seat to move can play no move of the button ``action`` now (module doc), or
    None when one is legal."""
    if state.is_over:
        return _engine(state, Draw())  # the hand is over (C-END-*, H-END-1)
    if _has_legal(state, action, rank):
        return None
    if action == "draw":
        return _engine(state, Draw())
    if action == "take":
        return _engine(state, best_take_attempt(state))
    if action == "ask":
        return _engine(state, AskPartner())
    if action == "lay_down":
        return _engine(state, LayDown())
    if action == "answer":
        return _engine(state, Answer(True))
    if action not in ("meld", "add", "discard", "go_out"):
        return None
    hand = state.hands[state.current]
    if state.phase is not Phase.MELD:
        # The turn's order first: these moves come after the draw (or after the answer).
        held = next((Kind(k) for k in range(NUM_KINDS) if hand[k]), Kind.JOKER)
        order = _engine(state, Discard(held))
        if order is not None:
            return order
    if action == "go_out":
        reason = going_out_refusal(state)
        if reason is None:  # every plan legal, yet cards would stay behind
            return Refusal(key="msg.go_out_cards_left")
        return Refusal(reason=reason)
    if action == "add":
        team = state.current % 2
        targets = state.melds[team] if state.down[team] else state.staged
        if not targets:
            return Refusal(key="msg.no_meld_to_add", rule=state.NO_MELD_RULE)
        if rank is not None and rank not in targets:
            return _engine(state, Add(rank, (rank,)))  # no such meld (C-MELD-3, H-MELD-4)
        ranks = [rank] if rank is not None else sorted(targets, reverse=True)
        return _most_telling(state, _add_attempts(hand, ranks))
    if action == "meld":
        return _most_telling(state, _meld_attempts(hand))
    return _most_telling(state, (Discard(Kind(k)) for k in range(NUM_KINDS) if hand[k]))


def _has_legal(state: State, action: str, rank: Kind | None) -> bool:
    if action == "go_out":
        return can_go_out(state)
    kind = MOVE_OF_ACTION.get(action)
    if kind is None:
        return False
    return any(
        isinstance(move, kind) and (rank is None or not isinstance(move, Add) or move.rank == rank)
        for move in state.legal_moves()
    )


def _engine(state: State, move: Move) -> Refusal | None:
    reason = state.check(move).reason
    return None if reason is None else Refusal(reason=reason, move=move)


def _wilds(hand: list[int]) -> list[Kind]:
    """The hand's wild cards, jokers first (worth most towards a first-meld minimum)."""
    return [Kind.JOKER] * hand[Kind.JOKER] + [Kind.TWO] * hand[Kind.TWO]


def _with_wilds(naturals: list[Kind], wilds: list[Kind]) -> Iterator[tuple[Kind, ...]]:
    """``naturals`` (all, or all but one) with 0 to all of ``wilds``."""
    counts = {len(naturals), max(len(naturals) - 1, 0)}
    for n in sorted(counts, reverse=True):
        for w in range(len(wilds), -1, -1):
            cards = naturals[:n] + wilds[:w]
            if cards:
                yield canonical(tuple(cards))


def _meld_attempts(hand: list[int]) -> Iterator[Move]:
    wilds = _wilds(hand)
    for k in range(NUM_KINDS - 1, Kind.RED_THREE, -1):
        if not hand[k]:
            continue
        naturals = [Kind(k)] * hand[k]
        if k == Kind.BLACK_THREE:  # black threes take no wild cards (C-OUT-4)
            yield Meld(tuple(naturals))
            continue
        for cards in _with_wilds(naturals, wilds):
            yield Meld(cards)
    if wilds:
        yield Meld(canonical(tuple(wilds)))  # wild cards alone (a wild meld in Hand and Foot)


def _add_attempts(hand: list[int], ranks: Iterable[Kind | int]) -> Iterator[Move]:
    wilds = _wilds(hand)
    for r in ranks:
        rank = Kind(r)
        naturals = [rank] * hand[rank] if rank.is_natural else []
        fitting = list(_with_wilds(naturals, wilds))
        yield from (Add(rank, cards) for cards in fitting)
        if not fitting:
            # Nothing of the meld's rank, no wild card: the engine says what the meld takes,
            # offered the hand's natural cards (threes have refusals of their own).
            others = [Kind(k) for k in range(Kind.FOUR, NUM_KINDS) for _ in range(hand[k])]
            others = others or [Kind(k) for k in range(NUM_KINDS) for _ in range(hand[k])]
            if others:
                yield Add(rank, canonical(tuple(others)))


def _most_telling(state: State, attempts: Iterable[Move]) -> Refusal | None:
    """The refusal of the most telling attempt (module doc); None if one is legal or there
    is none to try."""
    held = state.hand_size(state.current)
    best: tuple[tuple[bool, bool, int], Refusal] | None = None
    for move in attempts:
        reason = state.check(move).reason
        if reason is None:
            return None  # pragma: no cover - ``_has_legal`` said no move of this kind is legal
        used = len(move.cards) if isinstance(move, (Meld, Add)) else 1
        key = (reason.code in SHAPE_CODES, used >= held, -used)
        if best is None or key < best[0]:
            best = (key, Refusal(reason=reason, move=move))
    return None if best is None else best[1]


__all__ = ["MOVE_OF_ACTION", "SHAPE_CODES", "Refusal", "refusal_for", "why_not"]
