"""A hand's score as the panels show it: each line's points (``signed``) and why, in words
(``line_facts``), an ended hand's breakdown (``breakdown_sheet``) and every player's cards left
(``leftover_hands``). The full game, a room and the scoring mini-games draw the same sheet.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from canasta_teach.engine import State
from canasta_teach.engine.cards import TOKENS, kinds_of
from canasta_teach.engine.scoring import ScoreLine, score_hand
from canasta_teach.engine.teams import seats_of
from canasta_teach.engine.variants import variant_of
from canasta_teach.engine.view import seat_names, team_names
from canasta_teach.i18n import Translator

from .gametable import LEARNER
from .table import capitalised

#: Why each score line counts what it counts (the line's facts fill the message).
SCORE_WHY = {
    "canastas_natural": "game.score.why.canastas_natural",
    "canastas_mixed": "game.score.why.canastas_mixed",
    "red_threes": "game.score.why.red_threes",
    "red_threes_unmelded": "game.score.why.red_threes_unmelded",
    "going_out": "game.score.why.going_out",
    "going_out_concealed": "game.score.why.going_out_concealed",
    "melded_cards": "game.score.why.melded_cards",
    "cards_in_hand": "game.score.why.cards_in_hand",
    "ask_penalty": "game.score.why.ask_penalty",
    # Hand and Foot (H-SCORE-1, H-RED-1, H-VAL-1)
    "piles_clean": "game.score.why.piles_clean",
    "piles_dirty": "game.score.why.piles_dirty",
    "piles_wild": "game.score.why.piles_wild",
    "red_threes_left": "game.score.why.red_threes_left",
    "cards_in_hand_foot": "game.score.why.cards_in_hand_foot",
}


def signed(points: int) -> str:
    """A score as the sheet shows it: thousands commas, a real minus sign, and kept left to
    right inside right-to-left text (an isolate: in Urdu "−35" must not become "35−")."""
    text = f"{abs(points):,}"
    return "\u2066" + ("\u2212" + text if points < 0 else text) + "\u2069"


def line_facts(
    tr: Translator, state: State, seat: int, team: int, line: ScoreLine | None
) -> tuple[str, list[str]]:
    """Why a score line (or a team's total, ``line`` None) is what it is, in words, and the
    selectors of the table parts it counts (a puzzle highlights them)."""
    side = ".ct-us" if team == seat % 2 else ".ct-them"
    points = signed
    if line is None:
        score = score_hand(state).teams[team]
        working = " + ".join(points(ln.points) for ln in score.lines).replace("+ \u2212", "\u2212 ")
        return tr.ui("game.score.why.total", working=working or "0",
                     total=points(score.total)), []  # fmt: skip
    if variant_of(state).piles_of_seven:
        return _pile_line_facts(tr, state, side, team, line)
    melds = list(state.melds[team].values())
    if line.code in ("canastas_natural", "canastas_mixed"):
        natural = line.code == "canastas_natural"
        chosen = [g for g in melds if g.is_canasta and g.is_natural == natural]
        # " · " between canastas: a list joiner would run two canastas' cards together.
        names = " · ".join(tr.cards([TOKENS[k] for k in g.cards()]) for g in chosen)
        selectors = [f"{side} [data-ct-meld='{TOKENS[g.rank]}']" for g in chosen]
        return tr.ui(SCORE_WHY[line.code], melds=names), selectors
    if line.code in ("red_threes", "red_threes_unmelded"):
        count = int(line.params.get("count", 0))
        return tr.ui(SCORE_WHY[line.code], cards=tr.card("3R", count)), [f"{side} .ct-red-threes"]
    if line.code == "melded_cards":
        # "seven kings (70) + five queens, a 2 and a joker (120)": each meld and its count.
        working = _melds_working(tr, melds)
        selectors = [f"{side} [data-ct-meld='{TOKENS[g.rank]}']" for g in melds]
        return tr.ui(SCORE_WHY[line.code], working=working, total=points(line.points)), selectors
    if line.code == "cards_in_hand":
        seats = list(seats_of(team, state.players))
        left = [
            TOKENS[k] for s in seats for k in range(len(TOKENS)) for _ in range(state.hands[s][k])
        ]
        why = tr.ui(SCORE_WHY[line.code], cards=tr.cards(left), total=points(-line.points))
        return why, _leftover_selectors(state, seats)
    return tr.ui(SCORE_WHY[line.code]), []


def _melds_working(tr: Translator, groups: Sequence[Any]) -> str:
    """A team's melds with their values, as the sheet's working: "seven kings (70) + five
    queens, a 2 and a joker (120)"."""
    return " + ".join(
        tr.ui(
            "game.value_part",
            cards=tr.cards([TOKENS[k] for k in g.cards()]),
            points=signed(g.value),
        )  # fmt: skip
        for g in groups
    )


def _pile_line_facts(
    tr: Translator, state: State, side: str, team: int, line: ScoreLine
) -> tuple[str, list[str]]:
    """``line_facts`` for a Hand and Foot round: piles by kind, red threes laid and left,
    the cards melded (piles and unfinished melds), the cards left in hands and feet."""
    points = signed
    if line.code in ("piles_clean", "piles_dirty", "piles_wild"):
        kind = line.code.removeprefix("piles_")
        chosen = [g for made, g in state.complete_piles(team) if made == kind]
        names = " · ".join(tr.cards([TOKENS[k] for k in g.cards()]) for g in chosen)
        return tr.ui(SCORE_WHY[line.code], piles=names), [f"{side} [data-ct-pile-kind='{kind}']"]
    if line.code in ("red_threes", "red_threes_left"):
        count = int(line.params.get("count", 0))
        key = variant_of(state).word(SCORE_WHY[line.code])
        value = points(state.rules.red_three_value)
        return tr.ui(key, cards=tr.card("3R", count), value=value), [f"{side} .ct-red-threes"]
    if line.code == "melded_cards":
        groups = [g for _, g in state.complete_piles(team)] + list(state.melds[team].values())
        working = _melds_working(tr, groups)
        return tr.ui(SCORE_WHY[line.code], working=working, total=points(line.points)), []
    if line.code == "cards_in_hand_foot":
        seats = list(seats_of(team, state.players))
        left = [
            TOKENS[k]
            for s in seats
            for counts in (state.hands[s], state.face_down_foot(s) or [0] * len(TOKENS))
            for k in range(len(TOKENS))
            for _ in range(counts[k])
            if k != 2  # red threes have their own line
        ]
        why = tr.ui(SCORE_WHY[line.code], cards=tr.cards(left), total=points(-line.points))
        return why, _leftover_selectors(state, seats)
    return tr.ui(SCORE_WHY[line.code]), []


def _leftover_selectors(state: State, seats: list[int]) -> list[str]:
    """The rows of the leftover cards (``leftover_hands``, drawn under the sheet) of
    these seats, with a Hand and Foot foot not picked up."""
    names = seat_names(state.players)
    rows = [f"[data-ct-leftover='{names[s]}']" for s in seats]
    rows += [f"[data-ct-leftover='{names[s]}-foot']" for s in seats
             if state.face_down_foot(s) is not None]  # fmt: skip
    return rows


def breakdown_sheet(
    tr: Translator, state: State, number: int, seat: int = LEARNER
) -> dict[str, Any]:
    """An ended hand's score for the panel's sheet: each team's lines (label, points, why in
    words, rule id) and total, the side of ``seat`` (the learner's) first."""
    mine = seat % 2
    names = team_names(state.players)
    hand = score_hand(state)
    teams = []
    for t in (mine, 1 - mine):
        score = hand.teams[t]
        lines = []
        for i, line in enumerate(score.lines):
            why, _parts = line_facts(tr, state, seat, t, line)
            lines.append({
                "id": f"{t}-{i}",
                "label": tr.score_label(line),
                "value": signed(line.points),
                "why": capitalised(why),
                "rule": line.rule,
                "rule_title": tr.rule_title(line.rule),
            })  # fmt: skip
        label = tr.ui("game.full.sheet.we" if t == mine else "game.full.sheet.they")
        teams.append({
            "id": f"team-{t}",
            "name": f"{label} ({tr.team(names[t])})",
            "lines": lines,
            "total": {"id": f"{t}-total", "label": tr.ui("game.score.total"),
                      "value": signed(score.total)},
        })  # fmt: skip
    key = variant_of(state).word("game.full.breakdown")
    return {"label": tr.ui(key, number=tr.number(number)), "teams": teams,
            "hands": leftover_hands(tr, state, seat)}  # fmt: skip


def leftover_hands(
    tr: Translator, state: State, seat: int = LEARNER, *, by_team: bool = False
) -> dict[str, Any]:
    """Every player's cards left when the hand ended, face up (the hand is over: nothing is
    hidden any more), each seat from ``seat`` on round the table (``by_team``: ``seat`` and
    its partner first, then the other team, as a score sheet counts them), with the count and
    the cards in words for a screen reader; in Hand and Foot also a foot not picked up, whose
    cards count against the team as well (H-VAL-1)."""
    names = seat_names(state.players)

    def cards_of(counts: Sequence[int], name: str, foot: bool) -> dict[str, Any]:
        cards = [TOKENS[k] for k in kinds_of(counts)]
        n = len(cards)
        if not n:
            label = tr.ui("game.full.leftover.none", seat=name)
        elif foot:
            label = tr.ntext("ui", "game.full.leftover.foot", n, seat=name, count=n,
                             cards=tr.cards(cards))  # fmt: skip
        else:
            label = tr.ntext("ui", "game.full.leftover.seat", n, seat=name, count=n,
                             cards=tr.cards(cards))  # fmt: skip
        return {"cards": cards, "count": n, "label": label,
                "count_text": tr.ntext("ui", "game.full.leftover.count", n, count=n)}  # fmt: skip

    order = [(seat + i) % state.players for i in range(state.players)]
    if by_team:
        order = [s for s in order if s % 2 == seat % 2] + [s for s in order if s % 2 != seat % 2]
    seats = []
    for s in order:
        name = tr.seat(names[s])
        entry = {"id": names[s], "name": name, **cards_of(state.hands[s], name, False)}
        foot = state.face_down_foot(s)
        if foot is not None:
            entry["foot"] = {"name": tr.ui("game.full.leftover.foot_label"),
                             **cards_of(foot, name, True)}  # fmt: skip
        seats.append(entry)
    return {"label": tr.ui(variant_of(state).word("game.full.leftover.caption")), "seats": seats}
