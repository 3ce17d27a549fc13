"""Rooms: a table shared by several browsers (play with friends by link).

``store`` keeps rooms outside the kernels (SQLite by default, Redis past one machine);
``room`` is the authority every change goes through.  No Jupyter import here."""

from .room import (
    AWAY_AFTER_S,
    ERROR_CODES,
    HEARTBEAT_S,
    KEEP_MINUTES,
    RoomError,
    Rooms,
    Snapshot,
    normalise_code,
    seat_of,
    shown_code,
)
from .store import RedisRoomStore, RoomStore, SqliteRoomStore, StoreError, open_store, shared_store

__all__ = [
    "AWAY_AFTER_S", "ERROR_CODES", "HEARTBEAT_S", "KEEP_MINUTES", "RedisRoomStore", "RoomError",
    "RoomStore", "Rooms", "Snapshot", "SqliteRoomStore", "StoreError", "normalise_code",
    "open_store", "seat_of", "shared_store", "shown_code",
]  # fmt: skip
