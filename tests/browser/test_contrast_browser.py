"""Every text of the card table meets WCAG AA contrast, in Chromium (issue 19).

The walkthrough found Hand and Foot's pile labels ("Clean", "Dirty", "Wild") in the table's
cream on a near-white tile. Here every visible text node of the widget (``.ct-root``: the game
panel, the table, the hand, the buttons, the answers, the narration) is measured as drawn: its
computed colour, and the colour behind it, found by painting every element from the page up
to the text's own box (each background colour, each stop of a gradient such as the felt's, each
element's opacity), white at the bottom. The ratio must reach 4.5:1, or 3:1 for large text
(24px, or bold 18.66px). WCAG exempts inactive controls: a ``disabled`` button is skipped (the
app's "unavailable" buttons are not disabled, and are measured).

Pages: the puzzles' layout (lesson 5's eight puzzles, with a refusal and a hint; lesson 7's
canasta; lesson 8's score sheet checked; lesson 12's puzzle with clean, dirty and wild piles,
in English and Urdu) and the whole games' layout (a full game after a turn, a Hand and Foot
table with piles, a room before and after its start). The action buttons a legal move uses now
(white on a dark fill) are among the texts measured, and are checked to stand out from the
refused ones by more than colour.
The checker is shown to fail: a low-contrast rule planted in the page is caught. And "No melds
yet" is not said beside a team's complete piles.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from canasta_teach.i18n import get_translator

from .conftest import PAGE_TIMEOUT_MS, REPO_ROOT, TEST_PREFIX, render_url

pytestmark = pytest.mark.browser

STEP_MS = 20_000
FOLDER = "_contrast"
HF_OUT = REPO_ROOT / "lessons" / "puzzles" / "hand-and-foot" / "07-partner-not-in-foot.txt"

#: Every visible text node under ``root`` with its contrast ratio against what is drawn behind
#: it, and the ratio it needs.
CONTRAST = """(root) => {
  const parse = (text) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(text || "");
    if (!m) return null;
    const p = m[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  // Source-over compositing of straight-alpha colours.
  const over = (top, bottom) => {
    const a = top[3] + bottom[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    const mix = (i) => (top[i] * top[3] + bottom[i] * bottom[3] * (1 - top[3])) / a;
    return [mix(0), mix(1), mix(2), a];
  };
  // What an element's background paints: its colour, or each stop of a gradient over it.
  const layers = (style) => {
    if (/url\\(/.test(style.backgroundImage)) throw new Error("an image behind text");
    const colour = parse(style.backgroundColor) || [0, 0, 0, 0];
    const stops = (style.backgroundImage.match(/rgba?\\([^)]+\\)/g) || []).map(parse);
    return stops.length ? stops.map((s) => over(s, colour)) : [colour];
  };
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => {
    const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  // The colours seen through the stack of boxes `chain` (outermost first) with `top` painted
  // in the innermost: each box's background under its content, each box's opacity fading
  // the whole group, the page's white under everything. One result per gradient stop.
  const seen = (chain, top) => {
    let groups = [top];
    for (let i = chain.length - 1; i >= 0; i--) {
      const style = getComputedStyle(chain[i]);
      const opacity = Number(style.opacity);
      const next = [];
      for (const g of groups) {
        for (const bg of layers(style)) {
          const c = over(g, bg);
          next.push([c[0], c[1], c[2], c[3] * opacity]);
        }
      }
      groups = next;
    }
    return groups.map((g) => over(g, [255, 255, 255, 1]));
  };
  const out = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.data.trim()) continue;
    const el = node.parentElement;
    if (el.closest("svg")) continue; // the card pictures' own corner indices
    const range = document.createRange();
    range.selectNodeContents(node);
    if (![...range.getClientRects()].some((r) => r.width > 0 && r.height > 0)) continue;
    const style = getComputedStyle(el);
    if (style.visibility !== "visible") continue;
    if (el.closest("button[disabled]")) continue; // inactive: exempt (WCAG 1.4.3)
    const chain = [];
    for (let e = el; e; e = e.parentElement) chain.unshift(e);
    const texts = seen(chain, parse(style.color));
    const backs = seen(chain, [0, 0, 0, 0]);
    const worst = Math.min(...texts.map((t, i) => ratio(t, backs[i])));
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (Number(style.fontWeight) >= 700 && size >= 18.66);
    out.push({text: node.data.trim().slice(0, 50), where: el.className || el.tagName,
              ratio: Math.round(worst * 100) / 100, needed: large ? 3 : 4.5});
  }
  return out;
}"""


def measure(page: Page) -> list[dict[str, Any]]:
    """Every text of every card table on the page."""
    found: list[dict[str, Any]] = []
    roots = page.locator(".ct-root")
    for index in range(roots.count()):
        found += roots.nth(index).evaluate(CONTRAST)
    return found


def too_faint(page: Page, shot: Path) -> list[dict[str, Any]]:
    page.screenshot(path=str(shot), full_page=True)
    found = measure(page)
    assert len(found) >= 10, found  # the widget's texts were measured
    return [t for t in found if t["ratio"] < t["needed"]]


def notebook(source: str) -> str:
    cell = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
            "source": source}  # fmt: skip
    return json.dumps({"cells": [cell], "metadata": {"kernelspec": {"name": "python3",
                       "display_name": "Python 3", "language": "python"}}, "nbformat": 4,
                       "nbformat_minor": 5})  # fmt: skip


#: A Hand and Foot game's whole-game table showing lesson 12's position with complete piles
#: (the table only: it is looked at, not played), and a two-player room, started by its host.
PAGES = {
    "hf_piles": (
        "from pathlib import Path\n"
        "from canasta_teach.engine.notation import parse_position\n"
        "from canasta_teach.widgets import play_game\n"
        "table = play_game(lang='en', variant='handfoot', pace='instant', seed='contrast')\n"
        "game = table.game_controller\n"
        f"game.controller.state = parse_position(Path({str(HF_OUT)!r}).read_text())\n"
        "game.controller.render()\n"
        "table"
    ),
    "room": (
        "from canasta_teach.i18n import get_translator\n"
        "from canasta_teach.rooms import Rooms, shared_store\n"
        "from canasta_teach.widgets.friends import RoomTable\n"
        "rooms = Rooms(shared_store())\n"
        "code, token = rooms.create('en', players=2, level='easy')\n"
        "game = RoomTable(get_translator('en'), 'en', rooms=rooms)\n"
        "game.join(code, token)\n"
        "game.widget"
    ),
}


@pytest.fixture(scope="module")
def pages(site_root: Path) -> str:
    folder = site_root / FOLDER
    folder.mkdir(exist_ok=True)
    for name, source in PAGES.items():
        (folder / f"{name}.ipynb").write_text(notebook(source))
    return FOLDER


@pytest.fixture
def learner(page: Page) -> Iterator[Page]:
    page.set_viewport_size({"width": 1366, "height": 900})
    yield page


def open_lesson(page: Page, voila_url: str, path: str, puzzle: int = 1) -> Locator:
    page.goto(render_url(voila_url, path))
    root = page.locator(".ct-root.ct-puzzle")
    expect(root.locator(".ct-hand [data-ct-card], .ct-sheet").first).to_be_visible(
        timeout=PAGE_TIMEOUT_MS
    )
    for number in range(2, puzzle + 1):
        root.locator("[data-ct-game='next']").click()
        expect(root.locator(".ct-puzzle-number")).to_contain_text(str(number), timeout=STEP_MS)
    return root


def answered(root: Locator, press: Any) -> None:
    message = root.locator(".ct-message")
    seq = message.get_attribute("data-ct-seq") or ""
    press()
    expect(message).not_to_have_attribute("data-ct-seq", seq, timeout=STEP_MS)


def test_puzzle_tables_meet_wcag_aa(learner: Page, voila_url: str, artifacts: Path) -> None:
    page = learner
    # Lesson 5, puzzle 1: a black three with its STOP badge; a refused pickup; the hint.
    root = open_lesson(page, voila_url, "en/05-discard-pile.ipynb")
    answered(root, root.locator("[data-ct-action='take']").click)
    expect(root.locator(".ct-message")).to_have_class("ct-message ct-refusal")
    root.locator("[data-ct-game='hint']").click()
    expect(root.locator(".ct-hint")).to_be_visible(timeout=STEP_MS)
    expect(root.locator(".ct-stop")).to_be_visible()
    assert too_faint(page, artifacts / "contrast-lesson-05.png") == []
    # Its other puzzles: a frozen pile and its label, melds of both teams.
    frozen = 0
    for number in range(2, 9):
        root.locator("[data-ct-game='next']").click()
        expect(root.locator(".ct-puzzle-number")).to_contain_text(str(number), timeout=STEP_MS)
        assert too_faint(page, artifacts / "contrast-lesson-05.png") == [], number
        frozen += root.locator(".ct-frozen-label").count()
    assert frozen > 0

    # Lesson 7, puzzle 5: a canasta and its badge.
    root = open_lesson(page, voila_url, "en/07-going-out.ipynb", puzzle=5)
    expect(root.locator(".ct-canasta").first).to_be_visible()
    assert too_faint(page, artifacts / "contrast-lesson-07.png") == []

    # Lesson 8, puzzle 2: the score sheet, checked with every line wrong (marks and reasons).
    root = open_lesson(page, voila_url, "en/08-scoring.ipynb", puzzle=2)
    for entry in root.locator("input[data-ct-line]").all():
        entry.fill("1")
    answered(root, root.locator("[data-ct-game='check']").click)
    expect(root.locator(".ct-line.ct-wrong").first).to_be_visible()
    assert too_faint(page, artifacts / "contrast-lesson-08.png") == []


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_hand_and_foot_pile_labels_meet_wcag_aa_and_no_melds_yet_is_not_said_beside_piles(
    learner: Page, voila_url: str, artifacts: Path, lang: str
) -> None:
    page = learner
    tr = get_translator(lang)
    root = open_lesson(page, voila_url, f"{lang}/12-hand-and-foot.ipynb", puzzle=7)
    kinds = root.locator(".ct-us .ct-hf-pile-kind")
    expect(kinds).to_have_count(5)
    expect(kinds.nth(0)).to_have_text(tr.ui("table.hf.pile_clean"))
    # North-South's melds all became piles: the piles say what the team has.
    expect(root.locator(".ct-us .ct-melds [data-ct-meld]")).to_have_count(0)
    expect(root.locator(".ct-us .ct-none")).to_have_count(0)
    # East-West has a pile and a meld of 5s.
    expect(root.locator(".ct-them .ct-none")).to_have_count(0)
    faint = too_faint(page, artifacts / f"contrast-lesson-12-{lang}.png")
    assert faint == []

    # The checker sees faint text: the table's own cream on the piles' tiles, as it was.
    page.add_style_tag(content=".ct-root .ct-hf-pile { color: #f6f3ea !important; }")
    planted = too_faint(page, artifacts / f"contrast-planted-{lang}.png")
    labels = {tr.ui(f"table.hf.pile_{k}") for k in ("clean", "dirty", "wild")}
    assert {t["text"] for t in planted} == labels, planted
    assert all(t["ratio"] < 1.5 for t in planted), planted


#: How a button is drawn: what tells an action the learner can take now from a refused one
#: without colour (weight, border style and width) and its box (the two must be the same size).
BUTTON_LOOK = """(b) => { const s = getComputedStyle(b); const r = b.getBoundingClientRect();
  return {weight: Number(s.fontWeight), border: s.borderTopStyle,
          width: parseFloat(s.borderTopWidth), height: Math.round(r.height),
          shadow: s.boxShadow}; }"""


def check_action_emphasis(page: Page, root: Locator, shot: Path) -> None:
    """The action buttons some legal move uses now (``ct-now``) stand out from the refused
    ones (``aria-disabled``) by more than colour: bold, a solid and wider border, a shadow;
    both are as tall (nothing shifts when a phase turns one on), and the emphasis adds nothing
    to a button's accessible name (its invisible bold copy only reserves room)."""
    now = root.locator(".ct-buttons .ct-button.ct-now")
    refused = root.locator(".ct-buttons .ct-button[aria-disabled='true']")
    assert now.count() >= 1 and refused.count() >= 1
    for button in now.all():
        assert button.get_attribute("aria-disabled") is None
    looks_now = [b.evaluate(BUTTON_LOOK) for b in now.all()]
    looks_refused = [b.evaluate(BUTTON_LOOK) for b in refused.all()]
    for look in looks_now:
        assert look["weight"] >= 700 and look["border"] == "solid" and look["width"] >= 2, look
        assert look["shadow"] != "none", look
    for look in looks_refused:
        assert look["weight"] < 700 and look["border"] == "dashed" and look["width"] < 2, look
    assert {look["height"] for look in looks_now + looks_refused} == {looks_now[0]["height"]}
    draw = root.locator(".ct-buttons [data-ct-action='draw']")
    name = draw.inner_text()
    expect(page.get_by_role("button", name=name, exact=True)).to_have_count(1)
    root.locator(".ct-buttons").screenshot(path=str(shot))


def test_whole_game_tables_meet_wcag_aa(
    learner: Page, voila_url: str, pages: str, artifacts: Path
) -> None:
    page = learner
    # A full game after a turn: the narration (with the partner's reasons), the score line.
    page.goto(render_url(voila_url, f"{TEST_PREFIX}/widgets/fullgame_en_4p.ipynb"))
    root = page.locator(".ct-root.ct-full")
    draw = root.locator(".ct-buttons [data-ct-action='draw']:not([aria-disabled='true'])")
    expect(draw).to_have_count(1, timeout=PAGE_TIMEOUT_MS)
    check_action_emphasis(page, root, artifacts / "actions-draw-phase.png")
    answered(root, draw.click)
    root.locator(".ct-hand [data-ct-card]").first.click()
    answered(root, root.locator("[data-ct-action='discard']").click)
    expect(draw).to_have_count(1, timeout=STEP_MS)
    expect(root.locator(".ct-log-line").nth(3)).to_be_attached()
    assert too_faint(page, artifacts / "contrast-full.png") == []
    # The emphasised buttons are measured above; the check of their look can fail.
    assert root.locator(".ct-buttons .ct-now").count() >= 1
    page.add_style_tag(
        content=".ct-root .ct-buttons .ct-button.ct-now { color: #3b5a8a !important; }"
    )
    faint = {t["text"] for t in too_faint(page, artifacts / "contrast-planted-actions.png")}
    assert draw.inner_text() in faint, faint

    # Hand and Foot's whole-game table with complete piles.
    page.goto(render_url(voila_url, f"{pages}/hf_piles.ipynb"))
    root = page.locator(".ct-root.ct-full")
    expect(root.locator(".ct-us .ct-hf-pile-kind")).to_have_count(5, timeout=PAGE_TIMEOUT_MS)
    expect(root.locator(".ct-us .ct-none")).to_have_count(0)
    assert too_faint(page, artifacts / "contrast-handfoot-full.png") == []

    # A room: the lobby (invite, seats), then the game.
    page.goto(render_url(voila_url, f"{pages}/room.ipynb"))
    start = page.locator("[data-ct-game='start']")
    start.wait_for(timeout=PAGE_TIMEOUT_MS)
    assert too_faint(page, artifacts / "contrast-room-lobby.png") == []
    start.click()
    expect(page.locator(".ct-root .ct-hand [data-ct-card]").first).to_be_visible(timeout=STEP_MS)
    assert too_faint(page, artifacts / "contrast-room.png") == []
