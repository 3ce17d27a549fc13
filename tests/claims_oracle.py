"""An oracle for what reasons claim (``canasta_teach.bots.claims``), written apart from it.

``holds(claim, state, seat, move)`` decides from the engine's own state (the real one, or a
world dealt again) whether a claim made about ``move`` by ``seat`` is true.  It shares no code
with the claims module: where that module reads a view, this reads the state's fields, the
engine's checks and legal moves, and plays the move on a copy to see what it did.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from canasta_teach.engine import Add, Answer, Discard, Meld, Move, State, TakePile
from canasta_teach.engine.cards import TOKENS, VALUES
from canasta_teach.engine.goingout import going_out_plan
from canasta_teach.engine.handfoot import HandFootState, pile_kind
from canasta_teach.engine.moves import LayDown
from canasta_teach.engine.view import seat_names, team_names

JOKER, TWO, RED3, BLACK3 = 0, 1, 2, 3


def _team(state: State, name: str) -> int:
    return team_names(state.players).index(name)


def _seat(state: State, name: str) -> int:
    return seat_names(state.players).index(name)


def _kind(token: str) -> int:
    return TOKENS.index(token)


def _after(state: State, move: Move) -> State:
    after = state.copy()
    after.play(move)
    return after


def _table_value(state: State, team: int) -> int:
    total = 100 * state.red_threes[team]
    for group in state.melds[team].values():
        total += sum(VALUES[k] for k in group.cards())
        if group.size >= 7:
            total += 500 if group.jokers + group.twos == 0 else 300
    if isinstance(state, HandFootState):
        bonus = {"clean": 500, "dirty": 300, "wild": 1500}
        for group in state.piles[team]:
            total += sum(VALUES[k] for k in group.cards()) + bonus[pile_kind(group)]
    return total


def _cards_of(move: Move) -> list[int]:
    if isinstance(move, Discard):
        return [int(move.card)]
    return [int(k) for k in getattr(move, "cards", ())]


def _next_takes(after: State, seat: int) -> list[TakePile]:
    if after.is_over or after.to_move == seat:
        return []
    return [m for m in after.legal_moves() if isinstance(m, TakePile)]


def holds(claim: Mapping[str, Any], state: State, seat: int, move: Move) -> bool:  # noqa: C901
    """Whether ``claim`` (a ``Claim.to_dict()``) is true of ``move`` by ``seat`` in ``state``."""
    key = claim["key"]
    p = dict(claim.get("params") or {})
    handfoot = isinstance(state, HandFootState)
    team = seat % 2
    hand = state.hands[seat]
    if key == "pile_size":
        return not handfoot and p["count"] == len(state.pile) > 0
    if key == "pile_take":
        assert isinstance(state, HandFootState)
        limit = state.rules.pile_take
        return p["count"] == (len(state.pile) if limit <= 0 else min(limit, len(state.pile)))
    if key == "pile_empty":
        return not state.pile
    if key in ("pile_frozen_for", "pile_open_for"):
        frozen = state.pile_freezers > 0 or not state.down[_team(state, p["team"])]
        return frozen == (key == "pile_frozen_for")
    if key == "cannot_take":
        takes = [m for m in state.legal_moves() if isinstance(m, TakePile)]
        if takes or state.phase.value != "draw":
            return False
        top = state.pile[-1] if state.pile else None
        tries: list[tuple[int, ...]] = [()]
        if top is not None and top >= 4:
            tries += [(top,), (top, top), (top, JOKER), (top, TWO)]
        from canasta_teach.engine.cards import Kind

        rules = set()
        for cards in tries:
            reason = state.check(TakePile(tuple(Kind(k) for k in sorted(cards)))).reason
            if reason is not None:
                rules.add(reason.rule)
        return p["rule"] in rules
    if key == "blocks_pile":
        card = _kind(p["card"])
        return (isinstance(move, Discard) and int(move.card) == card and card in (JOKER, TWO,
                BLACK3) and not _next_takes(_after(state, move), seat))  # fmt: skip
    if key == "freezes":
        after = _after(state, move)
        return (isinstance(move, Discard) and int(move.card) <= TWO and state.pile_freezers == 0
                and after.pile_freezers > 0)  # fmt: skip
    if key == "gives_pile":
        after = _after(state, move)
        nxt = _seat(state, p["seat"])
        if after.to_move != nxt or not _next_takes(after, seat):
            return False
        if isinstance(after, HandFootState):
            return p["count"] == after._taken()
        return p["count"] == len(after.pile)
    if key in ("their_meld", "no_their_meld"):
        other = _team(state, p["team"])
        has = _kind(p["rank"]) in state.melds[other]
        return other != team and has == (key == "their_meld")
    if key == "known_holds":
        who = _seat(state, p["seat"])
        cards = [_kind(c) for c in p["cards"]]
        return all(state.hands[who][k] >= cards.count(k) for k in set(cards)) and all(
            state.known[who][k] >= cards.count(k) for k in set(cards)
        )
    if key == "thrown_before":
        return bool(state.thrown[_seat(state, p["seat"])] >> _kind(p["card"]) & 1)
    if key == "score_sheet":
        a, b = _team(state, p["team"]), _team(state, p["other"])
        return (a == team and b != a and state.scores[a] == p["points"]
                and state.scores[b] == p["other_points"])  # fmt: skip
    if key == "table_value":
        a, b = _team(state, p["team"]), _team(state, p["other"])
        return (a == team and b != a and _table_value(state, a) == p["points"]
                and _table_value(state, b) == p["other_points"])  # fmt: skip
    if key == "canastas":
        a = _team(state, p["team"])
        count = sum(1 for g in state.melds[a].values() if g.size >= 7)
        return count == p["count"] and p["needed"] == state.rules.canastas_to_go_out
    if key == "going_out_ends":
        return isinstance(move, Answer)
    if key == "piles":
        assert isinstance(state, HandFootState)
        a = _team(state, p["team"])
        clean, dirty, wild = state.pile_counts(a)
        need = state.piles_needed()
        return (clean, dirty, wild, *need) == (
            p["clean"],
            p["dirty"],
            p["wild"],
            p["need_clean"],
            p["need_dirty"],
            p["need_wild"],
        )
    if key == "makes_canasta":
        after = _after(state, move)
        rank = _kind(p["rank"])
        group = after.melds[team].get(rank)
        before = state.melds[team].get(rank)
        if group is None or group.size < 7 or (before is not None and before.size >= 7):
            return False
        natural = group.jokers + group.twos == 0
        return p["kind"] == ("natural" if natural else "mixed")
    if key == "makes_pile":
        assert isinstance(state, HandFootState)
        after = _after(state, move)
        assert isinstance(after, HandFootState)
        kinds = ("clean", "dirty", "wild")
        i = kinds.index(p["kind"])
        made = [g for g in after.piles[team] if pile_kind(g) == p["kind"]]
        rank_ok = any(TOKENS[g.rank] == p["rank"] for g in made)
        return after.pile_counts(team)[i] > state.pile_counts(team)[i] and rank_ok
    if key == "uses_wilds":
        return sum(1 for k in _cards_of(move) if k <= TWO) == p["count"] > 0
    if key == "hand_count":
        return isinstance(move, Discard) and hand[_kind(p["card"])] == p["count"]
    if key == "set_aside":
        after = _after(state, move)
        return (not state.down[team] and not after.down[team] and bool(after.staged)
                and after.staged_value() == p["have"] and after.minimum(team) == p["needed"]
                and p["have"] < p["needed"])  # fmt: skip
    if key == "set_aside_enough":
        after = _after(state, move)
        return (
            isinstance(after, HandFootState)
            and not after.down[team]
            and bool(after.staged)
            and after.staged_value() == p["have"] >= p["needed"] == after.minimum(team)
        )
    if key == "first_meld":
        after = _after(state, move)
        points = sum(sum(VALUES[k] for k in g.cards()) for g in after.melds[team].values())
        if isinstance(after, HandFootState):
            points += sum(sum(VALUES[k] for k in g.cards()) for g in after.piles[team])
        return (not state.down[team] and after.down[team] and p["needed"] ==
                state.minimum(team) and p["points"] == points)  # fmt: skip
    if key == "meld_size":
        after = _after(state, move)
        group = after.melds[team].get(_kind(p["rank"]))
        return group is not None and group.size == p["count"] < 7
    if key == "keeps_wilds":
        return (isinstance(move, Meld | Add) and not any(k <= TWO for k in _cards_of(move))
                and hand[JOKER] + hand[TWO] == p["count"] > 0)  # fmt: skip
    if key == "takes_with":
        return isinstance(move, TakePile) and [TOKENS[k] for k in move.cards] == p["cards"]
    if key == "can_go_out":
        return going_out_plan(state) is not None
    if key == "goes_out":
        after = _after(state, move)
        return after.end is not None and after.end.seat == seat and after.end.how != "stock"
    if key == "hand_value":
        return (
            sum(hand) == p["count"]
            and sum(VALUES[k] * c for k, c in enumerate(hand)) == (p["points"])
        )
    if key == "searched":
        return p["worlds"] >= 1 and p["margin"] >= 10 and p["margin"] % 10 == 0
    raise AssertionError(f"the oracle does not know the claim {key!r}")


KNOWN_TO_ORACLE = frozenset(
    {
        "pile_size", "pile_take", "pile_empty", "pile_frozen_for", "pile_open_for",
        "cannot_take", "blocks_pile", "freezes", "gives_pile", "their_meld", "no_their_meld",
        "known_holds", "thrown_before", "score_sheet", "table_value", "canastas",
        "going_out_ends", "piles", "makes_canasta", "makes_pile", "uses_wilds", "hand_count",
        "set_aside", "set_aside_enough", "first_meld", "meld_size", "keeps_wilds",
        "takes_with", "can_go_out", "goes_out", "hand_value", "searched",
    }
)  # fmt: skip

__all__ = ["KNOWN_TO_ORACLE", "LayDown", "holds"]
