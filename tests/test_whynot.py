"""Why not?  A greyed-out button still answers: pressed with nothing selected, it shows the rule
that stops every move of its kind now (``canasta_teach.widgets.whynot``), and nothing changes.

Intents are sent as the browser sends them; each test checks the message (its rule id and the
engine's sentence) and that the state is exactly as it was.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canasta_teach.engine import Add, Answer, AskPartner, Kind, Meld, State
from canasta_teach.engine.handfoot import HandFootState
from canasta_teach.engine.notation import parse_position
from canasta_teach.i18n import get_translator
from canasta_teach.widgets import CardTable, PuzzleGame, TableController, play
from canasta_teach.widgets.goout import can_go_out
from canasta_teach.widgets.puzzles import best_take_attempt, going_out_refusal
from canasta_teach.widgets.whynot import MOVE_OF_ACTION, refusal_for, why_not

LANGS = ("en", "ur", "hi", "te")
REPO = Path(__file__).resolve().parents[1]
PUZZLES = REPO / "lessons" / "puzzles"

# South has drawn; the team is down with a meld of aces.
MELD_PHASE = """
rules: classic4
turn: S meld
S: K K K 9 J 5 4 4
W: ?11
N: ?11
E: ?11
NS melds: A A A
EW melds: 8 8 8
pile: 6 10
stock: rest
seed: 1
"""
DRAW_PHASE = MELD_PHASE.replace("turn: S meld", "turn: S draw")

# The learner's report: holding a 2 and a 10 after the draw, with a meld of 10s and one of
# kings but no canasta.  Adding the 10 or the 2 would leave a single card, which could only be
# discarded to go out (C-OUT-5); adding both would go out at once (C-OUT-1).
TWO_AND_TEN = """
rules: classic4
turn: S meld
S: 10 2
W: ?11
N: ?11
E: ?11
NS melds: 10 10 10 10 | K K K
EW melds: 8 8 8
pile: 6 9
stock: rest
seed: 1
"""

# The team is down without a canasta; Q Q Q and a 5 cannot go out.
NO_CANASTA = """
rules: classic4
turn: S meld
S: Q Q Q 5
W: ?11
N: ?11
E: ?11
NS melds: A A A
pile: 6 10
stock: rest
seed: 3
"""

# The pile is frozen by a joker; South holds one 7 (the top card) and a joker.
FROZEN = """
rules: classic4
turn: S draw
S: K K Q 9 7 6 5 5 4 4 JK
W: ?11
N: ?11
E: ?11
NS melds: A A A 2
EW melds: 8 8 8
pile: 5 10 JK 4 7
stock: rest
seed: 7
"""

# Hand and Foot, round 2 (minimum 90): South has drawn and nothing is set aside.
HF_MELD_PHASE = """rules: handfoot
round: 2
turn: S meld
S: K K K Q Q Q JK 9 8 7 6 5 4
W: ?13
N: ?13
E: ?13
stock: rest
"""


def table(text: str, lang: str = "en", **kwargs: Any) -> TableController:
    state = parse_position(text)
    return TableController(state, get_translator(lang), lang, seat=state.current, **kwargs)


def press(c: TableController, action: str, **extra: Any) -> dict[str, str]:
    """Press ``action`` with nothing selected; the state must not change."""
    before = c.state.copy()
    c.intent({"action": action, "cards": [], **extra})
    assert c.state == before, f"pressing {action} changed the table"
    message = c.widget.message
    assert message["kind"] == "refusal"
    return message


# ---------------------------------------------------------------------- the turn's order


def test_draw_pressed_in_the_meld_phase_cites_the_turn_rule() -> None:
    c = table(MELD_PHASE)
    assert not c.widget.view["enabled"]["draw"]
    message = press(c, "draw")
    reason = why_not(c.state, "draw")
    assert reason is not None and (reason.code, reason.rule) == ("already_drew", "C-TURN-1")
    assert message["rule"] == "C-TURN-1"
    assert message["text"] == c.tr.reason(reason)
    assert message["rule_title"] == c.tr.rule_title("C-TURN-1")


def test_discard_before_drawing_cites_the_turn_rule() -> None:
    c = table(DRAW_PHASE)
    assert not c.widget.view["enabled"]["discard"]
    message = press(c, "discard")
    reason = why_not(c.state, "discard")
    assert reason is not None and (reason.code, reason.rule) == ("draw_first", "C-TURN-1")
    assert message["rule"] == "C-TURN-1" and message["text"] == c.tr.reason(reason)
    # Two cards selected before the draw: still the order of the turn, not "select one card".
    c.intent({"action": "discard", "cards": ["K", "9"]})
    assert c.widget.message["rule"] == "C-TURN-1"


@pytest.mark.parametrize(
    "position",
    [
        DRAW_PHASE,  # the team is down: melding waits for the draw
        # Not down yet (a first meld could be set aside before the draw), but no meld can be
        # made from this hand: the draw comes first.
        DRAW_PHASE.replace("NS melds: A A A\n", "").replace(
            "S: K K K 9 J 5 4 4", "S: K Q J 9 8 7 6 5 4 10 A"
        ),
    ],
)
def test_meld_and_add_pressed_in_the_draw_phase_cite_the_turn_rule(position: str) -> None:
    c = table(position)
    assert not c.widget.view["enabled"]["meld"]
    for action in ("meld", "add", "go_out"):
        message = press(c, action)
        assert message["rule"] == "C-TURN-1", action
        assert message["text"] == c.tr.reason(why_not(c.state, "meld"))  # type: ignore[arg-type]


# ---------------------------------------------------------------------- the learner's report


@pytest.mark.rule("C-OUT-5")
@pytest.mark.parametrize("lang", LANGS)
def test_a_two_and_a_ten_without_a_canasta_cite_c_out_5(lang: str) -> None:
    c = table(TWO_AND_TEN, lang)
    tr = get_translator(lang)
    state = c.state
    assert not c.widget.view["enabled"]["add"]  # the meld buttons look unavailable
    reason = why_not(state, "add")
    assert reason is not None and (reason.code, reason.rule) == ("keep_a_card", "C-OUT-5")
    # The "Add to meld" button, and a tap on either meld: each says C-OUT-5.
    for extra in ({}, {"rank": "10"}, {"rank": "K"}):
        message = press(c, "add", **extra)
        assert message["rule"] == "C-OUT-5"
        assert message["text"] == tr.reason(reason)
        assert message["rule_title"] == tr.rule_title("C-OUT-5")
    # Why C-OUT-5 and not C-OUT-1: the candidate with the most cards (adding both) would empty
    # the hand, which is going out; the telling one keeps a card for the discard.
    assert state.check(Add(Kind.TEN, (Kind.TEN, Kind.TWO))).reason.rule == "C-OUT-1"  # type: ignore[union-attr]
    assert state.check(Add(Kind.TEN, (Kind.TEN,))).reason == reason


def test_a_well_formed_meld_is_more_telling_than_a_short_one() -> None:
    # 9 9 9 would leave the 5 alone (C-OUT-5); 9 9 or the 5 alone are no meld at all (C-MELD-1).
    c = table(NO_CANASTA.replace("S: Q Q Q 5", "S: 9 9 9 5"))
    assert not c.widget.view["enabled"]["meld"]
    message = press(c, "meld")
    assert message["rule"] == "C-OUT-5"
    assert c.state.check(Meld((Kind.NINE, Kind.NINE))).reason.rule == "C-MELD-1"  # type: ignore[union-attr]
    # With no pair at all, every candidate is a shape refusal: the largest group is named.
    c = table(NO_CANASTA.replace("S: Q Q Q 5", "S: K Q 9 9 5"))
    message = press(c, "meld")
    reason = why_not(c.state, "meld")
    assert reason is not None and reason.code == "too_few" and reason.params["cards"] == ["9", "9"]
    assert message["rule"] == "C-MELD-1" and message["text"] == c.tr.reason(reason)


def test_add_with_no_meld_to_add_to_says_so() -> None:
    c = table(MELD_PHASE.replace("NS melds: A A A\n", ""))
    assert c.widget.view["enabled"]["meld"] and not c.widget.view["enabled"]["add"]
    message = press(c, "add")
    assert message["text"] == c.tr.ui("msg.no_meld_to_add") and message["rule"] == "C-MELD-3"
    # A legal meld exists: Meld with nothing selected asks for a selection, as before.
    c.intent({"action": "meld", "cards": []})
    assert c.widget.message["text"] == c.tr.ui("msg.select_cards")


def test_add_when_nothing_fits_names_what_the_meld_takes() -> None:
    c = table(MELD_PHASE.replace("S: K K K 9 J 5 4 4", "S: K Q 9 5 4"))
    message = press(c, "add")
    reason = why_not(c.state, "add")
    assert reason is not None and reason.code == "wrong_rank" and reason.params["rank"] == "A"
    assert message["rule"] == "C-MELD-1" and message["text"] == c.tr.reason(reason)


# ---------------------------------------------------------------------- go out, take, ask


@pytest.mark.rule("C-OUT-1")
def test_go_out_when_the_hand_cannot_gives_the_planners_reason() -> None:
    c = table(NO_CANASTA)
    assert not c.widget.view["enabled"]["go_out"]
    expected = going_out_refusal(c.state)
    assert expected is not None and expected.rule in ("C-OUT-1", "C-OUT-5")
    message = press(c, "go_out")
    assert message["rule"] == expected.rule and message["text"] == c.tr.reason(expected)
    # A selection that leaves two cards over is no way out either: the same answer.
    c.intent({"action": "go_out", "cards": ["Q"]})
    assert c.widget.message["rule"] == expected.rule


def test_go_out_with_a_way_out_still_asks_for_the_selection() -> None:
    c = table(NO_CANASTA.replace("A A A", "A A A A A A A"))
    assert c.widget.view["enabled"]["go_out"]
    message = press(c, "go_out")
    assert message["text"] == c.tr.ui("msg.go_out_select") and message["rule"] == ""


@pytest.mark.rule("C-PILE-3")
@pytest.mark.parametrize(
    ("position", "cards", "code", "rule"),
    [
        # Frozen by a joker; one 7 and a joker are no natural pair.
        (FROZEN, (Kind.SEVEN, Kind.JOKER), "frozen_needs_pair", "C-PILE-3"),
        # Not down yet: the pair of 7s is there, but 7 + 7 + 7 are far from the 50 the first
        # meld needs (taking no cards would only have said "a natural pair").
        (
            FROZEN.replace("NS melds: A A A 2\n", "")
            .replace("10 JK 4 7", "10 9 4 7")
            .replace("S: K K Q 9 7 6 5 5 4 4 JK", "S: K Q 9 7 7 6 5 4 4 8 8"),
            (Kind.SEVEN, Kind.SEVEN),
            "below_minimum",
            "C-PILE-6",
        ),
    ],
)
def test_take_without_a_selection_tries_the_hands_best_pickup(
    position: str, cards: tuple[Kind, ...], code: str, rule: str
) -> None:
    c = table(position)
    assert not c.widget.view["enabled"]["take"]
    message = press(c, "take")
    attempt = best_take_attempt(c.state)
    assert attempt.cards == cards
    reason = c.state.check(attempt).reason
    assert reason is not None and (reason.code, reason.rule) == (code, rule)
    assert message["rule"] == rule and message["text"] == c.tr.reason(reason)


def test_ask_with_nobody_in_the_partners_seat_or_with_two_players() -> None:
    c = table(MELD_PHASE)  # no player function for North
    assert c.state.is_legal(AskPartner())  # the engine allows it: nobody could answer
    message = press(c, "ask")
    assert message["text"] == c.tr.ui("msg.no_partner_to_ask") and message["rule"] == "C-ASK-1"
    two = table(
        "rules: classic2\nturn: S meld\nS: K K K 9 J 5 4 4\nN: ?15\nS melds: A A A\n"
        "N melds: 8 8 8\npile: 6 10\nstock: rest\n"
    )
    # A two-player table has no Ask button (no partner, C-ASK-1); a puzzle that offers it
    # anyway gets the engine's reason when it is pressed.
    assert "ask" not in two.actions
    two.actions = (*two.actions, "ask")
    message = press(two, "ask")
    reason = why_not(two.state, "ask")
    assert reason is not None and (reason.code, reason.rule) == ("ask_off", "C-ASK-1")
    assert message["text"] == two.tr.reason(reason)


def test_off_the_learners_turn_the_answer_is_whose_turn_it_is() -> None:
    state = parse_position(MELD_PHASE)
    c = TableController(state, get_translator("hi"), "hi", seat=1)
    for action in ("draw", "meld", "discard", "go_out"):
        message = press(c, action)
        assert message["text"] == c.tr.ui("msg.not_your_turn", seat=c.tr.seat("S"))


# ---------------------------------------------------------------------- Hand and Foot


@pytest.mark.rule("H-MIN-1")
def test_hand_and_foot_lay_down_with_nothing_set_aside() -> None:
    c = table(HF_MELD_PHASE)
    assert isinstance(c.state, HandFootState)
    assert not c.widget.view["enabled"]["lay_down"]
    message = press(c, "lay_down")
    reason = why_not(c.state, "lay_down")
    assert reason is not None and (reason.code, reason.rule) == ("nothing_set_aside", "H-MIN-1")
    assert message["rule"] == "H-MIN-1" and message["text"] == c.tr.reason(reason)
    message = press(c, "add")
    assert message["text"] == c.tr.ui("msg.no_meld_to_add") and message["rule"] == "H-MELD-4"


@pytest.mark.rule("H-TURN-1")
def test_hand_and_foot_buttons_in_the_draw_phase_cite_h_turn_1() -> None:
    position = HF_MELD_PHASE.replace("turn: S meld", "turn: S draw\nNS melds: 10 10 10")
    c = table(position)
    for action in ("meld", "add", "discard", "lay_down"):
        assert not c.widget.view["enabled"][action], action
        message = press(c, action)
        assert message["rule"] == "H-TURN-1", action
    message = press(table(HF_MELD_PHASE), "draw")
    assert message["rule"] == "H-TURN-1"


# ---------------------------------------------------------------------- every position


def _random_position(seed: int, steps: int) -> State:
    state = State.deal(seed)
    rng = random.Random(seed)
    for _ in range(steps):
        moves = state.legal_moves()
        if not moves:
            break
        state.play(rng.choice(moves))
    return state


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 80))
def test_an_answer_exactly_when_no_move_of_the_kind_is_legal(seed: int, steps: int) -> None:
    """For every button: an answer iff no move of its kind is legal; the answer is the
    engine's refusal of the move it names; pressing the button shows it and changes nothing."""
    state = _random_position(seed, steps)
    seat = state.to_move
    c = TableController(
        state, get_translator("en"), "en", seat=seat, players={state.partner(seat): _yes}
    )
    legal = state.legal_moves()
    for action in ("draw", "take", "meld", "add", "discard", "go_out", "ask"):
        refusal = refusal_for(state, action)
        if action == "go_out":
            possible = can_go_out(state)
        else:
            possible = any(isinstance(m, MOVE_OF_ACTION[action]) for m in legal)
        assert (refusal is None) == possible or state.is_over, action
        if refusal is None or state.is_over:
            continue
        if refusal.reason is not None and refusal.move is not None:
            assert state.check(refusal.move).reason == refusal.reason
        before = c.state.copy()
        c.intent({"action": action, "cards": []})
        assert c.state == before
        message = c.widget.message
        assert message["kind"] == "refusal"
        if refusal.reason is not None:
            assert message["rule"] == refusal.reason.rule
            assert message["text"] == c.tr.reason(refusal.reason)
        else:
            assert message["text"] == c.tr.ui(refusal.key)


def _yes(state: State) -> Answer:
    return Answer(True)


# ---------------------------------------------------------------------- the games around


def puzzles(name: str, where: Path = PUZZLES) -> tuple[CardTable, PuzzleGame]:
    widget = play(name, lang="en", puzzles_dir=where)
    assert isinstance(widget, CardTable), widget
    return widget, widget.game_controller


def test_a_lesson_puzzle_says_why_a_greyed_out_button_cannot_be_used() -> None:
    # Lesson 2's first puzzle: "discarding before you draw ... is refused, and the game tells
    # you why".
    w, g = puzzles("your-turn")
    assert not w.view["enabled"]["discard"] and "discard" in w.view["actions"]
    message = press(g.controller, "discard")
    assert message["rule"] == "C-TURN-1"
    assert message["text"] == g.tr.reason(why_not(g.controller.state, "discard"))  # type: ignore[arg-type]
    assert g.solved == set()


def test_the_quiz_still_words_a_refusal_without_giving_the_answer_away() -> None:
    """Hand and Foot's "can you go out?" puzzle: Meld pressed with nothing selected is refused
    for a going-out rule on offer, so the table says only that going out is refused."""
    w, g = puzzles("hand-and-foot")
    index = next(i for i, p in enumerate(g.set.puzzles) if p.name == "06-no-wild-pile.txt")
    g.load(index)
    offered = [c["id"].removeprefix("reason:") for c in w.game["choices"]]
    assert not w.view["enabled"]["meld"]
    assert why_not(g.controller.state, "meld").rule in offered  # type: ignore[union-attr]
    message = press(g.controller, "meld")
    assert message["text"] == g.tr.ui("game.feedback.out_refused") and message["rule"] == ""


def test_previous_and_next_at_the_ends_of_a_set_say_why_and_keep_the_puzzle() -> None:
    w, g = puzzles("meld", PUZZLES / "_test")
    tr = g.tr
    g.controller.intent({"action": "meld", "cards": ["K"]})  # a refusal: the puzzle is in use
    g.controller.intent({"action": "game", "id": "previous"})
    assert g.index == 0 and w.message["text"] == tr.ui("msg.first_puzzle")
    for _ in range(g.total - 1):
        g.controller.intent({"action": "game", "id": "next"})
    state = g.controller.state.copy()
    g.controller.intent({"action": "game", "id": "next"})
    assert g.index == g.total - 1 and w.message["text"] == tr.ui("msg.last_puzzle")
    assert g.controller.state == state
    controls = {c["id"]: c for c in w.game["controls"]}
    assert controls["next"]["enabled"] is False  # drawn unavailable, yet it answered


def test_go_out_pressed_with_nothing_selected_and_one_card_held_says_the_hands_reason() -> None:
    # Hypothesis found it: with one card held and nothing selected, the planner tried to lay
    # down nothing and said "choose the cards first", while the button's why-not said that a
    # lone 5 is no meld (the rule that truly stops going out here).
    state = parse_position(
        """\
        rules: classic4
        turn: W meld
        S: ?8
        W: 5
        N: ?10
        E: ?11
        NS melds: K K K | 9 9 9 9 | 4 4 JK
        EW melds: A A A JK | J J J J | 8 8 8 2 | 6 6 6 6 6 6 2 2 | 4 4 4 4 2 JK JK
        pile: 10 Q
        stock: rest
        flags: melded-this-turn
        """
    )
    c = TableController(state, get_translator("en"), "en", seat=1)
    refusal = refusal_for(state, "go_out")
    assert refusal is not None and refusal.reason is not None
    before = state.copy()
    c.intent({"action": "go_out", "cards": []})
    assert c.state == before
    assert c.widget.message["rule"] == refusal.reason.rule == "C-MELD-1"
    assert c.widget.message["text"] == c.tr.reason(refusal.reason)
