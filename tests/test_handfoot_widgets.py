"""Hand and Foot at the table and in the full game: piles by kind, feet, the round, Set aside
and Lay down, what each browser is sent (never a hidden card), whole games against the
computer, saving, the daily deal and its leaderboard."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from canasta_teach.engine.determinize import determinize
from canasta_teach.engine.game import Game
from canasta_teach.engine.handfoot import HandFootState
from canasta_teach.engine.notation import parse_position
from canasta_teach.engine.rng import SplitMix64
from canasta_teach.i18n import LANGUAGES, get_translator
from canasta_teach.widgets.fullgame import LEARNER, FullGame, SaveStore
from canasta_teach.widgets.table import TableController

PLAYER = "0123456789abcdef0123456789abcdef"

FIRST_MELD = """rules: handfoot
round: 2
turn: S meld
S: K K K Q Q Q JK 9 8 7 6 5 4
W: ?13
N: ?13
E: ?13
stock: rest
"""

#: Hand and Foot's buttons under the seed's rules: Lay down, no Go out planner, and no
#: question to the partner (H-OUT-3: the partner is not asked unless ask_partner=yes).
HANDFOOT_BUTTONS = ("draw", "take", "meld", "add", "lay_down", "discard")


def table(text: str = FIRST_MELD, lang: str = "en") -> TableController:
    return TableController(parse_position(text), get_translator(lang), lang)


@pytest.mark.rule("H-MIN-1")
def test_set_aside_then_lay_down_by_clicking() -> None:
    ctl = table()
    tr = get_translator("en")
    view = ctl.widget.view
    assert view["actions"] == list(HANDFOOT_BUTTONS)
    assert view["button_text"] == {"meld": tr.ui("button.set_aside")}
    assert view["round_text"] == tr.ui("table.hf.round", number="2", rounds="4", points="90")
    assert not view["enabled"]["lay_down"]
    ctl.intent({"action": "meld", "cards": ["K", "K", "K", "JK"]})  # 80: not enough for 90
    assert ctl.message["kind"] == "info" and "80" in ctl.message["text"]
    assert not ctl.widget.view["enabled"]["lay_down"]
    ctl.intent({"action": "lay_down"})
    assert ctl.message["kind"] == "refusal" and ctl.message["rule"] == "H-MIN-1"
    ctl.intent({"action": "meld", "cards": ["Q", "Q", "Q"]})
    assert ctl.widget.view["enabled"]["lay_down"]
    ctl.intent({"action": "lay_down"})
    assert ctl.message == {**ctl.message, "kind": "success", "text": tr.ui("msg.laid_down")}
    state = ctl.state
    assert state.down[0] and not state.staged
    assert ctl.widget.view["button_text"] == {}  # Meld is Meld again once the team is down


@pytest.mark.rule("H-MELD-3")
def test_piles_are_drawn_with_their_kind_in_words() -> None:
    ctl = table(FIRST_MELD.replace("turn: S meld", "turn: S meld\nNS piles: 8 8 8 8 8 2 2 | "
                                   "A A A A A A A\nNS melds: 10 10 10"))  # fmt: skip
    us = ctl.widget.view["teams"][0]
    kinds = sorted(p["kind"] for p in us["piles"])
    assert kinds == ["clean", "dirty"]
    assert {p["kind_text"] for p in us["piles"]} == {"Clean", "Dirty"}
    assert "1 clean, 1 dirty, 0 wild" in us["piles_text"]
    assert us["melds"][0]["rank"] == "10"
    # The learner adds to a meld by tapping it: a seventh card makes a pile.
    ctl.intent({"action": "add", "cards": ["JK"], "rank": "10"})
    assert ctl.message["kind"] == "success"


@pytest.mark.rule("H-DEAL-1")
def test_the_browser_is_never_sent_a_hidden_card() -> None:
    """What the widget sends depends only on what South may see: two worlds that differ in
    every hidden card (the other hands, every foot, South's own too, the stock's order) give
    the same message, byte for byte."""
    state = HandFootState.deal("no-leak")
    rng = random.Random(5)
    for _ in range(60):
        moves = state.legal_moves()
        state.apply(moves[rng.randrange(len(moves))])
    tr = get_translator("en")
    sent = []
    for world in (
        state,
        determinize(state, 0, SplitMix64(1)),
        determinize(state, 0, SplitMix64(2)),
    ):
        ctl = TableController(world, tr, "en")
        sent.append(json.dumps(ctl.widget.view, sort_keys=True))
    assert sent[0] == sent[1] == sent[2]
    assert determinize(state, 0, SplitMix64(1)).feet[0] != state.feet[0]


def test_refusals_name_hand_and_foot_rules_in_every_language() -> None:
    for lang in LANGUAGES:
        ctl = table(lang=lang)
        ctl.intent({"action": "meld", "cards": ["K", "K", "JK", "Q"]})
        assert ctl.message["kind"] == "refusal" and ctl.message["rule"] == "H-MELD-1"
        assert ctl.message["rule_title"] == get_translator(lang).rule_title("H-MELD-1")
        assert "{" not in ctl.message["text"]


def new_game(tmp_path: Path, lang: str = "en", **options: object) -> FullGame:
    options.setdefault("pace", "instant")
    options.setdefault("seed", "hf-test")
    options.setdefault("variant", "handfoot")
    return FullGame(get_translator(lang), lang, store=SaveStore(tmp_path), **options)  # type: ignore[arg-type]


def learner_plays(game: FullGame, rng: random.Random, limit: int = 4000) -> int:
    moves = 0
    while not game.game.is_over and moves < limit:
        if game.awaiting_next:
            game.controller.intent({"action": "game", "id": "next_hand"})
            continue
        options = game.game.state.legal_moves()
        game.controller.play(options[rng.randrange(len(options))])
        moves += 1
    return moves


@pytest.mark.rule("H-GAME-1")
def test_a_whole_hand_and_foot_game_is_four_rounds(tmp_path: Path) -> None:
    game = new_game(tmp_path, level="easy")
    tr = get_translator("en")
    panel = game.widget.game
    assert panel["title"] == tr.ui("game.full.hf.title")
    assert panel["groups"][0]["id"] == "variant"
    assert "players" not in [g["id"] for g in panel["groups"]]  # four players only (H-DECK-1)
    learner_plays(game, random.Random(7))
    assert game.game.is_over and len(game.game.hands) == 4
    panel, view = game.widget.game, game.widget.view
    assert len(panel["tables"][0]["rows"]) == 4
    assert panel["tables"][0]["head"][0] == tr.ui("game.full.hf.sheet_round")
    lines = [line for team in panel["sheet"]["teams"] for line in team["lines"]]
    assert lines and all(line["rule"].startswith("H-") and line["why"] for line in lines)
    assert all("{" not in line["why"] for line in lines)
    texts = [line["text"] for line in view["narration"]]
    assert texts and all(text and "{" not in text for text in texts)
    # Hand and Foot has a save of its own (Classic keeps the old name).
    saved = json.loads((tmp_path / "this-kernel.handfoot.json").read_text())
    replayed = Game.replay(game.game.rules, saved["game"]["seed"], saved["game"]["moves"])
    assert replayed.totals == game.game.totals
    assert not (tmp_path / "this-kernel.json").exists()


def test_switching_the_game_and_resuming_it(tmp_path: Path) -> None:
    game = new_game(tmp_path, variant="classic", seed="switch")
    assert "lay_down" not in game.widget.view["actions"]
    game.controller.intent({"action": "game", "id": "variant:handfoot"})
    assert game.variant == "handfoot" and isinstance(game.game.state, HandFootState)
    assert game.widget.view["actions"] == list(HANDFOOT_BUTTONS)
    game.controller.intent({"action": "game", "id": "hello", "values": {"player": PLAYER}})
    rng = random.Random(3)
    for _ in range(10):
        options = game.game.state.legal_moves()
        game.controller.play(options[rng.randrange(len(options))])
    # A Hand and Foot page (lesson 12) resumes the Hand and Foot game...
    again = new_game(tmp_path, variant="handfoot", seed="other")
    again.controller.intent({"action": "game", "id": "hello", "values": {"player": PLAYER}})
    assert again.variant == "handfoot" and again.game.moves == game.game.moves
    assert again.widget.view["round_text"] == game.widget.view["round_text"]
    # ...and a Classic page (lesson 11) opens on Classic, the Hand and Foot game kept.
    classic = new_game(tmp_path, variant="classic", seed="other")
    classic.controller.intent({"action": "game", "id": "hello", "values": {"player": PLAYER}})
    assert classic.variant == "classic" and not isinstance(classic.game.state, HandFootState)
    assert json.loads((tmp_path / f"{PLAYER}.handfoot.json").read_text())["game"]["moves"] == (
        game.game.moves
    )


def test_hand_and_foot_hint_and_daily_leaderboard(tmp_path: Path) -> None:
    from canasta_teach.leaderboard import Leaderboard

    board = Leaderboard(f"sqlite:///{tmp_path / 'board.sqlite3'}")
    game = FullGame(get_translator("te"), "te", level="easy", mode="daily", pace="instant",
                    store=SaveStore(tmp_path), board=board, variant="handfoot")  # fmt: skip
    assert game.game.seed.startswith("daily/handfoot/")
    game.controller.intent({"action": "game", "id": "hint"})
    assert game.hint and "{" not in game.hint
    learner_plays(game, random.Random(2))
    game.controller.intent({"action": "game", "id": "board", "values": {"name": "Ravi"}})
    assert game.day is not None
    [row] = board.top(game.day, "handfoot")
    assert (row.name, row.score) == ("Ravi", game.game.totals[LEARNER % 2])
    assert board.top(game.day, "classic4") == []
