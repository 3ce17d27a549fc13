"""The position and move notation: round trips, located errors, unknown-card filling.

Properties (hypothesis): every state reached by random legal play formats and parses back
to an equal state; every legal move's notation parses back to the move; mutated positions
either parse to a sound state or raise ``NotationError`` (never another exception).
"""

from __future__ import annotations

import contextlib
import random
import re
from pathlib import Path

import pytest
from engine_helpers import MAX_WILDS_5
from hypothesis import given, settings
from hypothesis import strategies as st

from canasta_teach.engine import CLASSIC2, CLASSIC4, State
from canasta_teach.engine.cards import DECK_COUNTS, DECK_SIZE, NUM_KINDS, TOKENS, Kind
from canasta_teach.engine.moves import (
    ASK,
    DRAW,
    NO,
    YES,
    Add,
    Answer,
    AskPartner,
    Discard,
    Meld,
    Move,
    TakePile,
)
from canasta_teach.engine.notation import (
    NotationError,
    format_move,
    format_position,
    parse_move,
    parse_moves,
    parse_position,
)
from canasta_teach.engine.rules import OPTION_NAMES, RuleSet
from canasta_teach.engine.scoring import score_hand
from canasta_teach.engine.state import Asked, Phase

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
K = Kind


def kind_counts(state: State) -> list[int]:
    """How many cards of each kind the state holds, wherever they are."""
    counts = [0] * NUM_KINDS
    for hand in state.hands:
        for k in range(NUM_KINDS):
            counts[k] += hand[k]
    for card in (*state.stock, *state.pile):
        counts[card] += 1
    for group in (*state.melds[0].values(), *state.melds[1].values(), *state.staged.values()):
        counts[group.rank] += group.naturals
        counts[Kind.JOKER] += group.jokers
        counts[Kind.TWO] += group.twos
    counts[Kind.RED_THREE] += sum(state.red_threes)
    return counts


def random_rules(rng: random.Random) -> RuleSet:
    base = rng.choice([CLASSIC4, CLASSIC2])
    return base.with_options(**{name: rng.random() < 0.4 for name in OPTION_NAMES})


def pick(rng: random.Random, moves: list[Move]) -> Move:
    """A random legal move, leaning towards melds, pickups and questions so that play
    reaches set-aside melds, canastas, questions and the end of the hand."""
    active = [m for m in moves if not isinstance(m, Discard | type(DRAW))]
    if active and rng.random() < 0.7:
        return rng.choice(active)
    return rng.choice(moves)


# ---------------------------------------------------------------------------- examples


def test_frozen_pile_example_is_the_teaching_position() -> None:
    state = parse_position((EXAMPLES / "frozen-pile.txt").read_text(encoding="utf-8"))
    move = parse_move((EXAMPLES / "frozen-pile.move").read_text(encoding="utf-8").strip())
    assert move == TakePile((K.SEVEN, K.JOKER))
    south = state.hands[0]
    assert (south[K.SEVEN], south[K.JOKER]) == (1, 1)
    assert state.pile_top == K.SEVEN
    assert K.JOKER in state.pile and state.pile_freezers == 1
    assert state.down[0]  # frozen by the joker alone, not by the first meld
    verdict = state.check(move)
    assert verdict.reason is not None
    assert (verdict.reason.code, verdict.reason.rule) == ("frozen_needs_pair", "C-PILE-3")
    assert verdict.reason.params["frozen_by"] == "wild"
    assert state.card_total() == DECK_SIZE


def test_brief_layout_parses_with_every_optional_line() -> None:
    text = """
    # Lesson 2, position 3
    RULES: classic4 black_three_freezes=yes two_naturals_per_wild=no
    scores: NS 0, EW 1500
    hand: 3
    dealer: N
    turn: W meld
    S: ?11
    W: 7 jk K Q 5 4 4 t
    N: 9 9 9 A A 2
    E: ?11
    EW melds: K K K K K K K | 8 8 2
    EW red threes: 1
    NS melds: -
    pile: 4 9 JK 7
    stock: rest
    seed: 7
    flags: took-pile melded-this-turn asked=yes has-melded=W created=K penalty-NS=100
    """
    state = parse_position(text)
    assert state.rules == CLASSIC4.with_options(black_three_freezes=True)
    assert state.scores == [0, 1500]
    assert (state.hand_number, state.dealer, state.current) == (3, 2, 1)
    assert state.phase is Phase.MELD
    assert state.hands[1][K.TEN] == 1 and state.hands[1][K.JOKER] == 1
    assert state.melds[1][K.KING].size == 7 and state.melds[1][K.EIGHT].twos == 1
    assert state.down == [False, True] and state.red_threes == [0, 1]
    assert state.pile == [K.FOUR, K.NINE, K.JOKER, K.SEVEN] and state.pile_freezers == 1
    assert len(state.stock) == DECK_SIZE - 29 - 22  # 29 shown, 22 unknown in hands
    assert state.took_pile and state.melded_this_turn and state.asked is Asked.YES
    assert state.has_melded == [False, True, False, False]
    assert state.created_this_turn == {K.KING}
    assert state.penalties == [100, 0]
    assert state.card_total() == DECK_SIZE
    assert parse_position(format_position(state)) == state


def test_defaults_are_documented_ones() -> None:
    state = parse_position("rules: classic2\nturn: N draw\nS: ?15\nN: ?15\n")
    assert state.scores == [0, 0] and state.hand_number == 1
    assert state.dealer == 1  # the seat to the right of South
    assert state.pile == [] and len(state.stock) == DECK_SIZE - 30  # stock: rest
    assert state.has_melded == [False, False]
    text = format_position(state)
    assert "dealer:" not in text and "hand:" not in text and "flags:" not in text


def test_has_melded_defaults_to_the_seats_of_teams_that_are_down() -> None:
    base = "rules: classic4\nturn: S meld\nS: ?5\nW: ?5\nN: ?5\nE: ?5\nNS melds: K K K\n"
    assert parse_position(base).has_melded == [True, False, True, False]
    state = parse_position(base + "flags: has-melded=N\n")
    assert state.has_melded == [False, False, True, False]
    state = parse_position(base + "flags: has-melded=-\n")
    assert state.has_melded == [False] * 4
    assert "has-melded=-" in format_position(state)


def test_card_tokens_accept_t_and_lower_case() -> None:
    upper = parse_position("rules: classic2\nturn: S draw\nS: 10 10 JK 3B Q\nN: ?15\n")
    lower = parse_position("rules: classic2\nturn: s draw\ns: t 10 jk 3b q\nn: ?15\n")
    assert upper == lower


def test_pile_freezers_are_derived_from_the_pile() -> None:
    base = "rules: classic2{opt}\nturn: S draw\nS: ?15\nN: ?15\npile: {pile}\n"
    assert parse_position(base.format(opt="", pile="4 2 9")).frozen_by(0) == "wild"
    assert parse_position(base.format(opt="", pile="4 3B 9")).pile_freezers == 0
    with_option = parse_position(base.format(opt=" black_three_freezes=yes", pile="4 3B 9"))
    assert with_option.pile_freezers == 1 and with_option.frozen_by(0) == "black_three"


def test_unknown_cards_fill_deterministically_from_what_remains() -> None:
    text = "rules: classic4\nturn: S draw\nS: 7 7 ?9\nW: ?11\nN: ?11\nE: ?11\npile: ?3 7\n"
    a = parse_position(text + "seed: 1\n")
    assert a == parse_position(text + "seed: 1\n")
    assert a != parse_position(text + "seed: 2\n")
    assert [a.hand_size(s) for s in range(4)] == [11, 11, 11, 11]
    assert a.hands[0][K.SEVEN] >= 2 and len(a.pile) == 4 and a.pile[-1] == K.SEVEN
    assert kind_counts(a) == list(DECK_COUNTS)
    for seed in range(30):  # mid-hand, a red three never sits in a hand or the pile
        s = parse_position(text + f"seed: {seed}\n")
        assert all(hand[K.RED_THREE] == 0 for hand in s.hands)
        assert K.RED_THREE not in s.pile


# ---------------------------------------------------------------------------- round trips


@settings(max_examples=25)
@given(seed=st.integers(0, 2**40), rng_seed=st.integers(0, 2**32))
def test_every_reachable_state_round_trips(seed: int, rng_seed: int) -> None:
    rng = random.Random(rng_seed)
    rules = random_rules(rng)
    scores = (rng.choice([-200, 0, 1600, 3100]), rng.choice([0, 1500]))
    state = State.deal(seed, rules, scores=scores, dealer=rng.randrange(rules.players),
                       hand_number=rng.randint(1, 5))  # fmt: skip
    for _ in range(3000):
        if rng.random() < 0.3 or state.is_over:
            text = format_position(state)
            again = parse_position(text)
            assert again == state, text
            assert format_position(again) == text  # canonical
        if state.is_over:
            break
        moves = state.legal_moves()
        for move in moves:
            assert parse_move(str(move)) == move
            assert format_move(move) == str(move)
        state.play(pick(rng, moves))
    assert state.is_over


def test_round_trip_covers_questions_set_asides_and_ends() -> None:
    """The property above reaches the rare facts too (guards against a weak generator)."""
    seen: set[str] = set()
    for seed in range(12):
        rng = random.Random(seed)
        state = State.deal(seed, random_rules(rng))
        while not state.is_over:
            if state.staged:
                seen.add("staged")
            if state.phase is Phase.ANSWER:
                seen.add("answer")
            if state.asked in (Asked.YES, Asked.NO):
                seen.add("asked")
            if state.created_this_turn and state.took_pile:
                seen.add("took")
            if any(state.penalties):
                seen.add("penalty")
            assert parse_position(format_position(state)) == state
            state.play(pick(rng, state.legal_moves()))
        seen.add(f"end-{state.end.how if state.end else None}")
        assert parse_position(format_position(state)) == state
    assert {"staged", "answer", "asked", "took", "end-out"} <= seen


# ---------------------------------------------------------------------------- errors

VALID = """rules: classic4
turn: S draw
S: 7 JK K Q 5 4 4
W: ?11
N: 9 9 9 A A 2
E: ?11
NS melds: K K K K K K K | 8 8 2
pile: 4 9 JK 7
stock: rest
"""


def error_of(text: str) -> NotationError:
    with pytest.raises(NotationError) as info:
        parse_position(text)
    return info.value


def test_valid_base_parses() -> None:
    assert parse_position(VALID).card_total() == DECK_SIZE


def test_too_many_of_a_kind_names_the_kind_and_the_token() -> None:
    err = error_of(VALID.replace("N: 9 9 9 A A 2", "N: 7 7 7 7 7 7 7 7"))
    assert err.code == "too_many_cards"
    assert (err.line, err.column, err.token) == (5, 18, "7")  # the 9th seven in the text
    assert err.params == {"kind": "7", "count": 9, "deck": 8}
    assert "the position holds 9 cards of kind 7; a deck has 8" in str(err)
    assert str(err).startswith("line 5, column 18: ")


def test_counts_that_do_not_add_up_say_how_many_are_off() -> None:
    err = error_of(VALID.replace("stock: rest", "stock: ?40"))
    shown = 7 + 6 + 10 + 4
    total = shown + 22 + 40
    assert err.code == "counts_do_not_add_up"
    assert err.params == {"count": total, "known": shown, "unknown": 62, "deck": 108}
    assert f"{108 - total} missing" in str(err) and err.line == 9
    err = error_of(VALID.replace("stock: rest", "stock: ?90"))
    assert f"{total + 50 - 108} too many" in str(err)


@pytest.mark.parametrize(
    ("old", "new", "code", "line", "token"),
    [
        ("turn: S draw", "tern: S draw", "unknown_key", 2, "tern"),
        ("turn: S draw\n", "", "missing_key", None, None),
        ("W: ?11\n", "", "missing_key", None, None),
        ("turn: S draw", "turn: S drw", "bad_phase", 2, "drw"),
        ("turn: S draw", "turn: X draw", "bad_seat", 2, "X"),
        ("turn: S draw", "turn S draw", "missing_colon", 2, "turn S draw"),
        ("S: 7 JK", "S: 7 JX", "bad_card", 3, "JX"),
        ("S: 7 JK", "S: 7 3", "bad_card", 3, "3"),
        ("W: ?11", "W: 11", "bad_card", 4, "11"),
        ("W: ?11", "W: ?x", "bad_count", 4, "?x"),
        ("rules: classic4", "rules: classic3", "bad_rules", 1, "classic3"),
        ("rules: classic4", "rules: classic4 black_freeze=yes", "unknown_option", 1,
         "black_freeze=yes"),
        ("rules: classic4", "rules: classic4 ask_partner=maybe", "bad_option_value", 1,
         "ask_partner=maybe"),
        ("rules: classic4", "rules: classic2", "bad_seat", 4, "W"),
        ("NS melds: K K K K K K K | 8 8 2", "NS melds: K K K K K K K | 8 2 2", "bad_meld",
         7, "8 2 2"),
        ("NS melds: K K K K K K K | 8 8 2", "NS melds: K K K K K K K | 8 8 9", "bad_meld",
         7, "8 8 9"),
        ("NS melds: K K K K K K K | 8 8 2", "NS melds: K K K | K K K K", "duplicate_meld",
         7, "K"),
        ("NS melds: K K K K K K K | 8 8 2", "NS melds: K K K K K K K || 8 8 2", "bad_meld",
         7, None),
        ("S: 7 JK", "S: 7 3R JK", "red_three_in_hand", 3, "3R"),
        ("stock: rest", "stock: rest\nturn: S meld", "duplicate_key", 10, "turn"),
        ("stock: rest", "stock: rest\nflags: took-pile", "flag_not_in_phase", 10, "took-pile"),
        ("stock: rest", "stock: rest\nflags: bogus", "bad_flag", 10, "bogus"),
        ("stock: rest", "stock: rest\nset aside: 5 5 5", "set_aside_not_allowed", 10, "5 5 5"),
        ("stock: rest", "stock: rest\nended: out S", "bad_end", 10, "out S"),
        ("turn: S draw", "turn: S ended", "missing_key", 2, None),
        ("turn: S draw", "turn: S meld\nflags: created=Q", "bad_flag", 3, "created=Q"),
        ("rules: classic4", "rules: classic4 ask_partner=no\nflags: asked=yes",
         "flag_not_in_phase", 2, "asked=yes"),
        ("turn: S draw", "turn: S answer", None, None, None),
        ("rules: classic4", "rules: classic4 ask_partner=no", None, None, None),
    ],
)  # fmt: skip
def test_located_errors(old: str, new: str, code: str | None, line: int | None,
                        token: str | None) -> None:  # fmt: skip
    assert old in VALID
    text = VALID.replace(old, new, 1)
    if code is None:
        parse_position(text)  # a control: the same edit family, but valid
        return
    err = error_of(text)
    assert err.code == code, str(err)
    assert err.line == line
    if token is not None:
        assert err.token == token
        assert err.column is not None
        source_line = text.splitlines()[err.line - 1]
        assert source_line[err.column - 1 :].startswith(token)
    assert isinstance(err, ValueError) and err.expected is None or isinstance(err.expected, str)
    assert str(err)


def test_dead_ends_are_refused() -> None:
    """Positions no game can reach, in which play would stop for good."""
    err = error_of(VALID.replace("W: ?11", "W: -"))
    assert (err.code, err.line, err.params["seat"]) == ("empty_hand", 4, "W")
    one_card = VALID.replace("turn: S draw", "turn: S meld").replace("S: 7 JK K Q 5 4 4", "S: 7")
    # One card after asking, or while the player may still ask, is a dead end once the
    # partner says no: a player who has just drawn holds two cards (issue 8, fuzz).
    assert error_of(one_card).code == "too_few_cards"
    assert error_of(one_card.replace("turn: S meld", "turn: S answer")).code == "too_few_cards"
    assert parse_position(one_card.replace("classic4", "classic4 ask_partner=no")).hand_size(0)
    one_card += "flags: melded-this-turn\n"
    # One card is fine when the team may go out: NS has a canasta of kings ...
    assert parse_position(one_card).hand_size(0) == 1
    # ... but not without a canasta, nor after the partner said no (C-OUT-5, C-ASK-1).
    err = error_of(one_card.replace("K K K K K K K |", "K K K |"))
    assert (err.code, err.line, err.params["seat"]) == ("too_few_cards", 3, "S")
    err = error_of(one_card.replace("melded-this-turn", "melded-this-turn asked=no"))
    assert err.code == "too_few_cards"
    # The player to move may hold nothing while melds are set aside (before drawing).
    aside = VALID.replace("S: 7 JK K Q 5 4 4", "S: -").replace(
        "NS melds: K K K K K K K | 8 8 2", "NS melds: -"
    )
    assert parse_position(aside.replace("stock: rest", "stock: rest\nset aside: 7 7 7")).staged
    assert error_of(aside).code == "empty_hand"


def test_a_position_with_no_legal_move_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # The checks above leave no dead end that the engine would accept; this last guard
    # catches any a future rule might open (simulated: the engine finds no move).
    monkeypatch.setattr(State, "legal_moves", lambda self: [])
    err = error_of(VALID)
    assert (err.code, err.line, err.params["seat"]) == ("no_legal_moves", 2, "S")
    ended = VALID.replace("turn: S draw", "turn: S ended") + "ended: stock S\n"
    assert parse_position(ended).is_over  # an ended hand has no moves, rightly


def test_answer_phase_needs_the_question_house_rule() -> None:
    text = VALID.replace("rules: classic4", "rules: classic4 ask_partner=no")
    err = error_of(text.replace("turn: S draw", "turn: S answer"))
    assert err.code == "bad_phase" and err.token == "answer"


def test_two_player_positions_use_seats_s_and_n() -> None:
    text = "rules: classic2\nturn: N meld\nS: ?15\nN: ?16\nN melds: Q Q Q\nS red threes: 2\n"
    state = parse_position(text + "flags: penalty-N=100\n")
    assert state.current == 1 and state.down == [False, True] and state.red_threes == [2, 0]
    assert state.penalties == [0, 100]
    err = error_of(text.replace("N melds", "NS melds"))
    assert err.code == "bad_team" and err.line == 5


# ---------------------------------------------------------------------------- input limits
# (issue 8, F6-F8, F12: rule values the engine does not play, counts, absurd numbers, ends)


def rules_line(options: str) -> str:
    return VALID.replace("rules: classic4", f"rules: classic4 {options}")


@pytest.mark.parametrize("value", [4, 5, 99])
def test_max_wilds_beyond_the_engines_three_is_refused(value: int) -> None:
    # F6: the move tables stop at three wild cards; max_wilds=5 crashed legal_moves.
    err = error_of(MAX_WILDS_5.replace("max_wilds=5", f"max_wilds={value}"))
    assert (err.code, err.line, err.token) == ("option_out_of_range", 1, str(value))
    assert err.params == {"option": "max_wilds", "minimum": 0, "maximum": 3}
    assert "from 0 to 3" in str(err)


@pytest.mark.parametrize("value", [0, 1, 2, 3])
def test_max_wilds_up_to_three_is_played(value: int) -> None:
    state = parse_position(MAX_WILDS_5.replace("max_wilds=5", f"max_wilds={value}"))
    assert state.rules.max_wilds == value
    for move in state.legal_moves():
        if isinstance(move, Meld | Add | TakePile):
            assert sum(1 for k in move.cards if k <= K.TWO) <= value
        assert state.check(move).legal


@pytest.mark.parametrize("value", ["3", "8", "0", "70"])
def test_canasta_size_other_than_seven_is_refused(value: str) -> None:
    # F12: the engine counts 7 cards a canasta everywhere; a position may not pretend.
    err = error_of(rules_line(f"canasta_size={value}"))
    assert (err.code, err.line, err.token) == ("unsupported_option_value", 1, value)
    assert err.params == {"option": "canasta_size", "supported": 7}
    assert parse_position(rules_line("canasta_size=7")).rules.canasta_size == 7


@pytest.mark.parametrize(
    ("options", "option", "low", "high"),
    [
        ("hand_size=0", "hand_size", 1, 20),
        ("hand_size=200", "hand_size", 1, 20),
        ("hand_size=21", "hand_size", 1, 20),  # four hands of 21 leave too small a stock
        ("draw_count=0", "draw_count", 1, 108),
        ("draw_count=109", "draw_count", 1, 108),
        ("canastas_to_go_out=12", "canastas_to_go_out", 0, 11),
        ("game_target=0", "game_target", 1, 999_999_999),
        ("game_target=1000000000", "game_target", 1, 999_999_999),
        ("max_wilds=-1", "max_wilds", 0, 3),
        ("players=5", "players", 2, 4),
    ],
)  # fmt: skip
def test_integer_rule_options_are_refused_outside_what_the_engine_plays(
    options: str, option: str, low: int, high: int
) -> None:
    err = error_of(rules_line(options))
    assert err.code == "option_out_of_range", str(err)
    assert err.params == {"option": option, "minimum": low, "maximum": high}


def test_the_hand_size_bound_follows_the_number_of_players() -> None:
    two = "rules: classic2 {}\nturn: S draw\nS: ?15\nN: ?15\n"
    assert parse_position(two.format("hand_size=41")).rules.hand_size == 41
    err = error_of(two.format("hand_size=42"))
    assert (err.code, err.token, err.params["maximum"]) == ("option_out_of_range", "42", 41)
    # The bound applies to the rule set as a whole, whichever option comes first.
    err = error_of(VALID.replace("rules: classic4", "rules: classic2 hand_size=30 players=4"))
    assert (err.code, err.token, err.params["maximum"]) == ("option_out_of_range", "30", 20)
    assert error_of(rules_line("players=3")).code == "bad_option_value"


@pytest.mark.parametrize("count", ["?²", "?١١", "?௧", "?1²", "?Ⅻ", "?-1", "?+3", "?1_0"])
def test_counts_of_unknown_cards_are_ascii_digits_only(count: str) -> None:
    # F7: '²'.isdigit() is true but int('²') raises; '١١' was read as 11.
    err = error_of(VALID.replace("W: ?11", f"W: {count}"))
    assert (err.code, err.line, err.token) == ("bad_count", 4, count)


@pytest.mark.parametrize(
    ("old", "new", "token"),
    [
        ("stock: rest", "stock: rest\nscores: NS ١٥٠٠, EW 0", "١٥٠٠"),
        ("stock: rest", "stock: rest\nhand: ٢", "٢"),
        ("stock: rest", "stock: rest\nflags: penalty-NS=¹⁰⁰", "¹⁰⁰"),
        ("rules: classic4", "rules: classic4 game_target=٣٠٠٠", "٣٠٠٠"),
    ],
)  # fmt: skip
def test_numbers_are_ascii_digits_only(old: str, new: str, token: str) -> None:
    err = error_of(VALID.replace(old, new))
    assert err.code == "bad_number" and err.token == token


HUGE = "1" * 5000


@pytest.mark.parametrize(
    ("old", "new", "code", "token"),
    [
        ("stock: rest", f"stock: rest\nscores: NS {HUGE}, EW 0", "number_out_of_range", HUGE),
        ("stock: rest", "stock: rest\nscores: NS 1000000000, EW 0", "number_out_of_range",
         "1000000000"),
        ("stock: rest", "stock: rest\nscores: NS -1000000000, EW 0", "number_out_of_range",
         "-1000000000"),
        ("stock: rest", f"stock: rest\nhand: {HUGE}", "number_out_of_range", HUGE),
        ("stock: rest", "stock: rest\nhand: 0", "number_out_of_range", "0"),
        ("stock: rest", f"stock: rest\nNS red threes: {HUGE}", "number_out_of_range", HUGE),
        ("stock: rest", f"stock: rest\nflags: penalty-NS={HUGE}", "number_out_of_range", HUGE),
        ("rules: classic4", f"rules: classic4 game_target={HUGE}", "option_out_of_range",
         HUGE),
        ("rules: classic4", f"rules: classic4 max_wilds={HUGE}", "option_out_of_range", HUGE),
        ("W: ?11", f"W: ?{HUGE}", "number_out_of_range", HUGE),
        ("W: ?11", "W: ?109", "number_out_of_range", "109"),
        ("stock: rest", f"stock: rest\nseed: {HUGE}", "seed_too_long", HUGE),
        ("stock: rest", "stock: rest\nseed: 123456789012345678901", "seed_too_long",
         "123456789012345678901"),
    ],
)  # fmt: skip
def test_absurdly_long_numbers_are_refused_clearly(old: str, new: str, code: str,
                                                   token: str) -> None:  # fmt: skip
    # F8: Python's int() refuses more than 4,300 digits with a plain ValueError.
    err = error_of(VALID.replace(old, new))
    assert err.code == code, str(err)
    assert err.token == token and err.line is not None and err.column is not None
    assert len(str(err)) < 300  # the message quotes a long token by its start only


def test_numbers_inside_their_ranges_are_read() -> None:
    state = parse_position(VALID.replace("stock: rest", "stock: rest\nscores: NS 999999999, "
                                         "EW -999999999\nhand: 0999999999\nseed: "
                                         "-99999999999999999999"))  # fmt: skip
    assert state.scores == [999_999_999, -999_999_999] and state.hand_number == 999_999_999
    # A seed of 20 digits is a number; a word made of other digits is a word.
    numeric = VALID.replace("stock: rest", "stock: rest\nseed: 12345678901234567890")
    word = VALID.replace("stock: rest", "stock: rest\nseed: ١٢")
    assert parse_position(numeric) != parse_position(word)
    assert parse_position(word) == parse_position(word)


ENDED = """rules: classic4
turn: S ended
ended: out S
S: -
W: K Q 5
N: 9 4
E: A 7
NS melds: 8 8 8 8 8 2 JK | A A A
EW melds: Q Q Q | 6 6 6
pile: 9
stock: rest
"""


def test_an_ended_hand_is_one_the_engine_could_end() -> None:
    # F6/F12: 'ended: out S' with no canasta was accepted (and scored a going-out bonus).
    assert parse_position(ENDED).end is not None
    assert parse_position(ENDED.replace("ended: out S", "ended: concealed S")).end is not None
    err = error_of(ENDED.replace("8 8 8 8 8 2 JK", "8 8 8 8 2 JK"))
    assert (err.code, err.line, err.token) == ("end_needs_canastas", 3, "out S")
    assert err.params == {"seat": "S", "canastas": 0, "needed": 1}
    err = error_of(ENDED.replace("S: -", "S: 7"))
    assert (err.code, err.line, err.params) == ("end_holds_cards", 3, {"seat": "S"})
    err = error_of(ENDED.replace("ended: out S", "ended: out N"))
    assert (err.code, err.token) == ("bad_end", "N")
    # Two canastas to go out with two players (C-TWO-3).
    two = ("rules: classic2\nturn: S ended\nended: out S\nS: -\nN: ?9\n"
           "S melds: 8 8 8 8 8 2 JK | A A A A A A A\nstock: rest\n")  # fmt: skip
    assert parse_position(two).end is not None
    err = error_of(two.replace("A A A A A A A", "A A A"))
    assert err.code == "end_needs_canastas" and err.params["needed"] == 2
    # A hand that ran out of stock needs no canasta, and the seat may hold cards.
    stock = ENDED.replace("ended: out S", "ended: stock S").replace("S: -", "S: 7 7")
    assert parse_position(stock.replace("8 8 8 8 8 2 JK", "8 8 8 8 2 JK")).end is not None


def test_the_repro_of_canasta_size_three_is_refused() -> None:
    text = ("rules: classic4 canasta_size=3\nturn: S ended\nS: -\nW: ?11\nN: ?11\nE: ?11\n"
            "NS melds: K K K | 7 7 7\npile: ?1\nstock: rest\nended: out S\n")  # fmt: skip
    assert error_of(text).code == "unsupported_option_value"
    assert error_of(text.replace(" canasta_size=3", "")).code == "end_needs_canastas"


def test_lesson_positions_that_have_ended_still_parse() -> None:
    folder = EXAMPLES.parent / "lessons" / "puzzles" / "score-a-hand"
    for path in sorted(folder.glob("*.txt")):
        assert parse_position(path.read_text(encoding="utf-8")).is_over, path


# ---------------------------------------------------------------------------- mutations

_NOISE = [
    *TOKENS, "?", "?3", "?200", "rest", "-", "|", ":", ",", "=", "S", "W", "NS", "EW", "meld",
    "draw", "answer", "ended", "yes", "0", "-5", "99999999999999999999", "took-pile",
    "asked=yes", "created=K", "has-melded=S", "penalty-NS=100", "T", "jk", "3", "x", "#",
    "classic2", "players=2", "max_wilds=0", "hand_size=200",
    # issue 8: unsupported rule values, Unicode digits, absurd numbers (F6, F7, F8, F12)
    "max_wilds=4", "max_wilds=5", "canasta_size=3", "?²", "?١١", "١١", "1" * 5000,
    "?" + "9" * 5000, "penalty-NS=" + "9" * 5000, "game_target=" + "9" * 5000, "seed:",
]  # fmt: skip


def _seed_positions() -> list[str]:
    texts = [VALID, (EXAMPLES / "frozen-pile.txt").read_text(encoding="utf-8")]
    for seed in (3, 11):
        rng = random.Random(seed)
        state = State.deal(seed, random_rules(rng))
        for _ in range(rng.randint(5, 60)):
            if state.is_over:
                break
            state.play(pick(rng, state.legal_moves()))
        texts.append(format_position(state))
    return texts


SEED_POSITIONS = _seed_positions()


@st.composite
def mutated_positions(draw: st.DrawFn) -> str:
    lines = draw(st.sampled_from(SEED_POSITIONS)).splitlines()
    for _ in range(draw(st.integers(1, 3))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        tokens = lines[i].split(" ")
        action = draw(
            st.sampled_from(
                [
                    "delete_token",
                    "replace_token",
                    "insert_token",
                    "duplicate_line",
                    "delete_line",
                    "swap_lines",
                ]
            )
        )
        j = draw(st.integers(0, len(tokens) - 1))
        if action == "delete_token":
            del tokens[j]
        elif action == "replace_token":
            tokens[j] = draw(st.sampled_from(_NOISE))
        elif action == "insert_token":
            tokens.insert(j, draw(st.sampled_from(_NOISE)))
        elif action == "duplicate_line":
            lines.insert(i, lines[i])
            continue
        elif action == "delete_line":
            del lines[i]
            continue
        else:
            k = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[k] = lines[k], lines[i]
            continue
        lines[i] = " ".join(tokens)
    return "\n".join(lines)


@settings(max_examples=300)
@given(text=mutated_positions())
def test_mutated_positions_parse_soundly_or_raise_notation_error(text: str) -> None:
    try:
        state = parse_position(text)
    except NotationError as err:
        assert isinstance(err.code, str) and re.fullmatch(r"[a-z_]+", err.code)
        assert err.line is None or 1 <= err.line <= len(text.splitlines())
        assert str(err)
        return
    counts = kind_counts(state)
    assert all(c <= d for c, d in zip(counts, DECK_COUNTS, strict=True))
    assert state.card_total() == DECK_SIZE
    assert parse_position(format_position(state)) == state
    # The engine must cope with whatever the notation accepts.
    score_hand(state)
    for move in state.legal_moves():
        assert state.copy().apply(move).legal


@settings(max_examples=200)
@given(text=st.text(max_size=80))
def test_arbitrary_text_is_a_position_or_a_notation_error(text: str) -> None:
    with contextlib.suppress(NotationError):  # anything else fails the test
        parse_position(text)


# ---------------------------------------------------------------------------- moves


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("draw", DRAW),
        ("take", TakePile(())),
        ("take 7 7", TakePile((K.SEVEN, K.SEVEN))),
        ("TAKE jk 7", TakePile((K.SEVEN, K.JOKER))),
        ("meld 7 7 JK", Meld((K.SEVEN, K.SEVEN, K.JOKER))),
        ("meld JK 2 7 7", Meld((K.SEVEN, K.SEVEN, K.TWO, K.JOKER))),
        ("meld 3B 3B 3B", Meld((K.BLACK_THREE,) * 3)),
        ("add 7: 7 2", Add(K.SEVEN, (K.SEVEN, K.TWO))),
        ("add 7 : 2 7", Add(K.SEVEN, (K.SEVEN, K.TWO))),
        ("add t:t", Add(K.TEN, (K.TEN,))),
        ("discard 9", Discard(K.NINE)),
        ("  discard   3r  ", Discard(K.RED_THREE)),
        ("ask", ASK),
        ("answer yes", YES),
        ("Answer No", NO),
    ],
)
def test_parse_move_forms(text: str, move: Move) -> None:
    parsed = parse_move(text)
    assert parsed == move
    assert parse_move(format_move(parsed)) == parsed
    assert isinstance(parse_move("ask"), AskPartner) and isinstance(YES, Answer)


@pytest.mark.parametrize(
    ("text", "code", "column", "token"),
    [
        ("", "empty_move", 1, None),
        ("tak 7 7", "unknown_verb", 1, "tak"),
        ("meld 7 7 X", "bad_card", 10, "X"),
        ("meld", "missing_cards", 1, "meld"),
        ("add 7 7 2", "missing_colon", 7, "7"),
        ("add 7:", "missing_cards", 6, ":"),
        ("add 2: 7", "bad_rank", 5, "2"),
        ("add : 7", "missing_rank", 5, ":"),
        ("discard", "missing_cards", 1, "discard"),
        ("discard 9 9", "extra_token", 11, "9"),
        ("draw 7", "extra_token", 6, "7"),
        ("ask now", "extra_token", 5, "now"),
        ("answer maybe", "bad_answer", 8, "maybe"),
        ("answer", "missing_answer", 1, "answer"),
        ("meld 7: 7", "extra_token", 7, ":"),
        ("take 11", "bad_card", 6, "11"),
    ],
)
def test_parse_move_errors(text: str, code: str, column: int, token: str | None) -> None:
    with pytest.raises(NotationError) as info:
        parse_move(text)
    err = info.value
    assert (err.code, err.line, err.column, err.token) == (code, 1, column, token)
    assert err.expected


def test_parse_moves_splits_on_semicolons_and_lines() -> None:
    assert parse_moves("meld K K K; meld A A 2") == [
        Meld((K.KING,) * 3), Meld((K.ACE, K.ACE, K.TWO))
    ]  # fmt: skip
    turn = parse_moves("meld 7 7 7; add K: K\n# then\ndiscard 9;")
    assert turn == [Meld((K.SEVEN,) * 3), Add(K.KING, (K.KING,)), Discard(K.NINE)]
    with pytest.raises(NotationError) as info:
        parse_moves("draw\ndraw; tak")
    assert (info.value.line, info.value.column, info.value.token) == (2, 7, "tak")
    with pytest.raises(NotationError) as info:
        parse_moves(" ; \n")
    assert info.value.code == "empty_move"


@settings(max_examples=300)
@given(text=st.text(max_size=40))
def test_arbitrary_move_text_is_a_move_or_a_notation_error(text: str) -> None:
    try:
        move = parse_move(text)
    except NotationError as err:
        assert err.code and err.expected is not None
        return
    assert parse_move(str(move)) == move


def test_an_empty_hand_before_the_draw_with_no_stock_is_a_position_play_reaches() -> None:
    # Found by the position fuzz (issue 8): with hand_size=1 and a large draw_count, a red
    # three laid when the stock is empty leaves the hand empty; the draw ends the hand.
    text = ("rules: classic2 hand_size=1 draw_count=108\nturn: N draw\nS: ?40\nN: -\n"
            "S melds: K K K\nN red threes: 4\npile: ?3\nstock: -\n")  # fmt: skip
    state = parse_position(text.replace("S: ?40", "S: ?98"))
    assert [str(m) for m in state.legal_moves()] == ["draw"]
    state.play(DRAW)
    assert state.end is not None and state.end.how == "stock"
    assert parse_position(format_position(state)) == state
    assert error_of(text.replace("S: ?40", "S: ?97").replace("stock: -", "stock: ?1")).code == (
        "empty_hand")  # fmt: skip
