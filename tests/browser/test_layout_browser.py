"""One screen to play (issue 18), in a real browser: Voilà and Debian's Chromium.

For each whole game, the full game (four players, then two), the guided hand, Hand and Foot
and a room against the computer, in each of the four languages:

- on a 1366x768 laptop, with the table scrolled into view as a learner would, the pile, every
  card of the hand, every action button, the latest narration line, the message and the
  coach's word are all on screen at once, and none is covered by another box;
- on a 390x844 touch screen, the answer to a tapped action button (the message, and the
  coach's word beside it) is on screen, and nothing on the page scrolls sideways.

Each game is a page of its own written for this test (in a language folder, so the page is
in that language and direction), built as the lessons build it, with a coach's word set on
the game's controller (the coach fills it in play). A screenshot of each size and language
is kept under test-artifacts/layout-*.png.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, Playwright, expect

from canasta_teach.app import CHROMIUM_ARGS
from canasta_teach.i18n import LANGUAGES, get_translator

from .conftest import CHROMIUM, PAGE_TIMEOUT_MS, render_url

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
#: One click and its answer: a kernel round trip on a busy machine, with room to spare.
STEP_MS = 20_000
FOLDER = "_layout"
GAMES = ("full", "guided", "handfoot", "room")

#: The page's cell for each game: the widget as the lessons make it (the computer's turns
#: shown at once), with a coach's word.  A room is made here for its host, who starts it.
CELLS = {
    "full": (
        "table = play_game(lang={lang!r}, pace='instant', seed='layout')\n"
        "game = table.game_controller"
    ),
    "guided": "table = guided_hand(lang={lang!r}, pace='instant')\ngame = table.game_controller",
    "handfoot": (
        "table = play_game(lang={lang!r}, variant='handfoot', pace='instant', seed='layout')\n"
        "game = table.game_controller"
    ),
    "room": (
        "from canasta_teach.rooms import Rooms, shared_store\n"
        "from canasta_teach.widgets.friends import RoomTable\n"
        "rooms = Rooms(shared_store())\n"
        "code, token = rooms.create({lang!r}, players=2, level='easy')\n"
        "game = RoomTable(tr, {lang!r}, rooms=rooms)\n"
        "game.join(code, token)\n"
        "table = game.widget"
    ),
}
#: The coach's word on each page: each kind of word is drawn somewhere.
COACH = {"full": "warning", "guided": "note", "handfoot": "review", "room": "note"}
COACH_TEXT = {"warning": "game.guide.discard_again", "note": "game.guide.discard",
              "review": "game.guide.meld_first"}  # fmt: skip
#: How the page's game gets the word: a stand-in for the table's coach (it always says the
#: word and never stops a move); a room's panel takes the word as it is.
SAYS = {
    "full": "game.coach.panel = lambda: word\ngame.coach.screen = lambda moves: False\n",
    "guided": "game.coach.panel = lambda: word\n",
    "handfoot": "game.coach.panel = lambda: word\ngame.coach.screen = lambda moves: False\n",
    "room": "game.coach = word\n",
}


def notebook(lang: str, game: str) -> dict[str, object]:
    kind = COACH[game]
    source = (
        "from canasta_teach.i18n import get_translator\n"
        "from canasta_teach.widgets import guided_hand, play_game\n"
        f"tr = get_translator({lang!r})\n"
        + CELLS[game].format(lang=lang)
        + f"\nword = {{'text': tr.ui({COACH_TEXT[kind]!r}, button=tr.ui('button.discard')), "
        f"'kind': {kind!r}, "
        "'actions': [{'id': 'hint', 'label': tr.ui('game.hint'), 'primary': True}]}\n"
        + SAYS[game]
        + "game.render()\n"
        "table"
    )
    cell = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
            "source": source}  # fmt: skip
    return {"cells": [cell], "metadata": {"kernelspec": {"name": "python3",
            "display_name": "Python 3", "language": "python"}}, "nbformat": 4,
            "nbformat_minor": 5}  # fmt: skip


@pytest.fixture(scope="module")
def pages(site_root: Path) -> str:
    """The test's pages, in the served folder (never in the repository)."""
    for lang in LANGUAGES:
        folder = site_root / FOLDER / lang
        folder.mkdir(parents=True, exist_ok=True)
        for game in GAMES:
            (folder / f"{game}.ipynb").write_text(json.dumps(notebook(lang, game)))
    return FOLDER


@pytest.fixture(scope="module")
def chromium(playwright_api: Playwright) -> Iterator[Browser]:
    browser = playwright_api.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
    )
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture
def learner(chromium: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A touch laptop of its own (fresh storage: no saved game comes back); the language the
    learner reads is the page's (the room page asks the storage for it)."""
    lang = request.node.callspec.params["lang"]
    context = chromium.new_context(viewport=LAPTOP, has_touch=True)
    context.set_default_timeout(PAGE_TIMEOUT_MS)
    context.add_init_script(f"try {{ localStorage.setItem('canasta-teach:v1:lang', '{lang}') }}"
                            " catch (e) {}")  # fmt: skip
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


def enabled(root: Locator, action: str) -> Locator:
    """An action button the learner can press now (disabled or aria-disabled: not yet)."""
    return root.locator(
        f".ct-buttons [data-ct-action='{action}']:not([disabled]):not([aria-disabled='true'])"
    )


def answered(root: Locator, press: object) -> None:
    """Press (a function), then wait for the answer (the message's sequence number moves)."""
    message = root.locator(".ct-message")
    seq = message.get_attribute("data-ct-seq") or ""
    press()  # type: ignore[operator]
    expect(message).not_to_have_attribute("data-ct-seq", seq, timeout=STEP_MS)


def select(root: Locator, *tokens: str) -> None:
    for token in tokens:
        root.locator(f".ct-hand [data-ct-card='{token}'][aria-pressed='false']").first.click()


def play_a_turn(root: Locator, game: str) -> None:
    """The learner's first turn, so that the others play and the narration has lines."""
    expect(enabled(root, "draw")).to_have_count(1, timeout=STEP_MS)
    answered(root, enabled(root, "draw").click)
    if game == "guided":  # the coach's plan: six kings, then the 4
        select(root, *["K"] * 6)
        answered(root, enabled(root, "meld").click)
        select(root, "4")
    else:
        root.locator(".ct-hand [data-ct-card]").first.click()
    answered(root, enabled(root, "discard").click)
    # The others have played (and are narrated): the learner's turn again (the guided hand's
    # next step: take the pile).
    expect(enabled(root, "take" if game == "guided" else "draw")).to_have_count(1, timeout=STEP_MS)
    expect(root.locator(".ct-log-line").last).to_be_attached()


#: For each named box: its rectangle, whether it lies inside the viewport, and whether its
#: centre shows the box itself (not another box over it, such as the bar kept in view).
ON_SCREEN = """(root, selectors) => {
  const out = [];
  const w = window.innerWidth, h = window.innerHeight;
  for (const [name, selector] of selectors) {
    const nodes = [...root.querySelectorAll(selector)];
    if (!nodes.length) { out.push(`${name}: missing`); continue; }
    nodes.forEach((node, i) => {
      const r = node.getBoundingClientRect();
      const box = `${name}[${i}] ${Math.round(r.left)},${Math.round(r.top)}-` +
                  `${Math.round(r.right)},${Math.round(r.bottom)}`;
      if (r.width === 0 || r.height === 0) { out.push(`${box} has no size`); return; }
      if (r.top < 0 || r.left < 0 || r.bottom > h || r.right > w) {
        out.push(`${box} is outside the ${w}x${h} viewport`); return;
      }
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!hit || !(node === hit || node.contains(hit))) {
        out.push(`${box} is covered by ${hit ? hit.className : "nothing"}`);
      }
    });
  }
  return out;
}"""

#: Every box that scrolls sideways (the page itself included).
SIDEWAYS = """() => {
  const out = [];
  const doc = document.scrollingElement;
  if (doc.scrollWidth > doc.clientWidth + 1) out.push(`the page: ${doc.scrollWidth}`);
  for (const node of document.querySelectorAll("*")) {
    const style = getComputedStyle(node);
    if (!["auto", "scroll"].includes(style.overflowX)) continue;
    if (node.scrollWidth > node.clientWidth + 1) {
      out.push(`${node.tagName}.${node.className}: ${node.scrollWidth} > ${node.clientWidth}`);
    }
  }
  return out;
}"""

LAPTOP_BOXES = [
    ("pile", ".ct-pile .ct-pile-cards"),
    ("hand card", ".ct-hand [data-ct-card]"),
    ("action button", ".ct-buttons [data-ct-action]"),
    ("latest narration line", ".ct-log-line:last-child"),
    ("message", ".ct-message"),
    ("coach", ".ct-coach"),
]


def assert_on_screen(root: Locator, boxes: list[tuple[str, str]]) -> None:
    assert root.evaluate(ON_SCREEN, boxes) == []


def check_laptop(page: Page, root: Locator, shot: Path) -> None:
    page.set_viewport_size(LAPTOP)
    # The learner scrolls the table into view (the game's top to the top of the screen).
    root.locator(".ct-table").evaluate("t => t.scrollIntoView({block: 'start'})")
    page.screenshot(path=str(shot))
    assert_on_screen(root, LAPTOP_BOXES)


def check_phone(page: Page, root: Locator, action: str, shot: Path) -> None:
    page.set_viewport_size(PHONE)
    root.locator(".ct-table").evaluate("t => t.scrollIntoView({block: 'start'})")
    button = root.locator(f".ct-buttons [data-ct-action='{action}']")
    answered(root, button.tap)
    page.screenshot(path=str(shot))
    assert_on_screen(root, [("message", ".ct-message"), ("coach", ".ct-coach")])
    assert page.evaluate(SIDEWAYS) == []


def open_game(page: Page, voila_url: str, pages: str, lang: str, game: str) -> Locator:
    page.goto(render_url(voila_url, f"{pages}/{lang}/{game}.ipynb"))
    root = page.locator(".ct-root.ct-full")
    if game == "room":
        start = page.locator("[data-ct-game='start']")
        start.wait_for(timeout=PAGE_TIMEOUT_MS)
        # The lobby: no table yet, and the invite in view (folded only once the game starts).
        expect(root.locator(".ct-table")).to_be_hidden()
        expect(root.locator("[data-ct-room-link]")).to_be_visible()
        start.click()
        expect(root.locator("[data-ct-room-link]")).to_be_hidden(timeout=STEP_MS)
    page.wait_for_selector(".ct-full .ct-hand [data-ct-card]", timeout=PAGE_TIMEOUT_MS)
    expect(root).to_have_attribute("lang", lang)
    coach = root.locator(".ct-coach")
    expect(coach).to_have_attribute("data-ct-coach-kind", COACH[game])
    return root


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game", GAMES)
def test_the_game_fits_a_laptop_screen_and_a_tap_is_answered_on_a_phone(
    learner: Page, voila_url: str, pages: str, artifacts: Path, game: str, lang: str
) -> None:
    tr = get_translator(lang)
    page = learner
    root = open_game(page, voila_url, pages, lang, game)
    coach = root.locator(".ct-coach")
    expect(coach).to_have_attribute("role", "status")
    kind_word = tr.ui(f"game.coach.{COACH[game]}")
    expect(coach.locator(".ct-coach-word")).to_have_text(kind_word)
    play_a_turn(root, game)
    check_laptop(page, root, artifacts / f"layout-{game}-{lang}-1366.png")

    if game == "full":
        # Two players: the settings, folded while playing, open on request; a new table size
        # before any move starts a new game at once; the learner folds them again.
        fold = root.locator("[data-ct-fold]")
        expect(fold).to_have_attribute("aria-expanded", "false")
        expect(root.locator("[data-ct-game='players:2']")).to_be_hidden()
        fold.click()
        expect(fold).to_have_attribute("aria-expanded", "true")
        root.locator("[data-ct-game='players:2']").click()  # for the next game
        expect(root.locator(".ct-notice")).to_have_text(tr.ui("game.full.pending"))
        root.locator("[data-ct-game='new']").click()  # asks first: a game is in progress
        answered(root, root.locator("[data-ct-game='confirm_new']").click)
        expect(root.locator(".ct-fold-summary")).to_contain_text(tr.ui("game.full.players.two"))
        fold.click()
        expect(root.locator("[data-ct-game='players:2']")).to_be_hidden()
        play_a_turn(root, game)
        check_laptop(page, root, artifacts / f"layout-full2-{lang}-1366.png")

    # The guided hand's next step is to take the pile with the two 9s: pressed with nothing
    # selected, the refusal says why; the others draw.
    action = "take" if game == "guided" else "draw"
    check_phone(page, root, action, artifacts / f"layout-{game}-{lang}-390.png")
    # The coach's action goes to the game as a panel control: "hint" shows the hint at a
    # full game (the guided hand and a room have no hint: they say so).
    action_button = root.locator("[data-ct-coach-action='hint']")
    expect(action_button).to_have_text(tr.ui("game.hint"))
    if game in ("full", "handfoot"):
        action_button.tap()
        expect(root.locator(".ct-hint")).to_be_visible(timeout=STEP_MS)
    else:
        answered(root, action_button.tap)
        expect(root.locator(".ct-message")).to_have_class("ct-message ct-refusal")
