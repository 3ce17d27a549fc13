"""The coach (``bots.coach``, ``widgets.coaching``): warnings, notes and the review after a
hand, judged from the learner's view only, and what the full game's table does with them."""

from __future__ import annotations

from pathlib import Path

import pytest
from claims_oracle import holds

from canasta_teach.bots import find_bot
from canasta_teach.bots.coach import judge, note, review, set_aside_note, warn
from canasta_teach.engine import CLASSIC2, CLASSIC4, Discard, Kind, Meld, State
from canasta_teach.engine.determinize import determinize
from canasta_teach.engine.game import Game
from canasta_teach.engine.notation import parse_move, parse_position
from canasta_teach.engine.rng import SplitMix64
from canasta_teach.engine.rules import HAND_AND_FOOT
from canasta_teach.i18n import get_translator
from canasta_teach.widgets.coaching import learner_decisions
from canasta_teach.widgets.fullgame import FullGame, SaveStore

FEEDS = """\
rules: classic4
turn: S meld
S: 6 9 J K Q 4 8
W: ?11
N: ?11
E: ?11
NS melds: A A A
EW melds: 6 6 6 6
pile: 8 10 J Q 5 7 9 10
stock: rest
"""


def test_a_discard_that_gives_the_pile_away_is_warned_with_true_facts() -> None:
    state = parse_position(FEEDS.replace("turn: S meld", "turn: E meld").replace(
        "S: 6 9 J K Q 4 8", "S: ?7").replace("E: ?11", "E: 6 9 J K Q 4 8"))  # fmt: skip
    # East's discard: South (North–South, with a meld of aces) plays next.
    warning = warn(state, 3, Discard(Kind.ACE)) if state.hands[3][Kind.ACE] else None
    assert warning is None  # East holds no ace: nothing to warn about
    state = parse_position(FEEDS)
    warning = warn(state, 0, Discard(Kind.SIX))
    assert warning is not None
    keys = {c.key for c in warning.claims}
    assert {"gives_pile", "their_meld"} <= keys
    for claim in warning.claims:
        assert holds(claim.to_dict(), state, 0, Discard(Kind.SIX))
    assert isinstance(warning.instead, Discard) and warning.instead.card != Kind.SIX
    assert warn(state, 0, warning.instead) is None  # what it suggests is not itself warned


def test_no_warning_when_every_discard_feeds_or_the_pile_is_small() -> None:
    every = parse_position(FEEDS.replace("S: 6 9 J K Q 4 8", "S: 6 6 Q").replace(
        "EW melds: 6 6 6 6", "EW melds: 6 6 6 6 | Q Q Q"))  # fmt: skip
    assert warn(every, 0, Discard(Kind.SIX)) is None  # a queen would feed the pile too
    small = parse_position(FEEDS.replace("pile: 8 10 J Q 5 7 9 10", "pile: 8"))
    assert warn(small, 0, Discard(Kind.SIX)) is None


def test_notes_ask_the_partner_and_say_what_a_set_aside_lacks() -> None:
    can_go_out = parse_position(
        """\
        rules: classic4
        turn: S meld
        S: K K 9
        W: ?11
        N: ?11
        E: ?11
        NS melds: K K K K K | A A A
        pile: 4
        stock: rest
        """
    )
    said = note(can_go_out, 0)
    assert said is not None and said.key == "ask_partner"
    short = parse_position(FEEDS.replace("NS melds: A A A\n", "").replace(
        "S: 6 9 J K Q 4 8", "S: 5 5 5 9 K Q 4"))  # fmt: skip
    short.play(Meld((Kind.FIVE, Kind.FIVE, Kind.FIVE)))
    said = set_aside_note(short, 0)
    assert said is not None and said.key == "set_aside_short"
    assert said.params["missing"] == 35  # 15 of 50 points set aside


def _reached(rules: object, seed: str, moves: int) -> State:
    game = Game(rules, seed)  # type: ignore[arg-type]
    bots = [find_bot("normal", seed=s) for s in range(game.rules.players)]
    for _ in range(moves):
        if game.is_over:
            break
        game.apply(bots[game.state.to_move].step(game.state).move)
    return game.state


@pytest.mark.parametrize("rules", [CLASSIC4, CLASSIC2, HAND_AND_FOOT], ids=lambda r: r.name)
def test_the_coach_does_not_peek(rules: object) -> None:
    """A position and worlds dealt again from the learner's view get the same judgements,
    warnings and notes: the coach never used a card the learner could not see."""
    checked = 0
    for n, steps in enumerate((13, 27, 41, 66, 90)):
        state = _reached(rules, f"peek:{n}", steps)
        if state.is_over:
            continue
        seat = state.to_move
        moves = state.legal_moves()
        played = moves[-1]
        verdict = judge(state, seat, played)
        warned = [warn(state, seat, m) for m in moves]
        for w in range(2):
            world = determinize(state, seat, SplitMix64(f"coach-world:{w}"))
            assert judge(world, seat, played) == verdict
            assert [warn(world, seat, m) for m in moves] == warned
            assert note(world, seat) == note(state, seat)
        checked += 1
    assert checked >= 3


def test_the_peeking_check_can_fail() -> None:
    # A "coach" that read another player's hand would differ between worlds.
    state = _reached(CLASSIC4, "peek:1", 27)
    seat = state.to_move
    other = (seat + 1) % 4
    seen = {tuple(determinize(state, seat, SplitMix64(f"w{w}")).hands[other]) for w in range(4)}
    assert len(seen) > 1


def test_a_review_names_at_most_three_costly_decisions_with_true_facts() -> None:
    game = Game(CLASSIC4, "review")
    bots = [find_bot("easy" if s == 0 else "normal", seed=s) for s in range(4)]
    while not game.hands:
        game.apply(bots[game.state.to_move].step(game.state).move)
    decisions = learner_decisions(game, 0)
    assert decisions and all(state.to_move == 0 for _, state, _ in decisions)
    for index, state, move in decisions:  # each is the real state before that move
        again = Game.replay(game.rules, game.seed, game.moves[:index]).state
        assert again == state and parse_move(game.moves[index]) == move
    moments = review(decisions, 0)
    assert len(moments) <= 3
    assert [m.index for m in moments] == sorted(m.index for m in moments)
    by_index = {index: (state, move) for index, state, move in decisions}
    for moment in moments:
        state, move = by_index[moment.index]
        assert moment.played == move and moment.best != move and moment.cost >= 10
        assert moment.best in state.legal_moves()
        for claim in moment.why_best:
            assert holds(claim.to_dict(), state, 0, moment.best)
        for claim in moment.why_not:
            assert holds(claim.to_dict(), state, 0, moment.played)


# ---------------------------------------------------------------------------- at the table


def _table(tmp_path: Path, **options: object) -> FullGame:
    return FullGame(get_translator("en"), "en", store=SaveStore(tmp_path), **options)  # type: ignore[arg-type]


def test_the_table_stops_a_feeding_discard_until_the_learner_insists(tmp_path: Path) -> None:
    game = _table(tmp_path, seed="coach-table")
    game.game.state = parse_position(FEEDS)
    game.render()
    before = game.game.state.snapshot()
    game.learner_moves([Discard(Kind.SIX)])
    coach = game.widget.game["coach"]
    assert coach["kind"] == "warning" and "East" in coach["text"]
    assert {a["id"] for a in coach["actions"]} == {"coach:again", "coach:anyway"}
    assert game.game.state.snapshot() == before  # nothing was played
    game._on_control("coach:again")
    assert game.widget.game["coach"] is None or game.widget.game["coach"]["kind"] != "warning"
    assert game.game.state.snapshot() == before
    game.learner_moves([Discard(Kind.SIX)])
    game._on_control("coach:anyway")
    assert game.game.moves[-1] == "discard 6" or "discard 6" in game.game.moves


def test_the_coach_can_be_turned_off_and_is_off_in_daily_games(tmp_path: Path) -> None:
    game = _table(tmp_path, seed="coach-off")
    assert game.coach.on and any(g["id"] == "coach" for g in game.widget.game["groups"])
    game._on_control("coach:off")
    game.game.state = parse_position(FEEDS)
    game.learner_moves([Discard(Kind.SIX)])
    assert "discard 6" in game.game.moves
    daily = _table(tmp_path, mode="daily")
    assert not daily.coach.on
    assert not any(g["id"] == "coach" for g in daily.widget.game["groups"])


def test_after_a_hand_the_review_opens_its_moments_on_the_table(tmp_path: Path) -> None:
    game = _table(tmp_path, seed="coach-review", players=2, pace="instant")
    learner = find_bot("easy", seed=9)
    for _ in range(400):
        if game.awaiting_next or game.game.is_over:
            break
        game.learner_moves([learner.step(game.game.state).move])
        if game.coach.stopped is not None:
            game._on_control("coach:anyway")
    assert game.awaiting_next and game.coach.review is not None
    box = game.widget.game["coach"]
    assert box["kind"] == "review"
    if not game.coach.review:
        return
    moment = game.coach.review[0]
    game._on_control("coach:show:0")
    shown = game.controller.state
    expected = Game.replay(game.game.rules, game.game.seed, game.game.moves[: moment["index"]])
    assert shown == expected.state
    assert game.widget.view["actions"] == []  # a past moment is only looked at
    assert "The coach would" in game.widget.game["coach"]["text"]
    game._on_control("coach:back")
    assert game.controller.state == game.game.last_hand
    # The review is kept with the game.
    again = _table(tmp_path, seed="other")
    again._restore(game.to_json())
    assert again.coach.review == game.coach.review


# ---------------------------------------------------------------------------- your partner asks


@pytest.mark.parametrize("deal", [0, 1])
def test_in_each_arranged_deal_the_partner_asks_and_the_coach_has_a_clear_answer(
    tmp_path: Path, deal: int
) -> None:
    from canasta_teach.engine import Answer
    from canasta_teach.widgets.asking import DEALS, EXPECTED, PartnerAsks

    assert len(DEALS) == len(EXPECTED) and set(EXPECTED) == {True, False}
    game = PartnerAsks(get_translator("en"), "en", pace="instant", store=SaveStore(tmp_path))
    game.deal = deal
    game.start(mode="practice")
    state = game.game.state
    assert state.phase.value == "answer" and state.to_move == 0 and state.current == 2
    assert game.widget.view["enabled"]["answer"]
    before = state.copy()
    good = Answer(EXPECTED[deal])
    verdict = judge(before, 0, Answer(not EXPECTED[deal]))
    assert verdict.best == good and verdict.cost >= 100
    assert judge(before, 0, good).best == good
    # The learner answers against the coach: the coach says so, with true facts.
    game.learner_moves([Answer(not EXPECTED[deal])])
    said = game.coach.note
    assert said is not None and said.key == ("answer_differ_yes" if good.yes else
                                             "answer_differ_no")  # fmt: skip
    for claim in said.claims:
        assert holds(claim.to_dict(), before, 0, Answer(not EXPECTED[deal]))
    assert "The coach would have said" in game.widget.game["coach"]["text"]
    # Then the hand goes on as the answer decided: North goes out after a yes only.
    assert (game.game.last_hand is not None) == (not EXPECTED[deal])


def test_a_yes_to_the_partner_ends_the_arranged_hand_with_its_score(tmp_path: Path) -> None:
    from canasta_teach.engine import Answer
    from canasta_teach.widgets.asking import PartnerAsks

    game = PartnerAsks(get_translator("ur"), "ur", pace="instant", store=SaveStore(tmp_path))
    game.learner_moves([Answer(True)])
    assert game.game.last_hand is not None and game.widget.game["sheet"] is not None
    assert game.coach.note is not None and game.coach.note.key == "answer_agree"
    game._on_control("next_deal")
    assert game.deal == 1 and game.game.state.phase.value == "answer"


def test_every_variant_has_the_coachs_side_and_names_only_known_mistakes() -> None:
    """Each rule family has its bots' side (``bots.variant_bots``), filled by its bot module;
    the mistakes a variant names are the coach's, and every one of them is named somewhere."""
    from canasta_teach.bots.coach import MISTAKES
    from canasta_teach.bots.variant_bots import variant_bots
    from canasta_teach.engine.rules import FAMILIES

    sides = {family: variant_bots(family) for family in FAMILIES}
    for family, side in sides.items():
        assert side.mistakes <= set(MISTAKES), family
    assert set().union(*(side.mistakes for side in sides.values())) == set(MISTAKES)
    with pytest.raises(ValueError):
        variant_bots("samba")


def test_the_levels_play_a_variant_with_its_own_player_where_it_has_one() -> None:
    """Hand and Foot is played by its own easy and normal players, Classic by the levels."""
    from canasta_teach.bots import EasyBot, NormalBot
    from canasta_teach.bots.handfoot import HandFootEasy, HandFootNormal
    from canasta_teach.engine.variants import find_variant

    handfoot = find_variant(HAND_AND_FOOT.family).state_class.deal("s", HAND_AND_FOOT)
    classic = State.deal("s", CLASSIC4)
    for bot, own in ((EasyBot(3), HandFootEasy), (NormalBot(3), HandFootNormal)):
        assert isinstance(bot.variant_player(handfoot), own)
        assert bot.variant_player(classic) is None
        assert bot.step(handfoot) == own(3).step(handfoot)
