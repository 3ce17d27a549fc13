"""The full game (canasta_teach.widgets.fullgame): computer seats, narration from the engine's
events, the score sheet, take-back, hints, the partner's question both ways, and saving."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from canasta_teach.engine import Answer, AskPartner, Draw, Move
from canasta_teach.engine.game import Game
from canasta_teach.engine.state import Phase
from canasta_teach.i18n import LANGUAGES, get_translator
from canasta_teach.widgets.fullgame import LEARNER, PACES, FullGame, SaveStore, play_game

PLAYER = "0123456789abcdef0123456789abcdef"


def new_game(tmp_path: Path, lang: str = "en", **options: object) -> FullGame:
    options.setdefault("pace", "instant")
    options.setdefault("seed", "test-1")
    return FullGame(get_translator(lang), lang, store=SaveStore(tmp_path), **options)  # type: ignore[arg-type]


def learner_plays(game: FullGame, rng: random.Random, limit: int = 5000) -> int:
    """The learner plays random legal moves (through the table, as clicks do) to the end."""
    moves = 0
    while not game.game.is_over and moves < limit:
        if game.awaiting_next:
            game.controller.intent({"action": "game", "id": "next_hand"})
            continue
        state = game.game.state
        assert state.to_move == LEARNER, "the computer seats move until it is the learner's turn"
        options = state.legal_moves()
        game.controller.play(options[rng.randrange(len(options))])
        moves += 1
    return moves


@pytest.mark.parametrize("players", [4, 2])
def test_a_whole_game_is_played_to_5000_with_a_sheet_and_a_narration(
    tmp_path: Path, players: int
) -> None:
    game = new_game(tmp_path, players=players, level="easy", seed=f"whole-{players}")
    learner_plays(game, random.Random(players))
    assert game.game.is_over
    assert max(game.game.totals) >= 5000
    panel, view = game.widget.game, game.widget.view
    sheet = panel["tables"][0]
    assert len(sheet["rows"]) == len(game.game.hands)
    mine = LEARNER % 2
    assert sheet["foot"][1] == f"\u2066{game.game.totals[mine]:,}\u2069".replace(
        "\u2066-", "\u2066\u2212"
    )
    # The last hand's breakdown, line by line, each line with a rule and a reason.
    lines = [line for team in panel["sheet"]["teams"] for line in team["lines"]]
    assert lines and all(line["rule"].startswith("C-") and line["why"] for line in lines)
    assert panel["stage"] == "over" and ("won" in panel["prompt"] or "won" in panel["prompt"])
    # Between games the score sheet and the settings are open again, the sheet unfolded.
    assert panel["fold"]["open"] is True and not sheet["fold"]
    texts = [line["text"] for line in view["narration"]]
    assert texts and all(text and "{" not in text for text in texts)
    # Both the table and the saved file agree with a replay of the record.
    saved = json.loads((tmp_path / "this-kernel.json").read_text())
    replayed = Game.replay(game.game.rules, saved["game"]["seed"], saved["game"]["moves"])
    assert replayed.totals == game.game.totals


def test_computer_turns_come_as_pictures_to_replay_and_narrated_events(tmp_path: Path) -> None:
    game = new_game(tmp_path, pace="normal", seed="frames")
    rng = random.Random(5)
    seen_frames = 0
    for _ in range(30):
        if game.awaiting_next or game.game.is_over:
            break
        before = game.widget.view["playback"]["id"]
        options = game.game.state.legal_moves()
        game.controller.play(options[rng.randrange(len(options))])
        playback = game.widget.view["playback"]
        assert playback["id"] > before
        assert playback["pace_ms"] == PACES["normal"]
        uptos = [frame["upto"] for frame in playback["frames"]]
        assert uptos == sorted(uptos)
        assert all(frame["view"]["hand"] is not None for frame in playback["frames"])
        seen_frames += len(playback["frames"])
    assert seen_frames > 0
    bots = [line for line in game.widget.view["narration"] if line["seat"] not in (-1, LEARNER)]
    assert {line["seat"] for line in bots} == {1, 2, 3}
    # The partner (North, seat 2) says why it moved; the opponents keep their reasons.
    assert any(line["why"] for line in bots if line["seat"] == 2)
    assert not any(line["why"] for line in bots if line["seat"] in (1, 3))


def test_take_back_restores_the_position_in_practice_only(tmp_path: Path) -> None:
    game = new_game(tmp_path, seed="takeback")
    before = game.game.state.snapshot()
    moves_before = list(game.game.moves)
    game.controller.intent({"action": "draw"})
    assert game.game.state.snapshot() != before
    game.controller.intent({"action": "game", "id": "takeback"})
    assert game.game.state.snapshot() == before
    assert game.game.moves == moves_before
    daily = new_game(tmp_path / "d", mode="daily", seed=None)
    daily.controller.intent({"action": "draw"})
    after = daily.game.state.snapshot()
    daily.controller.intent({"action": "game", "id": "takeback"})
    assert daily.game.state.snapshot() == after
    assert daily.controller.message["kind"] == "refusal"
    assert "takeback" not in [c["id"] for c in daily.widget.game["controls"]]


def test_hint_suggests_a_legal_move_and_says_why(tmp_path: Path) -> None:
    game = new_game(tmp_path, seed="hint")
    game.controller.intent({"action": "game", "id": "hint"})
    hint = game.widget.game["hint"]
    assert hint.startswith("A good move now: draw from the stock")
    # Its why is facts in the learner's view (``bots.claims``), not a bot's "I ...".
    from canasta_teach.bots.claims import reason_record

    record = reason_record(game.game.state, 0, Draw())
    words = game.tr.reason_words(record, voice="you")
    assert words and hint.endswith(words) and "“I " not in hint


def test_the_partner_question_goes_both_ways(tmp_path: Path) -> None:
    # The learner asks: the computer partner answers at once (C-ASK-1).
    rng = random.Random(11)
    asked_by_learner = asked_by_partner = False
    for seed in range(40):
        game = new_game(tmp_path / str(seed), seed=f"ask-{seed}", level="normal")
        for _ in range(400):
            if game.awaiting_next or game.game.is_over:
                break
            state = game.game.state
            if state.phase is Phase.ANSWER:
                # North asked the learner: the table offers Yes and No, and says so.
                assert state.current == 2 and game.controller.enabled()["answer"]
                assert "may" in game.controller.table_view()["status"].lower()
                asked_by_partner = True
                game.controller.intent({"action": "answer", "yes": True})
                continue
            options = state.legal_moves()
            ask = [m for m in options if isinstance(m, AskPartner)]
            if ask and not asked_by_learner:
                game.controller.intent({"action": "ask"})
                assert game.controller.message["text"].startswith("Your partner says")
                asked_by_learner = True
                continue
            move: Move = options[rng.randrange(len(options))]
            if isinstance(move, AskPartner):
                move = options[0]
            game.controller.play(move)
        if asked_by_learner and asked_by_partner:
            break
    assert asked_by_learner and asked_by_partner


def test_answer_yes_binds_the_computer_partner_to_go_out(tmp_path: Path) -> None:
    for seed in range(60):
        game = new_game(tmp_path / str(seed), seed=f"bind-{seed}", level="normal")
        rng = random.Random(seed)
        for _ in range(400):
            if game.awaiting_next or game.game.is_over:
                break
            state = game.game.state
            if state.phase is Phase.ANSWER:
                hand = state.hand_number
                game.controller.play(Answer(True))
                ended = game.game.last_hand
                assert ended is not None and ended.hand_number == hand
                assert ended.end is not None and ended.end.seat == 2
                return
            options = [m for m in state.legal_moves() if not isinstance(m, AskPartner)]
            game.controller.play(options[rng.randrange(len(options))])
    pytest.fail("no seed where the partner asks")


def test_save_and_resume_after_a_reload(tmp_path: Path) -> None:
    first = new_game(tmp_path, seed="resume")
    first.controller.intent({"action": "game", "id": "hello", "values": {"player": PLAYER}})
    rng = random.Random(3)
    for _ in range(12):
        options = first.game.state.legal_moves()
        first.controller.play(options[rng.randrange(len(options))])
        if first.awaiting_next:
            break
    first.controller.intent({"action": "game", "id": "pace:fast"})
    # A new page (or a new kernel): a fresh game until the browser says who it is.
    second = new_game(tmp_path, seed="other")
    assert second.game.moves != first.game.moves
    second.controller.intent({"action": "game", "id": "hello", "values": {"player": PLAYER}})
    assert second.game.moves == first.game.moves
    assert second.game.state.snapshot() == first.game.state.snapshot()
    assert second.pace == "fast" and second.takebacks == first.takebacks
    assert second.widget.game["notice"] == get_translator("en").ui("game.full.restored")


def test_a_corrupt_save_is_kept_and_a_fresh_game_starts(tmp_path: Path) -> None:
    path = tmp_path / f"{PLAYER}.json"
    garbage = b'{"format": "canasta-teach/table", "version": 1, "game": {"moves": [1, 2'
    path.write_bytes(garbage)
    game = new_game(tmp_path, seed="fresh")
    game.controller.intent({"action": "game", "id": "hello", "values": {"player": PLAYER}})
    kept = [p for p in tmp_path.iterdir() if ".unreadable-" in p.name]
    assert len(kept) == 1 and kept[0].read_bytes() == garbage
    assert kept[0].name in game.widget.game["notice"]
    assert json.loads(path.read_text())["game"]["seed"] == "fresh"  # the new game is saved
    # A save whose moves the engine refuses is kept too.
    doc = game.to_json()
    doc["game"]["moves"] = ["discard JK"]
    path.write_text(json.dumps(doc))
    again = new_game(tmp_path, seed="fresh-2")
    again.controller.intent({"action": "game", "id": "hello", "values": {"player": PLAYER}})
    assert len([p for p in tmp_path.iterdir() if ".unreadable-" in p.name]) == 2
    assert again.game.moves == [] or again.game.seed == "fresh-2"


@pytest.mark.parametrize(
    "payload",
    [
        {"action": "game", "id": "hello", "values": {"player": "../../etc/passwd"}},
        {"action": "game", "id": "hello", "values": {"player": "x"}},
        {"action": "game", "id": "pace:warp"},
        {"action": "game", "id": "level:expert"},
        {"action": "game", "id": "next_hand"},
        {"action": "game", "id": "board", "values": {"name": "Ayesha"}},
        {"action": "game", "id": 7},
        {"action": "meld", "cards": ["K", "ZZ"]},
    ],
)
def test_bad_or_untimely_intents_change_nothing(tmp_path: Path, payload: object) -> None:
    game = new_game(tmp_path, seed="bad")
    before = (game.game.state.snapshot(), list(game.game.moves), game.pace, game.level)
    game.controller.intent(payload)
    assert (game.game.state.snapshot(), list(game.game.moves), game.pace, game.level) == before
    assert game.controller.message["kind"] == "refusal"
    assert list(tmp_path.glob("*passwd*")) == []


def test_level_and_table_size_change_at_once_before_any_move(tmp_path: Path) -> None:
    game = new_game(tmp_path, seed="levels")
    game.controller.intent({"action": "game", "id": "players:2"})
    assert game.players == 2 and len(game.game.state.hands) == 2
    game.controller.intent({"action": "draw"})
    game.controller.intent({"action": "game", "id": "level:easy"})
    assert game.level == "normal" and game.pending == {"level": "easy"}
    game.controller.intent({"action": "game", "id": "new"})
    assert game.level == "easy" and game.game.moves == [] or game.game.state.to_move == LEARNER


def test_the_daily_deal_is_the_same_for_everyone(tmp_path: Path) -> None:
    a = new_game(tmp_path / "a", mode="daily", seed=None)
    b = new_game(tmp_path / "b", mode="daily", seed=None)
    assert a.game.seed == b.game.seed and a.game.seed.startswith("daily/classic4/")
    assert a.game.state.snapshot() == b.game.state.snapshot()
    c = new_game(tmp_path / "c", seed=None)
    d = new_game(tmp_path / "d", seed=None)
    assert c.game.seed != d.game.seed


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_word_of_the_game_is_in_the_learners_language(tmp_path: Path, lang: str) -> None:
    game = new_game(tmp_path, lang=lang, level="easy", seed="words")
    learner_plays(game, random.Random(9), limit=60)
    panel = game.widget.game
    texts = [panel["title"], panel["prompt"], *(c["label"] for c in panel["controls"])]
    texts += [c["label"] for g in panel["groups"] for c in g["choices"]]
    texts += [line["text"] for line in game.widget.view["narration"]]
    english = get_translator("en")
    for text in texts:
        assert text and "{" not in text
    if lang != "en":
        assert panel["title"] != english.ui("game.full.title")


def test_play_game_never_raises(tmp_path: Path) -> None:
    widget = play_game("xx", data_dir=tmp_path)
    assert "xx" in widget.value  # the unknown-language message, in all four languages
    widget = play_game("en", players=3, data_dir=tmp_path)
    assert "2 or 4 players" in widget.value
    widget = play_game("ur", data_dir=tmp_path, pace="instant")
    assert widget.game["title"] == get_translator("ur").ui("game.full.title")


def test_a_finished_daily_deal_goes_on_the_leaderboard(tmp_path: Path) -> None:
    from canasta_teach.leaderboard import Leaderboard

    board = Leaderboard(f"sqlite:///{tmp_path / 'board.sqlite3'}")
    game = FullGame(get_translator("hi"), "hi", players=2, level="easy", mode="daily",
                    pace="instant", store=SaveStore(tmp_path), board=board)  # fmt: skip
    assert game.widget.game["form"] is None  # only a finished game may be recorded
    game.controller.intent({"action": "game", "id": "board", "values": {"name": "Ayesha"}})
    assert game.controller.message["kind"] == "refusal"
    learner_plays(game, random.Random(2))
    form = game.widget.game["form"]
    assert form is not None and form["id"] == "board"
    hi = get_translator("hi")
    # A bad name is refused in the learner's language, and nothing is written.
    game.controller.intent({"action": "game", "id": "board", "values": {"name": "   "}})
    assert game.controller.message["text"] == hi.ui("leaderboard.error.name_empty")
    assert game.day is not None and board.top(game.day, "classic2") == []
    game.controller.intent({"action": "game", "id": "board", "values": {"name": " अनुष्का "}})
    assert game.controller.message["text"] == hi.ui("game.full.board.recorded")
    [row] = board.top(game.day, "classic2")
    assert (row.name, row.score, row.level) == ("अनुष्का", game.game.totals[LEARNER % 2], "easy")
    rows = game.widget.game["tables"][1]["rows"]
    assert rows[0][1] == "अनुष्का"
    # Once only: the form is gone and a second entry is refused.
    assert game.widget.game["form"] is None
    game.controller.intent({"action": "game", "id": "board", "values": {"name": "again"}})
    assert len(board.top(game.day, "classic2")) == 1


def test_a_page_says_who_it_is_once(tmp_path: Path) -> None:
    game = new_game(tmp_path, seed="once")
    game.controller.intent({"action": "game", "id": "hello", "values": {"player": PLAYER}})
    other = "f" * 32
    game.controller.intent({"action": "game", "id": "hello", "values": {"player": other}})
    assert game.player == PLAYER and game.controller.message["kind"] == "refusal"
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{PLAYER}.json"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_settings_fold_away_while_playing_with_the_choices_in_one_line(
    tmp_path: Path, lang: str
) -> None:
    tr = get_translator(lang)
    game = new_game(tmp_path, lang=lang, players=2, level="easy", pace="fast", seed="fold")
    fold = game.widget.game["fold"]
    assert fold["label"] == tr.ui("game.full.settings") and fold["open"] is False
    assert game.widget.game["tables"][0]["fold"] is True  # the score sheet: folded too
    chosen = ("variant.classic", "players.two", "level.easy", "pace.fast", "level_label",
              "pace_label")  # fmt: skip
    for key in chosen:
        assert tr.ui(f"game.full.{key}") in fold["summary"]
    # A change waiting for the next game leaves the line saying the game being played.
    game.controller.intent({"action": "draw", "cards": []})
    game.controller.intent({"action": "game", "id": "level:hard"})
    assert tr.ui("game.full.level.easy") in game.widget.game["fold"]["summary"]
    assert game.widget.game["notice"] == tr.ui("game.full.pending")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_table_names_the_coachs_box_and_each_kind_of_word(tmp_path: Path, lang: str) -> None:
    """The page draws the panel's coach box with a sign and a word for its kind: the words
    come with the table's labels, in the learner's language."""
    tr = get_translator(lang)
    labels = new_game(tmp_path, lang=lang, seed="coach").widget.labels
    words = [labels[k] for k in ("coach", "coach_warning", "coach_note", "coach_review")]
    keys = ("label", "warning", "note", "review")
    assert words == [tr.ui(f"game.coach.{k}") for k in keys]
    assert len(set(words)) == 4 and all(words)


def test_daily_games_deal_the_public_seed_but_their_computers_are_not_seeded_from_it(
    tmp_path: Path,
) -> None:
    # Issue 21, F24: a script that knows only the public seed must not foresee the computers.
    from canasta_teach.bots import EasyBot, find_bot
    from canasta_teach.engine import CLASSIC4
    from canasta_teach.engine.game import daily_seed
    from canasta_teach.engine.view import player_view

    a = new_game(tmp_path / "a", mode="daily", seed=None, level="easy")
    b = new_game(tmp_path / "b", mode="daily", seed=None, level="easy")
    public = daily_seed(a.day, "classic4")
    assert a.game.seed == b.game.seed == public
    dealt = Game(CLASSIC4, public)
    for game in (a, b):  # the same deal for everyone: every hand and the stock
        replayed = Game.replay(CLASSIC4, public, list(game.game.moves))
        assert replayed.state.snapshot() == game.game.state.snapshot()
    for seat in (1, 2, 3):
        bots = [game.seats[seat].bot for game in (a, b)]
        scripted = find_bot("easy", seed=f"{public}/{seat}")  # what the seed alone gives
        assert all(isinstance(bot, EasyBot) for bot in [*bots, scripted])
        view = player_view(dealt.state, seat)
        draws = [bot.rng(view).next64() for bot in bots]  # type: ignore[union-attr]
        assert scripted.rng(view).next64() not in draws  # type: ignore[attr-defined]
        assert draws[0] != draws[1]  # and each daily game its own
    # A practice game still replays from its seed (Take back, tests).
    practice = new_game(tmp_path / "p", seed="again", level="easy")
    assert isinstance(practice.seats[1].bot, EasyBot)
    assert practice.seats[1].bot.seed == "again/1"


def test_one_daily_result_per_browser_and_no_look_alike_names(tmp_path: Path) -> None:
    # Issue 21, F24 and F29: "Daily deal" again, played to the end, cannot go on the board a
    # second time from the same browser; another browser cannot take a name that looks the same.
    from canasta_teach.leaderboard import Leaderboard

    board = Leaderboard(f"sqlite:///{tmp_path / 'board.sqlite3'}")
    ur = get_translator("ur")

    def finished_daily(player: str) -> FullGame:
        game = FullGame(ur, "ur", players=2, level="easy", mode="daily", pace="instant",
                        store=SaveStore(tmp_path / player), board=board)  # fmt: skip
        game.controller.intent({"action": "game", "id": "hello", "values": {"player": player}})
        learner_plays(game, random.Random(5))
        return game

    game = finished_daily(PLAYER)
    assert game.day is not None
    game.controller.intent({"action": "game", "id": "board", "values": {"name": "Ali"}})
    assert game.controller.message["text"] == ur.ui("game.full.board.recorded")
    game.start(mode="daily")
    learner_plays(game, random.Random(6))
    game.controller.intent({"action": "game", "id": "board", "values": {"name": "Bilal"}})
    refusal = ur.ui("leaderboard.error.already_recorded", day=game.day.isoformat())
    assert (game.controller.message["kind"], game.controller.message["text"]) == (
        "refusal",
        refusal,
    )
    other = finished_daily("f" * 32)
    for look_alike in ("A\u200dli", "\u0410li"):
        other.controller.intent({"action": "game", "id": "board", "values": {"name": look_alike}})
        assert other.controller.message["kind"] == "refusal"
        assert "{" not in other.controller.message["text"]
    assert other.controller.message["text"] == ur.ui(
        "leaderboard.error.name_confusable", name="\u0410li"
    )
    other.controller.intent({"action": "game", "id": "board", "values": {"name": "Bilal"}})
    assert other.controller.message["text"] == ur.ui("game.full.board.recorded")
    assert [r.name for r in board.top(game.day, "classic2", "easy")] in (
        ["Ali", "Bilal"],
        ["Bilal", "Ali"],
    )
    board.close()
