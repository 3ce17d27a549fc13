"""Hand and Foot (``engine.handfoot``): every H-* rule, the notation, the view, and the foot
under random play.  The guarantees every variant keeps (cards conserved, refusals change
nothing, ``check`` agrees with ``legal_moves``, notation round trips) are in test_presets.py."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canasta_teach.engine import Add, Discard, Draw, Kind, Meld, TakePile
from canasta_teach.engine.determinize import determinize
from canasta_teach.engine.game import Game
from canasta_teach.engine.handfoot import HandFootState, deck_counts, pile_kind
from canasta_teach.engine.moves import ASK, NO, YES, LayDown, Move
from canasta_teach.engine.notation import NotationError, format_position, parse_position
from canasta_teach.engine.rng import SplitMix64
from canasta_teach.engine.rules import HAND_AND_FOOT, unsupported_value
from canasta_teach.engine.savefile import game_from_json, game_to_json
from canasta_teach.engine.scoring import score_hand
from canasta_teach.engine.state import Phase
from canasta_teach.engine.view import player_view

K = Kind


def ks(text: str) -> tuple[Kind, ...]:
    from canasta_teach.engine.cards import parse_kind
    from canasta_teach.engine.moves import canonical

    return canonical([int(parse_kind(t)) for t in text.split()])


def pos(body: str, rules: str = "handfoot") -> HandFootState:
    state = parse_position(f"rules: {rules}\n{body}")
    assert isinstance(state, HandFootState)
    return state


def refused(state: HandFootState, move: Move, code: str, rule: str) -> dict[str, object]:
    before = state.snapshot()
    verdict = state.apply(move)
    assert not verdict.legal, f"{move} was allowed"
    assert verdict.reason is not None
    assert (verdict.reason.code, verdict.reason.rule) == (code, rule), verdict.reason
    assert state.snapshot() == before  # a refused move changes nothing
    assert move not in state.legal_moves()
    return dict(verdict.reason.params)


def allowed(state: HandFootState, move: Move) -> None:
    assert move in state.legal_moves(), f"{move} is not listed"
    verdict = state.apply(move)
    assert verdict.legal, verdict.reason


#: Four hands of 13 with the feet unknown, South to draw; the rest in the stock.
OPENING = """turn: S draw
S: K K K Q Q 9 9 7 6 5 4 2 JK
W: ?13
N: ?13
E: ?13
"""


# ---------------------------------------------------------------------------- the deal


@pytest.mark.rule("H-DECK-1")
@pytest.mark.rule("H-DECK-2")
@pytest.mark.rule("H-DEAL-1")
def test_deal_five_decks_hand_and_foot() -> None:
    state = HandFootState.deal(11)
    assert sum(deck_counts(5)) == 270 and deck_counts(5)[K.JOKER] == 10
    assert state.card_total() == 270 and state.players == 4
    for seat in range(4):
        # Red threes dealt to South went down at the start of the turn (H-RED-1).
        if seat != 0:
            assert state.hand_size(seat) == 13
        assert state.foot_size(seat) == 13 and not state.in_foot[seat]
    assert state.pile == [] and state.current == 0 and state.phase is Phase.DRAW
    assert state.partner(0) == 2 and state.team_of(1) == 1  # partners opposite


@pytest.mark.rule("H-DEAL-1")
def test_view_never_shows_a_face_down_foot() -> None:
    state = HandFootState.deal(5)
    view = player_view(state, 0)
    assert view["feet"]["S"] == {"in_foot": False, "size": 13}
    assert "hand" in view and len(view["hand"]) == state.hand_size(0)
    # Two states that differ only in unseen cards (the other hands, every foot, the stock)
    # look the same to South; South's own foot is among the unseen.
    world = determinize(state, 0, SplitMix64(3))
    assert world.feet[0] != state.feet[0]
    assert player_view(world, 0) == view
    assert world.card_total() == 270


# ---------------------------------------------------------------------------- the turn


@pytest.mark.rule("H-TURN-1")
def test_draw_two_then_the_last_card_alone() -> None:
    state = pos(OPENING + "stock: rest")
    allowed(state, Draw())
    assert state.hand_size(0) == 15 and state.phase is Phase.MELD
    refused(state, Draw(), "already_drew", "H-TURN-1")
    reds = "NS red threes: 5\nEW red threes: 5\n"  # the pile never holds a red three
    last = pos(OPENING + reds + "pile: ?155\nstock: 9")
    allowed(last, Draw())
    assert last.hand_size(0) == 14 and not last.stock


@pytest.mark.rule("H-END-1")
def test_an_empty_stock_ends_the_round() -> None:
    state = pos(OPENING + "NS red threes: 5\nEW red threes: 5\npile: ?156\nstock: -")
    allowed(state, Draw())
    assert state.is_over and state.end is not None and state.end.how == "stock"
    refused(state, Draw(), "hand_over", "H-END-1")


@pytest.mark.rule("H-PILE-1")
def test_pile_taken_with_a_natural_pair_takes_the_top_seven() -> None:
    state = pos(OPENING + "NS melds: A A A\npile: 4 4 5 5 6 6 8 8 9 10 Q\nstock: rest")
    refused(state, TakePile(ks("Q JK")), "take_needs_pair", "H-PILE-1")
    allowed(state, TakePile(ks("Q Q")))
    assert state.melds[0][K.QUEEN].naturals == 3
    # Top seven: the queen melded, six more to the hand (13 - 2 + 6).
    assert state.hand_size(0) == 17 and len(state.pile) == 4


@pytest.mark.rule("H-PILE-1")
def test_taking_the_pile_for_the_first_meld_needs_the_minimum() -> None:
    state = pos(OPENING + "pile: 6 7 9\nstock: rest")
    params = refused(state, TakePile(ks("9 9")), "below_minimum", "H-PILE-1")
    assert params == {"needed": 50, "have": 30}
    allowed(state, Meld(ks("K K K")))  # set aside: 30 more
    allowed(state, TakePile(ks("9 9")))
    assert state.down[0] and set(state.melds[0]) == {K.KING, K.NINE}


@pytest.mark.rule("H-PILE-2")
@pytest.mark.rule("H-BLK-1")
def test_black_three_stops_the_pile_and_is_never_melded() -> None:
    state = pos(OPENING.replace("7 6", "3B 3B") + "NS melds: A A A\npile: 9 3B\nstock: rest")
    refused(state, TakePile(ks("9 9")), "black_three_on_top", "H-PILE-2")
    allowed(state, Draw())
    refused(state, Meld(ks("3B 3B 2")), "black_three_meld", "H-BLK-1")
    allowed(state, Discard(K.BLACK_THREE))


@pytest.mark.rule("H-TURN-2")
def test_meld_then_discard_ends_the_turn() -> None:
    state = pos(OPENING + "NS melds: A A A\nstock: rest")
    refused(state, Meld(ks("K K K")), "draw_first", "H-TURN-1")
    allowed(state, Draw())
    refused(state, Meld(ks("J J J")), "not_in_hand", "H-TURN-2")
    allowed(state, Meld(ks("K K K")))
    allowed(state, Discard(K.FIVE))
    assert state.current == 1 and state.phase is Phase.DRAW


# ---------------------------------------------------------------------------- melds


@pytest.mark.rule("H-MELD-1")
@pytest.mark.rule("H-MELD-2")
def test_meld_shapes() -> None:
    state = pos("turn: S meld\nS: K K K K Q Q 9 9 5 2 2 2 JK JK JK 4\nW: ?13\nN: ?13\nE: ?13\n"
                "NS melds: A A A\nstock: rest")  # fmt: skip
    refused(state, Meld(ks("K K")), "too_few", "H-MELD-1")
    refused(state, Meld(ks("K K Q")), "mixed_ranks", "H-MELD-1")
    params = refused(state, Meld(ks("K K JK JK")), "wild_ratio", "H-MELD-2")
    assert params == {"rank": "K", "naturals": 2, "wilds": 2}
    allowed(state, Meld(ks("K K K K 2 JK")))  # four naturals carry two wild cards
    allowed(state, Meld(ks("2 JK JK")))  # a meld of wild cards only (H-MELD-2)
    assert state.melds[0][K.JOKER].naturals == 0 and state.melds[0][K.JOKER].size == 3
    refused(state, Add(K.JOKER, ks("Q")), "wild_meld_naturals", "H-MELD-2")


@pytest.mark.rule("H-MELD-3")
def test_seven_cards_make_a_pile_that_takes_no_more() -> None:
    state = pos("turn: S meld\nS: K K K K 9 9 9 9 9 9 9 2 JK JK 5 5\nW: ?13\nN: ?13\nE: ?13\n"
                "NS melds: K K K\nstock: rest")  # fmt: skip
    params = refused(state, Add(K.KING, ks("K K K K 2")), "pile_full", "H-MELD-3")
    assert params == {"rank": "K", "count": 8}
    allowed(state, Add(K.KING, ks("K K K 2")))  # 7: a dirty pile
    assert K.KING not in state.melds[0] and pile_kind(state.piles[0][0]) == "dirty"
    allowed(state, Meld(ks("9 9 9 9 9 9 9")))  # 7 at once: a clean pile
    assert [pile_kind(g) for g in state.piles[0]] == ["dirty", "clean"]
    # A complete pile takes no more cards (H-MELD-3; before issue 20 this was refused as
    # H-MELD-4 "no meld of nines", which was false).
    refused(state, Add(K.NINE, ks("9")), "pile_complete", "H-MELD-3")


@pytest.mark.rule("H-MELD-3")
def test_a_wild_pile() -> None:
    state = pos("turn: S meld\nS: 2 2 2 2 JK JK JK 5 5 6\nW: ?13\nN: ?13\nE: ?13\n"
                "NS melds: A A A\nstock: rest")  # fmt: skip
    allowed(state, Meld(ks("2 2 2 2 JK JK JK")))
    assert pile_kind(state.piles[0][0]) == "wild" and state.pile_counts(0) == (0, 0, 1)


@pytest.mark.rule("H-MELD-4")
def test_one_incomplete_meld_per_rank_but_piles_beside_it() -> None:
    state = pos("turn: S meld\nS: K K K K K K K K K K 5 5\nW: ?13\nN: ?13\nE: ?13\n"
                "NS melds: K K K\nstock: rest")  # fmt: skip
    refused(state, Meld(ks("K K K")), "rank_already_melded", "H-MELD-4")
    allowed(state, Meld(ks("K K K K K K K")))  # a whole pile beside the unfinished meld
    assert state.melds[0][K.KING].size == 3 and len(state.piles[0]) == 1


# ---------------------------------------------------------------------------- first meld


@pytest.mark.rule("H-MIN-1")
@pytest.mark.rule("H-MIN-2")
def test_set_aside_then_lay_down_at_the_round_minimum() -> None:
    state = pos("round: 2\n" + OPENING.replace("S draw", "S meld") + "stock: rest")
    assert state.minimum(0) == 90
    refused(state, LayDown(), "nothing_set_aside", "H-MIN-1")
    verdict = state.apply(Meld(ks("K K K JK")))  # 30 + 50: only card values count
    assert verdict.note is not None and verdict.note.params == {"needed": 90, "have": 80}
    assert state.staged and not state.down[0]
    params = refused(state, LayDown(), "below_minimum", "H-MIN-1")
    assert params == {"needed": 90, "have": 80}
    allowed(state, Meld(ks("Q Q 2")))
    allowed(state, LayDown())
    assert state.down[0] and not state.staged and state.minimum(0) == 0
    refused(state, LayDown(), "already_down", "H-MIN-1")


@pytest.mark.rule("H-MIN-1")
def test_cards_set_aside_go_back_at_the_discard() -> None:
    state = pos(OPENING.replace("S draw", "S meld") + "stock: rest")
    allowed(state, Meld(ks("K K K")))
    allowed(state, Discard(K.FOUR))
    assert not state.down[0] and state.hands[0][K.KING] == 3


@pytest.mark.rule("H-MIN-1")
def test_round_minimums() -> None:
    for number, need in ((1, 50), (2, 90), (3, 120), (4, 150)):
        state = HandFootState.deal(1, hand_number=number)
        assert state.minimum(0) == need == state.minimum(1)


# ---------------------------------------------------------------------------- foot, going out


@pytest.mark.rule("H-FOOT-1")
def test_foot_at_once_when_the_last_card_is_melded() -> None:
    state = pos("turn: S meld\nS: 8 8 8\nS foot: K Q J 10 9 8 7 6 5 4 A A A\n"
                "W: ?13\nN: ?13\nE: ?13\nNS melds: A A A\nstock: rest")  # fmt: skip
    verdict, events = state.apply_with_events(Meld(ks("8 8 8")))
    assert verdict.legal and state.in_foot[0] and state.hand_size(0) == 13
    assert [e.code for e in events][-1] == "foot"
    assert player_view(state, 0)["feet"]["S"] == {"in_foot": True, "size": 0}


@pytest.mark.rule("H-FOOT-1")
def test_foot_next_turn_when_the_last_card_is_discarded() -> None:
    state2 = pos("turn: S meld\nS: 5\nW: ?13\nN: ?13\nE: ?13\nNS melds: A A A\nstock: rest")
    allowed(state2, Discard(K.FIVE))
    assert state2.hand_size(0) == 0 and not state2.in_foot[0]
    for _ in range(3):  # West, North, East draw and discard
        state2.play(Draw())
        state2.play(next(m for m in state2.legal_moves() if isinstance(m, Discard)))
    assert state2.current == 0 and state2.in_foot[0] and state2.hand_size(0) >= 13


FOOT_OUT = """turn: S meld
S: 5 5 5 9
S foot: -
N foot: -
W: ?13
N: ?10
E: ?13
NS piles: K K K K K K K | Q Q Q Q Q Q Q | J J J J J 2 2 | 10 10 10 10 10 JK 2 | 2 2 2 2 JK JK JK
stock: rest
"""


@pytest.mark.rule("H-OUT-1")
@pytest.mark.rule("H-OUT-3")
@pytest.mark.rule("H-SCORE-1")
def test_going_out_with_the_piles_and_partner_in_the_foot() -> None:
    state = pos(FOOT_OUT)
    allowed(state, Meld(ks("5 5 5")))
    allowed(state, Discard(K.NINE))  # the partner always agrees (H-OUT-3)
    assert state.is_over and state.end is not None and state.end.how == "out"
    lines = {line.code: line.points for line in score_hand(state).teams[0].lines}
    assert lines["piles_clean"] == 1000 and lines["piles_dirty"] == 600
    assert lines["piles_wild"] == 1500 and lines["going_out"] == 100


@pytest.mark.rule("H-OUT-1")
def test_no_going_out_without_the_piles_or_with_the_partner_in_the_hand() -> None:
    short = FOOT_OUT.replace(" | 2 2 2 2 JK JK JK", "").replace("S: 5 5 5 9", "S: 5 5 5")
    state = pos(short)
    params = refused(state, Meld(ks("5 5 5")), "need_piles", "H-OUT-1")
    assert params["wild"] == 0 and params["needed_wild"] == 1 and params["clean"] == 2
    waiting = pos(FOOT_OUT.replace("N foot: -\n", "").replace("S: 5 5 5 9", "S: 5 5 5"))
    params = refused(waiting, Meld(ks("5 5 5")), "partner_not_in_foot", "H-OUT-1")
    assert params == {"seat": "N", "cards_left": 0}


@pytest.mark.rule("H-OUT-2")
def test_from_the_foot_a_player_keeps_two_cards_until_the_team_may_go_out() -> None:
    state = pos(FOOT_OUT.replace(" | 2 2 2 2 JK JK JK", ""))
    params = refused(state, Meld(ks("5 5 5")), "keep_a_card_piles", "H-OUT-2")
    assert params["cards_left"] == 1
    # In the hand (foot still to come) running out is fine: the foot follows.
    before_foot = pos("turn: S meld\nS: 5 5 5 9\nW: ?13\nN: ?13\nE: ?13\nNS melds: A A A\n"
                      "stock: rest")  # fmt: skip
    allowed(before_foot, Meld(ks("5 5 5")))


@pytest.mark.rule("H-OUT-3")
def test_asking_the_partner_is_an_option() -> None:
    state = pos(FOOT_OUT)
    assert ASK not in state.legal_moves()
    asking = pos(FOOT_OUT, "handfoot ask_partner=yes")
    allowed(asking, ASK)
    assert asking.to_move == 2 and asking.legal_moves() == [YES, NO]
    allowed(asking, NO)
    params = refused(asking, Meld(ks("5 5 5")), "partner_said_no", "H-OUT-3")
    assert params == {"cards_left": 1}


# ---------------------------------------------------------------------------- scoring, game


@pytest.mark.rule("H-VAL-1")
@pytest.mark.rule("H-RED-1")
def test_round_score_lines() -> None:
    state = pos("turn: S ended\nended: stock S\nS: A JK 3R\nS foot: -\nW: ?13\nN: 4 4\n"
                "N foot: K 3R ?11\nE: ?13\nNS melds: 9 9 9\nNS piles: Q Q Q Q Q Q Q\n"
                "NS red threes: 2\nEW red threes: 6\npile: ?182\nstock: -\nE foot: ?13\n"
                "W foot: ?13")  # fmt: skip
    lines = {line.code: line.points for line in score_hand(state).teams[0].lines}
    assert lines["piles_clean"] == 500 and lines["red_threes"] == 200
    assert lines["melded_cards"] == 7 * 10 + 3 * 10
    # Against: A 20 + JK 50 (South's hand), 4 4 (10) and the foot's K (10) and the rest.
    foot_rest = sum(
        (50, 20, 0, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 20)[k] * c
        for k, c in enumerate(state.feet[2])
    )
    assert lines["cards_in_hand_foot"] == -(20 + 50 + 10 + foot_rest)
    assert lines["red_threes_left"] == -100 * (1 + state.feet[2][K.RED_THREE])
    assert "going_out" not in lines


@pytest.mark.rule("H-GAME-1")
def test_a_game_is_four_rounds() -> None:
    game = Game(HAND_AND_FOOT, "four-rounds")
    rng = random.Random(4)
    while not game.is_over:
        moves = game.state.legal_moves()
        game.apply(moves[rng.randrange(len(moves))])
    assert len(game.hands) == 4 and game.finished
    a, b = game.totals
    assert game.winner == (None if a == b else 0 if a > b else 1)
    refused_verdict = game.apply(Draw())
    assert refused_verdict.reason is not None and refused_verdict.reason.rule == "H-GAME-1"
    # The saved record replays to the same totals.
    again = game_from_json(game_to_json(game))
    assert again.totals == game.totals and again.rules == HAND_AND_FOOT


# ---------------------------------------------------------------------------- notation


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("turn: S draw\nS: ?13\nW: ?13\nN: ?13\nE: ?13\nNS melds: K K K K K K K", "bad_meld"),
        ("turn: S draw\nS: ?13\nW: ?13\nN: ?13\nE: ?13\nNS piles: K K K", "bad_meld"),
        ("turn: S draw\nS: ?13\nW: ?13\nN: ?13\nE: ?13\nNS melds: 3B 3B 3B", "bad_meld"),
        ("turn: S draw\nS: ?13\nW: ?13\nN: ?13\nE: ?13\nhand: 2", "unknown_key"),
        ("turn: S draw\nS: ?13\nW: ?13\nN: ?13\nE: ?13\nround: 5", "number_out_of_range"),
        ("turn: S draw\nS: JK JK JK JK JK JK JK JK JK JK JK\nW: ?13\nN: ?13\nE: ?13",
         "too_many_cards"),
        ("turn: S draw\nS: ?13\nW: ?13\nN: ?13\nE: ?13\nstock: ?5", "counts_do_not_add_up"),
    ],
)  # fmt: skip
def test_bad_positions_are_refused_with_a_code(body: str, code: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_position("rules: handfoot\n" + body)
    assert info.value.code == code


def test_classic_positions_refuse_hand_and_foot_keys_and_options() -> None:
    with pytest.raises(NotationError) as info:
        parse_position("rules: classic4\nturn: S draw\nS: ?11\nW: ?11\nN: ?11\nE: ?11\n"
                       "S foot: ?13")  # fmt: skip
    assert info.value.code == "unknown_key"
    with pytest.raises(NotationError):
        parse_position("rules: handfoot black_three_freezes=yes\n" + OPENING)
    state = parse_position("rules: handfoot pile_take=0 clean_to_go_out=1 red_three_value=300\n"
                           + OPENING + "pile: ?20")  # fmt: skip
    assert state.rules.pile_take == 0 and unsupported_value(state.rules) is None
    assert "pile_take=0" in format_position(state)
    assert unsupported_value(HAND_AND_FOOT.with_options(players=2)) == "players"


@pytest.mark.rule("H-TURN-1")
def test_whole_pile_option() -> None:
    body = OPENING + "NS melds: A A A\npile: 4 4 5 5 6 6 8 8 9 10 Q\nstock: rest"
    state = pos(body, "handfoot pile_take=0")
    allowed(state, TakePile(ks("Q Q")))
    assert state.pile == [] and state.hand_size(0) == 13 - 2 + 10


# ---------------------------------------------------------------------------- properties
#
# What every variant keeps in random play (cards conserved, ``check`` agreeing with
# ``legal_moves``, refusals changing nothing, views, notation round trips) is checked for
# Hand and Foot and each of its options in test_presets.py; what only a foot can break, here.


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_a_foot_stays_as_dealt_until_it_is_picked_up(seed: int) -> None:
    state = HandFootState.deal(seed)
    dealt = [foot[:] for foot in state.feet]
    rng = random.Random(seed)
    while not state.is_over:
        moves = state.legal_moves()
        state.play(moves[rng.randrange(len(moves))])
        for seat in range(4):
            if state.in_foot[seat]:
                assert state.foot_size(seat) == 0  # H-FOOT-1: the foot became the hand
            else:
                assert state.feet[seat] == dealt[seat] and state.foot_size(seat) == 13
    assert state.end is not None
    score_hand(state)  # every ended round scores
