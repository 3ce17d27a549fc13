"""Hand and Foot ("Foot Canasta"): the variant's turn rules, in one place (``H-*`` rules).

The variant shares the engine's cards, moves, reasons, notation, saves and views; what differs
lives here, as a ``State`` subclass that overrides the turn's checks and plays:

- the deal: five 54-card decks, a *hand* and a face-down *foot* of 13 cards for each of four
  players (``H-DECK-*``, ``H-DEAL-1``); no upcard, the discard pile starts empty;
- the draw: two cards, or the top seven of the pile taken with a natural pair of its top card
  (``H-TURN-1``, ``H-PILE-*``);
- melds of 3 to 7 cards with at least twice as many naturals as wild cards, or of wild cards
  only; seven make a *pile* (clean, dirty or wild) that takes no more cards (``H-MELD-*``);
- the first meld of each round, set aside and laid down together once it reaches the round's
  minimum (``H-MIN-*``; ``LayDown``);
- the foot, picked up when the hand is used up (``H-FOOT-1``), and going out, which needs the
  team's piles and the partner in the foot (``H-OUT-*``);
- scoring (``H-VAL-1``, ``H-SCORE-1``, ``H-RED-1``), in ``score_team``.

Representation: a team's *incomplete* melds stay in ``melds[team]`` keyed by rank, as in
Classic (``JOKER`` keys the meld of wild cards: ``MeldGroup(JOKER, 0, jokers, twos)``); a meld
that reaches seven cards moves to ``piles[team]``.  ``feet[seat]`` is the unseen foot (a count
vector, all zero once picked up) and ``in_foot[seat]`` says the seat plays from it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Self

from .cards import BLACK3, JOKER, NUM_KINDS, RED3, TOKENS, TWO, VALUES, Kind, counts_value
from .moves import (
    ASK,
    DRAW,
    LAY_DOWN,
    LEGAL,
    NO,
    YES,
    Add,
    Discard,
    LayDown,
    Meld,
    Move,
    Reason,
    TakePile,
    Verdict,
    refuse,
)
from .rng import SplitMix64
from .rules import CANASTA_SIZE, HAND_AND_FOOT, RuleSet
from .scoring import (
    GOING_OUT_BONUS,
    MIXED_CANASTA_BONUS,
    NATURAL_CANASTA_BONUS,
    WILD_PILE_BONUS,
    ScoreLine,
    TeamScore,
    register_variant_scorer,
)
from .seats import seat_name, seat_names
from .state import (
    NOTHING_KNOWN,
    Asked,
    MeldGroup,
    Phase,
    State,
    cached_move,
    gained_tokens,
)
from .teams import TEAM_OF_SEAT, seats_of, team_of
from .view import meld_view

# Local names for the hot paths (a module global is cheaper than an enum attribute).
_DRAW_PHASE, _MELD_PHASE, _ANSWER_PHASE, _ENDED = Phase.DRAW, Phase.MELD, Phase.ANSWER, Phase.ENDED
_NOT_ASKED, _SAID_NO = Asked.NOT_ASKED, Asked.NO
PILE_SIZE = CANASTA_SIZE  # H-MELD-3
#: H-MIN-1: the first-meld minimum of rounds 1 to 4.
ROUND_MINIMUMS = (50, 90, 120, 150)
#: One 54-card deck by kind: 2 jokers, four 2s, two red and two black threes, four of the rest.
DECK_OF_54 = (2, 4, 2, 2, *(4,) * 11)
_NATURALS = tuple(range(4, NUM_KINDS))
_KIND = tuple(Kind)
_DISCARDS = tuple(Discard(k) for k in _KIND)


def deck_counts(decks: int) -> tuple[int, ...]:
    """H-DECK-2: how many of each kind ``decks`` 54-card decks hold (270 cards for five)."""
    return tuple(c * decks for c in DECK_OF_54)


def pile_kind(group: MeldGroup) -> str:
    """H-MELD-3: a complete pile is ``clean`` (no wild card), ``dirty`` or ``wild`` (only)."""
    if group.jokers + group.twos == 0:
        return "clean"
    if group.naturals == 0:
        return "wild"
    return "dirty"


def _tok(kind: int) -> str:
    return TOKENS[kind]


def _toks(cards: Sequence[int]) -> list[str]:
    return [TOKENS[k] for k in cards]


def shape(
    rank: int, naturals: int, wilds: int, size_check: bool, cards: Sequence[int] = ()
) -> Reason | None:
    """H-MELD-1..3 for a meld of ``rank`` (``JOKER``: wild cards only) with these totals."""
    size = naturals + wilds
    if size_check and size < 3:
        return Reason("too_few", "H-MELD-1", {"count": size, "cards": _toks(cards)})
    if size > PILE_SIZE:
        return Reason("pile_full", "H-MELD-3", {"rank": _tok(rank), "count": size})
    if rank != JOKER and naturals < 2 * wilds:
        return Reason("wild_ratio", "H-MELD-2",
                      {"rank": _tok(rank), "naturals": naturals, "wilds": wilds})  # fmt: skip
    return None


@functools.cache
def _meld_options(
    held: int, jokers: int, twos: int, wild_meld: bool, full_only: bool
) -> tuple[tuple[int, int, int], ...]:
    """(naturals, jokers, twos) of every well-shaped new meld from these cards, in move order:
    naturals first, then wild cards as few as can be (H-MELD-1, H-MELD-2, H-MELD-3)."""
    out = []
    top = 0 if wild_meld else min(held, PILE_SIZE)
    for n in range(top + 1):
        for j in range(min(jokers, PILE_SIZE) + 1):
            for t in range(min(twos, PILE_SIZE - j) + 1):
                size = n + j + t
                if size < 3 or size > PILE_SIZE or (full_only and size != PILE_SIZE):
                    continue
                if wild_meld:
                    if n:
                        continue
                elif n < 2 * (j + t):
                    continue
                out.append((n, j, t))
    return tuple(out)


@functools.cache
def _add_options(
    held: int, jokers: int, twos: int, wild_meld: bool, naturals: int, wilds: int
) -> tuple[tuple[int, int, int], ...]:
    """(naturals, jokers, twos) of every addition that keeps a meld of ``naturals`` and
    ``wilds`` well shaped (H-MELD-2, H-MELD-3)."""
    room = PILE_SIZE - naturals - wilds
    out = []
    for j in range(min(jokers, room) + 1):
        for t in range(min(twos, room - j) + 1):
            for n in range((0 if wild_meld else min(held, room - j - t)) + 1):
                if n + j + t == 0:
                    continue
                if not wild_meld and naturals + n < 2 * (wilds + j + t):
                    continue
                out.append((n, j, t))
    return tuple(out)


class HandFootState(State):
    """One round of Hand and Foot, from the deal to its end (``State``'s API)."""

    __slots__ = ("feet", "in_foot", "piles")

    TURN_RULE = "H-TURN-1"
    STOCK_END_RULE = "H-END-1"
    OUT_END_RULE = "H-OUT-1"
    PILE_FREEZES = False  # no frozen pile: every pickup needs a pair (H-PILE-1)
    NO_MELD_RULE = "H-MELD-4"
    TAKE_RULES = ("H-PILE-1", "H-PILE-2", "H-MIN-1", "H-OUT-1")
    OUT_RULES = ("H-OUT-1", "H-OUT-2", "H-PILE-1", "H-PILE-2")

    feet: list[list[int]]
    in_foot: list[bool]
    piles: list[list[MeldGroup]]

    def __init__(self, rules: RuleSet = HAND_AND_FOOT) -> None:
        super().__init__(rules)
        n = rules.players
        self.feet = [[0] * NUM_KINDS for _ in range(n)]
        self.in_foot = [False] * n
        self.piles = [[], []]

    def _new_deck(self) -> list[int]:
        """H-DECK-2: ``rules.decks`` 54-card decks, in a fixed order."""
        cards: list[int] = []
        for kind, count in enumerate(deck_counts(self.rules.decks)):
            cards.extend([kind] * count)
        return cards

    def _deal_rest(self, cards: list[int], first: int) -> None:
        """H-DEAL-1: after the hands, a foot each; the discard pile starts empty."""
        n = self.rules.players
        for i in range(self.rules.foot_size * n):
            self.feet[(first + i) % n][cards.pop()] += 1
        self.stock = cards

    def copy(self) -> Self:
        new = super().copy()
        new.feet = [f[:] for f in self.feet]
        new.in_foot = self.in_foot[:]
        new.piles = [[MeldGroup(g.rank, g.naturals, g.jokers, g.twos) for g in team]
                     for team in self.piles]  # fmt: skip
        return new

    def _face_down_cards(self) -> list[int]:
        """Every foot still face down is unseen, the seat's own too (H-DEAL-1)."""
        return [kind for foot in self.feet for kind in range(NUM_KINDS) for _ in range(foot[kind])]

    def _deal_face_down(self, rest: list[int], reds: list[int], rng: SplitMix64) -> list[int]:
        # Red threes may lie in a face-down foot (they go down when it is picked up).
        pool = rest + reds
        reds.clear()
        rng.shuffle(pool)
        at = 0
        for owner, foot in enumerate(self.feet):
            size = sum(foot)
            counts = [0] * NUM_KINDS
            for kind in pool[at : at + size]:
                counts[kind] += 1
            self.feet[owner] = counts
            at += size
        return pool[at:]

    def snapshot(self) -> tuple[Any, ...]:
        return (
            *super().snapshot(),
            tuple(tuple(f) for f in self.feet),
            tuple(self.in_foot),
            tuple(
                tuple(sorted((g.rank, g.naturals, g.jokers, g.twos) for g in team))
                for team in self.piles
            ),
        )

    # ------------------------------------------------------------------ queries

    @property
    def round(self) -> int:
        """H-GAME-1: the round, 1 to ``rules.rounds`` (the engine's ``hand_number``)."""
        return self.hand_number

    def frozen_by(self, team: int) -> str | None:
        return None  # Hand and Foot has no frozen pile: every pickup needs a pair (H-PILE-1)

    def minimum(self, team: int) -> int:
        """H-MIN-1: what the team's first meld of this round needs (0 once it is down)."""
        if self.down[team]:
            return 0
        return self.round_minimum()

    def opening_minimum(self, team: int) -> int:
        return self.round_minimum()

    def round_minimum(self) -> int:
        """H-MIN-1: this round's first-meld minimum, 50, 90, 120 or 150."""
        return ROUND_MINIMUMS[min(max(self.hand_number, 1), len(ROUND_MINIMUMS)) - 1]

    def canastas(self, team: int) -> int:
        """Complete piles (H-MELD-3): a Classic canasta's counterpart."""
        return len(self.piles[team])

    def complete_piles(self, team: int) -> list[tuple[str, MeldGroup]]:
        return [(pile_kind(g), g) for g in self.piles[team]]

    def face_down_foot(self, seat: int) -> list[int] | None:
        return None if self.in_foot[seat] else self.feet[seat]

    def variant_view(self, seat: int) -> dict[str, Any]:
        """Each team's piles by kind, each player's foot (its size while face down, never its
        cards: not even its owner's, H-DEAL-1), the round and its minimum, and how many cards
        a pickup takes."""
        names = seat_names(self.players)
        needed = dict(zip(("clean", "dirty", "wild"), self.piles_needed(), strict=True))
        return {
            "variant": self.rules.family,
            "round": self.round,
            "rounds": self.rules.rounds,
            "feet": {
                names[s]: {"in_foot": self.in_foot[s], "size": self.foot_size(s)}
                for s in range(self.players)
            },
            "piles": [
                {
                    "groups": [
                        {**meld_view(g), "kind": pile_kind(g)}
                        for g in sorted(self.piles[t], key=lambda g: (pile_kind(g), -g.rank))
                    ],
                    "counts": dict(
                        zip(("clean", "dirty", "wild"), self.pile_counts(t), strict=True)
                    ),
                }
                for t in (0, 1)
            ],
            "piles_needed": needed,
            "take_count": self._taken(),
            "take_limit": self.rules.pile_take,
        }

    def pile_counts(self, team: int) -> tuple[int, int, int]:
        """The team's complete piles: (clean, dirty, wild)."""
        clean = dirty = wild = 0
        for g in self.piles[team]:
            if not (g.jokers or g.twos):
                clean += 1
            elif g.naturals:
                dirty += 1
            else:
                wild += 1
        return clean, dirty, wild

    def piles_needed(self) -> tuple[int, int, int]:
        r = self.rules
        return r.clean_to_go_out, r.dirty_to_go_out, r.wild_to_go_out

    def foot_size(self, seat: int) -> int:
        return sum(self.feet[seat])

    def card_total(self) -> int:
        """All cards anywhere: 270 with five decks (H-DECK-2)."""
        total = super().card_total()
        total += sum(sum(f) for f in self.feet)
        return total + sum(g.size for team in self.piles for g in team)

    def deck_size(self) -> int:
        return sum(deck_counts(self.rules.decks))

    # ------------------------------------------------------------------ checking

    def _may_go_out(self, piles: Any, hand_after: int = 0) -> Verdict | None:
        """None when the player may be left with ``hand_after`` cards (0 or 1) from the foot:
        the team has the ``piles`` (clean, dirty, wild) and the partner plays from the foot
        (H-OUT-1, H-OUT-2)."""
        if self.asked is _SAID_NO:
            return refuse("partner_said_no", "H-OUT-3", cards_left=hand_after)
        need = self.piles_needed()
        if piles[0] < need[0] or piles[1] < need[1] or piles[2] < need[2]:
            facts = {
                "clean": piles[0], "dirty": piles[1], "wild": piles[2],
                "needed_clean": need[0], "needed_dirty": need[1], "needed_wild": need[2],
            }  # fmt: skip
            if hand_after:
                return refuse("keep_a_card_piles", "H-OUT-2", cards_left=hand_after, **facts)
            return refuse("need_piles", "H-OUT-1", **facts)
        partner = self.partner(self.current)
        if not self.in_foot[partner]:
            seat = seat_name(self.rules.players, partner)
            return refuse("partner_not_in_foot", "H-OUT-1", seat=seat, cards_left=hand_after)
        return None

    def _piles_after(
        self, team: int, group: MeldGroup | None, adding: tuple[int, int, int]
    ) -> tuple[int, int, int]:
        """The team's (clean, dirty, wild) piles once ``adding`` (naturals, jokers, twos)
        joins ``group`` (None: a new meld)."""
        clean, dirty, wild = self.pile_counts(team)
        if not self.down[team]:
            # Set aside: nothing is down yet; complete groups would go down with the rest.
            clean = dirty = wild = 0
            for g in self.staged.values():
                if g.size >= PILE_SIZE:
                    kind = pile_kind(g)
                    clean += kind == "clean"
                    dirty += kind == "dirty"
                    wild += kind == "wild"
        n, j, t = adding
        if group is not None:
            if group.size + n + j + t < PILE_SIZE:
                return clean, dirty, wild
            n, j, t = group.naturals + n, group.jokers + j, group.twos + t
        elif n + j + t < PILE_SIZE:
            return clean, dirty, wild
        if j + t == 0:
            return clean + 1, dirty, wild
        if n == 0:
            return clean, dirty, wild + 1
        return clean, dirty + 1, wild

    def _after_play(self, hand_after: int, piles: Callable[[], tuple[int, int, int]],
                    staged_value_after: int | None) -> Verdict | None:  # fmt: skip
        """H-OUT-2, H-FOOT-1, H-MIN-1 for a play leaving ``hand_after`` cards in hand.

        Before the foot, a player may use up the hand (the foot comes next); from the foot,
        fewer than two cards left means going out, now or with the next discard.  A player
        setting cards aside (``staged_value_after`` given) keeps a card unless they reach
        the minimum, so that the lay-down can follow."""
        if hand_after >= 2:
            return None
        team = TEAM_OF_SEAT[self.current]
        if staged_value_after is not None and hand_after == 0:
            need = self.minimum(team)
            if staged_value_after < need:
                return refuse("below_minimum", "H-MIN-1", needed=need, have=staged_value_after)
        if not self.in_foot[self.current]:
            return None
        return self._may_go_out(piles(), hand_after)

    def _check_meld(self, move: Meld) -> Verdict:
        team = TEAM_OF_SEAT[self.current]
        bad = self._meld_phase_refusal(team)
        if bad is not None:
            return bad
        cards = move.cards
        if not cards:
            return refuse("no_cards", "H-MELD-1")
        missing = self._missing(cards)
        if missing:
            return refuse("not_in_hand", "H-TURN-2", cards=missing)
        if RED3 in cards:
            return refuse("red_three_meld", "H-RED-1")
        if BLACK3 in cards:
            return refuse("black_three_meld", "H-BLK-1")
        naturals = [k for k in cards if k > BLACK3]
        ranks = sorted(set(naturals), reverse=True)
        if len(ranks) > 1:
            return refuse("mixed_ranks", "H-MELD-1", ranks=_toks(ranks))
        rank = ranks[0] if ranks else JOKER
        jokers = cards.count(JOKER)
        twos = cards.count(TWO)
        problem = shape(rank, len(naturals), jokers + twos, True, cards)
        if problem is not None:
            return Verdict(problem)
        down = self.down[team]
        existing = self.melds[team] if down else self.staged
        if rank in existing and (len(cards) < PILE_SIZE or not down):
            # H-MELD-4: one incomplete meld of a rank (a complete pile may sit beside it).
            return refuse("rank_already_melded", "H-MELD-4", rank=_tok(rank), set_aside=not down)
        return self._laid_verdict(team, None, cards, (len(naturals), jokers, twos))

    def _laid_verdict(self, team: int, group: MeldGroup | None, cards: Sequence[int],
                      adding: tuple[int, int, int]) -> Verdict:  # fmt: skip
        """The verdict on a well-shaped meld or addition (``group`` None: a new meld): the
        cards it leaves (H-OUT-2, H-FOOT-1, H-MIN-1), then legal, with a note while the cards
        are only set aside for the first meld."""
        down = self.down[team]
        hand_after = sum(self.hands[self.current]) - len(cards)
        staged_after = None if down else self.staged_value() + sum(VALUES[k] for k in cards)
        bad = self._after_play(hand_after, lambda: self._piles_after(team, group, adding),
                               staged_after)  # fmt: skip
        if bad is not None:
            return bad
        if staged_after is not None:
            note = Reason("set_aside", "H-MIN-1",
                          {"needed": self.minimum(team), "have": staged_after})  # fmt: skip
            return Verdict(note=note)
        return LEGAL

    def _check_add(self, move: Add) -> Verdict:
        team = TEAM_OF_SEAT[self.current]
        bad = self._meld_phase_refusal(team)
        if bad is not None:
            return bad
        cards = move.cards
        rank = int(move.rank)
        down = self.down[team]
        target = (self.melds[team] if down else self.staged).get(rank)
        if target is None:
            if down and any(g.rank == rank for g in self.piles[team]):
                # The rank's meld became a pile of seven, which takes no more cards.
                return refuse("pile_complete", "H-MELD-3", rank=_tok(rank))
            return refuse("no_such_meld", "H-MELD-4", rank=_tok(rank), set_aside=not down)
        if not cards:
            return refuse("no_cards", "H-MELD-1")
        missing = self._missing(cards)
        if missing:
            return refuse("not_in_hand", "H-TURN-2", cards=missing)
        if RED3 in cards:
            return refuse("red_three_meld", "H-RED-1")
        if BLACK3 in cards:
            return refuse("black_three_meld", "H-BLK-1")
        wrong = sorted({k for k in cards if k > BLACK3 and k != rank}, reverse=True)
        if wrong:
            if rank == JOKER:
                return refuse("wild_meld_naturals", "H-MELD-2", cards=_toks(wrong))
            return refuse("wrong_rank", "H-MELD-1", rank=_tok(rank), cards=_toks(wrong))
        naturals = cards.count(rank) if rank != JOKER else 0
        jokers = cards.count(JOKER)
        twos = cards.count(TWO)
        problem = shape(rank, target.naturals + naturals, target.wilds + jokers + twos, False)
        if problem is not None:
            return Verdict(problem)
        return self._laid_verdict(team, target, cards, (naturals, jokers, twos))

    def _check_lay_down(self, move: LayDown) -> Verdict:
        bad = self._phase_refusal(True)
        if bad is not None:
            return bad
        team = TEAM_OF_SEAT[self.current]
        if self.down[team]:
            return refuse("already_down", "H-MIN-1")
        if not self.staged:
            return refuse("nothing_set_aside", "H-MIN-1", needed=self.minimum(team))
        have = self.staged_value()
        need = self.minimum(team)
        if have < need:
            return refuse("below_minimum", "H-MIN-1", needed=need, have=have)
        hand_after = sum(self.hands[self.current])
        if hand_after < 2 and self.in_foot[self.current]:
            blocked = self._may_go_out(self._piles_after(team, None, (0, 0, 0)), hand_after)
            if blocked is not None:
                return blocked
        return LEGAL

    def _taken(self) -> int:
        """H-TURN-1: how many cards a pickup takes (the top seven, or the whole pile)."""
        limit = self.rules.pile_take
        return len(self.pile) if limit <= 0 else min(limit, len(self.pile))

    def _check_take(self, move: TakePile) -> Verdict:
        if self.phase is not _DRAW_PHASE:
            bad = self._phase_refusal(False)
            if bad is not None:
                return bad
        pile = self.pile
        if not pile:
            return refuse("pile_empty", "H-TURN-1")
        top = pile[-1]
        if top == BLACK3:
            return refuse("black_three_on_top", "H-PILE-2")
        if top <= TWO:
            return refuse("wild_on_top", "H-PILE-1", card=_tok(top))
        if top == RED3:
            return refuse("red_three_on_top", "H-RED-1", card=_tok(top))
        cards = move.cards
        missing = self._missing(cards)
        if missing:
            return refuse("not_in_hand", "H-PILE-1", cards=missing)
        wrong = sorted({k for k in cards if k >= RED3 and k != top}, reverse=True)
        if wrong:
            return refuse("wrong_rank", "H-MELD-1", rank=_tok(top), cards=_toks(wrong))
        seat = self.current
        hand = self.hands[seat]
        naturals = cards.count(top)
        if naturals < 2:
            return refuse("take_needs_pair", "H-PILE-1", rank=_tok(top), naturals_held=hand[top],
                          offered=_toks(cards))  # fmt: skip
        jokers = cards.count(JOKER)
        twos = cards.count(TWO)
        team = TEAM_OF_SEAT[seat]
        down = self.down[team]
        existing = (self.melds[team] if down else self.staged).get(top)
        e_nat, e_wild = (existing.naturals, existing.wilds) if existing else (0, 0)
        problem = shape(top, e_nat + naturals + 1, e_wild + jokers + twos, existing is None,
                        (top, *cards))  # fmt: skip
        if problem is not None:
            return Verdict(problem)
        if not down:
            have = self.staged_value() + VALUES[top] + sum(VALUES[k] for k in cards)
            need = self.minimum(team)
            if have < need:
                return refuse("below_minimum", "H-PILE-1", needed=need, have=have)
        taken = pile[-self._taken() :]
        hand_after = sum(hand) - len(cards) + len(taken) - 1 - taken.count(RED3)
        if hand_after < 2 and self.in_foot[seat]:
            piles = self._piles_after_take(team, existing, (naturals + 1, jokers, twos))
            blocked = self._may_go_out(piles, hand_after)
            if blocked is not None:
                return blocked
        return LEGAL

    def _piles_after_take(self, team: int, existing: MeldGroup | None,
                          adding: tuple[int, int, int]) -> tuple[int, int, int]:  # fmt: skip
        if self.down[team]:
            return self._piles_after(team, existing, adding)
        # The staged groups go down with the pickup: count them as the team's.
        clean, dirty, wild = self._piles_after(team, existing, adding)
        return clean, dirty, wild

    def _check_discard(self, move: Discard) -> Verdict:
        bad = self._phase_refusal(True)
        if bad is not None:
            return bad
        seat = self.current
        card = int(move.card)
        staged = self._staged_counts() if self.staged else None
        held = self.hands[seat][card] + (staged[card] if staged else 0)
        if held < 1:
            return refuse("not_in_hand", "H-TURN-2", cards=[_tok(card)])
        left = sum(self.hands[seat]) + (sum(staged) if staged else 0) - 1
        if left == 0 and self.in_foot[seat]:
            team = TEAM_OF_SEAT[seat]
            piles = self.pile_counts(team) if self.down[team] else (0, 0, 0)
            blocked = self._may_go_out(piles, 0)
            if blocked is not None:
                return blocked
        return LEGAL

    # ------------------------------------------------------------------ applying

    def _begin_turn(self, seat: int) -> None:
        super()._begin_turn(seat)  # red threes dealt into the hand go down first (H-RED-1)
        if self.phase is not _ENDED and not self.in_foot[seat] and not any(self.hands[seat]):
            self._pick_up_foot(seat)  # the hand went with the last discard (H-FOOT-1)

    def _hand_over_facts(self) -> dict[str, Any]:
        return {"round": self.hand_number}

    def _commit_staged_if_ready(self) -> None:
        """Nothing goes down by itself: the cards set aside wait for a lay-down (H-MIN-1)."""

    def _out_with_empty_hand(self, seat: int) -> bool:
        """A discard that uses up the foot goes out (H-OUT-1); one that uses up the hand
        brings the foot at the start of the next turn (H-FOOT-1)."""
        return self.in_foot[seat]

    def _go_out(self) -> None:
        self._end_hand("out", self.current)  # H-OUT-1: no concealed going out

    def _pick_up_foot(self, seat: int) -> None:
        """H-FOOT-1: the foot becomes the hand; its red threes go down at once (H-RED-1)."""
        foot = self.feet[seat]
        hand = self.hands[seat]
        for k in range(NUM_KINDS):
            hand[k] += foot[k]
        self._event("foot", seat, count=sum(foot))
        self.feet[seat] = [0] * NUM_KINDS
        self.known[seat] = NOTHING_KNOWN  # the hand was used up: what it held is gone
        self.in_foot[seat] = True
        self._lay_red_threes_in_hand(seat)

    def _place(self, team: int, rank: int, n: int, j: int, t: int) -> None:
        """Put cards on the team's meld of ``rank`` (a new one when there is none, or when
        they make a whole pile on their own); a meld of seven becomes a pile (H-MELD-3)."""
        melds = self.melds[team]
        group = melds.get(rank)
        if group is None or n + j + t >= PILE_SIZE:
            group = MeldGroup(rank, n, j, t)
            if group.size < PILE_SIZE:
                melds[rank] = group
        else:
            group.naturals += n
            group.jokers += j
            group.twos += t
        if group.size >= PILE_SIZE:
            if melds.get(rank) is group:
                del melds[rank]
            self.piles[team].append(group)
            self._event("pile", self.current, rank=_tok(rank), kind=pile_kind(group))
        self.melded_this_turn = True

    def _lay_staged(self) -> None:
        """Everything set aside goes down together (H-MIN-1): the team is down."""
        team = TEAM_OF_SEAT[self.current]
        self._event("went_down", self.current)
        staged, self.staged = self.staged, {}
        for rank, group in sorted(staged.items(), reverse=True):
            self._place(team, rank, group.naturals, group.jokers, group.twos)
        self.down[team] = True

    def _after_cards_left_hand(self) -> None:
        """The hand is used up: the foot comes at once (H-FOOT-1), or the round is over."""
        seat = self.current
        if any(self.hands[seat]) or self.staged:
            return
        if self.in_foot[seat]:
            self._end_hand("out", seat)  # H-OUT-1
        else:
            self._pick_up_foot(seat)

    def _do_take(self, move: TakePile) -> None:
        cards = move.cards
        seat = self.current
        team = TEAM_OF_SEAT[seat]
        hand = self.hands[seat]
        self._leave_hand(seat, cards)
        count = self._taken()
        taken = self.pile[-count:]
        del self.pile[-count:]
        top = taken.pop()
        if self._events is not None:
            self._event("took_pile", seat, size=count, top=TOKENS[top],
                        cards=[TOKENS[k] for k in cards],
                        gained=gained_tokens(taken))  # fmt: skip
        if not self.down[team]:
            self._lay_staged()
        self._place(team, top, 1 + cards.count(top), cards.count(JOKER), cards.count(TWO))
        self.down[team] = True
        self.has_melded[seat] = True
        for k in taken:
            if k == RED3:
                self.red_threes[team] += 1  # no replacement, as in Classic (H-RED-1)
                self._red_three_event(seat, "pile", None)
            else:
                hand[k] += 1
        self._learn(seat, [k for k in taken if k != RED3])
        self.took_pile = True
        self.phase = _MELD_PHASE
        self._after_cards_left_hand()

    def _do_meld(self, move: Meld) -> None:
        cards = move.cards
        seat = self.current
        team = TEAM_OF_SEAT[seat]
        self._leave_hand(seat, cards)
        highest = int(max(cards))
        rank = highest if highest > BLACK3 else JOKER  # wild cards only: the wild meld
        n = cards.count(rank) if rank != JOKER else 0
        j = cards.count(JOKER)
        t = cards.count(TWO)
        if self._events is not None:
            self._event("melded" if self.down[team] else "set_aside", seat,
                        cards=[TOKENS[k] for k in cards])  # fmt: skip
        if self.down[team]:
            self._place(team, rank, n, j, t)
            self._after_cards_left_hand()
        else:
            self.staged[rank] = MeldGroup(rank, n, j, t)

    def _do_add(self, move: Add) -> None:
        rank = int(move.rank)
        cards = move.cards
        seat = self.current
        team = TEAM_OF_SEAT[seat]
        self._leave_hand(seat, cards)
        if self._events is not None:
            self._event("added", seat, rank=TOKENS[rank], cards=[TOKENS[k] for k in cards])
        n = cards.count(rank) if rank != JOKER else 0
        j = cards.count(JOKER)
        t = cards.count(TWO)
        if self.down[team]:
            self._place(team, rank, n, j, t)
            self._after_cards_left_hand()
        else:
            group = self.staged[rank]
            group.naturals += n
            group.jokers += j
            group.twos += t

    def _do_lay_down(self, move: LayDown) -> None:
        self._lay_staged()
        self._after_cards_left_hand()

    # ------------------------------------------------------------------ legal moves

    def legal_moves(self) -> list[Move]:
        """Every legal move, in a stable order: draw, take, meld, add, lay down, ask, answer,
        discard (``check`` agrees: tests/test_handfoot.py)."""
        phase = self.phase
        if phase is _ANSWER_PHASE:
            return [YES, NO]
        if phase is _ENDED:
            return []
        seat = self.current
        team = TEAM_OF_SEAT[seat]
        hand = self.hands[seat]
        down = self.down[team]
        held_total = sum(hand)
        jokers = hand[JOKER]
        twos = hand[TWO]
        in_foot = self.in_foot[seat]
        out: list[Move] = []
        if phase is _DRAW_PHASE:
            out.append(DRAW)
            self._legal_pickups(out, hand, held_total, down, team, in_foot)
            if down:
                return out
        existing = self.melds[team] if down else self.staged
        staged_value = 0 if down else self.staged_value()
        need = 0 if down else self.minimum(team)
        # Plays that leave fewer than two cards are judged one by one (the foot, going out).
        careful = in_foot or not down
        for rank in _NATURALS:
            held = hand[rank]
            if held == 0:
                continue
            group = existing.get(rank)
            if group is None or down:
                options = _meld_options(min(held, PILE_SIZE), min(jokers, PILE_SIZE),
                                        min(twos, PILE_SIZE), False, group is not None)  # fmt: skip
                value_n = VALUES[rank]
                for n, j, t in options:
                    left = held_total - n - j - t
                    if left < 2 and careful:
                        value = staged_value + n * value_n + 50 * j + 20 * t
                        if not self._left_ok(left, team, None, (n, j, t), down, value, need):
                            continue
                    out.append(cached_move("meld", rank, n, j, t))
        if jokers + twos >= 3:
            group = existing.get(JOKER)
            if group is None or down:
                for _n, j, t in _meld_options(0, min(jokers, PILE_SIZE), min(twos, PILE_SIZE),
                                              True, group is not None):  # fmt: skip
                    left = held_total - j - t
                    if left < 2 and careful:
                        value = staged_value + 50 * j + 20 * t
                        if not self._left_ok(left, team, None, (0, j, t), down, value, need):
                            continue
                    out.append(cached_move("meld", JOKER, 0, j, t))
        for rank in sorted(existing):
            group = existing[rank]
            held = hand[rank] if rank != JOKER else 0
            if not (held or jokers or twos):
                continue
            options = _add_options(min(held, PILE_SIZE), min(jokers, PILE_SIZE),
                                   min(twos, PILE_SIZE), rank == JOKER, group.naturals,
                                   group.jokers + group.twos)  # fmt: skip
            value_n = VALUES[rank]
            for n, j, t in options:
                left = held_total - n - j - t
                if left < 2 and careful:
                    value = staged_value + n * value_n + 50 * j + 20 * t
                    if not self._left_ok(left, team, group, (n, j, t), down, value, need):
                        continue
                out.append(cached_move("add", rank, n, j, t))
        if phase is _DRAW_PHASE:
            return out
        if not down and self.staged and self._check_lay_down(LAY_DOWN).reason is None:
            out.append(LAY_DOWN)
        if self.asked is _NOT_ASKED and self.rules.ask_partner and self._may_ask():
            out.append(ASK)
        staged = self._staged_counts() if self.staged else None
        total = held_total + (sum(staged) if staged else 0)
        if total == 1 and in_foot:
            piles = self.pile_counts(team) if down else (0, 0, 0)
            if self._may_go_out(piles, 0) is not None:
                return out
        for k in range(NUM_KINDS - 1, -1, -1):
            if hand[k] or (staged and staged[k]):
                out.append(_DISCARDS[k])
        return out

    def _left_ok(
        self, left: int, team: int, group: MeldGroup | None, adding: tuple[int, int, int],
        down: bool, staged_after: int, need: int,
    ) -> bool:  # fmt: skip
        """``_after_play`` is None for a play leaving ``left`` (< 2) cards."""
        if not down and left == 0 and staged_after < need:
            return False
        if not self.in_foot[self.current]:
            return True
        return self._may_go_out(self._piles_after(team, group, adding), left) is None

    def _legal_pickups(self, out: list[Move], hand: list[int], held_total: int, down: bool,
                     team: int, in_foot: bool) -> None:  # fmt: skip
        pile = self.pile
        if not pile:
            return
        top = pile[-1]
        if top <= BLACK3:
            return  # H-PILE-1, H-PILE-2
        held = hand[top]
        if held < 2:
            return  # H-PILE-1
        existing = (self.melds[team] if down else self.staged).get(top)
        e_nat, e_wild = (existing.naturals, existing.wilds) if existing else (0, 0)
        need = 0 if down else self.minimum(team)
        base = 0 if down else self.staged_value() + VALUES[top]
        taken = pile[-self._taken() :]
        gain = len(taken) - 1 - taken.count(RED3)
        value_n = VALUES[top]
        jokers, twos = min(hand[JOKER], PILE_SIZE), min(hand[TWO], PILE_SIZE)
        for n, j, t in _add_options(min(held, PILE_SIZE), jokers, twos, False, e_nat + 1, e_wild):
            if n < 2:
                continue
            if not down and base + n * value_n + 50 * j + 20 * t < need:
                continue
            left = held_total - n - j - t + gain
            if left < 2 and in_foot:
                piles = self._piles_after_take(team, existing, (n + 1, j, t))
                if self._may_go_out(piles, left) is not None:
                    continue
            out.append(cached_move("take", top, n, j, t))


def score_team(state: HandFootState, team: int) -> TeamScore:
    """A team's round score, line by line (H-VAL-1, H-SCORE-1, H-RED-1).

    Piles by kind, red threes laid, going out, the cards melded (piles and incomplete
    melds), then against: the cards left in the team's hands and unplayed feet, and each red
    three among them.  Before the round ends, what the team would score if it ended now."""
    lines: list[ScoreLine] = []
    clean, dirty, wild = state.pile_counts(team)
    if clean:
        lines.append(
            ScoreLine("piles_clean", "H-SCORE-1", NATURAL_CANASTA_BONUS * clean, {"count": clean})
        )
    if dirty:
        lines.append(
            ScoreLine("piles_dirty", "H-SCORE-1", MIXED_CANASTA_BONUS * dirty, {"count": dirty})
        )
    if wild:
        lines.append(ScoreLine("piles_wild", "H-SCORE-1", WILD_PILE_BONUS * wild, {"count": wild}))
    value = state.rules.red_three_value
    reds = state.red_threes[team]
    if reds and value:
        lines.append(ScoreLine("red_threes", "H-RED-1", value * reds, {"count": reds}))
    end = state.end
    if end is not None and end.how == "out" and team_of(end.seat) == team:
        lines.append(ScoreLine("going_out", "H-SCORE-1", GOING_OUT_BONUS))
    melded = sum(g.value for g in state.piles[team]) + sum(
        g.value for g in state.melds[team].values()
    )
    if melded:
        lines.append(ScoreLine("melded_cards", "H-VAL-1", melded))
    seats = seats_of(team, state.players)
    left = sum(counts_value(state.hands[s]) + counts_value(state.feet[s]) for s in seats)
    if left:
        lines.append(ScoreLine("cards_in_hand_foot", "H-VAL-1", -left))
    reds_left = sum(state.hands[s][RED3] + state.feet[s][RED3] for s in seats)
    if reds_left and value:
        lines.append(ScoreLine("red_threes_left", "H-RED-1", -value * reds_left,
                               {"count": reds_left}))  # fmt: skip
    if state.penalties[team]:
        lines.append(ScoreLine("ask_penalty", "H-OUT-3", -state.penalties[team]))
    return TeamScore(team, tuple(lines))


register_variant_scorer(HandFootState, score_team)


__all__ = [
    "DECK_OF_54", "HandFootState", "PILE_SIZE", "ROUND_MINIMUMS", "deck_counts", "pile_kind",
    "score_team", "shape",
]  # fmt: skip
