"""Game facts named once: the card kinds the rules single out (``cards``) and the seats' and
teams' names (``seats``), which every other module imports."""

from __future__ import annotations

import ast
from pathlib import Path

from canasta_teach.engine import cards
from canasta_teach.engine.cards import Kind
from canasta_teach.engine.seats import SEATS_2, SEATS_4, TEAMS_2, TEAMS_4, seat_names, team_names
from canasta_teach.i18n import LANGUAGES, get_translator

PACKAGE = Path(__file__).resolve().parent.parent / "canasta_teach"


def test_card_kind_constants_are_the_kinds() -> None:
    assert (cards.JOKER, cards.TWO, cards.RED3, cards.BLACK3, cards.FOUR) == (
        Kind.JOKER, Kind.TWO, Kind.RED_THREE, Kind.BLACK_THREE, Kind.FOUR,
    )  # fmt: skip


def test_a_four_player_team_is_named_by_its_seats() -> None:
    """Seat ``s`` plays for team ``s % 2``; "NS" is South and North."""
    for team, name in enumerate(TEAMS_4):
        assert sorted(name) == sorted(SEATS_4[s] for s in range(4) if s % 2 == team)
    assert TEAMS_2 == SEATS_2  # two players: each team is one seat
    assert seat_names(4) == SEATS_4 and seat_names(2) == SEATS_2
    assert team_names(4) == TEAMS_4 and team_names(2) == TEAMS_2


def test_every_language_names_every_seat_and_team() -> None:
    for lang in LANGUAGES:
        tr = get_translator(lang)
        for seat in SEATS_4:
            assert tr.seat(seat) and tr.seat(seat) != seat, (lang, seat)
        for team in (*TEAMS_4, *TEAMS_2):
            assert tr.team(team), (lang, team)


#: Modules that still declare the card-kind constants or the seat letters themselves: none
#: since issue 20 (every module imports them from ``cards`` and ``seats``).
STILL_DECLARING: set[str] = set()
_NAMES = {"JOKER", "TWO", "RED3", "BLACK3", "FOUR", "SEAT_NAMES_4", "SEAT_NAMES_2"}


def _declares_a_fact(tree: ast.Module) -> bool:
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            names = target.elts if isinstance(target, ast.Tuple) else [target]
            if any(isinstance(n, ast.Name) and n.id in _NAMES for n in names):
                return True
    return False


def test_card_kinds_and_seat_letters_are_declared_once() -> None:
    declaring = {
        str(path.relative_to(PACKAGE.parent))
        for path in PACKAGE.rglob("*.py")
        if _declares_a_fact(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert declaring - STILL_DECLARING == {"canasta_teach/engine/cards.py"}
    assert declaring >= STILL_DECLARING, "switched: remove from STILL_DECLARING"
