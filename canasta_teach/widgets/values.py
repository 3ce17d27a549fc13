"""Numbers a page sends as text (controls such as ``stand_in:2``, the browser's list of solved
puzzles), read strictly.

``str.isdigit`` is true for ``"²"`` and ``int`` then fails; ``int`` also reads every script's
digits and strings of thousands of digits (past 4,300 it raises). A page's control value is
none of those: ASCII digits, a few of them, or it is refused like any other unknown control
(``../shared/reviews/reliability.md``, F27).
"""

from __future__ import annotations


def small_number(text: object, most: int) -> int | None:
    """``text`` as a number from 0 to ``most`` when it is written with ASCII digits only (no
    sign, no space, no leading zeros beyond one ``0``); None otherwise."""
    if not isinstance(text, str) or not 0 < len(text) <= len(str(most)):
        return None
    if not (text.isascii() and text.isdecimal()) or (len(text) > 1 and text[0] == "0"):
        return None
    value = int(text)
    return value if value <= most else None


def small_numbers(text: object, most: int, *, separator: str = ",") -> set[int]:
    """The numbers of a list such as ``"0,2,5"`` (spaces allowed around each), each as
    :func:`small_number` reads it; the rest is ignored. At most ``most + 1`` parts are read."""
    if not isinstance(text, str):
        return set()
    parts = text.split(separator, most + 1)[: most + 1]
    found = (small_number(part.strip(), most) for part in parts)
    return {n for n in found if n is not None}
