"""The room's authority (``canasta_teach.rooms.Rooms``) on the default SQLite store: seats and
tokens, the lobby, turn order, refusals that change nothing, computer players in empty
seats, seats kept and released, two players acting at once, and random play that never
corrupts a room (every recorded move replays legally, 108 cards always)."""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canasta_teach.engine import AskPartner, Discard, Draw, Kind
from canasta_teach.engine.game import Game
from canasta_teach.engine.notation import parse_move
from canasta_teach.engine.rules import preset
from canasta_teach.engine.state import Phase
from canasta_teach.rooms import (
    AWAY_AFTER_S,
    RoomError,
    Rooms,
    SqliteRoomStore,
    normalise_code,
    open_store,
    seat_of,
    shown_code,
)
from canasta_teach.rooms.room import CODE_ALPHABET, CODE_LENGTH, token_hash


@pytest.fixture
def rooms(tmp_path: Path) -> Rooms:
    return Rooms(SqliteRoomStore(tmp_path / "rooms.sqlite3"))


def code_error(call: Any, *args: Any) -> str:
    with pytest.raises(RoomError) as refused:
        call(*args)
    return refused.value.code


def test_codes_are_long_unambiguous_and_read_back_in_any_form(rooms: Rooms) -> None:
    codes = {rooms.create("en")[0] for _ in range(30)}
    assert len(codes) == 30
    for code in codes:
        assert len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)
        assert not set(code) & set("01OIL")
        spoken = shown_code(code)
        assert normalise_code(spoken) == code
        assert normalise_code(f" {spoken.lower()} ") == code
    for bad in ("", "ABC", "ABCDE-FGHIJ", "0" * 10, 42, None, "A" * 200):
        assert code_error(normalise_code, bad) == "bad_code"


def test_tokens_are_never_stored_and_only_open_their_own_seat(rooms: Rooms) -> None:
    code, host = rooms.create("ur", players=2)
    seat, friend = rooms.join(code, None, "hi")
    assert seat == 1 and friend is not None and friend != host and len(friend) >= 40
    text = json.dumps(rooms.read(code).doc)
    assert host not in text and friend not in text
    assert token_hash(host) in text
    doc = rooms.read(code).doc
    assert seat_of(doc, host) == 0 and seat_of(doc, friend) == 1
    for guess in (None, "", "x" * 43, host[:-1] + ("A" if host[-1] != "A" else "B"), 5):
        assert seat_of(doc, guess) is None


def test_a_third_visitor_to_a_full_two_player_room_is_told_so(rooms: Rooms) -> None:
    code, host = rooms.create("en", players=2)
    rooms.join(code, None, "ur")
    assert code_error(rooms.join, code, None, "te") == "full"
    # The host's own link, opened again, is a return, not a visitor.
    assert rooms.join(code, host, "en") == (0, None)


def test_the_same_token_returns_to_the_same_seat(rooms: Rooms) -> None:
    code, _host = rooms.create("en")
    seat, token = rooms.join(code, None, "hi")
    assert rooms.join(code, token, "hi") == (seat, None)
    # A token from another room (or a stale one) gets a new seat, not someone else's.
    other, other_host = rooms.create("en")
    new_seat, new_token = rooms.join(code, other_host, "te")
    assert new_seat != seat and new_token is not None


def test_only_the_host_configures_and_starts(rooms: Rooms) -> None:
    code, host = rooms.create("en")
    _seat, friend = rooms.join(code, None, "ur")
    assert code_error(rooms.configure, code, friend, "level", "hard") == "not_host"
    assert code_error(rooms.start, code, friend) == "not_host"
    assert code_error(rooms.start, code, "not-a-token-at-all-xxxxxxxxx") == "bad_token"
    rooms.configure(code, host, "level", "easy")
    rooms.configure(code, host, "keep_minutes", 2)
    # Who partners whom: the friend (North, the partner) moves to East.
    rooms.configure(code, host, "seat", (2, 3))
    doc = rooms.read(code).doc
    assert doc["level"] == "easy" and doc["keep_minutes"] == 2
    assert seat_of(doc, friend) == 3 and doc["seats"][2]["kind"] == "open"
    rooms.start(code, host)
    doc = rooms.read(code).doc
    assert [s["kind"] for s in doc["seats"]] == ["human", "bot", "bot", "human"]
    assert doc["game"]["rules"] == "classic4"
    assert code_error(rooms.configure, code, host, "level", "hard") == "not_now"


def test_table_size_and_variant_keep_the_people_seated(rooms: Rooms) -> None:
    code, host = rooms.create("en")
    rooms.join(code, None, "hi")  # North
    rooms.configure(code, host, "players", 2)
    doc = rooms.read(code).doc
    assert doc["players"] == 2 and [s["kind"] for s in doc["seats"][:2]] == ["human", "human"]
    rooms.configure(code, host, "variant", "handfoot")
    doc = rooms.read(code).doc
    assert doc["players"] == 4 and doc["seats"][2]["kind"] == "human"  # the partner again
    assert code_error(rooms.configure, code, host, "players", 2) == "too_many_people"
    rooms.join(code, None, "te")
    rooms.join(code, None, "ur")
    assert code_error(rooms.join, code, None, "en") == "full"


def _to_move_token(rooms: Rooms, code: str, tokens: dict[int, str]) -> tuple[Game, str | None]:
    game = rooms.game(rooms.read(code).doc)
    assert game is not None
    return game, tokens.get(game.state.to_move)


def test_turn_order_and_refusals_change_nothing(rooms: Rooms) -> None:
    code, host = rooms.create("en", players=2)
    _seat, friend = rooms.join(code, None, "hi")
    assert friend is not None
    tokens = {0: host, 1: friend}
    assert code_error(rooms.submit, code, host, Draw()) == "not_now"  # not started
    rooms.start(code, host)
    game, mover = _to_move_token(rooms, code, tokens)
    waiting = tokens[1 - game.state.to_move]
    before = rooms.read(code)
    assert code_error(rooms.submit, code, waiting, Draw()) == "not_your_turn"
    # An illegal move: the engine's reason, and the room exactly as it was.
    held = [Kind(k) for k, n in enumerate(game.state.hands[game.state.to_move]) if n]
    verdict = rooms.submit(code, mover, Discard(held[0]))  # before drawing: refused
    assert not verdict.legal and verdict.reason is not None and verdict.reason.rule
    after = rooms.read(code)
    assert (after.version, after.doc) == (before.version, before.doc)
    assert rooms.submit(code, mover, Draw()).legal
    assert rooms.read(code).version == before.version + 1


def test_computer_players_fill_the_empty_seats_and_move_at_once(rooms: Rooms) -> None:
    code, host = rooms.create("en", level="easy")
    _seat, partner = rooms.join(code, None, "ur")  # North; West and East are computers
    assert partner is not None
    rooms.start(code, host)
    tokens = {0: host, 2: partner}
    for _ in range(40):
        game, mover = _to_move_token(rooms, code, tokens)
        doc = rooms.read(code).doc
        if doc["game"]["awaiting_next"] or doc["status"] != "playing":
            break
        # After every human move, the computers have moved: a person is to move.
        assert mover is not None, game.state.to_move
        state = game.state
        if state.phase is Phase.ANSWER:
            move: Any = state.legal_moves()[0]
        elif state.phase is Phase.DRAW:
            move = Draw()
        else:
            first = next(k for k, n in enumerate(state.hands[state.to_move]) if n)
            move = Discard(Kind(first))
            if not state.check(move).legal:
                move = state.legal_moves()[-1]
        assert rooms.submit(code, mover, move).legal
    doc = rooms.read(code).doc
    replay = Game(preset("classic4"), doc["game"]["seed"])
    movers = set()
    for text in doc["game"]["moves"]:
        movers.add(replay.state.to_move)
        assert replay.apply(parse_move(text)).legal
    assert movers == {0, 1, 2, 3}


def test_a_human_partner_is_asked_and_answers(rooms: Rooms) -> None:
    """C-ASK-1 between two people: the question waits for the partner's own answer."""
    for attempt in range(30):
        code, host = rooms.create("en", level="easy")
        _seat, partner = rooms.join(code, None, "hi")
        assert partner is not None
        rooms.start(code, host)
        tokens = {0: host, 2: partner}
        rng = random.Random(attempt)
        for _ in range(600):
            doc = rooms.read(code).doc
            if doc["status"] != "playing" or doc["game"]["awaiting_next"]:
                break
            game, mover = _to_move_token(rooms, code, tokens)
            assert mover is not None
            legal = game.state.legal_moves()
            asks = [m for m in legal if isinstance(m, AskPartner)]
            if asks:
                asker = game.state.to_move
                assert rooms.submit(code, mover, asks[0]).legal
                game, answerer = _to_move_token(rooms, code, tokens)
                assert game.state.phase is Phase.ANSWER
                assert game.state.to_move == (asker + 2) % 4 and answerer is not None
                # The asker cannot answer for the partner.
                assert code_error(rooms.submit, code, mover, game.state.legal_moves()[0]) \
                    == "not_your_turn"  # fmt: skip
                assert rooms.submit(code, answerer, game.state.legal_moves()[0]).legal
                game, back = _to_move_token(rooms, code, tokens)
                assert back == mover and game.state.phase is not Phase.ANSWER
                return
            # Meld what can be melded (to reach a position where going out is possible).
            melds = [m for m in legal if type(m).__name__ in ("Meld", "Add")]
            pick = melds[0] if melds else legal[rng.randrange(len(legal))]
            assert rooms.submit(code, mover, pick).legal
    pytest.fail("no position with a question to the partner in 30 games")


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_two_players_acting_at_once_cannot_corrupt_the_room(
    tmp_path: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    """The same seat's move sent by four kernels at the same instant (each with its own
    connection to the store): it is played once, on either store."""
    url = (
        f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
        if kind == "sqlite"
        else request.getfixturevalue("redis_url")
    )
    rooms = Rooms(open_store(url))
    for _ in range(5):
        code, host = rooms.create("en", players=2)
        _s, friend = rooms.join(code, None, "te")
        rooms.start(code, host)
        game, mover = _to_move_token(rooms, code, {0: host, 1: friend or ""})
        outcomes: list[Any] = []
        barrier = threading.Barrier(4)

        def act(
            mover: str = mover or "",
            code: str = code,
            barrier: threading.Barrier = barrier,
            outcomes: list[Any] = outcomes,
        ) -> None:
            mine = Rooms(open_store(url))  # its own connection, as another kernel
            barrier.wait()
            try:
                outcomes.append(mine.submit(code, mover, Draw()).legal)
            except RoomError as error:
                outcomes.append(error.code)

        workers = [threading.Thread(target=act) for _ in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert outcomes.count(True) == 1, outcomes
        assert all(o is True or o is False or o == "not_your_turn" for o in outcomes)
        doc = rooms.read(code).doc
        assert doc["game"]["moves"] == ["draw"] or doc["game"]["moves"][0] == "draw"
        assert Game.replay(preset("classic2"), doc["game"]["seed"], doc["game"]["moves"])


def test_an_away_seat_is_kept_then_given_to_the_computer(rooms: Rooms) -> None:
    code, host = rooms.create("en", players=2, keep_minutes=2)
    _s, friend = rooms.join(code, None, "hi")
    rooms.start(code, host)
    store = rooms.store
    now = time.time()
    # The friend's browser went quiet a minute ago: away, seat still kept.
    store.touch(code, 1, now=now - 60)
    rooms.heartbeat(code, 0)
    snap = rooms.read(code)
    assert snap.away(1) and snap.doc["seats"][1]["kind"] == "human"
    assert code_error(rooms.stand_in, code, friend, 1) == "not_host"
    assert code_error(rooms.stand_in, code, host, 0) == "not_away"
    rooms.stand_in(code, host, 1)
    game, _ = _to_move_token(rooms, code, {})
    assert game.state.to_move == 0 or rooms.read(code).doc["game"]["awaiting_next"]
    # The friend returns: their seat, their own moves again.
    assert rooms.join(code, friend, "hi") == (1, None)
    assert not rooms.read(code).doc["seats"][1].get("stand_in")
    # Away longer than the room keeps a seat: released to the computer; the old token is void.
    store.touch(code, 1, now=now - 3 * 60)
    rooms.heartbeat(code, 0)
    doc = rooms.read(code).doc
    assert doc["seats"][1]["kind"] == "released" and seat_of(doc, friend) is None
    assert code_error(rooms.submit, code, friend, Draw()) == "bad_token"
    # The friend coming back gets that seat back with the same token (F31) ...
    assert rooms.join(code, friend, "hi") == (1, None)
    assert seat_of(rooms.read(code).doc, friend) == 1
    # ... and had they not, someone opening the link would take the released seat over.
    store.touch(code, 1, now=now - 3 * 60)
    rooms.heartbeat(code, 0)
    seat, token = rooms.join(code, None, "hi")
    assert seat == 1 and token is not None
    assert AWAY_AFTER_S < 60


def test_expired_and_unknown_rooms_are_told_apart_from_bad_codes(tmp_path: Path) -> None:
    rooms = Rooms(SqliteRoomStore(tmp_path / "r.sqlite3", ttl_s=0.2))
    code, host = rooms.create("en")
    time.sleep(0.4)
    assert code_error(rooms.join, code, host, "en") == "no_room"
    assert code_error(rooms.read, code) == "no_room"
    capped = Rooms(SqliteRoomStore(tmp_path / "c.sqlite3", max_rooms=1))
    capped.create("en")
    assert code_error(capped.create, "en") == "too_many_rooms"


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(20, 200))
def test_random_submissions_never_corrupt_a_room(tmp_path_factory: Any, seed: int,
                                                 steps: int) -> None:  # fmt: skip
    """Moves legal and illegal, from the right seat and the wrong one: the room's record
    always replays, and every card of the deal is still there."""
    rooms = Rooms(SqliteRoomStore(tmp_path_factory.mktemp("r") / "rooms.sqlite3"))
    rng = random.Random(seed)
    code, host = rooms.create("en", players=2, level="easy")
    _s, friend = rooms.join(code, None, "ur")
    tokens = [host, friend or ""]
    rooms.start(code, host)
    for _ in range(steps):
        doc = rooms.read(code).doc
        if doc["status"] != "playing":
            break
        if doc["game"]["awaiting_next"]:
            rooms.next_hand(code, tokens[rng.randrange(2)])
            continue
        game = rooms.game(doc)
        assert game is not None
        legal = game.state.legal_moves()
        move = legal[rng.randrange(len(legal))] if rng.random() < 0.8 else \
            Discard(Kind(rng.choice([k.value for k in Kind])))  # fmt: skip
        try:
            rooms.submit(code, tokens[rng.randrange(2)], move)
        except RoomError as error:
            assert error.code == "not_your_turn"
    doc = rooms.read(code).doc
    replayed = Game.replay(preset("classic2"), doc["game"]["seed"], doc["game"]["moves"])
    total = replayed.state.card_total()
    assert total == 108
