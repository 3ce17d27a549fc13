"""The engine plays every golden trace (``tests/golden``) exactly as it was recorded.

Each case (a preset, or a preset with one rule option switched: ``golden.trace.CASES``) is
played again: the random games by the same seeded choice over ``legal_moves()``, the bot games
from their stored moves.  Every move's events, the legal moves and the verdicts of a battery
of candidate moves at sampled states, the views and positions (as digests), each hand's end,
score lines and the game's totals must be what they were.  A failure names the first
difference: the case, the game, the hand, the move, and what differed.

When the engine is meant to change what it does, write the traces again
(``python -m tests.golden.make``) and review their diff.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import pytest
from golden.trace import CASES, Case, first_difference, play_case, script_of

GOLDEN = Path(__file__).resolve().parent / "golden"


@functools.cache
def _golden(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    return data


@functools.cache
def _played(name: str) -> dict[str, Any]:
    case = next(c for c in CASES if c.name == name)
    return play_case(case, script_of(_golden(name)))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_the_engine_plays_the_golden_trace(case: Case) -> None:
    problem = first_difference(_golden(case.name), _played(case.name))
    if problem is not None:
        pytest.fail(problem, pytrace=False)


def test_every_case_has_its_file_and_every_file_a_case() -> None:
    files = {path.stem for path in GOLDEN.glob("*.json")}
    names = [case.name for case in CASES]
    assert len(set(names)) == len(names)
    assert files == set(names), "run `python -m tests.golden.make` (and delete stale files)"


def test_the_cases_cover_every_preset_and_every_option_a_family_reads() -> None:
    from canasta_teach.engine.rules import BOOL_OPTIONS, FAMILY_INT_RANGES, PRESETS, int_range

    presets = {case.preset for case in CASES if case.option is None}
    assert presets == set(PRESETS)
    for name, base in PRESETS.items():
        options = {case.option for case in CASES if case.preset == name and case.option}
        free = {
            option
            for option in FAMILY_INT_RANGES[base.family]
            if len(set(int_range(option, base.players, base.family))) > 1
        }
        assert options == set(BOOL_OPTIONS[base.family]) | free, name


def test_the_traces_see_what_they_must() -> None:
    """The golden games reach the events and ends that matter (else they pin little)."""
    events: set[str] = set()
    ends: set[str] = set()
    notes: set[str] = set()
    for case in CASES:
        for game in _golden(case.name)["games"]:
            for hand in game["hands"]:
                ends.add(hand["end"]["how"])
                for line in hand.get("trace", []):
                    events |= {event["code"] for event in line.get("events", [])}
                    if "note" in line:
                        notes.add(line["note"].split()[1])
    assert {"drew", "red_three", "took_pile", "melded", "set_aside", "added", "went_down",
            "taken_back", "discarded", "asked", "answered", "penalty", "turn", "hand_over",
            "pile", "foot"} <= events  # fmt: skip
    assert {"out", "stock"} <= ends
    assert "set_aside" in notes


# ------------------------------------------------------------------ the comparison can fail


def _first_full_hand(record: dict[str, Any]) -> list[dict[str, Any]]:
    trace: list[dict[str, Any]] = record["games"][0]["hands"][0]["trace"]
    return trace


def test_a_changed_event_is_reported_with_its_case_hand_and_move() -> None:
    golden = copy.deepcopy(_golden("classic4"))
    line = next(line for line in _first_full_hand(golden) if line.get("n") == 5)
    line["events"][0]["seat"] = (line["events"][0]["seat"] + 1) % 4
    problem = first_difference(golden, _played("classic4"))
    assert problem is not None
    assert problem.startswith("classic4, random game, hand 1, move 5: the events differ")


def test_a_changed_verdict_and_a_changed_legal_list_are_reported() -> None:
    golden = copy.deepcopy(_golden("handfoot"))
    sample = next(line for line in _first_full_hand(golden) if line.get("sample") == 20)
    verdict, moves = next(iter(sample["battery"].items()))
    sample["battery"][verdict] = moves[1:]
    sample["battery"].setdefault("H-TURN-1 draw_first", []).append(moves[0])
    problem = first_difference(golden, _played("handfoot"))
    assert problem is not None
    assert problem.startswith("handfoot, random game, hand 1, the state before move 20")
    assert f"{moves[0]!r}: golden 'H-TURN-1 draw_first', now {verdict!r}" in problem
    golden = copy.deepcopy(_golden("handfoot"))
    sample = next(line for line in _first_full_hand(golden) if line.get("sample") == 20)
    sample["legal"] = sample["legal"][::-1]
    problem = first_difference(golden, _played("handfoot"))
    assert problem is not None and "legal_moves() differs (order)" in problem


def test_a_changed_digest_hand_is_placed_within_its_moves() -> None:
    golden = copy.deepcopy(_golden("classic4"))
    hand = golden["games"][0]["hands"][2]
    assert "trace" not in hand, "the third hand of a preset is kept as a digest"
    hand["chunks"][3] = "0" * 16
    problem = first_difference(golden, _played("classic4"))
    assert problem is not None
    assert problem.startswith("classic4, random game, hand 3, a digest hand")
    assert "moves 48 to 63" in problem
    golden["games"][0]["hands"][2] = {**_golden("classic4")["games"][0]["hands"][2],
                                      "totals": [0, 0]}  # fmt: skip
    problem = first_difference(golden, _played("classic4"))
    assert problem is not None and "hand 3, at its end: totals differs" in problem
