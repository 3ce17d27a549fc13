"""Names on the leaderboard: what may be shown, and when two names look the same.

``normalise_name`` stores a name as NFC without surrounding white space, and refuses one that
looks empty (only fillers, blanks or invisible characters), hides characters (control, format
and other default-ignorable code points; a zero-width joiner or non-joiner only where a script
that shapes with it uses it), piles up combining marks, or is too long.

``name_key`` is the name's confusable skeleton (Unicode Technical Standard #39, section 4),
compared without regard to case: "Ali", "A\u200dli", "Аli" (a Cyrillic A), "AIi" (a capital I)
and "ali" have one key, so the store refuses the second of them on one day's board.  (Case is
folded between two skeletons, so a capital I still reads as an l: "ALI" is the skeleton "all",
not "ali", and stays a name of its own.)  The mapping is Unicode's own
``confusables.txt`` (``confusables.txt`` beside this file, written by ``make_confusables``).
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from pathlib import Path
from typing import Final

from .errors import LeaderboardError

NAME_MAX_CHARS: Final = 24
#: Combining marks in a row on one letter: Urdu vowel marks and a shadda, or an Indic virama
#: and nukta, need two or three; two dozen stack into a smear over the next rows of the table.
MARKS_IN_A_ROW_MAX: Final = 4

#: Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15): characters
#: drawn as nothing.  The Hangul fillers (U+115F, U+1160, U+3164, U+FFA0) are letters to
#: ``unicodedata`` but are among them.
DEFAULT_IGNORABLE_RANGES: Final = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)  # fmt: skip
#: Symbols drawn as an empty cell (not default-ignorable, so listed by hand).
BLANK_SYMBOLS: Final = frozenset({"\u2800"})  # BRAILLE PATTERN BLANK
ZWNJ: Final = "\u200c"
ZWJ: Final = "\u200d"
#: Scripts whose words never need a joiner or non-joiner between letters: there one is only a
#: way to make two names look alike ("A\u200dli" and "Ali").
_NO_JOINER_SCRIPTS: Final = ("LATIN", "GREEK", "CYRILLIC")
_VARIATION_SELECTORS: Final = frozenset(chr(c) for c in range(0xFE00, 0xFE10))
_REFUSED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_CONFUSABLES_FILE: Final = Path(__file__).with_name("confusables.txt")
_SPACES: Final = re.compile(r"\s+")


def is_default_ignorable(char: str) -> bool:
    point = ord(char)
    return any(low <= point <= high for low, high in DEFAULT_IGNORABLE_RANGES)


def _script_word(char: str) -> str:
    """The first word of the character's name: its script for letters and marks."""
    return unicodedata.name(char, "").split(" ", 1)[0]


def _joiner_fits(text: str, index: int) -> bool:
    """A ZWJ/ZWNJ at ``index`` shapes the letters around it: both neighbours are shown, and the
    one before is a letter or mark of a script that uses joiners (Arabic, Devanagari,
    Telugu...) or, for an emoji sequence (a ZWJ), a symbol."""
    if index == 0 or index == len(text) - 1:
        return False
    before, after = text[index - 1], text[index + 1]
    if after in (ZWJ, ZWNJ) or is_default_ignorable(after) or after.isspace():
        return False
    kind = unicodedata.category(before)[0]
    if kind in "LM":
        return _script_word(before) not in _NO_JOINER_SCRIPTS
    return kind == "S" and text[index] == ZWJ


def normalise_name(name: str) -> str:
    """``name`` as stored: NFC, without surrounding white space; ``LeaderboardError`` when it is
    refused (codes ``name_control``, ``name_invisible``, ``name_marks``, ``name_empty``,
    ``name_too_long``)."""
    if not isinstance(name, str):
        raise TypeError(f"a name is text, not {type(name).__name__}")
    text = unicodedata.normalize("NFC", name).strip()
    # Something must show: a letter, digit or symbol that is not drawn as nothing (checked
    # first: a name of only fillers or joiners is told it looks empty, the plainest answer).
    if not any(_shows(char) for char in text):
        raise LeaderboardError("name_empty")
    marks_in_a_row = 0
    for index, char in enumerate(text):
        category = unicodedata.category(char)
        if char in (ZWJ, ZWNJ):
            if not _joiner_fits(text, index):
                raise LeaderboardError("name_invisible", char=f"U+{ord(char):04X}")
        elif category in _REFUSED_CATEGORIES:
            raise LeaderboardError("name_control", char=f"U+{ord(char):04X}")
        elif char in _VARIATION_SELECTORS:
            # One selector picks an emoji's or a symbol's look ("❤️"); anywhere else it is an
            # invisible difference between two names.
            if index == 0 or unicodedata.category(text[index - 1])[0] != "S":
                raise LeaderboardError("name_invisible", char=f"U+{ord(char):04X}")
        elif is_default_ignorable(char):
            raise LeaderboardError("name_invisible", char=f"U+{ord(char):04X}")
        marks_in_a_row = marks_in_a_row + 1 if category in ("Mn", "Me") else 0
        if marks_in_a_row > MARKS_IN_A_ROW_MAX:
            raise LeaderboardError("name_marks", max=MARKS_IN_A_ROW_MAX)
    if len(text) > NAME_MAX_CHARS:
        raise LeaderboardError("name_too_long", length=len(text), max=NAME_MAX_CHARS)
    return text


def _shows(char: str) -> bool:
    return (
        unicodedata.category(char)[0] in "LNS"
        and not is_default_ignorable(char)
        and char not in BLANK_SYMBOLS
    )


@functools.lru_cache(maxsize=1)
def confusables() -> dict[str, str]:
    """Unicode's confusable mappings: a source code point -> its prototype."""
    table: dict[str, str] = {}
    for line in _CONFUSABLES_FILE.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        source, prototype = line.split("\t")
        table[chr(int(source, 16))] = "".join(chr(int(p, 16)) for p in prototype.split())
    return table


def skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, default-ignorable code points removed, each character replaced
    by its prototype, NFD again (repeated while that changes anything: a few prototypes
    read from the table's comments hold precomposed letters that map on)."""
    table = confusables()
    current = text
    for _ in range(4):
        decomposed = unicodedata.normalize("NFD", current)
        mapped = "".join(table.get(c, c) for c in decomposed if not is_default_ignorable(c))
        result = unicodedata.normalize("NFD", mapped)
        if result == current:
            break
        current = result
    return current


def name_key(name: str) -> str:
    """What two names that look alike share (64 hex digits, a fixed width for the store's
    unique index): the skeleton of the case-folded skeleton, runs of white space as one."""
    folded = skeleton(skeleton(name).casefold())
    folded = _SPACES.sub(" ", folded).strip()
    return hashlib.sha256(folded.encode("utf-8")).hexdigest()
