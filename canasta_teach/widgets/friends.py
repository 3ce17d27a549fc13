"""Play with friends: one room (``canasta_teach.rooms``) seen from one seat, on a ``CardTable``.

Each browser has its own kernel and its own ``RoomTable``: it reads the room from the store,
keeps a replica of the game (the room's moves replayed, which also gives the events it
narrates in *this* player's language) and sends its browser only this seat's view.  Moves go to
the room's authority (``Rooms.submit``); a refusal is worded here, for this player only.

The page ``lessons/play-together.ipynb`` calls :func:`play_together`; the browser then says
which room its address names (``#room=CODE``), the seat token it keeps for that room
(``localStorage``) and the language it reads.  A kernel task waits for the room to change
(short polling on SQLite, a channel on Redis) and says every few seconds that this seat is
still here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import re
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from canasta_teach.engine import Event, Move, State, Verdict
from canasta_teach.engine.game import Game
from canasta_teach.engine.notation import parse_move
from canasta_teach.engine.rules import preset
from canasta_teach.engine.variants import find_variant, variant_of
from canasta_teach.engine.view import seat_names
from canasta_teach.i18n import RTL_LANGUAGES, Translator
from canasta_teach.rooms import (
    HEARTBEAT_S,
    KEEP_MINUTES,
    RoomError,
    Rooms,
    Snapshot,
    normalise_code,
    seat_of,
    shared_store,
    shown_code,
)
from canasta_teach.rooms.room import CLIENT_ADDRESS_ENV, LEVELS, VARIANTS, humans, room_error_for
from canasta_teach.rooms.store import StoreError

from .fonts import FONT_FAMILIES
from .gametable import LEVEL_KEYS, PLAYER_KEYS, VARIANT_KEYS, GameTable, setting_row
from .narration import Narration
from .sheet import breakdown_sheet, signed
from .table import CardTable, build_labels, default_actions
from .values import small_number

log = logging.getLogger(__name__)

#: Each language by its own name (the language row reads the same in every language).
LANGUAGE_NAMES = {"en": "English", "ur": "اردو", "hi": "हिन्दी", "te": "తెలుగు"}
#: Wrong room codes one page may try before it is told to wait (guessing codes is pointless).
MAX_BAD_CODES = 10
#: A seat token as the browser keeps it (``secrets.token_urlsafe``).
TOKEN = re.compile(r"[A-Za-z0-9_-]{20,100}")
BAD_CODE_PAUSE_S = 60.0


class RoomTable:
    """One seat of a room in this kernel (or, before joining, the page that asks for a code)."""

    def __init__(self, translator: Translator, lang: str, *, rooms: Rooms | None = None,
                 watch: bool = True) -> None:  # fmt: skip
        self.tr = translator
        self.lang = lang
        self._rooms = rooms
        self.watch = watch
        self.code: str | None = None
        self.token: str | None = None
        self.seat = 0
        self.snapshot: Snapshot | None = None
        self.replica: Game | None = None
        self.narration = Narration()
        self._own_events: list[Event] = []  # what this seat's last move did (its message)
        self._notes_seen = 0
        self.error = ""  # a room error in words (shown instead of the room)
        self.notice = ""
        self._bad_codes = 0
        self._paused_until = 0.0
        self._task: Any = None
        self._said_hello = False
        self.closed = False
        #: The coach's word beside the message (as ``FullGame.coach``), None while silent.
        self.coach: dict[str, Any] | None = None
        state = Game(preset("classic4"), "room/none").state
        self.controller = GameTable(
            state, translator, lang, seat=0, actions=(), on_game_intent=self._on_control
        )
        self.controller.forward = self.submit
        self.controller.on_game_values = self._on_values
        self.widget: CardTable = self.controller.widget
        self.widget.game_controller = self
        self.widget.game_name = "play-together"
        self.render()

    @property
    def rooms(self) -> Rooms:
        if self._rooms is None:
            self._rooms = open_rooms()
        return self._rooms

    # ------------------------------------------------------------------ joining

    def join(self, code_text: object, token: object = None) -> None:
        """Take this browser's seat in a room (its own again, or the first free one)."""
        left = math.ceil(self._paused_until - time.monotonic())
        if left > 0:
            # Say to wait, and how long: the code typed may well be right (F30).
            self._show(self.tr.ntext("ui", "room.wait_codes", left, count=self.tr.number(left)),
                       keep_room=True)  # fmt: skip
            return
        try:
            code = normalise_code(code_text)
            seat, new_token = self.rooms.join(code, token, self.lang)
        except RoomError as error:
            if error.code in ("bad_code", "no_room"):
                self._bad_codes += 1
                if self._bad_codes >= MAX_BAD_CODES:
                    self._paused_until = time.monotonic() + BAD_CODE_PAUSE_S
                    self._bad_codes = 0
            if error.code == "bad_token":  # pragma: no cover - join never raises it
                error = RoomError("bad_token")
            self._fail(error)
            return
        if new_token is not None and token is not None:
            # The seat this browser had is gone (it stayed away too long): a new one.
            self.notice = self.tr.ui("room.error.bad_token")
        self.code = code
        self.token = str(token)
        self._seated(seat, new_token)
        self.refresh()
        self.render()
        self._start_watching()

    def _seated(self, seat: int, new_token: str | None) -> None:
        """``Rooms.join``'s answer: this browser's seat, and its new token if it got one."""
        self.seat = seat
        self.error = ""
        if new_token is not None:
            self.token = new_token
            # The browser keeps the token for this room: the same link brings it back here.
            self.widget.send({"kind": "room_token", "code": self.code, "token": new_token})

    def _fail(self, error: RoomError, *, keep_room: bool = False) -> None:
        self._show(self.tr.ui(error.key, **error.params), keep_room=keep_room,
                   instead=error.code in ("no_room", "store_reset"))  # fmt: skip

    def _show(self, text: str, *, keep_room: bool = False, instead: bool = False) -> None:
        """A refusal: in place of the room (no room yet, or ``instead``), else beside it."""
        if self.code is None or instead:
            self.error = text
            if not keep_room:
                self.code = None
        else:
            self.controller.say("refusal", text)
        self.render()

    # ------------------------------------------------------------------ the room changes

    def refresh(self) -> None:
        """Read the room again and bring the replica (and the narration) up to date."""
        if self.code is None:
            return
        try:
            snapshot = self.rooms.read(self.code)
        except RoomError as error:
            self._fail(error)
            return
        doc = snapshot.doc
        self.snapshot = snapshot
        # The seat is the token's, wherever the host moved it (table size, variant, partner):
        # follow it (F19) rather than keep the number this page joined with.
        seat = seat_of(doc, self.token)
        if seat is None:
            self.error = self.tr.ui("room.error.bad_token")
        elif seat != self.seat:
            self._moved_to(seat)
        self._narrate_notes(doc)
        record = doc.get("game")
        if record is None:
            self.replica = None
            return
        replica = self.replica
        moves = record["moves"]
        if (
            replica is None
            or replica.seed != record["seed"]
            or replica.moves != moves[: len(replica.moves)]
        ):
            # A game seen for the first time (a return, in a new kernel) or a new game: its
            # moves so far are narrated as they are replayed (the last lines are kept).
            replica = Game(preset(record["rules"]), record["seed"])
            self._set_table(replica)
        for text in moves[len(replica.moves) :]:
            mover = replica.state.to_move
            hand_before = replica.state.hand_number
            verdict, events = replica.apply_with_events(parse_move(text))
            if not verdict.legal:  # pragma: no cover - the authority checked it
                log.error("room %s: recorded move %s refused", self.code, text)
                break
            if mover == self.seat:
                self._own_events = events
            self.narration.events(events)
            ended = replica.last_hand
            if ended is not None and ended.hand_number == hand_before and ended.is_over:
                self._hand_ended(replica)
        self.replica = replica

    def _moved_to(self, seat: int) -> None:
        """The host moved this person: the table is drawn from the new seat, and the seat's
        presence is said at once (the heartbeat names the seat the token holds)."""
        assert self.code is not None
        self.seat = self.controller.seat = seat
        self.error = ""
        if self.replica is not None:
            self._set_table(self.replica)
        with contextlib.suppress(RoomError):
            self.rooms.heartbeat(self.code, seat)

    def _set_table(self, game: Game) -> None:
        self.controller.seat = self.seat
        self.controller.state = game.state
        self.controller.actions = default_actions(game.state)
        # "Ask partner" needs someone in the partner's seat: every seat has a player here.
        self.controller.players = {s: _nobody for s in range(game.rules.players)}
        self.widget.labels = build_labels(self.tr, game.rules)

    def _narrate_notes(self, doc: dict[str, Any]) -> None:
        names = seat_names(doc["players"])
        for note in doc.get("notes", []):
            if note["n"] <= self._notes_seen:
                continue
            self._notes_seen = note["n"]
            seat = note.get("seat", -1)
            if note["code"] == "created" or seat == self.seat and note["code"] == "joined":
                continue
            # The seat's name is said in the reader's language when the line is drawn.
            who = seat if 0 <= seat < len(names) else -1
            self.narration.say(f"room.note.{note['code']}", seat=seat, seats={"seat": who})

    def _hand_ended(self, game: Game) -> None:
        hand = game.hands[-1]
        mine = self.seat % 2
        key = "game.full.hf.round_scored" if game.rules.rounds else "game.full.hand_scored"
        self.narration.say(key, kind="hand", number=len(game.hands),
                           we=signed(hand.totals[mine]),
                           they=signed(hand.totals[1 - mine]))  # fmt: skip

    # ------------------------------------------------------------------ watching

    def _start_watching(self) -> None:
        if not self.watch or self._task is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no event loop (a script, a test): ``poll`` is called by hand
        self._task = loop.create_task(self._watch())

    async def _watch(self) -> None:
        """Redraw when the room changes; say "still here" every few seconds."""
        next_beat = 0.0
        while not self.closed and self.code is not None:
            if getattr(self.widget, "comm", None) is None:
                return  # the page is gone
            try:
                now = time.monotonic()
                if now >= next_beat:
                    next_beat = now + HEARTBEAT_S
                    self.heartbeat()
                assert self.snapshot is not None
                version = await self.rooms.store.wait(
                    self.code, self.snapshot.version, max(0.05, next_beat - time.monotonic())
                )
                if version is None:
                    self._fail(RoomError("no_room"))
                    return
                if version != self.snapshot.version:
                    self.refresh()
                    self.render()
            except RoomError as error:
                self._fail(error)
                await asyncio.sleep(HEARTBEAT_S)
            except Exception:  # noqa: BLE001 - the watch must outlive a bad moment
                log.exception("room watch failed")
                await asyncio.sleep(HEARTBEAT_S)

    def heartbeat(self) -> None:
        if self.code is None:
            return
        away_before = self._away_seats()
        self.rooms.heartbeat(self.code, self.seat)
        snap = self.snapshot
        langs_before = None if snap is None else snap.langs
        if snap is not None:
            snap.presence = self.rooms.store.presence(self.code)
            # Languages are kept apart from the room's versions: the others' switches are
            # read here, with who is away.
            snap.langs = self.rooms.store.langs(self.code)
        if self._away_seats() != away_before or (snap is not None and snap.langs != langs_before):
            self.render()

    def _away_seats(self) -> frozenset[int]:
        snap = self.snapshot
        if snap is None:
            return frozenset()
        return frozenset(s for s in humans(snap.doc) if snap.away(s))

    def poll(self) -> bool:
        """Without an event loop: read the room if it changed; whether it did."""
        if self.code is None or self.snapshot is None:
            return False
        version = self.rooms.store.version(self.code)
        if version == self.snapshot.version:
            return False
        self.refresh()
        self.render()
        return True

    # ------------------------------------------------------------------ acting

    def submit(self, moves: Sequence[Move]) -> None:
        """This seat's move (or a going-out plan of several) to the room's authority."""
        if self.code is None:
            return
        self.notice = ""
        last: tuple[Move, Verdict] | None = None
        hand_before = self.controller.state.hands[self.seat][:]
        state_before = self.controller.state
        self._own_events = []
        for move in moves:
            try:
                verdict = self.rooms.submit(self.code, self.token, move)
            except RoomError as error:
                self.refresh()
                self._fail(error)
                return
            if not verdict.legal:
                assert verdict.reason is not None
                self.controller.refuse(verdict.reason)
                break
            last = (move, verdict)
        self.refresh()
        if last is not None:
            if len(moves) > 1:
                self.controller.say("success", self.tr.ui("msg.went_out"))
            else:
                self.controller.state = state_before
                self.controller.say(*self.controller._success_text(*last, hand_before,
                                                                   self._own_events))  # fmt: skip
        self.render()

    def _act(self, what: str, *args: Any) -> None:
        assert self.code is not None
        try:
            getattr(self.rooms, what)(self.code, self.token, *args)
        except RoomError as error:
            self._fail(error)
        self.refresh()
        self.render()

    def _on_control(self, control: str) -> None:
        if control.startswith("lang:"):
            self.set_language(control[5:])
            return
        if self.code is None or self.snapshot is None:
            self.controller.say("refusal", self.tr.ui("msg.unknown_action"))
            self.render()
            return
        name, _, value = control.partition(":")
        # Seats and minutes: ASCII digits only, a few of them (F27: "²" and 5,000-digit values
        # used to raise here); anything else is an unknown control.
        seat, minutes = small_number(value, 3), small_number(value, max(KEEP_MINUTES))
        if name == "start":
            self._act("start")
        elif name == "next_hand":
            self._act("next_hand")
        elif name == "new":
            self._act("new_game")
        elif name == "stand_in" and seat is not None:
            self._act("stand_in", seat)
        elif name == "players" and value in ("2", "4"):
            self._act("configure", "players", int(value))
        elif name == "variant" and value in VARIANTS or name == "level" and value in LEVELS:
            self._act("configure", name, value)
        elif name == "keep" and minutes in KEEP_MINUTES:
            self._act("configure", "keep_minutes", minutes)
        elif name == "partner" and seat is not None:
            self._choose_partner(seat)
        else:
            self.controller.say("refusal", self.tr.ui("msg.unknown_action"))
            self.render()

    def _choose_partner(self, seat: int) -> None:
        """The host (South) chooses who sits opposite: a friend's seat, or 0 for the computer."""
        assert self.snapshot is not None
        doc = self.snapshot.doc
        if seat == 0:
            free = [s for s in (1, 3) if doc["seats"][s]["kind"] != "human"]
            if doc["seats"][2]["kind"] != "human" or not free:
                self.render()
                return
            seat = free[0]
        if seat not in (1, 3):
            self.render()
            return
        self._act("configure", "seat", (seat, 2))

    def _on_values(self, control: str, values: Mapping[str, str]) -> None:
        if control == "hello":
            self._hello(values)
        elif control == "join":
            self.join(values.get("code", ""))
        else:
            self.controller.say("refusal", self.tr.ui("msg.unknown_action"))
            self.render()

    def _hello(self, values: Mapping[str, str]) -> None:
        """The browser says its language, the room its address names and its token there."""
        if self._said_hello:
            return
        self._said_hello = True
        lang = values.get("lang", "")
        if lang in LANGUAGE_NAMES and lang != self.lang:
            self.set_language(lang)
        room = values.get("room", "")
        if room:
            token = values.get("token") or None
            if token is not None and not TOKEN.fullmatch(token):
                token = None
            self.join(room, token)

    def set_language(self, lang: str) -> None:
        """Read the table in another language (this player's only)."""
        from canasta_teach.i18n import UnknownLanguage, get_translator

        try:
            tr = get_translator(lang)
        except UnknownLanguage:
            self.controller.say("refusal", self.tr.ui("msg.bad_request"))
            self.render()
            return
        self.tr = self.controller.tr = tr
        self.lang = self.controller.lang = tr.lang
        # This browser keeps the choice: the room page comes back in it after a reload.
        self.widget.send({"kind": "room_lang", "lang": tr.lang})
        state = self.controller.state
        with self.widget.hold_sync():
            self.widget.lang = tr.lang
            self.widget.dir = "rtl" if tr.lang in RTL_LANGUAGES else "ltr"
            self.widget.font = FONT_FAMILIES.get(tr.lang, FONT_FAMILIES["en"])
            self.widget.labels = build_labels(tr, state.rules)
            self.widget.message = {}
            # The narration keeps what happened, not words: drawn again, it reads in the new
            # language.
            if self.code is not None:
                try:
                    self.rooms.set_language(self.code, self.token, tr.lang)
                except RoomError as error:
                    # The page reads in the new language all the same; only what the others
                    # see of it waits (``too_fast``: switched more often than a person does).
                    self.controller.say("refusal", tr.ui(error.key))
                self.refresh()
            self.render()

    # ------------------------------------------------------------------ drawing

    def shown_state(self) -> State:
        game = self.replica
        assert game is not None
        record = self.snapshot.doc["game"] if self.snapshot else None
        waiting = bool(record and record["awaiting_next"]) or game.is_over
        if waiting and game.last_hand is not None:
            return game.last_hand
        return game.state

    def _panel(self) -> dict[str, Any]:
        tr = self.tr
        base = {
            "kind": "full",
            "wants_room": True,
            "title": tr.ui("room.title"),
            "progress": "",
            "solved": False,
            "solved_count": 0,
            "total": 0,
            "choices": [],
            "narration_label": tr.ui("game.full.narration"),
            "why_label": tr.ui("game.full.why_label"),
            "skip_label": tr.ui("game.full.skip"),
            "languages": [
                {"id": f"lang:{code}", "label": name, "pressed": code == self.lang, "lang": code}
                for code, name in LANGUAGE_NAMES.items()
            ],  # fmt: skip
            "language_label": tr.ui("room.language_label"),
            "coach": self.coach or {},
        }
        snap = self.snapshot
        if self.error or self.code is None or snap is None:
            return {
                **base,
                "puzzle": "",
                "prompt": self.error or tr.ui("room.entry.prompt"),
                "notice": "",
                "stage": "entry",
                "form": {
                    "id": "join",
                    "field": "code",
                    "label": tr.ui("room.entry.form_label"),
                    "button": tr.ui("room.entry.join"),
                    "maxlength": 16,
                },  # fmt: skip
                "controls": [],
            }
        doc = snap.doc
        host = bool(doc["seats"][self.seat].get("host"))
        names = seat_names(doc["players"])
        you = tr.ui("room.you_are", seat=tr.seat(names[self.seat]))
        # The lists the stages below add to, typed (the panel itself is the front end's JSON).
        tables: list[dict[str, Any]] = [self._seats_table(doc, snap)]
        controls: list[dict[str, Any]] = []
        panel: dict[str, Any] = {
            **base,
            "puzzle": f"{tr.ui('room.code_label')} {shown_code(doc['code'])} · {you}",
            "notice": self.notice,
            "invite": {
                "code": shown_code(doc["code"]),
                "label": tr.ui("room.invite_label"),
                "code_label": tr.ui("room.code_label"),
                "link_label": tr.ui("room.link_label"),
                "copy": tr.ui("room.copy"),
                "copied": tr.ui("room.copied"),
            },
            "tables": tables,
            "controls": controls,
            "groups": [],
        }
        if doc["status"] == "lobby":
            panel["stage"] = "lobby"
            panel["prompt"] = tr.ui("room.lobby.host_prompt" if host else "room.lobby.guest_prompt")
            if host:
                panel["groups"] = self._settings(doc)
                controls.append({"id": "start", "primary": True, "label": tr.ui("room.start")})
            return panel
        game = self.replica
        assert game is not None
        record = doc["game"]
        mine = self.seat % 2
        variant = variant_of(game.state)

        def word(key: str, **params: Any) -> str:
            """A sentence about hands (Classic) or rounds (Hand and Foot): ``Variant.word``."""
            return tr.ui(variant.word(key), **params)

        seats_table = tables[0]
        tables.insert(0, self._sheet(game, word))
        # Once the game has started, the invite, the seats and the language row fold away
        # (one line says who sits where): the table, the hand and the buttons fit one screen.
        seats_table["fold"] = True
        who = [f"{row[0]} ({row[1]})" for row in seats_table["rows"]]
        language = f"{tr.ui('room.language_label')} {LANGUAGE_NAMES[self.lang]}"
        panel["fold"] = {"label": tr.ui("room.fold"), "summary": " · ".join([*who, language]),
                         "open": False}  # fmt: skip
        if record["awaiting_next"] or game.is_over:
            ended = game.last_hand
            if ended is not None:
                panel["sheet"] = breakdown_sheet(tr, ended, len(game.hands), self.seat)
        if game.is_over:
            we, they = game.totals[mine], game.totals[1 - mine]
            if game.winner is None:
                panel["prompt"] = tr.ui("game.full.hf.tie", we=signed(we))
            else:
                key = "game.full.won" if game.winner == mine else "game.full.lost"
                panel["prompt"] = tr.ui(key, we=signed(we), they=signed(they))
            panel["stage"] = "over"
            if host:
                controls.append({"id": "new", "primary": True, "label": tr.ui("room.new")})
        elif record["awaiting_next"]:
            state = game.state
            panel["prompt"] = word("game.full.hand_over",
                                   number=len(game.hands), we=tr.number(state.minimum(mine)),
                                   they=tr.number(state.minimum(1 - mine)))  # fmt: skip
            panel["stage"] = "hand_over"
            next_label = word("game.full.next_hand")
            controls.append({"id": "next_hand", "primary": True, "label": next_label})
        else:
            panel["stage"] = "play"
            panel["prompt"] = tr.ui("room.playing", seat=tr.seat(names[self.seat]))
        if host and doc["status"] == "playing":
            for s in humans(doc):
                if s != self.seat and snap.away(s) and not doc["seats"][s].get("stand_in"):
                    label = tr.ui("room.stand_in", seat=tr.seat(names[s]))
                    controls.append({"id": f"stand_in:{s}", "label": label})
        return panel

    def _settings(self, doc: dict[str, Any]) -> list[dict[str, Any]]:
        tr = self.tr
        variant, players = doc["variant"], doc["players"]
        groups = [
            setting_row(
                tr.ui("game.full.variant_label"),
                "variant",
                [(v, tr.ui(VARIANT_KEYS[v]), v == variant) for v in VARIANTS],
            ),
        ]
        counts = find_variant(variant).player_counts  # Hand and Foot: four only (H-DECK-1)
        if len(counts) > 1:
            groups.append(
                setting_row(
                    tr.ui("game.full.players_label"),
                    "players",
                    [(n, tr.ui(PLAYER_KEYS[n]), n == players) for n in counts],
                )
            )
        if players == 4:
            names = seat_names(4)
            friends = [s for s in (1, 2, 3) if doc["seats"][s]["kind"] == "human"]
            if friends:
                options = [(s, tr.ui("room.partner.friend", seat=tr.seat(names[s])), s == 2)
                           for s in friends]  # fmt: skip
                options.append((0, tr.ui("room.partner.computer"),
                                doc["seats"][2]["kind"] != "human"))  # fmt: skip
                groups.append(setting_row(tr.ui("room.partner_label"), "partner", options))
        groups.append(
            setting_row(
                tr.ui("game.full.level_label"),
                "level",
                [(lv, tr.ui(LEVEL_KEYS[lv]), lv == doc["level"]) for lv in LEVELS],
            )
        )
        groups.append(
            setting_row(
                tr.ui("room.keep_label"),
                "keep",
                [
                    (
                        m,
                        tr.ntext("ui", "room.keep.minutes", m, count=tr.number(m)),
                        m == doc["keep_minutes"],
                    )
                    for m in KEEP_MINUTES
                ],
            )
        )
        return groups

    def _seats_table(self, doc: dict[str, Any], snap: Snapshot) -> dict[str, Any]:
        tr = self.tr
        names = seat_names(doc["players"])
        rows = []
        for s in range(doc["players"]):
            entry = doc["seats"][s]
            kind = entry["kind"]
            if kind == "human":
                who = (
                    tr.ui("room.who.you")
                    if s == self.seat
                    else tr.ui("room.who.host" if entry.get("host") else "room.who.friend")
                )
                if entry.get("stand_in"):
                    status = tr.ui("room.status.stand_in")
                elif s != self.seat and snap.away(s):
                    status = tr.ui("room.status.away")
                else:
                    status = tr.ui("room.status.here")
                status += f" · {LANGUAGE_NAMES.get(snap.lang(s), '')}"
            elif kind == "released":
                who, status = tr.ui("room.who.released"), tr.ui("room.status.computer")
            elif kind == "bot":
                who, status = tr.ui("room.who.computer"), tr.ui("room.status.computer")
            else:
                who, status = tr.ui("room.who.open"), ""
            rows.append([tr.seat(names[s]), who, status])
        return {"id": "seats", "caption": tr.ui("room.seats.caption"),
                "head": [tr.ui("room.seats.seat"), tr.ui("room.seats.who"),
                         tr.ui("room.seats.status")], "rows": rows, "empty": ""}  # fmt: skip

    def _sheet(self, game: Game, word: Callable[..., str]) -> dict[str, Any]:
        tr = self.tr
        mine = self.seat % 2
        rows = [[tr.number(n), signed(h.totals[mine]), signed(h.totals[1 - mine])]
                for n, h in enumerate(game.hands, 1)]  # fmt: skip
        return {
            "id": "scores",
            "caption": word(
                "game.full.sheet.caption",
                target=tr.number(game.rules.game_target),
                rounds=tr.number(game.rules.rounds),
            ),  # fmt: skip
            "head": [
                word("game.full.sheet.hand"),
                tr.ui("game.full.sheet.we"),
                tr.ui("game.full.sheet.they"),
            ],  # fmt: skip
            "rows": rows,
            "foot": [
                tr.ui("game.full.sheet.total"),
                signed(game.totals[mine]),
                signed(game.totals[1 - mine]),
            ],  # fmt: skip
            "empty": tr.ui("game.full.sheet.empty"),
        }

    def render(self) -> None:
        """Send the panel and this seat's view of the table (one comm message)."""
        with self.widget.hold_sync():
            self.widget.game = self._panel()
            if self.replica is not None and not self.error:
                self.controller.state = self.shown_state()
                view = self.controller.table_view()
            else:
                view = {"hidden": True}
            players = self.replica.rules.players if self.replica is not None else 4
            view["narration"] = self.narration.shown(self.tr, players, self.seat)
            self.widget.view = view


def _nobody(state: State) -> Move:  # pragma: no cover - the room's players move themselves
    raise RuntimeError("a room's seats are played through the room")


def open_rooms() -> Rooms:
    """This kernel's rooms; ``RoomError`` (never a ``StoreError``) when the store cannot be
    opened, or was found damaged and set aside (F26)."""
    try:
        store = shared_store()
    except StoreError as error:
        raise room_error_for(error) from error
    if store.take_reset():  # this kernel found the file damaged and set it aside: say so
        raise RoomError("store_reset")
    return Rooms(store)


#: Who asks for a room when the page never said its browser's id: this kernel (one page).
_THIS_KERNEL = f"kernel:{os.getpid()}:{secrets.token_hex(8)}"


def create_room_for(game: Any) -> tuple[str, str]:
    """A room for the full game's settings, with its learner as host (the Invite button).
    Counted against the browser's id (or this kernel's) and the page's address (F18)."""
    from .remote import create_room, service_url

    if service_url() is not None:  # on a hub: the service makes it, for this hub user
        return create_room(game.lang, players=game.players, variant=game.variant,
                           level=game.level)  # fmt: skip
    player = getattr(game, "player", "")
    # "this-kernel" is the full game's id until the browser says its own.
    browser = player if player and player != "this-kernel" else _THIS_KERNEL
    address = os.environ.get(CLIENT_ADDRESS_ENV) or None
    return open_rooms().create(game.lang, players=game.players, variant=game.variant,
                               level=game.level, browser=browser, address=address)  # fmt: skip


def play_together(lang: str = "en", *, rooms: Rooms | None = None) -> Any:
    """The page a room link opens: display it (the value of the cell).  The browser then says
    which room and seat; until then (or with no room in the address) it asks for a code."""
    from .games import shown_safely
    from .remote import RemoteRoomTable, service_url

    if rooms is None and service_url() is not None:
        # On a hub: the seat lives in the service; this kernel holds no store (F17).
        return shown_safely(lang, "play_together",
                            lambda tr, code: RemoteRoomTable(tr, code).widget)  # fmt: skip
    return shown_safely(lang, "play_together",
                        lambda tr, code: RoomTable(tr, code, rooms=rooms).widget)  # fmt: skip


__all__ = ["LANGUAGE_NAMES", "RoomTable", "create_room_for", "play_together"]
