"""The lessons' card table for learners who use a screen reader or a keyboard, in Chromium.

On the lesson 1 and lesson 2 pages of every language (one page load each), the names are the
ones Chromium's accessibility tree computes (what a screen reader announces), read over the
DevTools protocol:

- every card (``[data-ct-card]``: in the hand, in melds, on the pile, in a proposed meld) has
  a name in the page's language and script, in words even for a number card ("Seven", ستا);
- every button has a name (table and game buttons: in the page's language);
- the message area is a live status region;
- a card's selection is exposed without colour (a pressed toggle button, and the count of
  selected cards in words);
- a black three on the pile (lesson 2, puzzle 1) says STOP in text; a frozen pile (lesson 2,
  puzzle 4) says frozen; a canasta says which kind (lesson 2, puzzle 8; lesson 1, puzzle 8
  after melding seven aces by keyboard);
- Tab reaches a card of the hand from the top of the page; Space and Enter toggle it and the
  focus stays on it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import CDPSession, Page, expect

from canasta_teach.engine.cards import TOKENS
from canasta_teach.i18n import LANGUAGES, get_translator
from canasta_teach.i18n.translator import Translator
from canasta_teach.widgets.puzzles import load_set

from .conftest import PAGE_TIMEOUT_MS, REPO_ROOT, render_url

pytestmark = pytest.mark.browser

PUZZLES = REPO_ROOT / "lessons" / "puzzles"
LESSON_1 = "03-melds-canastas.ipynb"
LESSON_2 = "05-discard-pile.ipynb"
#: A game click needs one kernel round trip.
CLICK_TIMEOUT_MS = 15_000
#: Tab stops between the top of the page and the hand: the lesson's links, the game's and the
#: table's buttons.  Far more than a lesson page has; a card never reached fails the test.
MAX_TABS = 80
SCRIPT_RANGES = {
    "en": [(0x0041, 0x005A), (0x0061, 0x007A), (0x00C0, 0x024F)],  # Latin
    "ur": [(0x0600, 0x06FF), (0x0750, 0x077F), (0xFB50, 0xFDFF), (0xFE70, 0xFEFF)],  # Arabic
    "hi": [(0x0900, 0x097F)],  # Devanagari
    "te": [(0x0C00, 0x0C7F)],  # Telugu
}


def assert_words_of(text: str, lang: str, what: str) -> None:
    """``text`` has words (letters, not only digits), nearly all in ``lang``'s script."""
    letters = [ch for ch in text if unicodedata.category(ch)[0] in "LM"]
    assert len(letters) >= 2, f"{what}: no words in {text!r}"
    inside = sum(1 for ch in letters if any(lo <= ord(ch) <= hi for lo, hi in SCRIPT_RANGES[lang]))
    assert inside / len(letters) >= 0.8, f"{what}: {text!r} is not in {lang}'s script"


# ---------------------------------------------------------------------- the accessibility tree


@dataclass(frozen=True)
class AxNode:
    """One element as assistive technology sees it."""

    attributes: dict[str, str]
    role: str
    name: str
    ignored: bool
    properties: dict[str, Any]


class AxTree:
    """Chromium's computed roles, names and states, over the DevTools protocol."""

    def __init__(self, page: Page) -> None:
        self.cdp: CDPSession = page.context.new_cdp_session(page)

    def nodes(self, selector: str) -> list[AxNode]:
        # A fresh document each time: the widget redraws, and old node ids go stale.
        root = self.cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        ids = self.cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})
        found = []
        for node_id in ids["nodeIds"]:
            flat = self.cdp.send("DOM.getAttributes", {"nodeId": node_id})["attributes"]
            tree = self.cdp.send(
                "Accessibility.getPartialAXTree", {"nodeId": node_id, "fetchRelatives": False}
            )["nodes"]
            ax: dict[str, Any] = tree[0] if tree else {"ignored": True}
            found.append(
                AxNode(
                    attributes=dict(zip(flat[::2], flat[1::2], strict=True)),
                    role=ax.get("role", {}).get("value", ""),
                    name=(ax.get("name") or {}).get("value", ""),
                    ignored=bool(ax.get("ignored")),
                    properties={
                        p["name"]: p.get("value", {}).get("value") for p in ax.get("properties", [])
                    },
                )
            )
        return found

    def one(self, selector: str) -> AxNode:
        nodes = self.nodes(selector)
        assert len(nodes) == 1, f"{len(nodes)} elements match {selector}"
        return nodes[0]


# ---------------------------------------------------------------------- page checks


def check_cards_and_buttons(ax: AxTree, tr: Translator, lang: str) -> None:
    cards = ax.nodes("[data-ct-card]")
    assert len(cards) >= 10, "the table shows too few cards"
    spoken = {token: tr.card_name(token) for token in TOKENS}
    for card in cards:
        token = card.attributes["data-ct-card"]
        what = f"card {token}"
        assert not card.ignored, f"{what} is hidden from screen readers"
        assert card.name.strip(), f"{what} has no accessible name"
        assert_words_of(card.name, lang, what)
        if any(ch.isalpha() for ch in spoken[token]):
            # A name with words is the card's own name, as the lesson text spells it.
            assert card.name.casefold() == spoken[token].casefold(), (card.name, spoken[token])
        else:  # written in digits: the language's word for the number
            assert card.name.casefold() == tr.count_words(int(token)).casefold(), card.name
    hand = [c for c in cards if "ct-in-hand" in c.attributes.get("class", "")]
    assert hand, "no card in the hand"
    for card in hand:
        # Selection is a state a screen reader reads, not only a colour or a lift.
        assert card.role == "button" and card.properties.get("pressed") in ("true", "false")
    buttons = [b for b in ax.nodes("button") if not b.ignored]
    assert buttons
    for button in buttons:
        what = f"button {button.attributes}"
        assert button.name.strip(), f"{what} has no accessible name"
    for button in ax.nodes(".ct-root button"):
        if not button.ignored:
            assert_words_of(button.name, lang, f"button {button.attributes}")


def check_message_area(page: Page, ax: AxTree) -> None:
    message = page.locator(".ct-message")
    expect(message).to_have_count(1)
    expect(message).to_have_attribute("role", "status")
    assert message.get_attribute("aria-live") in ("polite", "assertive")
    node = ax.one(".ct-message")
    assert node.role == "status" and node.properties.get("live") in ("polite", "assertive")


def check_keyboard_selection(page: Page, ax: AxTree, tr: Translator, lang: str) -> None:
    """Tab from the top of the page reaches a card; Space selects it, Enter unselects it."""
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        if page.evaluate("() => !!document.activeElement?.matches('.ct-hand [data-ct-card]')"):
            break
    else:
        pytest.fail(f"{MAX_TABS} presses of Tab never reached a card of the hand")
    key = page.evaluate("() => document.activeElement.getAttribute('data-ct-focus')")
    card = page.locator(f"[data-ct-focus='{key}']")
    count = page.locator(".ct-selected-count")
    template = tr.ui("table.selected", count="{count}")
    for press, pressed, selected in (("Space", "true", 1), ("Enter", "false", 0)):
        page.keyboard.press(press)
        expect(card).to_have_attribute("aria-pressed", pressed)
        expect(card).to_be_focused()  # redrawn, and the focus kept on the same card
        assert ax.one(f"[data-ct-focus='{key}']").properties.get("pressed") == pressed
        expect(count).to_have_text(template.replace("{count}", str(selected)))
    assert_words_of(count.inner_text(), lang, "the count of selected cards")


def open_lesson(page: Page, voila_url: str, lang: str, notebook: str) -> None:
    response = page.goto(render_url(voila_url, f"{lang}/{notebook}"))
    assert response is not None and response.status == 200
    expect(page.locator(".ct-hand [data-ct-card]").first).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    expect(page.locator(".ct-root")).to_have_attribute("lang", lang)


def go_to_puzzle(page: Page, tr: Translator, number: int, total: int) -> None:
    """Press the game's Next until puzzle ``number`` (1-based) shows, one puzzle a press."""
    shown = page.locator(".ct-puzzle-number")
    titles = [tr.ui("game.puzzle_number", number=n, total=total) for n in range(1, total + 1)]
    current = titles.index(shown.inner_text()) + 1
    for n in range(current + 1, number + 1):
        page.locator("[data-ct-game='next']").click()
        expect(shown).to_have_text(titles[n - 1], timeout=CLICK_TIMEOUT_MS)


def canasta_meld(ax: AxTree, page: Page, rank: str, label: str) -> None:
    """The team's meld of ``rank`` says which kind of canasta it is, to eyes and ears."""
    meld = page.locator(f".ct-us [data-ct-meld='{rank}']")
    expect(meld).to_contain_text(label, timeout=CLICK_TIMEOUT_MS)
    assert label in ax.one(f".ct-us [data-ct-meld='{rank}']").name


@pytest.fixture
def lesson_page(page: Page) -> Iterator[Page]:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    assert errors == [], f"script errors on {page.url}: {errors}"


# ---------------------------------------------------------------------- tests


@pytest.mark.parametrize("lang", LANGUAGES)
def test_lesson_1_by_screen_reader_and_keyboard(
    lesson_page: Page, voila_url: str, lang: str
) -> None:
    page = lesson_page
    tr = get_translator(lang)
    pset = load_set(PUZZLES / "build-a-meld")
    open_lesson(page, voila_url, lang, LESSON_1)
    ax = AxTree(page)
    check_cards_and_buttons(ax, tr, lang)
    check_message_area(page, ax)
    check_keyboard_selection(page, ax, tr, lang)

    # The last puzzle: seven aces, melded by keyboard alone, are a natural canasta.
    last = len(pset.puzzles)
    assert pset.puzzles[-1].name == "08-natural-canasta.txt"
    go_to_puzzle(page, tr, last, last)
    aces = page.locator(".ct-hand [data-ct-card='A']")
    expect(aces).to_have_count(7)
    for nth in range(7):
        aces.nth(nth).focus()
        page.keyboard.press("Space")
        expect(aces.nth(nth)).to_have_attribute("aria-pressed", "true")
    page.locator("[data-ct-action='meld']").focus()
    page.keyboard.press("Enter")
    expect(page.locator(".ct-message.ct-success")).to_be_visible(timeout=CLICK_TIMEOUT_MS)
    canasta_meld(ax, page, "A", tr.ui("table.canasta_natural"))
    check_cards_and_buttons(ax, tr, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_lesson_2_by_screen_reader_and_keyboard(
    lesson_page: Page, voila_url: str, lang: str
) -> None:
    page = lesson_page
    tr = get_translator(lang)
    pset = load_set(PUZZLES / "take-the-pile")
    total = len(pset.puzzles)
    open_lesson(page, voila_url, lang, LESSON_2)
    ax = AxTree(page)
    check_cards_and_buttons(ax, tr, lang)
    check_message_area(page, ax)

    # Puzzle 1: a black three on top. STOP is text, and the top card is named.
    stop_state = pset.puzzles[0].state()
    assert stop_state.pile_top is not None and TOKENS[stop_state.pile_top] == "3B"
    pile = page.locator("[data-ct-pile]")
    expect(pile).to_have_attribute("data-ct-pile", "3B")
    stop_word = tr.ui("table.stop")
    expect(pile).to_contain_text(stop_word)
    assert ax.one("[data-ct-pile] .ct-stop").name == stop_word
    assert (
        ax.one("[data-ct-pile] [data-ct-card='3B']").name.casefold()
        == tr.card_name("3B").casefold()
    )
    check_keyboard_selection(page, ax, tr, lang)

    # Puzzle 4: a joker in the pile freezes it; the pile says so in words.
    frozen_index = next(i for i, p in enumerate(pset.puzzles) if p.state().frozen_by(0))
    frozen = pset.puzzles[frozen_index].state().frozen_by(0)
    go_to_puzzle(page, tr, frozen_index + 1, total)
    assert frozen
    # In this quiz the label says "Frozen" and no more: what takes a frozen pile is the question.
    expect(pile).to_contain_text(tr.ui("table.frozen"))
    expect(pile.locator(".ct-frozen-label")).to_have_text(tr.ui("table.frozen"))
    check_cards_and_buttons(ax, tr, lang)

    # A canasta already on the table (the last puzzle: seven kings) names its kind.
    canasta_index = next(
        i for i, p in enumerate(pset.puzzles) if p.state().canastas(0) and i > frozen_index
    )
    go_to_puzzle(page, tr, canasta_index + 1, total)
    canasta_meld(ax, page, "K", tr.ui("table.canasta_natural"))
    check_cards_and_buttons(ax, tr, lang)
