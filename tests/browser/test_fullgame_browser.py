"""The full game and the guided first hand in a real browser (Voilà + Chromium), by clicking.

- A two-player hand against the easy computer player, played to its end: the learner draws and
  throws away the first card of the hand each turn, the computer's turns are narrated, and the
  hand ends with its score line by line and a row on the score sheet.
  Our own moves are narrated, and every player's leftover cards are shown face up, each hand
  named in words for a screen reader.
- The guided first hand of lesson 11, every step as the coach asks, to its score.
- A reload brings back the game and its narration.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from canasta_teach.i18n import get_translator
from canasta_teach.widgets.guided import COACHED

from .conftest import PAGE_TIMEOUT_MS, TEST_PREFIX, render_url

pytestmark = pytest.mark.browser

FULL_2P = f"{TEST_PREFIX}/widgets/fullgame_2p.ipynb"
LESSON = "en/11-full-game.ipynb"
#: One click and its answer: a kernel round trip on a busy machine, with room to spare.
STEP_MS = 20_000


def test_a_two_player_hand_against_the_easy_player_to_its_end(
    page: Page, voila_url: str, artifacts: Path
) -> None:
    en = get_translator("en")
    page.goto(render_url(voila_url, FULL_2P))
    page.wait_for_selector(".ct-full [data-ct-card]", timeout=PAGE_TIMEOUT_MS)
    root = page.locator(".ct-root")
    draw = root.locator("[data-ct-action='draw']")
    discard = root.locator("[data-ct-action='discard']")
    message = root.locator(".ct-message")
    expect(root.locator(".ct-game-title")).to_have_text(en.ui("game.full.title"))
    expect(draw).to_have_text(en.ui("button.draw_two"))
    # The chosen settings are marked in words, not only in colour.
    expect(root.locator("[data-ct-game='level:easy']")).to_have_attribute("aria-pressed", "true")
    expect(root.locator("[data-ct-game='players:2']")).to_have_attribute("aria-pressed", "true")
    next_hand = root.locator("[data-ct-game='next_hand']")
    turns = warned = 0
    while not next_hand.count() and turns < 200:
        turns += 1
        expect(draw).to_be_enabled(timeout=STEP_MS)
        seq = message.get_attribute("data-ct-seq")
        draw.click()
        expect(message).not_to_have_attribute("data-ct-seq", seq or "", timeout=STEP_MS)
        card = root.locator(".ct-hand [data-ct-card]").first
        card.click()
        expect(card).to_have_attribute("aria-pressed", "true")
        expect(discard).to_be_enabled(timeout=STEP_MS)
        discard.click()
        # The coach may stop a discard that gives the pile away: the learner insists.
        page.wait_for_function(
            "() => { const r = document.querySelector('.ct-root');"
            " return r.querySelector(\"[data-ct-coach-kind='warning']\") ||"
            " r.querySelector(\"[data-ct-game='next_hand']\") ||"
            " r.querySelector(\"[data-ct-action='draw']\").getAttribute('aria-disabled')"
            " !== 'true'; }",
            timeout=STEP_MS,
        )
        anyway = root.locator("[data-ct-coach-action='coach:anyway']")
        if anyway.count():
            warned += 1
            anyway.click()
        # The computer's turn is narrated, then it is ours again (or the hand is over).
        expect(root.locator(".ct-log-line").last).to_be_visible(timeout=STEP_MS)
        page.wait_for_function(
            "() => { const r = document.querySelector('.ct-root');"
            " return r.querySelector(\"[data-ct-game='next_hand']\") ||"
            " r.querySelector(\"[data-ct-action='draw']\").getAttribute('aria-disabled')"
            " !== 'true'; }",
            timeout=STEP_MS,
        )
    expect(next_hand).to_be_visible()
    assert turns > 3
    narration = root.locator(".ct-log-line")
    assert "North" in narration.first.inner_text() or narration.count() > 10
    expect(root.locator(".ct-log-hand").last).to_contain_text("Hand 1")
    # The hand's score line by line (each line with its rule), and its row on the sheet.
    sheet = root.locator(".ct-breakdown")
    expect(sheet).to_be_visible()
    assert sheet.locator("[data-ct-rule]").count() >= 2
    expect(root.locator("[data-ct-table='scores'] tbody tr")).to_have_count(1)
    # Our own moves are narrated too, in the second person.
    expect(root.locator(".ct-log-line", has_text="You drew two cards.").first).to_be_attached()
    # Every player's leftover cards, face up with their count, each card with its name, and
    # each hand in words for a screen reader.
    expect(sheet.locator(".ct-leftover")).to_have_count(2)
    left = 0
    for seat, name in (("S", "South"), ("N", "North")):
        row = sheet.locator(f"[data-ct-leftover='{seat}']")
        count = int(row.get_attribute("data-ct-count") or "-1")
        cards = row.locator(".ct-leftover-cards [data-ct-card]")
        expect(cards).to_have_count(count)
        tokens = cards.evaluate_all("cards => cards.map(c => c.dataset.ctCard)")
        if count:
            label = en.ntext("ui", "game.full.leftover.seat", count, seat=name, count=count,
                             cards=en.cards(tokens))  # fmt: skip
            expect(cards.first.locator(".ct-card-name")).to_be_visible()
            expect(cards.first).to_have_attribute("aria-label", re.compile(r"\w"))
        else:
            label = en.ui("game.full.leftover.none", seat=name)
        expect(row.locator(".ct-leftover-cards")).to_have_attribute("role", "img")
        expect(row.locator(".ct-leftover-cards")).to_have_attribute("aria-label", label)
        expect(row.locator(".ct-leftover-name")).to_have_text(name)
        expect(row.locator(".ct-leftover-count")).to_have_text(
            en.ntext("ui", "game.full.leftover.count", count, count=count)
        )
        left += count
    assert left > 0  # somebody still held cards when the hand ended
    sheet.locator(".ct-leftovers").screenshot(path=str(artifacts / "fullgame-2p-leftovers.png"))
    page.screenshot(path=str(artifacts / "fullgame-2p-hand-over.png"), full_page=True)
    # The next hand is dealt on request.
    next_hand.click()
    expect(root.locator(".ct-puzzle-number")).to_contain_text("Hand 2", timeout=STEP_MS)


def test_the_guided_first_hand_to_its_score(page: Page, voila_url: str, artifacts: Path) -> None:
    en = get_translator("en")
    page.goto(render_url(voila_url, LESSON))
    page.wait_for_selector(".ct-full [data-ct-card]", timeout=PAGE_TIMEOUT_MS)
    guided = page.locator(".ct-root").first
    prompt = guided.locator(".ct-prompt")

    def select(*tokens: str) -> None:
        guided.locator(".ct-clear").click() if guided.locator(".ct-clear").count() else None
        counts: dict[str, int] = {}
        for token in tokens:
            nth = counts.get(token, 0)
            counts[token] = nth + 1
            guided.locator(f".ct-hand [data-ct-card='{token}']").nth(nth).click()

    def press(action: str) -> None:
        button = guided.locator(f"[data-ct-action='{action}']")
        expect(button).to_be_enabled(timeout=STEP_MS)
        button.click()

    def wait_for_turn(step: int) -> None:
        skip = guided.locator(".ct-skip")
        if skip.count():
            skip.click()  # the computer's turns replayed: jump to the end
        coach = COACHED[step]
        expect(prompt).to_have_text(
            en.ui(coach.coach, button=en.ui(f"button.{coach.button}")), timeout=STEP_MS
        )

    wait_for_turn(0)
    # Only the coach's button is shown at each step.
    expect(guided.locator(".ct-buttons [data-ct-action]")).to_have_count(1)
    press("draw")
    wait_for_turn(1)
    select(*["K"] * 6)
    press("meld")
    wait_for_turn(2)
    # Another move than the coach's: politely refused, nothing changes.
    select("A")
    press("discard")
    expect(guided.locator(".ct-message")).to_have_text(en.ui("game.guide.other_move"))
    select("4")
    press("discard")
    wait_for_turn(3)
    select("9", "9")
    press("take")
    wait_for_turn(4)
    select("JK")
    guided.locator(".ct-us [data-ct-meld='K']").click()
    wait_for_turn(5)
    select("A", "A", "A")
    press("meld")
    wait_for_turn(6)
    select("4")
    press("discard")
    wait_for_turn(7)
    press("draw")
    wait_for_turn(8)
    press("ask")
    wait_for_turn(9)
    select("Q", "Q", "Q")
    press("meld")
    expect(prompt).to_have_text(en.ui("game.guide.done"), timeout=STEP_MS)
    breakdown = guided.locator(".ct-breakdown")
    expect(breakdown).to_be_visible()
    expect(breakdown.locator("[data-ct-rule='C-CAN-1']")).to_be_visible()
    expect(breakdown.locator("[data-ct-rule='C-OUT-2']")).to_be_visible()
    expect(guided.locator(".ct-log-why").first).to_be_visible()  # North said why
    page.screenshot(path=str(artifacts / "guided-hand-done.png"), full_page=True)


def test_a_reload_resumes_the_game(page: Page, voila_url: str) -> None:
    en = get_translator("en")
    page.goto(render_url(voila_url, FULL_2P))
    page.wait_for_selector(".ct-full [data-ct-card]", timeout=PAGE_TIMEOUT_MS)
    root = page.locator(".ct-root")
    root.locator("[data-ct-action='draw']").click()
    card = root.locator(".ct-hand [data-ct-card]").first
    expect(root.locator("[data-ct-action='discard']")).to_be_enabled(timeout=STEP_MS)
    card.click()
    root.locator("[data-ct-action='discard']").click()
    expect(root.locator("[data-ct-action='draw']")).to_be_enabled(timeout=STEP_MS)
    stock = root.locator(".ct-stock .ct-caption").inner_text()
    hand = root.locator(".ct-hand [data-ct-card]").evaluate_all(
        "cards => cards.map(c => c.dataset.ctCard)"
    )
    told = root.locator(".ct-log-line .ct-log-text").all_inner_texts()
    assert "You drew two cards." in told
    # A new page, a new kernel: the browser says who it is and the game comes back.
    page.reload()
    page.wait_for_selector(".ct-full [data-ct-card]", timeout=PAGE_TIMEOUT_MS)
    root = page.locator(".ct-root")
    expect(root.locator(".ct-notice")).to_have_text(en.ui("game.full.restored"), timeout=STEP_MS)
    expect(root.locator(".ct-stock .ct-caption")).to_have_text(stock)
    again = root.locator(".ct-hand [data-ct-card]").evaluate_all(
        "cards => cards.map(c => c.dataset.ctCard)"
    )
    assert again == hand
    # The narration came back with the game, then the word that it was restored.
    lines = root.locator(".ct-log-line .ct-log-text")
    expect(lines).to_have_count(len(told) + 1)
    assert lines.all_inner_texts() == [*told, en.ui("game.full.restored")]


FULL_HF = f"{TEST_PREFIX}/widgets/fullgame_handfoot.ipynb"


@pytest.mark.rule("H-MIN-1")
def test_hand_and_foot_set_aside_lay_down_and_discard_by_clicking(
    page: Page, voila_url: str, artifacts: Path
) -> None:
    """Hand and Foot at the table: the round and its minimum, each player's foot, Draw 2, a
    refused meld explained with its H- rule, Set aside twice, Lay down, then a discard and the
    computer players' turns narrated."""
    en = get_translator("en")
    page.goto(render_url(voila_url, FULL_HF))
    page.wait_for_selector(".ct-full [data-ct-card]", timeout=PAGE_TIMEOUT_MS)
    root = page.locator(".ct-root")
    message = root.locator(".ct-message")
    draw = root.locator("[data-ct-action='draw']")
    meld = root.locator("[data-ct-action='meld']")
    lay_down = root.locator("[data-ct-action='lay_down']")
    expect(root.locator(".ct-game-title")).to_have_text(en.ui("game.full.hf.title"))
    expect(root.locator("[data-ct-game='variant:handfoot']")).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(root.locator(".ct-round")).to_have_text(
        en.ui("table.hf.round", number="1", rounds="4", points="50")
    )
    expect(root.locator(".ct-foot")).to_have_text(en.ntext("ui", "table.hf.foot_waiting", 13,
                                                           count="13"))  # fmt: skip
    expect(draw).to_have_text(en.ui("button.draw_two"))
    expect(meld).to_have_text(en.ui("button.set_aside"))
    expect(lay_down).to_be_disabled()

    def click(action_or_locator: object) -> None:
        seq = message.get_attribute("data-ct-seq")
        locator = root.locator(f"[data-ct-action='{action_or_locator}']") if isinstance(
            action_or_locator, str) else action_or_locator  # fmt: skip
        locator.click()  # type: ignore[attr-defined]
        expect(message).not_to_have_attribute("data-ct-seq", seq or "", timeout=STEP_MS)

    def select(*tokens: str) -> None:
        for token in tokens:
            card = root.locator(f".ct-hand [data-ct-card='{token}'][aria-pressed='false']").first
            card.click()

    click("draw")
    expect(root.locator(".ct-hand [data-ct-card]")).to_have_count(15)
    # A meld of two ranks is refused, explained with its rule; nothing moves.
    select("10", "K", "K")
    click(meld)
    expect(message).to_have_class("ct-message ct-refusal")
    expect(message.locator("[data-ct-rule]")).to_have_attribute("data-ct-rule", "H-MELD-1")
    root.locator(".ct-clear").click()
    select("10", "10", "10")
    click(meld)
    expect(root.locator(".ct-staged")).to_be_visible()
    expect(lay_down).to_be_disabled()  # 30 of 50
    select("K", "K", "K")
    click(meld)
    expect(lay_down).to_be_enabled()
    click(lay_down)
    expect(message).to_have_text(en.ui("msg.laid_down"))
    expect(root.locator(".ct-us [data-ct-meld]")).to_have_count(2)
    expect(meld).to_have_text(en.ui("button.meld"))
    # A discard ends the turn; the three computer players move and are narrated.
    root.locator(".ct-hand [data-ct-card]").first.click()
    click("discard")
    expect(root.locator(".ct-log-line").first).to_be_visible(timeout=STEP_MS)
    expect(draw).to_be_enabled(timeout=STEP_MS)
    assert "foot waiting" in root.locator(".ct-others").inner_text()
    page.screenshot(path=str(artifacts / "fullgame-handfoot.png"), full_page=True)
