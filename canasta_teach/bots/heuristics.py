"""What the bots know and weigh: a seat's view as numbers, and named weights.

Everything here is a pure function of ``player_view(state, seat)`` and of the legal moves, so a
search player can reuse it as its prior and rollout policy.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass, field
from typing import Any

from canasta_teach.engine import (
    Add,
    Discard,
    Kind,
    Meld,
    Move,
    State,
    TakePile,
    parse_kind,
)
from canasta_teach.engine.cards import BLACK3, NUM_KINDS, VALUES

from .claims import Claim

WILDS = (int(Kind.JOKER), int(Kind.TWO))


#: Every rule of thumb a bot names as ``Choice.why`` (a label for tests, logs and benchmarks;
#: what a learner reads about a move is built from checked facts, ``claims``).
WHY_CODES = (
    "draw", "take_pile", "meld_most", "add_most", "add", "add_for_canasta", "meld_natural",
    "meld_first", "meld_canasta", "discard", "discard_black_three", "freeze_pile", "safe_discard",
    "answer_yes", "answer_yes_always", "answer_no", "only_move", "ask_partner", "going_out",
    "searched",
)  # fmt: skip


@dataclass(frozen=True)
class Choice:
    """A bot's move and how it chose it: ``why`` names the bot's own rule of thumb and
    ``facts`` its numbers (for tests, logs and benchmarks: never shown as a reason).  What a
    learner reads about a move is built from checked facts (``claims.reason_record``);
    ``claims`` holds the player's own facts that only it can state (``searched``)."""

    move: Move
    why: str
    facts: dict[str, Any] = field(default_factory=dict)
    claims: tuple[Claim, ...] = ()


@dataclass(frozen=True)
class Seen:
    """One seat's view, as the heuristics use it."""

    hand: tuple[int, ...]  # counts by kind
    team: int
    pile_top: int | None
    pile_size: int
    pile_frozen_for_all: bool
    our_melds: dict[int, int]  # rank -> size
    their_melds: dict[int, int]
    our_canastas: int
    their_canastas: int
    our_down: bool
    their_down: bool
    our_table_value: int
    their_table_value: int
    next_hand_size: int
    phase: str
    to_move_is_me: bool
    #: The next player, as the pile's next taker sees it: whether the pile is frozen for that
    #: player's team, its melds, the cards that player is known to hold and the kinds it threw.
    next_frozen: bool = True
    next_melds: frozenset[int] = frozenset()
    next_known: tuple[int, ...] = (0,) * NUM_KINDS
    next_thrown: int = 0
    minimum: int = 0  # what our first meld needs (0 once down)
    staged_value: int = 0


def seen(view: dict[str, Any]) -> Seen:
    """The numbers of a ``player_view``."""
    counts = [0] * NUM_KINDS
    for token in view["hand"]:
        counts[parse_kind(token)] += 1
    team = 0 if view["teams"][0]["name"] == view["team"] else 1
    ours, theirs = view["teams"][team], view["teams"][1 - team]

    def melds(t: dict[str, Any]) -> dict[int, int]:
        return {int(parse_kind(m["rank"])): int(m["size"]) for m in t["melds"]}

    def table_value(t: dict[str, Any]) -> int:
        bonus = sum(500 if m["canasta"] == "natural" else 300 for m in t["melds"] if m["canasta"])
        return bonus + sum(int(m["value"]) for m in t["melds"]) + 100 * int(t["red_threes"])

    seats = list(view["hand_counts"])
    me = seats.index(view["seat"])
    top = view["pile"]["top"]
    nxt = seats[(me + 1) % len(seats)]
    next_team = view["teams"][((me + 1) % len(seats)) % 2]
    known = [0] * NUM_KINDS
    for token in view.get("known", {}).get(nxt, []):
        known[parse_kind(token)] += 1
    thrown = 0
    for token in view.get("thrown", {}).get(nxt, []):
        thrown |= 1 << int(parse_kind(token))
    return Seen(
        hand=tuple(counts),
        team=team,
        pile_top=int(parse_kind(top)) if top is not None else None,
        pile_size=int(view["pile"]["size"]),
        pile_frozen_for_all=bool(view["pile"]["frozen_for_all"]),
        our_melds=melds(ours),
        their_melds=melds(theirs),
        our_canastas=int(ours["canastas"]),
        their_canastas=int(theirs["canastas"]),
        our_down=bool(ours["down"]),
        their_down=bool(theirs["down"]),
        our_table_value=table_value(ours),
        their_table_value=table_value(theirs),
        next_hand_size=int(view["hand_counts"][nxt]),
        phase=str(view["phase"]),
        to_move_is_me=view["to_move"] == view["seat"],
        next_frozen=bool(view["pile"]["frozen_for_all"]) or not next_team["down"],
        next_melds=frozenset(int(parse_kind(m["rank"])) for m in next_team["melds"]),
        next_known=tuple(known),
        next_thrown=thrown,
        minimum=int(ours["minimum"]),
        staged_value=sum(int(m["value"]) for m in view["staged"]),
    )


def seen_in_world(state: State, seat: int) -> Seen:
    """``seen(player_view(state, seat))``, read straight off the state (no view to build).

    Only for states a search player deals itself (``engine.determinize`` worlds), where
    reading the state cannot reveal a real hidden card; it reads exactly what the view shows
    (a test holds the two equal)."""
    team = seat % 2
    ours, theirs = state.melds[team], state.melds[1 - team]

    def table_value(t: int) -> int:
        total = 100 * state.red_threes[t]
        for g in state.melds[t].values():
            total += g.value
            if g.size >= 7:
                total += 500 if g.is_natural else 300
        return total

    top = state.pile_top
    nxt = (seat + 1) % state.players
    return Seen(
        hand=tuple(state.hands[seat]),
        team=team,
        pile_top=int(top) if top is not None else None,
        pile_size=len(state.pile),
        pile_frozen_for_all=state.pile_freezers > 0,
        our_melds={r: g.size for r, g in ours.items()},
        their_melds={r: g.size for r, g in theirs.items()},
        our_canastas=state.canastas(team),
        their_canastas=state.canastas(1 - team),
        our_down=state.down[team],
        their_down=state.down[1 - team],
        our_table_value=table_value(team),
        their_table_value=table_value(1 - team),
        next_hand_size=state.hand_size(nxt),
        phase=state.phase.value,
        to_move_is_me=state.to_move == seat,
        next_frozen=state.pile_freezers > 0 or not state.down[nxt % 2],
        next_melds=frozenset(state.melds[nxt % 2]),
        next_known=state.known[nxt],
        next_thrown=state.thrown[nxt],
        minimum=state.minimum(team),
        staged_value=state.staged_value(),
    )


def cards_of(move: Move) -> tuple[int, ...]:
    if isinstance(move, Meld | Add | TakePile):
        return tuple(int(k) for k in move.cards)
    if isinstance(move, Discard):
        return (int(move.card),)
    return ()


def wild_count(move: Move) -> int:
    return sum(1 for k in cards_of(move) if k in WILDS)


@dataclass(frozen=True)
class DiscardWeights:
    """How the normal player weighs a discard (higher: rather throw it away)."""

    black_three: float = 60.0  # stops the next player taking the pile (C-BLK-1)
    wild: float = -120.0  # wild cards make canastas
    freeze_with_wild: float = 180.0  # ...unless the pile is worth freezing (C-FRZ-1)
    freeze_pile_size: int = 8
    single: float = 20.0  # a lone card
    pair: float = -25.0  # keep pairs: they take the pile
    many: float = -45.0
    their_meld: float = -50.0  # they could take the pile by adding it (C-PILE-4)
    our_meld: float = -10.0
    value: float = 0.2  # cards left in hand count against the team (C-VAL-2)
    # Feeding the pile, on public facts only: the next player surely takes it (their side's
    # meld of the card on an open pile, or a pair everyone saw go into that hand) ...
    feeds: float = -60.0
    feeds_per_card: float = -12.0
    # ... or may (a pair of it would do): a little per card in the pile, less when that
    # player threw the same kind away earlier (they are less likely to hold a pair).
    may_feed_per_card: float = -1.5
    thrown_before: float = 12.0


def discard_score(card: int, s: Seen, w: DiscardWeights) -> float:
    """How good throwing ``card`` away is, for the normal player."""
    return discard_value(card, s.hand, s.pile_size, s.pile_frozen_for_all, s.their_down,
                         s.their_melds, s.our_melds, w) + feeding(
        card, s.pile_size, s.next_frozen, s.next_melds, s.next_known, s.next_thrown, w
    )  # fmt: skip


def feeding(
    card: int,
    pile_size: int,
    next_frozen: bool,
    next_melds: Container[int],
    next_known: Sequence[int],
    next_thrown: int,
    w: DiscardWeights,
) -> float:
    """What throwing ``card`` onto a pile of ``pile_size`` may give the next player, on public
    facts: a sure pickup (C-PILE-4: onto their meld of an open pile; C-PILE-3/4: a natural pair
    seen going into that hand) costs the most, a possible one a little per card."""
    if card == BLACK3 or card in WILDS:
        return 0.0  # C-PILE-2: nobody takes the pile over it
    size = pile_size + 1
    sure = (not next_frozen and card in next_melds) or next_known[card] >= 2
    if sure:
        return w.feeds + w.feeds_per_card * size
    score = w.may_feed_per_card * size * (0.5 if next_frozen else 1.0)
    if next_thrown >> card & 1:
        score += w.thrown_before
    return score


def first_meld_within_reach(hand: Sequence[int], staged_value: int, minimum: int,
                            max_wilds: int = 3) -> bool:  # fmt: skip
    """Whether the hand can still make the first meld this turn (C-MIN-1): what is set aside
    already, the natural groups the hand holds (three of a rank or more), its pairs with a
    wild card each, and the wild cards left over on those groups (C-MELD-2), keeping one
    card to throw away (C-TURN-3).  An estimate of the simple ways: setting cards aside that
    cannot reach the minimum only gives them back at the discard (C-MIN-4)."""
    if staged_value >= minimum:
        return True
    wilds = sorted((VALUES[k] for k in (0, 1) for _ in range(hand[k])), reverse=True)
    value = staged_value
    groups = used = wilds_placed = 0
    pairs = []
    for rank in range(4, NUM_KINDS):
        count = hand[rank]
        if count >= 3:
            value += count * VALUES[rank]
            groups += 1
            used += count
        elif count == 2:
            pairs.append(rank)
    for rank in sorted(pairs, key=lambda r: -VALUES[r]):
        if not wilds:
            break
        value += 2 * VALUES[rank] + wilds.pop(0)
        groups += 1
        used += 3
        wilds_placed += 1
    while wilds and wilds_placed < groups * max_wilds:
        value += wilds.pop(0)
        wilds_placed += 1
        used += 1
    if used and used >= sum(hand):
        value -= min(VALUES[k] for k in range(NUM_KINDS) if hand[k])
    return value >= minimum


def discard_value(
    card: int,
    hand: Sequence[int],
    pile_size: int,
    pile_frozen_for_all: bool,
    their_down: bool,
    their_ranks: Container[int],
    our_ranks: Container[int],
    w: DiscardWeights,
) -> float:
    """``discard_score`` from its facts, for a search player's rollouts (no ``Seen`` built)."""
    score = w.value * VALUES[card]
    if card == BLACK3:
        return score + w.black_three
    if card in WILDS:
        threat = pile_size >= w.freeze_pile_size and not pile_frozen_for_all and their_down
        return score + (w.freeze_with_wild if threat else w.wild) - VALUES[card] / 10
    count = hand[card]
    score += w.single if count == 1 else w.pair if count == 2 else w.many
    if card in their_ranks and not pile_frozen_for_all:
        score += w.their_meld
    if card in our_ranks:
        score += w.our_meld
    return score
