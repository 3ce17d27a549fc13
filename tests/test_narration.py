"""The narration of a table and an ended hand's leftover cards (issue 18).

- The learner's own moves are narrated in the second person; a red three drawn and replaced,
  and the cards a pickup brings, are said when they happen (narration and the message under
  the table, puzzles too).
- A computer partner's reason sits on its own move's line, never on the next seat's (the Hand
  and Foot case: North throws away, East lays down a red three at the start of its turn).
- The narration survives a reload, kept without words: a learner back in another language
  reads it in that language; an old save without a narration still loads.
- A room's narration is rebuilt for a returning player and re-worded on a language switch.
- At the end of a hand every player's leftover cards are shown face up with their count (and
  in Hand and Foot a foot not picked up), in the full game, the guided hand and rooms.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from canasta_teach.bots import Choice
from canasta_teach.engine import Discard, State, TakePile, parse_kind
from canasta_teach.engine.cards import VALUES, kinds_of
from canasta_teach.engine.notation import parse_move, parse_position
from canasta_teach.i18n import LANGUAGES, get_translator
from canasta_teach.rooms import Rooms
from canasta_teach.widgets.fullgame import LEARNER, FullGame, SaveStore
from canasta_teach.widgets.narration import NARRATION_KEPT, Narration, reason_record
from canasta_teach.widgets.table import TableController
from tests.test_friends_widgets import a_room_of_two, play_turn, rooms, seat_table

PLAYER = "0123456789abcdef0123456789abcdef"
__all__ = ["rooms"]  # the fixture, shared with the room tests


def new_game(tmp_path: Path, lang: str = "en", **options: Any) -> FullGame:
    options.setdefault("pace", "instant")
    options.setdefault("seed", "narration-1")
    return FullGame(get_translator(lang), lang, store=SaveStore(tmp_path), **options)


def play_until(game: FullGame, rng: random.Random, done: Any, limit: int = 3000) -> None:
    """The learner plays random legal moves (through the table, as clicks do) until ``done``."""
    for _ in range(limit):
        if done(game) or game.game.is_over or game.awaiting_next:
            return
        options = game.game.state.legal_moves()
        game.controller.play(options[rng.randrange(len(options))])


def one_more_move(game: FullGame) -> None:
    """The learner moves on once: the next hand if one has ended, else a legal move."""
    if game.awaiting_next:
        game.controller.intent({"action": "game", "id": "next_hand"})
    else:
        game.controller.play(game.game.state.legal_moves()[0])


def lines(game: Any) -> list[dict[str, Any]]:
    return list(game.widget.view["narration"])


# ---------------------------------------------------------------------- own moves


def test_the_learners_own_moves_are_narrated_in_the_second_person(tmp_path: Path) -> None:
    game = new_game(tmp_path)
    en = get_translator("en")
    game.controller.intent({"action": "draw"})
    mine = [line for line in lines(game) if line["seat"] == LEARNER]
    assert [line["text"] for line in mine] == ["You drew a card."]
    card = kinds_of(game.game.state.hands[LEARNER])[0]
    game.controller.play(Discard(card))
    texts = [line["text"] for line in lines(game) if line["seat"] == LEARNER]
    assert texts[-1] == f"You threw away {en.card(card)}."
    # The others' moves are still told by name, never as "you".
    others = [line for line in lines(game) if line["seat"] not in (LEARNER, -1)]
    assert others and not any(line["text"].startswith("You ") for line in others)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_own_lines_read_in_every_language(tmp_path: Path, lang: str) -> None:
    game = new_game(tmp_path, lang=lang, level="easy", seed="words-2")
    play_until(game, random.Random(4), lambda g: len(g.game.moves) > 80)
    tr = get_translator(lang)
    mine = [line["text"] for line in lines(game) if line["seat"] == LEARNER]
    assert mine and all(text and "{" not in text for text in mine)
    # Never the third person for the learner's own moves: the seat's name is not in them.
    south = tr.seat("S")
    assert not any(text.startswith(south) for text in mine), mine


# ---------------------------------------------------------------------- red threes, pickups

POSITION = """rules: classic4
turn: S draw
S: K K Q Q 9 9 8 7 6 5 4
W: ?11
N: ?11
E: ?11
pile: 9 3R 7 Q
NS melds: 8 8 8
stock: rest 10 3R
"""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_puzzles_draw_tells_the_red_three_and_its_replacement(lang: str) -> None:
    tr = get_translator(lang)
    table = TableController(parse_position(POSITION), tr, lang)
    table.intent({"action": "draw"})
    text = table.message["text"]
    assert table.message["kind"] == "success"
    event = {"code": "red_three", "seat": 0, "private": {"card": "10"},
             "params": {"count": 1, "source": "drawn", "replaced": True}}  # fmt: skip
    assert text == tr.event(event, 4, you=0)
    assert tr.card("10", 1) in text
    if lang == "en":
        assert (
            text == "You drew a red three: it went down at once, and you drew one 10 in its place."
        )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_puzzles_pickup_names_what_came_into_the_hand(lang: str) -> None:
    tr = get_translator(lang)
    table = TableController(parse_position(POSITION), tr, lang)
    table.play(TakePile((parse_kind("Q"), parse_kind("Q"))))
    assert table.message["text"] == tr.ui("msg.took_gained", cards=tr.cards(["9", "7"]))
    if lang == "en":
        assert table.message["text"] == (
            "You picked up the pile; into your hand came one 9 and one 7."
        )


def test_the_full_games_narration_tells_the_learners_red_three(tmp_path: Path) -> None:
    game = new_game(tmp_path)
    game.game.state = parse_position(POSITION)
    game.controller.state = game.game.state
    game.controller.intent({"action": "draw"})
    texts = [line["text"] for line in lines(game) if line["seat"] == LEARNER]
    assert texts[:2] == [
        "You drew a red three: it went down at once, and you drew one 10 in its place.",
        "You drew a card.",
    ]
    assert game.controller.message["text"] == texts[0]


# ---------------------------------------------------------------------- reasons


class OneMove:
    """A computer seat that plays one given move with a given reason."""

    def __init__(self, move: str, why: str, facts: dict[str, Any]) -> None:
        self.move, self.why, self.facts = parse_move(move), why, facts

    def step(self, state: State) -> Choice:
        return Choice(self.move, self.why, self.facts)


HF_RED_THREE = """rules: handfoot
round: 1
turn: N meld
S: K K K Q Q Q JK 9 8 7 6 5 4
W: ?13
N: Q 7 7 8 8 9 9 10 10 J J 4 5
E: 3R 4 5 6 7 8 9 10 J Q K A A
stock: rest
"""


def test_the_partners_reason_sits_on_its_own_line_not_the_next_seats(tmp_path: Path) -> None:
    # Hand and Foot: North throws away a queen; East's turn begins with a red three laid down
    # (H-RED-1).  The reason belongs to North's discard, not to East's red three.
    game = new_game(tmp_path, variant="handfoot", seed="reason-line")
    game.game.state = parse_position(HF_RED_THREE)
    game.seats[2].bot = OneMove("discard Q", "discard", {"card": int(parse_kind("Q"))})  # type: ignore[assignment]
    start = game.narration.count
    game._run_bots()
    game.render()
    new = [line for line in lines(game) if line["n"] > start]
    with_reason = [line for line in new if line["why"]]
    assert [(line["seat"], line["text"]) for line in with_reason] == [
        (2, "North threw away a queen.")
    ]
    assert with_reason[0]["why"].startswith("I threw away a queen.")
    east = [line for line in new if line["seat"] == 3]
    assert east[0]["text"].startswith("East laid down a red three") and not east[0]["why"]


def test_every_reason_is_on_the_partners_first_line_of_its_move(tmp_path: Path) -> None:
    game = new_game(tmp_path, level="normal", seed="reasons")
    play_until(game, random.Random(8), lambda g: len(g.game.moves) > 120)
    explained = [line for line in game.narration.lines if line.why]
    assert explained
    for line in explained:
        assert line.seat == 2 and line.event is not None and line.event["seat"] == 2
        assert set(line.why or {}) == {"move", "headline", "count", "claims"}


def test_a_kept_reason_is_one_small_record() -> None:
    state = parse_position(
        """\
        rules: classic4
        turn: N meld
        S: ?11
        W: ?11
        N: Q 9 9 K
        E: ?11
        pile: 8 10
        stock: rest
        """
    )
    choice = Choice(Discard(parse_kind("Q")), "discard", {"card": 12})
    record = reason_record(state, 2, choice)
    assert record["move"] == "discard Q" and record["headline"] == "discard"
    assert {c["key"] for c in record["claims"]} <= {
        "hand_count",
        "no_their_meld",
        "pile_frozen_for",
        "pile_open_for",
    }
    assert json.loads(json.dumps(record)) == record


# ---------------------------------------------------------------------- saved narration


def played(tmp_path: Path, lang: str = "en", moves: int = 30) -> FullGame:
    game = new_game(tmp_path, lang=lang, seed="kept")
    game.controller.intent({"action": "game", "id": "hello", "values": {"player": PLAYER}})
    play_until(game, random.Random(3), lambda g: len(g.game.moves) > moves)
    return game


def test_the_narration_comes_back_after_a_reload_in_the_new_language(tmp_path: Path) -> None:
    first = played(tmp_path)
    kept = lines(first)
    assert any(line["why"] for line in kept) and any(line["seat"] == LEARNER for line in kept)
    # Kept without words: events and reasons as data, nothing in English.
    doc = json.loads((tmp_path / f"{PLAYER}.json").read_text())
    assert doc["version"] == 2
    saved = doc["narration"]["lines"]
    assert len(saved) == len(kept)
    assert all("text" not in line for line in saved)
    assert all(line["event"]["code"] for line in saved if "event" in line)
    assert any(
        set(line["why"]) == {"move", "headline", "count", "claims"}
        for line in saved
        if "why" in line
    )
    # The learner comes back to a new kernel, in Hindi.
    again = new_game(tmp_path, lang="hi", seed="other")
    again.controller.intent({"action": "game", "id": "hello", "values": {"player": PLAYER}})
    back = lines(again)
    assert [line["n"] for line in back[:-1]] == [line["n"] for line in kept]
    assert [line["seat"] for line in back[:-1]] == [line["seat"] for line in kept]
    hi = get_translator("hi")
    expected = Narration.from_json(doc["narration"]).shown(hi, 4, LEARNER)
    assert back[:-1] == expected
    assert back[-1]["text"] == hi.ui("game.full.restored")
    # Hindi words, the learner's own moves in the second person ("आपने ...").
    mine = [line["text"] for line in back if line["seat"] == LEARNER]
    assert mine and all(text.startswith("आप") for text in mine), mine
    reasons = [(a["why"], b["why"]) for a, b in zip(back[:-1], kept, strict=True) if b["why"]]
    assert reasons and all(hindi and hindi != english for hindi, english in reasons)
    # The restored game goes on narrating after the kept lines.
    one_more_move(again)
    assert lines(again)[-1]["n"] > back[-1]["n"]


def test_an_old_save_without_narration_still_loads(tmp_path: Path) -> None:
    first = played(tmp_path)
    path = tmp_path / f"{PLAYER}.json"
    doc = json.loads(path.read_text())
    doc["version"] = 1
    del doc["narration"]
    path.write_text(json.dumps(doc))
    again = new_game(tmp_path, seed="other")
    again.controller.intent({"action": "game", "id": "hello", "values": {"player": PLAYER}})
    assert again.game.moves == first.game.moves
    assert [line["text"] for line in lines(again)] == [
        get_translator("en").ui("game.full.restored")
    ]
    # Saved again, in the new format, at the next move.
    one_more_move(again)
    assert json.loads(path.read_text())["version"] == 2


def test_a_spoilt_narration_loses_only_the_narration(tmp_path: Path) -> None:
    first = played(tmp_path)
    path = tmp_path / f"{PLAYER}.json"
    doc = json.loads(path.read_text())
    doc["narration"]["lines"][0] = {"n": "one", "event": 7}
    path.write_text(json.dumps(doc))
    again = new_game(tmp_path, seed="other")
    again.controller.intent({"action": "game", "id": "hello", "values": {"player": PLAYER}})
    assert again.game.moves == first.game.moves
    assert len(lines(again)) == 1
    assert not [p for p in tmp_path.iterdir() if ".unreadable-" in p.name]


def test_a_narration_keeps_its_last_lines_and_numbers() -> None:
    narration = Narration(kept=5)
    for n in range(8):
        narration.say("game.full.hand_starts", kind="hand", number=n)
    assert [line.n for line in narration.lines] == [4, 5, 6, 7, 8]
    again = Narration.from_json(json.loads(json.dumps(narration.to_json())), kept=5)
    assert again.to_json() == narration.to_json()
    with pytest.raises(ValueError):
        Narration.from_json({"lines": [{"n": 1, "key": "x", "event": {"code": "drew"}}]})


# ---------------------------------------------------------------------- rooms


def test_a_returning_player_gets_the_rooms_narration_back(rooms: Rooms) -> None:
    host, _h, friend, friend_log, code, _t = a_room_of_two(rooms)
    host._on_control("start")
    tables = (host, friend)
    for _ in range(70):  # one draw or discard each: more lines than are kept
        for table in tables:
            table.poll()
        doc = host.snapshot.doc if host.snapshot else {}
        if doc["game"]["awaiting_next"] or doc["status"] != "playing":
            break
        mover = next(t for t in tables if t.controller.state.to_move == t.seat)
        play_turn(mover)
    friend.poll()
    told = [line for line in lines(friend) if line["seat"] >= 0 and line["kind"] != "info"]
    assert len(friend.narration) == NARRATION_KEPT
    hi = get_translator("hi")
    own = [line["text"] for line in told if line["seat"] == friend.seat]
    assert own and all(text.startswith("आप") for text in own), own
    # The friend comes back in a new kernel (the same link): the moves are narrated again.
    token = friend_log.customs()[0]["token"]
    again, _a = seat_table(rooms, "hi", {"room": code, "token": token})
    assert again.seat == friend.seat
    back = [line for line in lines(again) if line["seat"] >= 0 and line["kind"] != "info"]
    assert len(again.narration) == NARRATION_KEPT
    assert [line["text"] for line in back][-40:] == [line["text"] for line in told][-40:]
    assert hi.ui("room.playing", seat=hi.seat("N")) == again.widget.game["prompt"]
    # A language switch re-words the narration rather than clearing it.
    before = lines(again)
    again._on_control("lang:te")
    after = lines(again)
    te = get_translator("te")
    assert [line["n"] for line in after] == [line["n"] for line in before]
    assert after == again.narration.shown(te, 2, again.seat)
    assert all(a["text"] != b["text"] for a, b in zip(after, before, strict=True))
    assert any(line["text"].startswith("మీరు") for line in after if line["seat"] == again.seat)


# ---------------------------------------------------------------------- leftover cards


def hand_value(counts: list[int]) -> int:
    return sum(VALUES[k] * n for k, n in enumerate(counts))


def check_leftovers(sheet: dict[str, Any], ended: State, seat: int, tr: Any) -> None:
    from canasta_teach.engine.view import seat_names

    names = seat_names(ended.players)
    hands = sheet["hands"]
    seats = hands["seats"]
    assert [s["id"] for s in seats] == [names[(seat + i) % ended.players]
                                        for i in range(ended.players)]  # fmt: skip
    for entry in seats:
        s = names.index(entry["id"])
        cards = [str(c) for c in entry["cards"]]
        assert [parse_kind(c) for c in cards] == kinds_of(ended.hands[s])
        assert entry["count"] == len(cards) and entry["name"] == tr.seat(names[s])
        if cards:
            assert entry["label"] == tr.ntext("ui", "game.full.leftover.seat", len(cards),
                                              seat=entry["name"], count=len(cards),
                                              cards=tr.cards(cards))  # fmt: skip
        else:
            assert entry["label"] == tr.ui("game.full.leftover.none", seat=entry["name"])


def test_the_breakdown_shows_every_hands_leftover_cards(tmp_path: Path) -> None:
    game = new_game(tmp_path, level="easy", seed="leftovers")
    play_until(game, random.Random(6), lambda g: False)
    assert game.awaiting_next
    ended = game.game.last_hand
    assert ended is not None
    sheet = game.widget.game["sheet"]
    en = get_translator("en")
    check_leftovers(sheet, ended, LEARNER, en)
    assert sheet["hands"]["label"] == en.ui("game.full.leftover.caption")
    # The cards shown are the ones the score counts against each team (C-VAL-2).
    from canasta_teach.engine.scoring import score_hand

    for team in (0, 1):
        line = next((li for li in score_hand(ended).teams[team].lines
                     if li.code == "cards_in_hand"), None)  # fmt: skip
        left = sum(hand_value(ended.hands[s]) for s in range(4) if s % 2 == team)
        assert (line.points if line else 0) == -left
    # Not while a hand is played.
    game.controller.intent({"action": "game", "id": "next_hand"})
    assert game.widget.game["sheet"] is None


def test_hand_and_foot_shows_a_foot_not_picked_up(tmp_path: Path) -> None:
    from canasta_teach.engine.handfoot import score_team

    game = new_game(tmp_path, variant="handfoot", level="easy", seed="feet")
    play_until(game, random.Random(2), lambda g: False, limit=6000)
    ended = game.game.last_hand
    assert ended is not None and game.awaiting_next
    sheet = game.widget.game["sheet"]
    te = get_translator("en")
    check_leftovers(sheet, ended, LEARNER, te)
    feet = {entry["id"]: entry.get("foot") for entry in sheet["hands"]["seats"]}
    names = ["S", "W", "N", "E"]
    for s, name in enumerate(names):
        foot = feet[name]
        assert (foot is not None) == (not ended.in_foot[s])  # type: ignore[attr-defined]
        if foot is not None:
            counts = ended.feet[s]  # type: ignore[attr-defined]
            assert [parse_kind(c) for c in foot["cards"]] == kinds_of(counts)
            assert foot["count"] == sum(counts)
    assert any(foot is not None for foot in feet.values())  # this deal leaves one face down
    # Hand and foot together are what the score counts against each team (H-VAL-1).
    for team in (0, 1):
        line = next(
            (li for li in score_team(ended, team).lines if li.code == "cards_in_hand_foot"), None
        )  # type: ignore[arg-type]
        left = sum(hand_value(ended.hands[s]) + hand_value(ended.feet[s])  # type: ignore[attr-defined]
                   for s in range(4) if s % 2 == team)  # fmt: skip
        assert (line.points if line else 0) == -left


def test_the_guided_hand_ends_with_everyones_leftover_cards() -> None:
    from canasta_teach.widgets.guided import COACHED, GuidedHand

    en = get_translator("en")
    game = GuidedHand(en, "en", pace="instant")
    for step in COACHED:
        game.learner_moves([parse_move(step.move)])
    ended = game.game.last_hand
    assert ended is not None
    sheet = game.widget.game["sheet"]
    check_leftovers(sheet, ended, LEARNER, en)
    south = sheet["hands"]["seats"][0]
    assert south["cards"] == [] and south["label"] == "South: no cards left"
    west = sheet["hands"]["seats"][1]
    assert west["count"] == 11 and west["label"].startswith("West: 11 cards: ")
    # The guided hand narrates the learner's moves too, and North's reasons on North's lines.
    texts = [line["text"] for line in lines(game)]
    assert "You drew a card." in texts
    assert any(line["why"] and line["seat"] == 2 for line in lines(game))


def test_a_rooms_ended_hand_shows_the_leftover_cards_to_each_seat(rooms: Rooms) -> None:
    host, _h, friend, _f, _code, _t = a_room_of_two(rooms)
    host._on_control("start")
    tables = (host, friend)
    for _ in range(400):
        for table in tables:
            table.poll()
        doc = host.snapshot.doc if host.snapshot else {}
        if doc["game"]["awaiting_next"] is False and doc["status"] == "playing":
            # During play no panel shows another seat's cards.
            assert not any(table.widget.game.get("sheet") for table in tables)
        if doc["game"]["awaiting_next"] or doc["status"] != "playing":
            break
        mover = next(t for t in tables if t.controller.state.to_move == t.seat)
        play_turn(mover)
    for table in tables:
        table.poll()
    for table, lang in ((host, "ur"), (friend, "hi")):
        assert table.replica is not None
        ended = table.replica.last_hand
        assert ended is not None
        check_leftovers(table.widget.game["sheet"], ended, table.seat, get_translator(lang))


def test_draw_and_pickup_events_reach_the_learners_message_in_a_room(rooms: Rooms) -> None:
    host, _h, friend, _f, _code, _t = a_room_of_two(rooms)
    host._on_control("start")
    friend.poll()
    mover = host if host.controller.state.to_move == host.seat else friend
    state = mover.controller.state
    assert state.phase.value == "draw"
    mover.controller.intent({"action": "draw"})
    text = mover.widget.message["text"]
    lang = mover.lang
    tr = get_translator(lang)
    own = [line["text"] for line in lines(mover) if line["seat"] == mover.seat]
    assert own and own[-1] == tr.ntext("engine", "event.you.drew", 2)
    assert text and "{" not in text
