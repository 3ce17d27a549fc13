"""The coach: warnings before a costly move, notes while playing, and a review after each hand.

Everything the coach says is judged from the learner's own view, as the computer players'
reasons are (``claims``): it reads the position through ``player_view``, the learner's own
legal moves and checks, and worlds dealt again from that view (``engine.determinize``).  A
test (``tests/test_coach.py``) proves it does not peek: a position and any world dealt again
from the learner's view get the same warnings, notes and judgements.

- ``warn(state, seat, move)``: before a discard that surely gives the pile to the next
  player on public facts (``claims.next_may_take``: their meld on an open pile, a pair seen
  going into that hand), when another discard would not: the facts, and the discard the coach
  would make instead.
- ``note(state, seat)``: while the learner plays: "you can go out this turn: ask your
  partner first"; and ``set_aside_note(state, seat)`` after a meld that was only set aside:
  what the first meld still needs, and whether the hand can reach it this turn.
- ``judge(state, seat, played)`` and ``review(decisions, seat)``: after a hand, the (up to)
  three decisions that cost the learner most, each measured by the hard player's search: the
  learner's move and the hard player's candidates played on in the same worlds dealt again
  from the learner's view by the hard player's own search (``search.Search``: common random
  numbers, the cost the mean difference to the best, kept only when clear by its margin rule,
  ``z`` standard errors and ``margin`` points).  Each names the common mistake it is, where
  it is one (the Urdu rules page's list and the Hand and Foot tips), only when the facts
  say so.

Budgets are counted in worlds, never seconds, so a review is the same on any machine;
``benchmarks/coach_bench.py`` measures its time (a hand's review, a warning) and what its
advice is worth (an easy player that follows it, against the normal player).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from canasta_teach.engine import (
    Add,
    AskPartner,
    Discard,
    Meld,
    Move,
    Phase,
    State,
    TakePile,
)
from canasta_teach.engine.cards import BLACK3, JOKER, TWO
from canasta_teach.engine.goingout import going_out_plan
from canasta_teach.engine.rng import SplitMix64, seed_to_int
from canasta_teach.engine.view import player_view

from .claims import Claim, claims_for, next_may_take, said
from .hard import search_game
from .heuristics import first_meld_within_reach
from .search import Search, margin_rule
from .variant_bots import variant_bots

#: A pile of fewer cards is not worth a warning (the next player gains little).
WARN_FROM = 3


# ---------------------------------------------------------------------------- warnings


@dataclass(frozen=True)
class Warning:
    """Why the coach stops a move (checked facts) and the move it would make instead."""

    move: Move
    claims: tuple[Claim, ...]
    instead: Move | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "move": str(self.move),
            "claims": [c.to_dict() for c in self.claims],
            "instead": str(self.instead) if self.instead is not None else None,
        }


def warn(state: State, seat: int, move: Move) -> Warning | None:
    """A warning before ``move`` (the learner's, legal now), or None."""
    if not isinstance(move, Discard) or state.to_move != seat:
        return None
    card = int(move.card)
    size = len(state.pile) + 1
    size = min(size, state.rules.pile_take or size)  # Hand and Foot takes the top 7 (H-TURN-1)
    if size < WARN_FROM or not next_may_take(state, seat, card):
        return None
    safer = [
        m for m in state.legal_moves()
        if isinstance(m, Discard) and int(m.card) != card
        and not next_may_take(state, seat, int(m.card))
    ]  # fmt: skip
    if not safer:
        return None  # every card feeds the pile: nothing better to say before the discard
    claims = said(claims_for(state, seat, move))
    return Warning(move, claims, _best_discard(state, seat, safer))


def _best_discard(state: State, seat: int, discards: Sequence[Discard]) -> Discard:
    """Among ``discards``, the one the normal player would throw (the variant's own rule of
    thumb: ``VariantBots.best_discard``)."""
    return variant_bots(state.rules.family).best_discard(player_view(state, seat), discards)


# ---------------------------------------------------------------------------- notes


@dataclass(frozen=True)
class Note:
    """Something the coach points out while the learner plays: ``key`` (``coach.note.<key>``
    in the ui catalog) and checked facts."""

    key: str
    claims: tuple[Claim, ...] = ()
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "claims": [c.to_dict() for c in self.claims],
                "params": dict(self.params)}  # fmt: skip


def note(state: State, seat: int) -> Note | None:
    """A note for the learner's turn now: going out is possible, so ask the partner first
    (C-ASK-1)."""
    if state.is_over or state.to_move != seat or state.phase is not Phase.MELD:
        return None
    moves = state.legal_moves()
    if any(isinstance(m, AskPartner) for m in moves) and going_out_plan(state) is not None:
        return Note("ask_partner", (Claim("can_go_out"),))
    return None


def set_aside_note(state: State, seat: int) -> Note | None:
    """After a meld that was only set aside (C-MIN-4, H-MIN-1): what the first meld still
    needs, and whether the cards in hand can still reach it this turn."""
    team = seat % 2
    if state.down[team] or not state.staged or state.to_move != seat:
        return None
    have, needed = state.staged_value(), state.minimum(team)
    if have >= needed:
        return None
    hand = state.hands[seat]
    reach = first_meld_within_reach(hand, have, needed, state.rules.max_wilds)
    return Note("set_aside_reach" if reach else "set_aside_short",
                (Claim("set_aside", {"have": have, "needed": needed}),),
                {"missing": needed - have})  # fmt: skip


def answer_note(state: State, seat: int, answer: Move, limit: CoachLimit | None = None) -> Note:
    """After the learner answered "Partner, may I go out?" (C-ASK-1): whether the coach's
    search answers the same, with the facts an answer weighs (the answerer's own hand, the
    table, the score sheet) in the learner's view."""
    verdict = judge(state, seat, answer, limit)
    facts = said(claims_for(state, seat, answer), 4)
    if verdict.best == answer or verdict.cost <= 0:
        return Note("answer_agree", facts)
    points = int(round(verdict.cost / 10) * 10) or 10
    yes = getattr(verdict.best, "yes", False)
    return Note("answer_differ_yes" if yes else "answer_differ_no", facts, {"points": points})


# ---------------------------------------------------------------------------- judging


@dataclass(frozen=True)
class CoachLimit:
    """How much the review searches a decision: worlds and candidates, never seconds."""

    worlds: int = 16
    candidates: int = 4
    z: float = 1.0  # a better move must be ahead by z standard errors ...
    margin: float = 15.0  # ... and by this many points


#: The review's budget by rule family: Hand and Foot's rounds are long and its rollouts slower,
#: so fewer worlds and candidates keep a round's review within the same time as a Classic hand's.
COACH_LIMITS = {"classic": CoachLimit(), "handfoot": CoachLimit(worlds=10, candidates=3)}


@dataclass(frozen=True)
class Judgement:
    """One decision as the coach sees it: the learner's move, the best move the search found
    and what the difference is worth in points (0 when the learner's move was as good)."""

    played: Move
    best: Move
    cost: float
    worlds: int


def _seed(view: dict[str, Any]) -> int:
    text = json.dumps(view, sort_keys=True, ensure_ascii=True)
    return int.from_bytes(hashlib.sha256(f"coach|{text}".encode()).digest()[:8], "big")


def judge(state: State, seat: int, played: Move, limit: CoachLimit | None = None) -> Judgement:
    """The learner's ``played`` move at ``state`` against the hard player's candidates, over
    the same worlds dealt again from the learner's view, by the hard player's own search
    (``search.Search``: its worlds, rollouts and margin rule)."""
    from . import find_bot

    game = search_game(state.rules)
    limit = limit or COACH_LIMITS.get(state.rules.family, CoachLimit())
    moves = state.legal_moves()
    view = player_view(state, seat)
    normal = find_bot("normal", seed=seed_to_int(_seed(view))).step(state).move
    candidates = [played]
    for move in game.review_candidates(state, moves, normal, limit.candidates + 1):
        if move not in candidates and len(candidates) < limit.candidates + 1:
            candidates.append(move)
    if len(candidates) == 1:
        return Judgement(played, played, 0.0, 0)
    search = Search(game, game.limit(state.players))
    worlds = search.worlds(state, seat, SplitMix64(_seed(view)), limit.worlds)
    if state.phase is Phase.ANSWER and variant_bots(state.rules.family).fits_asker:
        # The partner asked "may I go out?" (C-ASK-1): a player asks only when it can, so the
        # worlds give the asker a hand that goes out (the question is public information).
        asker = state.current
        fitted = [_fit_asker(world, asker, SplitMix64(_seed(view) + i))
                  for i, world in enumerate(worlds)]  # fmt: skip
        worlds = [w for w in fitted if w is not None] or worlds
    values = search.values(worlds, candidates, seat)
    best, gain = margin_rule(values, limit.z, limit.margin)
    return Judgement(played, candidates[best], gain if best else 0.0, len(worlds))


def _fit_asker(world: State, asker: int, rng: SplitMix64) -> State | None:
    """``world`` with the asker's hidden hand dealt again so that it goes out after a yes:
    cards that complete a canasta when the team still needs one, cards of the team's other
    melds, and one card to throw away, taken from the cards the answerer cannot see (the other
    hands and the stock, which get the asker's old cards in their place).  None when the
    unseen cards cannot make such a hand."""
    from canasta_teach.engine import Answer

    team = asker % 2
    melds = world.melds[team]
    if not melds:
        return None
    size = world.hand_size(asker)
    known = list(world.known[asker])
    need = max(0, world.rules.canastas_to_go_out - world.canastas(team))
    # Where the unseen cards are: (place, kind) for the other hands (not the answerer's, not
    # the asker's) and the stock.
    answerer = world.to_move
    spots: list[tuple[int, int]] = []  # (seat or -1 for the stock, kind)
    for seat in range(world.players):
        if seat in (asker, answerer):
            continue
        for kind, count in enumerate(world.hands[seat]):
            spots += [(seat, kind)] * (count - (world.known[seat][kind] if seat != asker else 0))
    spots += [(-1, kind) for kind in world.stock]
    rng.shuffle(spots)
    want: list[int] = [k for k in range(len(known)) for _ in range(known[k])]
    ranks = sorted(melds, key=lambda r: -melds[r].size)
    for rank in ranks[:need]:
        short = max(0, 7 - melds[rank].size)
        want += [rank] * short
    while len(want) < size - 1:
        want.append(ranks[len(want) % len(ranks)])
    if len(want) > size - 1:
        return None
    taken: list[tuple[int, int]] = []
    for kind in want[len([k for k in range(len(known)) for _ in range(known[k])]) :]:
        at = next((i for i, spot in enumerate(spots) if spot[1] == kind), None)
        if at is None:
            at = next((i for i, spot in enumerate(spots) if spot[1] in (JOKER, TWO)), None)
        if at is None:
            return None
        taken.append(spots.pop(at))
    spare = next((i for i, spot in enumerate(spots) if spot[1] > BLACK3), None)
    if spare is None:
        return None
    taken.append(spots.pop(spare))
    fitted = world.copy()
    old = [k for k in range(len(known)) for _ in range(fitted.hands[asker][k] - known[k])]
    hand = list(known)
    for _where, kind in taken:
        hand[kind] += 1
    rng.shuffle(old)
    for (seat, kind), back in zip(taken, old, strict=False):
        if seat < 0:
            fitted.stock[fitted.stock.index(kind)] = back
        else:
            fitted.hands[seat][kind] -= 1
            fitted.hands[seat][back] += 1
    if sum(hand) != size or len(old) != len(taken):
        return None
    fitted.hands[asker] = hand
    trial = fitted.copy()
    trial.play(Answer(True))
    return fitted if going_out_plan(trial) is not None else None


# ---------------------------------------------------------------------------- the review


@dataclass(frozen=True)
class Moment:
    """A reviewed decision: where it was (``index``: moves of the game before it, so the
    table can show it as the learner saw it), what the learner did, what the coach would
    have done and why (checked facts about both moves, in the learner's view), the cost in
    points, and the common mistake it is (``coach.mistake.<key>``, or "")."""

    index: int
    played: Move
    best: Move
    cost: int
    why_best: tuple[Claim, ...]
    why_not: tuple[Claim, ...]
    mistake: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "played": str(self.played),
            "best": str(self.best),
            "cost": self.cost,
            "why_best": [c.to_dict() for c in self.why_best],
            "why_not": [c.to_dict() for c in self.why_not],
            "mistake": self.mistake,
        }


#: The most a review shows.
REVIEWED = 3


def review(decisions: Sequence[tuple[int, State, Move]], seat: int,
           limit: CoachLimit | None = None) -> list[Moment]:  # fmt: skip
    """The (up to) ``REVIEWED`` decisions of a hand that cost the learner most: ``decisions``
    are (moves before it, the state as it was, the learner's move), in order."""
    found: list[Moment] = []
    for index, state, played in decisions:
        if state.to_move != seat or len(state.legal_moves()) < 2:
            continue
        verdict = judge(state, seat, played, limit)
        if verdict.cost <= 0 or verdict.best == played:
            continue
        why_best = said(claims_for(state, seat, verdict.best))
        why_not = said(claims_for(state, seat, played))
        cost = int(round(verdict.cost / 10) * 10) or 10  # "about N points": tens are enough
        named = mistake(state, seat, played, verdict.best)
        found.append(Moment(index, played, verdict.best, cost, why_best, why_not, named))
    found.sort(key=lambda m: (-m.cost, m.index))
    return sorted(found[:REVIEWED], key=lambda m: m.index)


def mistake(state: State, seat: int, played: Move, best: Move) -> str:
    """The common mistake ``played`` is, in the learner's view, when the facts say so:
    feeding the next player, breaking a natural pair, spending wild cards early, forgetting
    the black three, holding cards while the other side can go out; Hand and Foot: not
    heading for the foot.  Only the mistakes of the variant's game are named
    (``VariantBots.mistakes``).  "" when none of them fits."""
    team = seat % 2
    hand = state.hands[seat]
    named = variant_bots(state.rules.family).mistakes
    if isinstance(played, Discard):
        card = int(played.card)
        if "feeding" in named and card >= 4 and next_may_take(state, seat, card):
            return "feeding"
        best_card = int(best.card) if isinstance(best, Discard) else None
        if "black_three" in named and best_card == BLACK3 and card != BLACK3:
            return "black_three"
        pair = card >= 4 and hand[card] >= 2
        if "breaking_pair" in named and pair and best_card is not None and hand[best_card] < 2:
            return "breaking_pair"
        if isinstance(best, Meld | Add):
            if "foot_late" in named and state.face_down_foot(seat) is not None:
                return "foot_late"  # the foot still lies face down (H-FOOT-1)
            if "holding_cards" in named and _other_side_can_go_out(state, team):
                return "holding_cards"
    if isinstance(played, Meld | Add) and "wild_early" in named:
        wilds = sum(1 for k in played.cards if int(k) <= TWO)
        best_wilds = sum(1 for k in getattr(best, "cards", ()) if int(k) <= TWO)
        if wilds > best_wilds and state.down[team] and not _makes_canasta(state, seat, played):
            return "wild_early"
    return ""


def _other_side_can_go_out(state: State, team: int) -> bool:
    """The other side has the canastas going out needs (C-OUT-1), as the table shows."""
    return state.canastas(1 - team) >= max(1, state.rules.canastas_to_go_out)


def _makes_canasta(state: State, seat: int, move: Meld | Add) -> bool:
    after = state.copy()
    after.play(move)
    team = seat % 2
    return after.canastas(team) > state.canastas(team)


# ---------------------------------------------------------------------------- a coached player


class CoachedBot:
    """A player that follows the coach (for the benchmark that measures the coach's advice):
    its own move, except that it chooses again when the coach warns (the coach's discard),
    keeps cards rather than set aside a first meld out of reach this turn (the note), asks
    its partner when it can go out and goes out after a yes (the note)."""

    def __init__(self, player: Any) -> None:
        self.player = player
        self.name = f"{player.name}+coach"

    def step(self, state: State) -> Any:
        from canasta_teach.engine import Answer, AskPartner, Draw

        from .heuristics import Choice

        seat = state.to_move
        choice = self.player.step(state)
        move = choice.move
        if isinstance(move, Answer | Draw | TakePile):
            return choice
        said = note(state, seat)
        if said is not None and said.key == "ask_partner":
            return Choice(AskPartner(), "coach_ask")
        if state.asked.value == "yes" and state.phase is Phase.MELD:
            plan = going_out_plan(state)
            if plan is not None:
                return Choice(plan[0], "coach_go_out")
        if isinstance(move, Meld | Add) and not state.down[seat % 2]:
            trial = state.copy()
            trial.play(move)
            lacks = set_aside_note(trial, seat)
            if lacks is not None and lacks.key == "set_aside_short":
                discards = [m for m in state.legal_moves() if isinstance(m, Discard)]
                if discards:
                    return Choice(_best_discard(state, seat, discards), "coach_keep")
        warning = warn(state, seat, move)
        if warning is not None and warning.instead is not None:
            return Choice(warning.instead, "coach_instead")
        return choice


#: Every note the coach makes (``coach.note.<key>``, ui catalog).
NOTES = (
    "ask_partner",
    "set_aside_reach",
    "set_aside_short",
    "answer_agree",
    "answer_differ_yes",
    "answer_differ_no",
)
#: Every mistake a review may name (``coach.mistake.<key>``, ui catalog).
MISTAKES = ("feeding", "black_three", "breaking_pair", "foot_late", "holding_cards", "wild_early")

__all__ = [
    "MISTAKES", "NOTES", "REVIEWED", "CoachLimit", "CoachedBot", "Judgement", "Moment", "Note",
    "Warning", "answer_note", "judge", "mistake", "note", "review", "set_aside_note", "warn",
]  # fmt: skip
