"""The public record of a hand (``State.known``, ``State.thrown``): what every player saw.

A card picked up with the pile, or set aside and taken back, was seen by everyone going into a
hand; it stays "known" until a card of its kind leaves that hand (nobody can tell the known one
from another).  The record is checked here against an oracle that follows the same public
facts move by move, over random play at every preset; against hand contents (a known card is
always in its hand); through views, worlds dealt again, notation and saves.
"""

from __future__ import annotations

import random

import pytest

from canasta_teach.engine import CLASSIC2, CLASSIC4, Discard, Meld, State, TakePile
from canasta_teach.engine.cards import NUM_KINDS, TOKENS, Kind
from canasta_teach.engine.determinize import determinize
from canasta_teach.engine.handfoot import HandFootState
from canasta_teach.engine.moves import Add
from canasta_teach.engine.notation import NotationError, format_position, parse_position
from canasta_teach.engine.rng import SplitMix64
from canasta_teach.engine.rules import HAND_AND_FOOT, RuleSet
from canasta_teach.engine.view import player_view

RED3 = int(Kind.RED_THREE)


def _deal(rules: RuleSet, seed: str) -> State:
    if rules.family == "handfoot":
        return HandFootState.deal(seed, rules)
    return State.deal(seed, rules)


def _oracle_step(known: list[list[int]], thrown: list[set[int]], state: State,
                 move: object) -> None:  # fmt: skip
    """What a player watching the table learns from ``move`` (before it is played)."""
    seat = state.current
    played: list[int] = []
    gained: list[int] = []
    if isinstance(move, TakePile):
        played = [int(k) for k in move.cards]
        taken = state._taken() if isinstance(state, HandFootState) else len(state.pile)
        pile = state.pile[-taken:]
        gained = [k for k in pile[:-1] if k != RED3]
    elif isinstance(move, Meld | Add):
        played = [int(k) for k in move.cards]
    elif isinstance(move, Discard):
        played = [int(move.card)]
        thrown[seat].add(int(move.card))
        # The cards set aside go back to the hand in front of everyone, then one card is
        # thrown away (it may be one of them: nobody can tell).
        for k in (int(k) for g in state.staged.values() for k in g.cards()):
            known[seat][k] += 1
    for k in played:
        if known[seat][k]:
            known[seat][k] -= 1
    for k in gained:
        known[seat][k] += 1


@pytest.mark.parametrize("rules", [CLASSIC4, CLASSIC2, HAND_AND_FOOT], ids=lambda r: r.name)
@pytest.mark.parametrize("seed", range(6))
def test_the_record_is_what_the_table_showed(rules: RuleSet, seed: int) -> None:
    rng = random.Random(seed)
    state = _deal(rules, f"record:{seed}")
    n = rules.players
    known = [[0] * NUM_KINDS for _ in range(n)]
    thrown: list[set[int]] = [set() for _ in range(n)]
    learned = 0
    for _ in range(900):
        if state.is_over:
            break
        moves = state.legal_moves()
        takes = [m for m in moves if isinstance(m, TakePile)]
        move = takes[0] if takes and rng.random() < 0.7 else rng.choice(moves)
        seat = state.current
        foot_before = isinstance(state, HandFootState) and state.in_foot[seat]
        _oracle_step(known, thrown, state, move)
        state.play(move)
        if isinstance(state, HandFootState) and state.in_foot[seat] and not foot_before:
            known[seat] = [0] * NUM_KINDS  # the hand was used up; the foot is unknown
        for s in range(n):
            assert list(state.known[s]) == known[s], (s, move)
            assert all(k <= h for k, h in zip(state.known[s], state.hands[s], strict=True))
            assert state.thrown[s] == sum(1 << k for k in thrown[s])
        learned += sum(map(sum, known))
    assert learned, "random play never picked up a pile: the test checked nothing"


def test_a_pickup_is_known_and_fades_as_cards_leave() -> None:
    state = parse_position(
        """\
        rules: classic4
        turn: S draw
        S: 9 9 5 6 K
        W: ?11
        N: ?11
        E: ?11
        NS melds: A A A
        EW melds: Q Q Q
        pile: 4 7 7 JK 8 9
        stock: rest
        """
    )
    state.play(TakePile((Kind.NINE, Kind.NINE)))
    # Under the 9: 4, 7, 7, a joker and an 8 came into South's hand, in front of everyone.
    assert [TOKENS[k] for k in range(NUM_KINDS) for _ in range(state.known[0][k])] == [
        "JK",
        "4",
        "7",
        "7",
        "8",
    ]
    assert player_view(state, 1)["known"] == {"S": ["8", "7", "7", "4", "JK"]}  # as hands are
    state.play(Meld((Kind.SEVEN, Kind.SEVEN, Kind.JOKER)))
    assert state.known[0][Kind.SEVEN] == 0 and state.known[0][Kind.JOKER] == 0
    state.play(Discard(Kind.EIGHT))
    assert state.known[0][Kind.EIGHT] == 0 and state.known[0][Kind.FOUR] == 1
    assert player_view(state, 2)["thrown"] == {"S": ["8"]}


def test_cards_set_aside_and_taken_back_are_known() -> None:
    state = parse_position(
        """\
        rules: classic4
        turn: S meld
        S: 5 5 5 K 9
        W: ?11
        N: ?11
        E: ?11
        pile: 4
        stock: rest
        """
    )
    state.play(Meld((Kind.FIVE, Kind.FIVE, Kind.FIVE)))  # 15 of 50: only set aside
    assert not any(state.known[0])
    state.play(Discard(Kind.NINE))
    assert state.known[0][Kind.FIVE] == 3  # back in the hand, and everyone saw them


@pytest.mark.parametrize("rules", [CLASSIC4, HAND_AND_FOOT], ids=lambda r: r.name)
def test_worlds_dealt_again_keep_the_known_cards_in_their_hands(rules: RuleSet) -> None:
    rng = random.Random(3)
    for seed in range(8):
        state = _deal(rules, f"worlds:{seed}")
        for _ in range(rng.randrange(20, 200)):
            if state.is_over:
                break
            moves = state.legal_moves()
            takes = [m for m in moves if isinstance(m, TakePile)]
            state.play(takes[0] if takes else rng.choice(moves))
        if state.is_over:
            continue
        seat = state.to_move
        for w in range(4):
            world = determinize(state, seat, SplitMix64(f"{seed}:{w}"))
            assert player_view(world, seat) == player_view(state, seat)
            for s in range(rules.players):
                assert all(k <= h for k, h in zip(world.known[s], world.hands[s], strict=True))


def test_notation_keeps_the_record_and_refuses_a_card_not_in_the_hand() -> None:
    text = """\
rules: classic4
turn: W draw
S: 4 5 6 7 8 9 10 J Q K A
W: 7 7 9 10 J Q K A 4 5 6
N: ?11
E: ?11
pile: 8
stock: rest
known: W 7 7
thrown: S 9 K, E 4
"""
    state = parse_position(text)
    assert state.known[1][Kind.SEVEN] == 2
    assert state.thrown[0] == (1 << Kind.NINE) | (1 << Kind.KING)
    again = parse_position(format_position(state))
    assert again == state
    assert "known: W 7 7" in format_position(state)
    with pytest.raises(NotationError) as refused:
        parse_position(text.replace("known: W 7 7", "known: W 7 7 7"))
    assert refused.value.code == "bad_record"
    with pytest.raises(NotationError) as refused:
        parse_position(text.replace("known: W 7 7", "known: W 7 7, W 9"))
    assert refused.value.code == "bad_record"
