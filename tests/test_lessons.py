"""The lesson notebooks and the mini-game puzzle sets (no browser, no kernel).

Notebooks: valid nbformat, stored without outputs, the same notebooks and the same cell
structure in every language, one short code cell per mini-game, relative links that resolve,
text in the language's own script, Urdu right-to-left in Nastaliq.

Puzzles: every position parses, and the engine agrees with what each puzzle teaches: a meld
puzzle can be solved, a proposed meld is judged as ``[expect]`` in ``set.toml`` says, and a
take-the-pile puzzle's pickup is legal, or refused by the rule ``[expect]`` names.
"""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest
from hypothesis import given
from hypothesis import strategies as st

from canasta_teach.engine import Kind, Meld, State, TakePile
from canasta_teach.engine.cards import TOKENS
from canasta_teach.engine.notation import parse_move, parse_position
from canasta_teach.engine.reasons import RULES
from canasta_teach.engine.state import Phase
from canasta_teach.widgets.pictures import PICTURE, cards_html

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
LESSONS = REPO / "lessons"
PUZZLES = LESSONS / "puzzles"
LANGS = ("en", "ur", "hi", "te")
#: The course, in order.
GAME_OF_NOTEBOOK = {
    "01-cards-values.ipynb": "card-values",
    "02-deal-and-turn.ipynb": "your-turn",
    "03-melds-canastas.ipynb": "build-a-meld",
    "04-threes.ipynb": "threes",
    "05-discard-pile.ipynb": "take-the-pile",
    "06-first-meld.ipynb": "go-down",
    "07-going-out.ipynb": "go-out",
    "08-scoring.ipynb": "score-a-hand",
    "09-two-players.ipynb": "two-players",
    "10-review.ipynb": "review",
}
#: Lessons that play whole hands (canasta_teach.widgets.fullgame and .guided): their game cells,
#: each a function called with ``lang`` only, or the whole call ("{lang}" filled in).
PLAY_CELLS = {
    "11-full-game.ipynb": ("guided_hand", "partner_asks", "play_game"),
    "12-hand-and-foot.ipynb": (
        'play("hand-and-foot", lang="{lang}")',
        'play_game(lang="{lang}", variant="handfoot")',
    ),
}
NOTEBOOK_NAMES = ("00-start.ipynb", *GAME_OF_NOTEBOOK, *PLAY_CELLS)
#: Pages beside the course, generated from the catalogs (canasta_teach.widgets.reference).
PAGE_NAMES = ("glossary.ipynb", "rules.ipynb")
LANGUAGE_NAMES = {"en": "English", "ur": "اردو", "hi": "हिन्दी", "te": "తెలుగు"}
PUZZLES_PER_SET = 8

#: The opening tag every Markdown cell of a language carries (JupyterLab's sanitizer keeps
#: dir, lang and inline style, but strips <style> elements).
FONT_OF = {
    "ur": "'Noto Nastaliq Urdu', 'Noto Naskh Arabic', serif",
    "hi": "'Noto Sans Devanagari', sans-serif",
    "te": "'Noto Sans Telugu', sans-serif",
}

#: Letters of each language's script (Urdu: Arabic and its presentation forms).
SCRIPT = {
    "ur": re.compile(r"[\u0600-\u06FF\u0750-\u077F\uFB50-\uFDFF\uFE70-\uFEFF]"),
    "hi": re.compile(r"[\u0900-\u097F]"),
    "te": re.compile(r"[\u0C00-\u0C7F]"),
}
LATIN = re.compile(r"[A-Za-z]")
ANY_INDIC_OR_ARABIC = re.compile("|".join(p.pattern for p in SCRIPT.values()))
RULE_ID = re.compile(r"\b[CH]-[A-Z]+-\d+\b")
LINK = re.compile(r"\]\(([^)\s]+)\)|href=\"([^\"]+)\"")


# ---------------------------------------------------------------------------- notebooks


def lesson_notebooks() -> list[Path]:
    return [LESSONS / lang / name for lang in LANGS for name in NOTEBOOK_NAMES]


def page_notebooks() -> list[Path]:
    return [LESSONS / lang / name for lang in LANGS for name in PAGE_NAMES]


def all_notebooks() -> list[Path]:
    return [LESSONS / "index.ipynb", *lesson_notebooks(), *page_notebooks()]


def read(path: Path) -> Any:
    return nbformat.read(path, as_version=4)


def rel(path: Path) -> str:
    return str(path.relative_to(LESSONS))


def prose(markdown: str) -> str:
    """The words a reader sees: no tags, link targets, code spans or rule ids."""
    text = re.sub(r"<[^>]+>", " ", markdown)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"`[^`]*`", " ", text)
    return RULE_ID.sub(" ", text)


def script_share(text: str, lang: str) -> float:
    """The share of the letters in ``text`` written in ``lang``'s script (vs. Latin)."""
    native = len(SCRIPT[lang].findall(text))
    latin = len(LATIN.findall(text))
    return native / (native + latin) if native + latin else 0.0


def links(source: str) -> list[str]:
    return [a or b for a, b in LINK.findall(source)]


@pytest.mark.parametrize("path", all_notebooks(), ids=rel)
def test_notebook_is_valid_and_stored_clean(path: Path) -> None:
    nb = read(path)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], "store notebooks without outputs"
            assert cell.execution_count is None


def test_every_language_has_the_same_notebooks() -> None:
    expected = {*NOTEBOOK_NAMES, *PAGE_NAMES}
    for lang in LANGS:
        found = {p.name for p in (LESSONS / lang).glob("*.ipynb")}
        assert found == expected, lang


@pytest.mark.parametrize("name", [*NOTEBOOK_NAMES, *PAGE_NAMES])
def test_same_cell_structure_in_every_language(name: str) -> None:
    def shape(lang: str) -> list[tuple[str, str]]:
        nb = read(LESSONS / lang / name)
        out = []
        for cell in nb.cells:
            source = cell.source
            if cell.cell_type == "code":
                assert f'lang="{lang}"' in source, f"{lang}/{name}: the game must speak {lang}"
                source = source.replace(f'lang="{lang}"', 'lang="LANG"')
            else:
                source = ""  # prose differs by language; only its place in the order counts
            out.append((cell.cell_type, source))
        return out

    english = shape("en")
    for lang in LANGS[1:]:
        assert shape(lang) == english, f"{lang}/{name} differs in structure from en/{name}"


@pytest.mark.parametrize("path", lesson_notebooks(), ids=rel)
def test_code_cells_are_one_import_and_one_call(path: Path) -> None:
    nb = read(path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    lang = path.parent.name
    if path.name in PLAY_CELLS:
        # One import and one call per game, each game after the words that introduce it.
        calls = [
            call.format(lang=lang) if "(" in call else f'{call}(lang="{lang}")'
            for call in PLAY_CELLS[path.name]
        ]
        assert [c.source.strip().splitlines() for c in code] == [
            [f"from canasta_teach.widgets import {call.split('(')[0]}", call] for call in calls
        ]
        for cell in code:
            assert "mini-game" in cell.metadata.get("tags", [])
            assert cell.metadata.get("jupyter", {}).get("source_hidden") is True
        kinds = [c.cell_type for c in nb.cells]
        assert kinds[0] == "markdown" and kinds[-1] == "markdown" and kinds[-2] == "markdown"
        return
    game = GAME_OF_NOTEBOOK.get(path.name)
    if game is None:
        assert code == []
        return
    assert len(code) == 1, "exactly one code cell per mini-game"
    cell = code[0]
    lines = cell.source.strip().splitlines()
    assert len(lines) <= 2
    assert lines == [
        "from canasta_teach.widgets import play",
        f'play("{game}", lang="{lang}")',
    ]
    # Readers see the prose first: the game cell's input is collapsed and tagged.
    assert "mini-game" in cell.metadata.get("tags", [])
    assert cell.metadata.get("jupyter", {}).get("source_hidden") is True
    # The game comes after the explanation and before the check-yourself questions.
    kinds = [c.cell_type for c in nb.cells]
    position = kinds.index("code")
    assert 0 < position < len(kinds) - 2


@pytest.mark.parametrize("path", [*lesson_notebooks(), *page_notebooks()], ids=rel)
def test_jupyterlab_readers_are_told_to_run_the_page(path: Path) -> None:
    # Stored without outputs, a page opened in JupyterLab shows no game until it has run: one
    # cue before the first code cell says how, naming Lab's menus as Lab shows them. The web
    # app hides it (the template's CSS hides .ct-lab-only cells; a browser test checks).
    cells = read(path).cells
    cues = [i for i, c in enumerate(cells) if "ct-lab-only" in c.source.split(">", 1)[0]]
    code = [i for i, c in enumerate(cells) if c.cell_type == "code"]
    if not code:
        assert cues == []
        return
    assert len(cues) == 1 and cues[0] < code[0]
    cue = cells[cues[0]]
    assert cue.cell_type == "markdown"
    assert "**Run**" in cue.source and "**Run All Cells**" in cue.source


@pytest.mark.parametrize("path", page_notebooks(), ids=rel)
def test_reference_pages_are_one_import_and_one_call(path: Path) -> None:
    code = [c for c in read(path).cells if c.cell_type == "code"]
    assert len(code) == 1
    show = "show_glossary" if path.name == "glossary.ipynb" else "show_rules"
    assert code[0].source.strip().splitlines() == [
        f"from canasta_teach.widgets.reference import {show}",
        f'{show}(lang="{path.parent.name}")',
    ]
    assert code[0].metadata.get("jupyter", {}).get("source_hidden") is True


@pytest.mark.parametrize("path", all_notebooks(), ids=rel)
def test_relative_links_resolve(path: Path) -> None:
    nb = read(path)
    targets = [t for c in nb.cells if c.cell_type == "markdown" for t in links(c.source)]
    assert targets, "every page links somewhere"
    for target in targets:
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        assert not target.startswith("/"), f"{target}: links must be relative (Voilà, Binder)"
        resolved = (path.parent / target.split("#")[0]).resolve()
        assert resolved.is_file(), f"{rel(path)} links to missing {target}"
        assert LESSONS in resolved.parents, f"{target} leaves the served lessons folder"


@pytest.mark.parametrize("lang", LANGS)
def test_navigation(lang: str) -> None:
    def last_links(name: str) -> list[str]:
        nb = read(LESSONS / lang / name)
        return links(nb.cells[-1].source)

    start = read(LESSONS / lang / "00-start.ipynb")
    start_targets = {t for c in start.cells for t in links(c.source)}
    assert {"../index.ipynb", *GAME_OF_NOTEBOOK, *PAGE_NAMES} <= start_targets
    for page in PAGE_NAMES:  # the glossary and the rules lead back to the start page
        nb = read(LESSONS / lang / page)
        for cell in (nb.cells[0], nb.cells[-1]):
            assert {"00-start.ipynb", "../index.ipynb"} <= set(links(cell.source)), page
    # Bottom of each lesson: back, the start page, forward (none after the last), the chooser.
    course = list(NOTEBOOK_NAMES)
    for index, name in enumerate(course[1:], start=1):
        expected = [course[index - 1]]
        if index > 1:
            expected.append("00-start.ipynb")
        if index + 1 < len(course):
            expected.append(course[index + 1])
        expected.append("../index.ipynb")
        assert last_links(name) == expected, name
    # The games lead on to the next lesson in the same order.
    from canasta_teach.widgets.puzzles import load_set

    for index, name in enumerate(course[1:-1], start=1):
        if name not in GAME_OF_NOTEBOOK:
            continue  # a lesson of whole games: no puzzle set
        next_lesson = load_set(PUZZLES / GAME_OF_NOTEBOOK[name]).next_lesson
        assert next_lesson == course[index + 1], name


#: One tile of the language chooser (lessons/index.ipynb): its language, its attributes, its
#: contents (the tiles hold no nested list items).
TILE = re.compile(r'<li class="ct-lang-tile ct-lang-(\w+)" ([^>]*)>(.*?)</li>', re.S)


def test_index_offers_each_language_in_its_own_script() -> None:
    """The page at ``/``: one tile per language, each in its own language, direction and font,
    with its start page's link named in that language, a greeting in that language's script
    and the "play with friends" link; Markdown and HTML only (no code to run)."""
    nb = read(LESSONS / "index.ipynb")
    assert {c.cell_type for c in nb.cells} == {"markdown"}
    text = "\n".join(c.source for c in nb.cells)
    tiles = TILE.findall(text)
    assert [lang for lang, _, _ in tiles] == list(LANGUAGE_NAMES)
    fonts = {"en": "'Noto Sans', sans-serif", **FONT_OF}
    for lang, attributes, body in tiles:
        assert f'lang="{lang}"' in attributes
        assert f'dir="{"rtl" if lang == "ur" else "ltr"}"' in attributes
        assert f"font-family: {fonts[lang]}" in attributes
        if lang == "ur":
            assert "line-height: 2.2" in attributes  # Nastaliq clips with a normal line-height
        name = LANGUAGE_NAMES[lang]
        assert (
            f'<span class="ct-lang-name"><a href="{lang}/00-start.ipynb">{name}</a></span>' in body
        )
        assert 'href="play-together.ipynb"' in body
        greeting = re.search(r'<span class="ct-lang-greeting">([^<]+)</span>', body)
        assert greeting, lang
        if lang == "en":
            assert not ANY_INDIC_OR_ARABIC.search(prose(body))
        else:
            assert script_share(prose(body), lang) > 0.9
            assert script_share(greeting[1], lang) == 1.0


@pytest.mark.parametrize("path", [*lesson_notebooks(), *page_notebooks()], ids=rel)
def test_markdown_cells_carry_their_language(path: Path) -> None:
    lang = path.parent.name
    for cell in read(path).cells:
        if cell.cell_type != "markdown":
            continue
        opening = cell.source.split(">", 1)[0]
        assert opening.startswith("<div "), "every Markdown cell is one language block"
        assert f'lang="{lang}"' in opening
        assert cell.source.rstrip().endswith("</div>")
        # Markdown inside an HTML block renders only with blank lines around it.
        assert re.match(r"<div [^>]*>\n\n", cell.source)
        assert cell.source.rstrip().endswith("\n\n</div>")
        if lang == "ur":
            assert 'dir="rtl"' in opening
            assert f"font-family: {FONT_OF['ur']}" in opening
            assert "line-height: 2.2" in opening  # Nastaliq clips with a normal line-height
        elif lang in FONT_OF:
            assert f"font-family: {FONT_OF[lang]}" in opening
            assert "dir=" not in opening


#: JupyterLab's own words, which stay English in every language (Lab has no ur/hi/te menus).
LAB_WORDS = re.compile(r"JupyterLab|Run All Cells|\bRun\b")


@pytest.mark.parametrize("path", [*lesson_notebooks(), *page_notebooks()], ids=rel)
def test_text_is_in_the_languages_script(path: Path) -> None:
    lang = path.parent.name
    for index, cell in enumerate(read(path).cells):
        if cell.cell_type != "markdown":
            continue
        words = LAB_WORDS.sub(" ", prose(cell.source))
        if lang == "en":
            assert not ANY_INDIC_OR_ARABIC.search(words), f"cell {index}"
        else:
            share = script_share(words, lang)
            assert share > 0.75, f"cell {index}: only {share:.0%} of its letters in {lang}'s script"


@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_every_language_cites_the_same_rules_in_the_same_cells(name: str) -> None:
    # A citation fixed in one language (C-PILE-6 -> C-FRZ-2 + C-PILE-3) must not linger in
    # another: each cell cites the same rule ids, as often, in every language.
    def citations(lang: str) -> list[list[str]]:
        return [sorted(RULE_ID.findall(c.source)) for c in read(LESSONS / lang / name).cells]

    english = citations("en")
    for lang in LANGS[1:]:
        assert citations(lang) == english, f"{lang}/{name} cites other rules than en/{name}"


@pytest.mark.parametrize("path", lesson_notebooks(), ids=rel)
def test_lessons_say_threes_in_words_not_in_project_codes(path: Path) -> None:
    # 3R / 3B are the notation's tokens (B for black, R for red): no card shows them and no
    # reader of Urdu, Hindi or Telugu gets the mnemonic, so lessons name the threes in words.
    text = "\n".join(c.source for c in read(path).cells if c.cell_type == "markdown")
    assert not re.findall(r"\b3[BR]\b", PICTURE.sub("", text))


@pytest.mark.parametrize("path", lesson_notebooks(), ids=rel)
def test_card_pictures_are_drawn_and_named_in_the_lessons_language(path: Path) -> None:
    # Each picture is exactly what canasta_teach.widgets.pictures draws for its cards in this
    # language: the card art is current, and every card's alt text is in the reader's words.
    lang = path.parent.name
    for cell in read(path).cells:
        for match in PICTURE.finditer(cell.source):
            assert match.group(0) == cards_html(match.group(1), lang), match.group(1)


@pytest.mark.parametrize("path", lesson_notebooks(), ids=rel)
def test_lessons_check_the_reader_and_cite_real_rules(path: Path) -> None:
    text = "\n".join(c.source for c in read(path).cells if c.cell_type == "markdown")
    cited = set(RULE_ID.findall(text))
    assert cited, "cite the rules the lesson explains"
    assert cited <= set(RULES), f"unknown rule ids: {cited - set(RULES)}"
    if path.name in GAME_OF_NOTEBOOK or path.name in PLAY_CELLS:
        answers = re.findall(r"<details><summary>[^<]+</summary>\n\n.+?\n\n</details>", text,
                             re.S)  # fmt: skip
        assert 2 <= len(answers) <= 3, "two or three check-yourself questions"


#: The game's buttons each lesson names, by their message keys (canasta_teach.i18n, ui.po).
BUTTONS_NAMED = {
    "02-deal-and-turn.ipynb": ("button.draw", "button.meld", "button.discard"),
    "03-melds-canastas.ipynb": ("button.meld", "game.legal", "game.not_legal"),
    "04-threes.ipynb": ("button.draw", "button.take"),
    "05-discard-pile.ipynb": ("button.take",),
    "06-first-meld.ipynb": ("button.meld", "button.take"),
    "07-going-out.ipynb": ("button.go_out", "button.meld", "button.discard", "button.ask"),
    "08-scoring.ipynb": ("game.next_line", "game.check"),
    "09-two-players.ipynb": ("button.draw_two", "button.discard", "button.go_out"),
    "11-full-game.ipynb": (
        "button.draw",
        "button.meld",
        "button.discard",
        "button.take",
        "button.ask",
        "game.full.narration",
        "game.hint",
        "game.full.takeback",
        "game.full.new",
        "game.full.daily",
        "game.full.sheet.we",
        "game.full.sheet.they",
        "game.full.settings",
    ),
    "12-hand-and-foot.ipynb": (
        "button.draw_two",
        "button.take",
        "button.set_aside",
        "button.lay_down",
        "button.meld",
        "button.add",
        "button.discard",
        "game.full.variant_label",
        "game.full.variant.handfoot",
        "game.full.new",
        "game.full.settings",
    ),
}


@pytest.mark.parametrize(
    "path", [p for p in lesson_notebooks() if p.name in BUTTONS_NAMED], ids=rel
)
def test_lessons_name_the_games_buttons_as_the_game_shows_them(path: Path) -> None:
    from canasta_teach.i18n import get_translator

    lang = path.parent.name
    text = "\n".join(c.source for c in read(path).cells if c.cell_type == "markdown")
    for key in BUTTONS_NAMED[path.name]:
        label = get_translator(lang).ui(key)
        assert f"**{label}**" in text or f"<strong>{label}</strong>" in text, f"{key}: {label}"


def test_urdu_paragraphs_read_right_to_left() -> None:
    """In a right-to-left paragraph "7 2" would show as "2 7": card lists, rule ids and sums
    are left-to-right islands. JupyterLab aligns every rendered <p> left, so Urdu paragraphs
    are HTML paragraphs aligned right."""
    for name in NOTEBOOK_NAMES:
        for cell in read(LESSONS / "ur" / name).cells:
            if cell.cell_type != "markdown":
                continue
            # Card pictures are left-to-right rows of cards kept to the right (their own test).
            body = PICTURE.sub("", cell.source.split(">", 1)[1].rsplit("</div>", 1)[0])
            assert "`" not in body, 'use <code dir="ltr"> in Urdu'
            cite = r'<span dir="ltr" style="white-space: nowrap;">\([CH]-[A-Z]+-\d+\)</span>'
            bare = re.sub(cite, "", body)
            assert not RULE_ID.search(bare), name
            assert not re.search(r"\d \+ \d", re.sub(r'<span dir="ltr">[^<]*</span>', "", body))
            for block in body.strip().split("\n\n"):
                if not block.strip():
                    continue
                if not re.match(
                    r"(#|- |\||\d+\. |<(?!p[ >])|<p style=\"text-align: right;\">)", block
                ):
                    raise AssertionError(f"{name}: a paragraph without right alignment: {block}")


SEEDS = REPO.parent / "shared" / "seeds"


def grams(text: str) -> set[tuple[str, ...]]:
    """Every run of eight words (vowel signs of Indic scripts kept inside words: not \\w)."""
    words = re.sub(r"[^\w\s\u0600-\u06FF\u0900-\u097F\u0C00-\u0C7F\u200c]", " ",
                   text.lower()).split()  # fmt: skip
    return {tuple(words[i : i + 8]) for i in range(len(words) - 7)}


def seed_grams() -> set[tuple[str, ...]]:
    if not SEEDS.is_dir():
        pytest.skip("the seed documents exist only in the developers' checkout")
    found: set[tuple[str, ...]] = set()
    for seed in SEEDS.glob("*.txt"):
        found |= grams(seed.read_text(encoding="utf-8"))
    return found


def test_no_sentence_copied_from_the_seeds() -> None:
    """Lesson prose is written fresh: no run of eight words taken from a seed document."""
    seeds = seed_grams()
    for path in all_notebooks():
        text = "\n".join(prose(c.source) for c in read(path).cells if c.cell_type == "markdown")
        shared = sorted(" ".join(g) for g in grams(text) & seeds)
        assert not shared, f"{rel(path)} repeats a seed: {shared}"


@pytest.mark.parametrize("lang", LANGS)
def test_no_catalog_message_copies_a_seed(lang: str) -> None:
    """Refusals, rule texts, glossary and game words are written fresh too."""
    from babel.messages.pofile import read_po

    from canasta_teach.i18n import LOCALE_DIR

    seeds = seed_grams()
    for domain in ("engine", "ui"):
        with (LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as handle:
            for message in read_po(handle):
                if not message.id:
                    continue
                text = (
                    " ".join(message.string)
                    if isinstance(message.string, tuple)
                    else message.string
                )
                shared = sorted(" ".join(g) for g in grams(text) & seeds)
                assert not shared, f"{domain} {message.id}: repeats a seed: {shared}"


# ---------------------------------------------------------------------------- puzzles


@dataclass(frozen=True)
class Entry:
    folder: Path
    file: str
    goal: str
    rank: str | None
    proposed: str | None
    expect: str | None
    teaches: str  # the rule id in the comment at the top of the position file

    @property
    def path(self) -> Path:
        return self.folder / self.file

    def state(self) -> State:
        return parse_position(self.path.read_text(encoding="utf-8"))


def entries(set_name: str) -> list[Entry]:
    folder = PUZZLES / set_name
    data = tomllib.loads((folder / "set.toml").read_text(encoding="utf-8"))
    expect = data.get("expect", {})
    out = []
    for item in data["puzzle"]:
        first = (folder / item["file"]).read_text(encoding="utf-8").splitlines()[0]
        match = re.match(r"# (C-[A-Z]+-\d+): \S", first)
        assert match, f"{item['file']}: the first line names the rule it teaches"
        out.append(Entry(folder, item["file"], item["goal"], item.get("rank"),
                         item.get("proposed"), expect.get(item["file"]),
                         match.group(1)))  # fmt: skip
    assert set(expect) <= {e.file for e in out}, "[expect] names a file that is no puzzle"
    return out


#: Every puzzle set a lesson may play (the test-only sets aside).
REAL_SETS = sorted(p.parent for p in PUZZLES.glob("*/set.toml") if p.parent.name != "_test")
EXPECT = {
    folder.name: dict(tomllib.loads((folder / "set.toml").read_text(encoding="utf-8"))).get(
        "expect", {}
    )
    for folder in REAL_SETS
}
MELD_PUZZLES = entries("build-a-meld")
TAKE_PUZZLES = entries("take-the-pile")


def puzzle_id(entry: Entry) -> str:
    return entry.file


def test_sets_have_eight_puzzles_each_teaching_a_real_rule() -> None:
    for puzzles, goal in ((MELD_PUZZLES, "meld"), (TAKE_PUZZLES, "take_or_explain")):
        assert len(puzzles) == PUZZLES_PER_SET
        assert [e.file for e in puzzles] == sorted(e.file for e in puzzles), "files in order"
        for entry in puzzles:
            assert entry.goal == goal
            assert entry.teaches in RULES
    files = {p.name for name in ("build-a-meld", "take-the-pile")
             for p in (PUZZLES / name).glob("*.txt")}  # fmt: skip
    assert files == {e.file for e in MELD_PUZZLES + TAKE_PUZZLES}, "a position file no set lists"


def kind_of(token: str) -> Kind:
    return Kind(TOKENS.index(token))


def candidate_melds(hand: list[int], rank: int) -> Iterator[Meld]:
    """Every meld of ``rank`` the hand could offer: 1+ naturals, any jokers and 2s."""
    for naturals in range(1, hand[rank] + 1):
        for jokers in range(hand[Kind.JOKER] + 1):
            for twos in range(hand[Kind.TWO] + 1):
                cards = [Kind(rank)] * naturals + [Kind.TWO] * twos + [Kind.JOKER] * jokers
                yield Meld(tuple(cards))


@pytest.mark.parametrize("entry", MELD_PUZZLES, ids=puzzle_id)
def test_meld_puzzle_can_be_solved(entry: Entry) -> None:
    state = entry.state()
    assert state.phase is Phase.MELD, "the learner has drawn and now melds"
    hand = state.hands[state.current]
    ranks = [kind_of(entry.rank)] if entry.rank else range(Kind.FOUR, Kind.ACE + 1)
    legal = [m for r in ranks for m in candidate_melds(hand, r) if state.check(m).legal]
    assert legal, "no legal meld of the asked rank can be made from the hand"
    # The engine's own move list agrees.
    assert any(m in state.legal_moves() for m in legal)


@pytest.mark.parametrize("entry", [e for e in MELD_PUZZLES if e.proposed], ids=puzzle_id)
def test_proposed_meld_is_judged_as_expected(entry: Entry) -> None:
    state = entry.state()
    move = parse_move(f"meld {entry.proposed}")
    assert isinstance(move, Meld)
    hand = state.hands[state.current]
    assert all(move.cards.count(k) <= hand[k] for k in set(move.cards)), "not in the hand"
    if entry.rank is not None:
        assert kind_of(entry.rank) in move.cards
    assert entry.expect is not None, f"{entry.file}: add it to [expect] in set.toml"
    verdict = state.check(move)
    if entry.expect == "legal":
        assert verdict.legal, verdict.reason
    else:
        assert verdict.reason is not None and verdict.reason.rule == entry.expect
        assert entry.teaches == entry.expect


def pickups(state: State) -> Iterator[TakePile]:
    """Every pickup the hand could try: natural cards of the top card's rank and wild cards."""
    top = state.pile_top
    assert top is not None
    hand = state.hands[state.current]
    held = hand[top] if top >= Kind.FOUR else 0
    for naturals, jokers, twos in itertools.product(
        range(held + 1), range(hand[Kind.JOKER] + 1), range(hand[Kind.TWO] + 1)
    ):
        cards = [top] * naturals + [Kind.TWO] * twos + [Kind.JOKER] * jokers
        yield TakePile(tuple(cards))


def learners_attempt(state: State) -> TakePile:
    """What a learner reaches for: up to two of the top card's rank, with one wild card
    when only one natural is held."""
    top = state.pile_top
    assert top is not None
    hand = state.hands[state.current]
    naturals = min(hand[top], 2) if top >= Kind.FOUR else 0
    cards = [top] * naturals
    if naturals == 1 and (hand[Kind.JOKER] or hand[Kind.TWO]):
        cards.append(Kind.JOKER if hand[Kind.JOKER] else Kind.TWO)
    return TakePile(tuple(cards))


@pytest.mark.parametrize("entry", TAKE_PUZZLES, ids=puzzle_id)
def test_take_puzzle_matches_its_expectation(entry: Entry) -> None:
    state = entry.state()
    assert state.phase is Phase.DRAW, "the learner decides before drawing"
    assert entry.expect is not None, f"{entry.file}: add it to [expect] in set.toml"
    verdicts = {move: state.check(move) for move in pickups(state)}
    legal = [move for move, verdict in verdicts.items() if verdict.legal]
    engine_takes = [m for m in state.legal_moves() if isinstance(m, TakePile)]
    if entry.expect == "legal":
        assert legal, f"no pickup is legal: {learners_attempt(state)} -> " + str(
            state.check(learners_attempt(state)).reason
        )
        assert engine_takes
    else:
        assert not legal, f"{legal[0]} is legal"
        assert not engine_takes
        reason = state.check(learners_attempt(state)).reason
        assert reason is not None and reason.rule == entry.expect, reason
        assert entry.teaches == entry.expect


def test_take_puzzles_cover_both_kinds() -> None:
    expected = [e.expect for e in TAKE_PUZZLES]
    assert expected.count("legal") >= 3
    # Every rule lesson 5 teaches that stops a pickup; the first meld's minimum (C-PILE-6) is
    # lesson 6's, and so are its pile puzzles (go-down).
    assert {"C-PILE-3", "C-BLK-1", "C-PILE-2", "C-PILE-4", "C-PILE-5"} <= set(expected)
    assert "C-PILE-6" in EXPECT["go-down"].values()
    # The canonical example: a frozen pile, one natural and a wild card (C-PILE-3) ...
    frozen = [e for e in TAKE_PUZZLES if e.expect == "C-PILE-3"]
    assert any(learners_attempt(e.state()).cards.count(Kind.JOKER) == 1 for e in frozen)
    # ... and the same natural + wild pickup legal once the pile is not frozen (C-PILE-4).
    natural_and_wild = [
        e.file
        for e in TAKE_PUZZLES
        if e.expect == "legal"
        and len(learners_attempt(e.state()).cards) == 2
        and Kind.JOKER in learners_attempt(e.state()).cards
        and e.state().check(learners_attempt(e.state())).legal
    ]
    assert natural_and_wild


def test_refused_take_changes_nothing() -> None:
    """A refused pickup leaves the puzzle position exactly as it was (retries start clean)."""
    for entry in TAKE_PUZZLES:
        for move in pickups(entry.state()):
            state = entry.state()
            before = state.snapshot()
            if not state.apply(move).legal:
                assert state.snapshot() == before, f"{entry.file}: {move}"


def test_the_games_loader_accepts_both_sets() -> None:
    from canasta_teach.widgets import puzzles

    for name, own in (("build-a-meld", MELD_PUZZLES), ("take-the-pile", TAKE_PUZZLES)):
        loaded = puzzles.load_set(PUZZLES / name)
        assert [p.name for p in loaded.puzzles] == [e.file for e in own]
        # The reason the game accepts for a refused pickup is the one [expect] names.
        for puzzle, entry in zip(loaded.puzzles, own, strict=True):
            if puzzle.goal == "take_or_explain":
                reason = puzzles.take_refusal(puzzle.state())
                assert (reason.rule if reason else "legal") == entry.expect


def test_notebooks_find_their_puzzles() -> None:
    """``play`` walks up from the notebook's folder to ``puzzles/<name>``."""
    for lang in LANGS:
        for game in GAME_OF_NOTEBOOK.values():
            here = LESSONS / lang
            found = next(
                (d / "puzzles" / game for d in (here, *here.parents)
                 if (d / "puzzles" / game / "set.toml").is_file()),
                None,
            )  # fmt: skip
            assert found == PUZZLES / game


@given(data=st.data())
def test_any_pickup_from_the_hand_agrees_with_the_expectation(data: st.DataObject) -> None:
    """Whatever cards of the hand a learner selects, the engine never lets them take a pile
    the puzzle says cannot be taken, and a legal pickup always melds the top card with cards
    of its rank or wild cards (C-PILE-1)."""
    entry = data.draw(st.sampled_from(TAKE_PUZZLES), label="puzzle")
    state = entry.state()
    hand = state.hand_cards(state.current)
    chosen = data.draw(
        st.lists(st.sampled_from(range(len(hand))), unique=True, max_size=len(hand)),
        label="cards",
    )
    move = TakePile(tuple(sorted((hand[i] for i in chosen), reverse=True)))
    verdict = state.check(move)
    if verdict.legal:
        assert entry.expect == "legal", f"{entry.file}: {move} was allowed"
        top = state.pile_top
        assert all(k == top or k in (Kind.JOKER, Kind.TWO) for k in move.cards)
    else:
        assert verdict.reason is not None and verdict.reason.rule in RULES


@pytest.mark.parametrize("lang", LANGS)
def test_every_game_can_be_played_through_with_the_right_answers(lang: str) -> None:
    """Each lesson's game, driven as a learner would drive it (the widget's intents), accepts
    the right answer to every puzzle and ends with every puzzle solved: a meld the engine
    allows, the pickup or the rule that stops it, the answer to a value question, or a way to
    the goal found by the puzzle solver, played move by move."""
    from canasta_teach import widgets
    from canasta_teach.engine import Add, AskPartner, Discard, Draw
    from canasta_teach.widgets.puzzles import (
        answer_question,
        going_out_refusal,
        legal_melds,
        pile_plays,
        solve,
        take_refusal,
    )

    def press(game: Any, control: str) -> None:
        game.controller.intent({"action": "game", "id": control})

    def tokens(cards: tuple[Kind, ...]) -> list[str]:
        return [TOKENS[k] for k in cards]

    def intent(move: Any) -> dict[str, Any]:
        if isinstance(move, Draw):
            return {"action": "draw"}
        if isinstance(move, TakePile):
            return {"action": "take", "cards": tokens(move.cards)}
        if isinstance(move, Meld):
            return {"action": "meld", "cards": tokens(move.cards)}
        if isinstance(move, Add):
            return {"action": "add", "rank": TOKENS[move.rank], "cards": tokens(move.cards)}
        if isinstance(move, Discard):
            return {"action": "discard", "cards": [TOKENS[move.card]]}
        assert isinstance(move, AskPartner), move
        return {"action": "ask"}

    for folder in REAL_SETS:
        widget = widgets.play(folder.name, lang=lang, start=LESSONS / lang)
        assert isinstance(widget, widgets.CardTable), (folder.name, widget)
        game = widget.game_controller
        for index, entry in enumerate(game.set.puzzles):
            assert game.index == index
            state = game.controller.state
            expect = EXPECT.get(folder.name, {}).get(entry.name)
            if entry.proposed:
                # Judge the proposed meld rightly: "legal" or "not legal".
                press(game, "legal" if expect == "legal" else "not_legal")
                assert widget.message["kind"] == "success", widget.message
            if entry.goal == "meld":
                meld = legal_melds(state, entry.rank, entry.canasta)[0]
                game.controller.intent({"action": "meld", "cards": tokens(meld.cards)})
            elif entry.goal == "pile":
                game.controller.intent(intent(pile_plays(state, entry.kind)[0]))
            elif entry.goal == "out_or_explain":
                reason = going_out_refusal(state)
                if reason is None:
                    plan = solve(entry, state)
                    assert plan is not None, entry.name
                    for move in plan:
                        game.controller.intent(intent(move))
                else:
                    press(game, f"reason:{reason.rule}")
            elif entry.goal == "take_or_explain":
                reason = take_refusal(state)
                if reason is None:
                    take = next(m for m in pickups(state) if state.check(m).legal)
                    game.controller.intent({"action": "take", "cards": tokens(take.cards)})
                else:
                    assert expect in (None, reason.rule), (entry.name, reason)
                    press(game, f"reason:{reason.rule}")
            elif entry.goal == "value":
                right, _choices = answer_question(state, state.current, entry.question or "")
                press(game, f"answer:{right}")
            elif entry.goal == "score_walk":
                while index not in game.solved:
                    press(game, "next_line")
            elif entry.goal == "score":
                from canasta_teach.engine.scoring import score_hand

                values = {}
                for team in score_hand(state).teams:
                    values |= {
                        f"{team.team}.{i}": str(ln.points) for i, ln in enumerate(team.lines)
                    }
                    values[f"{team.team}.total"] = str(team.total)
                game.controller.intent({"action": "game", "id": "check", "values": values})
            else:
                plan = solve(entry, state)
                assert plan is not None, entry.name
                for move in plan:
                    game.controller.intent(intent(move))
            assert index in game.solved, (folder.name, entry.name, widget.message)
            assert widget.message["kind"] == "success", widget.message
            press(game, "next")
        assert game.solved == set(range(game.total)), folder.name
        assert widget.game["next_lesson"] is None or widget.game["next_lesson"]["href"]


def test_every_rule_is_taught_by_a_lesson_named_in_its_metadata() -> None:
    taught: dict[str, list[str]] = {}
    for name in NOTEBOOK_NAMES:
        meta = read(LESSONS / "en" / name).metadata.get("canasta", {})
        assert meta.get("lesson") == name.removesuffix(".ipynb"), name
        for rule in meta.get("rules", []):
            taught.setdefault(rule, []).append(name)
        for lang in LANGS[1:]:
            assert read(LESSONS / lang / name).metadata.get("canasta") == meta, (lang, name)
    assert set(taught) <= set(RULES), sorted(set(taught) - set(RULES))
    assert set(taught) == set(RULES), f"taught by no lesson: {sorted(set(RULES) - set(taught))}"


@pytest.mark.parametrize("name", list(GAME_OF_NOTEBOOK))
def test_a_lesson_cites_the_rules_it_says_it_teaches(name: str) -> None:
    nb = read(LESSONS / "en" / name)
    cited = set(RULE_ID.findall("\n".join(c.source for c in nb.cells)))
    rules = set(nb.metadata["canasta"]["rules"])
    assert rules <= cited, f"{name} teaches but never cites {sorted(rules - cited)}"
    assert nb.metadata["canasta"]["game"] == GAME_OF_NOTEBOOK[name]


@pytest.mark.parametrize("path", all_notebooks(), ids=rel)
def test_markdown_emphasis_renders_with_no_stray_asterisks(path: Path) -> None:
    # Markdown does not close "**bold**" right before a letter in some scripts (Telugu: a
    # suffix after a vowel sign): the reader then sees the asterisks. Render as Voilà does.
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    for index, cell in enumerate(read(path).cells):
        if cell.cell_type != "markdown":
            continue
        text = re.sub(r"<[^>]+>", "", markdown2html_mistune(cell.source))
        assert "**" not in text, f"cell {index}: {text[text.index('**') - 30 :][:80]!r}"


# ---------------------------------------------------------------------------- taught before used

#: Every lesson with a puzzle set, in the order of the course.
SET_OF_LESSON = {**GAME_OF_NOTEBOOK, "12-hand-and-foot.ipynb": "hand-and-foot"}


def taught_by_each_lesson() -> dict[str, set[str]]:
    """The rules taught by each lesson or an earlier one (the notebooks' ``canasta.rules``)."""
    taught: set[str] = set()
    so_far: dict[str, set[str]] = {}
    for name in NOTEBOOK_NAMES:
        taught |= set(read(LESSONS / "en" / name).metadata["canasta"]["rules"])
        so_far[name] = set(taught)
    return so_far


def rules_the_table_shows(view: dict[str, Any], game: dict[str, Any], state: State) -> set[str]:
    """The rules behind what a puzzle's table and panel show at its start: a STOP sign, a frozen
    pile, a first-meld minimum, a canasta's badge, Hand and Foot's piles, and the rules offered
    as answers."""
    from canasta_teach.engine.handfoot import HandFootState

    handfoot = isinstance(state, HandFootState)
    shown: set[str] = set()
    pile = view["pile"]
    if pile.get("stop"):
        shown.add("H-PILE-2" if handfoot else "C-BLK-1")
    if pile.get("frozen") and not handfoot:
        shown.add("C-FRZ-2" if pile["frozen"] == "first_meld" else "C-FRZ-1")
    for team_view, team in zip(view["teams"], (0, 1), strict=True):
        if team_view["minimum_text"] and state.minimum(team):
            shown.add("H-MIN-1" if handfoot else "C-MIN-1")
        if any(m.get("canasta") for m in team_view["melds"]):
            shown.add("C-CAN-1")
        if team_view.get("piles"):
            shown.add("H-MELD-3")
    shown |= {c["id"].removeprefix("reason:") for c in game.get("choices") or []
              if c["id"].startswith("reason:")}  # fmt: skip
    return shown


def rules_an_answer_applies(puzzle: Any) -> set[str]:
    """The rules a right answer to ``puzzle`` applies, found by the engine: the rule that stops
    a pickup (or the way a pickup is allowed), a proposed meld's verdict, the score lines' rules,
    and the rules of each move of the solver's way to the goal (its notes, a red three drawn,
    a pickup, black threes melded)."""
    from canasta_teach.engine import Add, Discard, Draw
    from canasta_teach.engine.handfoot import HandFootState
    from canasta_teach.engine.scoring import score_hand
    from canasta_teach.widgets.puzzles import (
        going_out_refusal,
        legal_takes,
        solve,
        take_refusal,
    )

    state = puzzle.state()
    handfoot = isinstance(state, HandFootState)
    team = state.current % 2
    needs: set[str] = set()
    goal = puzzle.goal
    if goal == "value":
        needs.add("C-VAL-1")
    if goal in ("score", "score_walk"):
        needs |= {"C-SCORE-1", *(ln.rule for t in score_hand(state).teams for ln in t.lines)}
    if goal == "meld":
        needs.add("C-MELD-1")
        if puzzle.canasta:
            needs.add("C-CAN-1")
        if puzzle.proposed is not None:
            reason = state.check(Meld(puzzle.proposed)).reason
            needs |= {reason.rule} if reason is not None else set()
    if goal == "pile":
        needs.add("H-MELD-3")
    if goal == "first_meld":
        needs.add("C-MIN-1")
    if goal in ("go_out", "out_or_explain"):
        needs.add("H-OUT-1" if handfoot else "C-OUT-2")
        if puzzle.concealed:
            needs.add("C-OUT-3")
    if goal == "out_or_explain":
        reason = going_out_refusal(state)
        needs |= {reason.rule} if reason is not None else set()
    if puzzle.partner is not None:
        needs.add("C-ASK-1")
    if goal == "take_or_explain":
        reason = take_refusal(state)
        if reason is not None:
            needs.add(reason.rule)
        elif handfoot:
            needs.add("H-PILE-1")
        else:
            needs.add("C-PILE-1")
            top = state.pile_top
            assert top is not None
            if state.frozen_by(team) is not None:
                needs.add("C-PILE-3")  # only a natural pair takes it
            elif not any(m.cards.count(top) >= 2 for m in legal_takes(state)):
                needs.add("C-PILE-4")  # a natural and a wild card, or onto the team's meld
            if not state.down[team]:
                needs.add("C-PILE-6")
    if goal in ("turn", "first_meld", "go_out", "out_or_explain") and (
        goal != "out_or_explain" or going_out_refusal(state) is None
    ):
        plan = solve(puzzle, state)
        assert plan is not None, puzzle.name
        current = state.copy()
        for move in plan:
            reds = sum(current.red_threes)
            verdict = current.apply(move)
            if verdict.note is not None:
                needs.add(verdict.note.rule)
            if sum(current.red_threes) > reds:
                needs.add("C-RED-1")
            if isinstance(move, TakePile):
                needs.add("H-PILE-1" if handfoot else "C-PILE-1")
            if isinstance(move, (Meld, Add)) and Kind.BLACK_THREE in move.cards:
                needs |= {"C-MELD-4", "C-OUT-4"}
            if isinstance(move, Draw) and state.players == 2:
                needs.add("C-TWO-2")
            if isinstance(move, (Draw, Meld, Add, Discard)) and not handfoot:
                needs.add({Draw: "C-TURN-1", Discard: "C-TURN-3"}.get(type(move), "C-TURN-2"))
    return needs


def test_every_puzzle_uses_only_rules_its_lesson_or_an_earlier_one_has_taught() -> None:
    """A puzzle is not solved by a rule the course teaches later, and its table shows nothing a
    later lesson explains: each puzzle's ``rules`` in set.toml name what it needs (at least the
    rules the engine finds in its right answer and on its table), and each of them is in the
    ``canasta.rules`` of its lesson or an earlier one."""
    from canasta_teach import widgets

    so_far = taught_by_each_lesson()
    checked = 0
    for notebook, set_name in SET_OF_LESSON.items():
        widget = widgets.play(set_name, lang="en", start=LESSONS / "en")
        assert isinstance(widget, widgets.CardTable), set_name
        game = widget.game_controller
        for index, puzzle in enumerate(game.set.puzzles):
            game.load(index)
            where = f"{set_name}/{puzzle.name}"
            declared = set(puzzle.rules)
            assert declared, f"{where}: list the rules it needs (set.toml 'rules')"
            found = rules_the_table_shows(widget.view, widget.game, puzzle.state())
            found |= rules_an_answer_applies(puzzle)
            assert found <= declared, f"{where}: needs {sorted(found - declared)} too"
            early = declared - so_far[notebook]
            assert not early, f"{where}: {sorted(early)} not taught by {notebook} or before"
            checked += 1
    assert checked == sum(len(load_set_of(name).puzzles) for name in SET_OF_LESSON.values())


def load_set_of(name: str) -> Any:
    from canasta_teach.widgets.puzzles import load_set

    return load_set(PUZZLES / name)


@pytest.mark.parametrize("lang", LANGS)
def test_the_start_page_explains_both_kinds_of_rule_code(lang: str) -> None:
    # Lessons cite C- rules and lesson 12 H- rules: the start page says what each letter means,
    # with an example of each.
    cells = read(LESSONS / lang / "00-start.ipynb").cells
    section = next(c.source for c in cells if c.source.count("C-MELD-2") and "##" in c.source)
    cited = RULE_ID.findall(section)
    assert any(r.startswith("C-") for r in cited) and any(r.startswith("H-") for r in cited)
    for letter in "CH":
        spelled = (f'"{letter}"', f"“{letter}”", f'<code dir="ltr">{letter}</code>')
        assert any(s in section for s in spelled), f"{lang}: what {letter} means"
    assert "12" in prose(section)  # the lesson that teaches the H- rules


def test_lesson_12_states_the_wild_card_share_the_engine_applies() -> None:
    """H-MELD-2: at least twice as many naturals as wild cards, so two naturals carry one wild
    card (the engine lays down 9 9 2) and two naturals do not carry two (9 9 2 2 is refused);
    the lesson says so."""
    position = (PUZZLES / "hand-and-foot" / "01-clean-pile.txt").read_text(encoding="utf-8")
    state = parse_position(position.replace("S: K K K JK 9 9 6 5", "S: K K K 2 2 9 9 6 5"))
    assert state.check(parse_move("meld 9 9 2")).legal
    refused = state.check(parse_move("meld 9 9 2 2")).reason
    assert refused is not None and refused.rule == "H-MELD-2"
    text = prose(read(LESSONS / "en" / "12-hand-and-foot.ipynb").cells[2].source)
    assert "two or three naturals may carry one wild card" in " ".join(text.split())
