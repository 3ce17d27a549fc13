"""Small faults of the card table the walkthrough and the language reviews saw (issue 19),
measured with bounding boxes in Chromium:

- the narration's numbers from 10 on lost their first digit ("I4." for 14): each number is now
  drawn in its line, and its box lies wholly inside the log's box, in English and Urdu;
- rule ids broke across lines ("C-" / "PILE-4") in narrow feedback boxes and on the score sheet:
  every ``.ct-rule-id`` is one line box, on a laptop and on a phone;
- selecting a card moved the hand about 11px: the other cards, the buttons and what follows
  stay where they were, in a puzzle and in a full game, in every language;
- a selection carried over to the next puzzle (lesson 4, puzzle 2 -> 3, the same hand);
- on a phone the answer to a tap in a lesson puzzle was 400px above the screen: after tapping
  the action button (and a choice at the top) the message box is on screen, uncovered;
- in Urdu the STOP badge covered the black three's corner index, "Clear selection" overlapped
  the raised selected card, and the Meld button's focus ring was cut at the screen's edge.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, Playwright, expect

from canasta_teach.app import CHROMIUM_ARGS
from canasta_teach.i18n import LANGUAGES, get_translator

from .conftest import CHROMIUM, PAGE_TIMEOUT_MS, TEST_PREFIX, render_url

pytestmark = pytest.mark.browser

STEP_MS = 20_000
LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def chromium(playwright_api: Playwright) -> Iterator[Browser]:
    browser = playwright_api.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
    )
    try:
        yield browser
    finally:
        browser.close()


def screen(chromium: Browser, size: dict[str, int], touch: bool = False) -> Page:
    """A fresh browser profile (no saved game, no progress) at ``size``."""
    context = chromium.new_context(viewport=size, has_touch=touch)  # type: ignore[arg-type]
    context.set_default_timeout(PAGE_TIMEOUT_MS)
    return context.new_page()


@pytest.fixture
def laptop(chromium: Browser) -> Iterator[Page]:
    page = screen(chromium, LAPTOP)
    try:
        yield page
    finally:
        page.context.close()


@pytest.fixture
def phone(chromium: Browser) -> Iterator[Page]:
    page = screen(chromium, PHONE, touch=True)
    try:
        yield page
    finally:
        page.context.close()


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
    """Press (a function), then wait for the answer (the message's sequence number moves)."""
    message = root.locator(".ct-message")
    seq = message.get_attribute("data-ct-seq") or ""
    press()
    expect(message).not_to_have_attribute("data-ct-seq", seq, timeout=STEP_MS)


def boxes(root: Locator, selector: str) -> list[list[float]]:
    """The boxes of ``selector`` in the widget, from the widget's own top left corner (a
    click may scroll the page; only a move inside the widget counts)."""
    return root.locator(selector).evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " const o = e.closest('.ct-root').getBoundingClientRect();"
        " return [r.left - o.left, r.top - o.top, r.width, r.height]"
        ".map(v => Math.round(v * 10) / 10); })"
    )


# ---------------------------------------------------------------------- the narration's numbers

#: Each narration line's number box, against the log's own box (its scrolling area).
NUMBERS = """(log) => {
  const area = log.getBoundingClientRect();
  const left = area.left + log.clientLeft, right = left + log.clientWidth;
  return [...log.querySelectorAll('.ct-log-line')].map((line, i) => {
    const n = line.querySelector('.ct-log-n');
    if (!n) return {i, missing: true};
    const r = n.getBoundingClientRect();
    return {i, text: n.textContent, left: r.left, right: r.right, box: [left, right],
            inside: r.width > 0 && r.left >= left - 0.5 && r.right <= right + 0.5
                    && n.scrollWidth <= n.clientWidth + 1,
            marker: getComputedStyle(line).listStyleType};
  });
}"""


def play_turn(root: Locator) -> None:
    draw = root.locator(".ct-buttons [data-ct-action='draw']:not([aria-disabled='true'])")
    expect(draw).to_have_count(1, timeout=STEP_MS)
    answered(root, draw.click)
    root.locator(".ct-hand [data-ct-card]").first.click()
    answered(root, root.locator("[data-ct-action='discard']").click)
    expect(draw).to_have_count(1, timeout=STEP_MS)


@pytest.mark.parametrize(("lang", "notebook"), [("en", "fullgame_en_4p"), ("ur", "fullgame_ur_2p")])
def test_narration_numbers_are_whole_from_ten_on(
    laptop: Page, voila_url: str, artifacts: Path, lang: str, notebook: str
) -> None:
    page = laptop
    page.goto(render_url(voila_url, f"{TEST_PREFIX}/widgets/{notebook}.ipynb"))
    root = page.locator(".ct-root.ct-full")
    lines = root.locator(".ct-log-line")
    for _ in range(12):
        if lines.count() >= 12:
            break
        play_turn(root)
    assert lines.count() >= 12
    found = root.locator(".ct-log").evaluate(NUMBERS)
    stop = "\u06d4" if lang == "ur" else "."
    assert [n["text"] for n in found] == [f"{i + 1}{stop}" for i in range(len(found))]
    assert [n for n in found if not n["inside"] or n["marker"] != "none"] == []
    page.screenshot(path=str(artifacts / f"details-narration-{lang}.png"))


# ---------------------------------------------------------------------- rule ids

#: Every rule id on the page and the number of line boxes it is drawn in.
RULE_IDS = """() => [...document.querySelectorAll('.ct-root .ct-rule-id')]
  .filter(e => e.getClientRects().length > 0)
  .map(e => ({text: e.textContent, lines: e.getClientRects().length}))"""


def assert_rule_ids_whole(page: Page) -> None:
    found = page.evaluate(RULE_IDS)
    assert found, "no rule id on the page"
    assert [f for f in found if f["lines"] != 1] == []


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_rule_ids_never_break(
    chromium: Browser, voila_url: str, artifacts: Path, size: str
) -> None:
    page = screen(chromium, LAPTOP if size == "laptop" else PHONE, touch=size == "phone")
    try:
        # Lesson 2, puzzle 4's feedback (a refusal with its rule) in its narrow box.
        root = open_lesson(page, voila_url, "en/02-deal-and-turn.ipynb", puzzle=4)
        answered(root, root.locator("[data-ct-action='take']").click)
        expect(root.locator(".ct-message .ct-rule-id")).to_have_count(1)
        assert_rule_ids_whole(page)
        page.screenshot(path=str(artifacts / f"details-rule-id-{size}.png"))
        # The score sheet, checked: a rule id on every line ("(C-CAN-1)").
        root = open_lesson(page, voila_url, "en/08-scoring.ipynb", puzzle=2)
        for entry in root.locator("input[data-ct-line]").all():
            entry.fill("1")
        answered(root, root.locator("[data-ct-game='check']").click)
        expect(root.locator(".ct-why .ct-rule-id").first).to_be_visible()
        assert_rule_ids_whole(page)
        page.screenshot(path=str(artifacts / f"details-sheet-{size}.png"), full_page=True)
    finally:
        page.context.close()


# ---------------------------------------------------------------------- selecting a card

#: The boxes that must not move when a card is selected: every card of the hand but the
#: selected one, the action buttons, the message, and the box after the hand.
STILL = (".ct-hand [data-ct-card][aria-pressed='false']", ".ct-buttons [data-ct-action]",
         ".ct-hand-head", ".ct-message")  # fmt: skip


def still_boxes(root: Locator) -> dict[str, list[list[float]]]:
    return {selector: boxes(root, selector) for selector in STILL}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_selecting_a_card_moves_nothing_else(laptop: Page, voila_url: str, lang: str) -> None:
    page = laptop
    # A puzzle (lesson 3), then a full game: the first card selected, then a second.
    root = open_lesson(page, voila_url, f"{lang}/03-melds-canastas.ipynb")
    cards = root.locator(".ct-hand [data-ct-card]")
    for nth in (0, 3):
        before = still_boxes(root)
        card = cards.nth(nth)
        card.click()
        expect(card).to_have_attribute("aria-pressed", "true")
        expect(root.locator(".ct-clear")).to_be_visible()
        after = still_boxes(root)
        for selector in STILL:
            if selector.startswith(".ct-hand [data-ct-card]"):
                # The card just selected left the list; every other card is where it was.
                assert [b for b in after[selector] if b not in before[selector]] == [], selector
            else:
                assert after[selector] == before[selector], selector


def test_selecting_a_card_in_a_full_game_moves_nothing_else(laptop: Page, voila_url: str) -> None:
    page = laptop
    page.goto(render_url(voila_url, f"{TEST_PREFIX}/widgets/fullgame_en_4p.ipynb"))
    root = page.locator(".ct-root.ct-full")
    draw = root.locator(".ct-buttons [data-ct-action='draw']:not([aria-disabled='true'])")
    expect(draw).to_have_count(1, timeout=PAGE_TIMEOUT_MS)
    answered(root, draw.click)
    before = still_boxes(root)
    card = root.locator(".ct-hand [data-ct-card]").first
    card.click()
    expect(card).to_have_attribute("aria-pressed", "true")
    after = still_boxes(root)
    assert [b for b in after[STILL[0]] if b not in before[STILL[0]]] == []
    for selector in STILL[1:]:
        assert after[selector] == before[selector], selector


def test_a_selection_is_cleared_by_the_next_puzzle(laptop: Page, voila_url: str) -> None:
    # Lesson 4: puzzles 2 and 3 deal the very same hand.
    page = laptop
    tr = get_translator("en")
    root = open_lesson(page, voila_url, "en/04-threes.ipynb", puzzle=2)
    hand = root.locator(".ct-hand [data-ct-card]")
    tokens = hand.evaluate_all("els => els.map(e => e.dataset.ctCard)")
    for nth in (0, 1):
        hand.nth(nth).click()
    expect(root.locator(".ct-hand [aria-pressed='true']")).to_have_count(2)
    root.locator("[data-ct-game='next']").click()
    expect(root.locator(".ct-puzzle-number")).to_contain_text("3", timeout=STEP_MS)
    assert hand.evaluate_all("els => els.map(e => e.dataset.ctCard)") == tokens
    expect(root.locator(".ct-hand [aria-pressed='true']")).to_have_count(0)
    expect(root.locator(".ct-selected-count")).to_have_text(tr.ui("table.selected", count=0))
    # Start again clears it too.
    hand.nth(0).click()
    expect(root.locator(".ct-hand [aria-pressed='true']")).to_have_count(1)
    root.locator("[data-ct-game='retry']").click()
    expect(root.locator(".ct-hand [aria-pressed='true']")).to_have_count(0, timeout=STEP_MS)


# ---------------------------------------------------------------------- a phone

#: Whether the box is wholly on screen and its centre shows itself (nothing over it).
SEEN = """(el) => {
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return {box: [r.left, r.top, r.right, r.bottom], height: r.height,
          inside: r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth,
          shown: !!hit && (hit === el || el.contains(hit))};
}"""


def assert_seen(box: Locator) -> None:
    seen = box.evaluate(SEEN)
    assert seen["height"] > 0 and seen["inside"] and seen["shown"], seen


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_on_a_phone_the_answer_to_a_tap_is_on_screen(
    phone: Page, voila_url: str, artifacts: Path, lang: str
) -> None:
    page = phone
    # Lesson 5, puzzle 2: the learner scrolls to the hand and taps Pick up pile.
    root = open_lesson(page, voila_url, f"{lang}/05-discard-pile.ipynb", puzzle=2)
    root.locator(".ct-hand").evaluate("h => h.scrollIntoView({block: 'center'})")
    take = root.locator("[data-ct-action='take']")
    assert_seen(take)
    answered(root, take.tap)
    message = root.locator(".ct-message")
    expect(message.locator(".ct-message-text")).not_to_be_empty()
    assert_seen(message)
    assert_seen(take)  # the buttons stay in view with it
    page.screenshot(path=str(artifacts / f"details-phone-tap-{lang}.png"))
    # A choice at the top of the game (the rule that stops the pickup): its answer too.
    choice = root.locator(".ct-choices [data-ct-game^='reason:']").first
    choice.evaluate("c => c.scrollIntoView({block: 'start'})")
    answered(root, choice.tap)
    assert_seen(message)
    page.screenshot(path=str(artifacts / f"details-phone-choice-{lang}.png"))


# ---------------------------------------------------------------------- Urdu


def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


#: The STOP badge's box and the boxes of the pile's top card's corner indices.
STOP = """(pile) => {
  const box = (r) => [r.left, r.top, r.right, r.bottom];
  const svg = pile.querySelector('.ct-pile-cards .ct-art svg');
  return {stop: box(pile.querySelector('.ct-stop').getBoundingClientRect()),
          indices: [...svg.querySelectorAll('text')].map(t => t.getBoundingClientRect())
                   .filter(r => r.width > 0).map(box)};
}"""

#: The focus ring's box (the button's box grown by outline offset and width), and every box
#: around it that clips what overflows it (its padding box, grown by a "clip" margin).
RING = """(button) => {
  button.focus();
  const s = getComputedStyle(button);
  const reach = parseFloat(s.outlineOffset) + parseFloat(s.outlineWidth);
  const r = button.getBoundingClientRect();
  const ring = [r.left - reach, r.top - reach, r.right + reach, r.bottom + reach];
  const cut = [];
  if (ring[0] < 0 || ring[2] > innerWidth) cut.push({by: 'the screen', ring});
  for (let e = button.parentElement; e; e = e.parentElement) {
    const st = getComputedStyle(e);
    if (st.overflowX === 'visible') continue;
    const b = e.getBoundingClientRect();
    const margin = st.overflowX === 'clip' ? parseFloat(st.overflowClipMargin) || 0 : 0;
    const left = b.left + e.clientLeft - margin;
    const right = b.left + e.clientLeft + e.clientWidth + margin;
    if (ring[0] < left - 0.5 || ring[2] > right + 0.5) {
      cut.push({by: e.className, ring, left, right});
    }
  }
  return {reach, cut};
}"""


@pytest.mark.parametrize("lang", ["ur", "en"])
def test_urdu_stop_badge_clear_selection_and_focus_rings(
    chromium: Browser, voila_url: str, artifacts: Path, lang: str
) -> None:
    for size in (LAPTOP, PHONE):
        page = screen(chromium, size, touch=size is PHONE)
        try:
            # Lesson 5, puzzle 1: a black three on the pile, with its STOP badge.
            root = open_lesson(page, voila_url, f"{lang}/05-discard-pile.ipynb")
            found = root.locator(".ct-pile").evaluate(STOP)
            assert len(found["indices"]) >= 2, found
            assert [i for i in found["indices"] if overlaps(found["stop"], i)] == [], found
            # Lesson 3: a raised selected card stays clear of "Clear selection".
            root = open_lesson(page, voila_url, f"{lang}/03-melds-canastas.ipynb")
            card = root.locator(".ct-hand [data-ct-card]").first
            card.click()
            expect(card).to_have_attribute("aria-pressed", "true")
            clear = root.locator(".ct-clear").bounding_box()
            art = card.locator(".ct-art").bounding_box()
            assert clear is not None and art is not None
            assert clear["y"] + clear["height"] <= art["y"] + 0.5, (clear, art)
            # Every action button's focus ring is whole (Meld is at the edge in Urdu).
            buttons = root.locator(".ct-buttons [data-ct-action]")
            for nth in range(buttons.count()):
                ring = buttons.nth(nth).evaluate(RING)
                assert ring["reach"] > 0 and ring["cut"] == [], ring
            tag = "phone" if size is PHONE else "laptop"
            page.screenshot(path=str(artifacts / f"details-{lang}-{tag}.png"))
        finally:
            page.context.close()
