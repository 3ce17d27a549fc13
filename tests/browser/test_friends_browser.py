"""Play with friends in real browsers: one Voilà server, several pages, each with its own kernel.

The host and the friend are two Chromium browsers, each with a profile of its own (its own
storage, so its own seat token), as two people's browsers would be.

- A two-player room made with the Invite button of an Urdu full game (the room opens in a new
  tab, the game's page stays), joined through its link by a Hindi reader: a third visitor is
  told the room is full (in Telugu), the friend closes the tab and the same link returns them
  to their seat, and the hand is played to its end by clicking, each page in its own language.
- A four-player room with two people (partners) and two computer players.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Expect, Locator, Page

from canasta_teach.i18n import get_translator

from .conftest import PAGE_TIMEOUT_MS, TEST_PREFIX, render_url

pytestmark = pytest.mark.browser

#: A bound for one step to be seen, never a pause: every wait below is on a state of the page
#: (an attribute, a button enabled, a row's text). A busy machine may take long (the
#: four-player test once failed at a 5-second bound, the default of ``expect``).
STEP_MS = PAGE_TIMEOUT_MS
#: This module's own ``expect``, bounded by STEP_MS (``playwright``'s shared one stays as it is).
expect = Expect()
expect.set_options(timeout=STEP_MS)
ROOM_KEY = "canasta-teach:v1:room:"


def reader(
    context: BrowserContext, lang: str, *, forget_rooms: bool = False, new_player: bool = False
) -> Page:
    """A page whose browser reads ``lang`` (what the room page asks the storage for);
    ``new_player``: no saved game of an earlier test is resumed (the full game's settings
    are the notebook's)."""
    page = context.new_page()
    script = f"window.localStorage.setItem('canasta-teach:v1:lang', '{lang}');"
    if new_player:
        script += "window.localStorage.removeItem('canasta-teach:v1:player');"
    if forget_rooms:
        script += (
            "for (const k of Object.keys(window.localStorage))"
            f" if (k.startsWith('{ROOM_KEY}')) window.localStorage.removeItem(k);"
        )
    page.add_init_script(f"try {{ {script} }} catch (e) {{}}")
    return page


def invite(page: Page, voila_url: str, notebook: str) -> tuple[Page, str]:
    """Open a full game, press Invite: the room page, opened in a new tab, and its link.  The
    full game's page stays as it was."""
    page.goto(render_url(voila_url, notebook))
    page.wait_for_selector(".ct-full [data-ct-game='invite']", timeout=PAGE_TIMEOUT_MS)
    with page.context.expect_page(timeout=PAGE_TIMEOUT_MS) as opened:
        page.locator("[data-ct-game='invite']").click()
    room = opened.value
    room.wait_for_url(re.compile(r"play-together\.ipynb#room="), timeout=PAGE_TIMEOUT_MS)
    link = room.locator("[data-ct-room-link]")
    expect(link).to_be_visible(timeout=PAGE_TIMEOUT_MS)
    href = link.get_attribute("href") or ""
    # The same page and room (the link shows the code as read aloud, with its dash).
    assert href.split("#")[0] == room.url.split("#")[0]
    assert href.split("#room=")[1].replace("-", "") == room.url.split("#room=")[1]
    expect(page.locator(".ct-room-note")).to_have_attribute("data-ct-room-tab", "opened")
    assert "play-together" not in page.url
    return room, href


def close_all(pages: list[Page]) -> None:
    """Close the pages, leaving their browsers' storage empty: the shared browser's player id
    would otherwise make the next test's full game resume this test's."""
    for page in dict.fromkeys(pages):
        if page.is_closed():
            continue
        if page.url.startswith("http"):
            with contextlib.suppress(Exception):
                page.evaluate("() => window.localStorage.clear()")
        page.close()


def seat_rows(page: Page) -> Locator:
    return page.locator("[data-ct-table='seats'] tbody tr")


def play_turn(page: Page) -> None:
    """Draw, then throw away the first card of the hand (unless the draw found the stock
    empty, which ends the hand)."""
    root = page.locator(".ct-root")
    message = root.locator(".ct-message")
    seq = message.get_attribute("data-ct-seq")
    root.locator("[data-ct-action='draw']").click()
    expect(message).not_to_have_attribute("data-ct-seq", seq or "", timeout=STEP_MS)
    # The message and the panel arrive in one comm message: the hand is over or it is not.
    if page.locator("[data-ct-game='next_hand']").count():
        return
    card = root.locator(".ct-hand [data-ct-card]").first
    card.click()
    expect(card).to_have_attribute("aria-pressed", "true", timeout=STEP_MS)
    discard = root.locator("[data-ct-action='discard']")
    expect(discard).to_be_enabled(timeout=STEP_MS)
    seq = message.get_attribute("data-ct-seq")
    discard.click()
    # The discard answered: this page's message moved on (the table then shows another
    # player to move, or the hand's end).
    expect(message).not_to_have_attribute("data-ct-seq", seq or "", timeout=STEP_MS)
    expect(root.locator("[data-ct-action='draw']")).to_be_disabled(timeout=STEP_MS)


def next_state(page: Page) -> Locator:
    """What this page shows once the room waits for a person: its own Draw enabled, another
    player to move (``ct-to-move``), or the hand's end.  The computer players move inside the
    change that passes them the turn, so one of these is always the room's next state."""
    return page.locator(
        ".ct-root [data-ct-action='draw']:enabled, .ct-other.ct-to-move, [data-ct-game='next_hand']"
    ).first


def whose_turn(pages: list[Page], last: Page | None = None) -> Page | None:
    """The page to move next, or None at the hand's end: read from the state of the page that
    moved last (or of the first page), then waited for on the mover's own page (its Draw
    enabled), never polled against a clock.  With two people at the table, a turn that is not
    this page's is the other page's."""
    seen = last or pages[0]
    expect(next_state(seen)).to_be_visible(timeout=STEP_MS)
    if seen.locator("[data-ct-game='next_hand']").count():
        return None
    draw = seen.locator(".ct-root [data-ct-action='draw']")
    mover = seen if draw.is_enabled() else next(p for p in pages if p is not seen)
    mover_draw = mover.locator(
        ".ct-root [data-ct-action='draw']:enabled, [data-ct-game='next_hand']"
    )
    expect(mover_draw.first).to_be_visible(timeout=STEP_MS)
    return None if mover.locator("[data-ct-game='next_hand']").count() else mover


def test_two_browsers_urdu_and_hindi_play_a_hand_to_its_end(
    browser_context: BrowserContext,
    second_browser: BrowserContext,
    voila_url: str,
    artifacts: Path,
) -> None:
    ur, hi, te = get_translator("ur"), get_translator("hi"), get_translator("te")
    lesson = reader(browser_context, "ur", new_player=True)
    friend = reader(second_browser, "hi")
    pages = [lesson, friend]
    try:
        host, link = invite(lesson, voila_url, f"{TEST_PREFIX}/widgets/fullgame_ur_2p.ipynb")
        pages.append(host)
        host_root = host.locator(".ct-root")
        expect(host_root).to_have_attribute("lang", "ur")
        expect(host_root).to_have_attribute("dir", "rtl")
        expect(host.locator(".ct-prompt")).to_have_text(ur.ui("room.lobby.host_prompt"))
        code = host.locator("[data-ct-room-code]").inner_text()
        assert re.fullmatch(r"[A-Z2-9]{5}-[A-Z2-9]{5}", code)

        friend.goto(link)
        friend_root = friend.locator(".ct-root")
        expect(friend.locator(".ct-prompt")).to_have_text(
            hi.ui("room.lobby.guest_prompt"), timeout=PAGE_TIMEOUT_MS
        )
        expect(friend_root).to_have_attribute("lang", "hi")
        expect(friend_root).to_have_attribute("dir", "ltr")
        # The host's page learns of the friend by itself (no reload): two people, in words.
        expect(seat_rows(host).nth(1)).to_contain_text(ur.ui("room.who.friend"), timeout=STEP_MS)
        expect(seat_rows(host).nth(1)).to_contain_text("हिन्दी")

        # A third visitor to the full two-player room is told so, in their language.
        third = reader(browser_context, "te", forget_rooms=True)
        pages.append(third)
        third.goto(link)
        expect(third.locator(".ct-prompt")).to_have_text(
            te.ui("room.error.full"), timeout=PAGE_TIMEOUT_MS
        )
        third.close()
        pages.remove(third)

        # The friend closes the tab; the same link in the same browser is the same seat.
        you_are = hi.ui("room.you_are", seat=hi.seat("N"))
        expect(friend.locator(".ct-puzzle-number")).to_contain_text(you_are)
        friend.close(run_before_unload=True)
        friend = reader(second_browser, "hi")
        pages[1] = friend
        friend.goto(link)
        expect(friend.locator(".ct-puzzle-number")).to_contain_text(
            you_are, timeout=PAGE_TIMEOUT_MS
        )
        expect(seat_rows(host)).to_have_count(2, timeout=STEP_MS)

        host.locator("[data-ct-game='start']").click()
        for page, tr in ((host, ur), (friend, hi)):
            expect(page.locator(".ct-root [data-ct-action='draw']")).to_have_text(
                tr.ui("button.draw_two"), timeout=STEP_MS
            )
        turns = 0
        mover: Page | None = None
        while (mover := whose_turn([host, friend], mover)) is not None and turns < 300:
            play_turn(mover)
            turns += 1
        assert turns > 6
        for page, tr in ((host, ur), (friend, hi)):
            expect(page.locator("[data-ct-game='next_hand']")).to_be_visible(timeout=STEP_MS)
            expect(page.locator(".ct-breakdown h4")).to_have_text(
                tr.ui("game.full.breakdown", number=tr.number(1))
            )
            expect(page.locator("[data-ct-table='scores'] tbody tr")).to_have_count(1)
        # Each narrates the other's moves in its own language.
        assert ur.seat("N") in host.locator(".ct-log").inner_text()
        assert hi.seat("S") in friend.locator(".ct-log").inner_text()
        host.screenshot(path=str(artifacts / "room-ur-hand-over.png"), full_page=True)
        friend.screenshot(path=str(artifacts / "room-hi-hand-over.png"), full_page=True)
    finally:
        close_all(pages)


def test_a_four_player_room_with_two_people_and_two_computers(
    browser_context: BrowserContext, second_browser: BrowserContext, voila_url: str
) -> None:
    en, ur = get_translator("en"), get_translator("ur")
    lesson = reader(browser_context, "en", new_player=True)
    partner = reader(second_browser, "ur")
    host = lesson
    try:
        host, link = invite(lesson, voila_url, f"{TEST_PREFIX}/widgets/fullgame_en_4p.ipynb")
        partner.goto(link)
        expect(partner.locator(".ct-puzzle-number")).to_contain_text(
            ur.ui("room.you_are", seat=ur.seat("N")), timeout=PAGE_TIMEOUT_MS
        )
        # The host sees the partner, and who partners whom can be chosen.
        expect(host.locator("[data-ct-game='partner:2']")).to_have_attribute(
            "aria-pressed", "true", timeout=STEP_MS
        )
        expect(seat_rows(host)).to_have_count(4, timeout=STEP_MS)
        host.locator("[data-ct-game='start']").click()
        for seat in (1, 3):
            expect(seat_rows(host).nth(seat)).to_contain_text(
                en.ui("room.who.computer"), timeout=STEP_MS
            )
        expect(seat_rows(partner).nth(1)).to_contain_text(
            ur.ui("room.who.computer"), timeout=STEP_MS
        )
        # Both pages show the game before anyone moves.
        for page in (host, partner):
            expect(page.locator(".ct-hand [data-ct-card]").first).to_be_visible(timeout=STEP_MS)
        turns = 0
        mover: Page | None = None
        while (mover := whose_turn([host, partner], mover)) is not None and turns < 6:
            play_turn(mover)
            turns += 1
        # The computer players' moves reach both pages, each in its own language.
        expect(host.locator(".ct-log")).to_contain_text(en.seat("W"), timeout=STEP_MS)
        expect(partner.locator(".ct-log")).to_contain_text(ur.seat("E"), timeout=STEP_MS)
        assert turns == 6
    finally:
        close_all([lesson, host, partner])
