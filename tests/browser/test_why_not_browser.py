"""Why not?  In a real browser, a button no move uses now looks unavailable (aria-disabled, a
dashed border, its text still readable) yet stays in the Tab order; pressing it (Enter, Space or
a click) shows the rule that stops it, with the rule id.

- The full game (two players): Discard before the draw, reached with Tab and pressed with
  Enter; Draw after the draw, pressed with Space; Add to meld with no meld, clicked; and a
  button pressed while the computer's moves are replayed ends the replay and plays.
- A lesson puzzle (lesson 2, "Your turn"): Discard before the draw, reached with Tab.
- Hand and Foot: Lay down before the draw and with nothing set aside.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from canasta_teach.engine import Reason
from canasta_teach.i18n import get_translator

from .conftest import PAGE_TIMEOUT_MS, TEST_PREFIX, render_url

pytestmark = pytest.mark.browser

FULL_2P = f"{TEST_PREFIX}/widgets/fullgame_2p.ipynb"
FULL_HF = f"{TEST_PREFIX}/widgets/fullgame_handfoot.ipynb"
LESSON_2 = "en/02-deal-and-turn.ipynb"
#: One press and its answer: a kernel round trip on a busy machine, with room to spare.
STEP_MS = 20_000
#: Tab stops from the Draw button to another button of the row: a handful; more is a failure.
MAX_TABS = 12
UNAVAILABLE = re.compile(r"\bct-unavailable\b")


def tab_to(page: Page, start: Locator, target: Locator) -> None:
    """Focus ``start``, then press Tab until ``target`` has the focus (it must get it)."""
    start.focus()
    key = target.get_attribute("data-ct-focus")
    for _ in range(MAX_TABS):
        if page.evaluate("() => document.activeElement.getAttribute('data-ct-focus')") == key:
            return
        page.keyboard.press("Tab")
    expect(target).to_be_focused()  # fails with Playwright's own description


def pressed_with(page: Page, root: Locator, key: str) -> Locator:
    """Press ``key`` on the focused element; the message area once its answer has come."""
    message = root.locator(".ct-message")
    seq = message.get_attribute("data-ct-seq") or ""
    page.keyboard.press(key)
    expect(message).not_to_have_attribute("data-ct-seq", seq, timeout=STEP_MS)
    return message


def expect_rule(message: Locator, text: str, rule: str) -> None:
    expect(message).to_have_class(re.compile(r"\bct-refusal\b"))
    expect(message.locator(".ct-message-text")).to_have_text(text)
    expect(message.locator(f"[data-ct-rule='{rule}'] .ct-rule-id")).to_have_text(rule)


def luminance(css: str) -> float:
    r, g, b = (int(v) / 255 for v in re.findall(r"\d+", css)[:3])
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def expect_unavailable_look(button: Locator) -> None:
    """aria-disabled, not disabled; a dashed border and the not-allowed cursor (not colour
    alone); its text at WCAG AA contrast (4.5:1) against its own background."""
    expect(button).to_have_attribute("aria-disabled", "true")
    expect(button).to_have_class(UNAVAILABLE)
    assert button.get_attribute("disabled") is None
    style = button.evaluate(
        "el => { const s = getComputedStyle(el); return {border: s.borderTopStyle,"
        " cursor: s.cursor, color: s.color, background: s.backgroundColor,"
        " opacity: s.opacity}; }"
    )
    assert style["border"] == "dashed" and style["cursor"] == "not-allowed", style
    assert float(style["opacity"]) == 1.0, style
    light, dark = sorted((luminance(style["color"]), luminance(style["background"])))
    assert (dark + 0.05) / (light + 0.05) >= 4.5, style


def test_full_game_greyed_out_buttons_say_why(page: Page, voila_url: str, artifacts: Path) -> None:
    en = get_translator("en")
    page.goto(render_url(voila_url, FULL_2P))
    page.wait_for_selector(".ct-full [data-ct-card]", timeout=PAGE_TIMEOUT_MS)
    root = page.locator(".ct-root")
    hand = root.locator(".ct-hand [data-ct-card]")
    draw = root.locator("[data-ct-action='draw']")
    discard = root.locator("[data-ct-action='discard']")
    add = root.locator("[data-ct-action='add']")
    expect(draw).to_be_enabled(timeout=STEP_MS)
    expect_unavailable_look(discard)
    root.locator(".ct-buttons").screenshot(path=str(artifacts / "why-not-buttons.png"))
    cards = hand.count()

    # Discard before the draw: reached with Tab, pressed with Enter; nothing moves.
    tab_to(page, draw, discard)
    message = pressed_with(page, root, "Enter")
    expect_rule(message, en.reason(Reason("draw_first", "C-TURN-1")), "C-TURN-1")
    expect(discard).to_be_focused()
    expect(hand).to_have_count(cards)

    # After the draw (two cards with two players), Draw again: Space.
    draw.click()
    expect(hand).to_have_count(cards + 2, timeout=STEP_MS)
    expect(draw).to_have_attribute("aria-disabled", "true")
    draw.focus()
    message = pressed_with(page, root, "Space")
    expect_rule(message, en.reason(Reason("already_drew", "C-TURN-1")), "C-TURN-1")

    # Add to meld with no meld on the table: a click (Playwright waits for an enabled button
    # unless forced: the page itself takes the click).
    expect(root.locator(".ct-us [data-ct-meld]")).to_have_count(0)
    seq = message.get_attribute("data-ct-seq") or ""
    add.click(force=True)
    expect(message).not_to_have_attribute("data-ct-seq", seq, timeout=STEP_MS)
    expect_rule(message, en.ui("msg.no_meld_to_add"), "C-MELD-3")
    expect(hand).to_have_count(cards + 2)

    # The computer's moves replayed slowly: pressing Draw during the replay ends it and draws.
    pace = root.locator("[data-ct-game='pace:slow']")
    fold = root.locator("[data-ct-fold]")  # the settings are folded while a hand is played
    if fold.get_attribute("aria-expanded") == "false":
        fold.click()
    pace.click()
    expect(pace).to_have_attribute("aria-pressed", "true", timeout=STEP_MS)
    hand.first.click()
    expect(discard).to_be_enabled(timeout=STEP_MS)
    discard.click()
    narration = root.locator(".ct-narration")
    pressed = page.wait_for_function(
        """() => {
            const r = document.querySelector('.ct-root');
            const n = r.querySelector('.ct-narration');
            if (!n || n.getAttribute('data-ct-playing') !== 'true') return false;
            const b = r.querySelector("[data-ct-action='draw']");
            if (b.getAttribute('aria-disabled') !== 'true') return 'not greyed out';
            b.click();  // in the same task as the check: the replay is still running
            return n.getAttribute('data-ct-playing');
        }""",
        timeout=STEP_MS,
    ).json_value()
    assert pressed == "false", pressed  # the click ended the replay at once
    expect(narration).to_have_attribute("data-ct-playing", "false")
    success = re.compile(r"\bct-success\b")
    expect(root.locator(".ct-message")).to_have_class(success, timeout=STEP_MS)
    expect(root.locator(".ct-message .ct-message-text")).to_contain_text(
        en.ui("msg.drew", cards="").rstrip(".").strip()
    )
    expect(draw).to_have_attribute("aria-disabled", "true")  # drawn: the meld phase now


def test_lesson_puzzle_discard_before_the_draw_says_why(page: Page, voila_url: str) -> None:
    """Lesson 2 promises that a move out of order "is refused, and the game tells you why"."""
    en = get_translator("en")
    page.goto(render_url(voila_url, LESSON_2))
    page.wait_for_selector(".ct-puzzle [data-ct-card]", timeout=PAGE_TIMEOUT_MS)
    root = page.locator(".ct-root").first
    draw = root.locator("[data-ct-action='draw']")
    discard = root.locator("[data-ct-action='discard']")
    expect(draw).to_be_enabled(timeout=STEP_MS)
    expect_unavailable_look(discard)
    # The game panel's Previous (first puzzle) is unavailable too, and answers as well.
    previous = root.locator("[data-ct-game='previous']")
    expect_unavailable_look(previous)
    tab_to(page, draw, discard)
    message = pressed_with(page, root, "Enter")
    expect_rule(message, en.reason(Reason("draw_first", "C-TURN-1")), "C-TURN-1")
    expect(root.locator(".ct-puzzle-number")).to_contain_text("1")
    previous.focus()
    message = pressed_with(page, root, "Enter")
    expect(message.locator(".ct-message-text")).to_have_text(en.ui("msg.first_puzzle"))


@pytest.mark.rule("H-MIN-1")
def test_hand_and_foot_lay_down_says_why(page: Page, voila_url: str) -> None:
    en = get_translator("en")
    page.goto(render_url(voila_url, FULL_HF))
    page.wait_for_selector(".ct-full [data-ct-card]", timeout=PAGE_TIMEOUT_MS)
    root = page.locator(".ct-root")
    draw = root.locator("[data-ct-action='draw']")
    lay_down = root.locator("[data-ct-action='lay_down']")
    expect(draw).to_be_enabled(timeout=STEP_MS)
    expect_unavailable_look(lay_down)
    # Before the draw: the turn starts with a draw (H-TURN-1).
    tab_to(page, draw, lay_down)
    message = pressed_with(page, root, "Enter")
    expect_rule(message, en.reason(Reason("draw_first", "H-TURN-1")), "H-TURN-1")
    # After it, nothing is set aside yet (H-MIN-1: round 1 needs 50).
    draw.click()
    expect(draw).to_have_attribute("aria-disabled", "true", timeout=STEP_MS)
    lay_down.focus()
    message = pressed_with(page, root, "Space")
    expect_rule(
        message, en.reason(Reason("nothing_set_aside", "H-MIN-1", {"needed": 50})), "H-MIN-1"
    )
