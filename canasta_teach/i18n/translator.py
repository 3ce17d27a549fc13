"""Translators: every learner-facing word of the engine, in English, Urdu, Hindi and Telugu.

Catalogs are gettext ``.mo`` files compiled from the ``.po`` files beside them (see
``compile.py``); message ids are keys (``reason.frozen_needs_pair``, ``card.7``...) and the
strings use Python format fields (``{rank_of}``).  Only the standard library reads them, so
the package needs neither Babel nor Jupyter at run time.

A ``Reason`` from the engine carries raw facts (card tokens, counts, points).  ``reason``
turns those facts into words first (``"7"`` and 2 become "two 7s", "دو ستے", "दो सत्ते",
"రెండు 7లు") and picks the variant of the message that fits them, so a learner always reads
the concrete cards and numbers of their own position.
"""

from __future__ import annotations

import gettext
import logging
import re
import threading
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from canasta_teach.engine.cards import TOKENS
from canasta_teach.engine.moves import Reason
from canasta_teach.engine.reasons import REASONS, RULES
from canasta_teach.engine.scoring import ScoreLine
from canasta_teach.engine.seats import ALL_SEATS, ALL_TEAMS, seat_names, team_names

_log = logging.getLogger(__name__)

LANGUAGES: tuple[str, ...] = ("en", "ur", "hi", "te")
#: Each language's name in its own script (what a language picker shows).
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "ur": "اردو", "hi": "हिन्दी", "te": "తెలుగు"}
RTL_LANGUAGES: frozenset[str] = frozenset({"ur"})
DOMAINS: tuple[str, ...] = ("engine", "ui")
FALLBACK = "en"
LOCALE_DIR = Path(__file__).with_name("locale")

#: Score lines whose label depends on a count (gettext plural entries).
COUNTED_SCORE_LINES: frozenset[str] = frozenset(
    {"canastas_natural", "canastas_mixed", "red_threes", "red_threes_unmelded",
     "piles_clean", "piles_dirty", "piles_wild", "red_threes_left"}
)  # fmt: skip
SEATS: tuple[str, ...] = ALL_SEATS
TEAMS: tuple[str, ...] = ALL_TEAMS
_TEAM_ALIASES = {"SN": "NS", "WE": "EW"}
_TOKEN_ALIASES = {"T": "10", "JOKER": "JK", "*": "JK"}
#: Events told in the second person when they are the reader's own (``event.you.<rest>``).
YOU_EVENTS: frozenset[str] = frozenset(
    {"event.drew", "event.took_pile", "event.took_pile.gained", "event.red_three",
     "event.red_three.dealt", "event.red_three.drawn", "event.red_three.pile",
     "event.red_three.last", "event.melded", "event.set_aside", "event.added",
     "event.went_down", "event.taken_back", "event.discarded", "event.asked",
     "event.answered_yes", "event.answered_no", "event.penalty", "event.hand_over.out",
     "event.hand_over.concealed", "event.round_over.out", "event.foot"}
)  # fmt: skip
#: Of those, the ones whose words are a count's plural entry (the count in ``_EVENT_COUNTS``).
_EVENT_COUNTS = {"event.drew": "count", "event.took_pile": "size",
                 "event.took_pile.gained": "size", "event.foot": "count"}  # fmt: skip


#: Fields shown exactly as given (a file's path, a move in the notation, a command's own words):
#: a sentence that starts with one keeps its first letter as it is.
VERBATIM_FIELDS: frozenset[str] = frozenset({"path", "move", "detail", "number"})
_LEADING_FIELD = re.compile(r"\{(\w+)")
_SENTENCE_END = re.compile(r"[.!?\u2026][\u201d\"')\u00bb]*\s*$")


def sentence_case(template: str, text: str) -> str:
    """``text`` (``template`` filled in) with a capital first letter when it is a sentence that
    starts with a field: "{cards} would be a mixed canasta..." filled with "seven aces and one
    2" must read "Seven aces and one 2 would be...".  Fragments (no full stop at the end, such
    as a list or a label) and verbatim fields are left alone; scripts without capitals are
    unchanged by ``str.upper``."""
    field = _LEADING_FIELD.match(template)
    if field is None or field.group(1) in VERBATIM_FIELDS or not _SENTENCE_END.search(text):
        return text
    for i, ch in enumerate(text):
        if ch.isalpha():
            return text[:i] + ch.upper() + text[i + 1 :]
        if unicodedata.category(ch) != "Cf":  # a digit or a sign starts it: nothing to raise
            break
    return text


class UnknownLanguage(ValueError):
    """A language code that is not one of ``LANGUAGES``.

    ``str()`` says so once in each language, one line each: whoever reads it, we do not
    know their language yet."""

    def __init__(self, lang: object) -> None:
        self.lang = lang
        super().__init__(unknown_language_message(lang))


def _printable(value: object, limit: int = 40) -> str:
    """User input as shown inside a message: no control characters, not too long."""
    text = value if isinstance(value, str) else repr(value)
    text = "".join(ch for ch in text if ch.isprintable())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def unknown_language_message(lang: object) -> str:
    shown = _printable(lang)
    known = ", ".join(f"{code} ({LANGUAGE_NAMES[code]})" for code in LANGUAGES)
    lines = []
    for code in LANGUAGES:
        lines.append(_translator(code).text("engine", "error.unknown_language", lang=shown,
                                            known=known))  # fmt: skip
    return "\n".join(lines)


def normalize_language(lang: object) -> str:
    """``"ur"``, ``"UR"``, ``"ur_PK"``, ``"ur-PK"``, ``"ur_PK.UTF-8"`` -> ``"ur"``.

    Raises ``UnknownLanguage`` for anything that is not one of ``LANGUAGES``."""
    if not isinstance(lang, str):
        raise UnknownLanguage(lang)
    code = lang.strip().split(".")[0].replace("-", "_").split("_")[0].lower()
    if code not in LANGUAGES:
        raise UnknownLanguage(lang)
    return code


def _load(locale_dir: Path, lang: str, domain: str) -> gettext.GNUTranslations | None:
    path = locale_dir / lang / "LC_MESSAGES" / f"{domain}.mo"
    try:
        with path.open("rb") as handle:
            return gettext.GNUTranslations(handle)
    except FileNotFoundError:
        # The ui domain is written by the widgets; until it exists, keys fall back.
        _log.info("no %s catalog for %s at %s", domain, lang, path)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        _log.error("unreadable %s catalog for %s at %s: %s", domain, lang, path, exc)
    return None


class _Facts(dict[str, Any]):
    """Format parameters that leave a missing field visible instead of raising."""

    def __init__(self, params: Mapping[str, Any], where: str) -> None:
        super().__init__(params)
        self.where = where

    def __missing__(self, name: str) -> str:
        _log.warning("message %s used {%s} but was not given it", self.where, name)
        return "{" + name + "}"


class Translator:
    """All the words of one language.  Get one with ``get_translator(lang)`` (cached)."""

    lang: str
    direction: str

    def __init__(self, lang: str, locale_dir: Path = LOCALE_DIR) -> None:
        self.lang = normalize_language(lang)
        self.direction = "rtl" if self.lang in RTL_LANGUAGES else "ltr"
        self.name = LANGUAGE_NAMES[self.lang]
        self._locale_dir = locale_dir
        self._catalogs: dict[tuple[str, str], gettext.GNUTranslations | None] = {}
        self._lock = threading.Lock()
        self._warned: set[tuple[str, str]] = set()

    def __repr__(self) -> str:
        return f"Translator({self.lang!r})"

    # ------------------------------------------------------------------ lookup

    def _catalog(self, lang: str, domain: str) -> gettext.GNUTranslations | None:
        key = (lang, domain)
        if key not in self._catalogs:
            with self._lock:
                if key not in self._catalogs:
                    self._catalogs[key] = _load(self._locale_dir, lang, domain)
        return self._catalogs[key]

    def _chain(self, domain: str) -> list[gettext.GNUTranslations]:
        langs = (self.lang,) if self.lang == FALLBACK else (self.lang, FALLBACK)
        return [c for c in (self._catalog(lang, domain) for lang in langs) if c is not None]

    def _missing(self, domain: str, key: str) -> str:
        if (domain, key) not in self._warned:
            self._warned.add((domain, key))
            _log.warning("no %s message %r in %s (nor in English)", domain, key, self.lang)
        return key

    def has(self, domain: str, key: str) -> bool:
        """Whether this language's own catalog holds ``key`` (no English fallback)."""
        catalog = self._catalog(self.lang, domain)
        return catalog is not None and catalog.gettext(key) != key

    def _format(self, domain: str, key: str, template: str, params: Mapping[str, Any]) -> str:
        try:
            text = template.format_map(_Facts(params, f"{self.lang}:{domain}:{key}"))
            return sentence_case(template, text)
        except (ValueError, IndexError, AttributeError, KeyError) as exc:
            # A broken translation must not break the lesson: say it in English instead.
            _log.error("bad %s template %r in %s: %s", domain, key, self.lang, exc)
            if self.lang != FALLBACK:
                return get_translator(FALLBACK).text(domain, key, **params)
            return key

    def text(self, domain: str, key: str, **params: Any) -> str:
        """The message ``key`` of ``domain`` ("engine" or "ui"), formatted with ``params``.

        A key missing in this language falls back to English, then to the key itself
        (logged; the catalog tests keep that from happening)."""
        for catalog in self._chain(domain):
            template = catalog.gettext(key)
            if template != key:
                return self._format(domain, key, template, params)
        return self._missing(domain, key)

    def ntext(self, domain: str, key: str, n: int, **params: Any) -> str:
        """A plural entry: the form for ``n`` (``{count}`` defaults to ``n`` in words)."""
        plural_id = key + ".plural"
        params.setdefault("count", self.count_words(n))
        for catalog in self._chain(domain):
            template = catalog.ngettext(key, plural_id, n)
            if template not in (key, plural_id):
                return self._format(domain, key, template, params)
        return self._missing(domain, key)

    def ui(self, key: str, **params: Any) -> str:
        return self.text("ui", key, **params)

    # ------------------------------------------------------------------ numbers and lists

    def number(self, n: int) -> str:
        """ASCII digits with thousands separators: 1,475 and -35 (as the seeds print them)."""
        return f"{int(n):,}"

    def count_words(self, n: int) -> str:
        """A count as a learner would say it before a noun: "two", "دو", "दो", "రెండు"."""
        if 2 <= n <= 10:
            return self.text("engine", f"num.{n}")
        return self.number(n)

    def join(self, items: Sequence[str]) -> str:
        """Items joined as a list: "A, B and C" in this language."""
        items = list(items)
        if not items:
            return ""
        if len(items) == 1:
            return items[0]
        head = items[0]
        for item in items[1:-1]:
            head = self.text("engine", "list.comma", first=head, next=item)
        return self.text("engine", "list.and", first=head, last=items[-1])

    # ------------------------------------------------------------------ cards

    @staticmethod
    def _token(token: str | int) -> str:
        """A card token in its canonical spelling (``"jk"`` -> ``"JK"``, ``"T"`` -> ``"10"``)."""
        if isinstance(token, int):
            return TOKENS[token]
        tok = token.strip().upper()
        tok = _TOKEN_ALIASES.get(tok, tok)
        if tok not in TOKENS:
            raise ValueError(f"not a card token: {token!r}")
        return tok

    def card(self, token: str | int, count: int = 1) -> str:
        """``count`` cards of one kind: "a joker", "one 7", "two 7s", "دو ستے"."""
        return self.ntext("engine", f"card.{self._token(token)}", count)

    def card_name(self, token: str | int) -> str:
        """The name of one card, no number: "joker", "ستا", "सत्ता", "7"."""
        return self.text("engine", f"card.{self._token(token)}.name")

    def card_plural(self, token: str | int) -> str:
        """The plural as a subject: "7s", "ستے", "सत्ते", "7లు"."""
        return self.text("engine", f"card.{self._token(token)}.pl")

    def card_of(self, token: str | int) -> str:
        """The plural after "of": "pair of 7s" -> "7s", "ستوں", "सत्तों", "7ల"."""
        return self.text("engine", f"card.{self._token(token)}.of")

    def cards(self, tokens: Iterable[str | int]) -> str:
        """A list of cards, equal ones grouped in order of first appearance:
        ``["7", "JK"]`` -> "one 7 and a joker"; ``["7", "7"]`` -> "two 7s"."""
        counts: dict[str, int] = {}
        for token in tokens:
            tok = self._token(token)
            counts[tok] = counts.get(tok, 0) + 1
        return self.join([self.card(tok, n) for tok, n in counts.items()])

    # ------------------------------------------------------------------ table words

    def seat(self, name: str) -> str:
        """A seat by its letter, "S", "W", "N" or "E": South, West... in this language."""
        code = name.strip().upper()[:1]
        if code not in SEATS:
            raise ValueError(f"not a seat: {name!r}")
        return self.text("engine", f"seat.{code}")

    def team(self, name: str) -> str:
        """A team: "NS", "EW" (4 players) or "S", "N" (2 players: a team of one)."""
        code = name.strip().upper()
        code = _TEAM_ALIASES.get(code, code)
        if code not in TEAMS:
            raise ValueError(f"not a team: {name!r}")
        return self.text("engine", f"team.{code}")

    def phase(self, name: str) -> str:
        """A ``state.Phase`` value ("draw", "meld", "answer", "ended") as a short label."""
        return self.text("engine", f"phase.{getattr(name, 'value', name)}")

    def frozen_by(self, value: str) -> str:
        return self.text("engine", f"frozen_by.{value}")

    def rule_title(self, rule_id: str) -> str:
        """The short title of a rule id: "C-PILE-3" -> "A frozen pile needs a natural pair"."""
        return self.text("engine", f"rule.{rule_id}")

    # ------------------------------------------------------------------ what is said of a move

    def claim(self, claim: Mapping[str, Any], voice: str = "me") -> str:
        """One checked fact (``bots.claims.Claim.to_dict()``) as a sentence.  ``voice`` is
        "me" (a computer partner about its own hand: "I held only one 7") or "you" (the Hint
        and the coach to the learner: "You hold only one 7"); facts about the table read the
        same in both.  Facts name seats, teams and cards by token; they are put into words
        here."""
        key = str(claim.get("key", ""))
        facts = dict(claim.get("params") or {})
        params: dict[str, Any] = {}
        for name in ("team", "other"):
            if name in facts:
                params[name] = self.team(str(facts[name]))
        if "seat" in facts:
            params["seat"] = self.seat(str(facts["seat"]))
        if "rank" in facts:
            params["rank_of"] = self.card_of(str(facts["rank"]))
        if "card" in facts:
            params["card"] = self.card(str(facts["card"]), 1)
        if "cards" in facts:
            params["cards"] = self.cards([str(c) for c in facts["cards"]])
        if "rule" in facts:
            params["rule"] = str(facts["rule"])
            params["rule_title"] = self.rule_title(str(facts["rule"]))
        for name, value in facts.items():
            if name not in params and isinstance(value, int) and not isinstance(value, bool):
                params[name] = self.number(value)
        message = f"claim.{key}"
        if key in ("makes_canasta", "makes_pile"):
            message += f".{facts.get('kind', '')}"
        if self.has("engine", f"{message}.{voice}") or self.has("engine", f"{message}.me"):
            message += f".{voice}"
        if "count" in facts:
            count = int(facts["count"])
            if "card" in facts:
                params["held"] = self.card(str(facts["card"]), count)
            params.pop("count", None)
            text = self.ntext("engine", message, count, **params)
        else:
            text = self.text("engine", message, **params)
        return text[:1].upper() + text[1:]

    def move_headline(self, record: Mapping[str, Any]) -> str:
        """What a computer partner did, in one short sentence ("I threw away a 7."), from a
        reason record (``bots.claims.reason_record``)."""
        from canasta_teach.engine.notation import parse_move

        move = parse_move(str(record["move"]))
        params: dict[str, Any] = {}
        cards = getattr(move, "cards", None)
        if cards:
            params["cards"] = self.cards([TOKENS[int(k)] for k in cards])
        if hasattr(move, "card"):
            params["card"] = self.card(int(move.card), 1)
        if hasattr(move, "rank"):
            params["rank_of"] = self.card_of(int(move.rank))
        key = f"bot.move.{record.get('headline', '')}"
        if record.get("headline") == "draw_more":
            return self.ntext("engine", key, int(record.get("count", 2)), **params)
        return self.text("engine", key, **params)

    def reason_words(self, record: Mapping[str, Any], voice: str = "me") -> str:
        """A reason record in words: the move (said by the partner, "me"), then each checked
        fact.  With ``voice="you"`` (the Hint, the coach) the move is left out: the caller
        says it as advice ("Discard a 7")."""
        sentences = []
        try:
            if voice == "me":
                sentences.append(self.move_headline(record))
            sentences.extend(self.claim(c, voice) for c in record.get("claims", []))
        except (KeyError, TypeError, ValueError) as exc:
            _log.error("reason record %r cannot be put into words: %r", record, exc)
        return " ".join(sentences)

    # ------------------------------------------------------------------ events

    def event(self, event: Any, players: int = 4, you: int | None = None) -> str:
        """One thing that happened at the table (``engine.Event`` or its ``to_dict()``), as a
        sentence: "West took the discard pile: 6 cards, with a king on top."

        ``you``: the reader's seat.  The reader's own moves are told in the second person
        ("You drew two cards."), and only there the event's private facts are said (the card
        that replaced the reader's red three); another seat's never are."""
        if isinstance(event, Mapping):
            code, seat, facts = event["code"], int(event["seat"]), dict(event.get("params", {}))
            private = dict(event.get("private") or {})
        else:
            code, seat, facts = event.code, event.seat, dict(event.params)
            private = dict(getattr(event, "private", None) or {})
        seats, teams = seat_names(players), team_names(players)
        params: dict[str, Any] = {
            "seat": self.seat(seats[seat]),
            "team": self.team(teams[seat % 2]),
        }
        key = f"event.{code}"
        if "cards" in facts:
            params["cards"] = self.cards(facts["cards"])
        if "card" in facts:
            params["card"] = self.card(facts["card"], 1)
        if "rank" in facts:
            params["rank_of"] = self.card_of(facts["rank"])
        if "top" in facts:
            params["top"] = self.card(facts["top"], 1)
        if "points" in facts:
            params["points"] = self.number(int(facts["points"]))
        if code == "answered":
            key = "event.answered_yes" if facts.get("yes") else "event.answered_no"
        if code == "hand_over":
            key = f"event.hand_over.{facts.get('how', 'out')}"
        if code == "pile":
            # Hand and Foot: a meld of seven became a clean, dirty or wild pile (H-MELD-3).
            key = f"event.pile.{facts.get('kind', 'clean')}"
        if code == "hand_over" and "round" in facts:
            key = f"event.round_over.{facts.get('how', 'out')}"  # Hand and Foot
        if code == "red_three" and facts.get("source") in ("dealt", "drawn", "pile"):
            # C-RED-1 / H-RED-1: one from the hand or the stock is replaced from the stock
            # (unless the stock is empty); one that came with the pile never is.
            source = facts["source"]
            replaced = bool(facts.get("replaced")) and source != "pile"
            key = f"event.red_three.{source}" if replaced or source == "pile" else (
                "event.red_three.last")  # fmt: skip
        if code == "took_pile" and facts.get("gained"):
            key = "event.took_pile.gained"
            params["gained"] = self.cards(facts["gained"])
        mine = you is not None and (
            seat == you or code == "went_down" and seat % 2 == you % 2  # the team's news
        )
        if mine and key in YOU_EVENTS:
            if key in ("event.red_three.dealt", "event.red_three.drawn"):
                if "card" in private:
                    params["card"] = self.card(private["card"], 1)
                    key = key.replace("event.", "event.you.", 1)
            else:
                key = key.replace("event.", "event.you.", 1)
        counted = _EVENT_COUNTS.get(key.replace("event.you.", "event.", 1))
        if counted is not None:
            default = 13 if code == "foot" else 1
            return self.ntext("engine", key, int(facts.get(counted, default)), **params)
        return self.text("engine", key, **params)

    # ------------------------------------------------------------------ reasons

    def reason(self, reason: Reason | Mapping[str, Any]) -> str:
        """Why a move was refused (or a note on a legal move), with its concrete facts.

        Takes a ``Reason`` or its ``to_dict()`` form (as views send it as JSON)."""
        key, params = self.reason_parts(reason)
        text = self.text("engine", key, **params)
        # A sentence may open with a fact ("Two 8s are not a meld"): capitalize it.  Only
        # English letters change; Urdu, Hindi and Telugu scripts have no case.
        return text[:1].upper() + text[1:]

    def reason_parts(self, reason: Reason | Mapping[str, Any]) -> tuple[str, dict[str, str]]:
        """The catalog key chosen for ``reason`` and its facts put into words.

        A code the catalogs do not know, or facts that do not fit it, give a general
        sentence citing the rule (logged): a learner never sees a traceback or a key."""
        if isinstance(reason, Reason):
            code, rule, facts = reason.code, reason.rule, dict(reason.params)
        else:
            code, rule = str(reason.get("code", "")), str(reason.get("rule", ""))
            facts = dict(reason.get("params") or {})
        missing = set(REASONS[code][1]) - set(facts) if code in REASONS else set()
        if missing:
            _log.error("reason %s lacks the facts %s", code, sorted(missing))
        elif code in REASONS:
            try:
                return _REASON_WORDS.get(code, _plain)(self, code, rule, facts)
            except (KeyError, ValueError, TypeError, IndexError) as exc:
                _log.error("reason %s with facts %r cannot be put into words: %r",
                           code, facts, exc)  # fmt: skip
        else:
            _log.error("unknown reason code %r", code)
        if rule in RULES:
            return "refusal.fallback", {"rule": rule, "title": self.rule_title(rule)}
        return "refusal.fallback_no_rule", {}

    def _held(self, rank: str, facts: Mapping[str, Any]) -> list[str]:
        """The cards of the pile's rank and the wild cards in hand, as tokens."""
        return (
            [rank] * int(facts.get("naturals_held", 0))
            + ["2"] * int(facts.get("twos_held", 0))
            + ["JK"] * int(facts.get("jokers_held", 0))
        )

    def _wilds(self, n: int) -> str:
        return self.ntext("engine", "count.wild", n)

    def _canastas(self, n: int) -> str:
        return self.ntext("engine", "count.canasta", n)

    # ------------------------------------------------------------------ scores

    def score_label(self, line: ScoreLine | Mapping[str, Any]) -> str:
        """The label of a score line: "2 natural canastas", "Cards left in hand"."""
        code, _points, params = _score_fields(line)
        if code in COUNTED_SCORE_LINES:
            count = int(params.get("count", 0))
            return self.ntext("engine", f"score.{code}", count, count=self.number(count))
        return self.text("engine", f"score.{code}", **params)

    def score_line(self, line: ScoreLine | Mapping[str, Any]) -> str:
        """A score line with its points: "2 natural canastas: 1,000"."""
        _code, points, _params = _score_fields(line)
        return f"{self.score_label(line)}: {self.number(points)}"


def _score_fields(line: ScoreLine | Mapping[str, Any]) -> tuple[str, int, dict[str, Any]]:
    if isinstance(line, ScoreLine):
        return line.code, line.points, dict(line.params)
    return str(line["code"]), int(line["points"]), dict(line.get("params") or {})


# ---------------------------------------------------------------------- reason words
#
# One function per reason code that needs more than its numbers: it turns the engine's
# facts into words and chooses the message variant (``reason.<code>.<variant>``) whose
# grammar fits them.  Codes not listed here have no facts, or only points.

_Words = tuple[str, dict[str, str]]


def _plain(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    return f"reason.{code}", {
        k: t.number(v) if isinstance(v, int) and not isinstance(v, bool) else str(v)
        for k, v in facts.items()
    }


def _rank_words(t: Translator, rank: str) -> dict[str, str]:
    return {
        "rank_of": t.card_of(rank),
        "rank_pl": t.card_plural(rank),
        "rank_name": t.card_name(rank),
        "rank_1": t.card(rank, 1),
    }


def _partner_said_no(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    if int(facts.get("cards_left", 0)) > 0:
        return "reason.partner_said_no.one_left", {}
    return "reason.partner_said_no", {}


def _not_in_hand(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    return "reason.not_in_hand", {"cards": t.cards(facts.get("cards", []))}


def _meld_cards(t: Translator, code: str, facts: dict[str, Any]) -> _Words:
    """The cards of a meld too small (``too_few``) or all wild (``all_wild``), named; one
    card takes the singular variant (``reason.<code>.one``)."""
    cards = list(facts["cards"])
    if not cards:
        raise ValueError(f"{code} without its cards")
    key = f"reason.{code}.one" if len(cards) == 1 else f"reason.{code}"
    return key, {"cards": t.cards(cards)}


def _too_few(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    return _meld_cards(t, code, facts)


def _all_wild(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    return _meld_cards(t, code, facts)


def _mixed_ranks(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    return "reason.mixed_ranks", {"ranks": t.join([t.card_plural(r) for r in facts["ranks"]])}


def _wrong_rank(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    words = _rank_words(t, facts["rank"])
    words["cards"] = t.join([t.card_plural(c) for c in dict.fromkeys(facts.get("cards", []))])
    return "reason.wrong_rank", words


def _needs_two_naturals(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    rank = facts["rank"]
    return "reason.needs_two_naturals", {
        "naturals": t.card(rank, int(facts["naturals"])),
        "wilds": t._wilds(int(facts["wilds"])),
    }


def _too_many_wilds(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    rank = facts["rank"]
    return "reason.too_many_wilds", {
        "rank_of": t.card_of(rank),
        "naturals": t.card(rank, int(facts["naturals"])),
        "wilds": t._wilds(int(facts["wilds"])),
        "max_wilds": t._wilds(int(facts["max_wilds"])),
    }


def _two_naturals_per_wild(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    rank, wilds = facts["rank"], int(facts["wilds"])
    return "reason.two_naturals_per_wild", {
        "rank_of": t.card_of(rank),
        "naturals": t.card(rank, int(facts["naturals"])),
        "wilds": t._wilds(wilds),
        "needed_naturals": t.card(rank, 2 * wilds),
    }


def _meld_of_rank(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    """``rank_already_melded`` / ``no_such_meld``: the team's melds on the table, or (before
    the team has gone down) the melds set aside this turn (``reason.<code>.set_aside``).
    Hand and Foot's meld of wild cards only (rank ``JK``) has its own words (``.wild``)."""
    if facts["rank"] == "JK":
        return f"reason.{code}.wild", {}
    key = f"reason.{code}.set_aside" if facts["set_aside"] is True else f"reason.{code}"
    return key, {"rank_of": t.card_of(facts["rank"])}


_HAND_ENDED = {
    "out": "reason.hand_over",
    "concealed": "reason.hand_over.concealed",
    "stock": "reason.hand_over.stock",
}


def _hand_over(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    if rule.startswith("H-"):  # Hand and Foot plays rounds
        key = (
            "reason.hand_over.round_stock" if facts["how"] == "stock" else "reason.hand_over.round"
        )
        return key, {"seat": t.seat(facts["seat"])}
    return _HAND_ENDED[facts["how"]], {"seat": t.seat(facts["seat"])}


def _game_over(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    return "reason.game_over", {"team": t.team(facts["team"]),
                                "score": t.number(int(facts["score"]))}  # fmt: skip


def _await_answer(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    return "reason.await_answer", {"seat": t.seat(facts["seat"])}


_ASK_OFF = {"option_off": "reason.ask_off", "two_players": "reason.ask_off.two_players"}


def _ask_off(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    return _ASK_OFF[facts["why"]], {}


def _top_card(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    return f"reason.{code}", {"card_name": t.card_name(facts["card"])}


def _chosen(t: Translator, key: str, words: dict[str, str], facts: dict[str, Any]) -> _Words:
    """The ``select`` variant for a hand that holds the cards the pile needs but a choice
    (``offered``) that is not them: the cards chosen are named, or none were chosen
    (``<key>.none_chosen``, whose grammar differs: "you chose no cards")."""
    offered = list(facts["offered"])
    if not offered:
        return f"{key}.none_chosen", words
    words["offered"] = t.cards(offered)
    return key, words


def _frozen_needs_pair(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    rank = facts["rank"]
    held = t._held(rank, facts)
    words = _rank_words(t, rank)
    words["why"] = t.frozen_by(facts["frozen_by"])
    if int(facts.get("naturals_held", 0)) >= 2:
        # The pair is in the hand, so the choice was wrong, not the hand: say which to choose.
        words["held"] = t.cards(held)
        return _chosen(t, "reason.frozen_needs_pair.select", words, facts)
    if not held:
        return "reason.frozen_needs_pair.none", words
    words["held"] = t.cards(held)
    return "reason.frozen_needs_pair", words


def _take_needs_pair(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    rank = facts["rank"]
    held = t._held(rank, facts)
    words = _rank_words(t, rank)
    words["held"] = t.cards(held) if held else t.text("engine", "hold.none")
    naturals = int(facts.get("naturals_held", 0))
    jokers, twos = int(facts.get("jokers_held", 0)), int(facts.get("twos_held", 0))
    if naturals < 2 and not (naturals == 1 and jokers + twos > 0):
        return "reason.take_needs_pair_or_meld", words
    # The hand holds two naturals, or one and a wild card: name what it can give.  The
    # natural and its wild card are one choice ("list.with"), so that inside "A or B" no
    # language reads them as two alternatives (Telugu lists take bare commas).
    choices = []
    if naturals >= 2:
        choices.append(t.card(rank, 2))
    if jokers or twos:
        wild = t._wilds(1) if jokers and twos else t.card("JK" if jokers else "2")
        choices.append(t.text("engine", "list.with", first=t.card(rank), last=wild))
    words["to_choose"] = (
        t.text("engine", "list.or", first=choices[0], last=choices[1])
        if len(choices) == 2
        else choices[0]
    )
    return _chosen(t, "reason.take_needs_pair_or_meld.select", words, facts)


def _below_minimum(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    pile = rule in ("C-PILE-6", "H-PILE-1")
    key = "reason.below_minimum.pile" if pile else "reason.below_minimum"
    return key, {"needed": t.number(facts["needed"]), "have": t.number(facts["have"])}


def _going_out(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    have = int(facts.get("canastas", 0))
    words = {"needed_canastas": t._canastas(int(facts["needed"])),
             "canastas": t._canastas(have)}  # fmt: skip
    return (f"reason.{code}" if have else f"reason.{code}.none"), words


def _set_aside(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    needed, have = int(facts["needed"]), int(facts["have"])
    key = "reason.set_aside.ready" if have >= needed else "reason.set_aside"
    if have >= needed and rule.startswith("H-"):
        key = "reason.set_aside.lay_down"  # Hand and Foot: the learner lays down (H-MIN-1)
    return key, {"needed": t.number(needed), "have": t.number(have)}


def _pile_full(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    count = t.count_words(int(facts["count"]))  # cards counted up to ten are words: "eight"
    if facts["rank"] == "JK":
        return "reason.pile_full.wild", {"count": count}
    return "reason.pile_full", {"count": count, "rank_of": t.card_of(facts["rank"])}


def _pile_complete(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    if facts["rank"] == "JK":
        return "reason.pile_complete.wild", {}
    return "reason.pile_complete", {"rank_of": t.card_of(facts["rank"])}


def _wild_ratio(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    rank, naturals = facts["rank"], int(facts["naturals"])
    if naturals < 1:
        # Wild cards alone are the wild meld (H-MELD-2), never a meld of ``rank``; the words
        # "<n> naturals with <m> wild cards" have no reading for none (the general sentence).
        raise ValueError("wild_ratio without a natural card")
    return "reason.wild_ratio", {
        "rank_of": t.card_of(rank),
        "naturals": t.card(rank, naturals),
        "wilds": t._wilds(int(facts["wilds"])),
    }


def _cards_only(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    return f"reason.{code}", {"cards": t.cards(facts["cards"])}


def _hf_take_needs_pair(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    rank, held = facts["rank"], int(facts["naturals_held"])
    words = _rank_words(t, rank)
    if held >= 2:
        words["held"] = t.card(rank, held)
        return "reason.take_needs_pair.select", words
    if held == 0:
        return "reason.take_needs_pair.none", words
    words["held"] = t.card(rank, held)
    return "reason.take_needs_pair", words


def _pile_words(t: Translator, clean: int, dirty: int, wild: int) -> str:
    parts = [
        t.ntext("engine", "count.pile_clean", clean, count=t.number(clean)),
        t.ntext("engine", "count.pile_dirty", dirty, count=t.number(dirty)),
        t.ntext("engine", "count.pile_wild", wild, count=t.number(wild)),
    ]
    return t.join(parts)


def _need_piles(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    words = {
        "needed": _pile_words(t, int(facts["needed_clean"]), int(facts["needed_dirty"]),
                              int(facts["needed_wild"])),
        "have": _pile_words(t, int(facts["clean"]), int(facts["dirty"]), int(facts["wild"])),
    }  # fmt: skip
    return f"reason.{code}", words


def _partner_not_in_foot(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    key = (
        "reason.partner_not_in_foot.keep"
        if int(facts["cards_left"])
        else ("reason.partner_not_in_foot")
    )
    return key, {"seat": t.seat(facts["seat"])}


def _needed_only(t: Translator, code: str, rule: str, facts: dict[str, Any]) -> _Words:
    return f"reason.{code}", {"needed": t.number(int(facts["needed"]))}


_REASON_WORDS = {
    "pile_full": _pile_full,
    "pile_complete": _pile_complete,
    "wild_ratio": _wild_ratio,
    "wild_meld_naturals": _cards_only,
    "take_needs_pair": _hf_take_needs_pair,
    "need_piles": _need_piles,
    "keep_a_card_piles": _need_piles,
    "partner_not_in_foot": _partner_not_in_foot,
    "nothing_set_aside": _needed_only,
    "hand_over": _hand_over,
    "game_over": _game_over,
    "await_answer": _await_answer,
    "ask_off": _ask_off,
    "partner_said_no": _partner_said_no,
    "not_in_hand": _not_in_hand,
    "too_few": _too_few,
    "all_wild": _all_wild,
    "mixed_ranks": _mixed_ranks,
    "wrong_rank": _wrong_rank,
    "needs_two_naturals": _needs_two_naturals,
    "too_many_wilds": _too_many_wilds,
    "two_naturals_per_wild": _two_naturals_per_wild,
    "rank_already_melded": _meld_of_rank,
    "no_such_meld": _meld_of_rank,
    "wild_on_top": _top_card,
    "red_three_on_top": _top_card,
    "frozen_needs_pair": _frozen_needs_pair,
    "take_needs_pair_or_meld": _take_needs_pair,
    "below_minimum": _below_minimum,
    "need_canasta": _going_out,
    "keep_a_card": _going_out,
    "set_aside": _set_aside,
}


@cache
def _translator(code: str) -> Translator:
    return Translator(code)


def get_translator(lang: str) -> Translator:
    """The (cached) translator for ``lang``; accepts "ur", "UR", "ur_PK", "ur-PK".

    Raises ``UnknownLanguage`` (a ``ValueError``) for any other language."""
    return _translator(normalize_language(lang))


def explain(reason: Reason | Mapping[str, Any], lang: str) -> str:
    """``reason`` in words, in ``lang``."""
    return get_translator(lang).reason(reason)
