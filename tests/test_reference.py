"""The glossary and the rules reference pages (canasta_teach.widgets.reference).

The rules reference is generated from the catalogs the engine explains with: every rule of the
registry appears once, under its section, with the very title a refusal cites and its text in the
reader's own language (no English fallback), and with links to the lessons whose metadata says
they teach it.  The glossary gives every term in the reader's language, in the words of the
project glossary (docs/glossary.md), with the cards that show it.
"""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from canasta_teach.engine.cards import card_value, parse_kind
from canasta_teach.engine.notation import parse_move, parse_position
from canasta_teach.engine.reasons import RULES
from canasta_teach.i18n import get_translator
from canasta_teach.widgets.pictures import PICTURE, cards_html, parse_groups
from canasta_teach.widgets.reference import (
    GLOSSARY,
    SECTIONS,
    glossary_html,
    lessons_teaching,
    rules_html,
    section_of,
    show_glossary,
    show_rules,
)

REPO = Path(__file__).resolve().parent.parent
LESSONS = REPO / "lessons"
LANGS = ("en", "ur", "hi", "te")


class _Rules(HTMLParser):
    """Collects each rule section: its id, heading text, text and lesson links."""

    def __init__(self) -> None:
        super().__init__()
        self.rules: dict[str, dict[str, object]] = {}
        self.order: list[str] = []
        self.sections: list[str] = []
        self._rule: str | None = None
        self._tag: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "h2" and (values.get("id") or "").startswith("ct-section-"):
            self.sections.append(str(values["id"]).removeprefix("ct-section-"))
        if tag == "section" and values.get("data-rule"):
            self._rule = str(values["data-rule"])
            self.order.append(self._rule)
            self.rules[self._rule] = {
                "heading": "",
                "text": "",
                "links": [],
                "section": self.sections[-1],
            }
        if self._rule is None:
            return
        if tag == "a":
            links = self.rules[self._rule]["links"]
            assert isinstance(links, list)
            links.append(values.get("href"))
        if tag in ("h3", "p"):
            self._tag = (
                "heading" if tag == "h3" else ("text" if values.get("class") is None else None)
            )

    def handle_endtag(self, tag: str) -> None:
        if tag == "section":
            self._rule = None
        if tag in ("h3", "p"):
            self._tag = None

    def handle_data(self, data: str) -> None:
        if self._rule is not None and self._tag is not None:
            entry = self.rules[self._rule]
            entry[self._tag] = str(entry[self._tag]) + data


def parse_rules(lang: str) -> _Rules:
    parser = _Rules()
    parser.feed(rules_html(lang, LESSONS / lang))
    return parser


@pytest.mark.parametrize("lang", LANGS)
def test_every_rule_once_in_its_section_with_the_refusals_title_and_its_own_text(
    lang: str,
) -> None:
    tr = get_translator(lang)
    page = parse_rules(lang)
    assert page.order == list(RULES), "every rule once, in the registry's order"
    assert page.sections == [key for key, _ in SECTIONS]
    for rule_id, entry in page.rules.items():
        assert entry["section"] == section_of(rule_id)
        # The heading is the id and the very title a refusal of this rule cites.
        assert entry["heading"] == f"{rule_id} {tr.rule_title(rule_id)}"
        # The text is this language's own (a missing entry would fall back to English).
        assert tr.has("engine", f"ruletext.{rule_id}"), f"{lang}: no text for {rule_id}"
        assert entry["text"] == tr.text("engine", f"ruletext.{rule_id}")
        if lang != "en":
            assert entry["text"] != get_translator("en").text("engine", f"ruletext.{rule_id}")
    for key, _ in SECTIONS:
        assert tr.has("ui", f"reference.section.{key}")
    for key in ("reference.rules.title", "reference.rules.intro", "reference.rules.taught_in"):
        assert tr.has("ui", key)


def test_a_refusal_cites_a_title_the_reference_shows() -> None:
    # A frozen pile taken without a natural pair: the game cites C-PILE-3 by its title, and the
    # reference shows that rule under that title, in every language.
    state = parse_position((REPO / "examples" / "frozen-pile.txt").read_text("utf-8"))
    move = parse_move((REPO / "examples" / "frozen-pile.move").read_text("utf-8").strip())
    verdict = state.check(move)
    assert verdict.reason is not None and verdict.reason.rule == "C-PILE-3"
    for lang in LANGS:
        tr = get_translator(lang)
        entry = parse_rules(lang).rules[verdict.reason.rule]
        assert str(entry["heading"]).endswith(tr.rule_title(verdict.reason.rule))


@pytest.mark.parametrize("lang", LANGS)
def test_each_rule_links_to_the_lessons_that_teach_it(lang: str) -> None:
    page = parse_rules(lang)
    expected: dict[str, set[str]] = {}
    for path in sorted((LESSONS / lang).glob("*.ipynb")):
        for rule in (
            json.loads(path.read_text("utf-8"))["metadata"].get("canasta", {}).get("rules", [])
        ):
            expected.setdefault(rule, set()).add(path.name)
    for rule_id, entry in page.rules.items():
        links = set(entry["links"])  # type: ignore[arg-type]
        assert links == expected.get(rule_id, set()), rule_id
        assert links, f"{rule_id} is taught by no lesson"
        for link in links:
            assert (LESSONS / lang / link).is_file()
    # Link texts are the lessons' titles in the page's language.
    taught = lessons_teaching(LESSONS / lang)
    titles = {ref.title for refs in taught.values() for ref in refs}
    if lang != "en":
        assert all(not re.search(r"\bLesson\b", title) for title in titles)


def test_the_reference_finds_the_lessons_from_the_working_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Voilà and JupyterLab run a page in its own folder: without an argument the page reads
    # the lessons there (an installed package has no repository beside it).
    monkeypatch.chdir(LESSONS / "hi")
    assert 'href="05-discard-pile.ipynb"' in rules_html("hi")
    assert repr(show_rules("hi")) == "Rules('hi')"
    assert "C-PILE-3" in show_rules("hi")._repr_html_()


#: Glossary terms and the row of docs/glossary.md whose cell gives the word, by the row's
#: English label (its start).
GLOSSARY_ROWS = {
    "card": "card",
    "wild_card": "wild card",
    "red_three": "red three",
    "black_three": "black three",
    "meld": "meld (noun)",
    "run": "run (which",
    "natural_pair": "natural pair",
    "natural_canasta": "natural (clean) canasta",
    "mixed_canasta": "mixed canasta",
    "stock": "stock",
    "upcard": "upcard",
    "discard_pile": "discard pile",
    "frozen_pile": "frozen pile",
    "first_meld": "first meld",
    "set_aside": "set aside",
    "going_out_concealed": "going out concealed",
    "turn": "turn",
    "natural_card": "natural card",
}


def glossary_table() -> dict[str, dict[str, str]]:
    rows: dict[str, dict[str, str]] = {}
    text = (REPO / "docs" / "glossary.md").read_text("utf-8")
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and not set(cells[0]) <= {"-"}:
            rows.setdefault(cells[0], dict(zip(LANGS, cells, strict=True)))
    return rows


def _words(text: str) -> str:
    # ZWNJ and quotation marks aside, so "کناسٹا" matches کناسٹا.
    return re.sub(r"[\u200c\"“”'‘’«»]", "", text)


@pytest.mark.parametrize("lang", LANGS)
def test_glossary_terms_in_the_project_glossarys_words(lang: str) -> None:
    tr = get_translator(lang)
    table = glossary_table()
    for term in GLOSSARY:
        for part in ("term", "def"):
            assert tr.has("ui", f"glossary.{term.key}.{part}"), (lang, term.key, part)
        if term.key not in GLOSSARY_ROWS:
            continue
        label = GLOSSARY_ROWS[term.key]
        row = next(r for name, r in table.items() if name.startswith(label))
        headword = _words(tr.ui(f"glossary.{term.key}.term"))
        # The headword, or its first word, is the table's word for that row.
        assert headword.split()[0] in _words(row[lang]), (lang, term.key, headword, row[lang])


@pytest.mark.parametrize("lang", LANGS)
def test_glossary_shows_each_term_with_its_cards_in_the_readers_words(lang: str) -> None:
    page = glossary_html(lang)
    tr = get_translator(lang)
    for term in GLOSSARY:
        start = page.index(f'data-term="{term.key}"')
        end = page.find('<div class="ct-term"', start + 1)
        entry = page[start : end if end > 0 else len(page)]
        assert html.escape(tr.ui(f"glossary.{term.key}.term")) in entry
        assert html.escape(tr.ui(f"glossary.{term.key}.def")) in entry
        pictures = PICTURE.findall(entry)
        if term.cards:
            assert pictures == [" | ".join(" ".join(g) for g in parse_groups(term.cards))]
            assert cards_html(term.cards, lang) in entry
        else:
            assert pictures == []
    assert f'dir="{tr.direction}"' in page and f'lang="{lang}"' in page
    assert repr(show_glossary(lang)) == f"Glossary({lang!r})"


def test_a_face_down_card_is_named_as_the_table_names_it() -> None:
    for lang in LANGS:
        tr = get_translator(lang)
        row = cards_html("back back", lang)
        assert row.count(f'alt="{html.escape(tr.ui("table.card_back"))}"') == 2
    with pytest.raises(ValueError):
        parse_groups("back ZZ")


def test_glossary_definitions_state_true_counts() -> None:
    # The definitions that count their pictures agree with the engine's values.
    def total(cards: str) -> list[int]:
        return [sum(card_value(parse_kind(t)) for t in g) for g in parse_groups(cards)]

    terms = {t.key: t for t in GLOSSARY}
    assert total(terms["minimum"].cards) == [30, 30]
    assert "30 + 30 = 60" in get_translator("en").ui("glossary.minimum.def")
    assert total(terms["first_meld"].cards) == [30, 60]
    assert "30 + 60 = 90" in get_translator("en").ui("glossary.first_meld.def")
