"""The card table and its controller, without a browser.

Intents are sent the way the browser sends them (``{"action": ..., "cards": [...]}``), and
the tests look at the engine state, the message the learner sees and the view the browser
draws.  No test needs a kernel: ipywidgets works without one (its comm is a dummy).
"""

from __future__ import annotations

import logging
import random
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from canasta_teach.engine import (
    Add,
    Answer,
    AskPartner,
    Discard,
    Draw,
    Meld,
    State,
    TakePile,
)
from canasta_teach.engine.cards import TOKENS
from canasta_teach.engine.notation import parse_position
from canasta_teach.engine.rules import CLASSIC2, CLASSIC4, HAND_AND_FOOT, RuleSet
from canasta_teach.engine.state import Phase
from canasta_teach.engine.variants import find_variant
from canasta_teach.i18n import get_translator
from canasta_teach.widgets import ACTIONS, CardTable, TableController
from canasta_teach.widgets.puzzles import best_take_attempt
from canasta_teach.widgets.table import ALL_ACTIONS

LANGS = ("en", "ur", "hi", "te")
#: Characters of each language's own script (English: Latin letters).
SCRIPT = {
    "en": re.compile(r"[A-Za-z]"),
    "ur": re.compile(r"[\u0600-\u06FF]"),
    "hi": re.compile(r"[\u0900-\u097F]"),
    "te": re.compile(r"[\u0C00-\u0C7F]"),
}

KINGS = """
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

# NS has a canasta; South can meld Q Q Q and discard the 5 to go out (C-OUT-2).
GO_OUT = """
rules: classic4
turn: S meld
S: Q Q Q 5
W: ?11
N: ?11
E: ?11
NS melds: A A A A A A A
pile: 6 10
stock: rest
seed: 3
"""

# The same hand without a canasta: going out is refused (C-OUT-1 / C-OUT-5).
NO_CANASTA = GO_OUT.replace("A A A A A A A", "A A A")


def table(text: str, lang: str = "en", **kwargs: Any) -> TableController:
    state = parse_position(text)
    return TableController(state, get_translator(lang), lang, seat=state.current, **kwargs)


def in_language(text: str, lang: str) -> bool:
    return bool(SCRIPT[lang].search(text))


# ---------------------------------------------------------------------- refusals


@pytest.mark.parametrize("lang", LANGS)
def test_illegal_meld_changes_nothing_and_explains_in_the_learners_language(lang: str) -> None:
    c = table(KINGS, lang)
    before = c.state.snapshot()
    view_before = dict(c.widget.view)
    c.intent({"action": "meld", "cards": ["9", "J"]})
    assert c.state.snapshot() == before
    assert c.widget.view == view_before
    message = c.widget.message
    assert message["kind"] == "refusal"
    expected = c.state.check(Meld((TOKEN["J"], TOKEN["9"]))).reason
    assert expected is not None
    assert message["rule"] == expected.rule == "C-MELD-1"
    assert message["text"] == get_translator(lang).reason(expected)
    assert in_language(message["text"], lang)
    assert message["rule_title"] == get_translator(lang).rule_title("C-MELD-1")


TOKEN = {t: i for i, t in enumerate(TOKENS)}


def test_legal_meld_is_played_and_the_view_shows_it() -> None:
    c = table(KINGS)
    c.intent({"action": "meld", "cards": ["K", "K", "K"]})
    view = c.widget.view
    assert c.widget.message["kind"] == "success"
    assert view["hand"] == ["J", "9", "5", "4", "4"]
    ours = view["teams"][0]
    assert ours["mine"] and [m["rank"] for m in ours["melds"]] == ["A", "K"]
    assert c.state.melds[0][TOKEN["K"]].size == 3


def test_discard_passes_the_turn_and_then_intents_are_the_wrong_moment() -> None:
    c = table(KINGS, "ur")
    c.intent({"action": "discard", "cards": ["9"]})
    assert c.state.current == 1  # West
    assert not c.widget.view["my_turn"]
    assert not any(c.widget.view["enabled"].values())
    before = c.state.snapshot()
    c.intent({"action": "meld", "cards": ["K", "K", "K"]})
    assert c.state.snapshot() == before
    assert c.widget.message["kind"] == "refusal"
    assert get_translator("ur").seat("W") in c.widget.message["text"]


@pytest.mark.parametrize(
    "payload",
    [
        None,
        "meld",
        42,
        [],
        {},
        {"action": None},
        {"action": "fly"},
        {"action": "meld", "cards": "K K K"},
        {"action": "meld", "cards": ["K", "K", "X"]},
        {"action": "meld", "cards": [1, 2, 3]},
        {"action": "meld", "cards": ["K"] * 500},
        {"action": "add", "cards": ["K"], "rank": 13},
        {"action": "add", "cards": ["K"], "rank": "Z"},
        {"action": "answer"},
        {"action": "discard", "cards": []},
        {"action": "discard", "cards": ["K", "K"]},
        {"action": "meld", "cards": []},
        {"action": "game", "id": "next"},  # no game around this table
        {"action": "game", "id": ["x"]},
    ],
)
def test_malformed_or_pointless_intents_give_a_message_and_change_nothing(payload: Any) -> None:
    c = table(KINGS, "hi")
    before = c.state.snapshot()
    c.intent(payload)
    assert c.state.snapshot() == before
    assert c.widget.message["kind"] == "refusal"
    assert in_language(c.widget.message["text"], "hi")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5) | st.sampled_from(TOKENS),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
payloads = st.fixed_dictionaries(
    {"action": st.sampled_from([*ACTIONS, "game", "x"])},
    optional={
        "cards": st.lists(st.sampled_from([*TOKENS, "x", ""]), max_size=8) | json_values,
        "rank": json_values,
        "yes": json_values,
        "id": json_values,
    },
)


@given(payload=payloads | json_values)
def test_no_payload_raises_and_a_refused_one_changes_nothing(payload: Any) -> None:
    c = table(FROZEN)
    before = c.state.snapshot()
    c.intent(payload)  # must not raise
    message = c.widget.message
    assert message.get("kind") in ("refusal", "success", "info")
    if message["kind"] == "refusal":
        assert c.state.snapshot() == before


def test_an_exception_inside_a_hook_is_logged_and_leaves_the_state_as_it_was(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(move: Any, verdict: Any) -> None:
        raise RuntimeError("boom")

    c = table(KINGS, "te", on_move=broken)
    before = c.state.snapshot()
    with caplog.at_level(logging.ERROR, logger="canasta_teach.widgets.table"):
        c.intent({"action": "meld", "cards": ["K", "K", "K"]})
    assert c.state.snapshot() == before
    assert c.widget.message["text"] == get_translator("te").ui("msg.error")
    assert "boom" in caplog.text


def test_hand_over_intent_is_refused_with_a_message() -> None:
    c = table(GO_OUT)
    c.intent({"action": "go_out", "cards": ["Q", "Q", "Q"]})
    assert c.state.is_over
    c.intent({"action": "draw"})
    assert c.widget.message["text"] == get_translator("en").ui("msg.hand_over")


# ---------------------------------------------------------------------- pile and go out


def test_frozen_pile_needs_a_natural_pair() -> None:
    c = table(FROZEN, "ur")
    before = c.state.snapshot()
    c.intent({"action": "take", "cards": ["7", "JK"]})
    assert c.state.snapshot() == before
    assert c.widget.message["rule"] == "C-PILE-3"
    view = c.widget.view
    assert view["pile"]["frozen"] == "wild"
    assert view["pile"]["frozen_text"] and in_language(view["pile"]["frozen_text"], "ur")
    assert not view["enabled"]["take"]
    assert view["enabled"]["draw"]


def test_going_out_melds_and_discards_in_one_press() -> None:
    c = table(GO_OUT)
    assert c.widget.view["enabled"]["go_out"]
    c.intent({"action": "go_out", "cards": ["Q", "Q", "Q"]})
    assert c.state.end is not None and c.state.end.seat == 0
    assert c.state.pile[-1] == TOKEN["5"]
    assert c.widget.message["kind"] == "success"


@pytest.mark.parametrize("selection", [["Q", "Q", "Q"], ["Q", "Q", "Q", "5"]])
def test_going_out_without_a_canasta_is_refused_as_a_whole(selection: list[str]) -> None:
    c = table(NO_CANASTA)
    assert not c.widget.view["enabled"]["go_out"]
    before = c.state.snapshot()
    c.intent({"action": "go_out", "cards": selection})
    assert c.state.snapshot() == before  # all or nothing: not even the meld stays
    assert c.widget.message["kind"] == "refusal"
    assert c.widget.message["rule"] in ("C-OUT-1", "C-OUT-5", "C-MELD-1")


def test_going_out_with_two_cards_left_over_asks_for_a_selection() -> None:
    c = table(GO_OUT)
    before = c.state.snapshot()
    c.intent({"action": "go_out", "cards": ["Q", "Q"]})
    assert c.state.snapshot() == before
    assert c.widget.message["text"] == get_translator("en").ui("msg.go_out_select")


def _out_position(hand: str, melds: str = "A A A A A A A") -> str:
    return GO_OUT.replace("S: Q Q Q 5", f"S: {hand}").replace("A A A A A A A", melds)


@pytest.mark.parametrize(
    ("hand", "selection", "melds"),
    [
        ("Q Q 2 5", "Q Q 2", "A A A A A A A"),  # a wild card fills the meld
        ("A 9", "A", "A A A A A A A"),  # onto the canasta, then discard
        ("K K K K", "K K K K", "A A A A A A A"),  # everything melded, no discard
        ("Q Q JK 9 9 2 5", "Q Q JK 9 9 2", "A A A A A A A"),  # the wilds shared by two melds
        ("3B 3B 3B 5", "3B 3B 3B", "A A A A A A A"),  # black threes only when going out
        ("Q Q Q 5", "Q Q Q", "A A A A A A | 9 9 9"),  # no canasta yet... (see below)
    ],
)
def test_going_out_plans(hand: str, selection: str, melds: str) -> None:
    c = table(_out_position(hand, melds))
    can = c.state.canastas(0) >= 1
    assert c.widget.view["enabled"]["go_out"] == can
    before = c.state.snapshot()
    c.intent({"action": "go_out", "cards": selection.split()})
    if can:
        assert c.state.end is not None and c.state.end.seat == 0, c.widget.message
        assert c.state.hand_size(0) == 0
    else:  # ... so the whole plan is refused and nothing is laid down
        assert c.state.snapshot() == before
        assert c.widget.message["rule"] in ("C-OUT-1", "C-OUT-5")


def test_add_to_a_meld_by_tapping_it_or_by_rank() -> None:
    c = table(KINGS.replace("S: K K K 9 J 5 4 4", "S: A K K K 9 J 5 4 4 2"))
    assert c.widget.view["enabled"]["add"]
    c.intent({"action": "add", "cards": ["A"]})  # rank from the selected natural
    assert c.state.melds[0][TOKEN["A"]].size == 4
    c.intent({"action": "add", "cards": ["2"]})  # only a wild card: which meld?
    assert c.widget.message["text"] == get_translator("en").ui("msg.choose_meld")
    c.intent({"action": "add", "cards": ["2"], "rank": "A"})  # a tap on the meld of aces
    assert c.state.melds[0][TOKEN["A"]].twos == 1


# ---------------------------------------------------------------------- enabled buttons


def _random_position(seed: int, steps: int) -> State:
    state = State.deal(seed)
    rng = random.Random(seed)
    for _ in range(steps):
        moves = state.legal_moves()
        if not moves:
            break
        state.play(rng.choice(moves))
    return state


KIND_OF_ACTION = {
    "draw": Draw,
    "take": TakePile,
    "meld": Meld,
    "add": Add,
    "discard": Discard,
    "ask": AskPartner,
    "answer": Answer,
}


@given(seed=st.integers(0, 10_000), steps=st.integers(0, 60))
def test_enabled_buttons_are_exactly_the_kinds_of_legal_moves(seed: int, steps: int) -> None:
    state = _random_position(seed, steps)
    seat = state.to_move
    partner = state.partner(seat)
    c = TableController(
        state, get_translator("en"), "en", seat=seat, players={partner: lambda s: Answer(True)}
    )
    enabled = c.widget.view["enabled"]
    legal = state.legal_moves()
    for action, move_type in KIND_OF_ACTION.items():
        assert enabled[action] == any(isinstance(m, move_type) for m in legal), action
    # Off the learner's turn nothing is enabled.
    other = TableController(state.copy(), get_translator("en"), "en", seat=(seat + 1) % 4)
    assert not any(other.widget.view["enabled"].values())


@given(seed=st.integers(0, 10_000), steps=st.integers(0, 40), pick=st.randoms())
def test_pressing_a_button_plays_exactly_what_the_engine_allows(
    seed: int, steps: int, pick: random.Random
) -> None:
    """Random selections: the table plays a move iff the engine's check allows it."""
    state = _random_position(seed, steps)
    if state.is_over:
        return
    seat = state.to_move
    c = TableController(state, get_translator("en"), "en", seat=seat)
    hand = list(c.widget.view["hand"])
    chosen = pick.sample(hand, k=pick.randint(0, min(len(hand), 5)))
    action = pick.choice(["draw", "take", "meld", "discard"])
    before = c.state.copy()
    c.intent({"action": action, "cards": chosen})
    kinds = tuple(sorted((TOKEN[t] for t in chosen), reverse=True))
    move = {
        "draw": lambda: Draw(),
        # Take with nothing selected and no pickup allowed: the pickup a learner would try.
        "take": lambda: (
            best_take_attempt(before)
            if not kinds and not any(isinstance(m, TakePile) for m in before.legal_moves())
            else TakePile(kinds)
        ),
        "meld": lambda: Meld(kinds) if kinds else None,
        "discard": lambda: Discard(kinds[0]) if len(kinds) == 1 else None,
    }[action]()
    if move is None:
        assert c.state == before
        return
    verdict = before.check(move)
    if verdict.legal:
        expected = before.copy()
        expected.apply(move)
        assert c.state == expected
    else:
        assert c.state == before
        assert verdict.reason is not None
        assert c.widget.message["rule"] == verdict.reason.rule


# ---------------------------------------------------------------------- other seats


def test_other_seats_with_a_player_move_until_it_is_the_learners_turn_again() -> None:
    def first_legal(state: State) -> Any:
        moves = state.legal_moves()
        draws = [m for m in moves if isinstance(m, Draw)]
        discards = [m for m in moves if isinstance(m, Discard)]
        return (draws or discards or moves)[0]

    state = State.deal(5)
    c = TableController(
        state, get_translator("en"), "en", seat=0, players={s: first_legal for s in (1, 2, 3)}
    )
    c.intent({"action": "draw"})
    c.intent({"action": "discard", "cards": [c.widget.view["hand"][-1]]})
    assert c.state.current == 0 and c.state.phase is Phase.DRAW
    assert c.widget.view["my_turn"]


def test_asking_the_partner_gets_the_partners_answer() -> None:
    state = parse_position(GO_OUT)
    c = TableController(
        state, get_translator("en"), "en", seat=0, players={2: lambda s: Answer(False)}
    )
    assert c.widget.view["enabled"]["ask"]
    c.intent({"action": "ask"})
    assert c.state.to_move == 0 and c.state.asked.value == "no"
    assert c.widget.message["text"] == get_translator("en").ui("msg.partner_no")
    before = c.state.snapshot()
    c.intent({"action": "go_out", "cards": ["Q", "Q", "Q"]})
    assert c.state.snapshot() == before
    assert c.widget.message["rule"] == "C-ASK-1"


def test_the_learner_answers_the_partners_question() -> None:
    state = parse_position(GO_OUT.replace("turn: S meld", "turn: N answer"))
    c = TableController(state, get_translator("hi"), "hi", seat=0)
    assert c.widget.view["enabled"]["answer"]
    c.intent({"action": "answer", "yes": True})
    assert c.state.asked.value == "yes"
    assert c.widget.message["text"] == get_translator("hi").ui("msg.answered_yes")


# ---------------------------------------------------------------------- the widget itself


def test_the_browser_message_reaches_the_controller() -> None:
    c = table(KINGS)
    widget: CardTable = c.widget
    # What ipywidgets calls for a comm message {"method": "custom", "content": ...}.
    widget._handle_custom_msg({"action": "meld", "cards": ["K", "K", "K"]}, [])
    assert c.state.melds[0][TOKEN["K"]].size == 3


@pytest.mark.parametrize("lang", LANGS)
def test_language_direction_and_font(lang: str) -> None:
    c = table(KINGS, lang)
    w = c.widget
    assert w.lang == lang
    assert w.dir == ("rtl" if lang == "ur" else "ltr")
    family = {"ur": "Noto Nastaliq Urdu", "hi": "Noto Sans Devanagari", "te": "Noto Sans Telugu"}
    if lang in family:
        assert family[lang] in w.font
    # Every card has a name in the learner's language; every button a label.
    labels = w.labels
    assert set(labels["cards"]) == set(TOKENS)
    assert set(labels["buttons"]) == set(ALL_ACTIONS)
    if lang != "en":
        names = [labels["cards"][t] for t in ("JK", "3R", "3B", "K", "A")]
        assert all(in_language(n, lang) for n in names)
    assert labels["cards"]["3R"] != labels["cards"]["3B"]
    assert labels["buttons"]["discard"] == get_translator(lang).ui("button.discard")


def test_the_esm_is_self_contained() -> None:
    w = table(KINGS).widget
    esm = w._esm
    assert "export default" in esm
    assert "/*CARD_ART*/{}" not in esm  # the art was inlined
    for token in TOKENS:
        assert f'"{token}": "<svg' in esm
    # No network: the only URL is the SVG namespace.
    urls = set(re.findall(r"https?://[^\s\"'\\]+", esm))
    assert urls <= {"http://www.w3.org/2000/svg"}
    assert "data-ct-card" in esm and 'role: "status"' in esm and "aria-live" in esm
    assert ".ct-root" in w._css and "focus" in w._css


def test_the_two_player_table_says_draw_two() -> None:
    text = """
rules: classic2
turn: S draw
S: K K K 9 J 5 4 4
N: ?15
pile: 6 10
stock: rest
seed: 1
"""
    c = table(text, "hi")
    assert c.widget.labels["buttons"]["draw"] == get_translator("hi").ui("button.draw_two")
    assert [o["seat"] for o in c.widget.view["others"]] == ["N"]


def test_the_stop_sign_and_red_threes_are_in_the_view() -> None:
    text = """
rules: classic4
turn: S draw
S: K K Q 9 9 7 6 5 4 JK 2
W: ?9
N: ?6
E: ?12
NS melds: A A A A A A A | 8 8 8 8 8 2 JK
NS red threes: 1
pile: 5 10 4 7 3B
stock: rest
seed: 11
"""
    c = table(text, "te")
    view = c.widget.view
    assert view["pile"]["stop"] and view["pile"]["top"] == "3B"
    ours = view["teams"][0]
    assert ours["red_threes"] == 1 and "1" in ours["red_text"]
    canastas = {m["rank"]: m["canasta"] for m in ours["melds"]}
    assert canastas == {"A": "natural", "8": "mixed"}
    c.intent({"action": "take", "cards": []})
    assert c.widget.message["rule"] == "C-BLK-1"


def test_texts_are_normalised_unicode() -> None:
    # Telugu/Hindi strings must not carry decomposed forms that render differently.
    for lang in LANGS:
        c = table(KINGS, lang)
        for text in c.widget.labels["buttons"].values():
            assert unicodedata.normalize("NFC", text) == text


def test_assets_folder_holds_the_same_art_as_the_package() -> None:
    from canasta_teach.widgets.cardart import BACK_TOKEN, card_svg, file_name

    folder = Path(__file__).resolve().parents[1] / "assets" / "cards"
    for token in (*TOKENS, BACK_TOKEN):
        svg = card_svg(token)
        assert (folder / file_name(token)).read_text(encoding="utf-8") == svg + "\n", token


def test_cards_come_in_suits_that_differ_in_shape_and_threes_keep_their_colour() -> None:
    from canasta_teach.widgets.cardart import (
        RED,
        all_card_art,
        card_svg,
        fill_template,
        suit_for,
        suits_of,
    )

    art = all_card_art()
    assert suits_of("JK") == () and suit_for("JK", 3) is None
    assert set(suits_of("3R")) == {"H", "D"} and set(suits_of("3B")) == {"S", "C"}
    for token in TOKENS:
        faces = {card_svg(token, suit) for suit in suits_of(token)}
        assert len(faces) == len(suits_of(token)), token  # every suit drawn differently
        for suit in suits_of(token):  # what the page composes is what Python draws
            composed = fill_template(art[f"tpl:{token}"], suit)
            assert composed == card_svg(token, suit), (token, suit)
            assert "%C%" not in composed and "%S%" not in composed
    assert RED in card_svg("7", "H") and RED in card_svg("7", "D") and RED not in card_svg("7", "S")
    # Copies of a card in a row show different suits; a red three is never black.
    assert suit_for("7", 0) != suit_for("7", 1)
    assert {suit_for("3R", n) for n in range(4)} == {"H", "D"}
    assert {suit_for("3B", n) for n in range(4)} == {"S", "C"}


def test_the_page_gives_each_card_the_suit_the_lessons_pictures_give_it() -> None:
    # table.js repeats cardart.suit_for (a copy in a row gets the next suit): same kinds, same
    # order, so a card looks the same in a lesson's picture and on the table below it.
    import json
    import re

    from canasta_teach.widgets.cardart import SUITS

    js = (Path(__file__).resolve().parents[1] / "canasta_teach/widgets/static/table.js").read_text()
    order = json.loads(re.search(r"const TOKEN_ORDER = (\[[^\]]*\]);", js).group(1))
    suits = json.loads(re.search(r"const SUITS = (\[[^\]]*\]);", js).group(1))
    assert order == list(TOKENS) and suits == list(SUITS)


@pytest.mark.rule("C-ASK-1")
@pytest.mark.rule("H-OUT-3")
@pytest.mark.parametrize(
    ("rules", "asks"),
    [
        (CLASSIC4, True),
        (CLASSIC4.with_options(ask_partner=False), False),
        (CLASSIC2, False),
        (HAND_AND_FOOT, False),  # the seed's rules: the partner always agrees (H-OUT-3)
        (HAND_AND_FOOT.with_options(ask_partner=True), True),
    ],
    ids=["classic4", "classic4-no-asking", "classic2", "handfoot", "handfoot-asking"],
)
def test_the_question_buttons_show_only_when_the_rules_ask(rules: RuleSet, asks: bool) -> None:
    state = find_variant(rules.family).state_class.deal("asking", rules=rules)
    controller = TableController(state, get_translator("en"), "en")
    shown = controller.widget.view["actions"]
    assert ("ask" in shown, "answer" in shown) == (asks, asks)
    # The other buttons stay as they were: the variant's, in its order.
    assert [a for a in shown if a not in ("ask", "answer")] == [
        a for a in find_variant(rules.family).table_buttons if a not in ("ask", "answer")
    ]
    # And a game that asks shows them after the turn's plays.
    if asks:
        assert shown[-2:] == ["ask", "answer"]
