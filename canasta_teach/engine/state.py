"""The state of one hand of Classic Canasta, its legal moves, and the turn flow.

``State.check(move)`` says whether a move is legal and, if not, why (a ``Reason`` with a
rule id from ``classic.md``).  ``State.apply(move)`` checks first and changes nothing when
the move is refused.  ``State.legal_moves()`` lists every legal move in a stable order.

Layout: seats are numbered clockwise from South (0); a seat's team is ``teams.team_of(seat)``,
so partners sit opposite in the 4-player game and each player is a team of one in the
2-player game.  Hands are count vectors over the 15 card kinds (``cards.Kind``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from itertools import compress
from typing import Any, ClassVar, Self

from .cards import (
    BLACK3,
    DECK_COUNTS,
    JOKER,
    NUM_KINDS,
    RED3,
    TOKENS,
    TWO,
    VALUES,
    Kind,
    counts_value,
    kinds_of,
)
from .moves import (
    ASK,
    DRAW,
    LEGAL,
    MOVE_KINDS,
    NO,
    YES,
    Add,
    Answer,
    AskPartner,
    Discard,
    Draw,
    LayDown,
    Meld,
    Move,
    Reason,
    TakePile,
    Verdict,
    canonical,
    refuse,
)
from .rng import SplitMix64
from .rules import CANASTA_SIZE, CLASSIC4, RuleSet
from .seats import seat_name
from .teams import TEAM_OF_SEAT
from .teams import partner as seat_partner

#: Kind members by index: ``Kind(k)`` goes through Enum machinery, indexing does not.
_KIND = tuple(Kind)
_DISCARDS = tuple(Discard(k) for k in _KIND)
_HIGH_TO_LOW = tuple(range(NUM_KINDS - 1, -1, -1))
_DISCARDS_HIGH_TO_LOW = tuple(_DISCARDS[k] for k in _HIGH_TO_LOW)
_MELD_KINDS = tuple(range(BLACK3, NUM_KINDS))  # black threes, then the naturals
#: _WILD_OPTIONS[jokers held][twos held][room]: the (jokers, twos) pairs a hand can add.
_WILD_OPTIONS = tuple(
    tuple(
        tuple(
            tuple((j, t) for j in range(min(jk, room) + 1) for t in range(min(tw, room - j) + 1))
            for room in range(4)
        )
        for tw in range(9)
    )
    for jk in range(5)
)


class Phase(str, Enum):
    DRAW = "draw"  # the player to move must draw or take the pile (C-TURN-1)
    MELD = "meld"  # melds, additions, then a discard (C-TURN-2, C-TURN-3)
    ANSWER = "answer"  # the partner answers "may I go out?" (C-ASK-1)
    ENDED = "ended"  # the hand is over (C-END-*)


class Asked(str, Enum):
    NOT_ASKED = "none"
    PENDING = "pending"
    YES = "yes"
    NO = "no"


#: The members as module constants: ``Phase.MELD`` is an attribute lookup through the Enum
#: machinery (about ten times a global's cost), and the turn flow tests phases constantly.
_DRAW_PHASE, _MELD_PHASE, _ANSWER_PHASE, _ENDED = Phase.DRAW, Phase.MELD, Phase.ANSWER, Phase.ENDED
_NOT_ASKED, _PENDING, _SAID_YES, _SAID_NO = Asked.NOT_ASKED, Asked.PENDING, Asked.YES, Asked.NO

#: A seat of whom no card is known (``State.known``).
NOTHING_KNOWN: tuple[int, ...] = (0,) * NUM_KINDS


def _tok(kind: int) -> str:
    return TOKENS[kind]


def _toks(cards: Sequence[int]) -> list[str]:
    return [TOKENS[k] for k in cards]


def group_shape(
    rules: RuleSet,
    rank: int,
    naturals: int,
    wilds: int,
    size_check: bool,
    cards: Sequence[int] = (),
) -> Reason | None:
    """C-MELD-1, C-MELD-2 for a meld of ``rank`` (new, or grown) with these totals.

    ``size_check`` is off for a meld that grows (it has three cards already); ``cards``,
    the cards of a new meld, are named in a too-few refusal."""
    if size_check and naturals + wilds < 3:
        return Reason("too_few", "C-MELD-1", {"count": naturals + wilds, "cards": _toks(cards)})
    if naturals < 2:
        code = "needs_two_naturals"
    elif wilds > rules.max_wilds:
        facts = {"rank": _tok(rank), "naturals": naturals, "wilds": wilds}
        return Reason("too_many_wilds", "C-MELD-2", {**facts, "max_wilds": rules.max_wilds})
    elif rules.two_naturals_per_wild and naturals < 2 * wilds:
        code = "two_naturals_per_wild"
    else:
        return None  # the common answer: no facts to gather
    return Reason(code, "C-MELD-2", {"rank": _tok(rank), "naturals": naturals, "wilds": wilds})


def new_meld_shape(rules: RuleSet, cards: Sequence[int]) -> Reason | None:
    """What is wrong with ``cards`` as a meld on their own, or None (C-MELD-1, C-MELD-2,
    C-MELD-4, C-OUT-4).  When black threes may go down is the turn's business, not this."""
    if not cards:
        return Reason("no_cards", "C-MELD-1")
    if RED3 in cards:
        return Reason("red_three_meld", "C-MELD-4")
    naturals = [k for k in cards if k >= BLACK3]
    ranks = sorted(set(naturals), reverse=True)
    wilds = len(cards) - len(naturals)
    if len(ranks) > 1:
        return Reason("mixed_ranks", "C-MELD-1", {"ranks": _toks(ranks)})
    if not ranks:
        return Reason("all_wild", "C-MELD-2", {"cards": _toks(cards)})
    if ranks[0] == BLACK3:
        if wilds:
            return Reason("black_threes_no_wilds", "C-OUT-4")
        if len(cards) < 3:
            return Reason("too_few", "C-MELD-1", {"count": len(cards), "cards": _toks(cards)})
        return None
    return group_shape(rules, ranks[0], len(naturals), wilds, True, cards)


class MeldGroup:
    """A meld on the table (or set aside): naturals of one rank, jokers and 2s."""

    __slots__ = ("rank", "naturals", "jokers", "twos")

    def __init__(self, rank: int, naturals: int, jokers: int = 0, twos: int = 0) -> None:
        self.rank = rank
        self.naturals = naturals
        self.jokers = jokers
        self.twos = twos

    @property
    def size(self) -> int:
        return self.naturals + self.jokers + self.twos

    @property
    def wilds(self) -> int:
        return self.jokers + self.twos

    @property
    def is_canasta(self) -> bool:
        return self.size >= CANASTA_SIZE

    @property
    def is_natural(self) -> bool:
        return self.jokers + self.twos == 0

    @property
    def value(self) -> int:
        return self.naturals * VALUES[self.rank] + self.jokers * 50 + self.twos * 20

    def copy(self) -> MeldGroup:
        return MeldGroup(self.rank, self.naturals, self.jokers, self.twos)

    def cards(self) -> list[Kind]:
        """The cards, naturals first."""
        return (
            [Kind(self.rank)] * self.naturals + [Kind.TWO] * self.twos + [Kind.JOKER] * self.jokers
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MeldGroup) and (
            self.rank,
            self.naturals,
            self.jokers,
            self.twos,
        ) == (other.rank, other.naturals, other.jokers, other.twos)

    def __repr__(self) -> str:
        return f"MeldGroup({_tok(self.rank)}, n={self.naturals}, jk={self.jokers}, 2={self.twos})"


@dataclass(frozen=True, slots=True)
class HandEnd:
    """How a hand ended."""

    how: str  # "out" (C-OUT-2), "concealed" (C-OUT-3) or "stock" (C-END-2)
    seat: int  # who went out, or who was to move when the stock ran out


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened at the table when a move was applied, as every player saw it.

    ``code`` names it (``event.<code>`` in the catalogs), ``seat`` is who did it, ``params``
    its public facts (JSON-ready: counts and card tokens; never a card nobody else saw), and
    ``private`` what ``seat`` alone saw (the card that replaced its red three), for that seat's
    own words only.
    Codes: ``drew`` (count), ``red_three`` (count, source: "dealt" (in the hand at the start of
    a turn), "drawn" (from the stock) or "pile" (came with the pile); replaced: whether a card
    from the stock took its place, private card: that card), ``took_pile`` (size, top, cards;
    gained: the pile's cards that came into the hand, all seen face up), ``melded`` (cards),
    ``set_aside`` (cards), ``added`` (rank, cards), ``went_down`` (the team's first meld is on
    the table), ``taken_back`` (cards set aside below the minimum go back to the hand),
    ``discarded`` (card), ``asked``, ``answered`` (yes), ``penalty`` (points: said yes and did
    not go out), ``turn`` (the next player's turn begins), ``hand_over`` (how).
    """

    code: str
    seat: int
    params: dict[str, Any]
    private: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = {"code": self.code, "seat": self.seat, "params": dict(self.params)}
        if self.private:
            out["private"] = dict(self.private)
        return out


def gained_tokens(cards: Sequence[int]) -> list[str]:
    """The cards a pickup brings into the hand (``took_pile``'s ``gained``): the red threes
    go down instead; highest first, wild cards last, as a learner would sort them."""
    return [TOKENS[k] for k in sorted(cards, reverse=True) if k != RED3]


def deck() -> list[int]:
    """The 108 cards as kinds, in a fixed order (C-DECK-1)."""
    out: list[int] = []
    for kind, count in enumerate(DECK_COUNTS):
        out.extend([kind] * count)
    return out


class State:
    """One hand of Classic Canasta, from the deal to its end."""

    __slots__ = (
        "rules",
        "hands",
        "stock",
        "pile",
        "pile_freezers",
        "melds",
        "red_threes",
        "down",
        "scores",
        "dealer",
        "current",
        "phase",
        "staged",
        "has_melded",
        "melded_this_turn",
        "created_this_turn",
        "took_pile",
        "asked",
        "penalties",
        "end",
        "hand_number",
        "known",
        "thrown",
        "_events",
    )

    rules: RuleSet
    hands: list[list[int]]
    stock: list[int]
    pile: list[int]
    pile_freezers: int
    melds: list[dict[int, MeldGroup]]
    red_threes: list[int]
    down: list[bool]
    scores: list[int]
    dealer: int
    current: int
    phase: Phase
    staged: dict[int, MeldGroup]
    has_melded: list[bool]
    melded_this_turn: bool
    created_this_turn: set[int]
    took_pile: bool
    asked: Asked
    penalties: list[int]
    end: HandEnd | None
    hand_number: int
    #: The public record of the hand: cards each seat is known to hold (count vectors; every
    #: player saw them picked up with the pile or set aside and taken back) and the kinds each
    #: seat has thrown away this hand (a bit per kind).  Players remember what they saw, so
    #: views show it and computer players may reason with it (``player_view``).
    known: list[tuple[int, ...]]
    thrown: list[int]
    _events: list[Event] | None

    #: ``check`` and ``_play`` by move type, built for each class from ``moves.MOVE_KINDS``
    #: (``__init_subclass__``), so a variant's override of a ``_check_*`` or ``_do_*`` method
    #: is what runs; one dict lookup per move, as a table of functions would be.
    _checkers: ClassVar[dict[type, Callable[[Any, Any], Verdict]]]
    _players: ClassVar[dict[type, Callable[[Any, Any], None]]]
    #: The rule a refusal cites for a move out of turn order, and for a move after the end
    #: (by how the hand ended: the stock ran out, or a player went out).
    TURN_RULE: ClassVar[str] = "C-TURN-1"
    STOCK_END_RULE: ClassVar[str] = "C-END-2"
    OUT_END_RULE: ClassVar[str] = "C-END-1"
    #: Whether wild cards and red threes (black threes under the option) freeze the pile.
    PILE_FREEZES: ClassVar[bool] = True
    #: The rule that refuses an addition when the team has no meld to add to.
    NO_MELD_RULE: ClassVar[str] = "C-MELD-3"
    #: The rules that may refuse taking the pile, and going out (a quiz offers these ids).
    TAKE_RULES: ClassVar[tuple[str, ...]] = (
        "C-PILE-3", "C-BLK-1", "C-PILE-6", "C-PILE-5", "C-PILE-2", "C-PILE-4", "C-FRZ-2",
    )  # fmt: skip
    OUT_RULES: ClassVar[tuple[str, ...]] = ("C-OUT-1", "C-OUT-5", "C-ASK-1", "C-OUT-4")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._build_dispatch()

    @classmethod
    def _build_dispatch(cls) -> None:
        cls._checkers = {k.move_type: getattr(cls, k.check) for k in MOVE_KINDS}
        cls._players = {k.move_type: getattr(cls, k.play) for k in MOVE_KINDS}

    # ------------------------------------------------------------------ creation

    def __init__(self, rules: RuleSet = CLASSIC4) -> None:
        """An empty table; use ``State.deal`` or ``notation.parse_position``."""
        n = rules.players
        self.rules = rules
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        self.stock = []
        self.pile = []
        self.pile_freezers = 0
        self.melds = [{}, {}]
        self.red_threes = [0, 0]
        self.down = [False, False]
        self.scores = [0, 0]
        self.dealer = n - 1
        self.current = 0
        self.phase = _DRAW_PHASE
        self.staged = {}
        self.has_melded = [False] * n
        self.melded_this_turn = False
        self.created_this_turn = set()
        self.took_pile = False
        self.asked = _NOT_ASKED
        self.penalties = [0, 0]
        self.end = None
        self.hand_number = 1
        self.known = [NOTHING_KNOWN] * n
        self.thrown = [0] * n
        self._events = None

    @classmethod
    def deal(
        cls,
        seed: int | str,
        rules: RuleSet | None = None,
        scores: Sequence[int] = (0, 0),
        dealer: int | None = None,
        hand_number: int = 1,
    ) -> Self:
        """Shuffle with ``seed`` and deal a hand (C-DEAL-1..3).

        The dealer defaults to the seat to the right of South, so South plays first.
        ``rules`` defaults to the class's own (``State``: ``CLASSIC4``).
        """
        state = cls() if rules is None else cls(rules)
        rules = state.rules
        n = rules.players
        state.scores = list(scores)
        state.dealer = (n - 1) if dealer is None else dealer % n
        state.hand_number = hand_number
        cards = state._new_deck()
        SplitMix64(seed).shuffle(cards)
        # The stock's top is the end of the list: deal one at a time from the top,
        # starting at the dealer's left (C-DEAL-1).
        first = (state.dealer + 1) % n
        for i in range(rules.hand_size * n):
            seat = (first + i) % n
            state.hands[seat][cards.pop()] += 1
        state._deal_rest(cards, first)
        state.current = first
        state._begin_turn(first)
        return state

    def _new_deck(self) -> list[int]:
        """The cards to shuffle, in a fixed order (C-DECK-1)."""
        return deck()

    def _deal_rest(self, cards: list[int], first: int) -> None:
        """After the hands: the rest is the stock, and the upcard is turned (C-DEAL-2)."""
        self.stock = cards
        self._turn_upcard()

    def _is_freezer(self, kind: int) -> bool:
        return kind <= RED3 or (kind == BLACK3 and self.rules.black_three_freezes)

    def _turn_upcard(self) -> None:
        """C-DEAL-2, C-DEAL-3: turn the upcard, covering wild cards and red threes."""
        while self.stock:
            card = self.stock.pop()
            self.pile.append(card)
            if self._is_freezer(card):
                self.pile_freezers += 1
            if self.rules.upcard_turn_until_natural:
                if card >= 4:
                    return
            elif card > RED3:
                return

    def copy(self) -> Self:
        cls = type(self)
        new = cls.__new__(cls)  # a variant's state extends this copy (``HandFootState``)
        new.rules = self.rules
        new.hands = [h[:] for h in self.hands]
        new.stock = self.stock[:]
        new.pile = self.pile[:]
        new.pile_freezers = self.pile_freezers
        # ``MeldGroup(...)`` rather than ``g.copy()``: one call less per meld (bots copy a lot).
        new.melds = [
            {r: MeldGroup(g.rank, g.naturals, g.jokers, g.twos) for r, g in team.items()}
            for team in self.melds
        ]
        new.red_threes = self.red_threes[:]
        new.down = self.down[:]
        new.scores = self.scores[:]
        new.dealer = self.dealer
        new.current = self.current
        new.phase = self.phase
        new.staged = (
            {r: MeldGroup(g.rank, g.naturals, g.jokers, g.twos) for r, g in self.staged.items()}
            if self.staged
            else {}
        )
        new.has_melded = self.has_melded[:]
        new.melded_this_turn = self.melded_this_turn
        new.created_this_turn = set(self.created_this_turn)
        new.took_pile = self.took_pile
        new.asked = self.asked
        new.penalties = self.penalties[:]
        new.end = self.end
        new.hand_number = self.hand_number
        new.known = self.known[:]  # tuples: shared, never changed in place
        new.thrown = self.thrown[:]
        new._events = None
        return new

    def determinize(self, seat: int, rng: SplitMix64) -> Self:
        """A copy with the cards hidden from ``seat`` dealt again with ``rng`` (OpenSpiel's
        ``resample_from_infostate``): the other hands (but for the cards every player saw
        go into them, ``known``), the stock, and any cards a variant keeps face down.

        Tested: ``player_view(s.determinize(seat, rng), seat) == player_view(s, seat)``, and
        every card is still there."""
        world = self.copy()
        others = [s for s in range(self.players) if s != seat]
        unseen: list[int] = []
        # Cards every player saw go into a hand (``State.known``) stay in that hand; only the
        # rest of each hand is dealt again.
        for other in others:
            known = self.known[other]
            for kind in range(NUM_KINDS):
                unseen.extend([kind] * (world.hands[other][kind] - known[kind]))
        unseen.extend(world._face_down_cards())
        unseen.extend(world.stock)
        # A red three never stays in a hand once its owner has played (C-RED-1): the unseen
        # red threes go back to the stock, and the hands are dealt from the other unseen cards.
        reds = [kind for kind in unseen if kind == RED3]
        pool = [kind for kind in unseen if kind != RED3]
        if len(pool) < sum(self.hand_size(other) - sum(self.known[other]) for other in others):
            pool, reds = unseen, []  # a deal before anyone has played: red threes may be in hands
        rng.shuffle(pool)
        at = 0
        for other in others:
            counts = list(self.known[other])
            size = self.hand_size(other) - sum(counts)
            for kind in pool[at : at + size]:
                counts[kind] += 1
            world.hands[other] = counts
            at += size
        rest = world._deal_face_down(pool[at:], reds, rng)
        stock = rest + reds if rest is not None else pool[at:] + reds
        rng.shuffle(stock)
        world.stock = stock
        return world

    def _face_down_cards(self) -> list[int]:
        """Cards no player sees besides the hands and the stock (none in Classic)."""
        return []

    def _deal_face_down(
        self, rest: list[int], reds: list[int], rng: SplitMix64
    ) -> list[int] | None:
        """``determinize``'s hook: deal the variant's face-down cards again from ``rest`` (the
        unseen cards the hands left) and ``reds`` (the unseen red threes, emptied when used),
        returning what is left for the stock; None: nothing face down (Classic)."""
        return None

    def snapshot(self) -> tuple[Any, ...]:
        """Everything that defines the state, as a comparable value (for tests)."""
        return (
            self.rules,
            tuple(tuple(h) for h in self.hands),
            tuple(self.stock),
            tuple(self.pile),
            self.pile_freezers,
            tuple(
                tuple(sorted((r, g.naturals, g.jokers, g.twos) for r, g in t.items()))
                for t in self.melds
            ),
            tuple(self.red_threes),
            tuple(self.down),
            tuple(self.scores),
            self.dealer,
            self.current,
            self.phase,
            tuple(sorted((r, g.naturals, g.jokers, g.twos) for r, g in self.staged.items())),
            tuple(self.has_melded),
            self.melded_this_turn,
            tuple(sorted(self.created_this_turn)),
            self.took_pile,
            self.asked,
            tuple(self.penalties),
            self.end,
            self.hand_number,
            tuple(self.known),
            tuple(self.thrown),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ queries

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def to_move(self) -> int:
        """The seat that must decide now (the partner, while a question is pending)."""
        if self.phase is _ANSWER_PHASE:
            return self.partner(self.current)
        return self.current

    @property
    def is_over(self) -> bool:
        return self.phase is _ENDED

    def team_of(self, seat: int) -> int:
        return TEAM_OF_SEAT[seat]

    def partner(self, seat: int) -> int:
        return seat_partner(seat, self.rules.players)

    def hand_size(self, seat: int) -> int:
        return sum(self.hands[seat])

    def hand_cards(self, seat: int) -> list[Kind]:
        return kinds_of(self.hands[seat])

    @property
    def pile_top(self) -> Kind | None:
        return Kind(self.pile[-1]) if self.pile else None

    def frozen_by(self, team: int) -> str | None:
        """Why the pile is frozen for ``team``, or None (C-FRZ-1, C-FRZ-2, C-BLK-1 option)."""
        if self.pile_freezers:
            kinds = set(self.pile)
            if JOKER in kinds or TWO in kinds:
                return "wild"
            if RED3 in kinds:
                return "red_three"
            return "black_three"
        if not self.down[team]:
            return "first_meld"
        return None

    def minimum(self, team: int) -> int:
        """C-MIN-1, C-MIN-3: what the team's first meld still needs (0 once it is down)."""
        if self.down[team]:
            return 0
        return self.rules.first_meld_minimum(self.scores[team])

    def opening_minimum(self, team: int) -> int:
        """What the team's first meld needs, down or not (C-MIN-1; Hand and Foot: the
        round's, H-MIN-1)."""
        return self.rules.first_meld_minimum(self.scores[team])

    def canastas(self, team: int) -> int:
        return sum(1 for g in self.melds[team].values() if g.size >= CANASTA_SIZE)

    def complete_piles(self, team: int) -> list[tuple[str, MeldGroup]]:
        """The team's finished piles that left its melds, each with its kind, oldest first
        (Hand and Foot's piles of seven, H-MELD-3); none in Classic, where a canasta stays a
        meld (C-CAN-1)."""
        return []

    def face_down_foot(self, seat: int) -> list[int] | None:
        """The counts of the seat's foot while it lies face down (Hand and Foot, H-DEAL-1);
        None once picked up, and in Classic, which deals no foot."""
        return None

    def variant_view(self, seat: int) -> dict[str, Any]:
        """What a variant adds to ``view.player_view`` for ``seat`` (Classic: only its name)."""
        return {"variant": self.rules.family}

    def staged_value(self) -> int:
        return sum(g.value for g in self.staged.values())

    def _staged_canastas(self) -> int:
        return sum(1 for g in self.staged.values() if g.size >= CANASTA_SIZE)

    def card_total(self) -> int:
        """All cards anywhere: always 108 (C-DECK-1); the property tests rely on it."""
        total = sum(sum(h) for h in self.hands) + len(self.stock) + len(self.pile)
        total += sum(g.size for t in self.melds for g in t.values())
        total += sum(g.size for g in self.staged.values())
        return total + sum(self.red_threes)

    # ------------------------------------------------------------------ checking

    def check(self, move: Move) -> Verdict:
        """Is ``move`` legal for the seat to move?  If not, the reason (rule id + facts)."""
        if self.phase is _ENDED:
            end = self.end or HandEnd("stock", self.current)
            # A hand that ran out of stock ended under C-END-2, not by a player going out.
            rule = self.STOCK_END_RULE if end.how == "stock" else self.OUT_END_RULE
            return refuse(
                "hand_over", rule, how=end.how, seat=seat_name(self.rules.players, end.seat)
            )
        checkers = self._checkers
        checker = checkers.get(type(move))
        if checker is None:
            # A subclass of a move type (the table holds the exact types).
            checker = next((c for t, c in checkers.items() if isinstance(move, t)), None)
            if checker is None:
                raise TypeError(f"not a move: {move!r}")
        return checker(self, move)

    def is_legal(self, move: Move) -> bool:
        return self.check(move).legal

    def _phase_refusal(self, want_meld_phase: bool) -> Verdict | None:
        if self.phase is _ANSWER_PHASE:
            return self._await_answer()
        if want_meld_phase and self.phase is _DRAW_PHASE:
            return refuse("draw_first", self.TURN_RULE)
        if not want_meld_phase and self.phase is _MELD_PHASE:
            return refuse("already_drew", self.TURN_RULE)
        return None

    def _await_answer(self) -> Verdict:
        partner = seat_name(self.rules.players, self.partner(self.current))
        return refuse("await_answer", "C-ASK-1", seat=partner)

    def _check_draw(self, move: Draw | None = None) -> Verdict:
        if self.phase is _DRAW_PHASE:
            return LEGAL
        bad = self._phase_refusal(False)
        return LEGAL if bad is None else bad

    def _check_answer(self, move: Answer) -> Verdict:
        if self.phase is not _ANSWER_PHASE:
            return refuse("no_question", "C-ASK-1")
        return LEGAL

    def _missing(self, cards: Sequence[int]) -> list[str] | None:
        """Cards named in a move that the hand does not hold (None when all are held)."""
        hand = self.hands[self.current]
        for k in cards:
            if k < 0 or cards.count(k) > hand[k]:
                break
        else:
            return None  # the usual answer, found without a count vector
        need = [0] * NUM_KINDS
        for k in cards:
            need[k] += 1
        missing: list[str] = []
        for k in range(NUM_KINDS):
            if need[k] > hand[k]:
                missing.extend([TOKENS[k]] * (need[k] - hand[k]))
        return missing or None

    def _may_go_out(self, canastas_after: Any, hand_after: int = 0) -> Verdict | None:
        """None when the current player may go out with this many team canastas.

        Each variant reads its first argument as it counts a team's progress toward going
        out: here, canastas (an int); Hand and Foot, its (clean, dirty, wild) piles.

        ``hand_after`` is what a meld, addition or pickup would leave in the hand: with one
        card left the player would have to discard it and go out, so C-OUT-5 refuses it
        when going out is not allowed."""
        if self.asked is _SAID_NO:
            return refuse("partner_said_no", "C-ASK-1", cards_left=hand_after)
        needed = self.rules.canastas_to_go_out
        if canastas_after < needed:
            if hand_after:
                return refuse("keep_a_card", "C-OUT-5", canastas=canastas_after,
                              needed=needed, cards_left=hand_after)  # fmt: skip
            return refuse("need_canasta", "C-OUT-1", canastas=canastas_after, needed=needed)
        return None

    def _meld_shape(
        self, rank: int, naturals: int, wilds: int, size_check: bool, cards: Sequence[int] = ()
    ) -> Verdict | None:
        reason = group_shape(self.rules, rank, naturals, wilds, size_check, cards)
        return None if reason is None else Verdict(reason)

    def _after_meld(self, hand_after: int, value: int, canasta_made: bool) -> Verdict | None:
        """Going-out and first-meld checks shared by Meld and Add in the meld phase.

        ``value`` is the card value the move adds; ``canasta_made`` says whether the move
        turns a meld into a canasta (or lays one).
        """
        team = TEAM_OF_SEAT[self.current]
        if self.down[team]:
            if hand_after < 2:
                return self._may_go_out(self.canastas(team) + canasta_made, hand_after)
            return None
        if self.phase is _DRAW_PHASE:
            return None  # set aside only; it goes down with the pile or after the draw
        total = self.staged_value() + value
        if total < self.minimum(team):
            if hand_after == 0:
                # Everything set aside, below the minimum: nothing could go down.
                return refuse("below_minimum", "C-MIN-4", needed=self.minimum(team),
                              have=total)  # fmt: skip
            return None
        if hand_after < 2:
            return self._may_go_out(self._staged_canastas() + canasta_made, hand_after)
        return None

    def _meld_phase_refusal(self, team: int) -> Verdict | None:
        """Melds and additions come after the draw, except a first meld set aside before it."""
        if self.phase is _DRAW_PHASE and self.down[team]:
            return refuse("draw_first", self.TURN_RULE)
        if self.phase is _ANSWER_PHASE:
            return self._await_answer()
        return None

    def _check_meld(self, move: Meld) -> Verdict:
        team = TEAM_OF_SEAT[self.current]
        if self.phase is not _MELD_PHASE:
            bad = self._meld_phase_refusal(team)
            if bad is not None:
                return bad
        cards = move.cards
        if not cards:
            return refuse("no_cards", "C-MELD-1")
        missing = self._missing(cards)
        if missing:
            return refuse("not_in_hand", "C-TURN-2", cards=missing)
        # A card of a rank the team has melded goes onto that meld: say so before judging the
        # cards as a meld of their own (C-MELD-3).
        existing = self.melds[team] if self.down[team] else self.staged
        rank = max(cards)
        if rank > BLACK3 and rank not in existing:
            # Naturals of one rank and wild cards (what ``legal_moves`` offers): the shape,
            # then the turn decide, as below, without sorting the cards into ranks.
            naturals = cards.count(rank)
            jokers = cards.count(JOKER)
            twos = len(cards) - naturals - jokers
            if twos == cards.count(TWO):
                wilds = jokers + twos
                rules = self.rules
                if (
                    naturals + wilds < 3
                    or naturals < 2
                    or wilds > rules.max_wilds
                    or (rules.two_naturals_per_wild and naturals < 2 * wilds)
                ):  # ``group_shape`` has something to say
                    shape = group_shape(rules, rank, naturals, wilds, True, cards)
                    if shape is not None:
                        return Verdict(shape)
                hand_after = sum(self.hands[self.current]) - len(cards)
                if hand_after >= 2 and self.down[team]:
                    return LEGAL  # ``_meld_verdict``'s answer, sooner
                value = naturals * VALUES[rank] + jokers * VALUES[JOKER] + twos * VALUES[TWO]
                return self._meld_verdict(hand_after, value, len(cards) >= CANASTA_SIZE)
        problem = new_meld_shape(self.rules, cards)
        if problem is not None and (rank not in existing or problem.code == "mixed_ranks"):
            return Verdict(problem)
        if rank in existing:
            return refuse("rank_already_melded", "C-MELD-3", rank=_tok(rank),
                          set_aside=not self.down[team])  # fmt: skip
        hand_after = self.hand_size(self.current) - len(cards)
        if rank == BLACK3:
            going_out = hand_after <= 1 and self.phase is _MELD_PHASE
            if going_out:
                if not self.down[team]:
                    total = self.staged_value() + 5 * len(cards)
                    if total < self.minimum(team):
                        return refuse("below_minimum", "C-MIN-4", needed=self.minimum(team),
                                      have=total)  # fmt: skip
                    blocked = self._may_go_out(self._staged_canastas())
                else:
                    blocked = self._may_go_out(self.canastas(team))
                if blocked is not None:
                    return blocked
                return LEGAL
            return refuse("black_threes_only_going_out", "C-OUT-4")
        return self._meld_verdict(
            hand_after, sum(VALUES[k] for k in cards), len(cards) >= CANASTA_SIZE
        )

    def _check_add(self, move: Add) -> Verdict:
        team = TEAM_OF_SEAT[self.current]
        if self.phase is not _MELD_PHASE:
            bad = self._meld_phase_refusal(team)
            if bad is not None:
                return bad
        cards = move.cards
        rank = int(move.rank)
        target = (self.melds[team] if self.down[team] else self.staged).get(rank)
        if target is None:
            return refuse("no_such_meld", "C-MELD-3", rank=_tok(rank),
                          set_aside=not self.down[team])  # fmt: skip
        if not cards:
            return refuse("no_cards", "C-MELD-1")
        missing = self._missing(cards)
        if missing:
            return refuse("not_in_hand", "C-TURN-2", cards=missing)
        naturals = cards.count(rank)
        jokers = cards.count(JOKER)
        twos = cards.count(TWO)
        if rank <= BLACK3 or naturals + jokers + twos != len(cards):
            # Another kind among the cards (or a meld of threes): the refusals, in order.
            if RED3 in cards:
                return refuse("red_three_meld", "C-MELD-4")
            wrong = sorted({k for k in cards if k >= BLACK3 and k != rank}, reverse=True)
            if wrong:
                return refuse("wrong_rank", "C-MELD-1", rank=_tok(rank), cards=_toks(wrong))
            if rank == BLACK3:
                return refuse("black_threes_only_going_out", "C-OUT-4")
        wilds = len(cards) - naturals
        rules = self.rules
        group_naturals = target.naturals + naturals
        group_wilds = target.jokers + target.twos + wilds
        if (
            group_naturals < 2
            or group_wilds > rules.max_wilds
            or (rules.two_naturals_per_wild and group_naturals < 2 * group_wilds)
        ):  # ``group_shape`` has something to say
            bad = self._meld_shape(rank, group_naturals, group_wilds, False)
            if bad is not None:
                return bad
        hand_after = sum(self.hands[self.current]) - len(cards)
        if hand_after >= 2 and self.down[team]:
            return LEGAL  # ``_meld_verdict``'s answer, sooner
        size = target.naturals + target.jokers + target.twos
        makes = size < CANASTA_SIZE <= size + len(cards)
        value = naturals * VALUES[rank] + jokers * VALUES[JOKER] + twos * VALUES[TWO]
        if naturals + jokers + twos != len(cards):
            value = sum(VALUES[k] for k in cards)
        return self._meld_verdict(hand_after, value, makes)

    def _meld_verdict(self, hand_after: int, value: int, canasta_made: bool) -> Verdict:
        """The verdict on a well-shaped meld or addition: refused by ``_after_meld``, legal
        with a note while it is only set aside (below the first-meld minimum), or legal."""
        team = TEAM_OF_SEAT[self.current]
        if self.down[team]:
            # ``_after_meld`` for a team that is down (and no note to give).
            if hand_after < 2:
                blocked = self._may_go_out(self.canastas(team) + canasta_made, hand_after)
                if blocked is not None:
                    return blocked
            return LEGAL
        bad = self._after_meld(hand_after, value, canasta_made)
        if bad is not None:
            return bad
        have = self.staged_value() + value
        if self.phase is _DRAW_PHASE or have < self.minimum(team):
            note = Reason("set_aside", "C-MIN-4", {"needed": self.minimum(team), "have": have})
            return Verdict(note=note)
        return LEGAL

    def _check_take(self, move: TakePile) -> Verdict:
        if self.phase is not _DRAW_PHASE:
            bad = self._phase_refusal(False)
            if bad is not None:
                return bad
        pile = self.pile
        if not pile:
            return refuse("pile_empty", "C-TURN-1")
        seat = self.current
        team = TEAM_OF_SEAT[seat]
        top = pile[-1]
        if top == BLACK3:
            return refuse("black_three_on_top", "C-BLK-1")
        if top <= TWO:
            return refuse("wild_on_top", "C-PILE-2", card=_tok(top))
        if top == RED3:
            # No rule names a red three on top (C-DEAL-3 covers one as the upcard), but the
            # top card must be melded (C-PILE-1) and a red three never is (C-MELD-4).
            return refuse("red_three_on_top", "C-MELD-4", card=_tok(top))
        held = sum(self.hands[seat])
        if held == 1 and len(pile) == 1:
            return refuse("one_card_one_pile", "C-PILE-5")
        cards = move.cards
        missing = self._missing(cards)
        if missing:
            # The top card is melded "with cards from hand" (C-PILE-1).
            return refuse("not_in_hand", "C-PILE-1", cards=missing)
        naturals = cards.count(top)
        if naturals + cards.count(JOKER) + cards.count(TWO) != len(cards):
            wrong = sorted({k for k in cards if k >= RED3 and k != top}, reverse=True)
            if wrong:
                return refuse("wrong_rank", "C-MELD-1", rank=_tok(top), cards=_toks(wrong))
        wilds = len(cards) - naturals
        down = self.down[team]
        # ``frozen_by(team) is not None``, without naming why until a refusal needs it.
        needs_pair = bool(self.pile_freezers or not down) and naturals < 2
        existing = (self.melds[team] if down else self.staged).get(top)
        if needs_pair or (existing is None and (naturals < 1 or naturals + 1 + wilds < 3)):
            hand = self.hands[seat]
            facts = {
                "offered": _toks(cards),  # what the player chose to take it with
                "rank": _tok(top),
                "naturals_held": hand[top],
                "jokers_held": hand[JOKER],
                "twos_held": hand[TWO],
            }
            if needs_pair:
                return refuse("frozen_needs_pair", "C-PILE-3", frozen_by=self.frozen_by(team),
                              **facts)  # fmt: skip
            # Only an unfrozen pile gets here (a frozen one was refused above).
            return refuse("take_needs_pair_or_meld", "C-PILE-4", **facts)
        if existing is None:
            group_naturals, group_wilds = naturals + 1, wilds
        else:
            group_naturals = existing.naturals + naturals + 1
            group_wilds = existing.jokers + existing.twos + wilds
        rules = self.rules
        if (
            group_naturals < 2
            or group_wilds > rules.max_wilds
            or (rules.two_naturals_per_wild and group_naturals < 2 * group_wilds)
        ):  # ``group_shape`` has something to say (the size is right: checked above)
            if existing is None:
                bad = self._meld_shape(top, group_naturals, group_wilds, True, (top, *cards))
            else:
                bad = self._meld_shape(top, group_naturals, group_wilds, False)
            if bad is not None:
                return bad
        if not down:
            have = self.staged_value() + VALUES[top] + sum(VALUES[k] for k in cards)
            need = self.minimum(team)
            if have < need:
                return refuse("below_minimum", "C-PILE-6", needed=need, have=have)
        hand_after = held - len(cards) + len(pile) - 1 - pile.count(RED3)  # top: no red three
        if hand_after < 2:
            group_size = (existing.size if existing else 0) + 1 + len(cards)
            before = existing.size if existing else 0
            canastas = (self.canastas(team) if down else self._staged_canastas()) + (
                before < CANASTA_SIZE <= group_size
            )
            blocked = self._may_go_out(canastas, hand_after)
            if blocked is not None:
                return blocked
        return LEGAL

    def _check_discard(self, move: Discard) -> Verdict:
        if self.phase is _MELD_PHASE and not self.staged:
            # The common case, without the staged cards' counts.
            hand = self.hands[self.current]
            card = int(move.card)
            if hand[card] < 1:
                return refuse("not_in_hand", "C-TURN-3", cards=[_tok(card)])
            if sum(hand) == 1:
                blocked = self._may_go_out(self.canastas(TEAM_OF_SEAT[self.current]))
                if blocked is not None:
                    return blocked
            return LEGAL
        bad = self._phase_refusal(True)
        if bad is not None:
            return bad
        seat = self.current
        card = int(move.card)
        staged = self._staged_counts()
        if self.hands[seat][card] + staged[card] < 1:
            return refuse("not_in_hand", "C-TURN-3", cards=[_tok(card)])
        left = self.hand_size(seat) + sum(staged) - 1
        if left == 0:
            blocked = self._may_go_out(self.canastas(TEAM_OF_SEAT[seat]))
            if blocked is not None:
                return blocked
        return LEGAL

    def _staged_counts(self) -> list[int]:
        counts = [0] * NUM_KINDS
        for g in self.staged.values():
            counts[g.rank] += g.naturals
            counts[JOKER] += g.jokers
            counts[TWO] += g.twos
        return counts

    def _check_lay_down(self, move: LayDown) -> Verdict:
        # Classic has no lay-down step: the cards set aside go down by themselves once they
        # reach the minimum (C-MIN-4).  Hand and Foot has one (``handfoot.py``).
        return refuse("lay_down_classic", "C-MIN-4")

    def _do_lay_down(self, move: LayDown) -> None:
        # Never reached: ``_check_lay_down`` refuses every lay-down in Classic.
        raise IllegalMove(move, self._check_lay_down(move).reason)

    def _check_ask(self, move: AskPartner | None = None) -> Verdict:
        if self.rules.players != 4:
            return refuse("ask_off", "C-ASK-1", why="two_players")
        if not self.rules.ask_partner:
            return refuse("ask_off", "C-ASK-1", why="option_off")
        bad = self._phase_refusal(True)
        if bad is not None:
            return bad
        if self.asked is not _NOT_ASKED:
            return refuse("already_asked", "C-ASK-1")
        # Taking the pile melds its top card, so a player who took it has melded already.
        if self.melded_this_turn or self.staged or self.took_pile:
            return refuse("ask_before_melding", "C-ASK-1")
        return LEGAL

    # ------------------------------------------------------------------ applying

    def apply(self, move: Move) -> Verdict:
        """Check ``move``; if legal, play it.  A refused move changes nothing."""
        kind = type(move)
        checker = self._checkers.get(kind)
        if checker is None or self.phase is _ENDED:
            verdict = self.check(move)
            if verdict.reason is None:
                self._play(move)
            return verdict
        # ``check`` and ``_play`` for a move of an exact move type, each one call shorter:
        # random play spends a third of its time here.
        verdict = checker(self, move)
        if verdict.reason is None:
            self._players[kind](self, move)
        return verdict

    def apply_with_events(self, move: Move) -> tuple[Verdict, list[Event]]:
        """``apply``, and what happened, in order (none when the move is refused)."""
        verdict = self.check(move)
        if not verdict.legal:
            return verdict, []
        self._events = []
        try:
            self._play(move)
            return verdict, self._events
        finally:
            self._events = None

    def _event(self, code: str, seat: int, **params: Any) -> None:
        if self._events is not None:
            self._events.append(Event(code, seat, params))

    def play(self, move: Move) -> None:
        """Play a move known to be legal (as ``legal_moves`` gives them); raises otherwise."""
        verdict = self.apply(move)
        if verdict.reason is not None:
            raise IllegalMove(move, verdict.reason)

    def _play(self, move: Move) -> None:
        players = self._players
        player = players.get(type(move))
        if player is None:
            # A subclass of a move type (the table holds the exact types).
            player = next(p for t, p in players.items() if isinstance(move, t))
        player(self, move)

    def _leave_hand(self, seat: int, cards: Sequence[int]) -> None:
        """``cards`` leave ``seat``'s hand (melded, added, or with the pile's top card)."""
        hand = self.hands[seat]
        for card in cards:
            hand[card] -= 1
        if self.known[seat] is not NOTHING_KNOWN:
            self._forget(seat, cards)

    def _forget(self, seat: int, cards: Sequence[int]) -> None:
        """Cards left ``seat``'s hand: as many known ones are no longer known to be there
        (nobody can tell a known card from an unknown one of the same kind)."""
        known = self.known[seat]
        if known is NOTHING_KNOWN:
            return
        counts = list(known)
        for k in cards:
            if counts[k]:
                counts[k] -= 1
        self.known[seat] = tuple(counts) if any(counts) else NOTHING_KNOWN

    def _learn(self, seat: int, cards: Sequence[int]) -> None:
        """Every player saw these cards go into ``seat``'s hand."""
        if not cards:
            return
        counts = list(self.known[seat])
        for k in cards:
            counts[k] += 1
        self.known[seat] = tuple(counts)

    def _do_ask(self, move: AskPartner) -> None:
        self.asked = _PENDING
        self.phase = _ANSWER_PHASE
        self._event("asked", self.current)

    def _do_answer(self, move: Answer) -> None:
        self.asked = _SAID_YES if move.yes else _SAID_NO
        self.phase = _MELD_PHASE
        self._event("answered", self.partner(self.current), yes=move.yes)

    def _red_three_event(self, seat: int, source: str, replacement: int | None) -> None:
        """A red three went down; ``replacement``: the card from the stock that took its place
        (None: nothing did), which only ``seat`` sees."""
        if self._events is None:
            return
        params = {"count": 1, "source": source, "replaced": replacement is not None}
        private = {} if replacement is None else {"card": TOKENS[replacement]}
        self._events.append(Event("red_three", seat, params, private))

    def _lay_red_three(self, seat: int) -> bool:
        """Lay a red three held in the hand and draw its replacement; False when the hand
        ended (C-END-2)."""
        self.red_threes[TEAM_OF_SEAT[seat]] += 1
        if not self.stock:
            self._red_three_event(seat, "dealt", None)
            return True
        card = self.stock.pop()
        self._red_three_event(seat, "dealt", card)
        while card == RED3:
            self.red_threes[TEAM_OF_SEAT[seat]] += 1
            if not self.stock:
                self._red_three_event(seat, "drawn", None)
                self._end_hand("stock", seat)
                return False
            card = self.stock.pop()
            self._red_three_event(seat, "drawn", card)
        self.hands[seat][card] += 1
        return True

    def _begin_turn(self, seat: int) -> None:
        self.current = seat
        if self._events is not None:
            self._event("turn", seat)
        self.phase = _DRAW_PHASE
        self.melded_this_turn = False
        if self.created_this_turn:
            self.created_this_turn = set()
        self.took_pile = False
        self.asked = _NOT_ASKED
        # C-RED-1: red threes dealt into the hand go down before the first draw.
        self._lay_red_threes_in_hand(seat)

    def _lay_red_threes_in_hand(self, seat: int) -> None:
        """Every red three in ``seat``'s hand goes down and is replaced from the stock (C-RED-1,
        H-RED-1); the hand may end on the way (C-END-2)."""
        hand = self.hands[seat]
        while hand[RED3]:
            hand[RED3] -= 1
            if not self._lay_red_three(seat):
                return

    def _do_draw(self, move: Draw | None = None) -> None:
        seat = self.current
        stock = self.stock
        if not stock:
            self._end_hand("stock", seat)  # C-END-2
            return
        count = self.rules.draw_count
        hand = self.hands[seat]
        if count == 1 and stock[-1] != RED3:
            # The common draw: one card, not a red three.
            hand[stock.pop()] += 1
            if self._events is not None:
                self._event("drew", seat, count=1)
            self.phase = _MELD_PHASE
            if self.staged:
                self._commit_staged_if_ready()
            return
        drawn = 0
        for _ in range(count):
            if not self.stock:
                break  # C-TWO-2, H-TURN-1: the last card is the whole draw
            card = self.stock.pop()
            while card == RED3:  # C-RED-1, H-RED-1: laid down at once and replaced
                self.red_threes[TEAM_OF_SEAT[seat]] += 1
                if not self.stock:
                    self._red_three_event(seat, "drawn", None)
                    if drawn:
                        self._event("drew", seat, count=drawn)
                    self._end_hand("stock", seat)  # C-END-2: a red three as last card
                    return
                card = self.stock.pop()
                self._red_three_event(seat, "drawn", card)
            hand[card] += 1
            drawn += 1
        self._event("drew", seat, count=drawn)
        self.phase = _MELD_PHASE
        if self.staged:
            self._commit_staged_if_ready()

    def _commit_staged_if_ready(self) -> None:
        """C-MIN-4: the cards set aside go down by themselves once they reach the minimum."""
        team = TEAM_OF_SEAT[self.current]
        if not self.staged or self.down[team]:
            return
        if self.staged_value() < self.minimum(team):
            return
        stranded = self._may_go_out(self._staged_canastas()) is not None
        if self.hand_size(self.current) < 2 and stranded:
            return  # going down would strand the player; it stays set aside
        self._commit_staged()

    def _commit_staged(self) -> None:
        team = TEAM_OF_SEAT[self.current]
        if self.staged:
            self._event("went_down", self.current)
        for rank, group in self.staged.items():
            self.melds[team][rank] = group
            self.created_this_turn.add(rank)
        self.staged = {}
        self.down[team] = True
        self.melded_this_turn = True

    def _do_take(self, move: TakePile) -> None:
        cards = move.cards
        seat = self.current
        team = TEAM_OF_SEAT[seat]
        hand = self.hands[seat]
        self._leave_hand(seat, cards)
        size = len(self.pile)
        top = self.pile.pop()
        if self._events is not None:
            self._event("took_pile", seat, size=size, top=TOKENS[top],
                        cards=[TOKENS[k] for k in cards],
                        gained=gained_tokens(self.pile))  # fmt: skip
        naturals = 1 + cards.count(top)
        jokers = cards.count(JOKER)
        twos = cards.count(TWO)
        if not self.down[team]:
            self._commit_staged()
        group = self.melds[team].get(top)
        if group is None:
            self.melds[team][top] = MeldGroup(top, naturals, jokers, twos)
            self.created_this_turn.add(top)
        else:
            group.naturals += naturals
            group.jokers += jokers
            group.twos += twos
        self.down[team] = True
        self.has_melded[seat] = True
        if RED3 in self.pile:
            for k in self.pile:
                if k == RED3:
                    self.red_threes[team] += 1  # C-RED-1: no replacement
                    self._red_three_event(seat, "pile", None)
                else:
                    hand[k] += 1
            self._learn(seat, [k for k in self.pile if k != RED3])
        else:
            for k in self.pile:
                hand[k] += 1
            self._learn(seat, self.pile)
        self.pile = []
        self.pile_freezers = 0  # C-FRZ-3
        self.took_pile = True
        self.phase = _MELD_PHASE
        if sum(hand) == 0:
            self._go_out()

    def _do_meld(self, move: Meld) -> None:
        cards = move.cards
        seat = self.current
        team = TEAM_OF_SEAT[seat]
        self._leave_hand(seat, cards)
        rank = max(cards)
        naturals = cards.count(rank)
        jokers = cards.count(JOKER)
        group = MeldGroup(rank, naturals, jokers, len(cards) - naturals - jokers)
        if self._events is not None:
            self._event("melded" if self.down[team] else "set_aside", seat,
                        cards=[TOKENS[k] for k in cards])  # fmt: skip
        if self.down[team]:
            self.melds[team][rank] = group
            self.created_this_turn.add(rank)
            self.melded_this_turn = True
        else:
            self.staged[rank] = group
            if self.phase is _MELD_PHASE:
                self._commit_staged_if_ready()
        if sum(self.hands[seat]) == 0 and not self.staged:
            self._go_out()

    def _do_add(self, move: Add) -> None:
        rank = int(move.rank)
        cards = move.cards
        seat = self.current
        team = TEAM_OF_SEAT[seat]
        self._leave_hand(seat, cards)
        if self._events is not None:
            self._event("added", seat, rank=TOKENS[rank], cards=[TOKENS[k] for k in cards])
        group = (self.melds[team] if self.down[team] else self.staged)[rank]
        jokers = cards.count(JOKER)
        twos = cards.count(TWO)
        group.jokers += jokers
        group.twos += twos
        group.naturals += len(cards) - jokers - twos
        if self.down[team]:
            self.melded_this_turn = True
        elif self.phase is _MELD_PHASE:
            self._commit_staged_if_ready()
        if sum(self.hands[seat]) == 0 and not self.staged:
            self._go_out()

    def _return_staged(self) -> None:
        hand = self.hands[self.current]
        if self.staged and self._events is not None:
            back = [TOKENS[k] for g in self.staged.values() for k in g.cards()]
            self._event("taken_back", self.current, cards=back)
        for group in self.staged.values():
            hand[group.rank] += group.naturals
            hand[JOKER] += group.jokers
            hand[TWO] += group.twos
        if self.staged:
            # They lay face up on the table: everyone saw them go back (C-MIN-4).
            self._learn(self.current, [k for g in self.staged.values() for k in g.cards()])
        self.staged = {}

    def _do_discard(self, move: Discard) -> None:
        card = int(move.card)
        seat = self.current
        if self.staged:
            self._return_staged()  # C-MIN-4: below the minimum, nothing goes down
        hand = self.hands[seat]
        hand[card] -= 1
        self.pile.append(card)
        if self.known[seat] is not NOTHING_KNOWN:
            self._forget(seat, (card,))
        self.thrown[seat] |= 1 << card
        if self._events is not None:
            self._event("discarded", seat, card=TOKENS[card])
        if self.PILE_FREEZES and (
            card <= RED3 or (card == BLACK3 and self.rules.black_three_freezes)
        ):
            self.pile_freezers += 1  # as ``_is_freezer``, inlined
        if sum(hand) == 0 and self._out_with_empty_hand(seat):
            self._go_out()
            return
        # The turn ends.
        if self.asked is _SAID_YES:
            self.penalties[TEAM_OF_SEAT[seat]] += 100  # C-ASK-1: said yes, did not go out
            self._event("penalty", seat, points=100)
        if self.melded_this_turn:
            self.has_melded[seat] = True
        self._begin_turn((seat + 1) % self.rules.players)

    def _out_with_empty_hand(self, seat: int) -> bool:
        """Whether a seat whose discard empties its hand goes out (always, in Classic)."""
        return True

    def _go_out(self) -> None:
        seat = self.current
        concealed = (
            not self.has_melded[seat]
            and not self.took_pile
            and any(
                self.melds[TEAM_OF_SEAT[seat]][r].size >= CANASTA_SIZE
                for r in self.created_this_turn
            )
        )
        self._end_hand("concealed" if concealed else "out", seat)

    def _end_hand(self, how: str, seat: int) -> None:
        self._return_staged()
        self.end = HandEnd(how, seat)
        self.phase = _ENDED
        self._event("hand_over", seat, how=how, **self._hand_over_facts())

    def _hand_over_facts(self) -> dict[str, Any]:
        """What a ``hand_over`` event says besides how the hand ended (a variant's round)."""
        return {}

    # ------------------------------------------------------------------ legal moves

    def legal_moves(self) -> list[Move]:
        """Every legal move, in a stable order: draw, take, meld, add, ask, answer, discard.

        Cards in a move are in canonical order (``moves.canonical``), one move per distinct
        combination of kinds.
        """
        # The hottest code of random play and of the bots' search, so melds and additions
        # are generated here rather than in helpers: a Python call costs as much as a dozen
        # lines.  Where only the shape of a meld or addition decides, its moves come from
        # tables filled on first use; other ranks go through the ``_legal_*`` helpers, which
        # inline ``check``'s conditions.  tests/test_engine_speed_equivalence.py pins the
        # list, in order, to "every candidate move that ``check`` calls legal".
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
        # The move tables stop at three wild cards (``rules.INT_RANGES``).
        jokers = hand[JOKER]
        jokers = 3 if jokers > 3 else jokers
        twos = hand[TWO]
        twos = 3 if twos > 3 else twos
        out: list[Move]
        if phase is _DRAW_PHASE:
            out = [DRAW]
            self._legal_takes(out, hand, held_total, jokers, twos, down, team)
            if down:
                return out  # melds wait for the draw once the team is down
        else:
            out = []
        rules = self.rules
        existing = self.melds[team] if down else self.staged
        per_wild = 1 if rules.two_naturals_per_wild else 0
        max_wilds = rules.max_wilds
        max_wilds = 0 if max_wilds < 0 else 3 if max_wilds > 3 else max_wilds  # the tables' 0-3
        # A meld or addition that leaves two cards or more is legal when well shaped (for a
        # team not down too: it is set aside, C-MIN-4); one that leaves fewer is legal when
        # well shaped if the team may go out already.  Asked when first needed.
        out_ok: bool | None = None if down else False
        # New melds: C-MELD-1, C-MELD-2 (black threes only going out, C-OUT-4).
        by_twos = _MELD_TABLES[per_wild][max_wilds][jokers]
        shapes = by_twos[twos]
        if shapes is None:
            shapes = by_twos[twos] = _new_table()
        spare = held_total - jokers - twos  # kept beyond one rank's naturals and all wilds
        for rank in _MELD_KINDS:
            held = hand[rank]
            if held < 2 or rank in existing:
                continue
            if rank == BLACK3:
                if held > 2 and held_total - held < 2:
                    # Black threes go down only going out (C-OUT-4): when all of them leave
                    # a card or none.
                    self._legal_melds_of(out, rank, held, jokers, twos, max_wilds)
                continue
            if spare - held < 2 and out_ok is None:
                out_ok = self._may_go_out(self.canastas(team)) is None
            if (spare - held >= 2 or out_ok) and held <= _MAX_HELD:
                row = shapes[rank]
                moves = row[held]
                if moves is None:
                    moves = row[held] = _all_melds(rank, held, jokers, twos, per_wild, max_wilds)
                out.extend(moves)
            else:
                self._legal_melds_of(out, rank, held, jokers, twos, max_wilds)
        # Additions to the team's melds (or to those set aside): C-MELD-3.
        if existing:
            wilds_held = jokers + twos
            add_tables = _ADD_TABLES[jokers][twos]
            may_out: dict[int, bool] = {}  # shared by the slow additions
            for rank in sorted(existing):
                held = hand[rank]
                if not (held or wilds_held) or rank == BLACK3:
                    continue  # nothing to add
                group = existing[rank]
                room = rules.max_wilds - group.jokers - group.twos
                room = 0 if room < 0 else 3 if room > 3 else room
                if not (held or room):
                    continue
                keeps = held_total - held - (wilds_held if wilds_held < room else room)
                if keeps < 2 and out_ok is None:
                    out_ok = self._may_go_out(self.canastas(team)) is None
                if (keeps >= 2 or out_ok) and not per_wild and held <= _MAX_HELD:
                    table = add_tables[room]
                    if table is None:
                        table = add_tables[room] = _new_table()
                    row = table[rank]
                    moves = row[held]
                    if moves is None:
                        moves = row[held] = _all_adds(rank, held, room, jokers, twos)
                    out.extend(moves)
                else:
                    self._legal_adds_to(out, group, held, held_total, jokers, twos, room, may_out)
        if phase is _DRAW_PHASE:
            return out
        if self.asked is _NOT_ASKED and rules.ask_partner and self._may_ask():  # call if needed
            out.append(ASK)
        if held_total > 1 and not self.staged:
            # ``_legal_discards`` when going out is not in question: the kinds held,
            # highest first.
            out.extend(compress(_DISCARDS_HIGH_TO_LOW, reversed(hand)))
        else:
            self._legal_discards(out, hand, held_total)
        return out

    def _may_ask(self) -> bool:
        """``_check_ask().legal`` in the meld phase, without building the refusal."""
        rules = self.rules
        return (
            rules.players == 4
            and rules.ask_partner
            and self.asked is _NOT_ASKED
            and not (self.melded_this_turn or self.staged or self.took_pile)
        )

    # The helpers below take what ``legal_moves`` looked up: the hand of the player to move,
    # its size, its jokers and 2s (at most 3 each), whether the team is down, the team.

    def _legal_takes(
        self, out: list[Move], hand: list[int], held_total: int, jokers: int, twos: int,
        down: bool, team: int,
    ) -> None:  # fmt: skip
        # ``_check_take``'s conditions, inlined for speed; tests pin the two together.
        pile = self.pile
        if not pile:
            return
        top = pile[-1]
        if top <= BLACK3:
            return  # C-PILE-2, C-BLK-1
        held = hand[top]
        frozen = bool(self.pile_freezers) or not down  # ``frozen_by(team) is not None``
        if frozen and held < 2:
            return  # C-PILE-3
        if held_total == 1 and len(pile) == 1:
            return  # C-PILE-5
        rules = self.rules
        existing = (self.melds[team] if down else self.staged).get(top)
        e_wild = existing.jokers + existing.twos if existing is not None else 0
        pile_gain = len(pile) - 1 - pile.count(RED3)  # the top is no red three
        room = rules.max_wilds - e_wild
        room = 0 if room < 0 else 3 if room > 3 else room  # the tables' 0 to 3
        wilds_held = jokers + twos
        if (
            down
            and not rules.two_naturals_per_wild
            and held_total - held - (wilds_held if wilds_held < room else room) + pile_gain >= 2
        ):
            # Every pickup leaves two cards or more and the team is down: only the shape
            # decides, and shapes repeat.
            out.extend(_all_takes(top, held, room, jokers, twos, frozen, existing is not None))
            return
        e_nat, e_size = (existing.naturals, existing.size) if existing else (0, 0)
        need = 0 if down else self.minimum(team)
        base_value = 0 if down else self.staged_value() + VALUES[top]
        canastas = self.canastas(team) if down else self._staged_canastas()
        top_value = VALUES[top]
        for j, t in _WILD_OPTIONS[jokers][twos][room]:
            for n in range(held + 1):
                size = n + j + t
                if frozen and n < 2:
                    continue
                if existing is None:
                    if n < 1 or size + 1 < 3:
                        continue
                elif size == 0 and frozen:
                    continue
                naturals = e_nat + n + 1
                wilds = e_wild + j + t
                if rules.two_naturals_per_wild and naturals < 2 * wilds:
                    continue
                if not down and base_value + n * top_value + 50 * j + 20 * t < need:
                    continue
                hand_after = held_total - size + pile_gain
                if hand_after < 2:
                    made = e_size < CANASTA_SIZE <= e_size + 1 + size
                    if self._may_go_out(canastas + made, hand_after) is not None:
                        continue
                out.append(cached_move("take", top, n, j, t))

    def _legal_melds_of(
        self, out: list[Move], rank: int, held: int, jokers: int, twos: int, max_wilds: int
    ) -> None:
        """New melds of ``rank`` when more than their shape decides (``_check_meld``)."""
        if rank == BLACK3:
            for n in range(3, held + 1):
                move = Meld((Kind.BLACK_THREE,) * n)
                if self._check_meld(move).legal:
                    out.append(move)
            return
        per_wild = self.rules.two_naturals_per_wild
        for n in range(2, held + 1):
            for j, t in _WILD_OPTIONS[jokers][twos][max_wilds]:
                if n + j + t < 3:
                    continue
                if per_wild and n < 2 * (j + t):
                    continue
                if self._check_meld_fast(rank, n, j, t):
                    out.append(cached_move("meld", rank, n, j, t))

    def _check_meld_fast(self, rank: int, n: int, j: int, t: int) -> bool:
        """The going-out and minimum part of ``_check_meld`` (shape already known good)."""
        hand_after = self.hand_size(self.current) - n - j - t
        if hand_after >= 2 and self.down[TEAM_OF_SEAT[self.current]]:
            return True
        value = n * VALUES[rank] + 50 * j + 20 * t
        return self._after_meld(hand_after, value, n + j + t >= CANASTA_SIZE) is None

    def _legal_adds_to(
        self, out: list[Move], group: MeldGroup, held: int, held_total: int, jokers: int,
        twos: int, room: int, may_out: dict[int, bool],
    ) -> None:  # fmt: skip
        """Additions to ``group`` when more than their shape decides: the shape and going-out
        conditions of ``_check_add``.  ``may_out`` caches ``_may_go_out`` by canastas."""
        team = TEAM_OF_SEAT[self.current]
        down = self.down[team]
        rank = group.rank
        per_wild = self.rules.two_naturals_per_wild
        before = group.size
        for j, t in _WILD_OPTIONS[jokers][twos][room]:
            for n in range(held + 1):
                size = n + j + t
                if size == 0:
                    continue
                if per_wild and group.naturals + n < 2 * (group.wilds + j + t):
                    continue
                hand_after = held_total - size
                if down and hand_after >= 2:
                    ok = True
                elif down:
                    c = self.canastas(team) + (before < CANASTA_SIZE <= before + size)
                    if c not in may_out:
                        may_out[c] = self._may_go_out(c, hand_after) is None
                    ok = may_out[c]
                else:
                    value = n * VALUES[rank] + 50 * j + 20 * t
                    made = before < CANASTA_SIZE <= before + size
                    ok = self._after_meld(hand_after, value, made) is None
                if ok:
                    out.append(cached_move("add", rank, n, j, t))

    def _legal_discards(self, out: list[Move], hand: list[int], held_total: int) -> None:
        if not self.staged:
            if (
                held_total == 1
                and self._may_go_out(self.canastas(TEAM_OF_SEAT[self.current])) is not None
            ):
                return
            # The kinds held, highest first.
            out.extend(compress(_DISCARDS_HIGH_TO_LOW, reversed(hand)))
            return
        staged_kinds = self._staged_counts()
        left = held_total + sum(staged_kinds) - 1
        if left == 0 and self._may_go_out(self.canastas(TEAM_OF_SEAT[self.current])) is not None:
            return
        out.extend([_DISCARDS[k] for k in _HIGH_TO_LOW if hand[k] or staged_kinds[k]])

    # ------------------------------------------------------------------ scoring

    def value_in_hand(self, seat: int) -> int:
        return counts_value(self.hands[seat])


def _cards(rank: int, n: int, j: int, t: int) -> tuple[Kind, ...]:
    """Canonical card order: naturals, then 2s, then jokers."""
    return (*[_KIND[rank]] * n, *[Kind.TWO] * t, *[Kind.JOKER] * j)


# Moves are immutable values, so legal_moves hands out shared instances: random play makes
# the same few hundred moves over and over.
_MOVE_CACHE: dict[tuple[str, int, int, int, int], Move] = {}
_MOVE_MAKERS: dict[str, Callable[[int, tuple[Kind, ...]], Move]] = {
    "take": lambda rank, cards: TakePile(cards),
    "meld": lambda rank, cards: Meld(cards),
    "add": lambda rank, cards: Add(_KIND[rank], cards),
}


def _all_melds(
    rank: int, held: int, jokers: int, twos: int, per_wild: int, max_wilds: int
) -> tuple[Move, ...]:
    """Every well-shaped new meld of ``rank`` from these cards, in legal_moves order."""
    out = []
    for n in range(2, held + 1):
        for j, t in _WILD_OPTIONS[jokers][twos][max_wilds]:
            if n + j + t >= 3 and not (per_wild and n < 2 * (j + t)):
                out.append(cached_move("meld", rank, n, j, t))
    return tuple(out)


def _all_adds(rank: int, held: int, room: int, jokers: int, twos: int) -> tuple[Move, ...]:
    """Every addition to a meld of ``rank`` with room for ``room`` more wild cards."""
    return tuple(
        cached_move("add", rank, n, j, t)
        for j, t in _WILD_OPTIONS[jokers][twos][room]
        for n in range(held + 1)
        if n + j + t
    )


#: The most cards of one natural kind a hand can hold (C-DECK-1); the tables below are
#: this long, and a hand built by other means falls back to the slow loops.
_MAX_HELD = max(DECK_COUNTS)
_Moves = tuple[Move, ...]
_Table = list[list[_Moves | None]]  # [rank][naturals held], each filled when first needed


def _new_table() -> _Table:
    return [[None] * (_MAX_HELD + 1) for _ in range(NUM_KINDS)]


#: _MELD_TABLES[per_wild][max_wilds][jokers][twos][rank][held] is
#: ``_all_melds(rank, held, jokers, twos, per_wild, max_wilds)`` (``per_wild`` 1 under the
#: two-naturals-per-wild option, else 0); a table is made when first needed, not at import.
_MELD_TABLES: list[list[list[list[_Table | None]]]] = [
    [[[None] * 4 for _ in range(4)] for _ in range(4)] for _ in range(2)
]
#: _ADD_TABLES[jokers][twos][room][rank][held] is ``_all_adds(rank, held, room, jokers, twos)``.
_ADD_TABLES: list[list[list[_Table | None]]] = [[[None] * 4 for _ in range(4)] for _ in range(4)]


@functools.cache
def _all_takes(
    top: int, held: int, room: int, jokers: int, twos: int, frozen: bool, onto_meld: bool
) -> tuple[Move, ...]:
    """Every well-shaped pickup of a pile topped by ``top``, in legal_moves order (the
    team is down and every pickup leaves two cards or more: no minimum, no going out)."""
    out = []
    for j, t in _WILD_OPTIONS[jokers][twos][room]:
        for n in range(held + 1):
            if frozen and n < 2:
                continue  # C-PILE-3
            if not onto_meld:
                if n < 1 or n + j + t + 1 < 3:
                    continue  # C-PILE-4, C-MELD-1
            elif n + j + t == 0 and frozen:
                continue
            out.append(cached_move("take", top, n, j, t))
    return tuple(out)


def cached_move(verb: str, rank: int, n: int, j: int, t: int) -> Move:
    key = (verb, rank, n, j, t)
    cached = _MOVE_CACHE.get(key)
    if cached is None:
        cached = _MOVE_CACHE[key] = _MOVE_MAKERS[verb](rank, _cards(rank, n, j, t))
    return cached


State._build_dispatch()


class IllegalMove(ValueError):
    """Raised by ``State.play`` for a refused move; carries the ``Reason``."""

    def __init__(self, move: Move, reason: Reason | None) -> None:
        super().__init__(f"{move}: {reason}")
        self.move = move
        self.reason = reason


__all__ = ["State", "Phase", "Asked", "MeldGroup", "HandEnd", "IllegalMove", "deck", "canonical"]
