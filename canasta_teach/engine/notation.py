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
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Final

from .cards import DECK_COUNTS, DECK_SIZE, NUM_KINDS, TOKENS, Kind, kinds_of, parse_kind
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
from .state import Asked, HandEnd, MeldGroup, Phase, State, new_meld_shape

JOKER, TWO, RED3, BLACK3 = 0, 1, 2, 3

SEATS_4: Final = ("S", "W", "N", "E")
SEATS_2: Final = ("S", "N")
TEAMS_4: Final = ("NS", "EW")
TEAMS_2: Final = ("S", "N")
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
class _Tok:
    text: str
    line: int
    column: int  # 1-based


@dataclass(slots=True)
class _Line:
    key: str  # normalised: lower case, single spaces
    key_text: str
    number: int
    key_column: int
    value: str
    value_column: int  # 1-based column of value[0]

    def tokens(self, separators: str = "") -> list[_Tok]:
        """The value's tokens; each separator character is a token of its own."""
        if separators:
            pattern = f"[{re.escape(separators)}]|[^\\s{re.escape(separators)}]+"
        else:
            pattern = r"\S+"
        return [
            _Tok(m.group(0), self.number, self.value_column + m.start())
            for m in re.finditer(pattern, self.value)
        ]

    def error(self, code: str, message: str, expected: str | None = None,
              **params: Any) -> NotationError:  # fmt: skip
        """An error about the whole value (pointing at its first character)."""
        lead = len(self.value) - len(self.value.lstrip())
        return NotationError(code, message, line=self.number, column=self.value_column + lead,
                             token=self.value.strip() or None, expected=expected,
                             params=params)  # fmt: skip


def _tok_error(tok: _Tok, code: str, message: str, expected: str | None = None,
               **params: Any) -> NotationError:  # fmt: skip
    return NotationError(code, message, line=tok.line, column=tok.column, token=tok.text,
                         expected=expected, params=params)  # fmt: skip


def _card(tok: _Tok, expected: str = CARD_FORMS) -> Kind:
    try:
        return parse_kind(tok.text)
    except ValueError:
        hint = ""
        if tok.text == "3":
            hint = " (a three is 3R, red, or 3B, black)"
        elif re.fullmatch(r"[0-9]+", tok.text):
            hint = f" (for {tok.text} unknown cards write ?{tok.text})"
        raise _tok_error(tok, "bad_card", f"'{tok.text}' is not a card{hint}", expected) from None


# ---------------------------------------------------------------------------- keys

_FIXED_KEYS: Final = (
    "rules", "scores", "turn", "pile", "stock", "seed", "set aside", "dealer", "hand",
    "flags", "ended", "round", "known", "thrown",
)  # fmt: skip
_SEAT_WORDS: Final = ("s", "w", "n", "e")
_TEAM_WORDS: Final = {"ns": "NS", "sn": "NS", "ew": "EW", "we": "EW", "s": "S", "n": "N"}
_TEAM_SUFFIXES: Final = ("melds", "red threes", "piles")
KNOWN_KEYS: Final = (
    "rules, scores, turn, S W N E (hands), NS/EW melds, NS/EW red threes, set aside, pile, "
    "stock, seed, dealer, hand, flags, ended, known, thrown (Hand and Foot also: round, "
    "S/W/N/E foot, NS/EW piles)"
)
#: Keys only a Hand and Foot position has (``handfoot_notation``).
HANDFOOT_KEYS: Final = ("round", "piles", "foot")


def _read_lines(text: str) -> dict[str, _Line]:
    """Split ``text`` into ``key: value`` lines (comments and blank lines dropped)."""
    out: dict[str, _Line] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        body = raw.split("#", 1)[0]
        if not body.strip():
            continue
        if ":" not in body:
            stripped = body.strip()
            column = len(body) - len(body.lstrip()) + 1
            raise NotationError("missing_colon", f"'{stripped}' has no ':' after its key",
                                line=number, column=column, token=stripped,
                                expected="KEY: VALUE, for example 'turn: S draw'")  # fmt: skip
        key_text, value = body.split(":", 1)
        key_column = len(key_text) - len(key_text.lstrip()) + 1
        key = " ".join(key_text.lower().split())
        if not _known_key(key):
            raise NotationError("unknown_key", f"'{key_text.strip()}' is not a key",
                                line=number, column=key_column, token=key_text.strip(),
                                expected=KNOWN_KEYS)  # fmt: skip
        if key in out:
            raise NotationError("duplicate_key",
                                f"'{key_text.strip()}' was already given on line "
                                f"{out[key].number}",
                                line=number, column=key_column, token=key_text.strip(),
                                expected="each key once",
                                params={"name": key, "first_line": out[key].number})  # fmt: skip
        out[key] = _Line(key, key_text.strip(), number, key_column, value,
                         len(key_text) + 2)  # fmt: skip
    return out


def _known_key(key: str) -> bool:
    if key in _FIXED_KEYS or key in _SEAT_WORDS:
        return True
    if key.endswith(" foot") and key[:-5] in _SEAT_WORDS:
        return True
    for suffix in _TEAM_SUFFIXES:
        if key.endswith(" " + suffix) and key[: -len(suffix) - 1] in _TEAM_WORDS:
            return True
    return False


def _team_key(lines: dict[str, _Line], team_name: str, suffix: str) -> _Line | None:
    found: _Line | None = None
    for word, name in _TEAM_WORDS.items():
        line = lines.get(f"{word} {suffix}")
        if name == team_name and line is not None:
            if found is not None:
                raise NotationError("duplicate_key",
                                    f"'{line.key_text}' repeats '{found.key_text}' "
                                    f"(line {found.number})",
                                    line=line.number, column=line.key_column,
                                    token=line.key_text, expected="each key once",
                                    params={"name": line.key,
                                            "first_line": found.number})  # fmt: skip
            found = line
    return found


# ---------------------------------------------------------------------------- values


def _int(tok: _Tok, what: str, minimum: int = -MAX_NUMBER, maximum: int = MAX_NUMBER) -> int:
    """A whole number of ASCII digits from ``minimum`` to ``maximum`` (never ``int()`` of
    thousands of digits: the length is checked first)."""
    text = tok.text.replace("_", "")
    if not _ASCII_INT.fullmatch(text):
        raise _tok_error(tok, "bad_number", f"'{tok.text}' is not a whole number", what)
    digits = text.lstrip("+-").lstrip("0")
    if len(digits) > len(str(max(abs(minimum), abs(maximum)))) or not (
        minimum <= int(text) <= maximum
    ):
        raise _tok_error(tok, "number_out_of_range", f"'{tok.text}' is out of range",
                         f"{what}, from {minimum} to {maximum}", minimum=minimum,
                         maximum=maximum)  # fmt: skip
    return int(text)


def _bool(tok: _Tok, value: str, name: str) -> bool:
    low = value.lower()
    if low in YES_WORDS:
        return True
    if low in NO_WORDS:
        return False
    raise _tok_error(tok, "bad_option_value", f"'{value}' is not yes or no for {name}",
                     "yes or no", option=name)  # fmt: skip


def _parse_rules(line: _Line) -> RuleSet:
    toks = line.tokens()
    if not toks:
        raise line.error("bad_rules", "the rules are missing", "classic4 or classic2")
    name = toks[0].text.lower()
    if name not in PRESETS:
        raise _tok_error(toks[0], "bad_rules", f"'{toks[0].text}' is not a rule set",
                         " or ".join(PRESETS))  # fmt: skip
    rules = PRESETS[name]
    kinds = {f.name: type(getattr(rules, f.name)) for f in fields(RuleSet) if f.name != "name"}
    seen: set[str] = set()
    int_toks: dict[str, _Tok] = {}

    def is_players(tok: _Tok) -> bool:
        return tok.text.partition("=")[0].lower().replace("-", "_") == "players"

    # ``players`` first: the largest hand size depends on it (rules.int_range).
    for tok in sorted(toks[1:], key=lambda t: not is_players(t)):
        option, eq, value = tok.text.partition("=")
        option = option.lower().replace("-", "_")
        if option not in kinds:
            raise _tok_error(tok, "unknown_option", f"'{option}' is not a rule option",
                             "an option such as black_three_freezes=yes, "
                             "two_naturals_per_wild=yes, ask_partner=no, "
                             "upcard_turn_until_natural=yes", option=option)  # fmt: skip
        if not eq or not value:
            raise _tok_error(tok, "bad_option_value", f"'{tok.text}' has no value",
                             f"{option}=VALUE", option=option)  # fmt: skip
        if option in seen:
            raise _tok_error(tok, "duplicate_option", f"'{option}' is given twice",
                             "each option once", option=option)  # fmt: skip
        seen.add(option)
        parsed: Any
        kind = kinds[option]
        if kind is bool:
            parsed = _bool(tok, value, option)
            if option not in BOOL_OPTIONS[rules.family] and parsed != getattr(rules, option):
                raise _tok_error(tok, "option_not_in_variant", f"'{option}' is not an "
                                 f"option of {rules.name}", "an option of these rules",
                                 option=option)  # fmt: skip
        elif kind is int:
            value_tok = _Tok(value, tok.line, tok.column + len(option) + 1)
            parsed = _option_int(value_tok, option,
                                 *int_range(option, rules.players, rules.family))  # fmt: skip
            if option == "players" and parsed not in (2, 4):
                raise _tok_error(tok, "bad_option_value", "a game has 2 or 4 players",
                                 "players=2 or players=4", option=option)  # fmt: skip
            int_toks[option] = value_tok
        else:
            parsed = value
            # The family comes with the rule set's name (a preset of that family).
            if value != getattr(rules, option):
                raise _tok_error(tok, "bad_option_value",
                                 f"'{value}' is not a rule family this engine plays",
                                 rules.family, option=option)  # fmt: skip
        rules = rules.with_options(**{option: parsed})
    # The deal must leave a stock (rules.DEALT_MAX): the bound depends on ``players``.
    low, high = int_range("hand_size", rules.players, rules.family)
    if not low <= rules.hand_size <= high:
        at = int_toks.get("hand_size") or int_toks.get("players") or toks[0]
        raise _option_range_error(at, "hand_size", low, high, rules.players)
    return rules


def _option_int(tok: _Tok, option: str, low: int, high: int) -> int:
    """An integer rule option within the range this engine plays (``rules.INT_RANGES``)."""
    try:
        return _int(tok, option, low, high)
    except NotationError as exc:
        if exc.code != "number_out_of_range":
            raise
        raise _option_range_error(tok, option, low, high) from None


def _option_range_error(tok: _Tok, option: str, low: int, high: int,
                        players: int | None = None) -> NotationError:  # fmt: skip
    if low == high:
        return _tok_error(tok, "unsupported_option_value", f"this engine plays {option} only "
                          f"as {low}, not '{tok.text}'", f"{option}={low}", option=option,
                          supported=low)  # fmt: skip
    why = f" ({players} hands must leave a stock)" if players is not None else ""
    return _tok_error(tok, "option_out_of_range", f"'{tok.text}' is out of range for "
                      f"{option}{why}", f"{option} from {low} to {high}", option=option,
                      minimum=low, maximum=high)  # fmt: skip


def _seat(tok: _Tok, seats: Sequence[str]) -> int:
    up = tok.text.upper()
    if up not in seats:
        raise _tok_error(tok, "bad_seat", f"'{tok.text}' is not a seat in a "
                         f"{len(seats)}-player game", " ".join(seats),
                         seats=" ".join(seats))  # fmt: skip
    return seats.index(up)


def _team(tok: _Tok, teams: Sequence[str]) -> int:
    up = tok.text.upper()
    name = _TEAM_WORDS.get(up.lower())
    if name not in teams:
        raise _tok_error(tok, "bad_team", f"'{tok.text}' is not a team in this game",
                         " or ".join(teams), teams=" ".join(teams))  # fmt: skip
    return teams.index(name)


# A card list is known cards, unknown placeholders (``?N``), and in the stock ``rest``.
_Item = tuple[str, int, _Tok]  # ("card", kind, tok) | ("unknown", count, tok) | ("rest", 0, tok)


def _card_items(line: _Line, *, allow_unknown: bool, allow_rest: bool,
                deck_size: int = DECK_SIZE) -> list[_Item]:  # fmt: skip
    toks = line.tokens()
    if len(toks) == 1 and toks[0].text == "-":
        return []
    expected = CARD_FORMS
    if allow_unknown:
        expected += ", " + UNKNOWN_FORMS
    if allow_rest:
        expected += ", 'rest' for every card not placed elsewhere, or '-' for none"
    items: list[_Item] = []
    for tok in toks:
        text = tok.text
        if text.startswith("?") and allow_unknown:
            count_text = text[1:] or "1"
            if not re.fullmatch(r"[0-9]+", count_text):  # ASCII digits only: not ?² nor ?١١
                raise _tok_error(tok, "bad_count", f"'{text}' is not a count of unknown cards",
                                 UNKNOWN_FORMS)  # fmt: skip
            count = _int(_Tok(count_text, tok.line, tok.column + 1),
                         "a count of unknown cards", 0, deck_size)  # fmt: skip
            items.append(("unknown", count, tok))
        elif text.lower() == "rest" and allow_rest:
            if any(kind == "rest" for kind, _, _ in items):
                raise _tok_error(tok, "duplicate_rest", "'rest' may appear only once",
                                 "one 'rest'")  # fmt: skip
            items.append(("rest", 0, tok))
        elif text == "-":
            raise _tok_error(tok, "bad_card", "'-' means 'none' and must stand alone", expected)
        else:
            items.append(("card", int(_card(tok, expected)), tok))
    return items


def _meld_groups(line: _Line, rules: RuleSet) -> list[tuple[MeldGroup, _Tok, list[_Tok]]]:
    """Melds separated by '|': each a group, the token it starts at, and its card tokens."""
    toks = line.tokens("|")
    if len(toks) == 1 and toks[0].text == "-":
        return []
    chunks: list[list[_Tok]] = [[]]
    for tok in toks:
        if tok.text == "|":
            chunks.append([])
        else:
            chunks[-1].append(tok)
    out: list[tuple[MeldGroup, _Tok, list[_Tok]]] = []
    seen: dict[int, _Tok] = {}
    for chunk in chunks:
        if not chunk:
            raise line.error("bad_meld", "an empty meld (two '|' in a row, or one at an end)",
                             "cards between the '|' signs, or '-' for no melds",
                             problem="no_cards")  # fmt: skip
        group = _meld_group(chunk, rules)
        if group.rank in seen:
            raise _tok_error(chunk[0], "duplicate_meld",
                             f"a second meld of {TOKENS[group.rank]} (C-MELD-3: one meld of "
                             "each rank per team)", "one meld per rank",
                             rank=TOKENS[group.rank])  # fmt: skip
        seen[group.rank] = chunk[0]
        out.append((group, chunk[0], chunk))
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


def _meld_group(chunk: list[_Tok], rules: RuleSet) -> MeldGroup:
    kinds = [_card(tok) for tok in chunk]
    first = chunk[0]
    expected = "3 or more cards of one rank, at least 2 natural, at most 3 wild"

    def bad(problem: str, message: str, **params: Any) -> NotationError:
        return NotationError("bad_meld", message, line=first.line, column=first.column,
                             token=" ".join(t.text for t in chunk), expected=expected,
                             params={"problem": problem, **params})  # fmt: skip

    problem = new_meld_shape(rules, kinds)
    if problem is not None:
        message = _MELD_PROBLEMS.get(problem.code, "not a meld")
        raise bad(problem.code, f"{message} ({problem.rule})", **problem.params)
    rank = max(kinds)
    wilds = sum(1 for k in kinds if k <= TWO)
    naturals = len(kinds) - wilds
    jokers = sum(1 for k in kinds if k == JOKER)
    return MeldGroup(rank, naturals, jokers, wilds - jokers)


# ---------------------------------------------------------------------------- flags


@dataclass(slots=True)
class _Flags:
    took_pile: bool = False
    melded_this_turn: bool = False
    asked: Asked | None = None
    asked_tok: _Tok | None = None
    has_melded: list[bool] | None = None
    created: set[int] = field(default_factory=set)
    created_tok: _Tok | None = None
    penalties: list[int] = field(default_factory=lambda: [0, 0])
    turn_fact_tok: _Tok | None = None  # a fact that only a turn in progress can have


FLAG_FORMS: Final = (
    "took-pile, melded-this-turn, asked=yes|no, has-melded=SEATS|-, created=RANKS, "
    "penalty-TEAM=POINTS"
)


def _parse_flags(line: _Line | None, seats: Sequence[str], teams: Sequence[str]) -> _Flags:
    flags = _Flags()
    if line is None:
        return flags
    seen: set[str] = set()
    for tok in line.tokens():
        name, eq, value = tok.text.partition("=")
        name = name.lower().replace("_", "-")
        base = "penalty" if name.startswith("penalty-") else name
        if name in seen:
            raise _tok_error(tok, "duplicate_flag", f"'{name}' is given twice", "each flag once")
        seen.add(name)
        if base in ("took-pile", "melded-this-turn"):
            if eq:
                raise _tok_error(tok, "bad_flag", f"'{name}' takes no value", name)
            if base == "took-pile":
                flags.took_pile = True
            else:
                flags.melded_this_turn = True
            flags.turn_fact_tok = flags.turn_fact_tok or tok
        elif base == "asked":
            low = value.lower()
            if low not in ("yes", "no"):
                raise _tok_error(tok, "bad_flag", f"'{tok.text}' is not asked=yes or asked=no",
                                 "asked=yes or asked=no")  # fmt: skip
            flags.asked = Asked.YES if low == "yes" else Asked.NO
            flags.asked_tok = tok
            flags.turn_fact_tok = flags.turn_fact_tok or tok
        elif base == "has-melded":
            flags.has_melded = [False] * len(seats)
            if value != "-":
                for part in _parts(tok, value, "has-melded=S,N or has-melded=-"):
                    flags.has_melded[_seat(part, seats)] = True
        elif base == "created":
            flags.created_tok = tok
            for part in _parts(tok, value, "created=K,7"):
                kind = _card(part, "a meld rank: 3B 4 5 6 7 8 9 10 J Q K A")
                if kind < BLACK3:
                    raise _tok_error(part, "bad_flag", f"'{part.text}' is not a meld rank",
                                     "a meld rank: 3B 4 5 6 7 8 9 10 J Q K A")  # fmt: skip
                flags.created.add(int(kind))
            flags.turn_fact_tok = flags.turn_fact_tok or tok
        elif base == "penalty":
            team_tok = _Tok(name[len("penalty-") :], tok.line, tok.column + len("penalty-"))
            team = _team(team_tok, teams)
            value_tok = _Tok(value, tok.line, tok.column + len(name) + 1)
            flags.penalties[team] = _int(value_tok, "penalty points, for example 100", 0)
        else:
            raise _tok_error(tok, "bad_flag", f"'{tok.text}' is not a flag", FLAG_FORMS)
    return flags


def _parts(tok: _Tok, value: str, expected: str) -> Iterator[_Tok]:
    if not value:
        raise _tok_error(tok, "bad_flag", f"'{tok.text}' has no value", expected)
    offset = tok.column + len(tok.text) - len(value)
    for m in re.finditer(r"[^,]+", value):
        yield _Tok(m.group(0), tok.line, offset + m.start())


# ---------------------------------------------------------------------------- parsing


@dataclass(slots=True)
class _Counter:
    """Counts every card a position places, to catch more of a kind than a deck has."""

    used: list[int] = field(default_factory=lambda: [0] * NUM_KINDS)
    events: list[tuple[int, int, int, _Tok | None]] = field(default_factory=list)
    unknown: int = 0
    rest_tok: _Tok | None = None
    deck: Sequence[int] = DECK_COUNTS
    rule: str = "C-DECK-1"

    def add(self, kind: int, count: int, tok: _Tok | None) -> None:
        if count:
            self.events.append((kind, count, len(self.events), tok))

    def check(self) -> None:
        """C-DECK-1: never more of a kind than the deck holds (reported where it happens)."""

        def order(event: tuple[int, int, int, _Tok | None]) -> tuple[int, int, int]:
            tok = event[3]
            return (tok.line, tok.column, event[2]) if tok else (0, 0, event[2])

        for kind, count, _, tok in sorted(self.events, key=order):
            self.used[kind] += count
            if self.used[kind] > self.deck[kind]:
                raise NotationError(
                    "too_many_cards",
                    f"the position holds {self.used[kind]} cards of kind {TOKENS[kind]}; "
                    f"a deck has {self.deck[kind]}",
                    line=tok.line if tok else None, column=tok.column if tok else None,
                    token=tok.text if tok else None,
                    expected=f"at most {self.deck[kind]} of {TOKENS[kind]} ({self.rule})",
                    params={"kind": TOKENS[kind], "count": self.used[kind],
                            "deck": self.deck[kind]},
                )  # fmt: skip


def parse_position(text: str) -> State:
    """Read a position (``docs/notation.md``); raises ``NotationError`` on any mistake."""
    lines = _read_lines(text.removeprefix("\ufeff"))  # a byte-order mark from an editor
    for required in ("rules", "turn"):
        if required not in lines:
            raise NotationError("missing_key", f"the position has no '{required}:' line",
                                expected=f"a line '{required}: ...'",
                                params={"name": required})  # fmt: skip
    rules = _parse_rules(lines["rules"])
    if rules.family == "handfoot":
        from .handfoot_notation import parse_handfoot

        return parse_handfoot(lines, rules)
    for key, foreign in lines.items():
        if key.split()[-1] in HANDFOOT_KEYS:
            raise NotationError("unknown_key", f"'{foreign.key_text}' belongs to a Hand and "
                                "Foot position, not a Classic one", line=foreign.number,
                                column=foreign.key_column, token=foreign.key_text,
                                expected=KNOWN_KEYS)  # fmt: skip
    n = rules.players
    seats = SEATS_4 if n == 4 else SEATS_2
    teams = TEAMS_4 if n == 4 else TEAMS_2
    line: _Line | None
    for key, line in lines.items():
        if key in _SEAT_WORDS and key.upper() not in seats:
            raise NotationError("bad_seat", f"'{line.key_text}' is not a seat in a {n}-player "
                                "game", line=line.number, column=line.key_column,
                                token=line.key_text, expected=" ".join(seats),
                                params={"seats": " ".join(seats)})  # fmt: skip
        for suffix in _TEAM_SUFFIXES:
            if key.endswith(" " + suffix):
                word = key[: -len(suffix) - 1]
                if _TEAM_WORDS[word] not in teams:
                    raise NotationError("bad_team", f"'{word.upper()}' is not a team in a "
                                        f"{n}-player game", line=line.number,
                                        column=line.key_column, token=word.upper(),
                                        expected=" or ".join(teams),
                                        params={"teams": " ".join(teams)})  # fmt: skip
    state = State(rules)
    counter = _Counter()

    # turn: SEAT PHASE
    turn = lines["turn"]
    toks = turn.tokens()
    if len(toks) != 2:
        raise turn.error("bad_turn", "the turn is a seat and a phase",
                         "for example 'S draw' (phases: " + ", ".join(PHASES) + ")")  # fmt: skip
    state.current = _seat(toks[0], seats)
    phase_text = toks[1].text.lower()
    if phase_text not in PHASES:
        raise _tok_error(toks[1], "bad_phase", f"'{toks[1].text}' is not a phase",
                         " | ".join(PHASES))  # fmt: skip
    state.phase = Phase(phase_text)
    if state.phase is Phase.ANSWER and not (rules.ask_partner and n == 4):
        raise _tok_error(toks[1], "bad_phase", "nobody can be asked 'may I go out?' under "
                         "these rules (C-ASK-1)", "draw, meld or ended")  # fmt: skip

    # scores
    if "scores" in lines:
        line = lines["scores"]
        toks = [t for t in line.tokens(",") if t.text != ","]
        if len(toks) != 4:
            raise line.error("bad_scores", "the scores are two teams with a number each",
                             f"for example '{teams[0]} 0, {teams[1]} 1500'")  # fmt: skip
        given: set[int] = set()
        for team_tok, number_tok in ((toks[0], toks[1]), (toks[2], toks[3])):
            team = _team(team_tok, teams)
            if team in given:
                raise _tok_error(team_tok, "bad_scores", "a team's score is given twice",
                                 f"{teams[0]} and {teams[1]} once each")  # fmt: skip
            given.add(team)
            state.scores[team] = _int(number_tok, "a cumulative score, for example 1500")

    # dealer, hand number
    if "dealer" in lines:
        line = lines["dealer"]
        toks = line.tokens()
        if len(toks) != 1:
            raise line.error(
                "bad_seat", "the dealer is one seat", " ".join(seats), seats=" ".join(seats)
            )
        state.dealer = _seat(toks[0], seats)
    if "hand" in lines:
        line = lines["hand"]
        toks = line.tokens()
        if len(toks) != 1:
            raise line.error("bad_number", "the hand number is one number", "1, 2, 3 ...")
        state.hand_number = _int(toks[0], "a hand number: 1, 2, 3 ...", 1)

    # melds and red threes
    for team, name in enumerate(teams):
        line = _team_key(lines, name, "melds")
        if line is not None:
            for group, _, chunk in _meld_groups(line, rules):
                state.melds[team][group.rank] = group
                for tok in chunk:
                    counter.add(int(_card(tok)), 1, tok)
        state.down[team] = bool(state.melds[team])
        line = _team_key(lines, name, "red threes")
        if line is not None:
            toks = line.tokens()
            if len(toks) != 1:
                raise line.error("bad_number", "red threes are one count", "0 to 4")
            state.red_threes[team] = _int(toks[0], "a count of red threes, 0 to 4", 0)
            counter.add(RED3, state.red_threes[team], toks[0])

    # set aside (the current player's first-meld groups, C-MIN-4)
    if "set aside" in lines:
        line = lines["set aside"]
        groups = _meld_groups(line, rules)
        if groups:
            if state.phase not in (Phase.DRAW, Phase.MELD):
                raise line.error("set_aside_not_allowed", "melds can be set aside only in the "
                                 "draw or meld phase", "no 'set aside' line")  # fmt: skip
            if state.down[state.current % 2]:
                raise line.error("set_aside_not_allowed", "the team has already met its "
                                 "first-meld minimum, so nothing is set aside (C-MIN-3)",
                                 "no 'set aside' line")  # fmt: skip
        for group, _, chunk in groups:
            state.staged[group.rank] = group
            for tok in chunk:
                counter.add(int(_card(tok)), 1, tok)

    # hands
    hand_items: list[list[_Item]] = []
    for seat, name in enumerate(seats):
        line = lines.get(name.lower())
        if line is None:
            raise NotationError("missing_key", f"the position has no hand for {name}",
                                expected=f"a line '{name}: CARDS' or '{name}: ?11'",
                                params={"name": name})  # fmt: skip
        items = _card_items(line, allow_unknown=True, allow_rest=False)
        hand_items.append(items)
        for what, value, tok in items:
            if what == "card":
                if value == RED3 and seat == state.current and state.phase is not Phase.ENDED:
                    raise _tok_error(
                        tok,
                        "red_three_in_hand",
                        "the player to move holds no red three: it is laid down at once (C-RED-1)",
                        "the red three in 'NS red threes' / 'EW red threes'",
                    )
                counter.add(value, 1, tok)
            else:
                counter.unknown += value

    # pile and stock
    pile_items: list[_Item] = []
    if "pile" in lines:
        pile_items = _card_items(lines["pile"], allow_unknown=True, allow_rest=False)
    stock_line = lines.get("stock")
    stock_items: list[_Item]
    if stock_line is None:
        stock_items = [("rest", 0, _Tok("rest", 0, 0))]
    else:
        stock_items = _card_items(stock_line, allow_unknown=True, allow_rest=True)
    for what, value, tok in (*pile_items, *stock_items):
        if what == "card":
            counter.add(value, 1, tok)
        elif what == "unknown":
            counter.unknown += value
        else:
            counter.rest_tok = tok
    counter.check()

    # C-DECK-1: the counts add up to 108.
    known = sum(counter.used)
    placed = known + counter.unknown
    rest = DECK_SIZE - placed
    if rest < 0 or (rest > 0 and counter.rest_tok is None):
        where = stock_line
        raise NotationError(
            "counts_do_not_add_up",
            f"the position holds {placed} cards ({known} shown, {counter.unknown} unknown); "
            f"a deck has {DECK_SIZE}: "
            + (f"{-rest} too many" if rest < 0 else f"{rest} missing"),
            line=where.number if where else None,
            column=where.value_column if where else None,
            expected="hands, melds, red threes, pile and stock adding up to 108 cards "
            "(write the stock as 'rest' to put every other card there)",
            params={"count": placed, "known": known, "unknown": counter.unknown,
                    "deck": DECK_SIZE},
        )  # fmt: skip

    # Unknown cards: what remains of the deck, shuffled by the seed.
    deal = _Dealer(DECK_COUNTS, counter.used, _read_seed(lines))
    pool = deal.pool

    for seat, items in enumerate(hand_items):
        # Mid-hand, a red three never stays in a hand (C-RED-1): unknown hand cards are
        # dealt from the other cards, and the red threes stay for the pile and the stock.
        avoid = state.phase is not Phase.ENDED
        for what, value, tok in items:
            cards = [value] if what == "card" else deal(value, avoid, tok)
            for card in cards:
                state.hands[seat][card] += 1
    state.pile = _fill(pile_items, deal, avoid_red_three=True)  # a red three is never discarded
    state.stock = _fill(stock_items, deal, rest=len(pool) - _unknown_total(stock_items))
    state.pile_freezers = sum(1 for k in state.pile if state._is_freezer(k))

    # flags and the end of the hand
    flags = _parse_flags(lines.get("flags"), seats, teams)
    if flags.turn_fact_tok is not None and state.phase is Phase.DRAW:
        raise _tok_error(flags.turn_fact_tok, "flag_not_in_phase", f"'{flags.turn_fact_tok.text}'"
                         " describes a turn in progress, but the player has not drawn yet",
                         "no turn facts in the draw phase")  # fmt: skip
    if flags.asked_tok is not None and state.phase is Phase.ANSWER:
        raise _tok_error(flags.asked_tok, "flag_not_in_phase", "the question "
                         "is still waiting for its answer", "no 'asked=' flag in the answer "
                         "phase")  # fmt: skip
    if flags.asked_tok is not None and not (rules.ask_partner and n == 4):
        raise _tok_error(flags.asked_tok, "flag_not_in_phase", "nobody can be "
                         "asked 'may I go out?' under these rules (C-ASK-1)",
                         "no 'asked=' flag")  # fmt: skip
    state.took_pile = flags.took_pile
    state.melded_this_turn = flags.melded_this_turn
    state.asked = Asked.PENDING if state.phase is Phase.ANSWER else (flags.asked or Asked.NOT_ASKED)
    missing = flags.created - set(state.melds[state.current % 2])
    if missing:
        assert flags.created_tok is not None
        raise _tok_error(flags.created_tok, "bad_flag", "'created' names a rank the team of the "
                         "player to move has no meld of: " +
                         " ".join(TOKENS[k] for k in sorted(missing, reverse=True)),
                         "ranks of that team's melds")  # fmt: skip
    state.created_this_turn = set(flags.created)
    if flags.has_melded is None:
        # Default: everyone in a team that is down has melded (no surprise concealed bonus).
        state.has_melded = [state.down[s % 2] for s in range(n)]
    else:
        state.has_melded = flags.has_melded
    state.penalties = flags.penalties
    read_record(lines, state, seats)

    ended = lines.get("ended")
    if state.phase is Phase.ENDED:
        if ended is None:
            raise NotationError("missing_key", "an ended hand needs an 'ended:' line",
                                line=turn.number, expected="'ended: out S', 'ended: concealed "
                                "S' or 'ended: stock S'", params={"name": "ended"})  # fmt: skip
        toks = ended.tokens()
        if len(toks) != 2 or toks[0].text.lower() not in END_KINDS:
            raise ended.error(
                "bad_end",
                "the end of a hand is how and who",
                "out|concealed|stock and a seat, for example 'out S'",
            )
        state.end = HandEnd(toks[0].text.lower(), _seat(toks[1], seats))
        _check_end(state, ended, toks, seats)
    elif ended is not None:
        raise ended.error(
            "bad_end",
            f"the hand has not ended (the turn line says '{state.phase.value}')",
            "no 'ended:' line, or 'turn: SEAT ended'",
        )
    else:
        _check_hands_not_empty(state, lines, seats)
    if state.phase is not Phase.ENDED and not state.legal_moves():
        # A dead end no game can reach (say, one card in hand after drawing, and no canasta
        # to go out with): nobody could ever move again.
        raise turn.error(
            "no_legal_moves",
            "the player to move has no legal move in this position",
            "a position in which the game can go on",
            seat=seats[state.to_move],
        )
    return state


def _read_seed(lines: dict[str, _Line]) -> int | str:
    """The ``seed:`` line: a number of at most ``SEED_DIGITS`` digits, or a word (0 without)."""
    if "seed" not in lines:
        return 0
    seed_text = lines["seed"].value.strip()
    if not seed_text:
        raise lines["seed"].error("bad_seed", "the seed is empty", "a number or a word")
    if re.fullmatch(r"-?[0-9]+", seed_text):
        if len(seed_text.lstrip("-").lstrip("0")) > SEED_DIGITS:
            raise lines["seed"].error("seed_too_long", f"a seed that is a number has at "
                                      f"most {SEED_DIGITS} digits",
                                      f"a number of at most {SEED_DIGITS} digits, or a "
                                      "word", digits=SEED_DIGITS)  # fmt: skip
        return int(seed_text)
    return seed_text


class _Dealer:
    """Deals a position's unknown cards (``?N``, ``rest``): the cards of the deck the position
    does not show, shuffled by the seed, taken from the top; ``avoid_red_three`` skips red
    threes (a hand in play or the discard pile never holds one, C-RED-1 / H-RED-1)."""

    def __init__(self, deck: Sequence[int], used: Sequence[int], seed: int | str) -> None:
        self.pool: list[int] = []
        for kind in range(NUM_KINDS):
            self.pool.extend([kind] * (deck[kind] - used[kind]))
        SplitMix64(seed).shuffle(self.pool)

    def __call__(self, count: int, avoid_red_three: bool, tok: _Tok) -> list[int]:
        pool = self.pool
        out: list[int] = []
        for _ in range(count):
            index = len(pool) - 1
            while avoid_red_three and index >= 0 and pool[index] == RED3:
                index -= 1
            if index < 0:
                raise _tok_error(tok, "cannot_fill", "only red threes are left to fill a hand",
                                 "fewer unknown cards in hands")  # fmt: skip
            out.append(pool.pop(index))
        return out


def _check_end(state: State, line: _Line, toks: Sequence[_Tok], seats: Sequence[str]) -> None:
    """An ended hand ended the way the engine ends one: on the turn of the seat named, and a
    player who went out holds no cards (C-OUT-2) and had the team's canastas (C-OUT-1)."""
    end = state.end
    assert end is not None
    name = seats[end.seat]
    if end.seat != state.current:
        raise _tok_error(toks[1], "bad_end", f"the hand ended on {seats[state.current]}'s "
                         f"turn (the turn line), not {name}'s",
                         f"'{toks[0].text} {seats[state.current]}'")  # fmt: skip
    if end.how == "stock":
        return
    if state.hand_size(end.seat) or state.staged:
        raise line.error("end_holds_cards", f"{name} cannot have gone out holding cards "
                         "(C-OUT-2)", f"'{name}: -'", seat=name)  # fmt: skip
    team = end.seat % 2
    canastas, needed = state.canastas(team), state.rules.canastas_to_go_out
    if canastas < needed:
        raise line.error("end_needs_canastas", f"{name} cannot have gone out: the team has "
                         f"{canastas} canasta(s) and needs {needed} to go out (C-OUT-1)",
                         f"at least {needed} canasta(s) in the team's melds", seat=name,
                         canastas=canastas, needed=needed)  # fmt: skip


def _check_hands_not_empty(state: State, lines: dict[str, _Line], seats: Sequence[str]) -> None:
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


def _unknown_total(items: Sequence[_Item]) -> int:
    return sum(value for kind, value, _ in items if kind == "unknown")


def _fill(
    items: Sequence[_Item], deal: Any, rest: int = 0, avoid_red_three: bool = False
) -> list[int]:
    out: list[int] = []
    for what, value, tok in items:
        if what == "card":
            out.append(value)
        elif what == "unknown":
            out.extend(deal(value, avoid_red_three, tok))
        else:
            out.extend(deal(rest, avoid_red_three, tok))
    return out


# ---------------------------------------------------------------------------- formatting


def _cards(kinds: Sequence[int]) -> str:
    return " ".join(TOKENS[k] for k in kinds) if kinds else "-"


def _melds(groups: dict[int, MeldGroup]) -> str:
    if not groups:
        return "-"
    return " | ".join(_cards(groups[r].cards()) for r in sorted(groups, reverse=True))


def format_position(state: State) -> str:
    """The canonical notation of ``state``: every card explicit, optional lines only when
    they differ from their defaults.  ``parse_position`` reads it back to an equal state."""
    rules = state.rules
    if rules.family == "handfoot":
        from .handfoot import HandFootState
        from .handfoot_notation import format_handfoot

        assert isinstance(state, HandFootState)
        return format_handfoot(state)
    n = rules.players
    seats = SEATS_4 if n == 4 else SEATS_2
    teams = TEAMS_4 if n == 4 else TEAMS_2
    options = rules.options_differing_from_preset()
    rules_text = " ".join(
        [rules.name] + [f"{k}={_option_text(v)}" for k, v in sorted(options.items())]
    )
    out = [f"rules: {rules_text}"]
    out.append(f"scores: {teams[0]} {state.scores[0]}, {teams[1]} {state.scores[1]}")
    if state.hand_number != 1:
        out.append(f"hand: {state.hand_number}")
    if state.dealer != n - 1:
        out.append(f"dealer: {seats[state.dealer]}")
    out.append(f"turn: {seats[state.current]} {state.phase.value}")
    for seat, name in enumerate(seats):
        out.append(f"{name}: {_cards(kinds_of(state.hands[seat]))}")
    for team, name in enumerate(teams):
        out.append(f"{name} melds: {_melds(state.melds[team])}")
        if state.red_threes[team]:
            out.append(f"{name} red threes: {state.red_threes[team]}")
    if state.staged:
        out.append(f"set aside: {_melds(state.staged)}")
    out.append(f"pile: {_cards(state.pile)}")
    out.append(f"stock: {_cards(state.stock)}")
    flags: list[str] = []
    if state.took_pile:
        flags.append("took-pile")
    if state.melded_this_turn:
        flags.append("melded-this-turn")
    if state.asked in (Asked.YES, Asked.NO):
        flags.append(f"asked={state.asked.value}")
    if state.has_melded != [state.down[s % 2] for s in range(n)]:
        who = [seats[s] for s in range(n) if state.has_melded[s]]
        flags.append("has-melded=" + (",".join(who) if who else "-"))
    if state.created_this_turn:
        flags.append(
            "created=" + ",".join(TOKENS[k] for k in sorted(state.created_this_turn, reverse=True))
        )
    for team, name in enumerate(teams):
        if state.penalties[team]:
            flags.append(f"penalty-{name}={state.penalties[team]}")
    if flags:
        out.append("flags: " + " ".join(flags))
    out.extend(format_record(state, seats))
    if state.end is not None:
        out.append(f"ended: {state.end.how} {seats[state.end.seat]}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------- the record

RECORD_FORM: Final = "seats with cards, separated by commas, for example 'W 7 7, E K'"


def _record_groups(line: _Line, seats: Sequence[str]) -> dict[int, list[Kind]]:
    """``W 7 7, E K``: each seat named once, with one card or more."""
    out: dict[int, list[Kind]] = {}
    seat: int | None = None
    for tok in line.tokens(","):
        if tok.text == ",":
            if seat is None or not out[seat]:
                raise _tok_error(tok, "bad_record", "a seat needs its cards before ','",
                                 RECORD_FORM)  # fmt: skip
            seat = None
        elif seat is None:
            seat = _seat(tok, seats)
            if seat in out:
                raise _tok_error(tok, "bad_record", f"the seat {tok.text} is named twice",
                                 RECORD_FORM)  # fmt: skip
            out[seat] = []
        else:
            out[seat].append(_card(tok))
    if seat is not None and not out[seat]:
        raise line.error("bad_record", "a seat needs its cards", RECORD_FORM)
    return out


def read_record(lines: dict[str, _Line], state: State, seats: Sequence[str]) -> None:
    """The public record (``State.known``, ``State.thrown``): ``known: W 7 7, E K`` names cards
    every player saw go into a hand (they must be in it) and ``thrown: W 7 9`` the kinds a seat
    has thrown away this hand.  Read after the hands (any variant's parser calls it)."""
    line = lines.get("known")
    if line is not None:
        for seat, cards in _record_groups(line, seats).items():
            counts = [0] * NUM_KINDS
            for kind in cards:
                counts[kind] += 1
            if any(counts[k] > state.hands[seat][k] for k in range(NUM_KINDS)) or counts[RED3]:
                raise line.error("bad_record", f"{seats[seat]} is known to hold cards that "
                                 "are not in that hand", "cards of that hand (no red three)",
                                 seat=seats[seat])  # fmt: skip
            state.known[seat] = tuple(counts)
    line = lines.get("thrown")
    if line is not None:
        for seat, cards in _record_groups(line, seats).items():
            for kind in cards:
                state.thrown[seat] |= 1 << kind


def format_record(state: State, seats: Sequence[str]) -> list[str]:
    """The ``known:`` and ``thrown:`` lines of ``state`` (none when nothing is recorded)."""
    out = []
    known = [f"{seats[s]} {_cards(kinds_of(list(c)))}" for s, c in enumerate(state.known)
             if any(c)]  # fmt: skip
    if known:
        out.append("known: " + ", ".join(known))
    thrown = [f"{seats[s]} {_cards([k for k in range(NUM_KINDS) if bits >> k & 1])}"
              for s, bits in enumerate(state.thrown) if bits]  # fmt: skip
    if thrown:
        out.append("thrown: " + ", ".join(thrown))
    return out


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


# ---------------------------------------------------------------------------- moves

_VERBS: Final = ("draw", "take", "meld", "add", "lay", "discard", "ask", "answer")


def parse_move(text: str, *, line: int = 1, column: int = 1) -> Move:
    """Read one move: ``draw``, ``take``, ``take 7 JK``, ``meld 7 7 JK``, ``add 7: 7 2``,
    ``discard 9``, ``ask``, ``answer yes``.  ``line``/``column`` place ``text`` in a larger
    text for error messages."""
    src = _Line("move", "move", line, column, text, column)
    toks = src.tokens(":")
    if not toks:
        raise NotationError("empty_move", "no move was given", line=line, column=column,
                            expected=MOVE_FORMS)  # fmt: skip
    verb_tok, rest = toks[0], toks[1:]
    verb = verb_tok.text.lower()
    if verb not in _VERBS:
        raise _tok_error(verb_tok, "unknown_verb", f"'{verb_tok.text}' is not a move",
                         MOVE_FORMS)  # fmt: skip

    def no_more(tokens: Sequence[_Tok], form: str) -> None:
        if tokens:
            raise _tok_error(tokens[0], "extra_token", f"'{tokens[0].text}' does not belong "
                             f"after '{verb}'", form)  # fmt: skip

    def cards(tokens: Sequence[_Tok], form: str) -> tuple[Kind, ...]:
        for tok in tokens:
            if tok.text == ":":
                raise _tok_error(tok, "extra_token", "':' belongs only in 'add RANK: CARDS'",
                                 form)  # fmt: skip
        return canonical([int(_card(tok)) for tok in tokens])

    if verb == "draw":
        no_more(rest, "draw")
        return DRAW
    if verb == "ask":
        no_more(rest, "ask")
        return ASK
    if verb == "lay":
        # H-MIN-1 (Hand and Foot): "lay down", two words.
        if not rest or rest[0].text.lower() != "down":
            raise _tok_error(rest[0] if rest else verb_tok, "missing_down",
                             "'lay' is always 'lay down'", "lay down")  # fmt: skip
        no_more(rest[1:], "lay down")
        return LAY_DOWN
    if verb == "answer":
        form = "answer yes | answer no"
        if not rest:
            raise _tok_error(verb_tok, "missing_answer", "'answer' needs yes or no", form)
        word = rest[0].text.lower()
        if word not in ("yes", "no"):
            raise _tok_error(rest[0], "bad_answer", f"'{rest[0].text}' is not yes or no", form)
        no_more(rest[1:], form)
        return YES if word == "yes" else NO
    if verb == "take":
        return TakePile(cards(rest, "take, or take CARDS (for example take 7 7)"))
    if verb == "meld":
        form = "meld CARDS (for example meld 7 7 JK)"
        if not rest:
            raise _tok_error(verb_tok, "missing_cards", "'meld' needs the cards to meld", form)
        return Meld(cards(rest, form))
    if verb == "discard":
        form = "discard CARD (for example discard 9)"
        if not rest:
            raise _tok_error(verb_tok, "missing_cards", "'discard' needs a card", form)
        no_more(rest[1:], form)
        if rest[0].text == ":":
            raise _tok_error(rest[0], "bad_card", "':' is not a card", form)
        return Discard(_card(rest[0]))
    # add RANK: CARDS
    form = "add RANK: CARDS (for example add 7: 7 2)"
    if not rest:
        raise _tok_error(verb_tok, "missing_rank", "'add' needs the rank of the meld", form)
    if rest[0].text == ":":
        raise _tok_error(rest[0], "missing_rank", "'add' needs the rank before ':'", form)
    # JK names Hand and Foot's meld of wild cards only (H-MELD-2).
    ranks = "a meld rank: 3B 4 5 6 7 8 9 10 J Q K A (JK: the meld of wild cards)"
    rank = _card(rest[0], ranks)
    if BLACK3 > rank != Kind.JOKER:
        raise _tok_error(rest[0], "bad_rank", f"'{rest[0].text}' is not a meld rank",
                         ranks)  # fmt: skip
    if len(rest) < 2 or rest[1].text != ":":
        at = rest[1] if len(rest) > 1 else rest[0]
        raise _tok_error(at, "missing_colon", f"a ':' must follow the rank {rest[0].text}",
                         form)  # fmt: skip
    if len(rest) < 3:
        raise _tok_error(rest[1], "missing_cards", "'add' needs the cards to add", form)
    return Add(rank, cards(rest[2:], form))


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
        raise NotationError("empty_move", "no move was given", line=1, column=1,
                            expected=MOVE_FORMS)  # fmt: skip
    return out


__all__ = [
    "NotationError", "format_move", "format_position", "parse_move", "parse_moves",
    "parse_position",
]  # fmt: skip
