"""Saved games: round trips, atomic saves, and loads that refuse bad files without
touching them."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canasta_teach.engine import CLASSIC2, CLASSIC4
from canasta_teach.engine.game import Game
from canasta_teach.engine.moves import Discard, Draw
from canasta_teach.engine.rules import OPTION_NAMES, RuleSet
from canasta_teach.engine.savefile import (
    FORMAT,
    VERSION,
    SaveFileError,
    game_from_bytes,
    load_game,
    save_game,
)


def played_game(seed: int | str, rules: RuleSet, moves: int, rng_seed: int = 0) -> Game:
    """A game after ``moves`` random legal moves (favouring melds, so hands end)."""
    rng = random.Random(rng_seed)
    game = Game(rules, seed)
    for _ in range(moves):
        if game.is_over:
            break
        legal = game.state.legal_moves()
        active = [m for m in legal if not isinstance(m, Discard | Draw)]
        move = rng.choice(active) if active and rng.random() < 0.7 else rng.choice(legal)
        assert game.apply(move).legal
    return game


@pytest.fixture(scope="module")
def saved_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("save") / "game.json"
    save_game(played_game(7, CLASSIC4, 120), path)
    return path.read_bytes()


@settings(max_examples=15)
@given(
    seed=st.one_of(st.integers(0, 2**63), st.text(max_size=12)),
    two_players=st.booleans(),
    options=st.fixed_dictionaries({name: st.booleans() for name in OPTION_NAMES}),
    moves=st.integers(0, 400),
    rng_seed=st.integers(0, 1000),
)
def test_save_then_load_gives_the_same_game(
    tmp_path_factory: pytest.TempPathFactory, seed: int | str, two_players: bool,
    options: dict[str, bool], moves: int, rng_seed: int,
) -> None:  # fmt: skip
    rules = (CLASSIC2 if two_players else CLASSIC4).with_options(**options)
    game = played_game(seed, rules, moves, rng_seed)
    path = tmp_path_factory.mktemp("rt") / "game.json"
    save_game(game, path)
    loaded = load_game(path)
    assert loaded.state == game.state
    assert loaded.record() == game.record()
    assert loaded.totals == game.totals and loaded.winner == game.winner
    assert [h.to_dict() for h in loaded.hands] == [h.to_dict() for h in game.hands]


def test_the_file_is_the_documented_json(saved_bytes: bytes) -> None:
    doc = json.loads(saved_bytes)
    assert set(doc) == {"format", "version", "rules", "seed", "moves", "saved_at"}
    assert (doc["format"], doc["version"], doc["seed"]) == (FORMAT, VERSION, 7)
    assert doc["rules"]["name"] == "classic4" and doc["rules"]["ask_partner"] is True
    assert all(isinstance(m, str) for m in doc["moves"]) and doc["moves"]


def test_saving_over_a_file_replaces_it_whole(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    save_game(played_game(1, CLASSIC2, 10), path)
    save_game(played_game(2, CLASSIC2, 30), path)
    assert load_game(path).record() == played_game(2, CLASSIC2, 30).record()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]  # no temp file left


def test_a_failed_save_leaves_the_old_file_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.json"
    save_game(played_game(1, CLASSIC2, 10), path)
    before = path.read_bytes()

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(SaveFileError) as info:
        save_game(played_game(2, CLASSIC2, 30), path)
    assert info.value.code == "write_failed"
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


def test_saving_into_a_missing_folder_is_a_save_error(tmp_path: Path) -> None:
    with pytest.raises(SaveFileError) as info:
        save_game(played_game(1, CLASSIC2, 3), tmp_path / "nowhere" / "game.json")
    assert info.value.code == "write_failed"


def _tampered(saved: bytes, change: str) -> bytes:
    doc = json.loads(saved)
    if change == "another_app":
        return json.dumps({"name": "my notes", "items": [1, 2, 3]}).encode()
    if change == "json_list":
        return b"[1, 2, 3]"
    if change == "newer_version":
        doc["version"] = VERSION + 1
    elif change == "version_text":
        doc["version"] = "1"
    elif change == "unknown_rule_option":
        doc["rules"]["jokers_are_tigers"] = True
    elif change == "unknown_rule_set":
        doc["rules"]["name"] = "samba"
    elif change == "rule_wrong_type":
        doc["rules"]["ask_partner"] = "yes"
    elif change == "players_three":
        doc["rules"]["players"] = 3
    elif change == "seed_float":
        doc["seed"] = 1.5
    elif change == "seed_bool":
        doc["seed"] = True
    elif change == "moves_not_list":
        doc["moves"] = "draw"
    elif change == "move_not_text":
        doc["moves"][3] = 7
    elif change == "unreadable_move":
        doc["moves"][4] = "fly away"
    elif change == "refused_move":
        doc["moves"][5] = "meld A A A A A A A A A"
    elif change == "saved_at":
        doc["saved_at"] = "yesterday"
    return json.dumps(doc).encode()


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ("another_app", "not_a_save"),
        ("json_list", "not_a_save"),
        ("newer_version", "newer_version"),
        ("version_text", "bad_version"),
        ("unknown_rule_option", "unknown_rule_option"),
        ("unknown_rule_set", "unknown_rule"),
        ("rule_wrong_type", "bad_rule_value"),
        ("players_three", "bad_rule_value"),
        ("seed_float", "bad_field"),
        ("seed_bool", "bad_field"),
        ("moves_not_list", "bad_field"),
        ("move_not_text", "bad_field"),
        ("unreadable_move", "bad_move"),
        ("refused_move", "move_refused"),
        ("saved_at", "bad_field"),
    ],
)
def test_bad_files_are_refused_and_left_alone(
    tmp_path: Path, saved_bytes: bytes, change: str, code: str
) -> None:
    data = _tampered(saved_bytes, change)
    path = tmp_path / "game.json"
    path.write_bytes(data)
    stamp = path.stat().st_mtime_ns
    with pytest.raises(SaveFileError) as info:
        load_game(path)
    assert info.value.code == code, str(info.value)
    assert path.read_bytes() == data and path.stat().st_mtime_ns == stamp
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


def test_a_refused_move_names_its_number_and_the_reason(saved_bytes: bytes) -> None:
    with pytest.raises(SaveFileError) as info:
        game_from_bytes(_tampered(saved_bytes, "refused_move"))
    err = info.value
    assert err.params["number"] == 6 and err.params["move"] == "meld A A A A A A A A A"
    assert err.params["reason"]["rule"].startswith("C-")
    with pytest.raises(SaveFileError) as info:
        game_from_bytes(_tampered(saved_bytes, "unreadable_move"))
    assert info.value.params["number"] == 5
    assert info.value.params["error"]["code"] == "unknown_verb"


@settings(max_examples=40)
@given(data=st.data())
def test_truncated_or_random_bytes_are_refused_unchanged(
    tmp_path_factory: pytest.TempPathFactory, saved_bytes: bytes, data: st.DataObject
) -> None:
    kind = data.draw(st.sampled_from(["truncated", "random", "flipped"]))
    if kind == "truncated":
        blob = saved_bytes[: data.draw(st.integers(0, len(saved_bytes) - 2))]
    elif kind == "random":
        blob = data.draw(st.binary(max_size=300))
    else:
        i = data.draw(st.integers(0, len(saved_bytes) - 1))
        blob = saved_bytes[:i] + bytes([saved_bytes[i] ^ 0xFF]) + saved_bytes[i + 1 :]
    path = tmp_path_factory.mktemp("bad") / "game.json"
    path.write_bytes(blob)
    try:
        game = load_game(path)
    except SaveFileError as err:
        assert err.code in {
            "not_json", "not_a_save", "bad_version", "newer_version", "bad_field",
            "unknown_rule", "unknown_rule_option", "bad_rule_value", "bad_move",
            "move_refused",
        }  # fmt: skip
    else:  # a flip inside a string can leave a valid game (e.g. another seed's digits)
        assert game.state.card_total() == 108
    assert path.read_bytes() == blob


def test_a_missing_file_is_unreadable(tmp_path: Path) -> None:
    with pytest.raises(SaveFileError) as info:
        load_game(tmp_path / "absent.json")
    assert info.value.code == "unreadable"
