"""What a reason says, as facts in one seat's view: claims that are checked, never labels.

Whoever explains a move at the table (the computer partner, the Hint, the coach) says what
the move is and then **claims**: short facts about the position as the seat sees it ("East
has a meld of 6s", "the pile is not frozen for East and West", "this only sets the cards
aside: 30 of the 50 points"), each a :class:`Claim` with a key and JSON-ready facts, which
``canasta_teach.i18n`` words in each language (``claim.<key>``).  A claim is made only when it
holds, so the words are chosen from the facts, not from the code path that chose the move:
when no comforting fact holds, the true one is said ("West has a meld of 7s").

``claims_for(state, seat, move)`` reads the position only through ``player_view(state,
seat)``, the seat's own legal moves and checks (its own hand and the table), and, to tell
whether the next player could take the pile after a discard, one world dealt again from the
seat's view (``engine.determinize``): that test depends only on public facts and known cards,
so every world gives the same answer.  ``tests/test_claims.py`` checks every claim made over
thousands of decisions against an oracle of its own, in the real position and in worlds dealt
again (a claim that needed a hidden card would fail in some of them).

Keys (``CLAIM_KEYS``; ``VOICED``: said as "I ..." by a computer partner and "you ..." to the
learner, the rest are about the table and read the same for both):

- the pile: ``pile_size`` (count), ``pile_empty``, ``pile_frozen_for`` (team), ``pile_open_for``
  (team), ``cannot_take`` (rule), ``blocks_pile`` (card: a black three or a wild card on top),
  ``freezes`` (count), ``gives_pile`` (seat, count: after this discard that seat may take it);
- the other players: ``their_meld`` / ``no_their_meld`` (team, rank), ``known_holds`` (seat,
  cards), ``thrown_before`` (seat, card);
- the score: ``score_sheet`` (team, points, other, other_points), ``table_value`` (same),
  ``canastas`` (team, count, needed), ``going_out_ends``;
- the move: ``hand_count`` (card, count: before the discard), ``set_aside`` (have, needed),
  ``set_aside_enough`` (have, needed: Hand and Foot, ready for Lay down), ``first_meld``
  (points, needed), ``makes_canasta`` (rank, kind), ``meld_size`` (rank, count),
  ``keeps_wilds`` (count), ``uses_wilds`` (count), ``takes_with`` (cards), ``can_go_out``,
  ``goes_out``, ``hand_value`` (count, points), ``makes_pile`` (rank, kind: Hand and Foot),
  ``piles`` (team, clean, dirty, wild, need_clean, need_dirty, need_wild), ``searched``
  (worlds, margin).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
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
    parse_kind,
)
from canasta_teach.engine.cards import BLACK3, JOKER, TOKENS, TWO, VALUES
from canasta_teach.engine.determinize import determinize
from canasta_teach.engine.goingout import going_out_plan
from canasta_teach.engine.moves import LayDown
from canasta_teach.engine.rng import SplitMix64
from canasta_teach.engine.variants import find_variant
from canasta_teach.engine.view import player_view

CANASTA = 7  # C-CAN-1; a Hand and Foot pile is seven cards too (H-MELD-3)

#: Every claim key, and whether it is said in two voices ("I" / "you").
CLAIM_KEYS: dict[str, bool] = {
    "pile_size": False, "pile_empty": False, "pile_frozen_for": False, "pile_open_for": False,
    "cannot_take": False, "blocks_pile": False, "freezes": False, "gives_pile": False,
    "pile_take": False, "uses_wilds": False,
    "their_meld": False, "no_their_meld": False, "known_holds": False, "thrown_before": False,
    "score_sheet": False, "table_value": False, "canastas": False, "going_out_ends": False,
    "makes_canasta": False, "makes_pile": False, "piles": False,
    "hand_count": True, "set_aside": True, "set_aside_enough": True, "first_meld": True,
    "meld_size": True,
    "keeps_wilds": True, "takes_with": True, "can_go_out": True,
    "goes_out": True, "hand_value": True, "searched": True,
}  # fmt: skip
VOICED = frozenset(key for key, voiced in CLAIM_KEYS.items() if voiced)


@dataclass(frozen=True)
class Claim:
    """One fact: ``key`` (``CLAIM_KEYS``) and its facts (seat and team names, card tokens,
    numbers), JSON-ready, so a reason can be kept in a save and worded in any language."""

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "params": dict(self.params)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Claim:
        key = data["key"]
        if key not in CLAIM_KEYS:
            raise ValueError(f"unknown claim {key!r}")
        return cls(str(key), dict(data.get("params") or {}))


# ---------------------------------------------------------------------------- the view


@dataclass(frozen=True)
class Seat:
    """What the claims read of one seat's view (``player_view``), seat-relative."""

    view: dict[str, Any]
    names: tuple[str, ...]  # seats in order
    me: int
    hand: tuple[int, ...]

    @classmethod
    def of(cls, state: State, seat: int) -> Seat:
        view = player_view(state, seat)
        counts = [0] * len(TOKENS)
        for token in view["hand"]:
            counts[parse_kind(token)] += 1
        return cls(view, tuple(view["hand_counts"]), seat, tuple(counts))

    @property
    def players(self) -> int:
        return len(self.names)

    @property
    def team(self) -> int:
        return self.me % 2

    @property
    def piles_of_seven(self) -> bool:
        """Whether a finished meld leaves the melds as a pile of seven (Hand and Foot,
        H-MELD-3): the view then has the teams' piles and what they need to go out."""
        return find_variant(self.view["variant"]).piles_of_seven

    def team_name(self, team: int) -> str:
        return str(self.view["teams"][team]["name"])

    def melds(self, team: int) -> dict[int, dict[str, Any]]:
        return {int(parse_kind(m["rank"])): m for m in self.view["teams"][team]["melds"]}

    def next_seat(self) -> int:
        return (self.me + 1) % self.players

    def known(self, seat: int) -> list[int]:
        counts = [0] * len(TOKENS)
        for token in self.view["known"].get(self.names[seat], []):
            counts[parse_kind(token)] += 1
        return counts

    def threw(self, seat: int, kind: int) -> bool:
        return TOKENS[kind] in self.view["thrown"].get(self.names[seat], [])

    def frozen_for(self, team: int) -> bool:
        """C-FRZ-1, C-FRZ-2: frozen for everyone, or for a team not yet down."""
        pile = self.view["pile"]
        return bool(pile["frozen_for_all"]) or not self.view["teams"][team]["down"]

    def table_value(self, team: int) -> int:
        """A team's melds on the table: card values and canasta bonuses (C-SCORE-1), its red
        threes, and in Hand and Foot its complete piles too."""
        t = self.view["teams"][team]
        total = 100 * int(t["red_threes"])
        for m in t["melds"]:
            total += int(m["value"])
            if m["canasta"]:
                total += 500 if m["canasta"] == "natural" else 300
        if self.piles_of_seven:
            bonus = {"clean": 500, "dirty": 300, "wild": 1500}
            for g in self.view["piles"][team]["groups"]:
                total += int(g["value"]) + bonus[g["kind"]]
        return total

    def hand_value(self) -> int:
        return sum(VALUES[k] * c for k, c in enumerate(self.hand))


def _tokens(cards: Sequence[int]) -> list[str]:
    return [TOKENS[int(k)] for k in cards]


def _wilds(cards: Sequence[int]) -> int:
    return sum(1 for k in cards if int(k) <= TWO)


# ---------------------------------------------------------------------------- claims


def claims_for(state: State, seat: int, move: Move) -> tuple[Claim, ...]:
    """The facts worth saying about ``move``, a legal move of ``seat`` (the seat to move) in
    ``state``, as ``seat`` sees the table.  Only claims that hold are made."""
    me = Seat.of(state, seat)
    if isinstance(move, Draw):
        return tuple(_draw_claims(state, me))
    if isinstance(move, TakePile):
        return tuple(_take_claims(state, me, move))
    if isinstance(move, Meld | Add | LayDown):
        return tuple(_play_claims(state, me, move))
    if isinstance(move, Discard):
        return tuple(_discard_claims(state, me, move))
    if isinstance(move, AskPartner):
        return (Claim("can_go_out"),) if going_out_plan(state) is not None else ()
    if isinstance(move, Answer):
        return tuple(_answer_claims(me))
    return ()


def _draw_claims(state: State, me: Seat) -> list[Claim]:
    pile = me.view["pile"]
    if not pile["size"]:
        return [Claim("pile_empty")]
    out = [_pile_size(me)]
    takes = [m for m in state.legal_moves() if isinstance(m, TakePile)]
    if not takes:
        refusal = _take_refusal(state, me)
        if refusal is not None:
            out.append(Claim("cannot_take", {"rule": refusal}))
    return out


def _pile_size(me: Seat) -> Claim:
    take = me.view.get("take_count")  # the cards a pickup takes, where not the whole pile
    if take is not None:
        return Claim("pile_take", {"count": int(take)})  # H-TURN-1
    return Claim("pile_size", {"count": int(me.view["pile"]["size"])})


def _take_refusal(state: State, me: Seat) -> str | None:
    """The rule that stops this seat taking the pile now: the engine's refusal of the best
    take its hand allows (a natural pair, else one natural and a wild card, else nothing)."""
    top = me.view["pile"]["top"]
    if top is None:
        return None
    kind = int(parse_kind(top))
    hand = me.hand
    cards: tuple[int, ...]
    if kind >= 4 and hand[kind] >= 2:
        cards = (kind, kind)
    elif kind >= 4 and hand[kind] == 1 and (hand[JOKER] or hand[TWO]):
        cards = (kind, JOKER if hand[JOKER] else TWO)
    elif kind >= 4 and hand[kind] == 1:
        cards = (kind,)
    else:
        cards = ()
    from canasta_teach.engine.moves import canonical

    verdict = state.check(TakePile(canonical(cards)))
    return verdict.reason.rule if verdict.reason is not None else None


def _take_claims(state: State, me: Seat, move: TakePile) -> list[Claim]:
    out = [_pile_size(me)]
    if move.cards:
        out.append(Claim("takes_with", {"cards": _tokens(move.cards)}))
    after = state.copy()
    after.play(move)
    out.extend(_after_play_claims(state, after, me, None))
    return out


def _play_claims(state: State, me: Seat, move: Meld | Add | LayDown) -> list[Claim]:
    after = state.copy()
    after.play(move)
    cards = () if isinstance(move, LayDown) else tuple(int(k) for k in move.cards)
    out = _after_play_claims(state, after, me, move)
    if cards:
        used = _wilds(cards)
        if used:
            out.append(Claim("uses_wilds", {"count": used}))
        else:
            kept = me.hand[JOKER] + me.hand[TWO]
            if kept:
                out.append(Claim("keeps_wilds", {"count": kept}))
    return out


def _after_play_claims(state: State, after: State, me: Seat, move: Meld | Add | LayDown | None
                       ) -> list[Claim]:  # fmt: skip
    """What a play (or a pickup) did on the table: set aside, a first meld, a canasta or pile
    made, a meld's new size, going out.  Read from the position after the move, as every
    player at the table sees it."""
    seat, team = me.me, me.team
    out: list[Claim] = []
    was_down = bool(me.view["teams"][team]["down"])
    later = Seat.of(after, seat)
    if after.end is not None and after.end.seat == seat and after.end.how != "stock":
        out.append(Claim("goes_out"))
        return out
    now_down = bool(later.view["teams"][team]["down"])
    if not was_down and not now_down and later.view["staged"]:
        have = sum(int(m["value"]) for m in later.view["staged"])
        needed = int(later.view["teams"][team]["minimum"])
        # Hand and Foot: cards set aside go down together with Lay down (H-MIN-1), so a
        # set-aside may already reach the minimum.
        key = "set_aside" if have < needed else "set_aside_enough"
        out.append(Claim(key, {"have": have, "needed": needed}))
    elif not was_down and now_down:
        needed = int(me.view["teams"][team]["minimum"])
        points = sum(int(m["value"]) for m in later.view["teams"][team]["melds"])
        if me.piles_of_seven:
            points += sum(int(g["value"]) for g in later.view["piles"][team]["groups"])
        out.append(Claim("first_meld", {"points": points, "needed": needed}))
    if me.piles_of_seven:
        before = {(g["rank"], g["kind"]) for g in me.view["piles"][team]["groups"]}
        groups = later.view["piles"][team]["groups"]
        made = [g for g in groups if (g["rank"], g["kind"]) not in before]
        # A kind of pile the team had already: the count tells (two clean piles of kings).
        if not made:
            counts_before = me.view["piles"][team]["counts"]
            counts_after = later.view["piles"][team]["counts"]
            for kind in ("clean", "dirty", "wild"):
                if counts_after[kind] > counts_before[kind]:
                    made = [g for g in groups if g["kind"] == kind][-1:]
        for g in made[:1]:
            out.append(Claim("makes_pile", {"rank": g["rank"], "kind": g["kind"]}))
        return out
    before_melds = me.melds(team)
    for rank, m in later.melds(team).items():
        old = before_melds.get(rank)
        if m["canasta"] and (old is None or not old["canasta"]):
            out.append(Claim("makes_canasta", {"rank": TOKENS[rank], "kind": m["canasta"]}))
            break
        if move is not None and isinstance(move, Meld | Add) and now_down and was_down:
            target = int(move.rank) if isinstance(move, Add) else int(max(move.cards))
            if rank == target and not m["canasta"]:
                out.append(Claim("meld_size", {"rank": TOKENS[rank], "count": int(m["size"])}))
    return out


def _discard_claims(state: State, me: Seat, move: Discard) -> list[Claim]:
    card = int(move.card)
    out = [Claim("hand_count", {"card": TOKENS[card], "count": me.hand[card]})]
    after = state.copy()
    after.play(move)
    if after.end is not None:
        if after.end.seat == me.me and after.end.how != "stock":
            out.append(Claim("goes_out"))
        return out
    nxt = me.next_seat()
    next_name = me.names[nxt]
    their_team = nxt % 2
    team_name = me.team_name(their_team)
    count = _count_after_discard(me)
    if card == BLACK3 or card <= TWO:
        out.append(Claim("blocks_pile", {"card": TOKENS[card]}))
        if card <= TWO and state.PILE_FREEZES and not me.view["pile"]["frozen_for_all"]:
            out.append(Claim("freezes"))
        return out
    if their_team != me.team:
        melds = me.melds(their_team)
        if card in melds:
            out.append(Claim("their_meld", {"team": team_name, "rank": TOKENS[card]}))
        else:
            out.append(Claim("no_their_meld", {"team": team_name, "rank": TOKENS[card]}))
        if state.PILE_FREEZES:
            key = "pile_frozen_for" if me.frozen_for(their_team) else "pile_open_for"
            out.append(Claim(key, {"team": team_name}))
    held = me.known(nxt)[card]
    if held:
        out.append(Claim("known_holds", {"seat": next_name, "cards": [TOKENS[card]] * held}))
    if me.threw(nxt, card):
        out.append(Claim("thrown_before", {"seat": next_name, "card": TOKENS[card]}))
    if next_may_take(state, me.me, card):
        out.append(Claim("gives_pile", {"seat": next_name, "count": count}))
    return out


def _count_after_discard(me: Seat) -> int:
    """The cards the next player would take after a discard (Hand and Foot: the top seven)."""
    size = int(me.view["pile"]["size"]) + 1
    limit = int(me.view.get("take_limit", 0))  # 0, or no limit in the view: the whole pile
    return size if limit <= 0 else min(limit, size)


def next_may_take(state: State, seat: int, card: int) -> bool:
    """Whether, after ``seat`` throws ``card`` away, the next player may surely take the
    pile: by adding the top card to the team's meld (no card from the hand needed), or with a
    natural pair every player saw go into that hand.  Decided in one world dealt again from
    ``seat``'s view: the test reads only public facts and known cards, so the answer is the
    same in every world."""
    world = determinize(state, seat, SplitMix64("claims"))
    world.play(Discard(_kind(card)))
    if world.is_over or world.to_move == seat:
        return False
    nxt = world.to_move
    if world.check(TakePile(())).legal:
        return True
    known = world.known[nxt]
    if card >= 4 and known[card] >= 2:
        return world.check(TakePile((_kind(card), _kind(card)))).legal
    return False


def _kind(k: int) -> Any:
    from canasta_teach.engine.cards import Kind

    return Kind(k)


def _answer_claims(me: Seat) -> list[Claim]:
    ours, theirs = me.team, 1 - me.team
    names = (me.team_name(ours), me.team_name(theirs))
    out = [Claim("going_out_ends")]
    t = me.view["teams"]
    out.append(
        Claim(
            "score_sheet",
            {
                "team": names[0],
                "points": int(t[ours]["score"]),
                "other": names[1],
                "other_points": int(t[theirs]["score"]),
            },
        )
    )
    out.append(
        Claim(
            "table_value",
            {
                "team": names[0],
                "points": me.table_value(ours),
                "other": names[1],
                "other_points": me.table_value(theirs),
            },
        )
    )
    if me.piles_of_seven:
        out.append(_piles_claim(me, ours))
    else:
        needed = int(me.view["canastas_to_go_out"])
        out.append(Claim("canastas", {"team": names[0], "count": int(t[ours]["canastas"]),
                                      "needed": needed}))  # fmt: skip
    out.append(Claim("hand_value", {"count": sum(me.hand), "points": me.hand_value()}))
    return out


def _piles_claim(me: Seat, team: int) -> Claim:
    counts = me.view["piles"][team]["counts"]
    need = me.view["piles_needed"]
    return Claim("piles", {
        "team": me.team_name(team), "clean": int(counts["clean"]), "dirty": int(counts["dirty"]),
        "wild": int(counts["wild"]), "need_clean": int(need["clean"]),
        "need_dirty": int(need["dirty"]), "need_wild": int(need["wild"]),
    })  # fmt: skip


# ---------------------------------------------------------------------------- what is said

#: Most telling first: a reason says at most ``SAID`` claims, and a warning never drops below
#: a comfort (the pile given away is said before "I held only one 7").
IMPORTANCE: tuple[str, ...] = (
    "goes_out", "gives_pile", "their_meld", "known_holds", "set_aside", "set_aside_enough",
    "first_meld",
    "makes_canasta", "makes_pile", "cannot_take", "can_go_out", "blocks_pile", "freezes",
    "searched", "hand_value", "table_value", "score_sheet", "canastas", "piles",
    "going_out_ends", "pile_frozen_for", "no_their_meld", "thrown_before", "hand_count",
    "pile_open_for", "takes_with", "pile_size", "pile_take", "pile_empty", "meld_size",
    "uses_wilds", "keeps_wilds",
)  # fmt: skip
SAID = 3


def said(claims: Sequence[Claim], limit: int = SAID) -> tuple[Claim, ...]:
    """The claims a reason says: the ``limit`` most telling (``IMPORTANCE``), in that order."""
    order = {key: i for i, key in enumerate(IMPORTANCE)}
    return tuple(sorted(claims, key=lambda c: order.get(c.key, len(order)))[:limit])


def headline(state: State, seat: int, move: Move) -> str:
    """What the move is, as the ``bot.move.<headline>`` sentence names it: a meld by a team
    not yet down only sets cards aside (C-MIN-4, H-MIN-1)."""
    if isinstance(move, Meld) and not state.down[seat % 2]:
        return "set_aside"
    if isinstance(move, Add) and int(move.rank) == JOKER:
        return "add_wild"  # Hand and Foot's meld of wild cards
    if isinstance(move, Answer):
        return "answer_yes" if move.yes else "answer_no"
    if isinstance(move, Draw) and state.rules.draw_count > 1:
        return "draw_more"
    names = {Draw: "draw", TakePile: "take", Meld: "meld", Add: "add", LayDown: "lay_down",
             Discard: "discard", AskPartner: "ask"}  # fmt: skip
    return names[type(move)]


def reason_record(state: State, seat: int, move: Move, extra: Sequence[Claim] = (),
                  limit: int = SAID) -> dict[str, Any]:  # fmt: skip
    """What is said about ``move`` by ``seat`` (before it is played), JSON-ready: the move in
    the notation, its headline and the claims said (checked facts; ``extra`` are the
    player's own, such as ``searched``).  ``canasta_teach.i18n`` words it
    (``Translator.reason_words``)."""
    claims = said([*claims_for(state, seat, move), *extra], limit)
    return {
        "move": str(move),
        "headline": headline(state, seat, move),
        "count": state.rules.draw_count,
        "claims": [c.to_dict() for c in claims],
    }


__all__ = [
    "CLAIM_KEYS", "IMPORTANCE", "SAID", "VOICED", "Claim", "Seat", "claims_for", "headline",
    "next_may_take", "reason_record", "said",
]  # fmt: skip
