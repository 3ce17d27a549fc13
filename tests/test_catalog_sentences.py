"""Every English sentence the app says starts with a capital letter.

Many messages start with the cards or the player they are about ("{cards} would be a mixed
canasta..."), and a card list is lowercase ("seven aces and one 2"): the learner read "seven aces
and one 2 would be..." and "two red threes: 100 each...". Every message of both catalogs is
rendered here as the app renders it (``Translator.text``), with sample facts of the kind the app
puts in each field; a rendered sentence must begin with a capital, and so must each sentence
after the first.
"""

from __future__ import annotations

import re
import string
import unicodedata

import pytest
from babel.messages.pofile import read_po

from canasta_teach.i18n import LOCALE_DIR, get_translator
from canasta_teach.i18n.translator import VERBATIM_FIELDS, sentence_case

#: A sentence: text that ends with a full stop, a question or an exclamation (a closing quote or
#: bracket may follow).
SENTENCE_END = re.compile(r"[.!?\u2026][\u201d\"')\u00bb]*\s*$")
#: Fields that hold a whole sentence of their own (a reason, an explanation).
SENTENCE_FIELDS = frozenset({"reason", "why", "text", "note", "detail", "message", "first_reason",
                             "explanation", "claim", "said", "advice", "hint"})  # fmt: skip
#: Fields that hold a number.
NUMBER_FIELDS = frozenset({"points", "total", "needed", "have", "value", "number", "limit",
                           "score", "total0", "total1", "solved", "version", "supported",
                           "canastas", "round", "rounds", "clean", "dirty", "wild",
                           "need_clean", "need_dirty", "need_wild", "size", "n", "minimum",
                           "count_text", "answer", "points_text"})  # fmt: skip
#: Names and other fields that are capitalised already.
#: Messages that end a sentence begun by another one: "The position in x.txt cannot be read:
#: line 3, column 5: ..." (cli.bad_position's {detail}).
INSIDE_A_SENTENCE = frozenset({"cli.at_line", "cli.at_line_column"})
NAME_SAMPLES = {"seat": "South", "team": "North-South", "team0": "North-South",
                "team1": "East-West", "other": "East-West", "path": "positions/frozen.txt",
                "move": "meld 7 7 7", "lang": "xx", "player": "Partner (North)"}  # fmt: skip


def sample(field: str) -> str:
    if field in NAME_SAMPLES:
        return NAME_SAMPLES[field]
    if field in SENTENCE_FIELDS:
        return "The pile is frozen."
    if field in NUMBER_FIELDS:
        return "35"
    return "two 7s"  # cards, a card, melds, a rank's plural, a list: lowercase words


def messages(domain: str) -> list[tuple[str, bool]]:
    """(key, is a plural entry) of every English message of ``domain``."""
    with (LOCALE_DIR / "en" / "LC_MESSAGES" / f"{domain}.po").open("rb") as handle:
        return [
            (m.id[0] if isinstance(m.id, tuple) else m.id, isinstance(m.id, tuple))
            for m in read_po(handle)
            if m.id
        ]


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def first_letter(text: str) -> str:
    """The first letter of ``text`` (direction marks skipped); "" when it opens with a quotation
    (what the learner typed, "“xyz” is not a card", is quoted as it was typed)."""
    for ch in text:
        if unicodedata.category(ch) == "Cf":
            continue
        return "" if ch in "“\"'«" else ch
    return ""


def rendered(domain: str, key: str, plural: bool) -> list[tuple[str, str]]:
    """(template, text) of the message as the app renders it, each plural form."""
    import gettext

    tr = get_translator("en")
    with (LOCALE_DIR / "en" / "LC_MESSAGES" / f"{domain}.mo").open("rb") as handle:
        catalog = gettext.GNUTranslations(handle)
    out = []
    for n in (1, 2) if plural else (None,):
        template = catalog.ngettext(key, key + ".plural", n) if n else catalog.gettext(key)
        params = {f: sample(f) for f in fields(template)}
        if n is None:
            out.append((template, tr.text(domain, key, **params)))
        else:
            out.append((template, tr.ntext(domain, key, n, **params)))
    return out


@pytest.mark.parametrize("domain", ["ui", "engine"])
def test_every_english_sentence_begins_with_a_capital(domain: str) -> None:
    lowercase = []
    for key, plural in messages(domain):
        for template, text in rendered(domain, key, plural):
            if not SENTENCE_END.search(text) or key in INSIDE_A_SENTENCE:
                continue  # a label, a list, a fragment inside another message
            leading = re.match(r"\{(\w+)", template)
            if leading and leading.group(1) in VERBATIM_FIELDS:
                continue  # a file's path or a move in the notation, shown as given
            first = first_letter(text)
            if first.isalpha() and not first.isupper():
                lowercase.append(f"{key}: {text}")
            for later in re.finditer(r"[.!?] +([a-z])", text):
                lowercase.append(f"{key}: …{text[max(0, later.start() - 20) : later.end() + 20]}…")
    assert not lowercase, "\n".join(lowercase)


def test_the_walkthroughs_sentences_now_start_with_a_capital() -> None:
    tr = get_translator("en")
    cards = tr.cards(["A"] * 7 + ["2"])
    assert tr.ui("game.feedback.mixed_not_natural", cards=cards).startswith("Seven aces and one 2")
    assert tr.ui("game.feedback.not_a_canasta", cards=tr.card("10", 3)).startswith("Three 10s")
    assert tr.ui("game.score.why.red_threes", cards=tr.card("3R", 2)).startswith("Two red threes")
    assert tr.ui("game.score.why.red_threes_unmelded", cards=tr.card("3R")).startswith(
        "A red three"
    )
    # A fragment stays as it is inside the sentence it is part of ...
    assert tr.ui("game.value_part", cards=tr.card("K", 7), points="70") == "seven kings: 70"
    # ... and a path or a move is shown exactly as given.
    assert sentence_case("{path} is not a text file.", "lessons/x.txt is not a text file.") == (
        "lessons/x.txt is not a text file."
    )
    assert (
        sentence_case("{cards} laid down.", "\u2066two 7s laid down.") == "\u2066Two 7s laid down."
    )
    # Scripts without capitals are unchanged.
    ur = get_translator("ur")
    text = ur.ui("game.score.why.red_threes", cards=ur.card("3R", 2))
    assert text.startswith(ur.card("3R", 2))
