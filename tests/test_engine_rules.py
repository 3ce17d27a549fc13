"""One or more tests per rule of classic.md: positions built by hand, moves checked and
applied, refusals compared code by code with their rule id and facts."""

from __future__ import annotations

import pytest
from engine_helpers import kinds, ks, position, token_kind

from canasta_teach.engine import cards
from canasta_teach.engine.cards import DECK_COUNTS, Kind, card_value
from canasta_teach.engine.moves import (
    Add,
    Answer,
    AskPartner,
    Discard,
    Draw,
    Meld,
    Move,
    TakePile,
)
from canasta_teach.engine.rng import SplitMix64
from canasta_teach.engine.rules import CLASSIC2, CLASSIC4
from canasta_teach.engine.state import Asked, Phase, State, deck

K = Kind


def refused(state: State, move: Move, code: str, rule: str) -> dict[str, object]:
    """Assert ``move`` is refused with ``code`` citing ``rule`` and changes nothing."""
    before = state.snapshot()
    verdict = state.apply(move)
    assert verdict.reason is not None, f"{move} was allowed"
    assert (verdict.reason.code, verdict.reason.rule) == (code, rule), str(verdict.reason)
    assert state.snapshot() == before
    assert move not in state.legal_moves()
    return dict(verdict.reason.params)


def allowed(state: State, move: Move) -> None:
    """Assert ``move`` is legal, listed by legal_moves, and play it."""
    verdict = state.check(move)
    assert verdict.legal, f"{move} refused: {verdict.reason}"
    assert move in state.legal_moves()
    state.play(move)


def hand_of(state: State, seat: int) -> list[Kind]:
    return sorted(state.hand_cards(seat))


def shuffled_deck(seed: int) -> list[int]:
    """The deck as ``State.deal`` shuffles it (the end of the list is the stock's top)."""
    order = deck()
    SplitMix64(seed).shuffle(order)
    return order


# ---------------------------------------------------------------- cards and values


@pytest.mark.rule("C-DECK-1")
@pytest.mark.parametrize("rules", [CLASSIC4, CLASSIC2], ids=["4p", "2p"])
def test_deal_uses_all_108_cards(rules: object) -> None:
    state = State.deal(7, rules)  # type: ignore[arg-type]
    assert sum(DECK_COUNTS) == 108 == state.card_total()
    assert list(DECK_COUNTS) == [4, 8, 4, 4] + [8] * 11  # two decks and four jokers
    totals = [0] * 15
    for hand in state.hands:
        for k, c in enumerate(hand):
            totals[k] += c
    for k in (*state.stock, *state.pile):
        totals[k] += 1
    totals[K.RED_THREE] += sum(state.red_threes)
    assert totals == list(DECK_COUNTS)


@pytest.mark.rule("C-DECK-1")
def test_partners_sit_opposite() -> None:
    state = State.deal(1)
    assert [state.partner(s) for s in range(4)] == [2, 3, 0, 1]
    assert [state.team_of(s) for s in range(4)] == [0, 1, 0, 1]


@pytest.mark.rule("C-DECK-2")
def test_wild_natural_and_special_kinds() -> None:
    assert [k for k in Kind if k.is_wild] == [K.JOKER, K.TWO]
    assert [k for k in Kind if k.is_natural] == list(range(K.FOUR, K.ACE + 1))
    assert not K.RED_THREE.is_wild and not K.RED_THREE.is_natural
    assert not K.BLACK_THREE.is_wild and not K.BLACK_THREE.is_natural


@pytest.mark.rule("C-DECK-2")
def test_twos_and_jokers_stand_in_for_naturals_in_a_meld() -> None:
    state = position(hands={0: "9 9 2 JK 5 6"}, melds={0: ["K K K"]}, phase=Phase.MELD)
    allowed(state, Meld(ks("9 9 2 JK")))
    assert state.melds[0][K.NINE].naturals == 2 and state.melds[0][K.NINE].wilds == 2


@pytest.mark.rule("C-VAL-1")
def test_card_values() -> None:
    expected = {"JK": 50, "2": 20, "A": 20, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10,
                "8": 10, "7": 5, "6": 5, "5": 5, "4": 5, "3B": 5}  # fmt: skip
    for token, value in expected.items():
        assert card_value(token_kind(token)) == value, token


@pytest.mark.rule("C-DECK-2")
def test_parse_kind_reads_every_token() -> None:
    # Kind.JOKER is 0: a lookup written "a or b" would lose it.
    for i, token in enumerate(cards.TOKENS):
        assert cards.parse_kind(token) == Kind(i), token
        assert cards.parse_kind(token.lower()) == Kind(i), token
    assert cards.parse_kind("T") == K.TEN and cards.parse_kind("*") == K.JOKER
    with pytest.raises(ValueError):
        cards.parse_kind("3")


@pytest.mark.rule("C-VAL-1")
def test_meld_value_counts_every_card() -> None:
    state = position(hands={0: "A A 2 JK 4 5"}, melds={0: ["K K K"]}, phase=Phase.MELD)
    allowed(state, Meld(ks("A A 2 JK")))
    assert state.melds[0][K.ACE].value == 20 + 20 + 20 + 50


# ---------------------------------------------------------------- dealing


@pytest.mark.rule("C-DEAL-1")
@pytest.mark.parametrize("dealer", [3, 0, 1, 2])
def test_deal_eleven_each_from_dealers_left(dealer: int) -> None:
    for seed in range(40):
        state = State.deal(seed, dealer=dealer)
        first = (dealer + 1) % 4
        assert state.dealer == dealer and state.current == first and state.phase is Phase.DRAW
        assert [state.hand_size(s) for s in range(4)] == [11] * 4
        # One card at a time from the top of the stock, starting at the dealer's left.
        order = shuffled_deck(seed)
        dealt = [[0] * 15 for _ in range(4)]
        for i in range(44):
            dealt[(first + i) % 4][order.pop()] += 1
        for seat in range(4):
            if seat != first or dealt[seat][K.RED_THREE] == 0:
                assert state.hands[seat] == dealt[seat]


@pytest.mark.rule("C-DEAL-1")
def test_play_goes_clockwise_south_first() -> None:
    state = State.deal(3)
    seen = [state.current]
    for _ in range(7):
        state.play(Draw())
        state.play(Discard(state.hand_cards(state.current)[-1]))
        seen.append(state.current)
    assert seen == [0, 1, 2, 3, 0, 1, 2, 3]


@pytest.mark.rule("C-DEAL-2")
def test_upcard_comes_from_the_stock() -> None:
    for seed in range(30):
        state = State.deal(seed)
        rest = shuffled_deck(seed)[: 108 - 44]
        turned = len(state.pile)
        assert state.pile == list(reversed(rest[len(rest) - turned :]))
        stock_before_south = rest[: len(rest) - turned]
        # South's dealt red threes were replaced from the top of the stock (C-RED-1).
        assert state.stock == stock_before_south[: len(state.stock)]
        assert len(state.stock) == 108 - 44 - turned - state.red_threes[0]


@pytest.mark.rule("C-DEAL-3")
def test_wild_or_red_three_upcard_is_covered_and_the_pile_starts_frozen() -> None:
    found = 0
    for seed in range(400):
        state = State.deal(seed)
        if len(state.pile) == 1:
            assert not Kind(state.pile[0]).is_wild and state.pile[0] != K.RED_THREE
            continue
        found += 1
        *covered, top = state.pile
        assert all(k in (K.JOKER, K.TWO, K.RED_THREE) for k in covered)
        assert top not in (K.JOKER, K.TWO, K.RED_THREE)
        assert state.pile_freezers == len(covered)
        assert state.frozen_by(0) in ("wild", "red_three")
        assert state.frozen_by(1) == state.frozen_by(0)
    assert found >= 10


@pytest.mark.rule("C-DEAL-3")
def test_option_turn_until_natural_covers_a_black_three_too() -> None:
    natural_rules = CLASSIC4.with_options(upcard_turn_until_natural=True)
    found = 0
    for seed in range(1500):
        default = State.deal(seed)
        if default.pile[-1] != K.BLACK_THREE:
            continue
        found += 1
        option = State.deal(seed, natural_rules)
        assert len(option.pile) > len(default.pile)
        assert option.pile[: len(default.pile)] == default.pile
        assert Kind(option.pile[-1]).is_natural
        assert all(not Kind(k).is_natural for k in option.pile[:-1])
    assert found >= 3


# ---------------------------------------------------------------- the turn


@pytest.mark.rule("C-TURN-1")
def test_draw_takes_the_top_of_the_stock() -> None:
    state = position(hands={0: "4 5 6"}, stock_top="K 9")
    before = len(state.stock)
    allowed(state, Draw())
    assert hand_of(state, 0) == kinds("4 5 6 9")
    assert len(state.stock) == before - 1 and state.phase is Phase.MELD


@pytest.mark.rule("C-TURN-1")
def test_out_of_phase_moves_are_refused() -> None:
    state = position(hands={0: "8 8 8 9 9"}, melds={0: ["K K K"]}, pile="5")
    refused(state, Discard(K.NINE), "draw_first", "C-TURN-1")
    refused(state, Meld(ks("8 8 8")), "draw_first", "C-TURN-1")
    refused(state, Add(K.KING, ks("8")), "draw_first", "C-TURN-1")
    refused(state, AskPartner(), "draw_first", "C-TURN-1")
    state.play(Draw())
    refused(state, Draw(), "already_drew", "C-TURN-1")
    refused(state, TakePile(ks("5")), "already_drew", "C-TURN-1")
    state.play(AskPartner())
    refused(state, Discard(K.NINE), "await_answer", "C-ASK-1")
    refused(state, Meld(ks("8 8 8")), "await_answer", "C-ASK-1")
    refused(state, Draw(), "await_answer", "C-ASK-1")


@pytest.mark.rule("C-TURN-1")
def test_empty_pile_cannot_be_taken() -> None:
    state = position(hands={0: "8 8 9"}, melds={0: ["K K K"]})
    refused(state, TakePile(ks("8 8")), "pile_empty", "C-TURN-1")


@pytest.mark.rule("C-TURN-2")
def test_melding_after_the_draw_and_only_held_cards() -> None:
    state = position(hands={0: "8 8 8 9 9"}, melds={0: ["K K K"]}, phase=Phase.MELD)
    params = refused(state, Meld(ks("9 9 9")), "not_in_hand", "C-TURN-2")
    assert params == {"cards": ["9"]}
    allowed(state, Meld(ks("8 8 8")))
    assert state.melds[0][K.EIGHT].size == 3 and hand_of(state, 0) == kinds("9 9")
    assert state.phase is Phase.MELD and state.current == 0


@pytest.mark.rule("C-TURN-3")
def test_discard_ends_the_turn() -> None:
    state = position(hands={0: "8 9 10", 1: "4 5"}, melds={0: ["K K K"]}, pile="6",
                     phase=Phase.MELD)  # fmt: skip
    params = refused(state, Discard(K.ACE), "not_in_hand", "C-TURN-3")
    assert params == {"cards": ["A"]}
    allowed(state, Discard(K.NINE))
    assert state.pile == [K.SIX, K.NINE]
    assert state.current == 1 and state.phase is Phase.DRAW
    assert hand_of(state, 0) == kinds("8 10")


# ---------------------------------------------------------------- melds and canastas


@pytest.mark.rule("C-MELD-1")
def test_meld_is_three_or_more_of_one_rank() -> None:
    state = position(hands={0: "8 8 7 7 6 5 JK 9"}, melds={0: ["K K K"]}, phase=Phase.MELD)
    params = refused(state, Meld(ks("8 8")), "too_few", "C-MELD-1")
    assert params == {"count": 2, "cards": ["8", "8"]}
    assert refused(state, Meld(()), "no_cards", "C-MELD-1") == {}
    assert refused(state, Meld(ks("8 8 7")), "mixed_ranks", "C-MELD-1") == {"ranks": ["8", "7"]}
    # Sequences do not exist in Canasta.
    assert refused(state, Meld(ks("5 6 7")), "mixed_ranks", "C-MELD-1")["ranks"] == ["7", "6", "5"]
    params = refused(state, Add(K.KING, ks("8")), "wrong_rank", "C-MELD-1")
    assert params == {"rank": "K", "cards": ["8"]}
    allowed(state, Meld(ks("8 8 JK")))


@pytest.mark.rule("C-MELD-2")
def test_meld_needs_two_naturals_and_at_most_three_wilds() -> None:
    state = position(hands={0: "7 2 2 JK JK 9 9 8 8 5 5"}, melds={0: ["K K K"]},
                     phase=Phase.MELD)  # fmt: skip
    params = refused(state, Meld(ks("7 2 JK")), "needs_two_naturals", "C-MELD-2")
    assert params == {"rank": "7", "naturals": 1, "wilds": 2}
    params = refused(state, Meld(ks("JK JK 2")), "all_wild", "C-MELD-2")
    assert params == {"cards": ["JK", "JK", "2"]}
    params = refused(state, Meld(ks("9 9 2 2 JK JK")), "too_many_wilds", "C-MELD-2")
    assert params == {"rank": "9", "naturals": 2, "wilds": 4, "max_wilds": 3}
    allowed(state, Meld(ks("9 9 2 2 JK")))


@pytest.mark.rule("C-MELD-2")
def test_wild_limit_holds_as_the_meld_grows() -> None:
    state = position(hands={0: "2 JK 8 8 5"}, melds={0: ["7 7 7 7 2 2 JK"]}, phase=Phase.MELD)
    params = refused(state, Add(K.SEVEN, ks("2")), "too_many_wilds", "C-MELD-2")
    assert params == {"rank": "7", "naturals": 4, "wilds": 4, "max_wilds": 3}
    allowed(state, Meld(ks("8 8 JK")))


@pytest.mark.rule("C-MELD-2")
def test_option_two_naturals_per_wild() -> None:
    literal = CLASSIC4.with_options(two_naturals_per_wild=True)
    hands = {0: "9 9 2 2 8 8 8 2 5 6"}
    state = position(literal, hands=hands, melds={0: ["K K K"]}, phase=Phase.MELD)
    params = refused(state, Meld(ks("9 9 2 2")), "two_naturals_per_wild", "C-MELD-2")
    assert params == {"rank": "9", "naturals": 2, "wilds": 2}
    allowed(state, Meld(ks("9 9 2")))
    # A second wild card on two naturals is refused as the meld grows, too.
    refused(state, Add(K.NINE, ks("2")), "two_naturals_per_wild", "C-MELD-2")
    default = position(hands=hands, melds={0: ["K K K"]}, phase=Phase.MELD)
    allowed(default, Meld(ks("9 9 2 2")))


@pytest.mark.rule("C-MELD-3")
def test_one_meld_per_rank_per_team_and_team_melds() -> None:
    state = position(hands={0: "K K K 9 9 9 5 6", 2: "4"}, melds={0: ["K K K 2"], 1: ["9 9"
                     " JK"]}, phase=Phase.MELD)  # fmt: skip
    params = refused(state, Meld(ks("K K K")), "rank_already_melded", "C-MELD-3")
    assert params == {"rank": "K", "set_aside": False}
    # The opponents' meld of 9s neither blocks ours nor can be added to.
    params = refused(state, Add(K.NINE, ks("9")), "no_such_meld", "C-MELD-3")
    assert params == {"rank": "9", "set_aside": False}
    allowed(state, Meld(ks("9 9 9")))
    assert state.melds[1][K.NINE].size == 3 and state.melds[0][K.NINE].size == 3
    # The K meld was laid by either partner: it is the team's, and a K goes onto it.
    allowed(state, Add(K.KING, ks("K K")))
    assert state.melds[0][K.KING].size == 6


@pytest.mark.rule("C-MELD-4")
@pytest.mark.rule("C-OUT-4")
def test_red_threes_never_and_black_threes_only_going_out() -> None:
    state = position(hands={0: "3R 3R 3R 3B 3B 3B 2 9 9"}, melds={0: ["K K K K K K K"]},
                     phase=Phase.MELD)  # fmt: skip
    refused(state, Meld(ks("3R 3R 3R")), "red_three_meld", "C-MELD-4")
    refused(state, Add(K.KING, ks("3R")), "red_three_meld", "C-MELD-4")
    refused(state, Meld(ks("3B 3B 3B")), "black_threes_only_going_out", "C-OUT-4")
    refused(state, Meld(ks("3B 3B 2")), "black_threes_no_wilds", "C-OUT-4")
    refused(state, Meld(ks("3B 3B 3B 2")), "black_threes_no_wilds", "C-OUT-4")


@pytest.mark.rule("C-CAN-1")
def test_seven_cards_make_a_canasta() -> None:
    state = position(hands={0: "8 8 8 8 8 8 8 J J J JK 9 9"}, melds={0: ["K K K"]},
                     phase=Phase.MELD)  # fmt: skip
    allowed(state, Meld(ks("J J J JK")))
    assert state.canastas(0) == 0
    allowed(state, Meld(ks("8 8 8 8 8 8")))
    assert state.canastas(0) == 0
    allowed(state, Add(K.EIGHT, ks("8")))
    eights = state.melds[0][K.EIGHT]
    assert eights.is_canasta and eights.is_natural and state.canastas(0) == 1


@pytest.mark.rule("C-CAN-2")
def test_a_canasta_grows_and_a_wild_makes_it_mixed() -> None:
    state = position(hands={0: "8 2 JK 9 9"}, melds={0: ["8 8 8 8 8 8 8"]}, phase=Phase.MELD)
    allowed(state, Add(K.EIGHT, ks("8")))
    assert state.melds[0][K.EIGHT].size == 8 and state.melds[0][K.EIGHT].is_natural
    allowed(state, Add(K.EIGHT, ks("2")))
    assert not state.melds[0][K.EIGHT].is_natural and state.canastas(0) == 1


# ---------------------------------------------------------------- red threes


@pytest.mark.rule("C-RED-1")
def test_dealt_red_threes_go_down_at_the_first_turn_and_are_replaced() -> None:
    seeds_south = seeds_west = 0
    for seed in range(300):
        order = shuffled_deck(seed)
        dealt = [[0] * 15 for _ in range(4)]
        for i in range(44):
            dealt[i % 4][order.pop()] += 1
        state = State.deal(seed)
        if dealt[0][K.RED_THREE]:
            seeds_south += 1
            # South's first turn has begun: laid down and replaced, before the draw
            # (a replacement that is a red three is laid down and replaced in turn).
            assert state.red_threes[0] >= dealt[0][K.RED_THREE]
            assert state.hands[0][K.RED_THREE] == 0
            assert len(state.stock) == 108 - 44 - len(state.pile) - state.red_threes[0]
            assert state.hand_size(0) == 11 and state.phase is Phase.DRAW
        if dealt[1][K.RED_THREE] and not dealt[0][K.RED_THREE] and len(state.pile) == 1:
            seeds_west += 1
            # West keeps them until West's own turn starts.
            assert state.hands[1][K.RED_THREE] == dealt[1][K.RED_THREE]
            state.play(Draw())
            stock_before = len(state.stock)
            state.play(Discard(state.hand_cards(0)[0]))
            assert state.current == 1 and state.phase is Phase.DRAW
            assert state.hands[1][K.RED_THREE] == 0 and state.hand_size(1) == 11
            assert state.red_threes[1] >= dealt[1][K.RED_THREE]
            assert stock_before - len(state.stock) == state.red_threes[1]
    assert seeds_south >= 5 and seeds_west >= 5


@pytest.mark.rule("C-RED-1")
def test_red_three_in_hand_is_replaced_when_the_turn_begins() -> None:
    state = position(hands={0: "9 8", 1: "3R 4 5"}, melds={0: ["K K K"]}, stock_top="Q J",
                     phase=Phase.MELD)  # fmt: skip
    allowed(state, Discard(K.NINE))
    assert state.current == 1 and state.red_threes[1] == 1
    assert hand_of(state, 1) == kinds("4 5 J")
    allowed(state, Draw())
    assert hand_of(state, 1) == kinds("4 5 J Q")


@pytest.mark.rule("C-RED-1")
def test_drawn_red_three_is_laid_down_and_replaced() -> None:
    state = position(hands={0: "9 8"}, stock_top="5 3R")
    allowed(state, Draw())
    assert state.red_threes[0] == 1 and hand_of(state, 0) == kinds("5 8 9")
    assert state.phase is Phase.MELD


@pytest.mark.rule("C-RED-1")
def test_red_three_taken_with_the_pile_has_no_replacement() -> None:
    state = position(hands={0: "9 9 4 5"}, melds={0: ["K K K"]}, pile="3R 6 9")
    stock = list(state.stock)
    allowed(state, TakePile(ks("9 9")))
    assert state.red_threes[0] == 1 and state.stock == stock
    assert hand_of(state, 0) == kinds("4 5 6")
    assert state.melds[0][K.NINE].naturals == 3


# ---------------------------------------------------------------- black threes, freezing


@pytest.mark.rule("C-BLK-1")
def test_black_three_on_top_stops_the_next_player() -> None:
    state = position(hands={0: "3B 9", 1: "8 8 JK 4"}, melds={0: ["K K K"], 1: ["Q Q Q"]},
                     pile="8", phase=Phase.MELD)  # fmt: skip
    allowed(state, Discard(K.BLACK_THREE))
    assert state.current == 1
    refused(state, TakePile(ks("8 8")), "black_three_on_top", "C-BLK-1")
    refused(state, TakePile(()), "black_three_on_top", "C-BLK-1")
    assert state.legal_moves() == [Draw()]


@pytest.mark.rule("C-BLK-1")
def test_covered_black_three_does_not_freeze_by_default_but_does_with_the_option() -> None:
    layout = {"hands": {0: "9 JK 4 5"}, "melds": {0: ["K K K"]}, "pile": "3B 9"}
    state = position(**layout)  # type: ignore[arg-type]
    assert state.frozen_by(0) is None
    allowed(state, TakePile(ks("9 JK")))
    freezing = CLASSIC4.with_options(black_three_freezes=True)
    state = position(freezing, **layout)  # type: ignore[arg-type]
    assert state.pile_freezers == 1
    params = refused(state, TakePile(ks("9 JK")), "frozen_needs_pair", "C-PILE-3")
    assert params["frozen_by"] == "black_three"


@pytest.mark.rule("C-FRZ-1")
def test_wild_discard_freezes_the_pile() -> None:
    state = position(hands={0: "2 9", 1: "8 JK 4 5"}, melds={0: ["K K K"], 1: ["Q Q Q"]},
                     pile="8 8", phase=Phase.MELD)  # fmt: skip
    assert state.frozen_by(1) is None
    allowed(state, Discard(K.TWO))
    assert state.pile_freezers == 1 and state.frozen_by(1) == "wild"
    # Covered by a natural card, the wild card still freezes the pile.
    covered = position(hands={1: "8 JK 4 5"}, melds={0: ["K K K"], 1: ["Q Q Q"]},
                       pile="8 8 2 8", current=1)  # fmt: skip
    assert covered.pile_freezers == 1
    params = refused(covered, TakePile(ks("8 JK")), "frozen_needs_pair", "C-PILE-3")
    assert params["frozen_by"] == "wild"


@pytest.mark.rule("C-FRZ-1")
@pytest.mark.rule("C-PILE-3")
def test_frozen_pile_refuses_natural_and_wild() -> None:
    state = position(hands={0: "7 JK 4 5"}, melds={0: ["K K K"]}, pile="8 JK 6 7")
    assert state.frozen_by(0) == "wild"
    params = refused(state, TakePile(ks("7 JK")), "frozen_needs_pair", "C-PILE-3")
    assert params == {"frozen_by": "wild", "rank": "7", "naturals_held": 1, "jokers_held": 1,
                      "twos_held": 0, "offered": ["7", "JK"]}  # fmt: skip
    state = position(hands={0: "7 7 4 5"}, melds={0: ["K K K"]}, pile="8 3R 6 7")
    assert state.frozen_by(0) == "red_three"


@pytest.mark.rule("C-PILE-3")
def test_frozen_pile_taken_with_a_natural_pair() -> None:
    state = position(hands={0: "7 7 4 5"}, melds={0: ["K K K"]}, pile="8 JK 6 7")
    allowed(state, TakePile(ks("7 7")))
    assert state.melds[0][K.SEVEN].naturals == 3 and state.melds[0][K.SEVEN].wilds == 0
    assert hand_of(state, 0) == kinds("JK 4 5 6 8")
    assert state.pile == [] and state.pile_freezers == 0 and state.phase is Phase.MELD


@pytest.mark.rule("C-FRZ-2")
def test_pile_is_frozen_for_a_team_that_has_not_melded() -> None:
    layout = {"hands": {0: "8 8 JK A A 4", 1: "8 8 JK A A 4"}, "pile": "5 8",
              "scores": (-100, -100)}  # fmt: skip
    # Team 0 has not melded: natural + wild is not enough (minimum 15 would be met).
    state = position(**layout, melds={1: ["Q Q Q"]})  # type: ignore[arg-type]
    assert state.frozen_by(0) == "first_meld" and state.frozen_by(1) is None
    params = refused(state, TakePile(ks("8 JK")), "frozen_needs_pair", "C-PILE-3")
    assert params["frozen_by"] == "first_meld"
    # The other team has melded: the same cards take the same pile.
    state = position(**layout, melds={1: ["Q Q Q"]}, current=1)  # type: ignore[arg-type]
    allowed(state, TakePile(ks("8 JK")))


@pytest.mark.rule("C-FRZ-3")
def test_taking_the_pile_unfreezes_it() -> None:
    state = position(hands={0: "7 7 4 5 6", 1: "6 JK 9 10"}, melds={0: ["K K K"], 1: ["Q Q Q"]},
                     pile="8 JK 6 7")  # fmt: skip
    allowed(state, TakePile(ks("7 7")))
    allowed(state, Discard(K.SIX))
    assert state.pile == [K.SIX] and state.pile_freezers == 0 and state.frozen_by(1) is None
    state.play(TakePile(ks("6 JK")))  # natural + wild: the pile is no longer frozen


# ---------------------------------------------------------------- the discard pile


@pytest.mark.rule("C-PILE-1")
def test_taking_the_pile_melds_the_top_card_and_the_rest_goes_to_the_hand() -> None:
    state = position(hands={0: "Q Q 4"}, melds={0: ["K K K"]}, pile="9 9 A 5 Q")
    allowed(state, TakePile(ks("Q Q")))
    assert state.melds[0][K.QUEEN].naturals == 3
    assert hand_of(state, 0) == kinds("4 5 9 9 A")
    assert state.pile == [] and state.took_pile and state.phase is Phase.MELD
    # Further melds and a discard follow as usual.
    allowed(state, Discard(K.FOUR))
    assert state.current == 1


@pytest.mark.rule("C-PILE-1")
def test_top_card_onto_an_existing_meld() -> None:
    state = position(hands={0: "4 5"}, melds={0: ["K K K"]}, pile="9 K")
    allowed(state, TakePile(()))
    assert state.melds[0][K.KING].naturals == 4 and hand_of(state, 0) == kinds("4 5 9")


@pytest.mark.rule("C-PILE-1")
def test_the_top_card_is_melded_with_cards_from_the_hand() -> None:
    state = position(hands={0: "Q 4 5"}, melds={0: ["K K K"]}, pile="9 Q")
    params = refused(state, TakePile(ks("Q Q")), "not_in_hand", "C-PILE-1")
    assert params == {"cards": ["Q"]}


@pytest.mark.rule("C-PILE-2")
def test_never_taken_under_a_wild_card() -> None:
    for top in ("2", "JK"):
        state = position(hands={0: "7 7 2 JK"}, melds={0: ["7 7 7"]}, pile=f"7 {top}")
        params = refused(state, TakePile(()), "wild_on_top", "C-PILE-2")
        assert params == {"card": top}
        refused(state, TakePile(ks("7 7")), "wild_on_top", "C-PILE-2")
        assert state.legal_moves() == [Draw()]


@pytest.mark.rule("C-MELD-4")
def test_never_taken_under_a_red_three_which_cannot_be_melded() -> None:
    # C-PILE-2 names only black threes and wild cards; a red three on top (a position can
    # hold one) stops the pickup because the top card must be melded and it never can be.
    state = position(hands={0: "7 7 2 JK"}, melds={0: ["7 7 7"]}, pile="7 3R")
    params = refused(state, TakePile(()), "red_three_on_top", "C-MELD-4")
    assert params == {"card": "3R"}
    refused(state, TakePile(ks("7 7")), "red_three_on_top", "C-MELD-4")
    assert state.legal_moves() == [Draw()]


@pytest.mark.rule("C-PILE-4")
def test_unfrozen_pile_pair_natural_and_wild_or_onto_a_meld() -> None:
    def fresh() -> State:
        return position(hands={0: "8 8 JK 2 5 6"}, melds={0: ["K K K", "Q Q Q"]}, pile="4 8")

    for cards_ in ("8 8", "8 JK", "8 2", "8 8 JK"):
        state = fresh()
        allowed(state, TakePile(ks(cards_)))
        assert state.melds[0][K.EIGHT].size == 1 + len(cards_.split())
    state = fresh()
    params = refused(state, TakePile(ks("JK 2")), "take_needs_pair_or_meld", "C-PILE-4")
    assert params == {"rank": "8", "naturals_held": 2, "jokers_held": 1, "twos_held": 1,
                      "offered": ["JK", "2"]}  # fmt: skip
    refused(state, TakePile(()), "take_needs_pair_or_meld", "C-PILE-4")
    refused(state, TakePile(ks("8")), "take_needs_pair_or_meld", "C-PILE-4")
    # Onto the team's meld of that rank, without a card from the hand.
    state = position(hands={0: "JK 5"}, melds={0: ["K K K"]}, pile="4 K")
    allowed(state, TakePile(()))


@pytest.mark.rule("C-PILE-5")
def test_one_card_may_not_take_a_one_card_pile() -> None:
    state = position(hands={0: "9"}, melds={0: ["K K K", "8 8 8 8 8 8 8"]}, pile="K")
    assert refused(state, TakePile(()), "one_card_one_pile", "C-PILE-5") == {}
    state = position(hands={0: "9"}, melds={0: ["K K K", "8 8 8 8 8 8 8"]}, pile="5 K")
    allowed(state, TakePile(()))
    assert hand_of(state, 0) == kinds("5 9")


@pytest.mark.rule("C-PILE-6")
@pytest.mark.rule("C-MIN-2")
def test_first_meld_with_the_pile_counts_top_card_and_hand_only() -> None:
    # The rest of the pile (two jokers, an ace) is worth 120 but does not count.
    state = position(hands={0: "K K 5 6"}, pile="JK JK A K", scores=(0, 0))
    params = refused(state, TakePile(ks("K K")), "below_minimum", "C-PILE-6")
    # The same facts as every below_minimum refusal (reasons.REASONS), so one message fits.
    assert params == {"needed": 50, "have": 30}
    # A meld set aside in the same play adds up: 30 + 60 = 90 >= 50.
    state = position(hands={0: "K K A A 2 5"}, pile="4 K", scores=(0, 0))
    allowed(state, Meld(ks("A A 2")))
    assert state.staged and not state.down[0]
    allowed(state, TakePile(ks("K K")))
    assert state.down[0] and set(state.melds[0]) == {K.ACE, K.KING} and not state.staged
    assert hand_of(state, 0) == kinds("4 5")


# ---------------------------------------------------------------- first meld minimum


@pytest.mark.rule("C-MIN-1")
def test_minimum_follows_the_cumulative_score() -> None:
    for score, need in ((-10, 15), (0, 50), (1495, 50), (1500, 90), (2995, 90), (3000, 120),
                        (7000, 120)):  # fmt: skip
        state = position(hands={0: "9"}, scores=(score, 0))
        assert CLASSIC4.first_meld_minimum(score) == need
        assert state.minimum(0) == need and state.minimum(1) == 50


@pytest.mark.rule("C-MIN-1")
def test_meld_below_the_minimum_is_set_aside_not_laid_down() -> None:
    state = position(hands={0: "K K K 9 9 9 5 6"}, phase=Phase.MELD, scores=(1500, 0))
    verdict = state.check(Meld(ks("K K K")))
    assert verdict.legal and verdict.note is not None
    assert verdict.note.code == "set_aside" and dict(verdict.note.params) == {
        "needed": 90, "have": 30}  # fmt: skip
    negative = position(hands={0: "4 4 4 9 5 6"}, phase=Phase.MELD, scores=(-50, 0))
    allowed(negative, Meld(ks("4 4 4")))
    assert negative.down[0] and negative.melds[0][K.FOUR].size == 3


@pytest.mark.rule("C-MIN-2")
@pytest.mark.rule("C-MIN-4")
def test_two_melds_in_one_turn_add_up() -> None:
    state = position(hands={0: "K K K A A 2 9 5"}, phase=Phase.MELD, scores=(1500, 0))
    allowed(state, Meld(ks("K K K")))
    assert not state.down[0] and state.melds[0] == {} and state.staged_value() == 30
    allowed(state, Meld(ks("A A 2")))
    assert state.down[0] and set(state.melds[0]) == {K.KING, K.ACE} and not state.staged
    assert hand_of(state, 0) == kinds("5 9")


@pytest.mark.rule("C-MIN-2")
def test_canasta_bonus_does_not_count_toward_the_minimum() -> None:
    state = position(hands={0: "7 7 7 7 7 7 7 9 5"}, phase=Phase.MELD, scores=(0, 0))
    verdict = state.check(Meld(ks("7 7 7 7 7 7 7")))
    assert verdict.legal and verdict.note is not None
    assert dict(verdict.note.params) == {"needed": 50, "have": 35}


@pytest.mark.rule("C-MIN-3")
def test_no_minimum_once_the_team_is_down() -> None:
    state = position(hands={0: "4 4 4 9 5"}, melds={0: ["K K K"]}, phase=Phase.MELD,
                     scores=(3500, 0), current=0)  # fmt: skip
    assert state.minimum(0) == 0
    verdict = state.check(Meld(ks("4 4 4")))
    assert verdict.legal and verdict.note is None
    state.play(Meld(ks("4 4 4")))
    assert state.melds[0][K.FOUR].size == 3


@pytest.mark.rule("C-MIN-4")
def test_below_the_minimum_nothing_goes_down() -> None:
    state = position(hands={0: "K K K 9 9 9 5 6"}, phase=Phase.MELD, scores=(0, 0))
    allowed(state, Meld(ks("K K K")))
    assert state.staged and state.melds[0] == {} and not state.down[0]
    allowed(state, Discard(K.FIVE))
    # The set-aside kings return to the hand; the team is still not down.
    assert hand_of(state, 0) == kinds("6 9 9 9 K K K")
    assert state.staged == {} and state.melds[0] == {} and not state.down[0]
    assert state.current == 1


@pytest.mark.rule("C-MIN-4")
def test_laying_everything_below_the_minimum_is_refused() -> None:
    state = position(hands={0: "K K K 9 9 9"}, phase=Phase.MELD, scores=(1500, 0))
    allowed(state, Meld(ks("K K K")))
    params = refused(state, Meld(ks("9 9 9")), "below_minimum", "C-MIN-4")
    assert params == {"needed": 90, "have": 60}


# ---------------------------------------------------------------- going out


@pytest.mark.rule("C-OUT-1")
def test_going_out_needs_a_canasta() -> None:
    state = position(hands={0: "8 8 8"}, melds={0: ["K K K K K K"]}, phase=Phase.MELD)
    params = refused(state, Meld(ks("8 8 8")), "need_canasta", "C-OUT-1")
    assert params == {"canastas": 0, "needed": 1}
    # Making the canasta in the same play counts.
    state = position(hands={0: "K 8 8 8"}, melds={0: ["K K K K K K"]}, phase=Phase.MELD)
    allowed(state, Add(K.KING, ks("K")))
    allowed(state, Meld(ks("8 8 8")))
    assert state.is_over and state.end is not None and state.end.how == "out"


@pytest.mark.rule("C-OUT-2")
def test_going_out_by_discarding_the_last_card() -> None:
    state = position(hands={0: "8 8 8 9", 2: "4 4"}, melds={0: ["K K K K K K K"]},
                     phase=Phase.MELD, has_melded=(True, False, True, False))  # fmt: skip
    allowed(state, Meld(ks("8 8 8")))
    assert not state.is_over
    allowed(state, Discard(K.NINE))
    assert state.phase is Phase.ENDED and state.end is not None
    assert (state.end.how, state.end.seat) == ("out", 0)
    assert state.pile[-1] == K.NINE and state.hand_size(0) == 0


@pytest.mark.rule("C-OUT-2")
def test_going_out_by_melding_every_card() -> None:
    state = position(hands={0: "8 8 8 9 9 JK"}, melds={0: ["K K K K K K K"]},
                     phase=Phase.MELD, has_melded=(True, False, False, False))  # fmt: skip
    allowed(state, Meld(ks("8 8 8")))
    allowed(state, Meld(ks("9 9 JK")))
    assert state.end is not None and (state.end.how, state.end.seat) == ("out", 0)


@pytest.mark.rule("C-OUT-3")
def test_concealed_going_out() -> None:
    # The partner's earlier melds do not matter; the player's own canasta this turn does.
    state = position(hands={0: "7 7 7 7 7 7 7 K K K 9"}, melds={0: ["Q Q Q"]},
                     phase=Phase.MELD, has_melded=(False, False, True, False))  # fmt: skip
    allowed(state, Meld(ks("7 7 7 7 7 7 7")))
    allowed(state, Meld(ks("K K K")))
    allowed(state, Discard(K.NINE))
    assert state.end is not None and state.end.how == "concealed"


@pytest.mark.rule("C-OUT-3")
def test_not_concealed_after_an_earlier_meld_a_pile_pickup_or_without_own_canasta() -> None:
    earlier = position(hands={0: "7 7 7 7 7 7 7 K K K 9"}, melds={0: ["Q Q Q"]},
                       phase=Phase.MELD, has_melded=(True, False, False, False))  # fmt: skip
    for move in (Meld(ks("7 7 7 7 7 7 7")), Meld(ks("K K K")), Discard(K.NINE)):
        allowed(earlier, move)
    assert earlier.end is not None and earlier.end.how == "out"
    partners = position(hands={0: "K K K 9"}, melds={0: ["Q Q Q Q Q Q Q"]}, phase=Phase.MELD)
    for move in (Meld(ks("K K K")), Discard(K.NINE)):
        allowed(partners, move)
    assert partners.end is not None and partners.end.how == "out"
    pile = position(hands={0: "7 7 7 7 7 7 K K K"}, melds={0: ["Q Q Q"]}, pile="9 7")
    pickup: list[Move] = [TakePile(ks("7 7 7 7 7 7")), Meld(ks("K K K")), Discard(K.NINE)]
    for step in pickup:
        allowed(pile, step)
    assert pile.end is not None and pile.end.how == "out"


@pytest.mark.rule("C-OUT-3")
@pytest.mark.rule("C-MIN-4")
def test_concealed_going_out_must_meet_the_minimum() -> None:
    hand = "4 4 4 4 4 4 4 5 5 5 9"
    met = position(hands={0: hand}, phase=Phase.MELD, scores=(0, 0))
    for move in (Meld(ks("4 4 4 4 4 4 4")), Meld(ks("5 5 5")), Discard(K.NINE)):
        allowed(met, move)
    assert met.end is not None and met.end.how == "concealed"
    # 35 + 15 = 50 is below 90: nothing goes down and the discard returns the cards.
    short = position(hands={0: hand}, phase=Phase.MELD, scores=(1500, 0))
    allowed(short, Meld(ks("4 4 4 4 4 4 4")))
    allowed(short, Meld(ks("5 5 5")))
    assert not short.down[0]
    allowed(short, Discard(K.NINE))
    assert not short.is_over and hand_of(short, 0) == kinds("4 4 4 4 4 4 4 5 5 5")


@pytest.mark.rule("C-OUT-4")
def test_black_threes_melded_when_going_out() -> None:
    state = position(hands={0: "3B 3B 3B 9"}, melds={0: ["K K K K K K K"]}, phase=Phase.MELD,
                     has_melded=(True, False, False, False))  # fmt: skip
    allowed(state, Meld(ks("3B 3B 3B")))
    refused(state, Add(K.BLACK_THREE, ks("9")), "wrong_rank", "C-MELD-1")
    allowed(state, Discard(K.NINE))
    assert state.end is not None and state.end.how == "out"
    assert state.melds[0][K.BLACK_THREE].size == 3
    four = position(hands={0: "3B 3B 3B 3B"}, melds={0: ["K K K K K K K"]}, phase=Phase.MELD)
    allowed(four, Meld(ks("3B 3B 3B 3B")))
    assert four.is_over
    # Not going out: two cards would remain.
    staying = position(hands={0: "3B 3B 3B 9 9"}, melds={0: ["K K K K K K K"]},
                       phase=Phase.MELD)  # fmt: skip
    refused(staying, Meld(ks("3B 3B 3B")), "black_threes_only_going_out", "C-OUT-4")


@pytest.mark.rule("C-OUT-5")
def test_player_who_may_not_go_out_keeps_a_card() -> None:
    state = position(hands={0: "8 8 8 9"}, melds={0: ["K K K"]}, phase=Phase.MELD,
                     pile="5 J")  # fmt: skip
    params = refused(state, Meld(ks("8 8 8")), "keep_a_card", "C-OUT-5")
    assert params == {"canastas": 0, "needed": 1, "cards_left": 1}
    state = position(hands={0: "K K 9"}, melds={0: ["K K K"]}, phase=Phase.MELD)
    params = refused(state, Add(K.KING, ks("K K")), "keep_a_card", "C-OUT-5")
    assert params == {"canastas": 0, "needed": 1, "cards_left": 1}
    allowed(state, Add(K.KING, ks("K")))
    # Taking the pile that would leave one card.
    state = position(hands={0: "J J 9"}, melds={0: ["K K K"]}, pile="J")
    params = refused(state, TakePile(ks("J J")), "keep_a_card", "C-OUT-5")
    assert params["cards_left"] == 1
    # Discarding the last card is going out.
    state = position(hands={0: "9"}, melds={0: ["K K K"]}, phase=Phase.MELD)
    refused(state, Discard(K.NINE), "need_canasta", "C-OUT-1")


@pytest.mark.rule("C-ASK-1")
def test_ask_after_drawing_and_before_melding() -> None:
    state = position(hands={0: "8 8 8 9 5", 2: "4 4"}, melds={0: ["K K K K K K K"]})
    refused(state, AskPartner(), "draw_first", "C-TURN-1")
    refused(state, Answer(True), "no_question", "C-ASK-1")
    state.play(Draw())
    allowed(state, AskPartner())
    assert state.phase is Phase.ANSWER and state.to_move == 2 and state.current == 0
    assert state.legal_moves() == [Answer(True), Answer(False)]
    refused(state, AskPartner(), "await_answer", "C-ASK-1")
    allowed(state, Answer(True))
    assert state.asked is Asked.YES and state.to_move == 0 and state.phase is Phase.MELD
    refused(state, AskPartner(), "already_asked", "C-ASK-1")
    later = position(hands={0: "8 8 8 9 5 6"}, melds={0: ["K K K K K K K"]}, phase=Phase.MELD)
    later.play(Meld(ks("8 8 8")))
    refused(later, AskPartner(), "ask_before_melding", "C-ASK-1")


@pytest.mark.rule("C-ASK-1")
def test_answer_no_forbids_going_out_this_turn() -> None:
    state = position(hands={0: "8 8 8 9"}, melds={0: ["K K K K K K K"]}, phase=Phase.MELD)
    state.play(AskPartner())
    state.play(Answer(False))
    params = refused(state, Meld(ks("8 8 8")), "partner_said_no", "C-ASK-1")
    assert params == {"cards_left": 1}
    state = position(hands={0: "8 8 8"}, melds={0: ["K K K K K K K"]}, phase=Phase.MELD)
    state.play(AskPartner())
    state.play(Answer(False))
    refused(state, Meld(ks("8 8 8")), "partner_said_no", "C-ASK-1")


@pytest.mark.rule("C-ASK-1")
def test_yes_and_not_out_costs_100_at_the_end() -> None:
    from canasta_teach.engine.scoring import score_hand

    state = position(hands={0: "8 8 8 9 5 6"}, melds={0: ["K K K K K K K"]}, phase=Phase.MELD)
    state.play(AskPartner())
    state.play(Answer(True))
    allowed(state, Meld(ks("8 8 8")))  # not stopped from playing on
    allowed(state, Discard(K.NINE))
    assert state.penalties == [100, 0] and state.current == 1
    lines = {ln.code: ln.points for ln in score_hand(state).teams[0].lines}
    assert lines["ask_penalty"] == -100


@pytest.mark.rule("C-ASK-1")
def test_going_out_without_asking_and_yes_then_out_has_no_penalty() -> None:
    state = position(hands={0: "8 8 8 9"}, melds={0: ["K K K K K K K"]}, phase=Phase.MELD)
    state.play(AskPartner())
    state.play(Answer(True))
    state.play(Meld(ks("8 8 8")))
    state.play(Discard(K.NINE))
    assert state.is_over and state.penalties == [0, 0]
    unasked = position(hands={0: "8 8 8 9"}, melds={0: ["K K K K K K K"]}, phase=Phase.MELD)
    for move in (Meld(ks("8 8 8")), Discard(K.NINE)):
        allowed(unasked, move)
    assert unasked.is_over


@pytest.mark.rule("C-ASK-1")
@pytest.mark.rule("C-TWO-3")
def test_asking_is_off_with_two_players_or_by_option() -> None:
    two = position(CLASSIC2, hands={0: "8 8 8 9 5"}, melds={0: ["K K K K K K K"]},
                   phase=Phase.MELD)  # fmt: skip
    refused(two, AskPartner(), "ask_off", "C-ASK-1")
    off = position(CLASSIC4.with_options(ask_partner=False), hands={0: "8 8 9 5"},
                   melds={0: ["K K K"]}, phase=Phase.MELD)  # fmt: skip
    refused(off, AskPartner(), "ask_off", "C-ASK-1")


# ---------------------------------------------------------------- end of the hand


@pytest.mark.rule("C-END-1")
def test_hand_ends_when_a_player_goes_out() -> None:
    state = position(hands={0: "8 8 8 9", 1: "5 5"}, melds={0: ["K K K K K K K"]},
                     phase=Phase.MELD)  # fmt: skip
    state.play(Meld(ks("8 8 8")))
    state.play(Discard(K.NINE))
    assert state.is_over and state.legal_moves() == []
    for move in (Draw(), Discard(K.FIVE), AskPartner(), Answer(True), TakePile(ks("9 9"))):
        refused(state, move, "hand_over", "C-END-1")


@pytest.mark.rule("C-END-2")
def test_empty_stock_pile_may_still_be_taken_else_the_hand_ends() -> None:
    state = position(hands={0: "9 9 4 5"}, melds={0: ["K K K"]}, pile="6 9", leftover_to=3)
    assert state.stock == []
    allowed(state, TakePile(ks("9 9")))
    assert not state.is_over
    ending = position(hands={0: "9 9 4 5"}, melds={0: ["K K K"]}, pile="6 9", leftover_to=3)
    allowed(ending, Draw())
    assert ending.is_over and ending.end is not None and ending.end.how == "stock"
    assert hand_of(ending, 0) == kinds("4 5 9 9")
    # Any further move is refused under the rule that ended the hand, not C-END-1.
    for move in (Draw(), Discard(K.FIVE), AskPartner(), TakePile(ks("9 9"))):
        params = refused(ending, move, "hand_over", "C-END-2")
        assert params["how"] == "stock"


@pytest.mark.rule("C-END-2")
def test_red_three_as_the_last_stock_card_ends_the_hand_at_once() -> None:
    from canasta_teach.engine.scoring import score_hand

    state = position(hands={0: "8 8 8 9", 3: "3R 3R 3R"}, melds={0: ["K K K K K K K"]},
                     stock_top="3R", leftover_to=1)  # fmt: skip
    assert state.stock == [K.RED_THREE]
    allowed(state, Draw())
    assert state.is_over and state.end is not None and state.end.how == "stock"
    assert state.red_threes[0] == 1 and hand_of(state, 0) == kinds("8 8 8 9")
    codes = {ln.code for team in score_hand(state).teams for ln in team.lines}
    assert not codes & {"going_out", "going_out_concealed"}


# ---------------------------------------------------------------- two players


@pytest.mark.rule("C-TWO-1")
def test_two_players_get_fifteen_cards() -> None:
    for seed in range(20):
        state = State.deal(seed, CLASSIC2)
        assert state.players == 2 and len(state.hands) == 2
        assert [state.hand_size(0), state.hand_size(1)] == [15, 15]
        assert state.card_total() == 108 and state.current == 0


@pytest.mark.rule("C-TWO-2")
def test_two_players_draw_two_and_the_last_card_is_the_whole_draw() -> None:
    state = position(CLASSIC2, hands={0: "4 5"}, stock_top="9 Q")
    allowed(state, Draw())
    assert hand_of(state, 0) == kinds("4 5 9 Q") and state.phase is Phase.MELD
    last = position(CLASSIC2, hands={0: "4 5"}, stock_top="9", leftover_to=1)
    allowed(last, Draw())
    assert hand_of(last, 0) == kinds("4 5 9") and last.stock == [] and not last.is_over
    redraw = position(CLASSIC2, hands={0: "4 5"}, stock_top="6 9 3R")
    allowed(redraw, Draw())
    assert hand_of(redraw, 0) == kinds("4 5 6 9") and redraw.red_threes[0] == 1


@pytest.mark.rule("C-TWO-3")
def test_two_players_need_two_canastas_to_go_out() -> None:
    state = position(CLASSIC2, hands={0: "8 8 8"}, melds={0: ["K K K K K K K"]},
                     phase=Phase.MELD)  # fmt: skip
    params = refused(state, Meld(ks("8 8 8")), "need_canasta", "C-OUT-1")
    assert params == {"canastas": 1, "needed": 2}
    two = position(CLASSIC2, hands={0: "8 8 8"}, melds={0: ["K K K K K K K", "Q Q Q Q Q Q Q"]},
                   phase=Phase.MELD)  # fmt: skip
    allowed(two, Meld(ks("8 8 8")))
    assert two.is_over


@pytest.mark.rule("C-OUT-2")
def test_going_out_by_taking_the_pile() -> None:
    state = position(hands={0: "9 9"}, melds={0: ["K K K K K K K"]}, pile="9",
                     has_melded=(True, False, False, False))  # fmt: skip
    allowed(state, TakePile(ks("9 9")))
    assert state.end is not None and (state.end.how, state.end.seat) == ("out", 0)
    assert state.melds[0][K.NINE].naturals == 3


@pytest.mark.rule("C-OUT-3")
@pytest.mark.rule("C-MIN-4")
def test_set_aside_before_the_draw_goes_down_after_it_and_may_go_out_concealed() -> None:
    state = position(hands={0: "7 7 7 7 7 7 7 K K K"}, stock_top="4", scores=(0, 0))
    allowed(state, Meld(ks("7 7 7 7 7 7 7")))
    allowed(state, Meld(ks("K K K")))
    assert state.hand_size(0) == 0 and not state.down[0] and state.phase is Phase.DRAW
    allowed(state, Draw())
    # 35 + 30 = 65 meets 50: everything set aside goes down together after the draw.
    assert state.down[0] and not state.staged and hand_of(state, 0) == kinds("4")
    allowed(state, Discard(K.FOUR))
    assert state.end is not None and state.end.how == "concealed"
