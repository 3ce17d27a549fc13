"""Seats and teams are never people in Urdu, Hindi and Telugu sentences.

"West went out" is the bridge table's English, but "مغرب باہر چلا گیا", "पश्चिम ने गो आउट
किया" and "పడమర బయటకు వెళ్లింది" make a compass point the actor, and two of the seat words
are ambiguous besides (Hindi उत्तर is also "answer", Telugu ఉత్తరం also "letter").  So in
those languages a ``{seat}`` or ``{team}`` placeholder may appear only inside the phrase
each language agreed on (``docs/glossary.md``, "Seats and teams"): "the player at West",
"your partner (North)", "team East–West".  English keeps the bridge table's wording.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

LOCALE_DIR = Path(__file__).resolve().parents[1] / "canasta_teach/i18n/locale"
PLACEHOLDER = re.compile(r"\{(seat|team|team0|team1)\}")

# The agreed phrases, as regular expressions around the placeholder ``{P}``.  Case endings
# are part of each language's phrase (Urdu/Hindi oblique والے/वाले before a postposition,
# Telugu suffixes on వారు and జట్టు).
PERSON_NOUNS = {
    "ur": r"(?:ساتھی|مخالف|کھلاڑی)",
    "hi": r"(?:साथी|विरोधी|खिलाड़ी)",
    "te": r"(?:భాగస్వామి|ప్రత్యర్థి|ఆటగాడు|ఆటగాళ్లు)",
}
SEAT_PHRASES: dict[str, tuple[str, ...]] = {
    # مغرب والا کھلاڑی / مغرب والے کھلاڑی نے ; ساتھی (شمال) ; the seat as a place the
    # learner plays from (آپ جنوب والی جگہ سے کھیل رہے ہیں), never a person
    "ur": (r"\{P\} وال[اے] کھلاڑی", PERSON_NOUNS["ur"] + r" \(\{P\}\)", r"\{P\} والی جگہ"),
    # पश्चिम वाला खिलाड़ी / पश्चिम वाले खिलाड़ी ने ; साथी (उत्तर)
    "hi": (r"\{P\} वाल[ाे] खिलाड़ी", PERSON_NOUNS["hi"] + r" \(\{P\}\)"),
    # పడమర వైపు వారు / వైపు ఆటగాడి- ; భాగస్వామి (ఉత్తరం)
    "te": (r"\{P\} వైపు (?:ఆటగా[డళ]|వార)", PERSON_NOUNS["te"] + r"\S* \(\{P\}\)"),
}
TEAM_PHRASES: dict[str, tuple[str, ...]] = {
    "ur": (r"ٹیم \{P\}",),
    "hi": (r"टीम \{P\}",),
    "te": (r"\{P\} జట్టు",),
}


def _msgstrs(lang: str) -> list[tuple[str, str]]:
    """(key, text) for every translated string of both catalogs, plural forms included."""
    found: list[tuple[str, str]] = []
    for domain in ("engine", "ui"):
        with (LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as handle:
            catalog = read_po(handle)
        for message in catalog:
            if not message.id:
                continue
            key = message.id[0] if isinstance(message.id, tuple) else message.id
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            found.extend((f"{domain}:{key}", text) for text in strings if text)
    return found


def _uncovered(lang: str, text: str) -> list[str]:
    """The seat/team placeholders of ``text`` that no agreed phrase covers."""
    covered: set[int] = set()
    for name in ("seat", "team", "team0", "team1"):
        phrases = SEAT_PHRASES[lang] if name == "seat" else TEAM_PHRASES[lang]
        for phrase in phrases:
            pattern = phrase.replace(r"\{P\}", re.escape("{" + name + "}"))
            for match in re.finditer(pattern, text):
                start = text.index("{" + name + "}", match.start())
                covered.add(start)
    return [m.group(0) for m in PLACEHOLDER.finditer(text) if m.start() not in covered]


@pytest.mark.parametrize("lang", ["ur", "hi", "te"])
def test_seats_and_teams_appear_only_in_the_agreed_phrase(lang: str) -> None:
    bad = [(key, text) for key, text in _msgstrs(lang) if _uncovered(lang, text)]
    assert bad == [], "\n".join(f"{key}: {text}" for key, text in bad)


@pytest.mark.parametrize("lang", ["ur", "hi", "te"])
def test_the_check_sees_seats_used_as_people(lang: str) -> None:
    # The check itself must fail on the sentences the reviews quoted.
    bare = {
        "ur": "{seat} باہر چلا گیا",
        "hi": "{seat} ने गो आउट किया",
        "te": "{seat} బయటకు వెళ్లారు",
    }[lang]
    assert _uncovered(lang, bare) == ["{seat}"]
    assert _uncovered(lang, "{team} " + bare.replace("{seat}", "")) == ["{team}"]
    agreed = {
        "ur": "{seat} والے کھلاڑی نے؛ ساتھی ({seat})؛ ٹیم {team}؛ {seat} والی جگہ سے",
        "hi": "{seat} वाले खिलाड़ी ने; साथी ({seat}); टीम {team}",
        "te": "{seat} వైపు ఆటగాడు; భాగస్వామి ({seat}); {team} జట్టు",
    }[lang]
    assert _uncovered(lang, agreed) == []


def test_every_placeholder_in_the_catalogs_is_checked() -> None:
    # The English catalog names the placeholders the check knows; a new one (say
    # ``{winner}``) must be added to PLACEHOLDER before it can slip past.
    names: set[str] = set()
    for _key, text in _msgstrs("en"):
        names |= set(re.findall(r"\{(seat\w*|team\w*|player\w*|winner\w*)\}", text))
    assert names <= {"seat", "team", "team0", "team1", "player"}, names
