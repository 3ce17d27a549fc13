"""The glossary and the rules reference, drawn from the message catalogs.

Both pages are generated, not written: the rules reference gives each rule of
``canasta_teach.engine.reasons.RULES`` with the title the games cite when they refuse a move
(``rule.<id>`` in ``engine.po``), its text (``ruletext.<id>``, the same catalog) and the
lessons that teach it (read from the lessons' metadata), so the reference and the refusals
never disagree.  The glossary gives each term (``glossary.<key>.term`` and ``.def`` in
``ui.po``) with a picture of its cards, drawn by :mod:`canasta_teach.widgets.pictures`.

Lessons call them as they call a game::

    from canasta_teach.widgets.reference import show_rules
    show_rules(lang="ur")

Each rule is an element whose ``id`` is the rule id, so ``rules.ipynb#C-PILE-3`` opens the
page at that rule.
"""

from __future__ import annotations

import html
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from canasta_teach.engine.reasons import RULES
from canasta_teach.i18n import get_translator, normalize_language
from canasta_teach.paths import LESSONS_DIR

from .fonts import FONT_FAMILIES
from .pictures import cards_html

log = logging.getLogger(__name__)

#: The rules page's sections: a heading key (``reference.section.<key>`` in ui.po) and the
#: subjects of the rule ids it holds (``C-<SUBJECT>-<n>``), in the order of ``RULES``.
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("cards", ("DECK", "VAL")),
    ("deal", ("SEAT", "DEAL")),
    ("turn", ("TURN",)),
    ("melds", ("MELD", "CAN")),
    ("threes", ("RED", "BLK")),
    ("pile", ("PILE", "FRZ")),
    ("first_meld", ("MIN",)),
    ("going_out", ("OUT", "ASK", "END")),
    ("scoring", ("SCORE", "GAME")),
    ("two_players", ("TWO",)),
    ("hand_and_foot", ()),  # every H-* id (hand-and-foot.md)
)


@dataclass(frozen=True)
class Term:
    """One glossary entry: its message key and the cards that show it ("" for none)."""

    key: str
    cards: str = ""


#: The glossary, in the order a learner meets the words.
GLOSSARY: tuple[Term, ...] = (
    Term("card", "K"),
    Term("suit", "A A A A"),
    Term("rank", "7 7 7"),
    Term("natural_card", "4 8 K A"),
    Term("wild_card", "JK 2"),
    Term("red_three", "3R 3R"),
    Term("black_three", "3B 3B"),
    Term("points", "JK 2 A K 7"),
    Term("hand", "4 7 7 9 J Q K A 2 3B JK"),
    Term("team"),
    Term("turn"),
    Term("stock", "back back back"),
    Term("upcard", "8"),
    Term("meld", "K K K"),
    Term("run", "9 10 J"),
    Term("natural_pair", "9 9"),
    Term("canasta", "Q Q Q Q Q Q Q"),
    Term("natural_canasta", "8 8 8 8 8 8 8"),
    Term("mixed_canasta", "8 8 8 8 8 2 JK"),
    Term("discard_pile", "5 9 7"),
    Term("frozen_pile", "7 JK 9"),
    Term("take_pile", "7 7 | 7"),
    Term("first_meld", "K K K | A A 2"),
    Term("minimum", "K K K | J J J"),
    Term("set_aside", "Q Q Q"),
    Term("going_out", "9 9 9 | 4"),
    Term("going_out_concealed", "J J J J J J J | 6 6 6"),
    Term("partner_may_i"),
    # Hand and Foot
    Term("foot", "back back back"),
    Term("clean_pile", "9 9 9 9 9 9 9"),
    Term("dirty_pile", "9 9 9 9 9 2 JK"),
    Term("wild_pile", "JK JK 2 2 2 2 JK"),
    Term("lay_down", "K K K | Q Q Q"),
)


def section_of(rule_id: str) -> str:
    """The section key of a rule id ("C-PILE-3" -> "pile")."""
    if rule_id.startswith("H-"):
        return "hand_and_foot"
    subject = rule_id.split("-")[1]
    for key, subjects in SECTIONS:
        if subject in subjects:
            return key
    raise KeyError(rule_id)


@dataclass(frozen=True)
class LessonRef:
    """A lesson that teaches a rule: its file name and its title in the page's language."""

    file: str
    title: str


def lessons_teaching(folder: Path) -> dict[str, list[LessonRef]]:
    """Rule id -> the lessons of ``folder`` (one language's lessons) whose metadata names it."""
    taught: dict[str, list[LessonRef]] = {}
    for path in sorted(folder.glob("*.ipynb")):
        try:
            metadata = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
        except (OSError, ValueError):
            log.warning("cannot read the metadata of %s", path)
            continue
        canasta = metadata.get("canasta") or {}
        title = str(metadata.get("title") or path.stem)
        for rule in canasta.get("rules") or []:
            taught.setdefault(str(rule), []).append(LessonRef(path.name, title))
    return taught


def _lessons_folder(lang: str, folder: str | Path | None) -> Path | None:
    """Where this language's lessons are: ``folder``, else the working folder when it holds
    them (Voilà and JupyterLab run a notebook in its own folder), else the repository's."""
    if folder is not None:
        return Path(folder)
    here = Path.cwd()
    if (here / "00-start.ipynb").is_file() and here.name == lang:
        return here
    candidate = LESSONS_DIR / lang
    return candidate if candidate.is_dir() else None


#: Block elements of a page, except the card rows (they keep their own style).
#: Block elements of a page, except the card rows (they keep their own style).
_BLOCKS = re.compile(r'<(h1|h2|h3|p|ul|li)(?=[ >])(?! class="ct-cards")')


def _page(lang: str, body: str, css_class: str) -> str:
    tr = get_translator(lang)
    align = "right" if tr.direction == "rtl" else "left"
    if tr.direction == "rtl":
        # JupyterLab's and Voilà's stylesheets align paragraphs left, whatever the direction:
        # each block says its side itself (inline, so it holds in Lab too). The card rows keep
        # their own style.
        # Nastaliq's tall letters need room: a normal line-height lets a heading touch the
        # line (or the cards) under it.
        body = _BLOCKS.sub(
            lambda m: f'<{m.group(1)} style="text-align: right; line-height: 2.2;"', body
        )
    line = " line-height: 2.2;" if tr.lang == "ur" else ""
    return (
        f'<div class="ct-reference {css_class} ct-lang-{tr.lang}" lang="{tr.lang}" '
        f'dir="{tr.direction}" '
        f'style="font-family: {FONT_FAMILIES[tr.lang]}; text-align: {align};{line}">{body}</div>'
    )


def rules_html(lang: str, lessons: str | Path | None = None) -> str:
    """The rules reference in ``lang``: every rule of ``RULES`` by section, as HTML."""
    lang = normalize_language(lang)
    tr = get_translator(lang)
    folder = _lessons_folder(lang, lessons)
    taught = lessons_teaching(folder) if folder is not None else {}
    esc = html.escape
    parts = [
        f"<h1>{esc(tr.ui('reference.rules.title'))}</h1>",
        f"<p>{esc(tr.ui('reference.rules.intro'))}</p>",
    ]
    contents = []
    for key, _subjects in SECTIONS:
        contents.append(
            f'<li><a href="#ct-section-{key}">{esc(tr.ui(f"reference.section.{key}"))}</a></li>'
        )
    parts.append(f'<ul class="ct-reference-contents">{"".join(contents)}</ul>')
    for key, _subjects in SECTIONS:
        parts.append(f'<h2 id="ct-section-{key}">{esc(tr.ui(f"reference.section.{key}"))}</h2>')
        for rule_id in (r for r in RULES if section_of(r) == key):
            lesson_links = " · ".join(
                f'<a href="{esc(ref.file)}">{esc(ref.title)}</a>' for ref in taught.get(rule_id, [])
            )
            taught_line = (
                f'<p class="ct-rule-lessons">{esc(tr.ui("reference.rules.taught_in"))} '
                f"{lesson_links}</p>"
                if lesson_links
                else ""
            )
            parts.append(
                f'<section class="ct-rule" id="{rule_id}" data-rule="{rule_id}">'
                f'<h3><span class="ct-rule-id" dir="ltr">{rule_id}</span> '
                f"{esc(tr.rule_title(rule_id))}</h3>"
                f"<p>{esc(tr.text('engine', f'ruletext.{rule_id}'))}</p>"
                f"{taught_line}</section>"
            )
    return _page(lang, "".join(parts), "ct-rules")


def glossary_html(lang: str) -> str:
    """The glossary in ``lang``: each term, its card picture and a one-line definition."""
    lang = normalize_language(lang)
    tr = get_translator(lang)
    esc = html.escape
    parts = [
        f"<h1>{esc(tr.ui('reference.glossary.title'))}</h1>",
        f"<p>{esc(tr.ui('reference.glossary.intro'))}</p>",
    ]
    for term in GLOSSARY:
        picture = cards_html(term.cards, lang) if term.cards else ""
        parts.append(
            f'<div class="ct-term" id="term-{term.key}" data-term="{term.key}">'
            f"<h3>{esc(tr.ui(f'glossary.{term.key}.term'))}</h3>"
            f"{picture}<p>{esc(tr.ui(f'glossary.{term.key}.def'))}</p></div>"
        )
    return _page(lang, "".join(parts), "ct-glossary")


class _Html:
    """An output that shows as HTML and, as plain text, only says what it is (nbval)."""

    def __init__(self, markup: str, name: str) -> None:
        self.markup = markup
        self.name = name

    def _repr_html_(self) -> str:
        return self.markup

    def __repr__(self) -> str:
        return self.name


def show_rules(lang: str = "en", lessons: str | Path | None = None) -> Any:
    """The rules reference as a notebook output (see :func:`rules_html`)."""
    return _Html(rules_html(lang, lessons), f"Rules({normalize_language(lang)!r})")


def show_glossary(lang: str = "en") -> Any:
    """The glossary as a notebook output (see :func:`glossary_html`)."""
    return _Html(glossary_html(lang), f"Glossary({normalize_language(lang)!r})")
