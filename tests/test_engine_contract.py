"""The engine's contract for every variant (issue 20): dispatch a variant can override, move
kinds declared once, rule sets that refuse numbers no family plays, the state's own
``determinize``, and Hand and Foot's complete-pile refusal (H-MELD-3)."""

from __future__ import annotations

import pytest

from canasta_teach.engine import Add, Kind, Meld
from canasta_teach.engine.handfoot import HandFootState
from canasta_teach.engine.moves import KIND_OF, MOVE_KINDS, Draw, Move
from canasta_teach.engine.notation import _VERBS, parse_position
from canasta_teach.engine.rng import SplitMix64
from canasta_teach.engine.rules import CLASSIC4, HAND_AND_FOOT, RuleRangeError
from canasta_teach.engine.state import State
from canasta_teach.engine.view import player_view
from canasta_teach.i18n.translator import Translator

LANGS = ("en", "ur", "hi", "te")


def test_every_move_kind_is_declared_once_and_tied_to_everything() -> None:
    assert len({k.move_type for k in MOVE_KINDS}) == len(MOVE_KINDS)
    assert {k.move_type for k in MOVE_KINDS} == set(Move.__args__)  # type: ignore[attr-defined]
    assert sorted(k.verb for k in MOVE_KINDS) == sorted(_VERBS)
    for cls in (State, HandFootState):
        for kind in MOVE_KINDS:
            assert cls._checkers[kind.move_type] is getattr(cls, kind.check)
            assert cls._players[kind.move_type] is getattr(cls, kind.play)
    for lang in LANGS:
        tr = Translator(lang)
        for kind in MOVE_KINDS:
            keys = [f"button.{kind.button}"]
            keys += (
                [f"msg.{kind.told}_yes", f"msg.{kind.told}_no"]
                if kind.move_type.__name__ == "Answer"
                else [f"msg.{kind.told}"]
            )
            if kind.narrated is not None:
                keys.append(f"game.full.move.{kind.narrated}")
            for key in keys:
                assert tr.has("ui", key), (lang, key)


def test_a_variant_override_is_what_runs() -> None:
    calls: list[str] = []

    class Spy(State):
        __slots__ = ()

        def _check_draw(self, move: Draw | None = None) -> object:  # type: ignore[override]
            calls.append("check")
            return super()._check_draw(move)

        def _do_draw(self, move: Draw | None = None) -> None:
            calls.append("play")
            super()._do_draw(move)

    state = Spy.deal(3)
    assert state.apply(Draw()).legal
    assert calls == ["check", "play"]
    assert State._checkers[Draw] is State._check_draw  # the base table is the base's


def test_a_rule_set_refuses_numbers_no_family_plays() -> None:
    with pytest.raises(RuleRangeError) as caught:
        CLASSIC4.with_options(max_wilds=4)
    assert (caught.value.option, caught.value.value) == ("max_wilds", 4)
    assert (caught.value.low, caught.value.high) == (0, 3)
    with pytest.raises(RuleRangeError):
        HAND_AND_FOOT.with_options(decks=9)
    assert CLASSIC4.with_options(max_wilds=2).max_wilds == 2


@pytest.mark.parametrize("cls", [State, HandFootState])
def test_determinize_is_the_states_and_keeps_the_view(cls: type[State]) -> None:
    state = cls.deal(11)
    for _ in range(30):
        state.play(state.legal_moves()[0])
    world = state.determinize(0, SplitMix64(5))
    assert type(world) is cls
    assert player_view(world, 0) == player_view(state, 0)
    assert world.card_total() == state.card_total()


@pytest.mark.rule("H-MELD-3")
def test_adding_to_a_complete_pile_cites_h_meld_3_with_true_words() -> None:
    state = parse_position(
        "rules: handfoot\nturn: S meld\nS: Q 5 5 6\nS foot: -\nW: ?13\nN: ?13\nE: ?13\n"
        "NS piles: Q Q Q Q Q Q Q\nNS melds: 9 9 9\nstock: rest"
    )
    assert isinstance(state, HandFootState)
    verdict = state.check(Add(Kind.QUEEN, (Kind.QUEEN,)))
    assert verdict.reason is not None
    assert (verdict.reason.code, verdict.reason.rule) == ("pile_complete", "H-MELD-3")
    assert dict(verdict.reason.params) == {"rank": "Q"}
    text = Translator("en").reason(verdict.reason)
    assert "complete pile" in text and "queens" in text.lower() and "no meld" not in text
    for lang in LANGS:
        words = Translator(lang).reason(verdict.reason)
        assert "{" not in words and Translator(lang).card_of("Q") in words
    # A rank with neither a meld nor a pile is still H-MELD-4, and a new meld of queens
    # may start beside the pile.
    assert state.check(Add(Kind.SIX, (Kind.SIX,))).reason.rule == "H-MELD-4"  # type: ignore[union-attr]
    assert state.check(Meld((Kind.QUEEN,) * 3)).reason.code == "not_in_hand"  # type: ignore[union-attr]


def test_the_widgets_read_the_move_kinds() -> None:
    from canasta_teach.widgets import gametable, table

    assert {k.move_type: k.button for k in MOVE_KINDS} == table._BUTTON_OF_MOVE
    assert set(table._BUTTON_OF_MOVE.values()) <= set(table.ALL_ACTIONS)
    assert {
        k.move_type: f"game.full.move.{k.narrated}" for k in MOVE_KINDS if k.narrated
    } == gametable.MOVE_KEYS
    assert KIND_OF[Draw].button == "draw"
    # Every kind has a button the table builds its move from, and words for the learner's
    # own move of that kind; every table's buttons are move kinds' or its variant's extras.
    assert set(table._MOVE_BUILDERS) == {k.move_type for k in MOVE_KINDS}
    assert {k.button: k for k in MOVE_KINDS} == table._KIND_OF_BUTTON
    from canasta_teach.engine.variants import all_variants

    for variant in all_variants():
        kinds = {k.button for k in MOVE_KINDS if k.move_type in variant.move_types}
        assert set(variant.table_buttons) == kinds | set(variant.table_extras)
        assert set(variant.table_buttons) <= set(table.ALL_ACTIONS)
    assert set(table.ALL_ACTIONS) == {k.button for k in MOVE_KINDS} | {"go_out"}
    tr = Translator("en")
    for kind in MOVE_KINDS:
        told = (
            [f"msg.{kind.told}_yes", f"msg.{kind.told}_no"]
            if kind.told == "answered"
            else [f"msg.{kind.told}"]
        )
        for key in told:
            assert tr.ui(key) != key, key
