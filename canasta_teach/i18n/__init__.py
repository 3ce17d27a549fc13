"""Every learner-facing word in English, Urdu, Hindi and Telugu (gettext catalogs).

    from canasta_teach.i18n import get_translator, explain
    t = get_translator("ur")
    t.reason(verdict.reason)      # why a move was refused, naming the cards
    t.rule_title("C-PILE-3")      # "جما ہوا ڈھیر اصلی جوڑی سے ہی اٹھتا ہے"
    t.direction                   # "rtl"

Catalogs: ``locale/<lang>/LC_MESSAGES/engine.po`` (this package's words: reasons, rules,
scores, cards, seats, the command line) and ``ui.po`` (the widgets' words), compiled to
``.mo`` with ``python -m canasta_teach.i18n.compile``.  Importing this package needs
neither Babel nor Jupyter.
"""

from __future__ import annotations

from .translator import (
    DOMAINS,
    LANGUAGE_NAMES,
    LANGUAGES,
    LOCALE_DIR,
    RTL_LANGUAGES,
    Translator,
    UnknownLanguage,
    explain,
    get_translator,
    normalize_language,
)

__all__ = [
    "DOMAINS",
    "LANGUAGES",
    "LANGUAGE_NAMES",
    "LOCALE_DIR",
    "RTL_LANGUAGES",
    "Translator",
    "UnknownLanguage",
    "explain",
    "get_translator",
    "normalize_language",
]
