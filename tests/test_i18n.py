"""canasta_teach.i18n: languages, the Translator API, and reasons put into words.

Reasons are checked three ways: hand-picked positions whose English wording is spelled out
(the brief's examples), generated facts for every reason code in every language (no
placeholder left, the concrete facts named), and refusals the real engine gives while
random moves are tried on dealt hands.
"""

from __future__ import annotations

import logging
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from canasta_teach.engine.cards import TOKENS, Kind
from canasta_teach.engine.moves import (
    Add,
    Answer,
    AskPartner,
    Discard,
    Draw,
    Meld,
    Move,
    Reason,
    TakePile,
)
from canasta_teach.engine.reasons import FROZEN_BY, REASONS, RULES, SCORE_LINES
from canasta_teach.engine.rules import CLASSIC2, CLASSIC4
from canasta_teach.engine.scoring import ScoreLine, score_hand
from canasta_teach.engine.state import Phase, State
from canasta_teach.i18n import (
    LANGUAGE_NAMES,
    LANGUAGES,
    Translator,
    UnknownLanguage,
    explain,
    get_translator,
    normalize_language,
)
from tests.engine_helpers import ks, position

NATURAL_RANKS = [t for t in TOKENS if t not in ("JK", "2", "3R", "3B")]
MELD_RANKS = ["3B", *NATURAL_RANKS]
WILDS = ["JK", "2"]


# ---------------------------------------------------------------------- languages


def test_languages_and_their_own_names() -> None:
    assert LANGUAGES == ("en", "ur", "hi", "te")
    assert LANGUAGE_NAMES == {"en": "English", "ur": "اردو", "hi": "हिन्दी", "te": "తెలుగు"}


@pytest.mark.parametrize(
    ("given_code", "expected"),
    [("ur", "ur"), ("UR", "ur"), ("ur_PK", "ur"), ("ur-PK", "ur"), (" hi-IN ", "hi"),
     ("te_IN.UTF-8", "te"), ("en-US", "en"), ("EN", "en")],
)  # fmt: skip
def test_language_codes_are_normalized(given_code: str, expected: str) -> None:
    assert normalize_language(given_code) == expected
    translator = get_translator(given_code)
    assert translator.lang == expected
    assert translator is get_translator(expected)  # cached


@pytest.mark.parametrize("bad", ["xx", "", "urdu", "u", "fr-FR", None, 7])
def test_unknown_language_is_refused_readably_in_all_four(bad: Any) -> None:
    with pytest.raises(UnknownLanguage) as caught:
        get_translator(bad)
    assert isinstance(caught.value, ValueError)
    lines = str(caught.value).split("\n")
    assert len(lines) == 4
    for line, lang in zip(lines, LANGUAGES, strict=True):
        assert line == get_translator(lang).text(
            "engine", "error.unknown_language", lang=lines[0].split("“")[1].split("”")[0],
            known=", ".join(f"{c} ({LANGUAGE_NAMES[c]})" for c in LANGUAGES),
        )  # fmt: skip
        for code in LANGUAGES:
            assert code in line


def test_unknown_language_message_keeps_hostile_input_short_and_printable() -> None:
    with pytest.raises(UnknownLanguage) as caught:
        get_translator("x" * 500 + "\n\x1b[31m")
    text = str(caught.value)
    assert "\x1b" not in text and len(text.split("\n")) == 4
    assert all(len(line) < 200 for line in text.split("\n"))


def test_direction() -> None:
    assert get_translator("ur").direction == "rtl"
    assert [get_translator(lang).direction for lang in ("en", "hi", "te")] == ["ltr"] * 3


# ---------------------------------------------------------------------- cards and words


def test_cards_in_english() -> None:
    t = get_translator("en")
    assert t.cards(["7", "JK"]) == "one 7 and a joker"
    assert t.cards(["7", "JK", "7", "2", "K"]) == "two 7s, a joker, one 2 and a king"
    assert t.card("A") == "an ace"
    assert t.card("3R", 3) == "three red threes"
    assert t.card("jk", 12) == "12 jokers"
    assert t.card(Kind.TEN, 2) == t.card("T", 2) == "two 10s"


def test_cards_use_the_glossary_names() -> None:
    ur, hi, te = (get_translator(lang) for lang in ("ur", "hi", "te"))
    assert ur.cards(["7", "7", "JK"]) == "دو ستے اور ایک جوکر"
    assert ur.card("3R") == "ایک لال تِکی" and ur.card_of("A") == "اکوں"
    assert hi.cards(["7", "7", "JK"]) == "दो सत्ते और एक जोकर"
    assert hi.card("2", 2) == "दो दुक्कियाँ" and hi.card_of("K") == "बादशाहों"
    assert te.cards(["7", "7", "JK"]) == "రెండు 7లు, ఒక జోకర్"
    assert te.card("3R") == "ఒక ఎర్ర 3" and te.card("3B", 3) == "నల్ల 3లు మూడు"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_card_has_every_form(lang: str) -> None:
    t = get_translator(lang)
    for token in TOKENS:
        for form in (t.card(token), t.card(token, 2), t.card(token, 11), t.card_name(token),
                     t.card_plural(token), t.card_of(token)):  # fmt: skip
            assert form and "{" not in form and "card." not in form
        assert t.card(token) != t.card(token, 2)


@given(tokens=st.lists(st.sampled_from(TOKENS), max_size=8), lang=st.sampled_from(LANGUAGES))
def test_cards_name_every_kind_once_with_its_count(tokens: list[str], lang: str) -> None:
    t = get_translator(lang)
    text = t.cards(tokens)
    for token in set(tokens):
        assert t.card(token, tokens.count(token)) in text
    if len(set(tokens)) >= 2:
        assert t.text("engine", "list.and", first="", last="").strip() in text


def test_unknown_card_token_is_an_error() -> None:
    with pytest.raises(ValueError):
        get_translator("en").card("11")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_seats_teams_phases_frozen_by_and_rule_titles(lang: str) -> None:
    t = get_translator(lang)
    seats = [t.seat(s) for s in "SWNE"]
    assert len(set(seats)) == 4
    assert t.seat("s") == seats[0]
    assert len({t.team("NS"), t.team("EW")}) == 2 and t.team("SN") == t.team("NS")
    assert t.team("S") == t.seat("S") and t.team("N") == t.seat("N")
    assert len({t.phase(p) for p in Phase}) == len(Phase)
    assert len({t.frozen_by(v) for v in FROZEN_BY}) == len(FROZEN_BY)
    titles = {rule: t.rule_title(rule) for rule in RULES}
    assert all(title and not title.startswith("rule.") for title in titles.values())
    assert len(set(titles.values())) == len(RULES)
    with pytest.raises(ValueError):
        t.seat("X")
    with pytest.raises(ValueError):
        t.team("NW")


def test_rule_title_example() -> None:
    assert get_translator("en").rule_title("C-PILE-3") == "A frozen pile needs a natural pair"
    assert "اصلی جوڑی" in get_translator("ur").rule_title("C-PILE-3")
    assert "असली जोड़ी" in get_translator("hi").rule_title("C-PILE-3")
    assert "సహజ జత" in get_translator("te").rule_title("C-PILE-3")


# ---------------------------------------------------------------------- scores


def test_score_line_english() -> None:
    t = get_translator("en")
    assert t.score_line(ScoreLine("canastas_natural", "C-CAN-1", 1000, {"count": 2})) == (
        "2 natural canastas: 1,000"
    )
    assert t.score_line(ScoreLine("canastas_mixed", "C-CAN-1", 300, {"count": 1})) == (
        "1 mixed canasta: 300"
    )
    assert t.score_line(ScoreLine("cards_in_hand", "C-VAL-2", -35)) == "Cards left in hand: -35"
    line = {"code": "red_threes", "rule": "C-RED-2", "points": 800, "params": {"count": 4}}
    assert t.score_line(line) == "4 red threes: 800"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_score_line_reads_with_its_points(lang: str) -> None:
    t = get_translator(lang)
    for code, facts in SCORE_LINES.items():
        for count in (1, 2, 4):
            line = ScoreLine(code, "C-SCORE-1", 1475, {name: count for name in facts})
            text = t.score_line(line)
            assert text.endswith(": 1,475") and "{" not in text and "score." not in text
            if "count" in facts:
                assert str(count) in text
        if "count" in facts:
            one = t.score_label(ScoreLine(code, "C-SCORE-1", 0, {"count": 1}))
            two = t.score_label(ScoreLine(code, "C-SCORE-1", 0, {"count": 2}))
            assert one.replace("1", "") != two.replace("2", "")  # singular and plural differ


def test_score_lines_of_a_real_hand_read_in_every_language() -> None:
    state = position(
        melds={0: ["7 7 7 7 7 7 7", "K K K JK"], 1: ["A A 2"]},
        hands={0: "4 5", 1: "9", 2: "Q", 3: "J"},
        red_threes=(2, 1),
        phase=Phase.MELD,
    )
    for lang in LANGUAGES:
        t = get_translator(lang)
        for team in score_hand(state).teams:
            for line in team.lines:
                text = t.score_line(line)
                assert text.endswith(t.number(line.points))
                assert "{" not in text


# ---------------------------------------------------------------------- reasons


def test_frozen_needs_pair_example_from_the_engine() -> None:
    """The brief's example, produced by the engine itself: pile frozen by a wild card, a 7
    on top, the player holding one 7 and a joker."""
    state = position(hands={0: "7 JK 9 9 K"}, melds={0: ["Q Q Q"]}, pile="5 2 8 7",
                     phase=Phase.DRAW)  # fmt: skip
    verdict = state.check(TakePile(ks("JK")))
    assert verdict.reason is not None and verdict.reason.code == "frozen_needs_pair"
    assert explain(verdict.reason, "en") == (
        "The pile is frozen (a wild card is in it): to take it you need a natural pair of "
        "7s, and you hold one 7 and a joker."
    )
    assert explain(verdict.reason, "ur") == (
        "ڈھیر جما ہوا ہے (اس میں وائلڈ پتا ہے): اسے اٹھانے کے لیے ستوں کی اصلی جوڑی چاہیے؛ "
        "آپ کے ہاتھ میں: ایک ستا اور ایک جوکر۔"
    )
    assert "सत्तों की असली जोड़ी" in explain(verdict.reason, "hi")
    assert "7ల సహజ జత" in explain(verdict.reason, "te")


def test_frozen_pile_variants_follow_the_hand() -> None:
    def why(hand: str, move: TakePile, pile: str = "5 2 8 7") -> str:
        state = position(hands={0: hand}, melds={0: ["Q Q Q"]}, pile=pile, phase=Phase.DRAW)
        reason = state.check(move).reason
        assert reason is not None
        return explain(reason, "en")

    none = why("9 9 K", TakePile(()))
    assert none.endswith("your hand holds not a single 7.")
    pair = why("7 7 JK K", TakePile(ks("7 JK")))
    assert pair.endswith(
        "You hold two 7s and a joker: choose two 7s to go with the top card "
        "(you chose one 7 and a joker)."
    )
    red = why("9 9 K", TakePile(()), pile="5 3R 8 7")
    assert "(a red three is in it)" in red
    unmelded = position(
        hands={0: "7 JK 9 9 K"}, pile="5 8 7", phase=Phase.DRAW, down=[False, False]
    )
    reason = unmelded.check(TakePile(ks("7 JK"))).reason
    assert reason is not None
    assert "(your team has not made its first meld yet)" in explain(reason, "en")


def test_set_aside_note_example() -> None:
    state = position(hands={0: "K K K 9 4 5"}, phase=Phase.MELD, down=[False, False])
    verdict = state.check(Meld(ks("K K K")))
    assert verdict.legal and verdict.note is not None
    assert explain(verdict.note, "en") == (
        "Set aside: 30 of the 50 points your first meld needs; add more melds to reach it."
    )


def test_take_needs_pair_or_meld_names_the_hand() -> None:
    state = position(hands={0: "K 9 9 4"}, melds={0: ["Q Q Q"]}, pile="5 8 K",
                     phase=Phase.DRAW)  # fmt: skip
    reason = state.check(TakePile(ks("K"))).reason
    assert reason is not None and reason.code == "take_needs_pair_or_meld"
    text = explain(reason, "en")
    assert "no meld of kings" in text and text.endswith("You hold a king.")


# The pile refusals from the browser: the hand holds what taking the pile needs, but the
# cards chosen (the move's ``offered``) are not it.  The learner is told to choose them,
# never that they lack them; a hand that really lacks them keeps the plain wording.

_TOP_7 = {"melds": {0: ["Q Q Q"]}, "pile": "5 8 7", "phase": Phase.DRAW}
_FROZEN_7 = {"melds": {0: ["Q Q Q"]}, "pile": "5 2 8 7", "phase": Phase.DRAW}


def _pile_refusal(layout: dict[str, Any], hand: str, chosen: str, code: str) -> Reason:
    state = position(hands={0: hand}, **layout)
    return _refusal(state, TakePile(ks(chosen) if chosen else ()), code)


def test_unfrozen_pile_one_natural_chosen_while_a_wild_is_held_in_every_language() -> None:
    """The browser case: top 7, the hand holds one 7 and a joker, only the 7 is chosen."""
    reason = _pile_refusal(_TOP_7, "7 JK 9 9 K", "7", "take_needs_pair_or_meld")
    assert reason.params["offered"] == ["7"]
    assert explain(reason, "en") == (
        "Taking the pile means melding its top card at once, and your team has no meld of "
        "7s to put it on. You hold one 7 and a joker: to go with the top card, choose one 7 "
        "and a joker (you chose one 7)."
    )
    assert explain(reason, "ur") == (
        "ڈھیر اٹھانے کے لیے اوپر والے پتے کو فوراً میلڈ میں لگانا پڑتا ہے، اور آپ کی ٹیم کا ستوں کا "
        "کوئی میلڈ نہیں جس میں یہ جوڑا جا سکے۔ آپ کے ہاتھ میں: ایک ستا اور ایک جوکر؛ اوپر والے "
        "پتے کے ساتھ ایک ستا اور ایک جوکر چنیں (آپ کا انتخاب: ایک ستا)۔"
    )
    assert explain(reason, "hi") == (
        "ढेर उठाते ही उसके ऊपर वाले पत्ते का मेल करना होता है, और आपकी टीम का सत्तों का कोई "
        "मेल नहीं है जिसमें यह पत्ता जोड़ा जा सके। आपके हाथ में एक सत्ता और एक जोकर हैं: ऊपर "
        "वाले पत्ते के साथ एक सत्ता और एक जोकर चुनें (आपका चुनाव: एक सत्ता)।"
    )
    assert explain(reason, "te") == (
        "పైల్ తీసుకుంటే దాని పై కార్డ్‌ను వెంటనే మెల్డ్ చేయాలి, కానీ దాన్ని చేర్చడానికి మీ "
        "జట్టుకు 7ల మెల్డ్ లేదు. మీ చేతిలో: ఒక 7, ఒక జోకర్; పై కార్డ్‌కు తోడుగా ఒక 7, "
        "దానితో పాటు ఒక జోకర్ ఎంచుకోండి (మీ ఎంపిక: ఒక 7)."
    )


def test_frozen_pile_pair_held_but_one_natural_and_a_joker_chosen() -> None:
    reason = _pile_refusal(_FROZEN_7, "7 7 JK K", "7 JK", "frozen_needs_pair")
    assert reason.params["offered"] == ["7", "JK"]
    assert explain(reason, "en") == (
        "The pile is frozen (a wild card is in it): it can be taken only with a natural pair "
        "of 7s from your hand. You hold two 7s and a joker: choose two 7s to go with the top "
        "card (you chose one 7 and a joker)."
    )
    assert explain(reason, "ur").endswith(
        "آپ کے ہاتھ میں: دو ستے اور ایک جوکر؛ اوپر والے پتے کے ساتھ دو ستے چنیں "
        "(آپ کا انتخاب: ایک ستا اور ایک جوکر)۔"
    )
    assert explain(reason, "hi").endswith(
        "आपके हाथ में दो सत्ते और एक जोकर हैं: ऊपर वाले पत्ते के साथ दो सत्ते चुनें "
        "(आपका चुनाव: एक सत्ता और एक जोकर)।"
    )
    assert explain(reason, "te").endswith(
        "మీ చేతిలో: రెండు 7లు, ఒక జోకర్; పై కార్డ్‌తో పాటు రెండు 7లు ఎంచుకోండి (మీ ఎంపిక: ఒక 7, ఒక జోకర్)."
    )


# (layout, hand, chosen, code, variant, the choice it names or None)
_PILE_CASES = [
    # The hand holds enough; the choice is short of it.
    (_FROZEN_7, "7 7 K", "7", "frozen_needs_pair", "select", None),
    (_FROZEN_7, "7 7 7 2", "", "frozen_needs_pair", "select.none_chosen", None),
    (_TOP_7, "7 7 JK 2 K", "", "take_needs_pair_or_meld", "select.none_chosen", "7 7|7 wild"),
    (_TOP_7, "7 7 K", "7", "take_needs_pair_or_meld", "select", "7 7"),
    (_TOP_7, "7 2 2 K", "2 2", "take_needs_pair_or_meld", "select", "7 2"),
    (_TOP_7, "7 7 JK K", "JK", "take_needs_pair_or_meld", "select", "7 7|7 JK"),
    # The hand lacks it: the plain wording, naming the hand.
    (_FROZEN_7, "7 JK K", "7 JK", "frozen_needs_pair", "", None),
    (_FROZEN_7, "9 JK K", "JK", "frozen_needs_pair", "", None),
    (_FROZEN_7, "9 9 K", "", "frozen_needs_pair", "none", None),
    (_TOP_7, "7 9 K", "7", "take_needs_pair_or_meld", "", None),
    (_TOP_7, "JK 2 9 K", "JK 2", "take_needs_pair_or_meld", "", None),
    (_TOP_7, "9 9 K", "", "take_needs_pair_or_meld", "", None),
]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(("layout", "hand", "chosen", "code", "variant", "choice"), _PILE_CASES)
def test_pile_refusals_tell_choosing_from_lacking(
    lang: str, layout: dict[str, Any], hand: str, chosen: str, code: str, variant: str,
    choice: str | None,
) -> None:  # fmt: skip
    t = get_translator(lang)
    reason = _pile_refusal(layout, hand, chosen, code)
    assert reason.params["offered"] == chosen.split()
    key, _words = t.reason_parts(reason)
    assert key == f"reason.{code}" + (f".{variant}" if variant else "")
    text = t.reason(reason)
    held = [c for kind in ("7", "2", "JK") for c in hand.split() if c == kind]
    if variant != "none":  # the hand is named ("none": not a single 7 in it)
        assert (t.cards(held) if held else t.text("engine", "hold.none")) in text
    if variant == "select":
        assert t.cards(chosen.split()) in text  # the cards chosen, named
    if variant.startswith("select"):
        for option in (choice or "7 7").split("|"):  # what to choose instead, named
            # A natural with its wild card is one choice, kept together (list.with).
            first, _, second = option.partition(" ")
            words = (
                t.card("7", 2) if option == "7 7"
                else t.text("engine", "list.with", first=t.card(first),
                            last=t._wilds(1) if second == "wild" else t.card(second))
            )  # fmt: skip
            assert words in text, (option, text)
    else:
        # Nothing is said about the choice: the same sentence whatever was chosen.
        assert t.reason(Reason(code, reason.rule, dict(reason.params, offered=[]))) == text


def test_below_minimum_counts_points() -> None:
    state = position(hands={0: "7 7 9 4 5"}, pile="8 7", phase=Phase.DRAW, down=[False, False])
    reason = state.check(TakePile(ks("7 7"))).reason
    assert reason is not None and reason.code == "below_minimum"
    text = explain(reason, "en")
    assert "at least 50 points" in text and "worth 15" in text


def _refusal(state: State, move: Move, code: str) -> Reason:
    reason = state.check(move).reason
    assert reason is not None and reason.code == code, reason
    return reason


def test_too_few_and_all_wild_name_the_cards() -> None:
    state = position(hands={0: "8 8 7 JK JK 2 9 5"}, melds={0: ["K K K"]}, phase=Phase.MELD)
    two_eights = _refusal(state, Meld(ks("8 8")), "too_few")
    assert explain(two_eights, "en") == (
        "Two 8s are not a meld: a meld needs at least three cards of one rank."
    )
    assert explain(two_eights, "ur").startswith("یہ صرف دو اٹھے ہیں، میلڈ نہیں")
    assert explain(two_eights, "hi").startswith("ये सिर्फ़ दो अट्ठे हैं, मेल नहीं")
    assert explain(two_eights, "te").startswith("ఇవి రెండు 8లు మాత్రమే, మెల్డ్ కాదు")
    assert explain(_refusal(state, Meld(ks("7 JK")), "too_few"), "en").startswith(
        "One 7 and a joker are not a meld:"
    )
    assert explain(_refusal(state, Meld(ks("9")), "too_few"), "en").startswith(
        "One 9 on its own is not a meld:"
    )
    assert explain(_refusal(state, Meld(ks("JK JK 2")), "all_wild"), "en") == (
        "Two jokers and one 2 are all wild cards, and wild cards alone never make a meld: "
        "a meld needs at least two natural cards of one rank."
    )
    assert explain(_refusal(state, Meld(ks("2")), "all_wild"), "en").startswith(
        "One 2 is a wild card, and wild cards alone never make a meld"
    )


def test_melds_set_aside_are_told_apart_from_the_teams_melds() -> None:
    state = position(hands={0: "K K K K 9 4 5 6"}, phase=Phase.MELD, down=[False, False])
    state.play(Meld(ks("K K K")))
    again = _refusal(state, Meld(ks("K")), "rank_already_melded")
    assert again.params["set_aside"] is True
    assert explain(again, "en").startswith("You have already set aside a meld of kings")
    nothing = _refusal(state, Add(Kind.NINE, ks("9")), "no_such_meld")
    assert explain(nothing, "en").startswith("You have set aside no meld of 9s to add to")
    assert "الگ" in explain(nothing, "ur") and "अलग" in explain(nothing, "hi")
    down = position(hands={0: "K K 9 4"}, melds={0: ["K K K"]}, phase=Phase.MELD)
    assert explain(_refusal(down, Meld(ks("K K")), "rank_already_melded"), "en").startswith(
        "Your team already has a meld of kings"
    )
    assert explain(_refusal(down, Add(Kind.NINE, ks("9")), "no_such_meld"), "en").startswith(
        "Your team has no meld of 9s to add to"
    )


def test_asking_refusals_say_why_and_who() -> None:
    two = position(CLASSIC2, hands={0: "8 8 8 9 5"}, melds={0: ["K K K"]}, phase=Phase.MELD)
    assert "with two players there is no partner to ask" in explain(
        _refusal(two, AskPartner(), "ask_off"), "en"
    )
    off = position(CLASSIC4.with_options(ask_partner=False), hands={0: "8 8 9 5"},
                   melds={0: ["K K K"]}, phase=Phase.MELD)  # fmt: skip
    assert "is switched off at this table" in explain(_refusal(off, AskPartner(), "ask_off"), "en")
    asked = position(hands={0: "8 8 8 9 9"}, melds={0: ["K K K"]}, phase=Phase.MELD)
    asked.play(AskPartner())
    waiting = _refusal(asked, Discard(Kind.NINE), "await_answer")
    assert "the partner (North) answers yes or no" in explain(waiting, "en")
    assert "(شمال)" in explain(waiting, "ur") and "(उत्तर)" in explain(waiting, "hi")
    assert "(ఉత్తరం)" in explain(waiting, "te")


def test_hand_over_says_how_the_hand_ended() -> None:
    out = position(hands={0: "8 8 8 9", 1: "5 5"}, melds={0: ["K K K K K K K"]},
                   phase=Phase.MELD)  # fmt: skip
    out.play(Meld(ks("8 8 8")))
    out.play(Discard(Kind.NINE))
    assert explain(_refusal(out, Draw(), "hand_over"), "en").startswith(
        "This hand is over: South went out"
    )
    stock = position(hands={0: "9 9 4 5"}, melds={0: ["K K K"]}, pile="6 9", leftover_to=3)
    stock.play(Draw())
    over = _refusal(stock, Draw(), "hand_over")
    assert explain(over, "en").startswith("This hand is over: the stock ran out on South's turn")
    assert "جنوب والے کھلاڑی کی باری پر گڈی ختم ہو گئی" in explain(over, "ur")


def test_game_over_names_the_winner_and_the_score() -> None:
    from canasta_teach.engine.game import Game
    from tests.engine_helpers import choose

    game = Game(CLASSIC4.with_options(game_target=300), seed=5)
    rng = random.Random(5)
    while not game.is_over:
        assert game.apply(choose(rng, game.state.legal_moves())).legal
    reason = game.apply(Draw()).reason
    assert reason is not None and reason.code == "game_over"
    winner = game.winner
    assert winner is not None
    t = get_translator("en")
    assert explain(reason, "en") == (
        f"The game is over: {t.team(('NS', 'EW')[winner])} won it with "
        f"{t.number(game.totals[winner])} points."
    )


def test_hindi_piles_are_a_tally_with_no_verb_to_agree_with_none() -> None:
    """H-OUT-1 / H-OUT-2 in Hindi: the piles needed and held are tallies after a colon
    ("क्लीन 1, डर्टी 0 और वाइल्ड 0"), never "0 डर्टी पाइलें … हैं" (the Hindi review)."""
    facts = {"clean": 1, "dirty": 0, "wild": 0,
             "needed_clean": 2, "needed_dirty": 2, "needed_wild": 1}  # fmt: skip
    need = Reason("need_piles", "H-OUT-1", facts)
    assert explain(need, "hi") == (
        "आपकी टीम अभी गो आउट नहीं कर सकती। गो आउट के लिए पाइलें चाहिए: क्लीन 2, डर्टी 2 और "
        "वाइल्ड 1; अभी उसकी पाइलें: क्लीन 1, डर्टी 0 और वाइल्ड 0।"
    )
    keep = explain(Reason("keep_a_card_piles", "H-OUT-2", {**facts, "cards_left": 1}), "hi")
    assert "अभी उसकी पाइलें: क्लीन 1, डर्टी 0 और वाइल्ड 0।" in keep
    assert "0 डर्टी" not in keep and "पाइलें हैं" not in keep


def test_a_pile_past_seven_counts_its_cards_in_words() -> None:
    """H-MELD-3: "eight queens", as card counts up to ten are written everywhere."""
    reason = Reason("pile_full", "H-MELD-3", {"rank": "Q", "count": 8})
    assert explain(reason, "en").endswith("this would make eight queens.")
    assert "बेगमों के मेल में आठ पत्ते" in explain(reason, "hi")
    wild = Reason("pile_full", "H-MELD-3", {"rank": "JK", "count": 9})
    assert "नौ पत्ते" in explain(wild, "hi")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_wild_ratio_without_naturals_cites_the_rule(lang: str) -> None:
    """Wild cards alone are the wild meld, never "none of these with two wild cards"
    (H-MELD-2): facts without a natural card give the general sentence with the rule."""
    t = get_translator(lang)
    text = t.reason(Reason("wild_ratio", "H-MELD-2", {"rank": "9", "naturals": 0, "wilds": 2}))
    assert "H-MELD-2" in text and t.rule_title("H-MELD-2") in text, text
    assert t.text("engine", "hold.none") not in text


def _facts_strategy(code: str) -> st.SearchStrategy[dict[str, Any]]:
    """Facts of the kinds the engine gives for ``code`` (see engine/state.py)."""
    counts = st.integers(0, 4)
    by_name: dict[str, st.SearchStrategy[Any]] = {
        "cards_left": st.integers(0, 1),
        "cards": st.lists(st.sampled_from(TOKENS), min_size=1, max_size=5),
        "count": st.integers(0, 2),
        "ranks": st.lists(st.sampled_from(MELD_RANKS), min_size=2, max_size=3, unique=True),
        "rank": st.sampled_from(NATURAL_RANKS),
        "naturals": st.integers(1, 8),
        "wilds": st.integers(0, 5),
        "max_wilds": st.integers(1, 3),
        "card": st.sampled_from(["JK", "2"] if code == "wild_on_top" else ["3R"]),
        "frozen_by": st.sampled_from(FROZEN_BY),
        "naturals_held": counts,
        "jokers_held": counts,
        "twos_held": counts,
        "offered": st.just([]),  # drawn from the hand in ``reasons`` (it depends on it)
        "needed": st.integers(1, 2) if code in ("need_canasta", "keep_a_card")
        else st.sampled_from([15, 50, 90, 120]),
        "have": st.integers(0, 300),
        "canastas": st.integers(0, 1),
        "set_aside": st.booleans(),
        "why": st.sampled_from(["two_players", "option_off"]),
        "how": st.sampled_from(["out", "concealed", "stock"]),
        "seat": st.sampled_from(["S", "W", "N", "E"]),
        "team": st.sampled_from(["NS", "EW", "S", "N"]),
        "score": st.integers(5000, 12000),
        # Hand and Foot (H-OUT-1, H-OUT-2): piles of each kind, had and needed.
        "clean": counts, "dirty": counts, "wild": st.integers(0, 2),
        "needed_clean": st.integers(0, 5), "needed_dirty": st.integers(0, 5),
        "needed_wild": st.integers(0, 2),
    }  # fmt: skip
    if code == "pile_full":
        by_name["rank"] = st.sampled_from([*NATURAL_RANKS, "JK"])
        by_name["count"] = st.integers(8, 12)
    if code == "too_few":
        # One card of a meld rank, then maybe a second: the same rank or a wild card.
        by_name["cards"] = st.sampled_from(MELD_RANKS).flatmap(
            lambda rank: st.lists(st.sampled_from([rank, *WILDS]), max_size=1).map(
                lambda more: [rank, *more]
            )
        )
    if code == "all_wild":
        by_name["cards"] = st.lists(st.sampled_from(WILDS), min_size=1, max_size=5)
    names = REASONS[code][1]
    return st.fixed_dictionaries({name: by_name[name] for name in names})


@st.composite
def reasons(draw: st.DrawFn) -> Reason:
    code = draw(st.sampled_from(sorted(REASONS)))
    rule = draw(st.sampled_from(REASONS[code][0]))
    facts = draw(_facts_strategy(code))
    if code == "too_few":
        facts["count"] = len(facts["cards"])
    if "offered" in facts and code != "take_needs_pair":  # Hand and Foot's never names them
        facts["offered"] = draw(_offered(code, facts))
    return Reason(code, rule, facts)


def _held_tokens(facts: dict[str, Any]) -> list[str]:
    """The cards of the pile's rank and the wild cards a pile refusal says the hand holds."""
    return (
        [facts["rank"]] * facts["naturals_held"]
        + ["2"] * facts["twos_held"]
        + ["JK"] * facts["jokers_held"]
    )


def _offered(code: str, facts: dict[str, Any]) -> st.SearchStrategy[list[str]]:
    """Cards chosen to take the pile with, as the engine refuses them: some of those held
    (in any order), too few naturals for a frozen pile, not a natural and a second card
    for an unfrozen one."""
    held = _held_tokens(facts)
    rank = facts["rank"]

    def refused(chosen: list[str]) -> bool:
        naturals = chosen.count(rank)
        if code == "frozen_needs_pair":
            return naturals < 2
        return naturals < 1 or len(chosen) < 2

    return (
        st.permutations(held)
        .flatmap(lambda order: st.integers(0, min(3, len(order))).map(lambda n: order[:n]))
        .filter(refused)
    )


def _hand_suffices(code: str, facts: dict[str, Any]) -> bool:
    """Whether the hand holds what taking the pile needs (so only the choice was wrong)."""
    naturals, wilds = facts["naturals_held"], facts["jokers_held"] + facts["twos_held"]
    if code == "frozen_needs_pair":
        return naturals >= 2
    return naturals >= 2 or (naturals >= 1 and wilds >= 1)


def _assert_names_the_facts(t: Translator, reason: Reason, text: str) -> None:
    facts = reason.params
    rank = facts.get("rank")
    if rank == "JK" and reason.code == "pile_full":
        # Hand and Foot keys an all-wild meld by the joker (H-MELD-2); the sentence says
        # "wild cards" and how many, not "jokers".
        assert t.reason_parts(reason)[0] == "reason.pile_full.wild", (reason, text)
        assert t.count_words(int(facts["count"])) in text, (reason, text)
    elif rank:
        forms = {t.card_of(rank), t.card_plural(rank), t.card_name(rank)}
        assert any(form in text for form in forms), (reason, text)
    if "cards" in facts and reason.code in ("not_in_hand", "too_few", "all_wild"):
        for token in set(facts["cards"]):
            # lower(): a sentence that opens with the cards capitalizes them ("Two 8s").
            assert t.card(token, facts["cards"].count(token)).lower() in text.lower()
    if "seat" in facts:
        assert t.seat(facts["seat"]) in text
    if "team" in facts:
        assert t.team(facts["team"]) in text and t.number(facts["score"]) in text
    if reason.code in ("below_minimum", "set_aside"):
        assert t.number(facts["needed"]) in text and t.number(facts["have"]) in text
    if "frozen_by" in facts:
        assert t.frozen_by(facts["frozen_by"]) in text
    if "ranks" in facts:
        assert all(t.card_plural(r) in text for r in facts["ranks"])
    if "card" in facts:
        assert t.card_name(facts["card"]) in text
    if reason.code == "take_needs_pair":
        # Hand and Foot (H-PILE-1): the natural cards held are named; a pair means "select".
        held_naturals = int(facts["naturals_held"])
        if held_naturals:
            assert t.card(facts["rank"], held_naturals) in text, (reason, text)
        key = t.reason_parts(reason)[0]
        assert (key == "reason.take_needs_pair.select") == (held_naturals >= 2), key
    elif "offered" in facts:
        held = _held_tokens(dict(facts))
        if held:
            assert t.cards(held) in text, (reason, text)
        key = t.reason_parts(reason)[0]
        if _hand_suffices(reason.code, dict(facts)):
            # Told to choose: the cards chosen are named, or that none were.
            if facts["offered"]:
                assert key == f"reason.{reason.code}.select"
                assert f"{t.cards(facts['offered'])})" in text, (reason, text)
            else:
                assert key == f"reason.{reason.code}.select.none_chosen"
        else:
            assert ".select" not in key, (reason, key)


@given(reason=reasons())
def test_every_reason_reads_in_every_language(reason: Reason) -> None:
    english = explain(reason, "en")
    for lang in LANGUAGES:
        t = get_translator(lang)
        text = t.reason(reason)
        assert text and "{" not in text and "}" not in text, (lang, reason, text)
        assert not text.startswith("reason."), text
        assert "~" not in text
        _assert_names_the_facts(t, reason, text)
        if lang != "en":
            assert text != english
        assert t.reason(reason.to_dict()) == text  # JSON form reads the same


@pytest.mark.parametrize("lang", LANGUAGES)
def test_facts_that_do_not_fit_give_a_general_sentence_citing_the_rule(lang: str) -> None:
    t = get_translator(lang)
    for code in sorted(REASONS):
        if REASONS[code][1]:
            text = t.reason(Reason(code, "C-PILE-3", {}))
            assert "C-PILE-3" in text and t.rule_title("C-PILE-3") in text, (code, text)
    assert "C-MELD-1" in t.reason({"code": "no_such_code", "rule": "C-MELD-1", "params": {}})
    general = t.reason({"code": "no_such_code", "rule": "X-1"})
    assert general == t.text("engine", "refusal.fallback_no_rule") and "{" not in general


# ---------------------------------------------------------------------- real refusals


def _random_move(rng: random.Random, state: State) -> Move:
    """A move of any kind, legal or not, with cards biased towards the hand."""
    hand = state.hand_cards(state.current)
    pool = list(hand) + [Kind(rng.randrange(15)) for _ in range(3)]

    def some(n_low: int, n_high: int) -> tuple[Kind, ...]:
        n = rng.randint(n_low, n_high)
        return tuple(rng.choice(pool) for _ in range(n)) if pool else ()

    kind = rng.randrange(8)
    if kind == 0:
        return Draw()
    if kind == 1:
        return TakePile(some(0, 3))
    if kind in (2, 3):
        return Meld(some(0, 8))
    if kind == 4:
        return Add(Kind(rng.choice([3, *range(4, 15)])), some(0, 3))
    if kind == 5:
        return Discard(rng.choice(pool) if pool else Kind.SEVEN)
    if kind == 6:
        return AskPartner()
    return Answer(rng.random() < 0.5)


@pytest.mark.parametrize(
    "rules",
    [
        CLASSIC4,
        CLASSIC2,
        CLASSIC4.with_options(two_naturals_per_wild=True, black_three_freezes=True),
    ],
    ids=["classic4", "classic2", "options"],
)
def test_refusals_the_engine_gives_read_in_every_language(rules: Any) -> None:
    rng = random.Random(20261129)
    seen: set[str] = set()
    translators = [get_translator(lang) for lang in LANGUAGES]
    for seed in range(12):
        state = State.deal(seed, rules)
        for _ in range(400):
            if state.is_over:
                over = state.check(Draw()).reason
                assert over is not None and over.code == "hand_over"
                seen.add(over.code)
                assert all(t.reason(over) != t.text("engine", "refusal.fallback_no_rule")
                           for t in translators)  # fmt: skip
                break
            move = _random_move(rng, state)
            verdict = state.check(move)
            for reason in (verdict.reason, verdict.note):
                if reason is None:
                    continue
                seen.add(reason.code)
                for t in translators:
                    text = t.reason(reason)
                    assert "{" not in text and not text.startswith("reason."), (reason, text)
                    _assert_names_the_facts(t, reason, text)
            legal = state.legal_moves()
            # Mostly play on with a legal move, so that the walk reaches later situations.
            state.play(verdict.legal and rng.random() < 0.5 and move or rng.choice(legal))
    assert len(seen) >= 12, sorted(seen)


# ---------------------------------------------------------------------- fallbacks


def test_missing_key_falls_back_to_english_then_the_key(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A Urdu catalog lacking a key gives the English text; a key in no catalog gives the
    key itself, logged; a missing ui catalog is no error."""
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import write_mo

    from canasta_teach.i18n import LOCALE_DIR

    english_dir = tmp_path / "en" / "LC_MESSAGES"
    english_dir.mkdir(parents=True)
    (english_dir / "engine.mo").write_bytes((LOCALE_DIR / "en/LC_MESSAGES/engine.mo").read_bytes())
    urdu = Catalog(locale="ur")
    urdu.add("seat.S", "جنوب")
    urdu_dir = tmp_path / "ur" / "LC_MESSAGES"
    urdu_dir.mkdir(parents=True)
    with (urdu_dir / "engine.mo").open("wb") as handle:
        write_mo(handle, urdu)
    t = Translator("ur", locale_dir=tmp_path)
    assert t.seat("S") == "جنوب"
    assert t.seat("N") == "North"
    with caplog.at_level(logging.WARNING, logger="canasta_teach.i18n.translator"):
        assert t.text("engine", "no.such.key") == "no.such.key"
        assert t.ui("lesson.title") == "lesson.title"
    assert "no.such.key" in caplog.text


def test_missing_parameter_stays_visible_instead_of_raising(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="canasta_teach.i18n.translator"):
        text = get_translator("en").text("engine", "reason.not_in_hand")
    assert text.endswith("missing: {cards}.")
    assert "cards" in caplog.text


def test_importing_i18n_needs_no_jupyter_and_no_babel() -> None:
    code = (
        "import sys\n"
        "import canasta_teach.i18n as i\n"
        "assert i.get_translator('te').seat('E')\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('ipywidgets', 'IPython', 'jupyter_client', 'anywidget', 'babel', 'traitlets')"
        " or m.startswith('canasta_teach.widgets')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[1])
