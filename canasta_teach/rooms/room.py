"""A room: one table shared by several browsers, and its authority.

Every change to a room goes through :class:`Rooms`: the seat is found from the visitor's secret
token, the turn order is checked, the engine checks the move, plays it, and the computer players
in the empty seats move until a person is to move.  A refused move changes nothing and its
reason goes back only to the player who made it.

A change is made on a copy read from the store, with no lock held (the computer players may
think for a second or more, and on SQLite a lock would be the whole server's), then written only
if nobody changed the room meanwhile (``RoomStore.write_if``, a compare-and-set on the version);
otherwise it is made again on the new room.  A change that keeps losing that race claims the
room (``RoomStore.claim``): the others then wait for it, so a move always completes.  A seat's
language is kept apart from the document (``RoomStore.set_lang``): switching it is not a change
of the game and never makes the computers think again.  A seat's settings and language switches
are counted (``RoomStore.allow_write``) and refused as ``too_fast`` past what any person does.

The room document (JSON) holds the settings, the seats (``human`` with the SHA-256 of its
token, ``open`` before the game, ``bot``, or ``released``: a person's seat the computer took
over after they stayed away longer than the room keeps a seat) and the game as the engine's
own record (rules, seed, moves).  It never holds a token itself, and no browser ever receives
it: each kernel reads it and sends its browser only that seat's view.

Room codes are 10 symbols from 31 that cannot be misread aloud (no 0/O, 1/I/L): about 49 bits,
shown as ``ABCDE-FGHJK``.  Seat tokens are 32 random bytes.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from canasta_teach.engine import Answer, Move, Verdict
from canasta_teach.engine.game import Game
from canasta_teach.engine.notation import parse_move
from canasta_teach.engine.rules import FAMILIES, preset
from canasta_teach.engine.state import Phase
from canasta_teach.engine.variants import find_variant

from .store import KEEP_ALIVE_S, RoomStore, StoreError

ROOM_FORMAT: Final = "canasta-teach/room"
ROOM_VERSION: Final = 1
CODE_ALPHABET: Final = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH: Final = 10
TOKEN_BYTES: Final = 32
#: The random part of a room's seed, from the system's randomness (``secrets``): every hidden
#: card of every hand of the room follows from the seed, so it must not be searchable (F25).
SEED_BYTES: Final = 16
VARIANTS: Final = FAMILIES  # a room plays any variant (``engine.variants``)
LEVELS: Final = ("easy", "normal", "hard")
#: How long a person who closed the tab keeps their seat (the host's setting), in minutes.
KEEP_MINUTES: Final = (2, 10, 30)
DEFAULT_KEEP_MINUTES: Final = 10
#: A seat whose browser has not said "still here" for this long is shown as away.
AWAY_AFTER_S: Final = 20.0
#: How often a connected browser's kernel says "still here".
HEARTBEAT_S: Final = 5.0
#: Rooms one browser may hold at once (its id; a page that never said it counts as its own
#: kernel), and one address (a classroom behind one router is one address): F18.
MAX_ROOMS_PER_BROWSER: Final = 3
MAX_ROOMS_PER_ADDRESS: Final = 20
#: A room nobody but its host ever came to closes this long after it was made, or after the
#: host's page last said "still here" (a room a friend joined lives ``store.ttl_s``).
EMPTY_ROOM_S: Final = KEEP_ALIVE_S
#: What the web server puts in each page's request, and so in its kernel's environment: the
#: visitor's address (``canasta_teach.app`` sets it; Voilà passes it on as ``HTTP_...``).
CLIENT_ADDRESS_HEADER: Final = "X-Canasta-Client-Address"
CLIENT_ADDRESS_ENV: Final = "HTTP_X_CANASTA_CLIENT_ADDRESS"
#: Room happenings kept for the narration.
NOTES_KEPT: Final = 40
#: Computer moves in a row before the authority stops (a safety net, never reached in play).
MAX_BOT_MOVES: Final = 2000
#: A seat's settings (and, apart, its language switches) allowed per window: far above what a
#: person does, far below what a page in a loop does (F21: 160 switches a second).  Moves are
#: not counted: one writes only on its seat's turn and only when legal, so the game bounds them.
SEAT_WRITES: Final = 30
SEAT_LANG_WRITES: Final = 10
SEAT_WINDOW_S: Final = 10.0
#: Changes made again after losing the race to another writer before this one claims the room.
OPTIMISTIC_TRIES: Final = 3
#: How long a claim holds the room at most (longer than the computers' turns; the claim of a
#: kernel that died lapses by itself), and how long a writer waits for another's claim.
CLAIM_S: Final = 30.0
CLAIM_WAIT_S: Final = 45.0
CLAIM_POLL_S: Final = 0.02

#: Every ``RoomError.code``; the UI has a ``room.error.<code>`` text for each.
ERROR_CODES: Final = (
    "bad_code",  # not a room code at all
    "no_room",  # no such room, or it has expired
    "full",  # every seat is taken
    "bad_token",  # the seat this browser had is no longer its own
    "not_host",  # only the host may do that
    "not_your_turn",
    "not_now",  # not at this stage of the room (lobby, between hands, game over)
    "too_many_people",  # more people than seats for that table size
    "not_away",  # the computer may only stand in for a player who is away
    "too_many_rooms",  # the server holds as many rooms as it may
    "own_rooms",  # this browser or address holds as many rooms as one visitor may
    "unavailable",  # the store cannot be reached
    "store_reset",  # the store was damaged, set aside and started afresh (its rooms are gone)
    "too_fast",  # this seat wrote to the room more often than a person does: wait a moment
)


#: Room happenings told in the narration (``room.note.<code>``); "created" is not told.
NOTE_CODES: Final = ("joined", "started", "back", "stand_in", "released", "host")


class RoomError(Exception):
    def __init__(self, code: str, **params: Any) -> None:
        assert code in ERROR_CODES, code
        super().__init__(code)
        self.code = code
        self.params = params

    @property
    def key(self) -> str:
        return f"room.error.{self.code}"


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def shown_code(code: str) -> str:
    """``ABCDEFGHJK`` as read aloud: ``ABCDE-FGHJK``."""
    half = CODE_LENGTH // 2
    return f"{code[:half]}-{code[half:]}"


def normalise_code(text: object) -> str:
    """A code as typed or linked (any case, spaces or dashes) → the stored form; raises
    ``RoomError("bad_code")`` for anything else."""
    if not isinstance(text, str) or len(text) > 40:
        raise RoomError("bad_code")
    code = "".join(ch for ch in text.upper() if ch not in " -\u2010\u2011\u2013")
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        raise RoomError("bad_code")
    return code


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def seat_of(doc: dict[str, Any], token: object) -> int | None:
    """The seat whose token this is (compared in constant time), or None."""
    if not isinstance(token, str) or not 20 <= len(token) <= 100:
        return None
    wanted = token_hash(token)
    found = None
    for i, seat in enumerate(doc["seats"]):
        stored = seat.get("token") or ""
        if hmac.compare_digest(stored, wanted) and seat["kind"] == "human":
            found = i
    return found


def rules_name(doc: dict[str, Any]) -> str:
    """The preset a room's game is played with: its variant's for its number of players."""
    return find_variant(doc["variant"]).rules_for(doc["players"]).name


def join_order(players: int) -> tuple[int, ...]:
    """The seats a newcomer is given, in order: the host's partner first (four players)."""
    return (2, 1, 3) if players == 4 else (1,)


def humans(doc: dict[str, Any]) -> list[int]:
    return [i for i, s in enumerate(doc["seats"][: doc["players"]]) if s["kind"] == "human"]


def _note(doc: dict[str, Any], code: str, seat: int = -1, **params: Any) -> None:
    doc["note_n"] = doc.get("note_n", 0) + 1
    doc["notes"].append({"n": doc["note_n"], "code": code, "seat": seat, **params})
    del doc["notes"][:-NOTES_KEPT]


def _former_seat(doc: dict[str, Any], token: object) -> int | None:
    """The released seat this token held before the computer took it over, or None."""
    if not isinstance(token, str) or not 20 <= len(token) <= 100:
        return None
    wanted = token_hash(token)
    found = None
    for i, seat in enumerate(doc["seats"][: doc["players"]]):
        former = seat.get("former") or ""
        if seat["kind"] == "released" and hmac.compare_digest(former, wanted):
            found = i
    return found


def _last_seen(doc: dict[str, Any], entry: dict[str, Any], seen: float | None) -> float:
    """When the person in this seat was last known to be here."""
    last = float(doc["created"]) if seen is None else seen
    moved = entry.get("seated")
    return last if moved is None else max(last, float(moved))


def _stamp_moved(tokens_before: list[Any], doc: dict[str, Any]) -> None:
    """People the host moved to another seat are "seated" there now (their presence, kept per
    seat number, starts again from the move)."""
    now = time.time()
    for i, seat in enumerate(doc["seats"]):
        if seat["kind"] == "human" and seat.get("token") != tokens_before[i]:
            seat["seated"] = now


def _pass_host(doc: dict[str, Any], presence: dict[int, float], now: float) -> None:
    """The host has been away past the keep time (F31): the host role passes to the person
    here the longest in join order; with nobody here, it stays with the released seat and
    goes to whoever sits there next (the host coming back, or a newcomer)."""
    for i in (*join_order(doc["players"]), 0):
        entry = doc["seats"][i]
        if entry["kind"] == "human" and now - presence.get(i, 0.0) <= AWAY_AFTER_S:
            for seat in doc["seats"]:
                seat.pop("host", None)
            entry["host"] = True
            _note(doc, "host", i)
            return


def _keep_a_host(doc: dict[str, Any], seated: int) -> None:
    """One host while anyone is seated: when nobody seated holds the role (it passed to no
    one, F31), the person who just sat down (``seated``) takes it."""
    people = humans(doc)
    if any(doc["seats"][i].get("host") for i in people):
        for seat in doc["seats"]:
            if seat["kind"] != "human":
                seat.pop("host", None)
        return
    for seat in doc["seats"]:
        seat.pop("host", None)
    doc["seats"][seated]["host"] = True
    _note(doc, "host", seated)


@dataclass
class Snapshot:
    """A room as one kernel read it."""

    code: str
    version: int
    doc: dict[str, Any]
    presence: dict[int, float]
    #: Each person's language by their token's hash (``RoomStore.langs``).
    langs: dict[str, str] = field(default_factory=dict)

    def away(self, seat: int, now: float | None = None) -> bool:
        now = time.time() if now is None else now
        return now - self.presence.get(seat, 0.0) > AWAY_AFTER_S

    def lang(self, seat: int) -> str:
        """The language the person in ``seat`` reads the room in ("" if not a person)."""
        entry = self.doc["seats"][seat]
        return self.langs.get(entry.get("token") or "", str(entry.get("lang", "")))


class Rooms:
    """The rooms of one server, on a ``RoomStore``: every change to a room is made here."""

    def __init__(self, store: RoomStore) -> None:
        self.store = store
        self._games: dict[str, Game] = {}

    # ------------------------------------------------------------------ reading

    def read(self, code: str) -> Snapshot:
        got = self._store_call(self.store.get, code)
        if got is None:
            raise RoomError("no_room")
        version, doc = got
        presence = self._store_call(self.store.presence, code)
        return Snapshot(code, version, doc, presence, self._store_call(self.store.langs, code))

    def game(self, doc: dict[str, Any]) -> Game | None:
        """The room's game, replayed from its record (kept per room while it only grows)."""
        record = doc.get("game")
        if record is None:
            return None
        code = doc["code"]
        cached = self._games.get(code)
        moves = record["moves"]
        if (
            cached is None
            or cached.seed != record["seed"]
            or cached.rules.name != record["rules"]
            or cached.moves != moves[: len(cached.moves)]
        ):
            cached = Game(preset(record["rules"]), record["seed"])
        for text in moves[len(cached.moves) :]:
            verdict = cached.apply(parse_move(text))
            if not verdict.legal:  # pragma: no cover - only checked moves are recorded
                raise RoomError("unavailable")
        self._games[code] = cached
        return cached

    # ------------------------------------------------------------------ the lobby

    def create(self, lang: str, *, players: int = 4, variant: str = "classic",
               level: str = "normal", keep_minutes: int = DEFAULT_KEEP_MINUTES,
               browser: str | None = None, address: str | None = None,
               ) -> tuple[str, str]:  # fmt: skip
        """A new room with the host in South; its code and the host's token.

        ``browser`` and ``address`` say who asks: each may hold only so many rooms at once
        (``RoomError("own_rooms")``; they are kept hashed, never as given)."""
        if players not in (2, 4) or variant not in VARIANTS or level not in LEVELS:
            raise ValueError("bad room settings")
        players = find_variant(variant).rules_for(players).players  # H-DECK-1: four
        token = secrets.token_urlsafe(TOKEN_BYTES)
        now = time.time()
        for _ in range(10):
            code = new_code()
            seats: list[dict[str, Any]] = [
                {"kind": "human", "token": token_hash(token), "lang": lang, "host": True}
            ]
            seats += [{"kind": "open"} for _ in range(3)]
            doc = {
                "format": ROOM_FORMAT, "version": ROOM_VERSION, "code": code,
                "created": now, "status": "lobby", "players": players, "variant": variant,
                "level": level, "keep_minutes": keep_minutes, "seats": seats, "game": None,
                "notes": [], "note_n": 0, "ttl_s": EMPTY_ROOM_S,
            }  # fmt: skip
            _note(doc, "created", 0)
            owners = {token_hash(f"browser:{browser}"): MAX_ROOMS_PER_BROWSER} if browser else {}
            if address:
                owners[token_hash(f"address:{address}")] = MAX_ROOMS_PER_ADDRESS
            try:
                self.store.create(code, doc, owners)
            except StoreError as error:
                if error.code == "exists":
                    continue
                raise room_error_for(error) from error
            self._store_call(self.store.touch, code, 0)
            self._store_call(self.store.set_lang, code, token_hash(token), lang)
            return code, token
        raise RoomError("unavailable")  # pragma: no cover - ten codes in a row taken

    def join(self, code: str, token: object, lang: str) -> tuple[int, str | None]:
        """Seat a visitor: the seat their token holds (a return), else the first free one.
        Returns the seat and, for a newcomer, their new token."""
        fresh = secrets.token_urlsafe(TOKEN_BYTES)

        def change(doc: dict[str, Any]) -> tuple[bool, tuple[int, str | None]]:
            seat = seat_of(doc, token)
            if seat is not None:
                entry = doc["seats"][seat]
                was_standing_in = entry.pop("stand_in", False)
                if was_standing_in:
                    _note(doc, "back", seat)
                return was_standing_in, (seat, None)
            seat = _former_seat(doc, token)
            if seat is not None:
                # Back after the seat was given to the computer: the same seat, the same token
                # (and the host role, if nobody took it over meanwhile: F31).
                entry = doc["seats"][seat]
                doc["seats"][seat] = {"kind": "human", "token": entry["former"], "lang": lang}
                if entry.get("host"):
                    doc["seats"][seat]["host"] = True
                _note(doc, "back", seat)
                _keep_a_host(doc, seat)
                return True, (seat, None)
            free = self._free_seat(doc)
            if free is None:
                raise RoomError("full" if doc["status"] == "lobby" else "not_now")
            host = doc["seats"][free].get("host")
            doc["seats"][free] = {"kind": "human", "token": token_hash(fresh), "lang": lang}
            doc.pop("ttl_s", None)  # a friend came: the room lives as long as any (F18)
            if host:
                doc["seats"][free]["host"] = True
            _note(doc, "joined", free)
            _keep_a_host(doc, free)
            return True, (free, fresh)

        seat, new_token = self._update(code, change)
        self._store_call(self.store.touch, code, seat)
        who = token_hash(new_token if new_token is not None else str(token))
        # A page joins on every load: its language is kept while within the seat's budget (a
        # page joining in a loop is still seated, its language no longer written).
        if new_token is not None or self._allowed(code, f"{who}/lang", SEAT_LANG_WRITES):
            self._store_call(self.store.set_lang, code, who, lang)
        return seat, new_token

    def set_language(self, code: str, token: object, lang: str) -> None:
        """The language this seat reads the room in (shown to the others; not a change of the
        game: no new version).  ``too_fast`` past ``SEAT_LANG_WRITES`` switches a window."""
        snapshot = self.read(code)
        if seat_of(snapshot.doc, token) is None:
            raise RoomError("bad_token")
        who = token_hash(str(token))
        if not self._allowed(code, f"{who}/lang", SEAT_LANG_WRITES):
            raise RoomError("too_fast", seconds=round(SEAT_WINDOW_S))
        self._store_call(self.store.set_lang, code, who, lang)

    def _free_seat(self, doc: dict[str, Any]) -> int | None:
        if doc["status"] == "lobby":
            wanted = ("open",)
        elif doc["status"] == "playing":
            wanted = ("released",)  # a seat a person left: a newcomer may take it over
        else:
            return None
        # A game's released seats include the host's (seat 0): a newcomer may take it over.
        order = join_order(doc["players"]) + ((0,) if doc["status"] == "playing" else ())
        for seat in order:
            if doc["seats"][seat]["kind"] in wanted:
                return seat
        return None

    def configure(self, code: str, token: object, setting: str, value: Any) -> None:
        """The host's settings before the game: ``players`` (2/4), ``variant``, ``level``,
        ``keep_minutes``, and ``seat`` (``(from, to)``: swap two seats, who partners whom)."""
        self._spend(code, token)

        def change(doc: dict[str, Any]) -> tuple[bool, None]:
            self._host(doc, token)
            if doc["status"] != "lobby":
                raise RoomError("not_now")
            before = [seat.get("token") for seat in doc["seats"]]
            if setting == "players" and value in (2, 4):
                counts = find_variant(doc["variant"]).player_counts
                if value == 2 and (value not in counts or len(humans(doc)) > 2):
                    raise RoomError("too_many_people")
                if value == 2:
                    # The friend sits opposite (North is seat 1 at a two-player table).
                    self._compact(doc)
                doc["players"] = value
            elif setting == "variant" and value in VARIANTS:
                doc["variant"] = value
                if doc["players"] not in find_variant(value).player_counts:
                    self._widen(doc)
            elif setting == "level" and value in LEVELS:
                doc["level"] = value
            elif setting == "keep_minutes" and value in KEEP_MINUTES:
                doc["keep_minutes"] = value
            elif setting == "seat" and isinstance(value, tuple) and len(value) == 2:
                a, b = value
                if not (0 <= a < doc["players"] and 0 <= b < doc["players"]) or a == b:
                    raise RoomError("not_now")
                seats = doc["seats"]
                seats[a], seats[b] = seats[b], seats[a]
            else:
                raise RoomError("not_now")
            _stamp_moved(before, doc)
            return True, None

        self._update(code, change)

    @staticmethod
    def _compact(doc: dict[str, Any]) -> None:
        """Four seats to two: the people keep playing, South first."""
        people = [s for s in doc["seats"] if s["kind"] == "human"]
        people.sort(key=lambda s: not s.get("host"))
        doc["seats"] = people + [{"kind": "open"} for _ in range(4 - len(people))]

    @staticmethod
    def _widen(doc: dict[str, Any]) -> None:
        """Two seats to four: a friend at a two-player table (seat 1) becomes the partner."""
        if doc["players"] == 2:
            seats = doc["seats"]
            seats[1], seats[2] = seats[2], seats[1]
            doc["players"] = 4

    def start(self, code: str, token: object) -> None:
        """The host starts the game: empty seats get computer players."""
        self._spend(code, token)

        def change(doc: dict[str, Any]) -> tuple[bool, None]:
            self._host(doc, token)
            if doc["status"] != "lobby":
                raise RoomError("not_now")
            for seat in doc["seats"][: doc["players"]]:
                if seat["kind"] == "open":
                    seat["kind"] = "bot"
            doc["status"] = "playing"
            seed = f"room/{doc['code']}/{secrets.token_hex(SEED_BYTES)}"
            doc["game"] = {"rules": rules_name(doc), "seed": seed, "moves": [],
                           "awaiting_next": False}  # fmt: skip
            _note(doc, "started", 0)
            game = self.game(doc)
            assert game is not None
            self._run_bots(doc, game)
            return True, None

        self._update(code, change)

    def new_game(self, code: str, token: object) -> None:
        """After a game: back to the lobby, the same people in the same seats."""
        self._spend(code, token)

        def change(doc: dict[str, Any]) -> tuple[bool, None]:
            self._host(doc, token)
            if doc["status"] != "over":
                raise RoomError("not_now")
            for seat in doc["seats"]:
                if seat["kind"] in ("bot", "released"):
                    seat.clear()
                    seat["kind"] = "open"
            doc["status"] = "lobby"
            doc["game"] = None
            return True, None

        self._update(code, change)

    # ------------------------------------------------------------------ play

    def submit(self, code: str, token: object, move: Move) -> Verdict:
        """A player's move, checked by the engine in turn order; the computer players then
        move.  A refused move changes nothing (its verdict says why)."""

        def change(doc: dict[str, Any]) -> tuple[bool, Verdict]:
            seat = seat_of(doc, token)
            if seat is None:
                raise RoomError("bad_token")
            game = self._playing(doc)
            if game.state.to_move != seat:
                raise RoomError("not_your_turn")
            verdict = self._apply(doc, game, move)
            if verdict.legal:
                self._run_bots(doc, game)
            return verdict.legal, verdict

        verdict: Verdict = self._update(code, change)
        return verdict

    def next_hand(self, code: str, token: object) -> None:
        """Any player moves the table on from an ended hand's score."""

        def change(doc: dict[str, Any]) -> tuple[bool, None]:
            if seat_of(doc, token) is None:
                raise RoomError("bad_token")
            record = doc.get("game")
            if doc["status"] != "playing" or record is None or not record["awaiting_next"]:
                return False, None  # already moved on (two players pressed at once)
            record["awaiting_next"] = False
            game = self.game(doc)
            assert game is not None
            self._run_bots(doc, game)
            return True, None

        self._update(code, change)

    def stand_in(self, code: str, token: object, seat: int) -> None:
        """The host lets the computer play for a player who is away (until they return)."""
        self._spend(code, token)
        presence = self._store_call(self.store.presence, code)

        def change(doc: dict[str, Any]) -> tuple[bool, None]:
            self._host(doc, token)
            if doc["status"] != "playing" or not 0 <= seat < doc["players"]:
                raise RoomError("not_now")
            entry = doc["seats"][seat]
            if entry["kind"] != "human" or time.time() - presence.get(seat, 0) <= AWAY_AFTER_S:
                raise RoomError("not_away")
            entry["stand_in"] = True
            _note(doc, "stand_in", seat)
            game = self.game(doc)
            assert game is not None
            self._run_bots(doc, game)
            return True, None

        self._update(code, change)

    def heartbeat(self, code: str, seat: int) -> None:
        """A seat's kernel says its browser is still here; seats whose people stayed away
        longer than the room keeps them are given to the computer (or, before the game,
        freed)."""
        self._store_call(self.store.touch, code, seat)
        presence = self._store_call(self.store.presence, code)
        now = time.time()

        def change(doc: dict[str, Any]) -> tuple[bool, None]:
            limit = doc["keep_minutes"] * 60.0
            changed = False
            for i, entry in enumerate(doc["seats"][: doc["players"]]):
                if entry["kind"] != "human" or entry.get("host") and doc["status"] == "lobby":
                    continue
                # A seat's presence is the seat number's; a person the host moved to this
                # seat counts from the move (F19), not from whoever sat here before.
                if now - _last_seen(doc, entry, presence.get(i)) <= limit:
                    continue
                changed = True
                if doc["status"] == "lobby":
                    doc["seats"][i] = {"kind": "open"}
                else:
                    # The token's hash stays as ``former``: its holder gets this seat back.
                    doc["seats"][i] = {"kind": "released", "host": entry.get("host", False),
                                       "former": entry.get("token", "")}  # fmt: skip
                _note(doc, "released", i)
                if entry.get("host"):
                    _pass_host(doc, presence, now)
            if changed and doc["status"] == "playing":
                game = self.game(doc)
                assert game is not None
                self._run_bots(doc, game)
            return changed, None

        self._update(code, change)

    # ------------------------------------------------------------------ inside a change

    def _host(self, doc: dict[str, Any], token: object) -> int:
        seat = seat_of(doc, token)
        if seat is None:
            raise RoomError("bad_token")
        if not doc["seats"][seat].get("host"):
            raise RoomError("not_host")
        return seat

    def _playing(self, doc: dict[str, Any]) -> Game:
        record = doc.get("game")
        if doc["status"] != "playing" or record is None or record["awaiting_next"]:
            raise RoomError("not_now")
        game = self.game(doc)
        assert game is not None
        return game

    def _apply(self, doc: dict[str, Any], game: Game, move: Move) -> Verdict:
        record = doc["game"]
        hand_before = game.state.hand_number
        verdict = game.apply(move)
        if not verdict.legal:
            return verdict
        record["moves"] = list(game.moves)
        ended = game.last_hand
        if ended is not None and ended.hand_number == hand_before and ended.is_over:
            record["awaiting_next"] = not game.is_over
            if game.is_over:
                doc["status"] = "over"
        return verdict

    def _run_bots(self, doc: dict[str, Any], game: Game) -> None:
        """Computer players (and stand-ins) move until a person is to move."""
        from canasta_teach.bots import find_bot

        record = doc["game"]
        for _ in range(MAX_BOT_MOVES):
            if doc["status"] != "playing" or record["awaiting_next"]:
                return
            state = game.state
            entry = doc["seats"][state.to_move]
            if entry["kind"] == "human" and not entry.get("stand_in"):
                return
            bot = find_bot(doc["level"], seed=f"{record['seed']}/{state.to_move}/{len(game.moves)}")
            choice = bot.step(state)
            move = choice.move
            if state.phase is Phase.ANSWER and not isinstance(move, Answer):  # pragma: no cover
                return
            verdict = self._apply(doc, game, move)
            if not verdict.legal:  # pragma: no cover - bots choose among legal moves
                return

    # ------------------------------------------------------------------ the store

    def _update(self, code: str, change: Callable[[dict[str, Any]], tuple[bool, Any]]) -> Any:
        """Make ``change`` on the room and write it, with no lock held while it runs: read,
        change (the computer players think here), write if the room is still the one read,
        else make the change again on the room as it is now.  After ``OPTIMISTIC_TRIES`` lost
        races the room is claimed, so the others wait and this change completes."""
        owner: str | None = None
        try:
            for tries in range(OPTIMISTIC_TRIES + 3):
                got = self._store_call(self.store.get, code)
                if got is None:
                    raise RoomError("no_room")
                version, doc = got
                try:
                    changed, result = change(doc)
                except RoomError:
                    self._games.pop(code, None)  # a change may have played moves before it refused
                    raise
                if not changed:
                    return result
                write = functools.partial(self.store.write_if, claim=owner)
                written = self._store_call(write, code, version, doc)
                if written is not None:
                    return result
                # Another writer changed the room since we read it: our work is thrown away
                # (the game's cache too: it holds moves that were never written).
                self._games.pop(code, None)
                if owner is None and tries + 1 >= OPTIMISTIC_TRIES:
                    owner = secrets.token_hex(16)
                    self._claim(code, owner)
            raise RoomError("unavailable")  # pragma: no cover - a claimed room is ours to write
        finally:
            if owner is not None:
                self._store_call(self.store.release, code, owner)

    def _claim(self, code: str, owner: str) -> None:
        """Wait for the room to be free of other claims, then hold it."""
        deadline = time.monotonic() + CLAIM_WAIT_S
        while not self._store_call(self.store.claim, code, owner, CLAIM_S):
            if time.monotonic() >= deadline:
                raise RoomError("unavailable")
            time.sleep(CLAIM_POLL_S)

    def _allowed(self, code: str, who: str, limit: int) -> bool:
        return bool(self._store_call(self.store.allow_write, code, who, limit, SEAT_WINDOW_S))

    def _spend(self, code: str, token: object) -> None:
        """Count one of this seat's settings; ``too_fast`` past ``SEAT_WRITES`` a window.  (A
        string that cannot be a token is refused as ``bad_token`` by the change itself.)"""
        plausible = isinstance(token, str) and 20 <= len(token) <= 100
        if plausible and not self._allowed(code, token_hash(str(token)), SEAT_WRITES):
            raise RoomError("too_fast", seconds=round(SEAT_WINDOW_S))

    @staticmethod
    def _store_call(method: Any, *args: Any) -> Any:
        try:
            return method(*args)
        except StoreError as error:
            raise room_error_for(error) from error


def room_error_for(error: StoreError) -> RoomError:
    """The learner's side of a store's refusal or failure."""
    known = {"too_many_rooms": "too_many_rooms", "own_rooms": "own_rooms", "reset": "store_reset"}
    code = known.get(error.code, "unavailable")
    # The refusal of a visitor's room says when a room nobody joined closes (what to do).
    return (
        RoomError(code, minutes=round(EMPTY_ROOM_S / 60))
        if code == "own_rooms"
        else RoomError(code)
    )
