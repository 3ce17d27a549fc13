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


# ---------------------------------------------------------------------------- issue 8
# F6/F12: rule values the engine does not play; F8: absurd numbers; F9: seeds that are not
# text; F14: a save keeps the file's mode and writes through a symbolic link.


def _doc(**changes: object) -> dict[str, object]:
    doc: dict[str, object] = {"format": FORMAT, "version": VERSION, "seed": 7,
                              "rules": {"name": "classic4"}, "moves": ["draw"]}  # fmt: skip
    doc.update(changes)
    return doc


def _load_text(text: str) -> SaveFileError:
    with pytest.raises(SaveFileError) as info:
        game_from_bytes(text.encode("utf-8"))
    return info.value


@pytest.mark.parametrize(
    ("option", "value", "low", "high"),
    [
        ("max_wilds", 4, 0, 3),
        ("max_wilds", 5, 0, 3),
        ("canasta_size", 3, 7, 7),
        ("canasta_size", 8, 7, 7),
        ("hand_size", 21, 1, 20),
        ("hand_size", 0, 1, 20),
        ("draw_count", 0, 1, 108),
        ("canastas_to_go_out", 12, 0, 11),
        ("game_target", 10**12, 1, 999_999_999),
        ("game_target", 10**4000, 1, 999_999_999),
    ],
)  # fmt: skip
def test_rule_values_the_engine_does_not_play_are_refused(
    option: str, value: int, low: int, high: int
) -> None:
    err = _load_text(json.dumps(_doc(rules={"name": "classic4", option: value})))
    assert err.code == "bad_rule_value", str(err)
    assert (err.params["option"], err.params["minimum"], err.params["maximum"]) == (
        option, low, high)  # fmt: skip
    assert len(str(err)) < 200


def test_rule_values_at_the_ends_of_their_ranges_load() -> None:
    for rules in ({"name": "classic4", "max_wilds": 0, "hand_size": 20, "draw_count": 108,
                   "canastas_to_go_out": 11, "game_target": 999_999_999, "canasta_size": 7},
                  {"name": "classic2", "max_wilds": 3, "hand_size": 41},
                  {"name": "classic4", "players": 2, "hand_size": 41}):  # fmt: skip
        game = game_from_bytes(json.dumps(_doc(rules=rules)).encode())
        assert all(getattr(game.rules, k) == v for k, v in rules.items() if k != "name")


def test_a_huge_integer_is_the_saves_clear_error_not_a_crash(tmp_path: Path) -> None:
    # F8: json.loads raises a plain ValueError for more than 4,300 digits.
    for field in ("seed", "version"):
        text = json.dumps(_doc()).replace(f'"{field}": {7 if field == "seed" else 1}',
                                          f'"{field}": {"1" * 5000}')  # fmt: skip
        assert "1" * 5000 in text
        err = _load_text(text)
        assert err.code == "number_too_long" and err.params == {"path": "<data>"}
    path = tmp_path / "huge.json"
    path.write_text('{"format":"canasta-teach/game","version":1,"rules":{"name":"classic4"},'
                    f'"seed":{"1" * 5000},"moves":[]}}', encoding="utf-8")  # fmt: skip
    with pytest.raises(SaveFileError) as info:
        load_game(path)
    assert info.value.code == "number_too_long" and info.value.params == {"path": str(path)}


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"seed": 10**20}, "bad_field"),
        ({"seed": -(10**20)}, "bad_field"),
        ({"seed": 10**4000}, "bad_field"),
        ({"version": 10**9}, "bad_version"),
        ({"version": 10**4000}, "bad_version"),
    ],
)
def test_long_numbers_below_pythons_limit_are_refused_too(changes: dict[str, int],
                                                          code: str) -> None:  # fmt: skip
    assert _load_text(json.dumps(_doc(**changes))).code == code
    assert game_from_bytes(json.dumps(_doc(seed=10**20 - 1)).encode()).seed == 10**20 - 1


@pytest.mark.parametrize("seed", ["\\ud800", "\\udcff", "a\\udfffb", "\\udbff"])
def test_a_seed_that_is_not_text_is_refused(seed: str) -> None:
    # F9: a lone surrogate crashed rng.seed_to_int (UnicodeEncodeError).
    text = json.dumps(_doc(seed="SEED")).replace('"SEED"', f'"{seed}"')
    err = _load_text(text)
    assert (err.code, err.params["field"]) == ("bad_field", "seed")
    # A pair of surrogates is one character, and a fine seed.
    paired = json.dumps(_doc(seed="SEED")).replace('"SEED"', '"\\ud83c\\udccf"')
    assert game_from_bytes(paired.encode()).seed == "\U0001f0cf"


def test_a_game_whose_seed_is_not_text_is_not_saved(tmp_path: Path) -> None:
    with pytest.raises(SaveFileError) as info:
        save_game(Game(CLASSIC4, "\ud800"), tmp_path / "game.json")
    assert info.value.code == "write_failed"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o600, 0o664, 0o444])
def test_saving_keeps_the_files_permissions(tmp_path: Path, mode: int) -> None:
    # F14: mkstemp's 0600 replaced the file's own mode.
    path = tmp_path / "game.json"
    save_game(played_game(1, CLASSIC2, 5), path)
    path.chmod(mode)
    save_game(played_game(2, CLASSIC2, 9), path)
    assert path.stat().st_mode & 0o7777 == mode
    assert load_game(path).record() == played_game(2, CLASSIC2, 9).record()


def test_a_new_save_gets_the_mode_open_would_give(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        save_game(played_game(1, CLASSIC2, 5), tmp_path / "new.json")
    finally:
        os.umask(old)
    assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o640


def test_saving_writes_through_a_symbolic_link(tmp_path: Path) -> None:
    # F14: the link was replaced by a regular file.
    (tmp_path / "saves").mkdir()
    real = tmp_path / "saves" / "game.json"
    save_game(played_game(1, CLASSIC2, 5), real)
    real.chmod(0o640)
    link = tmp_path / "current.json"
    link.symlink_to(Path("saves") / "game.json")  # relative, as people make them
    save_game(played_game(2, CLASSIC2, 9), link)
    assert link.is_symlink() and os.readlink(link) == str(Path("saves") / "game.json")
    assert load_game(real).record() == played_game(2, CLASSIC2, 9).record()
    assert real.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in (tmp_path / "saves").iterdir()) == ["game.json"]
    # A chain of links, and a dangling link: the file at the end is written.
    chain = tmp_path / "chain.json"
    chain.symlink_to(link)
    save_game(played_game(3, CLASSIC2, 7), chain)
    assert chain.is_symlink() and link.is_symlink()
    assert load_game(real).record() == played_game(3, CLASSIC2, 7).record()
    dangling = tmp_path / "later.json"
    dangling.symlink_to(tmp_path / "saves" / "later.json")
    save_game(played_game(4, CLASSIC2, 3), dangling)
    assert dangling.is_symlink() and (tmp_path / "saves" / "later.json").is_file()


def test_saving_over_a_hard_link_gives_the_path_a_new_file(tmp_path: Path) -> None:
    # Documented (docs/cli.md): the save is atomic, so the other name keeps the old game.
    path = tmp_path / "game.json"
    save_game(played_game(1, CLASSIC2, 5), path)
    other = tmp_path / "backup.json"
    os.link(path, other)
    before = other.read_bytes()
    save_game(played_game(2, CLASSIC2, 9), path)
    assert other.read_bytes() == before
    assert load_game(path).record() == played_game(2, CLASSIC2, 9).record()
