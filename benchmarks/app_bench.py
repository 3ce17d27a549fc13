"""App benchmark: time to interactive and click-to-update latency, Voilà + Debian Chromium.

One Voilà server (``canasta_teach.app.start_server``, the launcher ``make app`` uses) serves
``lessons/`` plus the bare-button notebook (``_bench/bare_button.ipynb`` ->
``tests/browser/notebooks/bare_button.ipynb``). For each notebook, loaded N times round-robin
after one discarded warm-up load (the bare page once more before each language's pages:
:func:`load_order`):

- TTI: from the navigation start (``performance.now()`` origin) to the moment a
  MutationObserver, installed before any page script runs, first sees the notebook's
  "interactive" selector matched by a laid-out element (bare: the button; lessons with a
  mini-game: ``[data-ct-card]``, which the card table widget renders; start pages, which have
  no game: their links).
- click-to-update: ``event.timeStamp`` of the click, taken in a capturing listener, to the first
  mutation under the element that must change (a MutationObserver armed before the click).
  Playwright only delivers the click and reads the result; it does not time anything.

Targets: lesson TTI <= 1.1 x bare TTI (issue 22; it was 1.3); lesson click-to-update <= 1.5 x
the bare round trip and < 100 ms median; the next lesson, opened from the previous one's link,
usable within 1 s (median over the languages).

The next lesson is timed three ways (lesson 2's link to lesson 3, every language):

- **after reading** (the target): the learner reads lesson 2 for :data:`READING_S` seconds
  (``--reading``) after its game is drawn, then clicks. Meanwhile a browser with the
  Speculation Rules API prerenders lesson 3 (the template asks for it; the server runs its
  notebook): the click shows that page. Playwright's way of attaching to a page turns
  prerendering off, so this is driven through Chromium's tab target
  (``tests.browser.tabdriver``); the report says how many clicks showed a prerendered page.
- **clicked at once**: the same, clicked as soon as lesson 2's game is drawn (a prerender
  barely started, or none).
- **without prerendering** (Playwright): as in a browser without the Speculation Rules API.

The server runs as ``make app`` runs it: with ``canasta_teach.app.DEFAULT_PREHEAT`` warm kernels
(``--preheat N`` to compare; 0 starts every page's kernel on request).

Lesson actions: :data:`LESSON_ACTIONS` (path relative to ``lessons/`` or ``"*"`` ->
:class:`Action`). Lesson 1 presses Meld and lesson 2 Take pile with an illegal selection, two
refusals in turn; the clock stops when the message area changes (see ``MELD_REFUSAL``,
``TAKE_REFUSAL``). Pages without an action are timed for TTI only. The report ends with the
lessons that have a mini-game against the bare button (median and worst lesson).

Each load starts on a quiet server (:func:`wait_for_quiet`: the warm kernels ready, the
server and its kernels idle), as for a learner who opens a page after reading the one before;
``--back-to-back`` loads each page as soon as the one before is closed.

``python -m benchmarks.app_bench [--repeats 5] [--clicks 5] [--preheat N] [--back-to-back]
[--json] [NOTEBOOK ...]``
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from canasta_teach import app
from canasta_teach.i18n import LANGUAGES
from tests.browser.tabdriver import TabBrowser

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

REPO_ROOT = Path(__file__).resolve().parent.parent
BENCH_PREFIX = "_bench"
BARE = f"{BENCH_PREFIX}/bare_button.ipynb"
BARE_SOURCE = REPO_ROOT / "tests" / "browser" / "notebooks"
LESSON_READY = "[data-ct-card]"
#: A page without a mini-game (a start page) is ready when its text and links are laid out.
PROSE_READY = "#rendered_cells a[href]:not(.anchor-link)"
TARGETS = {"tti_ratio": 1.1, "click_ratio": 1.5, "click_ms": 100.0, "next_ms": 1000.0}
PAGE_TIMEOUT_MS = 60_000
#: Run before a page's own scripts: the page sees a browser without the Speculation Rules API
#: (the template then asks for no prerender).
NO_SPECULATION_RULES = """(supports => {
  HTMLScriptElement.supports = type =>
    type !== "speculationrules" && supports.call(HTMLScriptElement, type);
})(HTMLScriptElement.supports);"""

CLICK_TIMEOUT_MS = 10_000


class NotInteractive(Exception):
    """The page was shown but its interactive selector never appeared."""


@dataclass(frozen=True)
class Action:
    """One timed interaction: click ``click``; done when anything under ``changes`` mutates.

    ``prepare(page)`` (optional) runs before each measured click, untimed: e.g. choose a card
    so that the click is a legal move. Pick a ``changes`` element that only the answer to the
    click mutates (focus styles on the clicked element itself would stop the clock early).
    """

    click: str
    changes: str
    prepare: Callable[[Page], None] | None = None


BARE_ACTION = Action(click=".ct-bare-button", changes=".ct-bare-label")

# ---------------------------------------------------------------------------- lesson actions
#
# Each lesson's mini-game answers a table action with one comm message; the clock stops at the
# first mutation of the message area. The timed click is an illegal move, so that the position
# never changes and every click gets the same work from the kernel: the engine checks the move
# and the learner is told why it is refused. Two refusals take turns: an identical refusal
# would change nothing (traitlets sends no update for an equal value), and the clock would wait.

MESSAGE = ".ct-message"


def _select(page: Page, tokens: str) -> None:
    """Tap ``tokens`` in the hand (the nth copy for a repeated token), after clearing."""
    clear = page.locator(".ct-clear")
    if clear.count():
        clear.click()
    seen: dict[str, int] = {}
    for token in tokens.split():
        page.locator(f".ct-hand [data-ct-card='{token}']").nth(seen.get(token, 0)).click()
        seen[token] = seen.get(token, 0) + 1
    page.wait_for_function(
        "n => document.querySelectorAll(\".ct-hand [aria-pressed='true']\").length === n",
        arg=len(tokens.split()),
        timeout=CLICK_TIMEOUT_MS,
    )


def _alternating(
    selections: Sequence[str], setup: Callable[[Page], None] | None = None
) -> Callable[[Page], None]:
    """A ``prepare`` that selects ``selections`` in turn (after ``setup``, untimed)."""
    turn = iter(range(1 << 62))

    def prepare(page: Page) -> None:
        if setup is not None:
            setup(page)
        _select(page, selections[next(turn) % len(selections)])

    return prepare


def _take_puzzle_with_open_pile(page: Page) -> None:
    """Go to take-the-pile's puzzle 2 (02-natural-and-wild: top card 7, pile not frozen).

    Puzzle 1 stops the pickup with a black three, so its Take button is disabled."""
    if page.locator("[data-ct-pile='7']").count():
        return
    page.locator("[data-ct-game='next']").click()
    page.wait_for_selector("[data-ct-pile='7']", timeout=CLICK_TIMEOUT_MS)


#: Build a meld, puzzle 1 (01-three-kings, hand A K K K Q 10 9 7 6 5 4 4): press Meld with
#: "4 4" (C-MELD-1, too few cards) and "K K Q" (C-MELD-1, two ranks) in turn.
MELD_REFUSAL = Action(
    click="[data-ct-action='meld']",
    changes=MESSAGE,
    prepare=_alternating(["4 4", "K K Q"]),
)
#: Take the pile, puzzle 2 (top card 7; hand A K Q 9 9 7 6 5 4 4 JK): press Take pile with
#: "7" alone (C-PILE-4) and "9 9" (C-MELD-1, not 7s) in turn.
TAKE_REFUSAL = Action(
    click="[data-ct-action='take']",
    changes=MESSAGE,
    prepare=_alternating(["7", "9 9"], setup=_take_puzzle_with_open_pile),
)

#: Timed action per lesson (path as served; ``"*"`` for any lesson not listed).
LESSON_ACTIONS: dict[str, Action] = {}
for _lang in LANGUAGES:
    LESSON_ACTIONS[f"{_lang}/03-melds-canastas.ipynb"] = MELD_REFUSAL
    LESSON_ACTIONS[f"{_lang}/05-discard-pile.ipynb"] = TAKE_REFUSAL


@dataclass
class PageResult:
    notebook: str
    ready_selector: str
    tti_ms: list[float] = field(default_factory=list)
    click_ms: list[float] = field(default_factory=list)
    error: str | None = None

    @property
    def tti_median(self) -> float | None:
        return statistics.median(self.tti_ms) if self.tti_ms else None

    @property
    def click_median(self) -> float | None:
        return statistics.median(self.click_ms) if self.click_ms else None


def default_notebooks() -> list[str]:
    """The bare button, the language chooser, every ``lessons/*/[0-9]*.ipynb`` and each
    language's glossary and rules pages (paths as served)."""
    pages = sorted(
        p.relative_to(app.LESSONS_DIR).as_posix()
        for pattern in ("*/[0-9][0-9]-*.ipynb", "*/glossary.ipynb", "*/rules.ipynb")
        for p in app.LESSONS_DIR.glob(pattern)
    )
    return [BARE, "index.ipynb", *pages]


#: The glossary and rules pages are ready when their generated text is laid out.
REFERENCE_READY = ".ct-reference h1"


def load_order(names: Sequence[str]) -> list[str]:
    """One round of loads: ``names`` in order, with the bare page (if among them) loaded again
    before each language's pages. The bare page is the ratio's denominator: loaded once per
    round it was timed in one place only (after the last language's reference pages), and its
    median of a few loads set every page's ratio; loaded among the lessons, it is timed under
    the same conditions as they are, with several times the loads."""
    order: list[str] = []
    interleave = BARE in names
    folder = None
    for name in names:
        here = name.split("/", 1)[0] if "/" in name else ""
        if interleave and name != BARE and here != folder and here in LANGUAGES:
            order.append(BARE)
        folder = here
        order.append(name)
    return order


def has_game(notebook: str) -> bool:
    """Whether lesson ``notebook`` (path as served) plays a mini-game (calls ``play(...)``)."""
    try:
        cells = json.loads((app.LESSONS_DIR / notebook).read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError):
        return True  # not a lessons/ file: expect the card table
    return any(
        cell.get("cell_type") == "code" and "play(" in "".join(cell.get("source", []))
        for cell in cells
    )


def ready_selector(notebook: str) -> str:
    if notebook == BARE:
        return BARE_ACTION.click
    if notebook.endswith(("/glossary.ipynb", "/rules.ipynb")):
        return REFERENCE_READY
    return LESSON_READY if has_game(notebook) else PROSE_READY


def action_for(notebook: str) -> Action | None:
    if notebook == BARE:
        return BARE_ACTION
    return LESSON_ACTIONS.get(notebook) or LESSON_ACTIONS.get("*")


# Installed before any page script: records when `selector` first matches a laid-out element,
# and when Voilà showed the cells (loading screen gone), to give up on pages without it.
_READY_SCRIPT = """
(() => {
  const selector = %s;
  const bench = window.__ctBench = {ready: null, shown: null};
  const check = () => {
    if (bench.ready !== null) return;
    const el = document.querySelector(selector);
    if (el && el.getClientRects().length > 0) {
      bench.ready = performance.now();
      observer.disconnect();
      return;
    }
    const cells = document.getElementById("rendered_cells");
    if (bench.shown === null && cells && cells.style.display !== "none"
        && !document.getElementById("loading")) {
      bench.shown = performance.now();
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, {childList: true, subtree: true, attributes: true});
})();
"""
#: How long after Voilà shows the cells a page may take to draw its interactive element.
GRACE_MS = 5_000

# Armed before a click: t0 = the click event's timestamp, t1 = first mutation under `changes`.
_ARM_CLICK = """
(changes) => {
  const clock = window.__ctClick = {t0: null, t1: null};
  const target = document.querySelector(changes);
  if (!target) throw new Error("no element matches " + changes);
  const observer = new MutationObserver(() => {
    if (clock.t0 !== null && clock.t1 === null) {
      clock.t1 = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(target, {childList: true, subtree: true, characterData: true, attributes: true});
  window.addEventListener("click", (event) => {
    if (clock.t0 === null) clock.t0 = event.timeStamp;
  }, {capture: true, once: true});
}
"""


def _load(context: BrowserContext, url: str, selector: str) -> tuple[Page, float]:
    page = context.new_page()
    page.add_init_script(_READY_SCRIPT % json.dumps(selector))
    page.goto(url, wait_until="commit", timeout=PAGE_TIMEOUT_MS)
    page.wait_for_function(
        "grace => (b => b && (b.ready !== null"
        " || (b.shown !== null && performance.now() - b.shown > grace)))(window.__ctBench)",
        arg=GRACE_MS,
        timeout=PAGE_TIMEOUT_MS,
    )
    ready = page.evaluate("window.__ctBench.ready")
    if ready is None:
        page.close(run_before_unload=True)
        raise NotInteractive(f"no {selector} within {GRACE_MS // 1000} s of the cells showing")
    return page, float(ready)


def _wait_for_warm_kernels(server_pid: int, count: int, timeout: float = 120.0) -> int:
    """Wait until the server's ``count`` warm kernels are running and idle (their resident
    memory no longer grows); return one's resident memory in bytes (0 when ``count`` is 0)."""
    if count <= 0:
        return 0
    deadline = time.monotonic() + timeout
    while len(app.kernel_pids(server_pid)) < count and time.monotonic() < deadline:
        time.sleep(0.2)
    previous = -1
    while time.monotonic() < deadline:  # warm: the widgets imported, memory steady
        sizes = [app.resident_bytes(pid) for pid in app.kernel_pids(server_pid)]
        total = sum(sizes)
        if total == previous:
            return max(sizes) if sizes else 0
        previous = total
        time.sleep(1.0)
    return 0


#: The server is quiet when, over :data:`QUIET_WINDOW_S`, it and its kernels used at most this
#: many clock ticks (``/proc``'s ``utime + stime``, 1/100 s each): under 7 % of one CPU.
QUIET_TICKS = 2
QUIET_WINDOW_S = 0.3
#: A load waits at most this long for a quiet server (then goes ahead, counted in the report).
QUIET_TIMEOUT_S = 60.0


def _cpu_ticks(pid: int) -> int:
    """A process's CPU time so far in clock ticks (Linux ``/proc``), 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])  # utime, stime


def _kernel_id(pid: int) -> str:
    """The id of the kernel running as process ``pid`` (from its connection file's name)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""
    found = re.search(r"kernel-([0-9a-f-]{36})\.json", cmdline)
    return found.group(1) if found else ""


def _server_state(server_pid: int, pages: Set[str] = frozenset()) -> tuple[int, int]:
    """(how many kernels the server runs that are not one of ``pages``' kernels, CPU ticks of
    the server and all its kernels so far). A closed page whose shutdown beacon was lost keeps
    its kernel until the idle culler's 5 minutes: idle, it is not waited for."""
    kernels = app.kernel_pids(server_pid)
    spares = [pid for pid in kernels if _kernel_id(pid) not in pages]
    return len(spares), sum(_cpu_ticks(pid) for pid in [server_pid, *kernels])


#: The page's kernel id, as Voilà wrote it into the page ("" for a page without a kernel).
_PAGE_KERNEL = (
    "(e => e ? (JSON.parse(e.textContent).kernelId || '') : '')"
    "(document.getElementById('jupyter-config-data'))"
)


def wait_for_quiet(
    state: Callable[[], tuple[int, int]],
    kernels: int,
    *,
    window: float = QUIET_WINDOW_S,
    ticks: int = QUIET_TICKS,
    timeout: float = QUIET_TIMEOUT_S,
) -> bool:
    """Wait until the server runs exactly ``kernels`` kernels (its warm ones: the pages before
    have shut theirs down and the pool has refilled) and it and they have been idle for a
    ``window`` (at most ``ticks`` of CPU); ``state`` is :func:`_server_state` for the server.
    False when ``timeout`` passed first.

    Each page is then timed in the same conditions, those a learner meets who opens a lesson
    after reading the one before: loaded back to back, a page was timed while the kernel that
    replaced the previous page's warm one was starting, on the same 2 CPUs, and its figure
    depended on which page came before it."""
    deadline = time.monotonic() + timeout
    count, used = state()
    while time.monotonic() < deadline:
        time.sleep(window)
        now_count, now_used = state()
        if now_count == count == kernels and now_used - used <= ticks:
            return True
        count, used = now_count, now_used
    return False


def _click(page: Page, action: Action) -> float:
    if action.prepare is not None:
        action.prepare(page)
    page.evaluate(_ARM_CLICK, action.changes)
    page.locator(action.click).first.click()
    page.wait_for_function("window.__ctClick.t1 !== null", timeout=CLICK_TIMEOUT_MS)
    clock = page.evaluate("window.__ctClick")
    page.wait_for_timeout(50)  # let the kernel go idle before the next click
    return float(clock["t1"] - clock["t0"])


#: "Next lesson": from a click on the navigation link of lesson 2 to lesson 3's game, ready.
NEXT_FROM, NEXT_TO = "02-deal-and-turn.ipynb", "03-melds-canastas.ipynb"
#: Seconds a learner reads lesson 2, once its game is drawn, before clicking "next lesson"
#: (a lesson takes minutes; a few seconds is the least anyone spends on one).
READING_S = 5.0
_LESSON_DRAWN = (
    "(e => !!e && e.getClientRects().length > 0)(document.querySelector('[data-ct-card]'))"
)


def _next_lesson_tab_ms(
    tab: TabBrowser, base: str, lang: str, reading: float
) -> tuple[float, bool]:
    """Milliseconds from a click on lesson 2's link to lesson 3's game drawn, in a browser that
    may prerender lesson 3 (:class:`tests.browser.tabdriver.TabBrowser`) after ``reading`` seconds
    on lesson 2; and whether the page shown was the prerendered one."""
    target = f"/{lang}/{NEXT_TO}"
    seen = len(tab.events)
    tab.goto(base + f"{lang}/{NEXT_FROM}")
    tab.wait_for(_LESSON_DRAWN, timeout=PAGE_TIMEOUT_MS / 1000)
    time.sleep(reading)
    link = json.dumps(f"#rendered_cells a[href='{NEXT_TO}']")
    started = time.perf_counter()
    tab.evaluate(f"Array.from(document.querySelectorAll({link})).pop().click()")
    shown = (
        f"location.pathname.endsWith({json.dumps(target)}) && !document.prerendering"
        f" && {_LESSON_DRAWN}"
    )
    sessions = [tab.page] + [
        e["params"]["sessionId"]
        for e in tab.events[seen:]
        if e["method"] == "Target.attachedToTarget"  # its address may come later
        and e["params"]["targetInfo"].get("subtype") == "prerender"
    ]
    deadline = started + PAGE_TIMEOUT_MS / 1000
    while True:
        for session in sessions:
            with contextlib.suppress(RuntimeError):  # a session gone with its page
                if tab.evaluate(shown, session):
                    elapsed = (time.perf_counter() - started) * 1000
                    tab.show(session)
                    activation = tab.evaluate(
                        "performance.getEntriesByType('navigation')[0].activationStart || 0"
                    )
                    tab.goto("about:blank")  # as a tab closed: the kernel is shut down
                    return elapsed, float(activation) > 0
        if time.perf_counter() > deadline:
            raise NotInteractive(f"{target} was not drawn within {PAGE_TIMEOUT_MS // 1000} s")
        time.sleep(0.005)


def _next_lesson_ms(context: BrowserContext, base: str, lang: str) -> float:
    """Milliseconds from a click on a lesson's "next lesson" link to the next lesson's game
    being usable (its hand drawn): the page load, the kernel and the widget together."""
    page, _tti = _load(context, base + f"{lang}/{NEXT_FROM}", LESSON_READY)
    try:
        link = page.locator(f"#rendered_cells a[href='{NEXT_TO}']").last
        started = time.perf_counter()
        link.click()
        page.wait_for_url(f"**/{lang}/{NEXT_TO}", timeout=PAGE_TIMEOUT_MS)
        page.locator(LESSON_READY).first.wait_for(state="visible", timeout=PAGE_TIMEOUT_MS)
        return (time.perf_counter() - started) * 1000
    finally:
        page.close(run_before_unload=True)


def measure(
    notebooks: Sequence[str] | None = None,
    repeats: int = 5,
    clicks: int = 5,
    preheat: int = app.DEFAULT_PREHEAT,
    reading: float = READING_S,
    quiet: bool = True,
) -> dict[str, Any]:
    """Measure TTI and click-to-update for ``notebooks`` (default :func:`default_notebooks`);
    with ``quiet``, each load waits for a quiet server first (:func:`wait_for_quiet`)."""
    if not Path(app.CHROMIUM).exists():
        raise RuntimeError(f"{app.CHROMIUM} is missing: run `make browser`")
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    names = list(notebooks) if notebooks else default_notebooks()
    next_ms: list[float] = []
    next_read: list[tuple[float, bool]] = []
    next_at_once: list[tuple[float, bool]] = []
    results = {name: PageResult(name, ready_selector(name)) for name in names}
    not_quiet = 0  # loads that found no quiet server within QUIET_TIMEOUT_S
    pages_kernels: set[str] = set()  # the kernels of the pages loaded so far
    with tempfile.TemporaryDirectory(prefix="canasta-bench-") as tmp:
        site = app.link_site(Path(tmp) / "site", {BENCH_PREFIX: BARE_SOURCE})
        port = app.free_port()
        started = time.perf_counter()
        log_path = Path(tmp) / "voila.log"
        with open(log_path, "wb") as log:
            server = app.start_server(port, site, preheat=preheat, stdout=log, stderr=log)
            try:
                app.wait_for_port(port, timeout=120, proc=server)
                server_start_s = time.perf_counter() - started
                base = f"http://{app.HOST}:{port}/voila/render/"
                kernel_memory = _wait_for_warm_kernels(server.pid, preheat)
                with sync_playwright() as p:
                    context = p.chromium.launch_persistent_context(
                        str(Path(tmp) / "profile"),
                        executable_path=app.CHROMIUM,
                        headless=True,
                        args=app.CHROMIUM_ARGS,
                        viewport={"width": 1100, "height": 800},
                    )
                    # As a browser without the Speculation Rules API: Playwright's Chromium
                    # asks for the next lesson's prerender but never shows it, and each such page
                    # would run its notebook on the server while the next page is being timed.
                    context.add_init_script(NO_SPECULATION_RULES)
                    try:
                        # Warm-up (discarded): Chromium's cache and the server's first render.
                        page, _ = _load(context, base + BARE, BARE_ACTION.click)
                        pages_kernels.add(str(page.evaluate(_PAGE_KERNEL)))
                        _click(page, BARE_ACTION)
                        page.close(run_before_unload=True)  # as a tab close: kernel shut down
                        for _ in range(repeats):
                            for name in load_order(names):
                                result = results[name]
                                if result.error:
                                    continue
                                if quiet and not wait_for_quiet(
                                    lambda: _server_state(server.pid, pages_kernels), preheat
                                ):
                                    not_quiet += 1
                                try:
                                    page, tti = _load(context, base + name, result.ready_selector)
                                    pages_kernels.add(str(page.evaluate(_PAGE_KERNEL)))
                                except NotInteractive as exc:
                                    result.error = str(exc)
                                    continue
                                except PlaywrightError as exc:
                                    first_line = str(exc).strip().splitlines()[0]
                                    result.error = f"not interactive: {first_line}"
                                    continue
                                result.tti_ms.append(tti)
                                action = action_for(name)
                                try:
                                    if action is not None:
                                        _click(page, action)  # warm-up click, discarded
                                        for _ in range(clicks):
                                            result.click_ms.append(_click(page, action))
                                except PlaywrightError as exc:
                                    first_line = str(exc).strip().splitlines()[0]
                                    result.error = f"click failed: {first_line}"
                                finally:
                                    page.close(
                                        run_before_unload=True
                                    )  # as a tab close: kernel shut down
                        for _ in range(repeats):
                            for lang in LANGUAGES:
                                with contextlib.suppress(PlaywrightError, NotInteractive):
                                    next_ms.append(_next_lesson_ms(context, base, lang))
                    finally:
                        context.close()
                # The next lesson in a browser that prerenders it (see the module's docstring):
                # a browser per click, one profile (its cache and cookie) for all.
                for _ in range(repeats):
                    for lang in LANGUAGES:
                        for wait, into in ((reading, next_read), (0.0, next_at_once)):
                            with (
                                contextlib.suppress(NotInteractive, RuntimeError, TimeoutError),
                                TabBrowser(Path(tmp) / "tab-profile") as tab,
                            ):
                                into.append(_next_lesson_tab_ms(tab, base, lang, wait))
            finally:
                app.stop_server(server)
    return {
        "server_start_s": server_start_s,
        "next_lesson_ms": next_ms,
        "reading_s": reading,
        "next_lesson_after_reading": next_read,
        "next_lesson_at_once": next_at_once,
        "warm_kernel_bytes": kernel_memory,
        "preheat": preheat,
        "quiet": quiet,
        "not_quiet": not_quiet,
        "repeats": repeats,
        "clicks": clicks,
        "pages": [
            {
                "notebook": r.notebook,
                "ready_selector": r.ready_selector,
                "tti_ms": r.tti_ms,
                "tti_median_ms": r.tti_median,
                "click_ms": r.click_ms,
                "click_median_ms": r.click_median,
                "error": r.error,
            }
            for r in results.values()
        ],
    }


def report(result: dict[str, Any]) -> str:
    pages = result["pages"]
    bare = next((p for p in pages if p["notebook"] == BARE), None)
    bare_tti = bare["tti_median_ms"] if bare else None
    bare_click = bare["click_median_ms"] if bare else None

    def mark(ok: bool) -> str:
        return "ok" if ok else "MISSED"

    def ms(value: float | None) -> str:
        return f"{value:8.0f}" if value is not None else "       -"

    lines = [
        f"app: Voilà + Chromium, {result['repeats']} loads per page, {result['clicks']} clicks "
        f"per load, medians; server start {result['server_start_s']:.1f} s"
        + (f", {result['preheat']} warm kernels" if result["preheat"] else ", no warm kernels"),
        (
            "  each load on a quiet server (its warm kernels ready, it and they idle)"
            + (f"; {result['not_quiet']} loads did not find one" if result["not_quiet"] else "")
            if result.get("quiet")
            else "  pages loaded back to back (--back-to-back)"
        ),
        f"  {'page':40s} {'TTI ms':>8s} {'x bare':>7s}      {'click ms':>8s} {'x bare':>7s}",
    ]
    for p in pages:
        tti, click = p["tti_median_ms"], p["click_median_ms"]
        line = f"  {p['notebook']:40s} {ms(tti)}"
        if p["notebook"] == BARE and tti is not None:
            line += f" {len(p['tti_ms']):3d} loads "
        elif p["notebook"] == BARE or tti is None or not bare_tti:
            line += " " * 13
        else:
            ratio = tti / bare_tti
            line += f" {ratio:6.2f}x {mark(ratio <= TARGETS['tti_ratio']):4s}"
        if click is not None:
            line += f" {click:8.1f}"
            if p["notebook"] == BARE:
                line += f"          {mark(click < TARGETS['click_ms'])} (< 100 ms)"
            elif bare_click:
                ratio = click / bare_click
                ok = ratio <= TARGETS["click_ratio"] and click < TARGETS["click_ms"]
                line += f" {ratio:6.2f}x {mark(ok)}"
        elif p["notebook"] != BARE and p["error"] is None:
            if has_game(p["notebook"]):
                line += "        - (no action in LESSON_ACTIONS)"
            else:
                line += "        - (no mini-game: TTI only)"
        if p["error"]:
            line += f"  [{p['error']}]"
        lines.append(line)
    lessons = [p for p in pages if p["notebook"] != BARE]
    if not lessons:
        lines.append("  (no lessons/*/0*.ipynb yet: lesson targets not checked)")
    lines.append(
        "  next lesson (a click on lesson 2's link to lesson 3's game drawn, all languages):"
    )
    read = result.get("next_lesson_after_reading") or []
    if read:
        times = [ms for ms, _ in read]
        ok = statistics.median(times) <= TARGETS["next_ms"]
        lines.append(
            f"    after reading {result['reading_s']:g} s:"
            f" median {statistics.median(times):.0f} ms,"
            f" worst {max(times):.0f} ms ({len(times)} clicks,"
            f" {sum(1 for _, p in read if p)} on a prerendered page)"
            f"  {mark(ok)} (target median <= {TARGETS['next_ms']:.0f} ms)"
        )
    at_once = result.get("next_lesson_at_once") or []
    if at_once:
        times = [ms for ms, _ in at_once]
        lines.append(
            f"    clicked at once:   median {statistics.median(times):.0f} ms,"
            f" worst {max(times):.0f} ms ({len(times)} clicks,"
            f" {sum(1 for _, p in at_once if p)} on a prerendered page)"
        )
    if result.get("next_lesson_ms"):
        next_ms = result["next_lesson_ms"]
        lines.append(
            f"    without prerendering (Playwright): median {statistics.median(next_ms):.0f} ms,"
            f" worst {max(next_ms):.0f} ms ({len(next_ms)} clicks)"
        )
    if result.get("warm_kernel_bytes"):
        lines.append(
            f"  memory of one warm kernel (resident, before any page): "
            f"{result['warm_kernel_bytes'] / 2**20:.0f} MB"
        )
    lines += _lesson_summary(lessons, bare_tti, bare_click)
    lines.append(
        f"  targets: lesson TTI <= {TARGETS['tti_ratio']}x bare; lesson click-to-update <= "
        f"{TARGETS['click_ratio']}x bare and < {TARGETS['click_ms']:.0f} ms; next lesson <= "
        f"{TARGETS['next_ms']:.0f} ms"
    )
    return "\n".join(lines)


def _lesson_summary(
    lessons: list[dict[str, Any]], bare_tti: float | None, bare_click: float | None
) -> list[str]:
    """Lessons with a mini-game against the bare button: the median of their medians and the
    worst lesson, each with its ratio; "ok" only when every such lesson meets the target."""
    games = [p for p in lessons if has_game(p["notebook"])]
    if not games:
        return []
    lines = [f"  lessons with a mini-game ({len(games)}), against the bare button:"]
    errors = [p["notebook"] for p in games if p["error"]]
    tti = [p["tti_median_ms"] for p in games if p["tti_median_ms"] is not None]
    if tti and bare_tti:
        worst = max(tti)
        ok = worst / bare_tti <= TARGETS["tti_ratio"]
        lines.append(
            f"    time to interactive: median {statistics.median(tti):.0f} ms"
            f" ({statistics.median(tti) / bare_tti:.2f}x bare {bare_tti:.0f} ms),"
            f" worst {worst:.0f} ms ({worst / bare_tti:.2f}x)"
            f"  {'ok' if ok else 'MISSED'} (target <= {TARGETS['tti_ratio']}x)"
        )
    clicks = [p["click_median_ms"] for p in games if p["click_median_ms"] is not None]
    if clicks and bare_click:
        worst = max(clicks)
        ok = worst / bare_click <= TARGETS["click_ratio"] and worst < TARGETS["click_ms"]
        lines.append(
            f"    click to update:     median {statistics.median(clicks):.1f} ms"
            f" ({statistics.median(clicks) / bare_click:.2f}x bare {bare_click:.1f} ms),"
            f" worst {worst:.1f} ms ({worst / bare_click:.2f}x)"
            f"  {'ok' if ok else 'MISSED'} (target <= {TARGETS['click_ratio']}x and"
            f" < {TARGETS['click_ms']:.0f} ms)"
        )
    if errors:
        lines.append(f"    not measured (see above): {', '.join(errors)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="paths as served (default: bare + lessons)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--clicks", type=int, default=5)
    parser.add_argument(
        "--preheat",
        type=int,
        default=app.DEFAULT_PREHEAT,
        metavar="N",
        help=f"warm kernels (default {app.DEFAULT_PREHEAT}, as `make app`; 0: none)",
    )
    parser.add_argument(
        "--reading",
        type=float,
        default=READING_S,
        metavar="S",
        help=f"seconds a learner reads lesson 2 before clicking its next-lesson link "
        f"(default {READING_S:g})",
    )
    parser.add_argument(
        "--back-to-back",
        action="store_true",
        help="load each page as soon as the one before is closed, without waiting for a "
        "quiet server",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        result = measure(
            args.notebooks or None,
            args.repeats,
            args.clicks,
            args.preheat,
            args.reading,
            quiet=not args.back_to_back,
        )
    except RuntimeError as exc:
        print(f"app_bench: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2) if args.json else report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
