"""The card table in a real browser: Voilà renders the anywidget, a learner taps and presses.

Notebooks: ``tests/browser/notebooks/widgets/`` (games on the test-only puzzle sets of
``lessons/puzzles/_test/``).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from canasta_teach.i18n import get_translator

from .conftest import PAGE_TIMEOUT_MS, TEST_PREFIX, render_url

pytestmark = pytest.mark.browser

MELD_UR = f"{TEST_PREFIX}/widgets/meld_ur.ipynb"
TAKE_TE = f"{TEST_PREFIX}/widgets/take_te.ipynb"


def hand_card(page: Page, token: str, nth: int = 0) -> Locator:
    return page.locator(f".ct-hand [data-ct-card='{token}']").nth(nth)


def test_build_a_meld_in_urdu(page: Page, voila_url: str, artifacts: Path) -> None:
    ur = get_translator("ur")
    page.goto(render_url(voila_url, MELD_UR))
    page.wait_for_selector("[data-ct-card]", timeout=PAGE_TIMEOUT_MS)
    root = page.locator(".ct-root")
    expect(root).to_have_attribute("dir", "rtl")
    expect(root).to_have_attribute("lang", "ur")
    assert root.evaluate("el => getComputedStyle(el).fontFamily").startswith('"Noto Nastaliq Urdu"')
    # Every card has a name: aria-label and visible text, in Urdu.
    king = hand_card(page, "K")
    expect(king).to_have_attribute("aria-label", ur.card_name("K"))
    expect(king.locator(".ct-card-name")).to_have_text(ur.card_name("K"))
    progress = page.locator(".ct-progress")
    expect(progress).to_have_text(ur.ui("game.progress", solved=0, total=3))

    # An illegal meld: refused, explained, with its rule id; the hand is unchanged.
    hand_card(page, "4", 0).click()
    hand_card(page, "4", 1).click()
    expect(hand_card(page, "4", 0)).to_have_attribute("aria-pressed", "true")
    started = time.perf_counter()
    page.locator("[data-ct-action='meld']").click()
    message = page.locator(".ct-message[role='status']")
    expect(message.locator("[data-ct-rule='C-MELD-1']")).to_be_visible()
    refusal_ms = (time.perf_counter() - started) * 1000
    expect(page.locator(".ct-hand [data-ct-card]")).to_have_count(8)

    # Three kings: solved, the progress moves on.
    page.locator(".ct-clear").click()
    for nth in range(3):
        hand_card(page, "K", nth).click()
    page.locator("[data-ct-action='meld']").click()
    expect(progress).to_have_text(ur.ui("game.progress", solved=1, total=3))
    # A right answer says why it is right.
    expect(message).to_contain_text(ur.ui("game.why.meld", cards=ur.cards(["K", "K", "K"])))
    expect(page.locator(".ct-us [data-ct-meld='K']")).to_be_visible()
    page.screenshot(path=str(artifacts / "table-build-a-meld-ur.png"), full_page=True)
    print(f"click to refusal shown: {refusal_ms:.0f} ms")

    # Next puzzle: judge the proposed meld first.
    page.locator("[data-ct-game='next']").click()
    expect(page.locator(".ct-proposed [data-ct-card]")).to_have_count(3)
    # The proposed cards carry a visible caption, which is also their group's name.
    proposed = page.get_by_role("group", name=ur.ui("game.proposed_label"), exact=True)
    expect(proposed.locator("[data-ct-card]")).to_have_count(3)
    expect(proposed.locator(".ct-proposed-label")).to_have_text(ur.ui("game.proposed_label"))
    expect(proposed.locator(".ct-proposed-label")).to_be_visible()
    page.locator("[data-ct-game='not_legal']").click()
    expect(message.locator("[data-ct-rule='C-MELD-2']")).to_be_visible()
    # Judged: the cards stay beside the new task, captioned with their verdict.
    judged = page.get_by_role("group", name=ur.ui("game.proposed_judged_not_legal"), exact=True)
    expect(judged.locator("[data-ct-card]")).to_have_count(3)
    expect(judged.locator(".ct-proposed-label")).to_be_visible()
    page.screenshot(path=str(artifacts / "table-proposed-judged-ur.png"), full_page=True)


def test_take_the_pile_in_telugu_by_keyboard(page: Page, voila_url: str) -> None:
    te = get_translator("te")
    page.goto(render_url(voila_url, TAKE_TE))
    page.wait_for_selector("[data-ct-card]", timeout=PAGE_TIMEOUT_MS)
    expect(page.locator(".ct-root")).to_have_attribute("lang", "te")
    # Select the two natural 7s and press the button, with the keyboard only.
    for nth in range(2):
        card = hand_card(page, "7", nth)
        card.focus()
        page.keyboard.press("Enter")
        expect(hand_card(page, "7", nth)).to_have_attribute("aria-pressed", "true")
    take = page.locator("[data-ct-action='take']")
    expect(take).to_have_text(te.ui("button.take"))
    take.focus()
    page.keyboard.press("Enter")
    expect(page.locator(".ct-progress")).to_have_text(te.ui("game.progress", solved=1, total=3))
    # The next puzzle cannot be taken: the right reason is a button among the choices.
    page.locator("[data-ct-game='next']").click()
    right = page.locator("[data-ct-game='reason:C-PILE-3']")
    expect(right).to_have_text(te.rule_title("C-PILE-3"))
    right.click()
    expect(page.locator(".ct-progress")).to_have_text(te.ui("game.progress", solved=2, total=3))


def test_selected_card_names_stay_clear_of_the_selection_outline(
    page: Page, voila_url: str, artifacts: Path
) -> None:
    # The Telugu review found "కింగ్" unreadable under a selected card: the blue outline drawn
    # around the card art covered the top of the name's glyphs.  The outline's box (the art's
    # box grown by outline-offset + outline-width) must end above the name's box.
    te = get_translator("te")
    page.goto(render_url(voila_url, TAKE_TE))
    page.wait_for_selector("[data-ct-card]", timeout=PAGE_TIMEOUT_MS)
    cards = page.locator(".ct-hand [data-ct-card]")
    for nth in range(cards.count()):
        cards.nth(nth).click()
    expect(page.locator(".ct-hand .ct-selected")).to_have_count(cards.count())
    boxes = page.evaluate(
        """() => [...document.querySelectorAll('.ct-hand .ct-selected')].map(card => {
            const svg = card.querySelector('.ct-art svg');
            const name = card.querySelector('.ct-card-name');
            const style = getComputedStyle(svg);
            const reach = parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth);
            return {token: card.dataset.ctCard, text: name.textContent,
                    outlineBottom: svg.getBoundingClientRect().bottom + reach,
                    outlineWidth: parseFloat(style.outlineWidth),
                    nameTop: name.getBoundingClientRect().top,
                    nameHeight: name.getBoundingClientRect().height};
        })"""
    )
    assert boxes, "no selected card"
    for box in boxes:
        assert box["outlineWidth"] > 0, box  # the selection is drawn (not only coloured)
        assert box["text"] == te.card_name(box["token"]), box
        assert box["nameHeight"] > 0, box
        assert box["nameTop"] >= box["outlineBottom"], f"outline covers the name: {box}"
    page.screenshot(path=str(artifacts / "table-selected-names-te.png"), full_page=True)


def test_card_corners_stay_on_the_card_right_to_left(page: Page, voila_url: str) -> None:
    # In an rtl page an SVG <text x="6"> inherits direction: rtl and is anchored at its right
    # end, so the corner ranks ran off the card's left edge ("10" nearly vanished).
    page.goto(render_url(voila_url, MELD_UR))
    page.wait_for_selector("[data-ct-card]", timeout=PAGE_TIMEOUT_MS)
    outside = page.evaluate(
        """() => [...document.querySelectorAll('.ct-root .ct-art svg')].flatMap(svg => {
            const card = svg.getBoundingClientRect();
            return [...svg.querySelectorAll('text')].map(t => t.getBoundingClientRect())
              .filter(r => r.width > 0 && (r.left < card.left - 0.5 || r.right > card.right + 0.5))
              .map(r => ({card: [card.left, card.right], text: [r.left, r.right]}));
        })"""
    )
    assert page.locator(".ct-root .ct-art svg text").count() > 0
    assert outside == [], outside


def test_cards_are_drawn_in_their_suits(page: Page, voila_url: str) -> None:
    # The page fills each kind's template with the suit cardart.suit_for gives the card's copy:
    # no mark left unfilled, two copies of a card in different suits, red only on red suits.
    from canasta_teach.widgets.cardart import RED, suit_colour, suit_for

    page.goto(render_url(voila_url, TAKE_TE))
    page.wait_for_selector(".ct-hand [data-ct-card]", timeout=PAGE_TIMEOUT_MS)
    cards = page.locator(".ct-hand [data-ct-card]").evaluate_all(
        "els => els.map(e => [e.dataset.ctCard, e.querySelector('.ct-art').innerHTML])"
    )
    seen: dict[str, int] = {}
    faces: dict[str, set[str]] = {}
    for token, svg in cards:
        assert "%C%" not in svg and "%S%" not in svg, token
        nth = seen.get(token, 0)
        seen[token] = nth + 1
        suit = suit_for(token, nth)
        if suit is not None and token not in ("3R", "3B"):
            assert suit_colour(suit) in svg, (token, suit)
            assert (RED in svg) == (suit in ("H", "D")), (token, suit)
        faces.setdefault(token, set()).add(svg)
    repeated = [t for t, n in seen.items() if n > 1 and t != "JK"]
    assert repeated, "the test hand should hold a card twice"
    for token in repeated:
        assert len(faces[token]) == seen[token], token
