"""The narration of a table: what every player did, one line a happening, kept without words.

A line keeps what happened, not a sentence: an engine event (``Event.to_dict()``), or a panel
message (a ui key and its facts), and for a computer partner's move its reason (see
``reason_record``).  The words are made when the narration is drawn (``Narration.shown``), in
the reader's language and from the reader's seat (their own moves in the second person), so a
narration kept in a save or rebuilt from a room's record reads right in whatever language the
learner comes back in.

The full game (``fullgame.FullGame``), the guided hand and the rooms (``friends.RoomTable``)
narrate through one ``Narration`` each.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from canasta_teach.engine import Event, State
from canasta_teach.engine.view import seat_names
from canasta_teach.i18n import Translator

log = logging.getLogger(__name__)

#: Lines of narration kept (older ones scroll away).
NARRATION_KEPT = 60
#: Events that never make a line of their own ("Now it is the turn of West": the table says it).
UNTOLD = frozenset({"turn"})


# ---------------------------------------------------------------------- a computer's reason


def reason_record(state: State, seat: int, choice: Any) -> dict[str, Any]:
    """A bot's reason for its move (``bots.Choice``) at ``state``, before it is played, as it
    is kept: JSON-ready, no words: the move and the checked facts said about it in the bot's
    view (``bots.claims.reason_record``), with the bot's own (``Choice.claims``).

    The one place that knows how a reason is stored (with ``reason_words``)."""
    from canasta_teach.bots.claims import reason_record as checked

    return checked(state, seat, choice.move, choice.claims)


def reason_words(tr: Translator, record: Mapping[str, Any]) -> str:
    """A kept reason in the reader's words: what the partner did, then its facts."""
    return tr.reason_words(record, voice="me")


def _is_reason(why: Any) -> bool:
    """A kept reason (``reason_record``): a move in the notation and a list of claims."""
    return (isinstance(why, Mapping) and isinstance(why.get("move"), str)
            and isinstance(why.get("headline"), str) and isinstance(why.get("claims"), list)
            and all(isinstance(c, Mapping) and isinstance(c.get("key"), str)
                    for c in why["claims"]))  # fmt: skip


# ---------------------------------------------------------------------- lines


@dataclass
class Line:
    """One line of narration, without words: ``event`` (an ``Event.to_dict()``) or ``key``
    and ``params`` (a ui message; ``seats``: params that are seat letters, named in the
    reader's language), ``why`` (a computer partner's reason, ``reason_record``)."""

    n: int
    seat: int = -1
    kind: str = "event"  # "event", "hand" (a hand ended or began), "info"
    event: dict[str, Any] | None = None
    key: str = ""
    params: dict[str, Any] | None = None
    seats: dict[str, int] | None = None
    why: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n": self.n, "seat": self.seat, "kind": self.kind}
        for name in ("event", "key", "params", "seats", "why"):
            value = getattr(self, name)
            if value:
                out[name] = value
        return out

    @classmethod
    def from_json(cls, data: Any) -> Line:
        """A kept line; raises ``ValueError`` on anything that is not one."""
        if not isinstance(data, Mapping):
            raise ValueError("not a narration line")
        n, seat, kind = data.get("n"), data.get("seat", -1), data.get("kind", "event")
        if not _is_int(n) or not _is_int(seat) or kind not in ("event", "hand", "info"):
            raise ValueError("bad narration line")
        event, key = data.get("event"), data.get("key", "")
        params, seats, why = data.get("params"), data.get("seats"), data.get("why")
        if event is not None and not (
            isinstance(event, Mapping)
            and isinstance(event.get("code"), str)
            and _is_int(event.get("seat"))
            and isinstance(event.get("params", {}), Mapping)
            and isinstance(event.get("private", {}), Mapping)
        ):
            raise ValueError("bad narration event")
        if not isinstance(key, str) or (event is None) == (not key):
            raise ValueError("a narration line is an event or a message")
        if params is not None and not isinstance(params, Mapping):
            raise ValueError("bad narration params")
        if seats is not None and not (
            isinstance(seats, Mapping) and all(_is_int(s) for s in seats.values())
        ):
            raise ValueError("bad narration seats")
        if why is not None and not _is_reason(why):
            raise ValueError("bad narration reason")
        assert isinstance(n, int) and isinstance(seat, int)
        return cls(
            n=n,
            seat=seat,
            kind=str(kind),
            event=dict(event) if event is not None else None,
            key=key,
            params=dict(params) if params else None,
            seats={str(k): int(v) for k, v in seats.items()} if seats else None,
            why=dict(why) if why else None,
        )

    def words(self, tr: Translator, players: int, you: int | None) -> tuple[str, str]:
        """The line's sentence and its reason (empty when it has none) for a reader at seat
        ``you`` (None: nobody's own moves)."""
        if self.event is not None:
            text = tr.event(self.event, players, you=you)
        else:
            params = dict(self.params or {})
            names = seat_names(players)
            for name, seat in (self.seats or {}).items():
                params[name] = tr.seat(names[seat]) if 0 <= seat < len(names) else ""
            text = tr.ui(self.key, **params)
        why = ""
        if self.why:
            try:
                why = reason_words(tr, self.why)
            except Exception:  # noqa: BLE001 - a reason with no words leaves its line standing
                log.exception("no words for the reason %r", self.why)
        return text, why


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# ---------------------------------------------------------------------- the narration


class Narration:
    """A table's narration: the last ``kept`` lines, numbered from the first."""

    def __init__(self, kept: int = NARRATION_KEPT) -> None:
        self.kept = kept
        self.lines: list[Line] = []
        self.count = 0  # lines ever added: the next line's number is count + 1

    def __len__(self) -> int:
        return len(self.lines)

    def clear(self) -> None:
        """Start afresh (a new game); the numbers go on, so the browser sees new lines."""
        self.lines = []

    def _add(self, line: Line) -> Line:
        self.lines.append(line)
        del self.lines[: -self.kept]
        return line

    def _next(self) -> int:
        self.count += 1
        return self.count

    def events(self, events: Iterable[Event]) -> list[Line]:
        """A line for each event worth telling, in order."""
        added = []
        for event in events:
            if event.code in UNTOLD:
                continue
            kind = "hand" if event.code == "hand_over" else "event"
            line = Line(self._next(), seat=event.seat, kind=kind, event=event.to_dict())
            added.append(self._add(line))
        return added

    def say(self, key: str, *, seat: int = -1, kind: str = "info",
            seats: Mapping[str, int] | None = None, **params: Any) -> Line:  # fmt: skip
        """A panel message as a line (``key`` of the ui catalog, its facts in ``params``)."""
        line = Line(self._next(), seat=seat, kind=kind, key=key, params=dict(params) or None,
                    seats=dict(seats) if seats else None)  # fmt: skip
        return self._add(line)

    @staticmethod
    def explain(lines: Sequence[Line], seat: int, record: Mapping[str, Any]) -> bool:
        """Give ``seat``'s move its reason: on the first of ``lines`` (the move's lines) that
        is ``seat``'s own, never a line of the next seat's turn.  Whether one was."""
        for line in lines:
            if line.seat == seat and line.event is not None:
                line.why = dict(record)
                return True
        return False

    def shown(self, tr: Translator, players: int, you: int | None) -> list[dict[str, Any]]:
        """The lines as the browser draws them: number, sentence, reason, seat, kind."""
        out = []
        for line in self.lines:
            try:
                text, why = line.words(tr, players, you)
            except Exception:  # noqa: BLE001 - a line with no words must not stop the table
                log.exception("no words for narration line %r", line)
                continue
            out.append({"n": line.n, "text": text, "why": why, "seat": line.seat,
                        "kind": line.kind})  # fmt: skip
        return out

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "lines": [line.to_json() for line in self.lines]}

    @classmethod
    def from_json(cls, data: Any, kept: int = NARRATION_KEPT) -> Narration:
        """A kept narration; raises ``ValueError`` on anything that is not one."""
        if not isinstance(data, Mapping) or not isinstance(data.get("lines"), list):
            raise ValueError("not a narration")
        narration = cls(kept)
        narration.lines = [Line.from_json(item) for item in data["lines"]][-kept:]
        count = data.get("count", 0)
        if not _is_int(count):
            raise ValueError("bad narration count")
        last = max((line.n for line in narration.lines), default=0)
        narration.count = max(int(count), last)
        return narration


__all__ = ["NARRATION_KEPT", "Line", "Narration", "reason_record", "reason_words"]
