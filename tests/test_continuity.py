"""Continuity between visits and games (issue 18): nothing the learner did is lost by a click
or a reload.

- New game and Daily deal ask before a game in progress is given up (in all four languages);
  any other button or a move answers "no".
- Classic and Hand and Foot each have a save of their own: switching keeps the other game to
  resume, each page (lesson 11, lesson 12) resumes its own, and an old one-per-browser save
  still loads as the game it holds.
- The guided hand resumes at the step the learner had reached and reports its steps as a
  lesson's progress (all of them once the hand is played, and still after Start again).
- A lesson reopens at its first unsolved puzzle.
- A room tells the browser the language its player chose; Invite tells the page what became
  of the tab it opened (and to close it when no room could be made).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from canasta_teach.engine.handfoot import HandFootState
from canasta_teach.engine.notation import parse_move
from canasta_teach.i18n import LANGUAGES, get_translator
from canasta_teach.rooms import RoomError, Rooms, SqliteRoomStore
from canasta_teach.widgets import play
from canasta_teach.widgets.friends import RoomTable
from canasta_teach.widgets.fullgame import LEARNER, FullGame, SaveStore
from canasta_teach.widgets.guided import COACHED, GUIDED_SET, GuidedHand

PLAYER = "0123456789abcdef0123456789abcdef"
PUZZLES = Path(__file__).resolve().parents[1] / "lessons" / "puzzles"


def new_game(tmp_path: Path, lang: str = "en", **options: Any) -> FullGame:
    options.setdefault("pace", "instant")
    options.setdefault("seed", "continuity")
    options.setdefault("level", "easy")
    return FullGame(get_translator(lang), lang, store=SaveStore(tmp_path), **options)


def hello(table: Any, player: str = PLAYER) -> None:
    table.controller.intent({"action": "game", "id": "hello", "values": {"player": player}})


def press(table: Any, control: str) -> None:
    table.controller.intent({"action": "game", "id": control})


def play_some(game: FullGame, moves: int, seed: int = 1) -> None:
    """The learner plays ``moves`` random legal moves (by the table, as clicks do)."""
    rng = random.Random(seed)
    for _ in range(moves):
        if game.awaiting_next or game.game.is_over:
            break
        options = game.game.state.legal_moves()
        game.controller.play(options[rng.randrange(len(options))])


# ---------------------------------------------------------------------- "Start a new game?"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_new_game_asks_before_the_game_in_progress_is_lost(tmp_path: Path, lang: str) -> None:
    tr = get_translator(lang)
    game = new_game(tmp_path, lang)
    assert game.widget.game["confirm"] is None
    play_some(game, 3)
    moves = list(game.game.moves)
    press(game, "new")
    confirm = game.widget.game["confirm"]
    assert confirm["text"] == tr.ui("game.full.confirm_new")
    assert confirm["yes"] == {"id": "confirm_new", "label": tr.ui("game.full.confirm_yes")}
    assert confirm["no"] == {"id": "keep_playing", "label": tr.ui("game.full.confirm_no")}
    assert len({confirm["text"], confirm["yes"]["label"], confirm["no"]["label"]}) == 3
    if lang != "en":
        assert confirm["text"] != get_translator("en").ui("game.full.confirm_new")
    assert game.game.moves == moves  # nothing lost yet
    # Keep playing: the question goes, the game stays.
    press(game, "keep_playing")
    assert game.widget.game["confirm"] is None and game.game.moves == moves
    # Asked again and confirmed: a new game.
    seed = game.game.seed
    press(game, "new")
    press(game, "confirm_new")
    assert game.widget.game["confirm"] is None
    assert game.game.seed != seed and not game.game.hands and game.mode == "practice"
    assert game.controller.message["text"] == tr.ui("game.full.started")


def test_the_daily_deal_asks_too_and_another_click_answers_no(tmp_path: Path) -> None:
    game = new_game(tmp_path)
    play_some(game, 2)
    moves = list(game.game.moves)
    press(game, "daily")
    assert game.widget.game["confirm"] is not None
    press(game, "hint")  # any other button: the question is dropped, nothing lost
    assert game.widget.game["confirm"] is None and game.game.moves == moves
    # "Start new game" without a question is refused and changes nothing.
    press(game, "confirm_new")
    assert game.controller.message["kind"] == "refusal" and game.game.moves == moves
    press(game, "daily")
    # A move answers no as well.
    state = game.game.state
    assert state.to_move == LEARNER
    game.controller.play(state.legal_moves()[0])
    assert game.widget.game["confirm"] is None
    press(game, "daily")
    press(game, "confirm_new")
    assert game.mode == "daily" and game.game.seed.startswith("daily/")


def test_nothing_to_lose_starts_at_once(tmp_path: Path) -> None:
    game = new_game(tmp_path, players=2, seed="finished")
    seed = game.game.seed
    press(game, "new")  # no move yet
    assert game.widget.game["confirm"] is None and game.game.seed != seed
    # A finished game: a new one at once too.
    rng = random.Random(4)
    while not game.game.is_over:
        if game.awaiting_next:
            press(game, "next_hand")
            continue
        options = game.game.state.legal_moves()
        game.controller.play(options[rng.randrange(len(options))])
    seed = game.game.seed
    press(game, "new")
    assert game.widget.game["confirm"] is None and game.game.seed != seed


# ---------------------------------------------------------------------- one save per variant


def test_switching_variants_keeps_each_game_to_resume(tmp_path: Path) -> None:
    tr = get_translator("hi")
    game = new_game(tmp_path, "hi")
    hello(game)
    play_some(game, 4)
    classic_moves = list(game.game.moves)
    assert classic_moves
    press(game, "variant:handfoot")
    # Nothing to lose: no question, a Hand and Foot game at once.
    assert game.widget.game["confirm"] is None
    assert game.variant == "handfoot" and isinstance(game.game.state, HandFootState)
    play_some(game, 3, seed=2)
    handfoot_moves = list(game.game.moves)
    press(game, "variant:classic")
    assert game.variant == "classic" and game.game.moves == classic_moves
    assert game.widget.game["notice"] == tr.ui(
        "game.full.variant_resumed", variant=tr.ui("game.full.variant.classic")
    )
    press(game, "variant:handfoot")
    assert game.game.moves == handfoot_moves
    # Each on disk under its own name.
    classic = json.loads((tmp_path / f"{PLAYER}.json").read_text())
    handfoot = json.loads((tmp_path / f"{PLAYER}.handfoot.json").read_text())
    assert classic["game"]["moves"] == classic_moves
    assert handfoot["game"]["moves"] == handfoot_moves
    # A new kernel (a reload) switching over finds the other game on disk.
    other = new_game(tmp_path, "hi", seed="elsewhere")
    hello(other)
    assert other.game.moves == classic_moves
    press(other, "variant:handfoot")
    assert other.game.moves == handfoot_moves


def test_each_lesson_page_resumes_its_own_variant(tmp_path: Path) -> None:
    lesson_11 = new_game(tmp_path, seed="l11")
    hello(lesson_11)
    play_some(lesson_11, 3)
    lesson_12 = new_game(tmp_path, seed="l12", variant="handfoot")
    hello(lesson_12)
    # Lesson 12's table opens on Hand and Foot, not on lesson 11's game.
    assert lesson_12.variant == "handfoot" and lesson_12.game.moves == []
    play_some(lesson_12, 3)
    again_11 = new_game(tmp_path, seed="again")
    hello(again_11)
    assert again_11.game.moves == lesson_11.game.moves
    again_12 = new_game(tmp_path, seed="again", variant="handfoot")
    hello(again_12)
    assert again_12.game.moves == lesson_12.game.moves


def test_an_old_single_save_still_loads_as_the_game_it_holds(tmp_path: Path) -> None:
    # Before, a browser had one save, <id>.json, whatever the game: here Hand and Foot.
    old = new_game(tmp_path / "old", variant="handfoot", seed="old")
    play_some(old, 3)
    (tmp_path / f"{PLAYER}.json").write_text(json.dumps(old.to_json()))
    # A Classic page does not take it for a Classic game, and does not lose it.
    classic = new_game(tmp_path, seed="classic")
    hello(classic)
    assert classic.variant == "classic" and classic.game.moves == []
    assert (tmp_path / f"{PLAYER}.handfoot.json").exists()
    # The Hand and Foot page resumes it.
    handfoot = new_game(tmp_path, variant="handfoot", seed="other")
    hello(handfoot)
    assert handfoot.game.moves == old.game.moves
    # Read directly by the Hand and Foot page too (no Classic page first).
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / f"{PLAYER}.json").write_text(json.dumps(old.to_json()))
    direct = new_game(tmp_path / "b", variant="handfoot", seed="other")
    hello(direct)
    assert direct.game.moves == old.game.moves
    assert not (tmp_path / "b" / f"{PLAYER}.json").exists()
    assert SaveStore(tmp_path / "b").load(PLAYER) is None


def test_an_unreadable_save_of_the_other_variant_is_kept_aside(tmp_path: Path) -> None:
    garbage = b'{"format": "canasta-teach/table", "version": 1, "game": '
    (tmp_path / f"{PLAYER}.handfoot.json").write_bytes(garbage)
    game = new_game(tmp_path)
    hello(game)
    play_some(game, 2)
    press(game, "variant:handfoot")
    assert game.variant == "handfoot" and game.game.moves == []
    kept = [p for p in tmp_path.iterdir() if ".unreadable-" in p.name]
    assert len(kept) == 1 and kept[0].read_bytes() == garbage
    assert kept[0].name in game.widget.game["notice"]


def test_save_names_refuse_anything_but_an_id_and_a_kind(tmp_path: Path) -> None:
    store = SaveStore(tmp_path)
    assert store.path(PLAYER).name == f"{PLAYER}.json"
    assert store.path(PLAYER, "guided").name == f"{PLAYER}.guided.json"
    for player, slot in (("../../etc", "classic"), (PLAYER, "../x"), (PLAYER, "nothing")):
        with pytest.raises(ValueError):
            store.path(player, slot)


# ---------------------------------------------------------------------- the guided hand


def guided(tmp_path: Path, lang: str = "en") -> GuidedHand:
    return GuidedHand(get_translator(lang), lang, pace="instant", store=SaveStore(tmp_path))


def coach_steps(hand: GuidedHand, count: int) -> None:
    """The learner plays the coach's next ``count`` steps, by the table as clicks do."""
    for _ in range(count):
        step = hand.step
        assert step is not None
        hand.controller.play(parse_move(step.move))


def test_the_guided_hand_resumes_at_the_step_reached(tmp_path: Path) -> None:
    tr = get_translator("te")
    first = guided(tmp_path, "te")
    hello(first)
    coach_steps(first, 4)
    kept = first.widget.game["kept"]
    assert kept == {"set": GUIDED_SET, "solved": [0, 1, 2, 3], "total": len(COACHED),
                    "unit": "steps"}  # fmt: skip
    # A reload: a new kernel, the browser says who it is, the hand is where it was.
    second = guided(tmp_path, "te")
    assert second.coached == 0
    hello(second)
    assert second.coached == 4
    assert second.game.state.snapshot() == first.game.state.snapshot()
    assert second.game.moves == first.game.moves
    panel = second.widget.game
    assert panel["puzzle"] == tr.ui("game.guide.step", number=tr.number(5),
                                    total=tr.number(len(COACHED)))  # fmt: skip
    step = COACHED[4]
    assert panel["prompt"] == tr.ui(step.coach, button=tr.ui(f"button.{step.button}"))
    assert second.controller.message["text"] == tr.ui(
        "game.guide.resumed", number=tr.number(5), total=tr.number(len(COACHED))
    )
    # Shown at once: no replay of the computer's turns at their pace.
    assert second.widget.view["playback"]["frames"] == []
    # The others' moves are narrated as they were.
    assert [line["text"] for line in second.widget.view["narration"]] == [
        line["text"] for line in first.widget.view["narration"]
    ]
    # The hand goes on from there.
    coach_steps(second, 1)
    assert second.coached == 5


def test_the_finished_guided_hand_marks_the_lesson_done_for_good(tmp_path: Path) -> None:
    tr = get_translator("en")
    hand = guided(tmp_path)
    hello(hand)
    coach_steps(hand, len(COACHED))
    assert hand.game.last_hand is not None
    assert hand.widget.game["kept"]["solved"] == list(range(len(COACHED)))
    assert hand.widget.game["prompt"] == tr.ui("game.guide.done")
    again = guided(tmp_path)
    hello(again)
    assert again.game.last_hand is not None and again.widget.game["solved"]
    assert again.controller.message["text"] == tr.ui("game.full.restored")
    # Start again: the hand is dealt anew, the lesson stays done (here and after a reload).
    press(again, "retry")
    assert again.coached == 0 and again.game.last_hand is None
    assert again.widget.game["kept"]["solved"] == list(range(len(COACHED)))
    third = guided(tmp_path)
    hello(third)
    assert third.coached == 0
    assert third.widget.game["kept"]["solved"] == list(range(len(COACHED)))


def test_the_browsers_own_record_of_steps_counts_too(tmp_path: Path) -> None:
    hand = guided(tmp_path)
    hand.controller.intent({"action": "game", "id": "restore", "values": {"solved": "0,1,2,x,99"}})
    assert hand.widget.game["kept"]["solved"] == [0, 1, 2]
    assert hand.coached == 0  # where the hand is comes from its save, not from this


def test_the_guided_hand_refuses_bad_ids_and_keeps_an_unreadable_save(tmp_path: Path) -> None:
    hand = guided(tmp_path)
    hello(hand, "../../etc/passwd")
    assert hand.controller.message["kind"] == "refusal"
    assert list(tmp_path.iterdir()) == []
    (tmp_path / f"{PLAYER}.guided.json").write_text("{not json")
    hello(hand)
    assert hand.coached == 0
    kept = [p for p in tmp_path.iterdir() if ".unreadable-" in p.name]
    assert len(kept) == 1 and kept[0].read_text() == "{not json"
    assert kept[0].name in hand.widget.game["notice"]
    # A fresh record in its place, and one id per page.
    assert json.loads((tmp_path / f"{PLAYER}.guided.json").read_text())["coached"] == 0
    hello(hand, "f" * 32)
    assert hand.player == PLAYER and hand.controller.message["kind"] == "refusal"


# ---------------------------------------------------------------------- lessons


def test_a_lesson_reopens_at_its_first_unsolved_puzzle() -> None:
    tr = get_translator("ur")
    widget = play("meld", lang="ur", puzzles_dir=PUZZLES / "_test")
    game = widget.game_controller
    game.controller.intent({"action": "game", "id": "restore", "values": {"solved": "0,1"}})
    assert game.index == 2 and game.solved == {0, 1}
    assert widget.game["puzzle"] == tr.ui("game.puzzle_number", number=3, total=3)
    # The first one unsolved, not the one after the last solved.
    widget = play("meld", lang="en", puzzles_dir=PUZZLES / "_test")
    game = widget.game_controller
    game.controller.intent({"action": "game", "id": "restore", "values": {"solved": "0,2"}})
    assert game.index == 1
    # A learner who has already moved on is not moved.
    widget = play("meld", lang="en", puzzles_dir=PUZZLES / "_test")
    game = widget.game_controller
    press(game, "next")
    press(game, "next")
    game.controller.intent({"action": "game", "id": "restore", "values": {"solved": "0"}})
    assert game.index == 2 and game.solved == {0}
    # All solved: the lesson stays at its first puzzle.
    widget = play("meld", lang="en", puzzles_dir=PUZZLES / "_test")
    game = widget.game_controller
    game.controller.intent({"action": "game", "id": "restore", "values": {"solved": "0,1,2"}})
    assert game.index == 0 and game.solved == {0, 1, 2}


# ---------------------------------------------------------------------- rooms and Invite


def test_a_rooms_language_choice_is_kept_by_the_browser(tmp_path: Path) -> None:
    rooms = Rooms(SqliteRoomStore(tmp_path / "rooms.sqlite3"))
    code, token = rooms.create("en", players=2)
    table = RoomTable(get_translator("en"), "en", rooms=rooms, watch=False)
    sent: list[Any] = []
    table.widget.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    table.controller.intent(
        {"action": "game", "id": "hello", "values": {"room": code, "token": token, "lang": "en"}}
    )
    assert [m for m in sent if m["kind"] == "room_lang"] == []  # nothing chosen yet
    table.controller.intent({"action": "game", "id": "lang:hi"})
    assert sent[-1] == {"kind": "room_lang", "lang": "hi"}
    assert table.widget.lang == "hi"


def test_invite_tells_the_page_about_its_tab(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CANASTA_DATA_DIR", str(tmp_path))
    tr = get_translator("ur")
    game = FullGame(tr, "ur", pace="instant", level="easy", store=SaveStore(tmp_path / "games"))
    sent: list[Any] = []
    game.widget.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    (invite,) = [c for c in game.widget.game["controls"] if c["id"] == "invite"]
    assert invite["new_tab"] == tr.ui("room.opening")
    press(game, "invite")
    (go,) = sent
    assert go["kind"] == "room_go" and go["lang"] == "ur"
    assert (go["opened"], go["blocked"], go["link"]) == (
        tr.ui("room.tab_opened"), tr.ui("room.tab_blocked"), tr.ui("room.open_link")
    )  # fmt: skip

    def no_room(_game: Any) -> tuple[str, str]:
        raise RoomError("unavailable")

    monkeypatch.setattr("canasta_teach.widgets.friends.create_room_for", no_room)
    press(game, "invite")
    assert sent[-1] == {"kind": "room_failed"}
    assert game.controller.message["text"] == tr.ui("room.error.unavailable")
