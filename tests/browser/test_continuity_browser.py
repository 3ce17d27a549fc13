"""Continuity in a real browser (Voilà + Chromium): what the learner did survives a click or a
reload.

- New game asks first when a game is in progress; the keyboard lands on "Keep playing".
- The guided hand of lesson 11: a reload in the middle comes back at the same step, and once
  the hand is played the start page marks lesson 11 done.
- The start page's "Continue where you left off" names the first lesson not all solved and its
  first unsolved puzzle, where that lesson then opens; "finished" when all is solved; nothing
  before anything is started.
- Invite opens the room in a second tab and the game's page stays (with the room's link); a
  browser that opens no tab gets the link instead; the language chosen in the room survives a
  reload of the room's page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from canasta_teach.i18n import get_translator
from canasta_teach.widgets.guided import COACHED
from canasta_teach.widgets.puzzles import load_set

from .conftest import PAGE_TIMEOUT_MS, REPO_ROOT, TEST_PREFIX, render_url

pytestmark = pytest.mark.browser

STEP_MS = 20_000
LESSON_11 = "11-full-game.ipynb"
START = "00-start.ipynb"
FULL_2P = f"{TEST_PREFIX}/widgets/fullgame_2p.ipynb"
FULL_4P = f"{TEST_PREFIX}/widgets/fullgame_en_4p.ipynb"
PUZZLES = REPO_ROOT / "lessons" / "puzzles"
#: The course's lessons and each one's game (lesson 11's is the guided hand: its steps).
COURSE = {
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
    LESSON_11: "",
    "12-hand-and-foot.ipynb": "hand-and-foot",
}


def total_of(lesson: str) -> int:
    game = COURSE[lesson]
    return len(COACHED) if not game else len(load_set(PUZZLES / game).puzzles)


def open_page(page: Page, url: str, ready: str) -> None:
    response = page.goto(url)
    assert response is not None and response.status == 200, url
    expect(page.locator(ready).first).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    expect(page.locator("#loading")).to_have_count(0, timeout=PAGE_TIMEOUT_MS)


def keep_progress(page: Page, lang: str, records: dict[str, dict[str, object]]) -> None:
    """Progress records as an older page kept them, per language (replacing any there): the
    next page merges them into the lessons' own records (issue 19)."""
    page.evaluate(
        "([lang, records]) => { for (const k of Object.keys(localStorage))"
        " if (k.startsWith('canasta-teach:v1:progress:')) localStorage.removeItem(k);"
        " for (const [lesson, r] of Object.entries(records))"
        " localStorage.setItem('canasta-teach:v1:progress:' + lang + ':' + lesson,"
        " JSON.stringify(r)); }",
        [lang, records],
    )


# ---------------------------------------------------------------------- New game asks


def test_new_game_asks_before_the_game_in_progress_is_lost(
    page: Page, voila_url: str, artifacts: Path
) -> None:
    en = get_translator("en")
    open_page(page, render_url(voila_url, FULL_2P), ".ct-full [data-ct-card]")
    root = page.locator(".ct-root")
    message = root.locator(".ct-message")
    seq = message.get_attribute("data-ct-seq")
    root.locator("[data-ct-action='draw']").click()
    expect(message).not_to_have_attribute("data-ct-seq", seq or "", timeout=STEP_MS)
    hand = root.locator(".ct-hand [data-ct-card]").evaluate_all(
        "cards => cards.map(c => c.dataset.ctCard)"
    )
    root.locator("[data-ct-game='new']").click()
    confirm = root.locator(".ct-confirm")
    expect(confirm).to_be_visible(timeout=STEP_MS)
    expect(confirm).to_have_attribute("role", "alertdialog")
    expect(confirm.locator(".ct-confirm-text")).to_have_text(en.ui("game.full.confirm_new"))
    keep = confirm.locator("[data-ct-game='keep_playing']")
    expect(keep).to_have_text(en.ui("game.full.confirm_no"))
    expect(keep).to_be_focused()  # Enter loses nothing
    confirm.screenshot(path=str(artifacts / "continuity-confirm-new-game.png"))
    keep.click()
    expect(confirm).to_have_count(0, timeout=STEP_MS)
    again = root.locator(".ct-hand [data-ct-card]").evaluate_all(
        "cards => cards.map(c => c.dataset.ctCard)"
    )
    assert again == hand
    root.locator("[data-ct-game='new']").click()
    yes = root.locator(".ct-confirm [data-ct-game='confirm_new']")
    expect(yes).to_have_text(en.ui("game.full.confirm_yes"))
    yes.click()
    expect(message).to_have_text(en.ui("game.full.started"), timeout=STEP_MS)
    expect(root.locator(".ct-confirm")).to_have_count(0)


# ---------------------------------------------------------------------- the guided hand


class Guided:
    """The guided hand of lesson 11 (the page's first table), played by clicking."""

    def __init__(self, page: Page) -> None:
        self.root: Locator = page.locator(".ct-root").first
        self.prompt = self.root.locator(".ct-prompt")

    def select(self, *tokens: str) -> None:
        clear = self.root.locator(".ct-clear")
        if clear.count():
            clear.click()
        counts: dict[str, int] = {}
        for token in tokens:
            nth = counts.get(token, 0)
            counts[token] = nth + 1
            card = self.root.locator(f".ct-hand [data-ct-card='{token}']").nth(nth)
            card.click()
            expect(card).to_have_attribute("aria-pressed", "true")

    def wait_for_step(self, index: int) -> None:
        en = get_translator("en")
        skip = self.root.locator(".ct-skip")
        if skip.count():
            skip.click()  # the computer's turns replayed: jump to the end
        step = COACHED[index]
        expect(self.prompt).to_have_text(
            en.ui(step.coach, button=en.ui(f"button.{step.button}")), timeout=STEP_MS
        )

    def play(self, index: int) -> None:
        """The coach's step ``index``, as the coach asks for it."""
        self.wait_for_step(index)
        verb, *rest = COACHED[index].move.split()
        if verb == "add":  # "add K: JK": the joker onto the meld of kings
            self.select(*rest[1:])
            self.root.locator(f".ct-us [data-ct-meld='{rest[0].rstrip(':')}']").click()
            return
        self.select(*rest)
        button = self.root.locator(f"[data-ct-action='{verb}']")
        expect(button).to_be_enabled(timeout=STEP_MS)
        button.click()


def test_the_guided_hand_survives_a_reload_and_marks_lesson_11_done(
    page: Page, voila_url: str
) -> None:
    en = get_translator("en")
    lesson = render_url(voila_url, f"en/{LESSON_11}")
    open_page(page, lesson, ".ct-full [data-ct-card]")
    guided = Guided(page)
    for index in range(4):
        guided.play(index)
    guided.wait_for_step(4)
    hand = guided.root.locator(".ct-hand [data-ct-card]").evaluate_all(
        "cards => cards.map(c => c.dataset.ctCard)"
    )
    melds = guided.root.locator(".ct-us [data-ct-meld]").count()

    page.reload()
    expect(page.locator(".ct-full [data-ct-card]").first).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    guided = Guided(page)
    total = en.number(len(COACHED))
    expect(guided.root.locator(".ct-puzzle-number")).to_have_text(
        en.ui("game.guide.step", number=en.number(5), total=total), timeout=STEP_MS
    )
    guided.wait_for_step(4)
    expect(guided.root.locator(".ct-message")).to_have_text(
        en.ui("game.guide.resumed", number=en.number(5), total=total)
    )
    again = guided.root.locator(".ct-hand [data-ct-card]").evaluate_all(
        "cards => cards.map(c => c.dataset.ctCard)"
    )
    assert again == hand
    expect(guided.root.locator(".ct-us [data-ct-meld]")).to_have_count(melds)

    for index in range(4, len(COACHED)):
        guided.play(index)
    expect(guided.prompt).to_have_text(en.ui("game.guide.done"), timeout=STEP_MS)

    open_page(page, render_url(voila_url, f"en/{START}"), ".ct-lang-en p")
    mark = page.locator(f".ct-progress-mark[data-ct-lesson='{LESSON_11}']")
    expect(mark.first).to_have_text(f" \u2713 {len(COACHED)}/{len(COACHED)}")
    expect(mark.first).to_have_class(re.compile(r"\bct-complete\b"))
    expect(mark.first).to_have_attribute(
        "aria-label", f"{len(COACHED)} of {len(COACHED)} steps played"
    )
    # Lessons 1 to 10 are still to do: the start page says where to go on.
    expect(page.locator(".ct-continue")).to_have_attribute(
        "data-ct-continue", "01-cards-values.ipynb"
    )


# ---------------------------------------------------------------------- Continue


def test_continue_where_you_left_off(page: Page, voila_url: str, artifacts: Path) -> None:
    en = get_translator("en")
    start = render_url(voila_url, f"en/{START}")
    open_page(page, start, ".ct-lang-en p")
    expect(page.locator(".ct-continue")).to_have_count(0)  # nothing started

    lesson = "03-melds-canastas.ipynb"
    total = total_of(lesson)
    done = {name: {"solved": list(range(total_of(name))), "total": total_of(name)}
            for name in ("01-cards-values.ipynb", "02-deal-and-turn.ipynb")}  # fmt: skip
    # Lesson 3: puzzles 1 and 3 solved (0 and 2), lesson 5 partly done too (later in order).
    later = "05-discard-pile.ipynb"
    records = {**done, lesson: {"solved": [0, 2], "total": total},
               later: {"solved": [0], "total": total_of(later)}}  # fmt: skip
    keep_progress(page, "en", records)
    open_page(page, start, ".ct-lang-en p")
    box = page.locator(".ct-continue")
    expect(box).to_have_attribute("data-ct-continue", lesson)
    expect(box).to_have_attribute("data-ct-continue-puzzle", "2")
    link = box.locator("a.ct-continue-link")
    expect(link).to_have_attribute("href", lesson)
    expect(link).to_contain_text("Continue where you left off")
    expect(link).to_contain_text(f"Melds and canastas: puzzle 2 of {total}")
    page.screenshot(path=str(artifacts / "continuity-continue-en.png"))

    # The lesson opens at that puzzle, its progress as it was.
    link.click()
    expect(page.locator(".ct-hand [data-ct-card]").first).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    expect(page.locator(".ct-puzzle-number")).to_have_text(
        en.ui("game.puzzle_number", number=2, total=total), timeout=STEP_MS
    )
    expect(page.locator(".ct-progress")).to_have_text(en.ui("game.progress", solved=2, total=total))

    # Everything solved: the course is finished.
    keep_progress(page, "en", {name: {"solved": [0], "total": 1} for name in COURSE})
    open_page(page, start, ".ct-lang-en p")
    expect(page.locator(".ct-continue")).to_have_attribute("data-ct-continue", "done")
    expect(page.locator(".ct-continue")).to_have_text(
        "You have finished the course: every puzzle is solved. Well done!"
    )
    expect(page.locator(".ct-continue a")).to_have_count(0)

    # In Urdu, with the guided hand the lesson to go on with (its steps, not puzzles).
    records = {name: {"solved": [0], "total": 1} for name in COURSE}
    records[LESSON_11] = {"solved": [0, 1, 2], "total": len(COACHED), "unit": "steps"}
    keep_progress(page, "ur", records)
    open_page(page, render_url(voila_url, f"ur/{START}"), ".ct-lang-ur p")
    box = page.locator(".ct-continue")
    expect(box).to_have_attribute("data-ct-continue", LESSON_11)
    expect(box).to_have_attribute("data-ct-continue-puzzle", "4")
    text = box.inner_text()
    assert "جہاں چھوڑا تھا، وہیں سے جاری رکھیں" in text
    assert f"قدم 4 از {len(COACHED)}" in text
    page.screenshot(path=str(artifacts / "continuity-continue-ur.png"))
    # Forget my progress takes the link away too.
    page.locator(".ct-reset-progress").click()
    expect(page.locator(".ct-continue")).to_have_count(0)
    keys = json.loads(page.evaluate("() => JSON.stringify(Object.keys(localStorage))"))
    assert not [k for k in keys if k.startswith("canasta-teach:v1:progress:")]


# ---------------------------------------------------------------------- Invite and rooms


def test_invite_opens_a_new_tab_and_the_room_keeps_its_language(
    page: Page, voila_url: str, artifacts: Path
) -> None:
    en, hi = get_translator("en"), get_translator("hi")
    open_page(page, render_url(voila_url, FULL_4P), ".ct-full [data-ct-game='invite']")
    game_url = page.url
    with page.context.expect_page(timeout=PAGE_TIMEOUT_MS) as opened:
        page.locator("[data-ct-game='invite']").click()
    room = opened.value
    try:
        room.wait_for_url(re.compile(r"play-together\.ipynb#room="), timeout=PAGE_TIMEOUT_MS)
        expect(room.locator(".ct-prompt")).to_have_text(
            en.ui("room.lobby.host_prompt"), timeout=PAGE_TIMEOUT_MS
        )
        # The game's page stays as it was, and says where the room went, with its link.
        assert page.url == game_url
        note = page.locator(".ct-room-note")
        expect(note).to_have_attribute("data-ct-room-tab", "opened")
        expect(note).to_contain_text(en.ui("room.tab_opened"))
        expect(note.locator("[data-ct-room-go]")).to_have_attribute("href", room.url)
        expect(page.locator(".ct-full .ct-hand [data-ct-card]").first).to_be_visible()

        # The player reads the room in Hindi; after a reload it is still Hindi, same seat.
        room.locator("[data-ct-game='lang:hi']").click()
        expect(room.locator(".ct-root")).to_have_attribute("lang", "hi", timeout=STEP_MS)
        room.reload()
        expect(room.locator(".ct-prompt")).to_have_text(
            hi.ui("room.lobby.host_prompt"), timeout=PAGE_TIMEOUT_MS
        )
        expect(room.locator(".ct-root")).to_have_attribute("lang", "hi")
        expect(room.locator("[data-ct-game='lang:hi']")).to_have_attribute("aria-pressed", "true")
    finally:
        room.close()

    # A browser that opens no tab: the page shows the room's link to follow instead.
    page.evaluate("() => { window.open = () => null; }")
    pages = len(page.context.pages)
    page.locator("[data-ct-game='invite']").click()
    note = page.locator(".ct-room-note[data-ct-room-tab='blocked']")
    expect(note).to_contain_text(en.ui("room.tab_blocked"), timeout=STEP_MS)
    go = note.locator("[data-ct-room-go]")
    expect(go).to_have_text(en.ui("room.open_link"))
    expect(go).to_have_attribute("href", re.compile(r"play-together\.ipynb#room=\w+"))
    assert len(page.context.pages) == pages
    note.screenshot(path=str(artifacts / "continuity-room-link.png"))
    assert page.url == game_url
