"""Play with friends at the widget level: two seats of one room in one process (each its own
``RoomTable``, as two kernels would have), on a real SQLite store.

- Each seat reads the room in its own language (Urdu right to left, Hindi left to right).
- Every message each seat's widget sends (recorded at the comm) depends only on what that seat
  may see: for each one, worlds that differ in every hidden card give the same table, and no
  message holds the room's seed, another seat's token or its hash.
- A refusal is told only to the player who made it; the same token returns to the same seat;
  a visitor to a full room is told so in their language; the full game's Invite makes a room
  whose link seats the learner as host.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from canasta_teach.engine import Discard, Kind, Reason
from canasta_teach.engine.cards import TOKENS
from canasta_teach.engine.determinize import determinize
from canasta_teach.engine.rng import SplitMix64
from canasta_teach.engine.state import Phase
from canasta_teach.engine.view import seat_names
from canasta_teach.i18n import get_translator
from canasta_teach.rooms import Rooms, SqliteRoomStore, shown_code
from canasta_teach.rooms.room import token_hash
from canasta_teach.widgets.friends import RoomTable, play_together
from canasta_teach.widgets.fullgame import FullGame, SaveStore


@pytest.fixture
def rooms(tmp_path: Path) -> Rooms:
    return Rooms(SqliteRoomStore(tmp_path / "rooms.sqlite3"))


class Recorder:
    """Every comm message a widget sends, with the table state it was drawn from."""

    def __init__(self, table: RoomTable) -> None:
        self.table = table
        self.sent: list[tuple[dict[str, Any], Any]] = []
        table.widget.comm.send = self._send  # type: ignore[union-attr]

    def _send(self, data: Any = None, metadata: Any = None, buffers: Any = None) -> None:
        self.sent.append((json.loads(json.dumps(data)), self.table.controller.state.copy()))

    def customs(self) -> list[dict[str, Any]]:
        return [d["content"] for d, _ in self.sent if d.get("method") == "custom"]


def seat_table(rooms: Rooms, lang: str, values: dict[str, str]) -> tuple[RoomTable, Recorder]:
    table = RoomTable(get_translator(lang), lang, rooms=Rooms(rooms.store), watch=False)
    recorder = Recorder(table)
    # As the page says it: through the widget's message handler (which cuts long values).
    table.controller.intent({"action": "game", "id": "hello", "values": {"lang": lang, **values}})
    return table, recorder


def a_room_of_two(rooms: Rooms) -> tuple[RoomTable, Recorder, RoomTable, Recorder, str, str]:
    code, host_token = rooms.create("ur", players=2)
    host, host_log = seat_table(rooms, "ur", {"room": code, "token": host_token})
    friend, friend_log = seat_table(rooms, "hi", {"room": shown_code(code).lower()})
    (custom,) = friend_log.customs()
    assert custom["kind"] == "room_token" and custom["code"] == code
    return host, host_log, friend, friend_log, code, host_token


def play_turn(table: RoomTable) -> None:
    state = table.controller.state
    if state.phase is Phase.DRAW:
        table.controller.intent({"action": "draw", "cards": []})
    elif state.phase is Phase.ANSWER:
        table.controller.intent({"action": "answer", "yes": False})
    else:
        held = [Kind(k) for k, count in enumerate(state.hands[table.seat]) if count]
        for kind in held:
            if state.check(Discard(kind)).legal:
                table.controller.intent({"action": "discard", "cards": [TOKENS[kind]]})
                return
        raise AssertionError("no card to throw away")


def test_each_seat_reads_the_room_in_its_own_language(rooms: Rooms) -> None:
    host, _h, friend, _f, code, _t = a_room_of_two(rooms)
    host.poll()
    ur, hi = get_translator("ur"), get_translator("hi")
    assert host.widget.lang == "ur" and host.widget.dir == "rtl"
    assert friend.widget.lang == "hi" and friend.widget.dir == "ltr"
    assert host.widget.game["prompt"] == ur.ui("room.lobby.host_prompt")
    assert friend.widget.game["prompt"] == hi.ui("room.lobby.guest_prompt")
    assert host.widget.game["invite"]["code"] == shown_code(code)
    # Only the host has the settings and the Start button.
    assert [c["id"] for c in host.widget.game["controls"]] == ["start"]
    assert friend.widget.game["controls"] == [] and friend.widget.game["groups"] == []
    seats = host.widget.game["tables"][0]["rows"]
    assert seats[1][1] == ur.ui("room.who.friend") and "हिन्दी" in seats[1][2]
    assert "fold" not in host.widget.game  # the lobby shows the invite and the seats
    host._on_control("start")
    friend.poll()
    for table, tr in ((host, ur), (friend, hi)):
        view = table.widget.view
        assert view["status"] and "hand" in view and not view.get("hidden")
        assert table.widget.labels["buttons"]["draw"] == tr.ui("button.draw_two")
        # Once playing, the invite, the seats and the language row fold into one line.
        panel = table.widget.game
        fold = panel["fold"]
        assert fold["label"] == tr.ui("room.fold") and fold["open"] is False
        seats = next(t for t in panel["tables"] if t["id"] == "seats")
        assert seats["fold"] is True
        assert not next(t for t in panel["tables"] if t["id"] == "scores").get("fold")
        you = tr.ui("room.who.you")
        assert f"{tr.seat('S' if table is host else 'N')} ({you})" in fold["summary"]
        assert ("اردو" if table is host else "हिन्दी") in fold["summary"]


def test_a_hand_to_its_end_and_no_message_holds_a_hidden_card(rooms: Rooms) -> None:
    host, host_log, friend, friend_log, code, host_token = a_room_of_two(rooms)
    host._on_control("start")
    tables = (host, friend)
    for _ in range(400):
        for table in tables:
            table.poll()
        doc = host.snapshot.doc if host.snapshot else {}
        if doc["game"]["awaiting_next"] or doc["status"] != "playing":
            break
        mover = next(t for t in tables if t.controller.state.to_move == t.seat)
        play_turn(mover)
    for table in tables:
        table.poll()
    assert host.snapshot is not None and host.snapshot.doc["game"]["awaiting_next"]
    assert host.widget.game["stage"] == friend.widget.game["stage"] == "hand_over"
    assert host.widget.game["sheet"] and friend.widget.game["sheet"]
    assert host.widget.game["sheet"]["hands"]["seats"][1]["cards"]  # the hand over: face up
    friend_token = None
    doc = host.snapshot.doc
    secrets = {
        doc["game"]["seed"],
        host_token,
        *(s.get("token") for s in doc["seats"] if s.get("token")),
    }
    for recorder, table in ((host_log, host), (friend_log, friend)):
        views = panels = 0
        for i, (data, state) in enumerate(recorder.sent):
            text = json.dumps(data, ensure_ascii=False)
            own = recorder.customs()
            for secret in secrets:
                if secret == host_token and table is host:
                    continue
                assert secret not in text
            if table is friend:
                friend_token = next((c["token"] for c in own), None)
            panel = data.get("state", {}).get("game") or {}
            if panel.get("stage") == "play":
                # Everyone's leftover cards are shown once the hand is over, never during it.
                assert not panel.get("sheet"), panel.get("sheet")
                panels += 1
            view = data.get("state", {}).get("view")
            if not view or view.get("hidden"):
                continue
            views += 1
            ctl = table.controller
            kept = ctl.state
            for k in (1, 2):
                ctl.state = determinize(state, table.seat, SplitMix64(i * 7 + k))
                other = ctl.table_view()
                ctl.state = kept
                mine = {key: value for key, value in view.items() if key != "narration"}
                assert json.dumps(other, sort_keys=True) == json.dumps(mine, sort_keys=True)
        assert views > 20 and panels  # (a panel is sent again only when it changes)
    assert friend_token and friend_token not in json.dumps([d for d, _ in host_log.sent])
    assert token_hash(friend_token) in json.dumps(doc)


def test_a_refusal_is_told_only_to_its_player(rooms: Rooms) -> None:
    host, _h, friend, _f, _code, _t = a_room_of_two(rooms)
    host._on_control("start")
    friend.poll()
    mover, waiter = (host, friend) if host.controller.state.to_move == 0 else (friend, host)
    before = waiter.widget.message
    version = mover.snapshot.version if mover.snapshot else 0
    # Discarding before drawing: the engine's reason, for the mover only.
    mover.controller.intent({"action": "discard", "cards": ["4"]})
    assert mover.widget.message["kind"] == "refusal" and mover.widget.message["text"]
    assert rooms.store.version(mover.code or "") == version
    assert not waiter.poll() and waiter.widget.message == before
    # Acting out of turn is refused with the waiting player's own words.
    waiter.controller.intent({"action": "draw", "cards": []})
    assert waiter.widget.message["kind"] == "refusal"
    assert rooms.store.version(mover.code or "") == version


def test_a_greyed_out_button_in_a_room_says_why_to_its_player_only(rooms: Rooms) -> None:
    """Pressed with nothing selected, an unavailable button gives the rule that stops it (the
    mover) or whose turn it is (the other player); the room does not move."""
    host, _h, friend, _f, _code, _t = a_room_of_two(rooms)
    host._on_control("start")
    friend.poll()
    mover, waiter = (host, friend) if host.controller.state.to_move == 0 else (friend, host)
    assert not mover.widget.view["enabled"]["discard"]
    before = waiter.widget.message
    version = rooms.store.version(mover.code or "")
    mover.controller.intent({"action": "discard", "cards": []})
    message = mover.widget.message
    assert message["kind"] == "refusal" and message["rule"] == "C-TURN-1"
    assert message["text"] == mover.tr.reason(Reason("draw_first", "C-TURN-1"))
    assert rooms.store.version(mover.code or "") == version
    assert not waiter.poll() and waiter.widget.message == before
    assert not waiter.widget.view["enabled"]["draw"]
    waiter.controller.intent({"action": "draw", "cards": []})
    names = seat_names(2)
    who = waiter.tr.seat(names[mover.seat])
    assert waiter.widget.message["text"] == waiter.tr.ui("msg.not_your_turn", seat=who)
    assert rooms.store.version(mover.code or "") == version


def test_the_same_link_returns_to_the_same_seat_and_a_full_room_says_so(rooms: Rooms) -> None:
    host, _h, friend, friend_log, code, _t = a_room_of_two(rooms)
    token = friend_log.customs()[0]["token"]
    again, again_log = seat_table(rooms, "hi", {"room": code, "token": token})
    assert again.seat == friend.seat == 1 and again.error == "" and not again_log.customs()
    te = get_translator("te")
    visitor, _v = seat_table(rooms, "te", {"room": code})
    assert visitor.code is None and visitor.widget.game["stage"] == "entry"
    assert visitor.widget.game["prompt"] == te.ui("room.error.full")
    assert visitor.widget.lang == "te"
    stranger, _s = seat_table(rooms, "ur", {"room": "ZZZZZ-ZZZZZ"})
    assert stranger.widget.game["prompt"] == get_translator("ur").ui("room.error.no_room")
    bad, _b = seat_table(rooms, "en", {"room": "not a code"})
    assert bad.widget.game["prompt"] == get_translator("en").ui("room.error.bad_code")


def test_a_player_may_switch_language_alone(rooms: Rooms) -> None:
    host, _h, friend, _f, _code, _t = a_room_of_two(rooms)
    host.poll()  # the host's page has seen the friend come
    version = rooms.store.version(_code)
    friend._on_control("lang:te")
    assert friend.widget.lang == "te" and host.widget.lang == "ur"
    # A language is not a change of the game: no new version, so no redraw of every seat
    # (and no computer thinking again); the others read it with their next heartbeat.
    assert rooms.store.version(_code) == version
    assert not host.poll()
    host.heartbeat()
    assert "తెలుగు" in host.widget.game["tables"][0]["rows"][1][2]
    friend._on_control("lang:xx")
    assert friend.widget.lang == "te"


def test_the_full_games_invite_seats_its_learner_as_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CANASTA_DATA_DIR", str(tmp_path))
    game = FullGame(get_translator("hi"), "hi", pace="instant", level="easy",
                    store=SaveStore(tmp_path / "games"))  # fmt: skip
    sent: list[Any] = []
    game.widget.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    assert "invite" in [c["id"] for c in game.widget.game["controls"]]
    game._on_control("invite")
    (go,) = sent
    assert go["kind"] == "room_go" and go["lang"] == "hi"
    from canasta_teach.rooms import shared_store

    table = RoomTable(get_translator("hi"), "hi", rooms=Rooms(shared_store()), watch=False)
    hello = {"room": go["code"], "token": go["token"], "lang": "hi"}
    table.controller.intent({"action": "game", "id": "hello", "values": hello})
    assert table.seat == 0 and table.error == ""
    assert table.widget.game["controls"][0]["id"] == "start"


def test_the_page_without_a_room_asks_for_a_code() -> None:
    widget = play_together("ur")
    assert widget.game["stage"] == "entry" and widget.game["form"]["id"] == "join"
    assert widget.view.get("hidden")
    assert len(widget.game["languages"]) == 4
    assert repr(play_together("xx")).startswith("HTML")
