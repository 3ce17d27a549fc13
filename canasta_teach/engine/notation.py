"""The position and move notation (``docs/notation.md``): plain text a teacher can write.

A position is a few ``key: value`` lines::

    rules: classic4
    turn: S draw
    S: 7 JK K Q 5 4 4
    W: ?11
    ...

``parse_position`` reads one into a ``State`` and ``format_position`` writes a ``State`` back,
in a canonical form: ``parse_position(format_position(s)) == s`` for every state the engine
can reach.  ``parse_move`` / ``format_move`` do the same for one move (``str(move)`` is its
notation).  Every mistake raises ``NotationError``, which says where (line, column, token),
what was expected, and carries a ``code`` and ``params`` so it can be shown in any language.

A position is read as python-chess's ``Board.set_fen`` reads a FEN: ``PositionReader`` first
reads and checks every part (the turn, the scores, the melds, the hands, then it deals the
unknown cards), then builds the state, then checks that the state makes sense as a whole.
Each rule family registers how its positions are read and written (``PositionFormat``):
Classic here, Hand and Foot in ``handfoot_notation``, whose reader extends this one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Final

from .cards import (
    BLACK3,
    DECK_COUNTS,
    DECK_SIZE,
    JOKER,
    NUM_KINDS,
    RED3,
    TOKENS,
    TWO,
    Kind,
    counts_of,
    kinds_of,
    parse_kind,
)
from .moves import (
    ASK,
    DRAW,
    LAY_DOWN,
    NO,
    YES,
    Add,
    Discard,
    Meld,
    Move,
    TakePile,
    canonical,
)
from .rng import SplitMix64
from .rules import BOOL_OPTIONS, PRESETS, RuleSet, int_range
from .seats import seat_names, team_names
from .state import Asked, HandEnd, MeldGroup, Phase, State, new_meld_shape

PHASES: Final = tuple(p.value for p in Phase)
END_KINDS: Final = ("out", "concealed", "stock")

CARD_FORMS: Final = "a card: JK 2 3R 3B 4 5 6 7 8 9 10 J Q K A (T for 10; lower case is fine)"
UNKNOWN_FORMS: Final = "?N for N unknown cards (for example ?11)"
MOVE_FORMS: Final = (
    "draw | take [CARDS] | meld CARDS | add RANK: CARDS | lay down | discard CARD | ask | "
    "answer yes|no"
)
#: Whole numbers in a position (scores, the hand number, penalties, counts) have at most 9
#: digits; a seed that is a number at most 20.  Only ASCII digits are digits.
MAX_NUMBER: Final = 999_999_999
SEED_DIGITS: Final = 20
_ASCII_INT: Final = re.compile(r"[+-]?[0-9]+")
YES_WORDS: Final = ("yes", "true", "on", "y")
NO_WORDS: Final = ("no", "false", "off", "n")


# ---------------------------------------------------------------------------- errors

#: Tokens longer than this are quoted in messages by their start and "…".
SHOWN_TOKEN: Final = 40


def shown_token(token: str) -> str:
    """``token`` as a message quotes it: whole, or its first characters and "…"."""
    return token if len(token) <= SHOWN_TOKEN else token[: SHOWN_TOKEN - 8] + "…"


class NotationError(ValueError):
    """A position or move that cannot be read, with where and why.

    ``code`` names the problem for programs (and message catalogs); ``line`` and ``column``
    are 1-based (``None`` when the problem is the position as a whole); ``token`` is the text
    at fault; ``expected`` says in English what would have been right; ``params`` holds the
    facts a translated message needs.  ``str()`` is an English sentence.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        token: str | None = None,
        expected: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        if token is not None and len(token) > SHOWN_TOKEN:
            # A 5,000-digit number or a megabyte-long word is quoted by its start only.
            message = message.replace(token, shown_token(token))
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.token = token
        self.expected = expected
        self.params: dict[str, Any] = dict(params or {})
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ""
        if self.line is not None:
            where = f"line {self.line}"
            if self.column is not None:
                where += f", column {self.column}"
            where += ": "
        text = where + self.message
        if self.expected:
            text += f" (expected {self.expected})"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "token": self.token,
            "expected": self.expected,
            "params": dict(self.params),
        }


# ---------------------------------------------------------------------------- tokens


@dataclass(frozen=True, slots=True)
class Tok:
    """One token of a value and where it starts (1-based line and column)."""

    text: str
    line: int
    column: int

    def error(
        self, code: str, message: str, expected: str | None = None, **params: Any
    ) -> NotationError:
        """The error about this token: ``raise tok.error("bad_card", ...)``."""
        return NotationError(
            code,
            message,
            line=self.line,
            column=self.column,
            token=self.text,
            expected=expected,
            params=params,
        )


@dataclass(slots=True)
class Line:
    """One ``key: value`` line of a position."""

    key: str  # normalised: lower case, single spaces
    key_text: str
    number: int
    key_column: int
    value: str
    value_column: int  # 1-based column of value[0]

    def tokens(self, separators: str = "") -> list[Tok]:
        """The value's tokens; each separator character is a token of its own."""
        if separators:
            pattern = f"[{re.escape(separators)}]|[^\\s{re.escape(separators)}]+"
        else:
            pattern = r"\S+"
        return [
            Tok(m.group(0), self.number, self.value_column + m.start())
            for m in re.finditer(pattern, self.value)
        ]

    def error(
        self, code: str, message: str, expected: str | None = None, **params: Any
    ) -> NotationError:
        """An error about the whole value (pointing at its first character)."""
        lead = len(self.value) - len(self.value.lstrip())
        return NotationError(
            code,
            message,
            line=self.number,
            column=self.value_column + lead,
            token=self.value.strip() or None,
            expected=expected,
            params=params,
        )

    def key_error(
        self,
        code: str,
        message: str,
        expected: str | None = None,
        *,
        token: str | None = None,
        **params: Any,
    ) -> NotationError:
        """An error about the key (``token``: the part of it at fault, the whole key if None)."""
        return NotationError(
            code,
            message,
            line=self.number,
            column=self.key_column,
            token=self.key_text if token is None else token,
            expected=expected,
            params=params,
        )


def read_card(tok: Tok, expected: str = CARD_FORMS) -> Kind:
    """One card token, or ``bad_card``."""
    try:
        return parse_kind(tok.text)
    except ValueError:
        hint = ""
        if tok.text == "3":
            hint = " (a three is 3R, red, or 3B, black)"
        elif re.fullmatch(r"[0-9]+", tok.text):
            hint = f" (for {tok.text} unknown cards write ?{tok.text})"
        raise tok.error("bad_card", f"'{tok.text}' is not a card{hint}", expected) from None


# ---------------------------------------------------------------------------- formats


@dataclass(frozen=True, slots=True)
class PositionFormat:
    """How one rule family's positions are read and written.

    ``notation`` registers Classic's; a variant's notation module registers its own
    (``register_position_format``), so this module never imports a variant's.  ``keys`` are
    whole keys only this family has ("round"), ``seat_keys`` follow a seat ("S foot") and
    ``team_keys`` a team ("NS piles")."""

    family: str
    title: str
    parse: Callable[[dict[str, Line], RuleSet], State]
    format: Callable[[State], str]
    keys: tuple[str, ...] = ()
    seat_keys: tuple[str, ...] = ()
    team_keys: tuple[str, ...] = ()

    @property
    def own_words(self) -> tuple[str, ...]:
        """The last words of this family's own keys."""
        return (*self.keys, *self.seat_keys, *self.team_keys)


#: The formats by rule family (``RuleSet.family``).
POSITION_FORMATS: Final[dict[str, PositionFormat]] = {}
CLASSIC: Final = "classic"


def register_position_format(position_format: PositionFormat) -> None:
    """Read and write the positions of ``position_format.family`` with it."""
    POSITION_FORMATS[position_format.family] = position_format


# ---------------------------------------------------------------------------- keys

_FIXED_KEYS: Final = (
    "rules", "scores", "turn", "pile", "stock", "seed", "set aside", "dealer", "hand",
    "flags", "ended", "known", "thrown",
)  # fmt: skip
SEAT_WORDS: Final = ("s", "w", "n", "e")
TEAM_WORDS: Final = {"ns": "NS", "sn": "NS", "ew": "EW", "we": "EW", "s": "S", "n": "N"}
_CLASSIC_KNOWN_KEYS: Final = (
    "rules, scores, turn, S W N E (hands), NS/EW melds, NS/EW red threes, set aside, pile, "
    "stock, seed, dealer, hand, flags, ended, known, thrown"
)


def known_keys() -> str:
    """Every key a position may have, in English (what ``unknown_key`` expected)."""
    text = _CLASSIC_KNOWN_KEYS
    for variant in POSITION_FORMATS.values():
        if variant is not CLASSIC_FORMAT:
            own = [
                *variant.keys,
                *(f"S/W/N/E {k}" for k in variant.seat_keys),
                *(f"NS/EW {k}" for k in variant.team_keys),
            ]
            text += f" ({variant.title} also: {', '.join(own)})"
    return text


def read_lines(text: str) -> dict[str, Line]:
    """Split ``text`` into ``key: value`` lines (comments and blank lines dropped)."""
    out: dict[str, Line] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        body = raw.split("#", 1)[0]
        if not body.strip():
            continue
        if ":" not in body:
            stripped = body.strip()
            column = len(body) - len(body.lstrip()) + 1
            raise NotationError(
                "missing_colon",
                f"'{stripped}' has no ':' after its key",
                line=number,
                column=column,
                token=stripped,
                expected="KEY: VALUE, for example 'turn: S draw'",
            )
        key_text, value = body.split(":", 1)
        key_column = len(key_text) - len(key_text.lstrip()) + 1
        key = " ".join(key_text.lower().split())
        line = Line(key, key_text.strip(), number, key_column, value, len(key_text) + 2)
        if not _known_key(key):
            raise line.key_error("unknown_key", f"'{line.key_text}' is not a key", known_keys())
        if key in out:
            first = out[key].number
            raise line.key_error(
                "duplicate_key",
                f"'{line.key_text}' was already given on line {first}",
                "each key once",
                name=key,
                first_line=first,
            )
        out[key] = line
    return out


def _known_key(key: str) -> bool:
    if key in _FIXED_KEYS or key in SEAT_WORDS:
        return True
    head, _, last = key.partition(" ")
    for variant in POSITION_FORMATS.values():
        if key in variant.keys:
            return True
        if head in SEAT_WORDS and last in variant.seat_keys:
            return True
        if head in TEAM_WORDS and last in variant.team_keys:
            return True
    return False


def team_line(lines: dict[str, Line], team_name: str, suffix: str) -> Line | None:
    """The line of a team's ``suffix`` ("NS melds", or its other spelling "SN melds")."""
    found: Line | None = None
    for word, name in TEAM_WORDS.items():
        line = lines.get(f"{word} {suffix}")
        if name == team_name and line is not None:
            if found is not None:
                raise line.key_error(
                    "duplicate_key",
                    f"'{line.key_text}' repeats '{found.key_text}' (line {found.number})",
                    "each key once",
                    name=line.key,
                    first_line=found.number,
                )
            found = line
    return found


# ---------------------------------------------------------------------------- values


def read_int(tok: Tok, what: str, minimum: int = -MAX_NUMBER, maximum: int = MAX_NUMBER) -> int:
    """A whole number of ASCII digits from ``minimum`` to ``maximum`` (never ``int()`` of
    thousands of digits: the length is checked first)."""
    text = tok.text.replace("_", "")
    if not _ASCII_INT.fullmatch(text):
        raise tok.error("bad_number", f"'{tok.text}' is not a whole number", what)
    digits = text.lstrip("+-").lstrip("0")
    if len(digits) > len(str(max(abs(minimum), abs(maximum)))) or not (
        minimum <= int(text) <= maximum
    ):
        raise tok.error(
            "number_out_of_range",
            f"'{tok.text}' is out of range",
            f"{what}, from {minimum} to {maximum}",
            minimum=minimum,
            maximum=maximum,
        )
    return int(text)


def _read_bool(tok: Tok, value: str, name: str) -> bool:
    low = value.lower()
    if low in YES_WORDS:
        return True
    if low in NO_WORDS:
        return False
    raise tok.error(
        "bad_option_value", f"'{value}' is not yes or no for {name}", "yes or no", option=name
    )


def read_one(line: Line, code: str, message: str, expected: str, **params: Any) -> Tok:
    """The value's only token; ``code`` when it has none or several."""
    toks = line.tokens()
    if len(toks) != 1:
        raise line.error(code, message, expected, **params)
    return toks[0]


# ---------------------------------------------------------------------------- rules


def read_rules(line: Line) -> RuleSet:
    """``rules: classic4 black_three_freezes=yes``: a preset and options that differ from it."""
    toks = line.tokens()
    if not toks:
        raise line.error("bad_rules", "the rules are missing", "classic4 or classic2")
    name = toks[0].text.lower()
    if name not in PRESETS:
        raise toks[0].error(
            "bad_rules", f"'{toks[0].text}' is not a rule set", " or ".join(PRESETS)
        )
    rules = PRESETS[name]
    seen: set[str] = set()
    int_toks: dict[str, Tok] = {}
    # ``players`` first: the largest hand size depends on it (rules.int_range).
    for tok in sorted(toks[1:], key=lambda t: not _is_players(t)):
        option, value = _option_name(tok, seen)
        rules = rules.with_options(**{option: _option_value(tok, option, value, rules, int_toks)})
    # The deal must leave a stock (rules.DEALT_MAX): the bound depends on ``players``.
    low, high = int_range("hand_size", rules.players, rules.family)
    if not low <= rules.hand_size <= high:
        at = int_toks.get("hand_size") or int_toks.get("players") or toks[0]
        raise _option_range_error(at, "hand_size", low, high, rules.players)
    return rules


#: Each rule option's type (bool, int or str), by name.
_OPTION_TYPES: Final[dict[str, type]] = {
    f.name: type(getattr(PRESETS["classic4"], f.name)) for f in fields(RuleSet) if f.name != "name"
}


def _is_players(tok: Tok) -> bool:
    return tok.text.partition("=")[0].lower().replace("-", "_") == "players"


def _option_name(tok: Tok, seen: set[str]) -> tuple[str, str]:
    """``name=value``: a known option, given once, with a value."""
    option, eq, value = tok.text.partition("=")
    option = option.lower().replace("-", "_")
    if option not in _OPTION_TYPES:
        raise tok.error(
            "unknown_option",
            f"'{option}' is not a rule option",
            "an option such as black_three_freezes=yes, two_naturals_per_wild=yes, "
            "ask_partner=no, upcard_turn_until_natural=yes",
            option=option,
        )
    if not eq or not value:
        raise tok.error(
            "bad_option_value", f"'{tok.text}' has no value", f"{option}=VALUE", option=option
        )
    if option in seen:
        raise tok.error(
            "duplicate_option", f"'{option}' is given twice", "each option once", option=option
        )
    seen.add(option)
    return option, value


def _option_value(
    tok: Tok, option: str, value: str, rules: RuleSet, int_toks: dict[str, Tok]
) -> Any:
    """An option's value, as these rules may take it (``int_toks``: where each int was)."""
    kind = _OPTION_TYPES[option]
    if kind is bool:
        parsed = _read_bool(tok, value, option)
        if option not in BOOL_OPTIONS[rules.family] and parsed != getattr(rules, option):
            raise tok.error(
                "option_not_in_variant",
                f"'{option}' is not an option of {rules.name}",
                "an option of these rules",
                option=option,
            )
        return parsed
    if kind is int:
        value_tok = Tok(value, tok.line, tok.column + len(option) + 1)
        number = _option_int(value_tok, option, *int_range(option, rules.players, rules.family))
        if option == "players" and number not in (2, 4):
            raise tok.error(
                "bad_option_value",
                "a game has 2 or 4 players",
                "players=2 or players=4",
                option=option,
            )
        int_toks[option] = value_tok
        return number
    # The family comes with the rule set's name (a preset of that family).
    if value != getattr(rules, option):
        raise tok.error(
            "bad_option_value",
            f"'{value}' is not a rule family this engine plays",
            rules.family,
            option=option,
        )
    return value


def _option_int(tok: Tok, option: str, low: int, high: int) -> int:
    """An integer rule option within the range this engine plays (``rules.INT_RANGES``)."""
    try:
        return read_int(tok, option, low, high)
    except NotationError as exc:
        if exc.code != "number_out_of_range":
            raise
        raise _option_range_error(tok, option, low, high) from None


def _option_range_error(
    tok: Tok, option: str, low: int, high: int, players: int | None = None
) -> NotationError:
    if low == high:
        return tok.error(
            "unsupported_option_value",
            f"this engine plays {option} only as {low}, not '{tok.text}'",
            f"{option}={low}",
            option=option,
            supported=low,
        )
    why = f" ({players} hands must leave a stock)" if players is not None else ""
    return tok.error(
        "option_out_of_range",
        f"'{tok.text}' is out of range for {option}{why}",
        f"{option} from {low} to {high}",
        option=option,
        minimum=low,
        maximum=high,
    )


# ---------------------------------------------------------------------------- seats, cards


def read_seat(tok: Tok, seats: Sequence[str]) -> int:
    """A seat's letter at this table."""
    up = tok.text.upper()
    if up not in seats:
        raise tok.error(
            "bad_seat",
            f"'{tok.text}' is not a seat in a {len(seats)}-player game",
            " ".join(seats),
            seats=" ".join(seats),
        )
    return seats.index(up)


def read_team(tok: Tok, teams: Sequence[str]) -> int:
    """A team's name at this table ("NS", or "SN")."""
    name = TEAM_WORDS.get(tok.text.lower())
    if name not in teams:
        raise tok.error(
            "bad_team",
            f"'{tok.text}' is not a team in this game",
            " or ".join(teams),
            teams=" ".join(teams),
        )
    return teams.index(name)


#: A card list is known cards, unknown placeholders (``?N``), and in the stock ``rest``:
#: ("card", kind, tok) | ("unknown", count, tok) | ("rest", 0, tok).
Item = tuple[str, int, Tok]


def card_items(
    line: Line, *, allow_unknown: bool, allow_rest: bool, deck_size: int = DECK_SIZE
) -> list[Item]:
    """A list of cards, ``?N`` (``allow_unknown``) and ``rest`` (``allow_rest``), or ``-``."""
    toks = line.tokens()
    if len(toks) == 1 and toks[0].text == "-":
        return []
    expected = CARD_FORMS
    if allow_unknown:
        expected += ", " + UNKNOWN_FORMS
    if allow_rest:
        expected += ", 'rest' for every card not placed elsewhere, or '-' for none"
    items: list[Item] = []
    for tok in toks:
        text = tok.text
        if text.startswith("?") and allow_unknown:
            items.append(("unknown", _unknown_count(tok, deck_size), tok))
        elif text.lower() == "rest" and allow_rest:
            if any(kind == "rest" for kind, _, _ in items):
                raise tok.error("duplicate_rest", "'rest' may appear only once", "one 'rest'")
            items.append(("rest", 0, tok))
        elif text == "-":
            raise tok.error("bad_card", "'-' means 'none' and must stand alone", expected)
        else:
            items.append(("card", int(read_card(tok, expected)), tok))
    return items


def _unknown_count(tok: Tok, deck_size: int) -> int:
    count_text = tok.text[1:] or "1"
    if not re.fullmatch(r"[0-9]+", count_text):  # ASCII digits only: not ?² nor ?١١
        raise tok.error("bad_count", f"'{tok.text}' is not a count of unknown cards", UNKNOWN_FORMS)
    return read_int(
        Tok(count_text, tok.line, tok.column + 1), "a count of unknown cards", 0, deck_size
    )


def unknown_total(items: Sequence[Item]) -> int:
    """How many unknown cards (``?N``) a card list holds."""
    return sum(value for kind, value, _ in items if kind == "unknown")


def meld_chunks(line: Line, none: str) -> Iterator[list[Tok]]:
    """Melds separated by '|': each meld's card tokens (``-`` for none), one by one, so that
    the first faulty meld is the one reported.  ``none``: how the message writes "none"."""
    toks = line.tokens("|")
    if len(toks) == 1 and toks[0].text == "-":
        return
    chunks: list[list[Tok]] = [[]]
    for tok in toks:
        if tok.text == "|":
            chunks.append([])
        else:
            chunks[-1].append(tok)
    for chunk in chunks:
        if not chunk:
            raise line.error(
                "bad_meld",
                "an empty meld (two '|' in a row, or one at an end)",
                f"cards between the '|' signs, or '-' for {none}",
                problem="no_cards",
            )
        yield chunk


def _meld_groups(line: Line, rules: RuleSet) -> list[tuple[MeldGroup, list[Tok]]]:
    """Classic melds: each a group and its card tokens."""
    out: list[tuple[MeldGroup, list[Tok]]] = []
    seen: set[int] = set()
    for chunk in meld_chunks(line, "no melds"):
        group = _meld_group(chunk, rules)
        if group.rank in seen:
            raise chunk[0].error(
                "duplicate_meld",
                f"a second meld of {TOKENS[group.rank]} (C-MELD-3: one meld of each rank per team)",
                "one meld per rank",
                rank=TOKENS[group.rank],
            )
        seen.add(group.rank)
        out.append((group, chunk))
    return out


#: English for the engine's meld-shape reasons (other languages: the ``notation`` catalog).
_MELD_PROBLEMS: Final[dict[str, str]] = {
    "no_cards": "a meld needs cards",
    "red_three_meld": "a red three is never melded",
    "mixed_ranks": "a meld holds one rank only",
    "all_wild": "a meld of wild cards only is never allowed",
    "too_few": "a meld has at least 3 cards",
    "black_threes_no_wilds": "black threes are melded without wild cards",
    "needs_two_naturals": "a meld needs at least 2 natural cards",
    "too_many_wilds": "a meld holds at most 3 wild cards",
    "two_naturals_per_wild": "with this option every wild card needs two natural cards",
}


def _meld_group(chunk: list[Tok], rules: RuleSet) -> MeldGroup:
    kinds = [read_card(tok) for tok in chunk]
    problem = new_meld_shape(rules, kinds)
    if problem is not None:
        message = _MELD_PROBLEMS.get(problem.code, "not a meld")
        first = chunk[0]
        raise NotationError(
            "bad_meld",
            f"{message} ({problem.rule})",
            line=first.line,
            column=first.column,
            token=" ".join(t.text for t in chunk),
            expected="3 or more cards of one rank, at least 2 natural, at most 3 wild",
            params={"problem": problem.code, **problem.params},
        )
    rank = max(kinds)
    wilds = sum(1 for k in kinds if k <= TWO)
    naturals = len(kinds) - wilds
    jokers = sum(1 for k in kinds if k == JOKER)
    return MeldGroup(rank, naturals, jokers, wilds - jokers)


# ---------------------------------------------------------------------------- flags


@dataclass(slots=True)
class Flags:
    """The ``flags:`` line: facts of the turn in progress and of the hand."""

    took_pile: bool = False
    melded_this_turn: bool = False
    asked: Asked | None = None
    asked_tok: Tok | None = None
    has_melded: list[bool] | None = None
    created: set[int] = field(default_factory=set)
    created_tok: Tok | None = None
    penalties: list[int] = field(default_factory=lambda: [0, 0])
    turn_fact_tok: Tok | None = None  # a fact that only a turn in progress can have


FLAG_FORMS: Final = (
    "took-pile, melded-this-turn, asked=yes|no, has-melded=SEATS|-, created=RANKS, "
    "penalty-TEAM=POINTS"
)
_MELD_RANKS: Final = "a meld rank: 3B 4 5 6 7 8 9 10 J Q K A"


def read_flags(line: Line | None, seats: Sequence[str], teams: Sequence[str]) -> Flags:
    """The flags, each at most once (no line: none)."""
    flags = Flags()
    if line is None:
        return flags
    seen: set[str] = set()
    for tok in line.tokens():
        name, eq, value = tok.text.partition("=")
        name = name.lower().replace("_", "-")
        if name in seen:
            raise tok.error("duplicate_flag", f"'{name}' is given twice", "each flag once")
        seen.add(name)
        if name in ("took-pile", "melded-this-turn"):
            if eq:
                raise tok.error("bad_flag", f"'{name}' takes no value", name)
            flags.took_pile |= name == "took-pile"
            flags.melded_this_turn |= name == "melded-this-turn"
        elif name == "asked":
            flags.asked, flags.asked_tok = _read_asked(tok, value), tok
        elif name == "has-melded":
            flags.has_melded = _read_has_melded(tok, value, seats)
        elif name == "created":
            flags.created, flags.created_tok = _read_created(tok, value), tok
        elif name.startswith("penalty-") or name == "penalty":  # "penalty": a team is missing
            team, points = _read_penalty(tok, name, value, teams)
            flags.penalties[team] = points
        else:
            raise tok.error("bad_flag", f"'{tok.text}' is not a flag", FLAG_FORMS)
        if name in ("took-pile", "melded-this-turn", "asked", "created"):
            flags.turn_fact_tok = flags.turn_fact_tok or tok
    return flags


def _read_asked(tok: Tok, value: str) -> Asked:
    low = value.lower()
    if low not in ("yes", "no"):
        raise tok.error(
            "bad_flag", f"'{tok.text}' is not asked=yes or asked=no", "asked=yes or asked=no"
        )
    return Asked.YES if low == "yes" else Asked.NO


def _read_has_melded(tok: Tok, value: str, seats: Sequence[str]) -> list[bool]:
    has_melded = [False] * len(seats)
    if value != "-":
        for part in _flag_parts(tok, value, "has-melded=S,N or has-melded=-"):
            has_melded[read_seat(part, seats)] = True
    return has_melded


def _read_created(tok: Tok, value: str) -> set[int]:
    created: set[int] = set()
    for part in _flag_parts(tok, value, "created=K,7"):
        kind = read_card(part, _MELD_RANKS)
        if kind < BLACK3:
            raise part.error("bad_flag", f"'{part.text}' is not a meld rank", _MELD_RANKS)
        created.add(int(kind))
    return created


def _read_penalty(tok: Tok, name: str, value: str, teams: Sequence[str]) -> tuple[int, int]:
    team_tok = Tok(name[len("penalty-") :], tok.line, tok.column + len("penalty-"))
    team = read_team(team_tok, teams)
    value_tok = Tok(value, tok.line, tok.column + len(name) + 1)
    return team, read_int(value_tok, "penalty points, for example 100", 0)


def _flag_parts(tok: Tok, value: str, expected: str) -> Iterator[Tok]:
    if not value:
        raise tok.error("bad_flag", f"'{tok.text}' has no value", expected)
    offset = tok.column + len(tok.text) - len(value)
    for m in re.finditer(r"[^,]+", value):
        yield Tok(m.group(0), tok.line, offset + m.start())


# ---------------------------------------------------------------------------- counting, dealing


@dataclass(slots=True)
class CardCounter:
    """Counts every card a position places, to catch more of a kind than a deck has."""

    used: list[int] = field(default_factory=lambda: [0] * NUM_KINDS)
    events: list[tuple[int, int, int, Tok | None]] = field(default_factory=list)
    unknown: int = 0
    rest_tok: Tok | None = None
    deck: Sequence[int] = DECK_COUNTS
    rule: str = "C-DECK-1"

    def add(self, kind: int, count: int, tok: Tok | None) -> None:
        if count:
            self.events.append((kind, count, len(self.events), tok))

    def add_items(self, items: Sequence[Item]) -> None:
        """A card list's cards, its unknown cards and its ``rest``."""
        for what, value, tok in items:
            if what == "card":
                self.add(value, 1, tok)
            elif what == "unknown":
                self.unknown += value
            else:
                self.rest_tok = tok

    def check(self) -> None:
        """C-DECK-1: never more of a kind than the deck holds (reported where it happens)."""

        def order(event: tuple[int, int, int, Tok | None]) -> tuple[int, int, int]:
            tok = event[3]
            return (tok.line, tok.column, event[2]) if tok else (0, 0, event[2])

        for kind, count, _, tok in sorted(self.events, key=order):
            self.used[kind] += count
            if self.used[kind] > self.deck[kind]:
                raise NotationError(
                    "too_many_cards",
                    f"the position holds {self.used[kind]} cards of kind {TOKENS[kind]}; "
                    f"a deck has {self.deck[kind]}",
                    line=tok.line if tok else None,
                    column=tok.column if tok else None,
                    token=tok.text if tok else None,
                    expected=f"at most {self.deck[kind]} of {TOKENS[kind]} ({self.rule})",
                    params={
                        "kind": TOKENS[kind],
                        "count": self.used[kind],
                        "deck": self.deck[kind],
                    },
                )


def read_seed(lines: dict[str, Line]) -> int | str:
    """The ``seed:`` line: a number of at most ``SEED_DIGITS`` digits, or a word (0 without)."""
    if "seed" not in lines:
        return 0
    line = lines["seed"]
    seed_text = line.value.strip()
    if not seed_text:
        raise line.error("bad_seed", "the seed is empty", "a number or a word")
    if re.fullmatch(r"-?[0-9]+", seed_text):
        if len(seed_text.lstrip("-").lstrip("0")) > SEED_DIGITS:
            raise line.error(
                "seed_too_long",
                f"a seed that is a number has at most {SEED_DIGITS} digits",
                f"a number of at most {SEED_DIGITS} digits, or a word",
                digits=SEED_DIGITS,
            )
        return int(seed_text)
    return seed_text


class Dealer:
    """Deals a position's unknown cards (``?N``, ``rest``): the cards of the deck the position
    does not show, shuffled by the seed, taken from the top; ``avoid_red_three`` skips red
    threes (a hand in play or the discard pile never holds one, C-RED-1 / H-RED-1)."""

    def __init__(self, deck: Sequence[int], used: Sequence[int], seed: int | str) -> None:
        self.pool: list[int] = []
        for kind in range(NUM_KINDS):
            self.pool.extend([kind] * (deck[kind] - used[kind]))
        SplitMix64(seed).shuffle(self.pool)

    def __call__(self, count: int, avoid_red_three: bool, tok: Tok) -> list[int]:
        pool = self.pool
        out: list[int] = []
        for _ in range(count):
            index = len(pool) - 1
            while avoid_red_three and index >= 0 and pool[index] == RED3:
                index -= 1
            if index < 0:
                raise tok.error(
                    "cannot_fill",
                    "only red threes are left to fill a hand",
                    "fewer unknown cards in hands",
                )
            out.append(pool.pop(index))
        return out

    def fill(
        self, items: Sequence[Item], rest: int = 0, avoid_red_three: bool = False
    ) -> list[int]:
        """A card list's cards, its unknown ones (and ``rest`` of them for ``rest``) dealt."""
        out: list[int] = []
        for what, value, tok in items:
            if what == "card":
                out.append(value)
            else:
                out.extend(self(value if what == "unknown" else rest, avoid_red_three, tok))
        return out


# ---------------------------------------------------------------------------- reading a position


@dataclass(slots=True)
class PositionParts:
    """A position's parts, each read and checked, from which ``PositionReader.build`` makes
    the state."""

    current: int = 0
    phase: Phase = Phase.DRAW
    scores: list[int] = field(default_factory=lambda: [0, 0])
    dealer: int | None = None
    hand_number: int | None = None
    melds: list[dict[int, MeldGroup]] = field(default_factory=lambda: [{}, {}])
    down: list[bool] = field(default_factory=lambda: [False, False])
    red_threes: list[int] = field(default_factory=lambda: [0, 0])
    staged: dict[int, MeldGroup] = field(default_factory=dict)
    hand_items: list[list[Item]] = field(default_factory=list)
    pile_items: list[Item] = field(default_factory=list)
    stock_items: list[Item] = field(default_factory=list)
    hands: list[list[int]] = field(default_factory=list)  # count vectors, once dealt
    pile: list[int] = field(default_factory=list)
    stock: list[int] = field(default_factory=list)
    flags: Flags = field(default_factory=Flags)
    known: dict[int, tuple[int, ...]] = field(default_factory=dict)
    thrown: dict[int, int] = field(default_factory=dict)
    end: HandEnd | None = None


class PositionReader:
    """Reads a Classic position: every part first, then the state (``read``).

    A variant's reader (``handfoot_notation.HandFootReader``) extends the parts its rules
    change with ``super()`` and reads its own keys.  The order the parts are read in decides
    which of several mistakes is reported, so it is part of the notation's behaviour."""

    #: How the message for a missing hand writes the unknown cards of one.
    hand_example = "?11"
    #: How a score is described when it is not a number.
    score_what = "a cumulative score, for example 1500"
    #: Why nobody is to answer a question (the ``answer`` phase without asking).
    no_asking = "nobody can be asked 'may I go out?' under these rules (C-ASK-1)"

    def __init__(
        self,
        lines: dict[str, Line],
        rules: RuleSet,
        deck: Sequence[int] = DECK_COUNTS,
        deck_rule: str = "C-DECK-1",
    ) -> None:
        self.lines = lines
        self.rules = rules
        self.seats = seat_names(rules.players)
        self.teams = team_names(rules.players)
        self.deck = deck
        self.deck_size = sum(deck)
        self.counter = CardCounter(deck=deck, rule=deck_rule)
        self.parts = PositionParts()

    def read(self) -> State:
        """The position's state; ``NotationError`` on its first mistake."""
        self.check_keys()
        self.read_turn()
        self.read_scores()
        self.read_dealer()
        self.read_hand_number()
        for team, name in enumerate(self.teams):
            self.read_team(team, name)
        self.read_set_aside()
        for seat, name in enumerate(self.seats):
            self.read_seat_cards(seat, name)
        self.read_pile_and_stock()
        self.check_counts()
        deal = Dealer(self.deck, self.counter.used, read_seed(self.lines))
        self.deal_hands(deal)
        self.deal_table(deal)
        self.read_flags()
        self.parts.known, self.parts.thrown = read_record(self.lines, self.parts.hands, self.seats)
        self.read_end()
        state = self.build()
        self.check_sense(state)
        return state

    # -------------------------------------------------------------- the parts

    def check_keys(self) -> None:
        """No key of another family's positions, and only this table's seats and teams."""
        n, seats, teams = self.rules.players, self.seats, self.teams
        for key, line in self.lines.items():
            for variant in POSITION_FORMATS.values():
                if variant is not CLASSIC_FORMAT and key.split()[-1] in variant.own_words:
                    raise line.key_error(
                        "unknown_key",
                        f"'{line.key_text}' belongs to a "
                        f"{variant.title} position, not a Classic one",
                        known_keys(),
                    )
        for key, line in self.lines.items():
            if key in SEAT_WORDS and key.upper() not in seats:
                raise line.key_error(
                    "bad_seat",
                    f"'{line.key_text}' is not a seat in a {n}-player game",
                    " ".join(seats),
                    seats=" ".join(seats),
                )
            word, _, suffix = key.partition(" ")
            if suffix in ("melds", "red threes") and TEAM_WORDS[word] not in teams:
                raise line.key_error(
                    "bad_team",
                    f"'{word.upper()}' is not a team in a {n}-player game",
                    " or ".join(teams),
                    token=word.upper(),
                    teams=" ".join(teams),
                )

    def may_ask(self) -> bool:
        """Whether the player going out may ask the partner first (C-ASK-1)."""
        return self.rules.partner_is_asked

    def read_turn(self) -> None:
        """``turn: SEAT PHASE``."""
        turn = self.lines["turn"]
        toks = turn.tokens()
        if len(toks) != 2:
            raise turn.error(
                "bad_turn",
                "the turn is a seat and a phase",
                "for example 'S draw' (phases: " + ", ".join(PHASES) + ")",
            )
        self.parts.current = read_seat(toks[0], self.seats)
        phase_text = toks[1].text.lower()
        if phase_text not in PHASES:
            raise toks[1].error("bad_phase", f"'{toks[1].text}' is not a phase", " | ".join(PHASES))
        self.parts.phase = Phase(phase_text)
        if self.parts.phase is Phase.ANSWER and not self.may_ask():
            raise toks[1].error("bad_phase", self.no_asking, "draw, meld or ended")

    def read_scores(self) -> None:
        """``scores: NS 0, EW 1500``: each team once."""
        line = self.lines.get("scores")
        if line is None:
            return
        teams = self.teams
        toks = [t for t in line.tokens(",") if t.text != ","]
        if len(toks) != 4:
            raise line.error(
                "bad_scores",
                "the scores are two teams with a number each",
                f"for example '{teams[0]} 0, {teams[1]} 1500'",
            )
        given: set[int] = set()
        for team_tok, number_tok in ((toks[0], toks[1]), (toks[2], toks[3])):
            team = read_team(team_tok, teams)
            if team in given:
                raise team_tok.error(
                    "bad_scores",
                    "a team's score is given twice",
                    f"{teams[0]} and {teams[1]} once each",
                )
            given.add(team)
            self.parts.scores[team] = read_int(number_tok, self.score_what)

    def read_dealer(self) -> None:
        line = self.lines.get("dealer")
        if line is not None:
            seats = " ".join(self.seats)
            tok = read_one(line, "bad_seat", "the dealer is one seat", seats, seats=seats)
            self.parts.dealer = read_seat(tok, self.seats)

    def read_hand_number(self) -> None:
        line = self.lines.get("hand")
        if line is not None:
            tok = read_one(line, "bad_number", "the hand number is one number", "1, 2, 3 ...")
            self.parts.hand_number = read_int(tok, "a hand number: 1, 2, 3 ...", 1)

    def meld_groups(self, line: Line, complete: bool | None) -> list[tuple[MeldGroup, list[Tok]]]:
        """A line of melds, each checked as the engine would have made it.  ``complete``:
        True for complete piles, False for melds on the table, None for groups set aside
        (Classic melds grow past 7 cards, so it asks nothing of them)."""
        return _meld_groups(line, self.rules)

    def count_cards(self, toks: Sequence[Tok]) -> None:
        for tok in toks:
            self.counter.add(int(read_card(tok)), 1, tok)

    def read_team(self, team: int, name: str) -> None:
        """A team's melds and red threes."""
        self.read_team_melds(team, name)
        self.parts.down[team] = self.team_is_down(team)
        line = team_line(self.lines, name, "red threes")
        if line is not None:
            expected, what, most = self.red_threes_range()
            tok = read_one(line, "bad_number", "red threes are one count", expected)
            self.parts.red_threes[team] = read_int(tok, what, 0, most)
            self.counter.add(RED3, self.parts.red_threes[team], tok)

    def read_team_melds(self, team: int, name: str) -> None:
        line = team_line(self.lines, name, "melds")
        if line is not None:
            for group, chunk in self.meld_groups(line, False):
                self.parts.melds[team][group.rank] = group
                self.count_cards(chunk)

    def team_is_down(self, team: int) -> bool:
        """Whether the team has met its first-meld minimum (C-MIN-3)."""
        return bool(self.parts.melds[team])

    def red_threes_range(self) -> tuple[str, str, int]:
        """How red threes are counted: the range in words, the count in words, the most."""
        return "0 to 4", "a count of red threes, 0 to 4", MAX_NUMBER

    def read_set_aside(self) -> None:
        """``set aside:``: the player to move's first-meld groups (C-MIN-4)."""
        line = self.lines.get("set aside")
        if line is None:
            return
        groups = self.meld_groups(line, None)
        if groups:
            self.check_set_aside(line)
        for group, chunk in groups:
            self.parts.staged[group.rank] = group
            self.count_cards(chunk)

    def check_set_aside(self, line: Line) -> None:
        """Only a team not yet down sets melds aside, in the draw or meld phase."""
        parts = self.parts
        if parts.phase not in (Phase.DRAW, Phase.MELD):
            raise line.error(
                "set_aside_not_allowed",
                "melds can be set aside only in the draw or meld phase",
                "no 'set aside' line",
            )
        if parts.down[parts.current % 2]:
            raise line.error(
                "set_aside_not_allowed",
                "the team has already met its first-meld "
                "minimum, so nothing is set aside (C-MIN-3)",
                "no 'set aside' line",
            )

    def read_seat_cards(self, seat: int, name: str) -> None:
        """A seat's hand: every seat has one."""
        line = self.lines.get(name.lower())
        if line is None:
            expected = f"a line '{name}: CARDS' or '{name}: {self.hand_example}'"
            raise NotationError(
                "missing_key",
                f"the position has no hand for {name}",
                expected=expected,
                params={"name": name},
            )
        items = card_items(line, allow_unknown=True, allow_rest=False, deck_size=self.deck_size)
        for what, value, tok in items:
            if what == "card":
                self.check_hand_card(seat, value, tok)
        self.parts.hand_items.append(items)
        self.counter.add_items(items)

    def check_hand_card(self, seat: int, kind: int, tok: Tok) -> None:
        """C-RED-1: the player to move never holds a red three mid-hand."""
        parts = self.parts
        if kind == RED3 and seat == parts.current and parts.phase is not Phase.ENDED:
            raise tok.error(
                "red_three_in_hand",
                "the player to move holds no red three: it is laid down at once (C-RED-1)",
                "the red three in 'NS red threes' / 'EW red threes'",
            )

    def read_pile_and_stock(self) -> None:
        """The discard pile and the stock; without a stock line, the stock is the rest."""
        parts, size = self.parts, self.deck_size
        pile = self.lines.get("pile")
        if pile is not None:
            parts.pile_items = card_items(
                pile, allow_unknown=True, allow_rest=False, deck_size=size
            )
        stock = self.lines.get("stock")
        if stock is None:
            parts.stock_items = [("rest", 0, Tok("rest", 0, 0))]
        else:
            parts.stock_items = card_items(
                stock, allow_unknown=True, allow_rest=True, deck_size=size
            )
        self.counter.add_items([*parts.pile_items, *parts.stock_items])

    def check_counts(self) -> None:
        """No more of a kind than the deck holds, and every card of the deck placed."""
        counter = self.counter
        counter.check()
        known = sum(counter.used)
        placed = known + counter.unknown
        rest = self.deck_size - placed
        if rest < 0 or (rest > 0 and counter.rest_tok is None):
            deck_words, expected = self.deck_words()
            stock = self.lines.get("stock")
            raise NotationError(
                "counts_do_not_add_up",
                f"the position holds {placed} cards ({known} shown, {counter.unknown} unknown); "
                f"{deck_words}: " + (f"{-rest} too many" if rest < 0 else f"{rest} missing"),
                line=stock.number if stock else None,
                column=stock.value_column if stock else None,
                expected=expected,
                params={
                    "count": placed,
                    "known": known,
                    "unknown": counter.unknown,
                    "deck": self.deck_size,
                },
            )

    def deck_words(self) -> tuple[str, str]:
        """C-DECK-1: what the deck holds, and what adds up to it, in words."""
        return (
            f"a deck has {DECK_SIZE}",
            "hands, melds, red threes, pile and stock adding up "
            "to 108 cards (write the stock as 'rest' to put every other card there)",
        )

    def deal_hands(self, deal: Dealer) -> None:
        """The hands' unknown cards.  Mid-hand a red three never stays in a hand (C-RED-1):
        they are dealt from the other cards, and the red threes stay for the pile and stock."""
        avoid = self.parts.phase is not Phase.ENDED
        for seat, items in enumerate(self.parts.hand_items):
            self.parts.hands.append(counts_of(deal.fill(items, avoid_red_three=avoid)))
            self.check_dealt_hand(seat)

    def check_dealt_hand(self, seat: int) -> None:
        """A check of a hand once dealt (Classic checks its cards as they are read)."""

    def deal_table(self, deal: Dealer) -> None:
        """The pile's unknown cards (never a red three: it is never discarded), then the
        stock's."""
        parts = self.parts
        parts.pile = deal.fill(parts.pile_items, avoid_red_three=True)
        rest = len(deal.pool) - unknown_total(parts.stock_items)
        parts.stock = deal.fill(parts.stock_items, rest=rest)

    def read_flags(self) -> None:
        self.parts.flags = read_flags(self.lines.get("flags"), self.seats, self.teams)
        self.check_flags(self.parts.flags)

    def check_flags(self, flags: Flags) -> None:
        """Turn facts only in a turn in progress; ``asked`` only when one may ask; ``created``
        only ranks the team has melded."""
        parts = self.parts
        if flags.turn_fact_tok is not None and parts.phase is Phase.DRAW:
            raise flags.turn_fact_tok.error(
                "flag_not_in_phase",
                f"'{flags.turn_fact_tok.text}' "
                "describes a turn in progress, but the player has "
                "not drawn yet",
                "no turn facts in the draw phase",
            )
        if flags.asked_tok is not None and parts.phase is Phase.ANSWER:
            raise flags.asked_tok.error(
                "flag_not_in_phase",
                "the question is still waiting for its answer",
                "no 'asked=' flag in the answer phase",
            )
        if flags.asked_tok is not None and not self.may_ask():
            raise flags.asked_tok.error("flag_not_in_phase", self.no_asking, "no 'asked=' flag")
        missing = flags.created - set(parts.melds[parts.current % 2])
        if missing:
            assert flags.created_tok is not None
            raise flags.created_tok.error(
                "bad_flag",
                "'created' names a rank the team of the "
                "player to move has no meld of: "
                + " ".join(TOKENS[k] for k in sorted(missing, reverse=True)),
                "ranks of that team's melds",
            )

    def read_end(self) -> None:
        """``ended: out S``: only when the turn line says the hand ended, on that seat's turn."""
        ended, parts, seats = self.lines.get("ended"), self.parts, self.seats
        if parts.phase is not Phase.ENDED:
            if ended is not None:
                raise ended.error(
                    "bad_end",
                    f"the hand has not ended (the turn line says '{parts.phase.value}')",
                    "no 'ended:' line, or 'turn: SEAT ended'",
                )
            return
        if ended is None:
            raise NotationError(
                "missing_key",
                "an ended hand needs an 'ended:' line",
                line=self.lines["turn"].number,
                expected="'ended: out S', 'ended: concealed S' or 'ended: stock S'",
                params={"name": "ended"},
            )
        toks = ended.tokens()
        if len(toks) != 2 or toks[0].text.lower() not in END_KINDS:
            raise ended.error(
                "bad_end",
                "the end of a hand is how and who",
                "out|concealed|stock and a seat, for example 'out S'",
            )
        parts.end = HandEnd(toks[0].text.lower(), read_seat(toks[1], seats))
        if parts.end.seat != parts.current:
            raise toks[1].error(
                "bad_end",
                f"the hand ended on {seats[parts.current]}'s turn "
                f"(the turn line), not {seats[parts.end.seat]}'s",
                f"'{toks[0].text} {seats[parts.current]}'",
            )

    # -------------------------------------------------------------- the state

    def new_state(self) -> State:
        return State(self.rules)

    def build(self) -> State:
        """The state the parts describe."""
        parts, flags = self.parts, self.parts.flags
        state = self.new_state()
        state.current, state.phase, state.scores = parts.current, parts.phase, parts.scores
        if parts.dealer is not None:
            state.dealer = parts.dealer
        if parts.hand_number is not None:
            state.hand_number = parts.hand_number
        state.melds, state.down, state.red_threes = parts.melds, parts.down, parts.red_threes
        state.staged, state.hands = parts.staged, parts.hands
        state.pile, state.stock = parts.pile, parts.stock
        state.took_pile, state.melded_this_turn = flags.took_pile, flags.melded_this_turn
        answering = parts.phase is Phase.ANSWER
        state.asked = Asked.PENDING if answering else (flags.asked or Asked.NOT_ASKED)
        state.created_this_turn = set(flags.created)
        # Default: everyone in a team that is down has melded (no surprise concealed bonus).
        state.has_melded = flags.has_melded or [parts.down[s % 2] for s in range(len(self.seats))]
        state.penalties = flags.penalties
        for seat, counts in parts.known.items():
            state.known[seat] = counts
        for seat, bits in parts.thrown.items():
            state.thrown[seat] |= bits
        state.end = parts.end
        self.finish(state)
        return state

    def finish(self, state: State) -> None:
        """The family's own fields: Classic counts the pile's freezing cards (C-FRZ-1)."""
        state.pile_freezers = sum(1 for k in state.pile if state._is_freezer(k))

    def check_sense(self, state: State) -> None:
        """The state as a whole: an ended hand ended as the engine ends one; a hand in play
        can go on."""
        if state.phase is Phase.ENDED:
            _check_end(state, self.lines["ended"], self.seats)
            return
        _check_hands_not_empty(state, self.lines, self.seats)
        # A dead end no game can reach (say, one card in hand after drawing, and no canasta
        # to go out with): nobody could ever move again.
        self.refuse_dead_end(state, "a position in which the game can go on")

    def refuse_dead_end(self, state: State, expected: str) -> None:
        if not state.legal_moves():
            raise self.lines["turn"].error(
                "no_legal_moves",
                "the player to move has no legal move in this position",
                expected,
                seat=self.seats[state.to_move],
            )


def _check_end(state: State, line: Line, seats: Sequence[str]) -> None:
    """A player who went out holds no cards (C-OUT-2) and had the team's canastas (C-OUT-1)."""
    end = state.end
    assert end is not None
    if end.how == "stock":
        return
    name = seats[end.seat]
    if state.hand_size(end.seat) or state.staged:
        raise line.error(
            "end_holds_cards",
            f"{name} cannot have gone out holding cards (C-OUT-2)",
            f"'{name}: -'",
            seat=name,
        )
    team = end.seat % 2
    canastas, needed = state.canastas(team), state.rules.canastas_to_go_out
    if canastas < needed:
        raise line.error(
            "end_needs_canastas",
            f"{name} cannot have gone out: the team has "
            f"{canastas} canasta(s) and needs {needed} to go out (C-OUT-1)",
            f"at least {needed} canasta(s) in the team's melds",
            seat=name,
            canastas=canastas,
            needed=needed,
        )


def _check_hands_not_empty(state: State, lines: dict[str, Line], seats: Sequence[str]) -> None:
    """While the hand goes on, everyone holds a card: a player with none has gone out
    (C-OUT-2).  Only the player to move may hold none, with melds set aside (C-MIN-4)."""
    for seat, name in enumerate(seats):
        held = state.hand_size(seat)
        if seat == state.current:
            held += sum(g.size for g in state.staged.values())
            if not state.stock and state.phase is Phase.DRAW:
                # A red three laid when the stock was empty (C-RED-1) can leave a hand empty
                # before the draw; the draw then ends the hand (C-END-2).
                held += 1
        if held == 0:
            raise lines[name.lower()].error(
                "empty_hand",
                f"{name} holds no cards, but the hand is not over (a player without cards "
                "has gone out, C-OUT-2)",
                "at least one card, or 'turn: SEAT ended' with 'ended: out SEAT'",
                seat=name,
            )
        if seat == state.current and held < 2 and state.phase is not Phase.DRAW:
            # After the draw a player holds two cards or more, and keeps two until the team
            # may go out (C-OUT-5): one card here would be a dead end.
            team = seat % 2
            # While the question waits (phase answer), a "no" must leave a way on: one card
            # after asking is a dead end no game reaches (the asker has just drawn).
            # Nor may the player still ask with one card (after drawing, before melding):
            # a "no" would strand them the same way.
            may_go_out = (
                state.down[team]
                and state.canastas(team) >= state.rules.canastas_to_go_out
                and state.asked not in (Asked.NO, Asked.PENDING)
                and not state.check(ASK).legal
            )
            if not may_go_out:
                raise lines[name.lower()].error(
                    "too_few_cards",
                    f"after drawing, {name} would hold two cards or more: with one card the "
                    "team must be able to go out (C-OUT-5)",
                    "two cards or more, or a canasta to go out with",
                    seat=name,
                )


def parse_position(text: str) -> State:
    """Read a position (``docs/notation.md``); raises ``NotationError`` on any mistake."""
    lines = read_lines(text.removeprefix("\ufeff"))  # a byte-order mark from an editor
    for required in ("rules", "turn"):
        if required not in lines:
            raise NotationError(
                "missing_key",
                f"the position has no '{required}:' line",
                expected=f"a line '{required}: ...'",
                params={"name": required},
            )
    rules = read_rules(lines["rules"])
    return POSITION_FORMATS[rules.family].parse(lines, rules)


def _parse_classic(lines: dict[str, Line], rules: RuleSet) -> State:
    return PositionReader(lines, rules).read()


# ---------------------------------------------------------------------------- formatting


def format_cards(kinds: Sequence[int]) -> str:
    """Cards as the notation writes them, ``-`` for none."""
    return " ".join(TOKENS[k] for k in kinds) if kinds else "-"


def format_melds(groups: Sequence[MeldGroup]) -> str:
    """Melds separated by '|', ``-`` for none."""
    return " | ".join(format_cards(g.cards()) for g in groups) if groups else "-"


def by_rank(groups: dict[int, MeldGroup]) -> list[MeldGroup]:
    """A team's melds, highest rank first (the order a position writes them in)."""
    return [groups[r] for r in sorted(groups, reverse=True)]


def format_option(value: Any) -> str:
    """A rule option's value as the ``rules:`` line writes it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def format_rules(rules: RuleSet) -> str:
    """The ``rules:`` line: the preset, and the options that differ from it."""
    options = rules.options_differing_from_preset()
    words = [rules.name] + [f"{k}={format_option(v)}" for k, v in sorted(options.items())]
    return "rules: " + " ".join(words)


def format_flags(state: State, seats: Sequence[str], teams: Sequence[str]) -> list[str]:
    """The ``flags:`` line of ``state`` (none when every flag has its default)."""
    flags: list[str] = []
    if state.took_pile:
        flags.append("took-pile")
    if state.melded_this_turn:
        flags.append("melded-this-turn")
    if state.asked in (Asked.YES, Asked.NO):
        flags.append(f"asked={state.asked.value}")
    if state.has_melded != [state.down[s % 2] for s in range(len(seats))]:
        who = [seats[s] for s in range(len(seats)) if state.has_melded[s]]
        flags.append("has-melded=" + (",".join(who) if who else "-"))
    if state.created_this_turn:
        created = sorted(state.created_this_turn, reverse=True)
        flags.append("created=" + ",".join(TOKENS[k] for k in created))
    for team, name in enumerate(teams):
        if state.penalties[team]:
            flags.append(f"penalty-{name}={state.penalties[team]}")
    return ["flags: " + " ".join(flags)] if flags else []


def format_position(state: State) -> str:
    """The canonical notation of ``state``: every card explicit, optional lines only when
    they differ from their defaults.  ``parse_position`` reads it back to an equal state."""
    return POSITION_FORMATS[state.rules.family].format(state)


def _format_classic(state: State) -> str:
    n = state.rules.players
    seats, teams = seat_names(n), team_names(n)
    out = [format_rules(state.rules)]
    out.append(f"scores: {teams[0]} {state.scores[0]}, {teams[1]} {state.scores[1]}")
    if state.hand_number != 1:
        out.append(f"hand: {state.hand_number}")
    if state.dealer != n - 1:
        out.append(f"dealer: {seats[state.dealer]}")
    out.append(f"turn: {seats[state.current]} {state.phase.value}")
    for seat, name in enumerate(seats):
        out.append(f"{name}: {format_cards(kinds_of(state.hands[seat]))}")
    for team, name in enumerate(teams):
        out.append(f"{name} melds: {format_melds(by_rank(state.melds[team]))}")
        if state.red_threes[team]:
            out.append(f"{name} red threes: {state.red_threes[team]}")
    if state.staged:
        out.append(f"set aside: {format_melds(by_rank(state.staged))}")
    out.append(f"pile: {format_cards(state.pile)}")
    out.append(f"stock: {format_cards(state.stock)}")
    out.extend(format_flags(state, seats, teams))
    out.extend(format_record(state, seats))
    if state.end is not None:
        out.append(f"ended: {state.end.how} {seats[state.end.seat]}")
    return "\n".join(out) + "\n"


#: Classic's format: its keys are every family's (a variant's format adds its own).
CLASSIC_FORMAT: Final = PositionFormat(
    CLASSIC, "Classic", _parse_classic, _format_classic, team_keys=("melds", "red threes")
)
register_position_format(CLASSIC_FORMAT)


# ---------------------------------------------------------------------------- the record

RECORD_FORM: Final = "seats with cards, separated by commas, for example 'W 7 7, E K'"


def _record_groups(line: Line, seats: Sequence[str]) -> dict[int, list[Kind]]:
    """``W 7 7, E K``: each seat named once, with one card or more."""
    out: dict[int, list[Kind]] = {}
    seat: int | None = None
    for tok in line.tokens(","):
        if tok.text == ",":
            if seat is None or not out[seat]:
                raise tok.error("bad_record", "a seat needs its cards before ','", RECORD_FORM)
            seat = None
        elif seat is None:
            seat = read_seat(tok, seats)
            if seat in out:
                raise tok.error("bad_record", f"the seat {tok.text} is named twice", RECORD_FORM)
            out[seat] = []
        else:
            out[seat].append(read_card(tok))
    if seat is not None and not out[seat]:
        raise line.error("bad_record", "a seat needs its cards", RECORD_FORM)
    return out


def read_record(
    lines: dict[str, Line], hands: Sequence[Sequence[int]], seats: Sequence[str]
) -> tuple[dict[int, tuple[int, ...]], dict[int, int]]:
    """The public record (``State.known``, ``State.thrown``), by seat: ``known: W 7 7, E K``
    names cards every player saw go into a hand (they must be in ``hands``) and
    ``thrown: W 7 9`` the kinds a seat has thrown away this hand."""
    known: dict[int, tuple[int, ...]] = {}
    thrown: dict[int, int] = {}
    line = lines.get("known")
    if line is not None:
        for seat, cards in _record_groups(line, seats).items():
            counts = counts_of(cards)
            if any(counts[k] > hands[seat][k] for k in range(NUM_KINDS)) or counts[RED3]:
                raise line.error(
                    "bad_record",
                    f"{seats[seat]} is known to hold cards that are not in that hand",
                    "cards of that hand (no red three)",
                    seat=seats[seat],
                )
            known[seat] = tuple(counts)
    line = lines.get("thrown")
    if line is not None:
        for seat, cards in _record_groups(line, seats).items():
            thrown[seat] = sum(1 << kind for kind in set(cards))
    return known, thrown


def format_record(state: State, seats: Sequence[str]) -> list[str]:
    """The ``known:`` and ``thrown:`` lines of ``state`` (none when nothing is recorded)."""
    out = []
    known = [
        f"{seats[s]} {format_cards(kinds_of(list(c)))}" for s, c in enumerate(state.known) if any(c)
    ]
    if known:
        out.append("known: " + ", ".join(known))
    thrown = [
        f"{seats[s]} {format_cards([k for k in range(NUM_KINDS) if bits >> k & 1])}"
        for s, bits in enumerate(state.thrown)
        if bits
    ]
    if thrown:
        out.append("thrown: " + ", ".join(thrown))
    return out


# ---------------------------------------------------------------------------- moves


def parse_move(text: str, *, line: int = 1, column: int = 1) -> Move:
    """Read one move: ``draw``, ``take``, ``take 7 JK``, ``meld 7 7 JK``, ``add 7: 7 2``,
    ``discard 9``, ``ask``, ``answer yes``.  ``line``/``column`` place ``text`` in a larger
    text for error messages."""
    toks = Line("move", "move", line, column, text, column).tokens(":")
    if not toks:
        raise NotationError(
            "empty_move", "no move was given", line=line, column=column, expected=MOVE_FORMS
        )
    verb_tok = toks[0]
    reader = _VERBS.get(verb_tok.text.lower())
    if reader is None:
        raise verb_tok.error("unknown_verb", f"'{verb_tok.text}' is not a move", MOVE_FORMS)
    return reader(verb_tok, toks[1:])


def _no_more(verb_tok: Tok, tokens: Sequence[Tok], form: str) -> None:
    if tokens:
        raise tokens[0].error(
            "extra_token",
            f"'{tokens[0].text}' does not belong after '{verb_tok.text.lower()}'",
            form,
        )


def _move_cards(tokens: Sequence[Tok], form: str) -> tuple[Kind, ...]:
    for tok in tokens:
        if tok.text == ":":
            raise tok.error("extra_token", "':' belongs only in 'add RANK: CARDS'", form)
    return canonical([int(read_card(tok)) for tok in tokens])


def _read_draw(verb_tok: Tok, rest: Sequence[Tok]) -> Move:
    _no_more(verb_tok, rest, "draw")
    return DRAW


def _read_ask(verb_tok: Tok, rest: Sequence[Tok]) -> Move:
    _no_more(verb_tok, rest, "ask")
    return ASK


def _read_lay_down(verb_tok: Tok, rest: Sequence[Tok]) -> Move:
    # H-MIN-1 (Hand and Foot): "lay down", two words.
    if not rest or rest[0].text.lower() != "down":
        at = rest[0] if rest else verb_tok
        raise at.error("missing_down", "'lay' is always 'lay down'", "lay down")
    _no_more(verb_tok, rest[1:], "lay down")
    return LAY_DOWN


def _read_answer(verb_tok: Tok, rest: Sequence[Tok]) -> Move:
    form = "answer yes | answer no"
    if not rest:
        raise verb_tok.error("missing_answer", "'answer' needs yes or no", form)
    word = rest[0].text.lower()
    if word not in ("yes", "no"):
        raise rest[0].error("bad_answer", f"'{rest[0].text}' is not yes or no", form)
    _no_more(verb_tok, rest[1:], form)
    return YES if word == "yes" else NO


def _read_take(verb_tok: Tok, rest: Sequence[Tok]) -> Move:
    return TakePile(_move_cards(rest, "take, or take CARDS (for example take 7 7)"))


def _read_meld(verb_tok: Tok, rest: Sequence[Tok]) -> Move:
    form = "meld CARDS (for example meld 7 7 JK)"
    if not rest:
        raise verb_tok.error("missing_cards", "'meld' needs the cards to meld", form)
    return Meld(_move_cards(rest, form))


def _read_discard(verb_tok: Tok, rest: Sequence[Tok]) -> Move:
    form = "discard CARD (for example discard 9)"
    if not rest:
        raise verb_tok.error("missing_cards", "'discard' needs a card", form)
    _no_more(verb_tok, rest[1:], form)
    if rest[0].text == ":":
        raise rest[0].error("bad_card", "':' is not a card", form)
    return Discard(read_card(rest[0]))


def _read_add(verb_tok: Tok, rest: Sequence[Tok]) -> Move:
    """``add RANK: CARDS``."""
    form = "add RANK: CARDS (for example add 7: 7 2)"
    if not rest:
        raise verb_tok.error("missing_rank", "'add' needs the rank of the meld", form)
    if rest[0].text == ":":
        raise rest[0].error("missing_rank", "'add' needs the rank before ':'", form)
    # JK names Hand and Foot's meld of wild cards only (H-MELD-2).
    ranks = "a meld rank: 3B 4 5 6 7 8 9 10 J Q K A (JK: the meld of wild cards)"
    rank = read_card(rest[0], ranks)
    if BLACK3 > rank != Kind.JOKER:
        raise rest[0].error("bad_rank", f"'{rest[0].text}' is not a meld rank", ranks)
    if len(rest) < 2 or rest[1].text != ":":
        at = rest[1] if len(rest) > 1 else rest[0]
        raise at.error("missing_colon", f"a ':' must follow the rank {rest[0].text}", form)
    if len(rest) < 3:
        raise rest[1].error("missing_cards", "'add' needs the cards to add", form)
    return Add(rank, _move_cards(rest[2:], form))


#: Each move's verb and its reader.
_VERBS: Final[dict[str, Callable[[Tok, Sequence[Tok]], Move]]] = {
    "draw": _read_draw, "take": _read_take, "meld": _read_meld, "add": _read_add,
    "lay": _read_lay_down, "discard": _read_discard, "ask": _read_ask, "answer": _read_answer,
}  # fmt: skip


def format_move(move: Move) -> str:
    """The notation of ``move`` (the same as ``str(move)``)."""
    return str(move)


def parse_moves(text: str) -> list[Move]:
    """Several moves, separated by ';' or new lines (``#`` starts a comment)."""
    out: list[Move] = []
    for number, raw in enumerate(text.splitlines() or [""], start=1):
        body = raw.split("#", 1)[0]
        start = 0
        for part in body.split(";"):
            if part.strip():
                out.append(parse_move(part, line=number, column=start + 1))
            start += len(part) + 1
    if not out:
        raise NotationError(
            "empty_move", "no move was given", line=1, column=1, expected=MOVE_FORMS
        )
    return out


__all__ = [
    "CardCounter", "Dealer", "Flags", "Item", "Line", "NotationError", "POSITION_FORMATS",
    "PositionFormat", "PositionParts", "PositionReader", "Tok", "card_items", "format_cards",
    "format_flags", "format_melds", "format_move", "format_position", "format_record",
    "format_rules", "known_keys", "meld_chunks", "parse_move", "parse_moves",
    "parse_position", "read_card", "read_flags", "read_int", "read_lines", "read_one",
    "read_record", "read_rules", "read_seat", "read_seed", "read_team",
    "register_position_format", "team_line", "unknown_total",
]  # fmt: skip
