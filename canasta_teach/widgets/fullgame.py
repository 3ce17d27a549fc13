"""The full game: the learner and computer players, hands to 5,000, on one ``CardTable``.

``play_game(lang="hi")`` returns the widget: the card table with a game panel (score sheet in
"we / they" columns, each ended hand's breakdown line by line, the level, the pace of the
computer's turns, Hint, Take back, New game, Daily deal) and a narration of everything that
happens at the table, read from the engine's events (``Game.apply_with_events``).

Seats are this module's business, not the table's: each seat is played by the learner (moves
come from the browser's intents through ``TableController``), by a bot (``bots.find_bot``), or
in a later version by a remote player; every move goes through ``FullGame.submit`` the same way.

The computer's turns are played at once in the kernel; the browser replays them at the chosen
pace (``view.playback``: one table picture per move, and how far the narration had got), so the
kernel never sleeps and the tests can ask for ``pace="instant"``.

A **practice** game lets the learner take back a move; a **daily** deal is the same for everyone
on a UTC day (``engine.game.daily_seed``) and its final score may go on the leaderboard.  The
game in progress is saved after every move as versioned JSON in the per-user data folder,
under an id the browser keeps (``localStorage``), so a page reload or a kernel restart resumes
it; a save that cannot be read is kept (renamed) and a fresh game starts with a clear message.
Classic and Hand and Foot are saved apart (``SaveStore``): switching between them keeps the
other game to resume, and each page resumes the game of its own variant.  New game and Daily
deal ask first when they would end a game in progress.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from canasta_teach.bots import BOTS, Bot, find_bot
from canasta_teach.bots.claims import reason_record
from canasta_teach.engine import (
    Answer,
    Event,
    Move,
    State,
    Verdict,
)
from canasta_teach.engine.game import Game, daily_seed
from canasta_teach.engine.savefile import SaveFileError, game_from_json, game_to_json
from canasta_teach.engine.state import Phase
from canasta_teach.engine.variants import find_variant
from canasta_teach.i18n import Translator

from .coaching import TableCoach
from .gametable import (
    LEARNER,
    LEVEL_KEYS,
    PLAYER_KEYS,
    VARIANT_KEYS,
    GameTable,
    describe_move,
    setting_row,
)
from .narration import Line, Narration
from .narration import reason_record as narrated_reason
from .sheet import breakdown_sheet, signed
from .table import CardTable, build_labels, default_actions

log = logging.getLogger(__name__)

#: Milliseconds the browser shows each computer move before the next one.
PACES: dict[str, int] = {"slow": 1800, "normal": 1000, "fast": 450, "instant": 0}
MODES = ("practice", "daily")
SAVE_FORMAT = "canasta-teach/table"
#: 2: the narration is kept too (``Narration.to_json``); a save of version 1 has none.
SAVE_VERSION = 2
READABLE_VERSIONS = (1, 2)
#: A browser's id for its saved game: letters, digits and dashes (a UUID), nothing else.
PLAYER_ID = re.compile(r"[A-Za-z0-9-]{8,40}")
#: Computer moves in a row before the table stops to wait (a safety net, never reached in play).
MAX_BOT_MOVES = 2000
#: The kinds of saved game a browser has, one file each: a game of each variant (so that
#: switching between them keeps the other to resume) and the guided hand's progress.
SLOTS = ("classic", "handfoot", "guided")
#: The slot saved before the kinds of game were kept apart (``<player id>.json``): Classic's.
FIRST_SLOT = SLOTS[0]

PACE_KEYS = {
    "slow": "game.full.pace.slow",
    "normal": "game.full.pace.normal",
    "fast": "game.full.pace.fast",
    "instant": "game.full.pace.instant",
}


def levels() -> tuple[str, ...]:
    """The bot levels on offer, easiest first."""
    return tuple(level for level in ("easy", "normal", "hard") if level in BOTS)


# ---------------------------------------------------------------------- seats


@dataclass
class Seat:
    """Who plays a seat: ``"learner"`` (moves from the browser) or ``"bot"``."""

    kind: str
    bot: Bot | None = None


# ---------------------------------------------------------------------- saving

#: What making a table from a save's document may raise when the save is damaged (a save is
#: the one input a kernel reads from disk, and a browser's id chooses it): any of these is a
#: damaged save, kept under a new name, never a page that fails and then saves over it (F28).
RESTORE_FAILURES = (
    SaveFileError, ValueError, KeyError, TypeError, AttributeError, IndexError,
    RecursionError, ArithmeticError,
)  # fmt: skip


class SaveStore:
    """Where a browser's games are kept: one file per game kind (``SLOTS``) under the
    browser's id.  Classic Canasta keeps the name of the one save a browser had before
    (``<player id>.json``); Hand and Foot is ``<player id>.handfoot.json`` and the guided hand's
    progress ``<player id>.guided.json``.  An old save holding a Hand and Foot game, from when
    a browser had one save for both, is moved to the Hand and Foot name when it is first read."""

    def __init__(self, folder: Path | None = None) -> None:
        self._folder = folder

    @property
    def folder(self) -> Path:
        if self._folder is None:
            from canasta_teach.userdata import data_dir

            self._folder = data_dir() / "games"
        return self._folder

    def path(self, player: str, slot: str = "classic") -> Path:
        if not PLAYER_ID.fullmatch(player):
            raise ValueError("not a player id")
        if slot not in SLOTS:
            raise ValueError("not a kind of saved game")
        return self.folder / (f"{player}.json" if slot == FIRST_SLOT else f"{player}.{slot}.json")

    def load(
        self, player: str, slot: str = "classic", *, kind: str = SAVE_FORMAT
    ) -> dict[str, Any] | None:
        """The saved document of this kind of game (``kind``: the document's format), None when
        there is none; raises ``SaveFileError`` when the file is there but is not a save we
        can read."""
        if slot != FIRST_SLOT and slot in VARIANT_KEYS:
            self._move_old_save(player)
        doc = self._read(self.path(player, slot), kind)
        if slot == FIRST_SLOT and doc is not None and _save_family(doc) != FIRST_SLOT:
            # One save per browser (before the kinds were kept apart) held another variant.
            self._move_old_save(player)
            return None
        return doc

    def _read(self, path: Path, kind: str) -> dict[str, Any] | None:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise SaveFileError("unreadable", str(exc)) from exc
        try:
            doc = json.loads(data.decode("utf-8"))
        # RecursionError: thousands of nested brackets (F28), not a file we wrote; ValueError
        # covers bad bytes, bad JSON and a number past Python's integer-string limit.
        except (ValueError, RecursionError) as exc:
            raise SaveFileError("not_json", "not JSON") from exc
        if not isinstance(doc, dict) or doc.get("format") != kind:
            raise SaveFileError("not_a_save", "not a saved table")
        if doc.get("version") not in READABLE_VERSIONS:
            raise SaveFileError("bad_version", "unknown version", version=doc.get("version"))
        return doc

    def _move_old_save(self, player: str) -> None:
        """An old one-per-browser save holding another variant (Hand and Foot) becomes that
        variant's save (unless there is one already: then the old file is left where it is)."""
        old = self.path(player)
        try:
            doc = self._read(old, SAVE_FORMAT)
        except SaveFileError:
            return  # read again (and kept, if need be) as the Classic save
        if doc is None or _save_family(doc) == FIRST_SLOT:
            return
        new = self.path(player, _save_family(doc))
        try:
            os.link(old, new)  # never replaces a Hand and Foot save
        except FileExistsError:
            return
        except OSError:  # a folder without hard links: a rename, when nothing is in the way
            if not new.exists():
                with contextlib.suppress(OSError):
                    os.rename(old, new)
            return
        with contextlib.suppress(OSError):
            old.unlink()

    def save(self, player: str, doc: Mapping[str, Any], slot: str = "classic") -> None:
        """Write atomically (a temporary file renamed over the old one)."""
        path = self.path(player, slot)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        text = json.dumps(doc, ensure_ascii=False, indent=1) + "\n"
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()

    def set_aside(self, player: str, slot: str = "classic") -> str:
        """Rename an unreadable save out of the way (never delete it); the new name."""
        path = self.path(player, slot)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
        for n in range(1, 1000):
            suffix = f"-{n}" if n > 1 else ""
            kept = path.with_name(f"{path.stem}.unreadable-{stamp}{suffix}.json")
            try:
                # A hard link never replaces an existing file: an earlier kept save survives.
                os.link(path, kept)
            except FileExistsError:
                continue
            path.unlink()
            return kept.name
        raise OSError("no free name to keep the unreadable save")


def _save_family(doc: Mapping[str, Any]) -> str:
    """The kind of game a saved table holds ("classic" or "handfoot"), from its rules."""
    game = doc.get("game")
    rules = game.get("rules") if isinstance(game, dict) else None
    family = rules.get("family") if isinstance(rules, dict) else None
    return family if family in VARIANT_KEYS else FIRST_SLOT


# ---------------------------------------------------------------------- the table


@dataclass
class Playback:
    """The computer's moves since the learner's last action, for the browser to replay."""

    frames: list[dict[str, Any]] = field(default_factory=list)


class FullGame:
    """A game to 5,000 between the learner (South) and computer players."""

    #: Whether the table's coach may speak (the guided hand has its own, scripted one).
    COACHED = True
    #: Whether the coach reviews each hand (it replays the game's moves from its seed, so a
    #: table dealt an arranged position cannot be reviewed).
    REVIEWS = True

    def __init__(
        self,
        translator: Translator,
        lang: str,
        *,
        players: int = 4,
        level: str = "normal",
        mode: str = "practice",
        pace: str = "normal",
        day: date | None = None,
        seed: str | None = None,
        store: SaveStore | None = None,
        board: Any = None,
        variant: str = "classic",
    ) -> None:
        if players not in (2, 4):
            raise ValueError("players must be 2 or 4")
        if variant not in VARIANT_KEYS:
            raise ValueError(f"unknown variant {variant!r}")
        if level not in BOTS:
            raise ValueError(f"unknown level {level!r}")
        if mode not in MODES or pace not in PACES:
            raise ValueError("unknown mode or pace")
        self.tr = translator
        self.lang = lang
        self.store = store if store is not None else SaveStore()
        self.board = board  # a leaderboard (None: opened on first use)
        self.player = "this-kernel"  # the browser's id, once it has said it
        #: Who records on the leaderboard before (or without) a browser id: this kernel alone,
        #: never every page that has not said hello.
        self._kernel_player = f"kernel-{secrets.token_hex(8)}"
        self._said_hello = False
        self.narration = Narration()
        self._move_lines: list[Line] = []  # the lines of the move just played
        self._playback_id = 0
        self.playback = Playback()
        self.notice = ""  # a one-off sentence in the panel (restored, save unreadable...)
        self.hint = ""
        self.board_rows: list[list[str]] | None = None
        self.board_done = False
        self.pending: dict[str, Any] = {}
        #: "new" or "daily" while the panel asks before the game in progress is given up.
        self.confirming: str | None = None
        #: The other variant's game while this one is played (its save, kept in the kernel
        #: too: a browser without storage still gets it back).
        self._parked: dict[str, dict[str, Any]] = {}
        self.pace = pace
        self.variant = variant
        self._review_due = False
        self._new_game(players, level, mode, day, seed)
        self.coach = TableCoach(self)
        self.controller = GameTable(
            self.shown_state(),
            translator,
            lang,
            seat=LEARNER,
            players=self._partner_map(),
            on_game_intent=self._on_control,
        )
        self.controller.forward = self.learner_moves
        self.controller.on_game_values = self._on_values
        self.widget: CardTable = self.controller.widget
        self.widget.game_controller = self
        self.widget.game_name = "full-game"
        self._run_bots()
        self.render()

    # ------------------------------------------------------------------ set-up

    def _new_game(
        self, players: int, level: str, mode: str, day: date | None, seed: str | None
    ) -> None:
        # Hand and Foot is four players in partnerships whatever was asked (H-DECK-1).
        rules = find_variant(self.variant).rules_for(players)
        self.players = rules.players
        self.level = level
        self.mode = mode
        if mode == "daily":
            self.day: date | None = day or datetime.now(timezone.utc).date()
            seed = daily_seed(self.day, rules.name)
            # The deal is public on purpose: everyone on the board plays the same cards, and
            # anyone can check it.  The computers' randomness is not (F24): 128 bits of the
            # system's, fresh for each daily game, so a script knowing the public seed cannot
            # foresee their choices, and a learner who restarts the deal and replays the same
            # moves does not meet the same game.  Fresh per game rather than one server
            # secret mixed with the day: with a secret a day, the computers would answer the
            # same moves the same way all day long, and a replay would still work.  This holds
            # for the computers that use randomness (easy's discards, hard's sampled worlds,
            # every Hand and Foot level); Classic's "normal" player decides from the position
            # alone, so against it a replay of the same moves is still the same game.
            self.bot_salt = secrets.token_hex(16)
        else:
            self.day = None
            seed = seed or f"practice/{secrets.token_hex(6)}"
            self.bot_salt = ""
        self.game = Game(rules, seed)
        self.seats = self._make_seats()
        self.takebacks: list[int] = []  # len(game.moves) before each learner action
        self.awaiting_next = False
        self.hint = ""
        self.board_rows = None
        self.board_done = False

    def _make_seats(self) -> list[Seat]:
        seats = []
        for s in range(self.players):
            if s == LEARNER:
                seats.append(Seat("learner"))
            else:
                seats.append(Seat("bot", find_bot(self.level, seed=self._bot_seed(s))))
        return seats

    def _bot_seed(self, seat: int) -> str:
        """The seed of the computer at ``seat``: from the game's seed (a practice game
        replays), and in a daily game also from ``bot_salt`` (see ``_new_game``)."""
        if self.bot_salt:
            return f"{self.game.seed}/{seat}/{self.bot_salt}"
        return f"{self.game.seed}/{seat}"

    def _partner_map(self) -> dict[int, Any]:
        # The table enables "Ask partner" only when the partner seat has a player.
        if self.players == 4:
            return {2: self._bot_move}
        return {}

    def _bot_move(self, state: State) -> Move:  # pragma: no cover - the table never calls it
        bot = self.seats[state.to_move].bot
        assert bot is not None
        return bot.step(state).move

    def shown_state(self) -> State:
        """The state the table shows: a moment of the coach's review while it is open, else
        the ended hand until the learner moves on."""
        # ``_new_game`` (called from ``__init__`` before the coach exists) may ask already.
        coach: TableCoach | None = getattr(self, "coach", None)
        reviewed = coach.shown_state() if coach is not None else None
        if reviewed is not None:
            return reviewed
        if (self.awaiting_next or self.game.is_over) and self.game.last_hand is not None:
            return self.game.last_hand
        return self.game.state

    # ------------------------------------------------------------------ moves

    def submit(self, seat: int, move: Move) -> tuple[Verdict, list[Event]]:
        """Play ``move`` for ``seat`` (whoever plays it), narrating what happened."""
        state = self.game.state
        if self.awaiting_next or self.game.is_over or state.to_move != seat:
            raise ValueError("not this seat's turn")
        hand_before = state.hand_number
        verdict, events = self.game.apply_with_events(move)
        if verdict.legal:
            self._move_lines = self.narration.events(events)
            if self.game.last_hand is not None and self.game.last_hand.hand_number == hand_before \
                    and self.game.last_hand.is_over:  # fmt: skip
                self.awaiting_next = not self.game.is_over
                self.takebacks = []
                self._hand_ended()
        return verdict, events

    def learner_moves(self, moves: Sequence[Move]) -> None:
        """The learner's move (or a going-out plan of several), already checked legal.  The
        coach may stop it first with a warning (``TableCoach.screen``)."""
        self.hint = ""
        self.notice = ""
        self.confirming = None  # playing on answers "Start a new game?" with no
        if self.coach.screen(list(moves)):
            self.controller.message = {}
            self.render()
            return
        mark = len(self.game.moves)
        state = self.game.state
        before = state.copy()
        hand_before = state.hands[LEARNER][:]
        last: tuple[Move, Verdict, list[Event]] | None = None
        for move in moves:
            verdict, events = self.submit(LEARNER, move)
            if not verdict.legal:  # pragma: no cover - checked by the table first
                log.error("learner move %s refused after the check", move)
                break
            last = (move, verdict, events)
        if last is not None:
            self.takebacks.append(mark)
            if len(moves) > 1:
                self.controller.say("success", self.tr.ui("msg.went_out"))
            else:
                self.controller.state = state  # the words compare the hand before and after
                self.controller.say(*self.controller._success_text(*last[:2], hand_before,
                                                                   last[2]))  # fmt: skip
            self.coach.after_learner_move(last[0], before)
        self._run_bots()
        self.coach.turn_begins()
        self._save()
        self.render()

    def _run_bots(self) -> None:
        """Computer seats move until the learner is to move (or the hand is over)."""
        frames: list[dict[str, Any]] = []
        for _ in range(MAX_BOT_MOVES):
            state = self.game.state
            if self.awaiting_next or self.game.is_over:
                break
            seat = self.seats[state.to_move]
            if seat.kind != "bot" or seat.bot is None:
                break
            mover = state.to_move
            was_question = state.phase is Phase.ANSWER
            choice = seat.bot.step(state)
            # The partner's reason is kept before the move changes the position it speaks of.
            reason = (
                narrated_reason(state, mover, choice) if self.players == 4 and mover == 2 else None
            )
            verdict, _events = self.submit(mover, choice.move)
            if not verdict.legal:  # pragma: no cover - bots choose among legal moves
                log.error("bot at seat %s chose a refused move %s", mover, choice.move)
                break
            if reason is not None:
                self._explain(mover, reason)
            if was_question and isinstance(choice.move, Answer) and mover == 2:
                key = "msg.partner_yes" if choice.move.yes else "msg.partner_no"
                self.controller.say("info", self.tr.ui(key))
            self.controller.state = self.shown_state()
            frames.append({"view": self.controller.table_view(), "upto": self.narration.count})
        self.controller.state = self.shown_state()
        self._playback_id += 1
        # The last picture is the table itself: the browser replays the ones before it.
        self.playback = Playback(frames[:-1] if frames else [])

    def _explain(self, seat: int, reason: Mapping[str, Any]) -> None:
        """The partner says why it moved (``narration.reason_record``), on its own move's
        line: the first line of its events for this move, never the next seat's."""
        self.narration.explain(self._move_lines, seat, reason)

    def _hand_ended(self) -> None:
        self._review_due = True  # reviewed once the table has shown the hand's end (render)
        hand = self.game.hands[-1]
        we, they = hand.totals[LEARNER % 2], hand.totals[1 - LEARNER % 2]
        self.narration.say(self._rounds_key("game.full.hand_scored"),
                           kind="hand", number=len(self.game.hands), we=signed(we),
                           they=signed(they))  # fmt: skip

    # ------------------------------------------------------------------ controls

    def _on_control(self, control: str) -> None:
        asked, self.confirming = self.confirming, None  # any other button answers "no"
        if self.coach.control(control):
            return
        if control in ("new", "daily"):
            self.ask_new_game(control)
        elif control == "confirm_new" and asked is not None:
            self.start(mode="daily" if asked == "daily" else "practice")
        elif control == "keep_playing" and asked is not None:
            self.render()
        elif control == "next_hand":
            self.next_hand()
        elif control == "hint":
            self.show_hint()
        elif control == "takeback":
            self.take_back()
        elif control.startswith("pace:") and control[5:] in PACES:
            self.pace = control[5:]
            self._save()
            self.render()
        elif control.startswith("level:") and control[6:] in BOTS:
            self._change("level", control[6:])
        elif control in ("players:2", "players:4"):
            self._change("players", int(control[8:]))
        elif control.startswith("variant:") and control[8:] in VARIANT_KEYS:
            self.switch_variant(control[8:])
        elif control == "invite":
            self.invite()
        else:
            self.controller.say("refusal", self.tr.ui("msg.unknown_action"))

    def invite(self) -> None:
        """Make a room for this game's settings with the learner as host, and send the
        browser there in a new tab (``#room=CODE``; it keeps the host's seat token)."""
        from canasta_teach.rooms import RoomError

        from .friends import create_room_for
        from .remote import hub_share

        try:
            code, token = create_room_for(self)
        except RoomError as error:
            self.widget.send({"kind": "room_failed"})  # the page closes the tab it opened
            self.controller.say("refusal", self.tr.ui(error.key, **error.params))
            self.render()
            return
        tr = self.tr
        # The page points the tab it opened on the click at the room (this page stays as it
        # is), or shows the link when the browser opened no tab.
        self.widget.send({"kind": "room_go", "code": code, "token": token, "lang": self.lang,
                          "opened": tr.ui("room.tab_opened"), "blocked": tr.ui("room.tab_blocked"),
                          "link": tr.ui("room.open_link"), "share": hub_share()})  # fmt: skip

    def in_progress(self) -> bool:
        """Moves made in a game not over: a new game would lose them."""
        return bool(self.takebacks or self.game.hands) and not self.game.is_over

    def ask_new_game(self, mode: str) -> None:
        """New game / Daily deal: at once when nothing would be lost, else the panel asks
        first ("Start a new game? The game in progress will be lost.")."""
        if not self.in_progress():
            self.start(mode="daily" if mode == "daily" else "practice")
            return
        self.confirming = mode
        self.render()

    def switch_variant(self, variant: str) -> None:
        """Play the other variant: this game is kept (in its own save) and the other one
        comes back as it was left, or a new one starts when there is none."""
        if variant == self.variant:
            self.render()
            return
        self._save()
        self._parked[self.variant] = self.to_json()
        self.pending.pop("variant", None)
        doc = self._parked.pop(variant, None)
        unreadable = ""
        if doc is None and self._said_hello:
            try:
                doc = self.store.load(self.player, variant)
            except SaveFileError as error:
                log.warning("saved %s game of %s unreadable: %s", variant, self.player, error)
                self._keep_unreadable(self.player, variant)
                unreadable = self.notice
        if doc is not None:
            try:
                self._restore(doc)
            except RESTORE_FAILURES as error:
                log.warning("saved %s game refused: %s", variant, error)
                doc = None
        if doc is None:
            self.start(mode="practice", variant=variant)
            if unreadable:
                self.notice = unreadable
                self.render()
            return
        name = self.tr.ui(VARIANT_KEYS[variant])
        self.notice = self.tr.ui("game.full.variant_resumed", variant=name)
        self.controller.message = {}
        self.render()

    def _change(self, what: str, value: Any) -> None:
        """A new level or table size: at once when nothing has been played, else next game."""
        fresh = not self.takebacks and not self.game.hands and self.mode == "practice"
        if fresh:
            self.start(mode="practice", **{what: value})
            return
        self.pending[what] = value
        self.notice = self.tr.ui("game.full.pending")
        self.render()

    def start(self, *, mode: str = "practice", players: int | None = None,
              level: str | None = None, seed: str | None = None,
              variant: str | None = None) -> None:  # fmt: skip
        """A new game (practice: fresh deals; daily: today's deals)."""
        players = players or self.pending.get("players", self.players)
        level = level or self.pending.get("level", self.level)
        self.variant = variant or self.pending.get("variant", self.variant)
        self.pending = {}
        self.notice = ""
        self.narration.clear()
        self._new_game(int(players), str(level), mode, None, seed)
        self.coach.clear()
        self.coach.review = None
        self.coach.set(mode == "practice")  # daily (leaderboard) games are played alone
        self._set_table()
        self.controller.say("info", self.tr.ui("game.full.started"))
        self._run_bots()
        self.coach.turn_begins()
        self._save()
        self.render()

    def _set_table(self) -> None:
        """The table's partner, buttons and words for the game now played."""
        self.controller.players = self._partner_map()
        self.controller.state = self.shown_state()
        self.controller.actions = default_actions(self.game.state)
        self.controller.widget.labels = build_labels(self.tr, self.game.rules)

    def _rounds_word(self, key: str, **params: Any) -> str:
        """A panel sentence about hands (Classic) or rounds (Hand and Foot)."""
        return self.tr.ui(self._rounds_key(key), **params)

    def _rounds_key(self, key: str) -> str:
        """The variant's own key for ``key`` (``Variant.word``)."""
        return find_variant(self.variant).word(key)

    def next_hand(self) -> None:
        if not self.awaiting_next:
            self.controller.say("refusal", self.tr.ui("game.full.not_now"))
            self.render()
            return
        self.awaiting_next = False
        self.controller.message = {}
        self.coach.clear()
        self.narration.say(self._rounds_key("game.full.hand_starts"),
                           kind="hand", number=self.game.state.hand_number)  # fmt: skip
        self._run_bots()
        self.coach.turn_begins()
        self._save()
        self.render()

    def show_hint(self) -> None:
        """A good move for the learner now (the normal player's choice) and why."""
        state = self.game.state
        if self.awaiting_next or self.game.is_over or state.to_move != LEARNER:
            self.hint = self.tr.ui("game.full.hint_wait")
        else:
            choice = find_bot("normal", seed=f"{self.game.seed}/hint").step(state)
            # What the Hint says of its move are checked facts in the learner's view.
            record = reason_record(state, LEARNER, choice.move)
            why = self.tr.reason_words(record, voice="you")
            self.hint = self.tr.ui("game.full.hint", move=describe_move(self.tr, choice.move),
                                   why=why)  # fmt: skip
        self.render()

    def take_back(self) -> None:
        """Practice only: undo the learner's last action (and the computer's turns after it)."""
        if self.mode != "practice" or not self.takebacks or self.awaiting_next or self.game.is_over:
            self.controller.say("refusal", self.tr.ui("game.full.takeback_none"))
            self.render()
            return
        mark = self.takebacks.pop()
        kept = self.takebacks
        self.coach.clear()
        game = Game.replay(self.game.rules, self.game.seed, self.game.moves[:mark])
        self.game = game
        self.seats = self._make_seats()
        self.takebacks = kept
        self.playback = Playback()
        self._playback_id += 1
        self.controller.state = self.shown_state()
        self.narration.say("game.full.takeback_done")
        self.controller.say("info", self.tr.ui("game.full.takeback_done"))
        self._save()
        self.render()

    def _on_values(self, control: str, values: Mapping[str, str]) -> None:
        if control == "hello":
            self._hello(values.get("player", ""))
        elif control == "board":
            self._record_score(values.get("name", ""))
        else:
            self.controller.say("refusal", self.tr.ui("msg.unknown_action"))

    # ------------------------------------------------------------------ save and resume

    def _hello(self, player: str) -> None:
        """The browser says who it is: resume its saved game, or keep this one under its id."""
        if not PLAYER_ID.fullmatch(player):
            self.controller.say("refusal", self.tr.ui("msg.bad_request"))
            return
        if player == self.player:
            return
        if self._said_hello:
            # One browser, one id: a page that keeps sending new ids would only fill the
            # server's disk with saves.
            self.controller.say("refusal", self.tr.ui("msg.bad_request"))
            return
        self._said_hello = True
        self.player = player
        played = bool(self.takebacks or self.game.hands)
        try:
            doc = self.store.load(player, self.variant)  # this page's game (lesson 12's: H&F)
        except SaveFileError as error:
            log.warning("saved game of %s unreadable: %s", player, error)
            self._keep_unreadable(player, self.variant)
            self._save()
            self.render()
            return
        if doc is None or played:
            self._save()
            return
        try:
            self._restore(doc)
        except RESTORE_FAILURES as error:
            log.warning("saved game of %s refused: %s", player, error)
            self._keep_unreadable(player, self.variant)
            self._save()
        self.render()

    def _keep_unreadable(self, player: str, slot: str) -> None:
        """Rename a save we cannot use out of the way (never delete it) and say so (the
        caller saves the game now played in its place)."""
        try:
            kept = self.store.set_aside(player, slot)
        except OSError:
            kept = self.store.path(player, slot).name
        self.notice = self.tr.ui("game.full.save_unreadable", name=kept)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSION,
            "game": game_to_json(self.game),
            "players": self.players,
            "level": self.level,
            "mode": self.mode,
            "day": self.day.isoformat() if self.day else None,
            "pace": self.pace,
            "takebacks": list(self.takebacks),
            "awaiting_next": self.awaiting_next,
            "board_done": self.board_done,
            "coach": self.coach.to_json(),
            "narration": self.narration.to_json(),
        }

    def _restore(self, doc: Mapping[str, Any]) -> None:
        """Resume a saved table (raises on anything that does not check out)."""
        level, mode, pace = doc["level"], doc["mode"], doc["pace"]
        if level not in BOTS or mode not in MODES or pace not in PACES:
            raise ValueError("bad level, mode or pace")
        takebacks = doc["takebacks"]
        if not isinstance(takebacks, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in takebacks
        ):
            raise ValueError("bad takebacks")
        game = game_from_json(doc["game"], source="saved table")
        if doc["players"] != game.rules.players:
            raise ValueError("players do not match the rules")
        day = date.fromisoformat(doc["day"]) if doc["day"] else None
        self.players, self.level, self.mode, self.pace, self.day = (
            game.rules.players, level, mode, pace, day
        )  # fmt: skip
        self.game = game
        # A resumed daily game gets fresh computers' randomness too (never the public seed's).
        self.bot_salt = secrets.token_hex(16) if mode == "daily" else ""
        self.seats = self._make_seats()
        self.takebacks = [n for n in takebacks if 0 <= n <= len(game.moves)]
        self.awaiting_next = bool(doc.get("awaiting_next")) and game.last_hand is not None
        self.board_done = bool(doc.get("board_done"))
        self.narration = _kept_narration(doc)
        self.variant = game.rules.family
        self.coach.restore(doc.get("coach"))
        self._set_table()
        self.notice = self.tr.ui("game.full.restored")
        self.narration.say("game.full.restored")
        self._run_bots()
        self.coach.turn_begins()

    def _save(self) -> None:
        try:
            self.store.save(self.player, self.to_json(), self.variant)
        except (OSError, ValueError) as error:  # a read-only home: the game goes on unsaved
            log.warning("could not save the game: %s", error)

    # ------------------------------------------------------------------ leaderboard

    def _leaderboard(self) -> Any:
        if self.board is None:
            from canasta_teach.leaderboard import Leaderboard

            from .remote import RemoteLeaderboard, service_url

            # On a hub the board is the service's: this kernel holds no database URL (F17).
            self.board = RemoteLeaderboard() if service_url() is not None else Leaderboard()
        return self.board

    def _record_score(self, name: str) -> None:
        if self.mode != "daily" or not self.game.is_over or self.board_done or self.day is None:
            self.controller.say("refusal", self.tr.ui("game.full.not_now"))
            self.render()
            return
        try:
            from canasta_teach.leaderboard import LeaderboardError, Result

            board = self._leaderboard()
            if getattr(board, "remote", False):
                # The service scores the game itself, from its moves on the day's deal.
                board.record_game(name, self.day, self.level, self.game.rules.name,
                                  list(self.game.record()["moves"]))  # fmt: skip
            else:
                board.record(
                    Result(
                        name=name,
                        day=self.day,
                        variant=self.game.rules.name,
                        level=self.level,
                        score=self.game.totals[LEARNER % 2],
                        player=self.player if self._said_hello else self._kernel_player,
                    )
                )
            self.board_done = True
            self.controller.say("success", self.tr.ui("game.full.board.recorded"))
            self._save()
        except LeaderboardError as error:
            self.controller.say("refusal", self._board_error(error))
        except Exception:  # noqa: BLE001 - a database problem must not end the game
            log.exception("leaderboard write failed")
            self.controller.say("refusal", self.tr.ui("leaderboard.error.unavailable"))
        self.render()

    def _board_error(self, error: Any) -> str:
        """A leaderboard refusal in the learner's language (numbers in their digits)."""
        params = {
            name: self.tr.number(value) if isinstance(value, int) else value
            for name, value in error.params.items()
        }
        return self.tr.ui(error.key, **params)

    def _board_table(self) -> dict[str, Any] | None:
        if self.mode != "daily" or not self.game.is_over or self.day is None:
            return None
        tr = self.tr
        rows: list[list[str]] = []
        try:
            board = self._leaderboard()
            for i, result in enumerate(board.top(self.day, self.game.rules.name, self.level), 1):
                rows.append([tr.number(i), result.name, signed(result.score)])
        except Exception:  # noqa: BLE001
            log.exception("leaderboard read failed")
            return {"caption": tr.ui("leaderboard.error.unavailable"), "head": [], "rows": []}
        return {
            "id": "board",
            "caption": tr.ui("game.full.board.caption", date=self.day.isoformat()),
            "head": [
                tr.ui("game.full.board.rank"),
                tr.ui("game.full.board.name"),
                tr.ui("game.full.board.score"),
            ],  # fmt: skip
            "rows": rows,
            "empty": tr.ui("game.full.board.empty"),
        }

    # ------------------------------------------------------------------ drawing

    def _sheet_table(self) -> dict[str, Any]:
        tr = self.tr
        mine = LEARNER % 2
        rows = []
        for number, hand in enumerate(self.game.hands, 1):
            rows.append([tr.number(number), signed(hand.totals[mine]),
                         signed(hand.totals[1 - mine])])  # fmt: skip
        totals = self.game.totals
        return {
            "id": "scores",
            "caption": self._rounds_word(
                "game.full.sheet.caption",
                target=tr.number(self.game.rules.game_target),
                rounds=tr.number(self.game.rules.rounds),
            ),  # fmt: skip
            "head": [
                self._rounds_word("game.full.sheet.hand"),
                tr.ui("game.full.sheet.we"),
                tr.ui("game.full.sheet.they"),
            ],  # fmt: skip
            "rows": rows,
            "foot": [
                tr.ui("game.full.sheet.total"),
                signed(totals[mine]),
                signed(totals[1 - mine]),
            ],  # fmt: skip
            "empty": tr.ui("game.full.sheet.empty"),
        }

    def _breakdown(self) -> dict[str, Any] | None:
        """The last hand's score, line by line, when the table stops on it."""
        ended = self.game.last_hand
        if not (self.awaiting_next or self.game.is_over) or ended is None:
            return None
        return breakdown_sheet(self.tr, ended, len(self.game.hands))

    def _prompt(self) -> str:
        tr = self.tr
        mine = LEARNER % 2
        if self.game.is_over:
            we, they = self.game.totals[mine], self.game.totals[1 - mine]
            if self.game.winner is None:
                return tr.ui("game.full.hf.tie", we=signed(we))  # H-GAME-1: equal totals
            key = "game.full.won" if self.game.winner == mine else "game.full.lost"
            return tr.ui(key, we=signed(we), they=signed(they))
        if self.awaiting_next:
            state = self.game.state
            return self._rounds_word("game.full.hand_over",
                                     number=len(self.game.hands),
                                     we=tr.number(state.minimum(mine)),
                                     they=tr.number(state.minimum(1 - mine)))  # fmt: skip
        key = "game.full.intro.four" if self.players == 4 else "game.full.intro.two"
        return self._rounds_word(key, target=tr.number(self.game.rules.game_target),
                                 rounds=tr.number(self.game.rules.rounds))  # fmt: skip

    def _panel(self) -> dict[str, Any]:
        """The game panel above the table (settings, score sheet, breakdown, controls)."""
        tr = self.tr
        practice = self.mode == "practice"
        playing = not (self.awaiting_next or self.game.is_over)
        learner_turn = playing and self.game.state.to_move == LEARNER
        controls = []
        if self.awaiting_next:
            controls.append({"id": "next_hand", "primary": True,
                             "label": self._rounds_word("game.full.next_hand")})  # fmt: skip
        controls += [
            {"id": "hint", "label": tr.ui("game.hint"), "enabled": learner_turn},
        ]
        if practice:
            controls.append({"id": "takeback", "label": tr.ui("game.full.takeback"),
                             "enabled": bool(self.takebacks) and playing})  # fmt: skip
        controls += [
            {"id": "new", "label": tr.ui("game.full.new"), "primary": self.game.is_over},
            {"id": "daily", "label": tr.ui("game.full.daily")},
            {"id": "invite", "label": tr.ui("room.invite"), "new_tab": tr.ui("room.opening")},
        ]
        level_name = tr.ui(LEVEL_KEYS[self.level])
        if self.mode == "daily" and self.day is not None:
            mode_text = tr.ui("game.full.mode.daily", date=self.day.isoformat())
        else:
            mode_text = tr.ui("game.full.mode.practice")
        level = self.pending.get("level", self.level)
        players = self.pending.get("players", self.players)
        variant = self.pending.get("variant", self.variant)
        groups = [
            setting_row(
                tr.ui("game.full.variant_label"),
                "variant",
                [(v, tr.ui(VARIANT_KEYS[v]), v == variant) for v in VARIANT_KEYS],
            ),
            setting_row(
                tr.ui("game.full.level_label"),
                "level",
                [(lv, tr.ui(LEVEL_KEYS[lv]), lv == level) for lv in levels()],
            ),
        ]
        counts = find_variant(variant).player_counts  # Hand and Foot: four only (H-DECK-1)
        if len(counts) > 1:
            sizes = [(n, tr.ui(PLAYER_KEYS[n]), n == players) for n in counts]
            groups.append(setting_row(tr.ui("game.full.players_label"), "players", sizes))
        paces = [(p, tr.ui(PACE_KEYS[p]), p == self.pace) for p in PACES]
        groups.append(setting_row(tr.ui("game.full.pace_label"), "pace", paces))
        if self.mode == "practice":  # daily (leaderboard) games are played without the coach
            groups.append(self.coach.setting())
        # The score sheet and the settings fold away while a hand is played (one line says
        # what is chosen; the table shows the scores) and are open between hands and games.
        summary = [
            tr.ui(VARIANT_KEYS[self.variant]),
            tr.ui(PLAYER_KEYS[self.players]),
            f"{tr.ui('game.full.level_label')} {level_name}",
            f"{tr.ui('game.full.pace_label')} {tr.ui(PACE_KEYS[self.pace])}",
        ]
        fold = {"label": tr.ui("game.full.settings"), "summary": " · ".join(summary),
                "open": not playing}  # fmt: skip
        form = None
        if self.mode == "daily" and self.game.is_over and not self.board_done:
            form = {"id": "board", "field": "name", "label": tr.ui("game.full.board.name_label"),
                    "button": tr.ui("game.full.board.submit"), "maxlength": 24}  # fmt: skip
        tables = [{**self._sheet_table(), "fold": playing}]
        board = self._board_table()
        if board is not None:
            tables.append(board)
        number = tr.number(self.shown_state().hand_number)
        rounds = tr.number(self.game.rules.rounds)
        hand_text = self._rounds_word("game.full.hand_number",
                                      number=number, rounds=rounds)  # fmt: skip
        return {
            "kind": "full",
            "wants_player": True,
            "title": self._rounds_word("game.full.title"),
            "puzzle": f"{hand_text} · {level_name} · {mode_text}",
            "progress": "",
            "solved": False,
            "solved_count": len(self.game.hands),
            "total": 0,
            "prompt": self._prompt(),
            "notice": self.notice,
            "choices": [],
            "groups": groups,
            "fold": fold,
            "sheet": self._breakdown(),
            "tables": tables,
            "form": form,
            "hint": self.hint,
            "controls": controls,
            "confirm": self._confirm_box(),
            "coach": self.coach.panel(),
            "stage": "over"
            if self.game.is_over
            else ("hand_over" if self.awaiting_next else "play"),  # fmt: skip
            "narration_label": tr.ui("game.full.narration"),
            "why_label": tr.ui("game.full.why_label"),
            "skip_label": tr.ui("game.full.skip"),
        }

    def _confirm_box(self) -> dict[str, Any] | None:
        """The question asked before a new game replaces the one in progress."""
        if self.confirming is None:
            return None
        tr = self.tr
        return {
            "id": "new_game",
            "text": tr.ui("game.full.confirm_new"),
            "yes": {"id": "confirm_new", "label": tr.ui("game.full.confirm_yes")},
            "no": {"id": "keep_playing", "label": tr.ui("game.full.confirm_no")},
        }

    def render(self) -> None:
        """Send the panel and the table (one comm message); then, when a hand has just
        ended, the coach reviews it and the panel is sent again with the review (the table
        shows the hand's end at once, the review follows)."""
        self._draw()
        if self._review_due:
            self._review_due = False
            if self.coach.on and self.REVIEWS:
                self.coach.hand_ended()
                self._save()
                self._draw()

    def _draw(self) -> None:
        # A reviewed moment is only looked at: no action buttons on it.
        looking_back = self.coach.looking_back
        self.controller.actions = () if looking_back else default_actions(self.game.state)
        with self.widget.hold_sync():
            self.widget.game = self._panel()
            self.controller.state = self.shown_state()
            view = self.controller.table_view()
            view["narration"] = self.narration.shown(self.tr, self.players, LEARNER)
            view["playback"] = {
                "id": self._playback_id,
                "pace_ms": PACES[self.pace],
                "frames": self.playback.frames,
            }
            self.widget.view = view


def _kept_narration(doc: Mapping[str, Any]) -> Narration:
    """A save's narration (none in a save of version 1); one that cannot be read is dropped,
    not the game with it."""
    kept = doc.get("narration")
    if kept is None:
        return Narration()
    try:
        return Narration.from_json(kept)
    except ValueError as error:
        log.warning("saved narration dropped: %s", error)
        return Narration()


# ---------------------------------------------------------------------- play_game()


def play_game(
    lang: str = "en",
    *,
    players: int = 4,
    level: str = "normal",
    mode: str = "practice",
    pace: str = "normal",
    seed: str | None = None,
    data_dir: Path | None = None,
    variant: str = "classic",
) -> Any:
    """The full-game widget in language ``lang``: display it (the value of the cell).

    Never raises: a bad language code or a bad option shows a clear message instead."""
    from canasta_teach.i18n import UnknownLanguage, get_translator

    from .games import error_widget, language_error_widget

    try:
        translator = get_translator(lang)
    except UnknownLanguage as error:
        return language_error_widget(error)
    lang = translator.lang
    try:
        store = SaveStore(data_dir / "games" if data_dir is not None else None)
        game = FullGame(translator, lang, players=players, level=level, mode=mode, pace=pace,
                        seed=seed, store=store, variant=variant)  # fmt: skip
        return game.widget
    except ValueError:
        return error_widget(translator, lang, "error.game_options")
    except Exception:  # noqa: BLE001 - no traceback may reach a learner
        log.exception("play_game(%r) failed", lang)
        return error_widget(translator, lang, "msg.error")


__all__ = ["LEARNER", "PACES", "FullGame", "SaveStore", "Seat", "play_game"]
