"""Scoring a hand (C-SCORE-1) line by line, with the seed's worked example (C-SCORE-2)."""

from __future__ import annotations

import json
import random

import pytest
from engine_helpers import play_random, position
from hypothesis import given
from hypothesis import strategies as st

from canasta_teach.engine.cards import VALUES
from canasta_teach.engine.reasons import RULES, SCORE_LINES
from canasta_teach.engine.rules import CLASSIC2, CLASSIC4
from canasta_teach.engine.scoring import HandScore, red_three_points, score_hand
from canasta_teach.engine.state import HandEnd, Phase, State


def lines(score: HandScore, team: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in score.teams[team].lines:
        assert line.code not in out, f"duplicate line {line.code}"
        out[line.code] = line.points
    return out


@pytest.mark.rule("C-SCORE-2")
@pytest.mark.rule("C-SCORE-1")
def test_worked_example_from_the_seed() -> None:
    state = position(
        hands={0: "", 1: "JK 2 10 5", 2: "10 10 10 5", 3: "5 5"},
        melds={
            # Team A (N-S): natural canasta, mixed canasta, and three more melds: 410 in all.
            0: ["K K K K K K K", "A A A A A 2 JK", "Q Q Q JK", "J J J 2", "9 9 9 9"],
            # Team B (E-W): no canasta, 180 in melds.
            1: ["A A A", "8 8 8 8 8", "6 6 6 6 JK"],
        },
        red_threes=(2, 1),
        phase=Phase.ENDED,
        end=HandEnd("out", 0),
    )
    score = score_hand(state)
    assert lines(score, 0) == {
        "canastas_natural": 500,
        "canastas_mixed": 300,
        "red_threes": 200,
        "going_out": 100,
        "melded_cards": 410,
        "cards_in_hand": -35,
    }
    assert lines(score, 1) == {"red_threes": 100, "melded_cards": 180, "cards_in_hand": -95}
    assert score.totals == (1475, 185)
    by_code = {ln.code: ln for ln in score.teams[0].lines}
    assert by_code["canastas_natural"].params == {"count": 1}
    assert by_code["red_threes"].params == {"count": 2}


@pytest.mark.rule("C-VAL-2")
def test_cards_in_hand_count_against_even_if_they_could_be_melded() -> None:
    state = position(hands={0: "8 8 8", 2: "JK", 1: "4"}, melds={0: ["K K K"], 1: ["Q Q Q"]},
                     phase=Phase.ENDED, end=HandEnd("stock", 0))  # fmt: skip
    score = score_hand(state)
    assert lines(score, 0) == {"melded_cards": 30, "cards_in_hand": -(30 + 50)}
    assert lines(score, 1) == {"melded_cards": 30, "cards_in_hand": -5}
    assert score.totals == (-50, 25)


@pytest.mark.rule("C-RED-2")
@pytest.mark.parametrize(("count", "points"), [(1, 100), (2, 200), (3, 300), (4, 800)])
def test_red_threes_score_100_each_and_800_for_four(count: int, points: int) -> None:
    assert red_three_points(count) == points
    state = position(melds={0: ["K K K"]}, red_threes=(count, 0), phase=Phase.ENDED,
                     end=HandEnd("stock", 1))  # fmt: skip
    assert lines(score_hand(state), 0)["red_threes"] == points


@pytest.mark.rule("C-RED-3")
@pytest.mark.parametrize(("count", "points"), [(1, -100), (2, -200), (4, -800)])
def test_red_threes_count_minus_without_a_meld(count: int, points: int) -> None:
    state = position(hands={0: "9"}, melds={1: ["K K K"]}, red_threes=(count, 4 - count),
                     phase=Phase.ENDED, end=HandEnd("out", 1))  # fmt: skip
    score = score_hand(state)
    assert lines(score, 0) == {"red_threes_unmelded": points, "cards_in_hand": -10}
    assert lines(score, 1).get("red_threes", 0) == red_three_points(4 - count)
    line = next(ln for ln in score.teams[0].lines if ln.code == "red_threes_unmelded")
    assert line.rule == "C-RED-3" and line.params == {"count": count}


@pytest.mark.rule("C-CAN-1")
def test_canasta_bonuses_natural_500_mixed_300() -> None:
    state = position(melds={0: ["K K K K K K K", "Q Q Q Q Q Q Q Q", "J J J J J 2 JK",
                                "9 9 9 9 9 9 2"]}, phase=Phase.ENDED,
                     end=HandEnd("stock", 0))  # fmt: skip
    got = lines(score_hand(state), 0)
    assert got["canastas_natural"] == 1000 and got["canastas_mixed"] == 600
    assert got["melded_cards"] == 70 + 80 + 50 + 20 + 50 + 60 + 20


@pytest.mark.rule("C-OUT-2")
@pytest.mark.rule("C-OUT-3")
@pytest.mark.parametrize(
    ("how", "code", "points"),
    [("out", "going_out", 100), ("concealed", "going_out_concealed", 200)],
)
def test_going_out_bonus_only_for_the_team_going_out(how: str, code: str, points: int) -> None:
    state = position(melds={0: ["K K K K K K K"], 1: ["Q Q Q"]}, phase=Phase.ENDED,
                     end=HandEnd(how, 2))  # fmt: skip
    score = score_hand(state)
    assert lines(score, 0)[code] == points
    assert not {"going_out", "going_out_concealed"} & set(lines(score, 1))
    assert not {"going_out", "going_out_concealed"} - {code} & set(lines(score, 0))


def _expected_total(state: State, team: int) -> int:
    """C-SCORE-1 computed from the state's fields, independently of ``scoring``."""
    melds = list(state.melds[team].values())
    canastas = sum(
        (500 if g.jokers + g.twos == 0 else 300)
        for g in melds
        if g.naturals + g.jokers + g.twos >= 7
    )
    reds = state.red_threes[team]
    red_points = 800 if reds == 4 else 100 * reds
    if not melds:
        red_points = -red_points
    out = 0
    if state.end is not None and state.end.seat % 2 == team:
        out = {"out": 100, "concealed": 200, "stock": 0}[state.end.how]
    melded = sum(g.naturals * VALUES[g.rank] + 50 * g.jokers + 20 * g.twos for g in melds)
    seats = range(team, state.players, 2)
    in_hand = sum(c * VALUES[k] for s in seats for k, c in enumerate(state.hands[s]))
    return canastas + red_points + out + melded - in_hand - state.penalties[team]


@pytest.mark.rule("C-SCORE-1")
@given(seed=st.integers(0, 2**32), two=st.booleans(), greedy=st.floats(0.0, 1.0))
def test_hand_score_is_the_sum_of_its_parts(seed: int, two: bool, greedy: float) -> None:
    rules = CLASSIC2 if two else CLASSIC4
    state = State.deal(seed, rules)
    play_random(state, random.Random(seed), greedy=greedy)
    assert state.is_over
    score = score_hand(state)
    for team in (0, 1):
        assert score.teams[team].total == _expected_total(state, team)
        assert score.totals[team] == sum(ln.points for ln in score.teams[team].lines)
        for line in score.teams[team].lines:
            assert line.code in SCORE_LINES and line.rule in RULES
            assert set(line.params) == set(SCORE_LINES[line.code])
            assert line.points != 0
    # JSON-ready, so the widgets and the savefile can carry it.
    assert json.loads(json.dumps(score.to_dict()))["teams"][0]["total"] == score.totals[0]
