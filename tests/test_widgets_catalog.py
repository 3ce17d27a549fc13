"""The widgets' words: the "ui" gettext domain in English, Urdu, Hindi and Telugu.

Every key the widgets use exists in all four catalogs, is translated (not left in English),
keeps the English entry's placeholders, and the committed ``.mo`` files match their ``.po``.
"""

from __future__ import annotations

import logging
import re
import string
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from canasta_teach.engine import Answer
from canasta_teach.i18n import LOCALE_DIR, get_translator
from canasta_teach.widgets import GAMES
from canasta_teach.widgets.table import ALL_ACTIONS

LANGS = ("en", "ur", "hi", "te")
WIDGETS = Path(__file__).resolve().parents[1] / "canasta_teach" / "widgets"
KEY = re.compile(
    r"""["']((?:button|table|msg|game|hint|error|reference|server|leaderboard|room|coach)\.[a-z_.]+[a-z_])["']"""
)
#: The server's own pages (too many learners, errors) speak from the same catalog.
SERVER = Path(__file__).resolve().parents[1] / "canasta_teach" / "hardening.py"
EXPLAIN = re.compile(r'^explain\s*=\s*"([a-z0-9_.-]+)"', re.MULTILINE)


def catalog(lang: str) -> dict[str, str]:
    """Key -> text; a plural entry's forms are joined with " | " (checked as one text)."""
    with (LOCALE_DIR / lang / "LC_MESSAGES" / "ui.po").open("rb") as handle:
        entries = [m for m in read_po(handle) if m.id]
    return {
        m.id[0] if isinstance(m.id, tuple) else m.id: (
            " | ".join(m.string) if isinstance(m.string, tuple) else m.string
        )
        for m in entries
    }


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def keys_used_by_the_widgets() -> set[str]:
    from canasta_teach.widgets.reference import GLOSSARY, SECTIONS

    used: set[str] = set()
    for source in [*WIDGETS.glob("*.py"), SERVER]:
        used |= set(KEY.findall(source.read_text(encoding="utf-8")))
    used -= {"table.js", "table.css"}  # file names, not keys
    # Keys built at run time.
    used |= {f"button.{action}" for action in ALL_ACTIONS}
    used |= {"game.title." + game.replace("-", "_") for game in GAMES}
    # A move kind's words (``moves.MOVE_KINDS``: the learner's own move, a computer's) and
    # the keys a variant words its own way (``Variant.word``).
    from canasta_teach.engine.moves import MOVE_KINDS
    from canasta_teach.engine.variants import all_variants

    for kind in MOVE_KINDS:
        told = (
            [f"msg.{kind.told}_yes", f"msg.{kind.told}_no"]
            if kind.move_type is Answer
            else [f"msg.{kind.told}"]
        )
        used |= set(told)
        if kind.narrated:
            used.add(f"game.full.move.{kind.narrated}")
    used.add("msg.took_gained")  # a pickup that brought cards into the hand
    used |= {key for variant in all_variants() for key in variant.words.values()}
    # A leaderboard refusal (the full game says LeaderboardError.key with its facts).
    from canasta_teach.leaderboard import ERROR_CODES

    used |= {f"leaderboard.error.{code}" for code in ERROR_CODES}
    # A room's refusals and happenings (canasta_teach.rooms: RoomError.key, notes).
    from canasta_teach.rooms.room import ERROR_CODES as ROOM_ERRORS
    from canasta_teach.rooms.room import NOTE_CODES

    used |= {f"room.error.{code}" for code in ROOM_ERRORS}
    used |= {f"room.note.{code}" for code in NOTE_CODES}
    # A move told as advice: one key per narrated move kind (canasta_teach.widgets.gametable).
    from canasta_teach.widgets.gametable import MOVE_KEYS

    used |= set(MOVE_KEYS.values())
    # The coach's notes and the mistakes a review names (canasta_teach.bots.coach).
    from canasta_teach.bots.coach import MISTAKES, NOTES

    used |= {f"coach.mistake.{key}" for key in MISTAKES}
    used |= {f"coach.note.{key}" for key in NOTES}
    # The glossary and the rules page (canasta_teach.widgets.reference).
    used |= {f"glossary.{term.key}.{part}" for term in GLOSSARY for part in ("term", "def")}
    used |= {f"reference.section.{key}" for key, _ in SECTIONS}
    # A puzzle's own explanation of its answer: "why.<explain>" of its set.toml entry.
    for set_toml in (Path(__file__).resolve().parents[1] / "lessons" / "puzzles").rglob("set.toml"):
        used |= {"why." + name for name in EXPLAIN.findall(set_toml.read_text(encoding="utf-8"))}
    return used


def test_the_catalogs_hold_the_same_keys() -> None:
    english = set(catalog("en"))
    for lang in LANGS:
        assert set(catalog(lang)) == english, lang


def test_every_key_the_widgets_use_is_in_the_catalog() -> None:
    used = keys_used_by_the_widgets()
    assert len(used) > 50  # the scan found the keys (a broken pattern would find none)
    missing = used - set(catalog("en"))
    assert not missing
    unused = set(catalog("en")) - used
    assert not unused, f"catalog entries no widget uses: {sorted(unused)}"


@pytest.mark.parametrize("lang", ("ur", "hi", "te"))
def test_every_entry_is_translated_and_keeps_its_placeholders(lang: str) -> None:
    english = catalog("en")
    mine = catalog(lang)
    for key, text in mine.items():
        assert text.strip(), key
        assert text != english[key], f"{lang} {key} is still English"
        assert placeholders(text) == placeholders(english[key]), key
        # Written in the language's own script, not transliterated into Latin letters.
        # (A room code's example, ABCDE-FGH23, is the same in every language.)
        shown = text.replace("{", " ").replace("}", " ").replace("ABCDE-FGH23", "")
        letters = [ch for ch in shown if ch.isalpha()]
        latin = sum(1 for ch in letters if ch.isascii())
        assert latin <= len(placeholders(text)) * 12 + 4, f"{lang} {key}: {text}"


@pytest.mark.parametrize("lang", LANGS)
def test_card_counts_agree_with_their_number(lang: str) -> None:
    """One card is not "1 cards": counts on the table are plural entries."""
    tr = get_translator(lang)
    one = tr.ntext("ui", "table.pile_count", 1, count=1)
    many = tr.ntext("ui", "table.pile_count", 5, count=5)
    assert one.startswith("1 ") and many.startswith("5 ")
    assert one[2:] != many[2:]


def test_english_entries_are_not_empty() -> None:
    for key, text in catalog("en").items():
        assert text.strip(), key


@pytest.mark.parametrize("lang", LANGS)
def test_the_compiled_catalog_matches_its_source(lang: str) -> None:
    from canasta_teach.i18n.compile import stale

    assert not stale(LOCALE_DIR / lang / "LC_MESSAGES" / "ui.po")


def test_hindi_table_controls_use_the_seeds_words() -> None:
    """The Hindi seed's own button words (glossary): players recognise them."""
    hi = get_translator("hi")
    assert hi.ui("button.draw_two") == "2 उठाएँ"
    assert hi.ui("button.take") == "ढेर उठाएँ"
    assert hi.ui("button.meld") == "मेल"
    assert hi.ui("button.discard") == "फेंकें"
    assert hi.ui("table.stock") == "गड्डी"


def test_hindi_score_lines_and_hints_agree_with_one_card_and_with_queens() -> None:
    """The Hindi review's agreement errors: one red three took a plural verb ("एक लाल तिक्की,
    जो … रखी गईं: हर एक के"), and the hint counted queens with a masculine कितने. The sheet
    now says "every red three", which fits one or several, and the hint counts पत्ते."""
    hi = get_translator("hi")
    one, two = hi.card("3R", 1), hi.card("3R", 2)
    laid = hi.ui("game.score.why.hf_red_threes", cards=one, value="100")
    assert laid == "एक लाल तिक्की: मेज़ पर खोलकर रखी हर लाल तिक्की के 100 अंक।"
    left = hi.ui("game.score.why.red_threes_left", cards=two, value="100")
    assert left == ("दो लाल तिक्कियाँ: किसी हैंड या बिना खेले फ़ुट में बची हर लाल तिक्की के 100 अंक कटते हैं।")
    queens = hi.ui("hint.hf_take_pair", card=hi.card("Q"), cards=hi.card_plural("Q"))
    assert "कितने असली पत्ते (बेगमें)" in queens and "कितने असली बेगमें" not in queens


def test_glossary_terms_in_urdu_and_telugu() -> None:
    ur, te = get_translator("ur"), get_translator("te")
    assert "ڈھیر" in ur.ui("button.take") and ur.ui("table.stock") == "گڈی"
    assert ur.ui("table.canasta_natural") == "صاف کناسٹا"
    assert ur.ui("table.canasta_mixed") == "ملا ہوا کناسٹا"
    assert ur.ui("button.ask") == "ساتھی، کیا میں باہر جاؤں؟"
    assert te.ui("table.canasta_natural") == "సహజ కెనాస్టా"
    assert "మిశ్రమ" in te.ui("table.canasta_mixed")


@pytest.mark.parametrize("lang", LANGS)
def test_drawing_tables_and_games_asks_for_no_missing_message(
    lang: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Render every screen state of the test games: the translator logs any key it lacks."""
    from canasta_teach.widgets import play

    sets = Path(__file__).resolve().parents[1] / "lessons" / "puzzles" / "_test"
    with caplog.at_level(logging.WARNING, logger="canasta_teach.i18n"):
        for name in ("meld", "take"):
            widget = play(name, lang=lang, puzzles_dir=sets)
            g = widget.game_controller
            for _ in range(len(g.set.puzzles)):
                g.controller.intent({"action": "game", "id": "hint"})
                g.controller.intent({"action": "game", "id": "next"})
    problems = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert not problems
