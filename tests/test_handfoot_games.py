"""The Hand and Foot mini-game (lesson 12, ``lessons/puzzles/hand-and-foot``), played through
the widget's intents: piles by kind (H-MELD-2, H-MELD-3), the pickup's natural pair
(H-PILE-1), and what going out needs (H-OUT-1)."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from canasta_teach.engine import Add, Discard, Meld, Move
from canasta_teach.engine.cards import TOKENS
from canasta_teach.engine.handfoot import HandFootState
from canasta_teach.engine.moves import LayDown
from canasta_teach.i18n import get_translator
from canasta_teach.widgets import CardTable, PuzzleGame, play
from canasta_teach.widgets.games import GAMES
from canasta_teach.widgets.puzzles import (
    PuzzleError,
    going_out_refusal,
    load_set,
    pile_plays,
    solve,
    take_refusal,
)

REPO = Path(__file__).resolve().parents[1]
PUZZLES = REPO / "lessons" / "puzzles"
SET = PUZZLES / "hand-and-foot"


def game(lang: str = "en") -> tuple[CardTable, PuzzleGame]:
    widget = play("hand-and-foot", lang=lang, puzzles_dir=PUZZLES)
    assert isinstance(widget, CardTable), widget
    return widget, widget.game_controller


def press(g: PuzzleGame, control: str) -> None:
    g.controller.intent({"action": "game", "id": control})


def go_to(g: PuzzleGame, name: str) -> None:
    index = next(i for i, p in enumerate(g.set.puzzles) if p.name == name)
    g.load(index)


def test_the_set_loads_and_is_registered() -> None:
    puzzle_set = load_set(SET)  # every puzzle checked against the engine
    assert "hand-and-foot" in GAMES
    assert 6 <= len(puzzle_set.puzzles) <= 8
    assert all(isinstance(p.state(), HandFootState) for p in puzzle_set.puzzles)
    goals = [p.goal for p in puzzle_set.puzzles]
    assert {"pile", "take_or_explain", "out_or_explain", "go_out"} <= set(goals)
    assert {p.kind for p in puzzle_set.puzzles if p.goal == "pile"} >= {"clean", "dirty", "wild"}
    assert puzzle_set.next_lesson is None  # the last lesson's set


@pytest.mark.rule("H-MELD-3")
def test_a_clean_pile_and_a_dirty_one_offered_instead() -> None:
    w, g = game()
    tr = get_translator("en")
    assert w.game["title"] == tr.ui("game.title.hand_and_foot")
    assert w.view["actions"] == ["meld", "add"]
    assert w.view["status"] == tr.ui("game.task.pile")
    before = g.controller.state.snapshot()
    # Legal, but a wild card makes the pile dirty: explained, not played.
    g.controller.intent({"action": "add", "rank": "K", "cards": ["K", "K", "JK"]})
    assert w.message["kind"] == "refusal" and w.message["rule"] == "H-MELD-3"
    assert w.message["text"] == tr.ui(
        "game.feedback.pile_dirty_not_asked", cards=tr.cards(["K", "K", "JK"])
    )
    # Legal, but six cards are no pile.
    g.controller.intent({"action": "add", "rank": "K", "cards": ["K", "K"]})
    assert w.message["text"] == tr.ui("game.feedback.pile_short", cards=tr.cards(["K", "K"]))
    assert g.controller.state.snapshot() == before and g.solved == set()
    press(g, "hint")
    # The step, then why: the engine's fact that it completes a clean pile (issue 19).
    assert w.game["hint"].startswith(
        tr.ui("hint.step.add", cards=tr.cards(["K", "K", "K"]))
        + " " + tr.claim({"key": "makes_pile", "params": {"rank": "K", "kind": "clean"}}, "you")
    )  # fmt: skip
    g.controller.intent({"action": "add", "rank": "K", "cards": ["K", "K", "K"]})
    assert g.solved == {0} and w.message["kind"] == "success"
    assert w.message["text"] == tr.ui("game.why.pile_clean", cards=tr.cards(["K", "K", "K"]))
    state = g.controller.state
    assert isinstance(state, HandFootState) and state.pile_counts(0) == (1, 0, 0)


@pytest.mark.rule("H-MELD-2")
def test_a_dirty_pile_keeps_twice_as_many_naturals_as_wild_cards() -> None:
    w, g = game("ur")
    go_to(g, "02-dirty-pile.txt")
    g.controller.intent({"action": "add", "rank": "9", "cards": ["9", "2", "2", "JK"]})
    assert w.message["kind"] == "refusal" and w.message["rule"] == "H-MELD-2"
    g.controller.intent({"action": "add", "rank": "9", "cards": ["9", "9", "2", "2", "JK"]})
    assert w.message["rule"] == "H-MELD-3"  # eight cards
    assert g.solved == set()
    g.controller.intent({"action": "add", "rank": "9", "cards": ["9", "9", "2", "JK"]})
    assert g.solved == {1}


@pytest.mark.rule("H-MELD-3")
@pytest.mark.rule("H-MELD-4")
def test_a_wild_pile_and_no_eighth_card() -> None:
    w, g = game()
    tr = get_translator("en")
    go_to(g, "03-wild-pile.txt")
    g.controller.intent({"action": "meld", "cards": ["JK", "JK", "2", "2"]})
    assert w.message["rule"] == "H-MELD-4"  # one unfinished meld of wild cards
    g.controller.intent({"action": "add", "rank": "JK", "cards": ["JK", "JK", "2", "2"]})
    assert g.index in g.solved
    press(g, "next")
    g.controller.intent({"action": "add", "rank": "Q", "cards": ["Q", "Q"]})
    assert w.message["kind"] == "refusal" and w.message["rule"] == "H-MELD-3"
    g.controller.intent({"action": "add", "rank": "Q", "cards": ["Q"]})
    assert g.index in g.solved
    assert w.message["text"] == tr.ui("why.hf.eighth_card")


@pytest.mark.rule("H-PILE-1")
def test_a_pickup_needs_a_natural_pair() -> None:
    w, g = game("hi")
    tr = get_translator("hi")
    go_to(g, "05-take-needs-a-pair.txt")
    assert [c["id"] for c in w.game["choices"]] == [
        "reason:H-PILE-2", "reason:H-PILE-1", "reason:H-OUT-1", "reason:H-MIN-1",
    ]  # fmt: skip
    g.controller.intent({"action": "take", "cards": ["9", "JK"]})
    assert w.message["text"] == tr.ui("game.feedback.take_refused")  # the rule is the question
    press(g, "reason:H-PILE-2")
    assert w.message["kind"] == "refusal" and g.index not in g.solved
    press(g, "reason:H-PILE-1")
    assert w.message["kind"] == "success" and w.message["rule"] == "H-PILE-1"
    assert g.index in g.solved


@pytest.mark.rule("H-OUT-1")
@pytest.mark.parametrize(
    ("name", "code"),
    [("06-no-wild-pile.txt", "need_piles"), ("07-partner-not-in-foot.txt", "partner_not_in_foot")],
)
def test_going_out_refused_asks_which_rule(name: str, code: str) -> None:
    w, g = game()
    tr = get_translator("en")
    go_to(g, name)
    reason = going_out_refusal(g.controller.state)
    assert reason is not None and (reason.code, reason.rule) == (code, "H-OUT-1")
    assert w.view["actions"] == ["meld", "add", "discard"]  # no Go out planner in H&F
    assert w.game["choices_label"] == tr.ui("game.why_not_out")
    before = g.controller.state.snapshot()
    cards = g.controller.state.hand_cards(0)
    g.controller.intent({"action": "meld", "cards": _tokens(cards)})
    assert w.message["text"] == tr.ui("game.feedback.out_refused")
    g.controller.intent({"action": "discard", "cards": [_tokens(cards)[0]]})  # legal, no answer
    assert w.message["text"] == tr.ui("game.feedback.out_not_a_way")
    assert g.controller.state.snapshot() == before
    press(g, "hint")
    assert w.game["hint"] == tr.ui("hint.hf_out_explain")
    press(g, "reason:H-OUT-2")
    assert w.message["kind"] == "refusal"
    assert w.message["text"] == tr.ui(
        "game.feedback.wrong_out_reason", rule=tr.rule_title("H-OUT-2")
    )
    press(g, "reason:H-OUT-1")
    assert w.message["kind"] == "success" and g.index in g.solved


@pytest.mark.rule("H-OUT-1")
def test_going_out_from_the_foot() -> None:
    w, g = game("te")
    tr = get_translator("te")
    go_to(g, "08-go-out.txt")
    assert "go_out" not in w.view["actions"] and "lay_down" in w.view["actions"]
    g.controller.intent({"action": "discard", "cards": ["6"]})
    assert g.index not in g.solved and w.game["stage"] == "over"  # the turn ended, not out
    press(g, "retry")
    g.controller.intent({"action": "meld", "cards": ["6", "6", "6"]})
    g.controller.intent({"action": "discard", "cards": ["9"]})
    assert g.index in g.solved
    assert w.message["text"] == tr.ui("game.why.hf_go_out")
    state = g.controller.state
    assert state.end is not None and state.end.how == "out" and state.end.seat == 0


def intent(move: Move) -> dict[str, Any]:
    """The table intent a learner's clicks send for ``move``."""
    if isinstance(move, Add):
        return {"action": "add", "rank": TOKENS[move.rank], "cards": _tokens(move.cards)}
    if isinstance(move, Meld):
        return {"action": "meld", "cards": _tokens(move.cards)}
    if isinstance(move, Discard):
        return {"action": "discard", "cards": [TOKENS[move.card]]}
    if isinstance(move, LayDown):
        return {"action": "lay_down"}
    raise AssertionError(move)


def test_every_puzzle_is_solved_through_the_intents_in_order() -> None:
    w, g = game()
    for index, puzzle in enumerate(g.set.puzzles):
        assert g.index == index
        state = g.controller.state
        if puzzle.goal == "pile":
            g.controller.intent(intent(pile_plays(state, puzzle.kind)[0]))
        elif puzzle.goal == "take_or_explain":
            reason = take_refusal(state)
            assert reason is not None
            press(g, f"reason:{reason.rule}")
        elif puzzle.goal == "out_or_explain":
            reason = going_out_refusal(state)
            assert reason is not None
            press(g, f"reason:{reason.rule}")
        else:
            plan = solve(puzzle, state)
            assert plan is not None
            for move in plan:
                g.controller.intent(intent(move))
        assert index in g.solved, (puzzle.name, w.message)
        assert w.message["kind"] == "success"
        press(g, "next")
    assert g.solved == set(range(g.total))
    assert w.game["next_lesson"] is None


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ('file = "01.txt"\ngoal = "pile"\nkind = "muddy"', "'kind'"),
        ('file = "01.txt"\ngoal = "meld"\nkind = "clean"', "'kind'"),
        ('file = "01.txt"\ngoal = "pile"\nkind = "wild"', "no legal play makes a wild pile"),
        ('file = "01.txt"\ngoal = "out_or_explain"\nchoices = ["H-OUT-2"]', "not among"),
    ],
)
def test_bad_hand_and_foot_puzzles_are_refused(tmp_path: Path, entry: str, problem: str) -> None:
    folder = tmp_path / "set"
    folder.mkdir()
    source = "06-no-wild-pile.txt" if "out_or" in entry else "01-clean-pile.txt"
    shutil.copy(SET / source, folder / "01.txt")
    (folder / "set.toml").write_text(f"[[puzzle]]\n{entry}\n")
    with pytest.raises(PuzzleError, match=problem):
        load_set(folder)


def test_a_classic_position_is_no_pile_puzzle(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    folder.mkdir()
    shutil.copy(PUZZLES / "go-out" / "01-meld-and-discard.txt", folder / "01.txt")
    (folder / "set.toml").write_text('[[puzzle]]\nfile = "01.txt"\ngoal = "pile"\n')
    with pytest.raises(PuzzleError, match="Hand and Foot"):
        load_set(folder)


def _tokens(cards: Sequence[int]) -> list[str]:
    return [TOKENS[k] for k in cards]
