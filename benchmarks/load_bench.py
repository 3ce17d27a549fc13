"""Load benchmark: a class of learners on one server.

One Voilà server (``canasta_teach.app.start_server``, as ``make app`` starts it, with its kernel
cap) and Debian's Chromium. For each N (default 10, 25, 50), lesson 3 in the four languages in
turn:

- the server alone: N page requests at once (N threads, plain HTTP, as N learners' browsers
  send them); each is timed until the whole page has arrived, which is when Voilà has started
  its kernel and run the lesson (what the server must do per learner, without a browser on the
  same CPUs); the kernels are then shut down as closed tabs do;
- in Chromium: N tabs opened at once, each timed to its hand drawn. The browser runs on the same
  two CPUs as the server and the kernels, so these times are an upper bound of what learners on
  their own devices see.

Then, with the N tabs open:

- time to interactive of each page (navigation start to the hand drawn, as ``app_bench``), as
  median and worst; pages turned away by the cap (503, "too many learners") are counted;
- memory: the server's resident set and the sum of its kernels' (``/proc``), and per kernel;
- click-to-update under load: with all N pages open, Meld pressed on a sample of pages (a
  refusal, answered by the kernel), event to first change of the message area;
- the cap: the server's cap on this machine and the N from which learners are turned away,
  verified at the end with a small cap (``--verify-cap``, N = cap + 5: exactly 5 turned away,
  else the exit status is 1).

All tabs are then closed (each closed tab shuts its kernel down) before the next N.

``python -m benchmarks.load_bench [--sizes 10 25 50] [--clicks 5] [--max-kernels K] [--json]``
"""

from __future__ import annotations

import argparse
import contextlib
import http.cookiejar
import json
import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from canasta_teach import app, hardening

from .app_bench import (
    _READY_SCRIPT,
    LESSON_READY,
    MELD_REFUSAL,
    PAGE_TIMEOUT_MS,
    _click,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

LESSON = "03-melds-canastas.ipynb"
LANGS = ("en", "ur", "hi", "te")


def _wait_no_kernels(server_pid: int, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while app.kernel_pids(server_pid) and time.monotonic() < deadline:
        time.sleep(0.25)


#: Under load a page's widget may draw long after Voilà shows its cells.
LOAD_GRACE_MS = 90_000


def _server_only(base: str, n: int) -> dict[str, Any]:
    """``n`` page requests at once; each timed to its last byte; then their kernels shut down."""
    times: list[float] = [0.0] * n
    statuses: list[int] = [0] * n
    kernels: list[tuple[str, Any]] = []
    lock = threading.Lock()
    barrier = threading.Barrier(n)

    def learner(i: int) -> None:
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        barrier.wait()
        start = time.perf_counter()
        try:
            with opener.open(f"{base}{LANGS[i % len(LANGS)]}/{LESSON}", timeout=600) as response:
                body = response.read().decode("utf-8", "replace")
                statuses[i] = response.status
        except urllib.error.HTTPError as error:
            statuses[i] = error.code
            body = ""
        times[i] = time.perf_counter() - start
        match = re.search(r'"kernelId"\s*:\s*"([0-9a-f-]{36})"', body)
        if match:
            with lock:
                kernels.append((match.group(1), (opener, jar)))

    threads = [threading.Thread(target=learner, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    served = [t for t, s in zip(times, statuses, strict=True) if s == 200]
    result = {
        "served": len(served),
        "refused": sum(1 for s in statuses if s == 503),
        "page_median_s": statistics.median(served) if served else None,
        "page_worst_s": max(served) if served else None,
    }
    root = base.split("/voila/render/")[0]
    for kernel_id, (opener, jar) in kernels:
        xsrf = next((c.value for c in jar if c.name == "_xsrf"), "")
        request = urllib.request.Request(
            f"{root}/voila/api/shutdown/{kernel_id}", data=b"", headers={"X-XSRFToken": xsrf}
        )
        with contextlib.suppress(urllib.error.URLError):
            opener.open(request, timeout=60).close()
    return result


@dataclass
class OpenedClass:
    pages: list[Page]  # usable
    ttis: list[float]  # of the pages usable at the first try
    refused: int  # turned away by the cap
    reopened: int  # pages the template had to open again
    contexts: list[BrowserContext]


def _open_class(browser: Browser, base: str, n: int, shots: Path | None = None) -> OpenedClass:
    """Open ``n`` lesson pages at once, each in its own browser context (a learner's own
    browser: Chromium allows 6 connections per host and profile, and Voilà streams each page
    over one)."""
    pages: list[Page] = []
    statuses: list[int] = []
    contexts: list[BrowserContext] = []
    for i in range(n):
        context = browser.new_context(viewport={"width": 1100, "height": 800})
        contexts.append(context)
        page = context.new_page()
        page.add_init_script(_READY_SCRIPT % json.dumps(LESSON_READY))
        response = page.goto(
            f"{base}{LANGS[i % len(LANGS)]}/{LESSON}", wait_until="commit", timeout=PAGE_TIMEOUT_MS
        )
        statuses.append(response.status if response is not None else 0)
        pages.append(page)
    usable: list[Page] = []
    ttis: list[float] = []
    reopened = 0
    for page, status in zip(pages, statuses, strict=True):
        if status != 200:
            continue
        page.wait_for_function(
            "grace => (b => b && (b.ready !== null"
            " || (b.shown !== null && performance.now() - b.shown > grace)))(window.__ctBench)",
            arg=LOAD_GRACE_MS,
            timeout=PAGE_TIMEOUT_MS * 5,
        )
        ready = page.evaluate("window.__ctBench.ready")
        if page.evaluate("() => performance.getEntriesByType('navigation')[0].type") == "reload":
            # The template opened the page again (a game that could not start): playable, but
            # its clock restarted with the reload, so its time is not counted with the others.
            reopened += 1
            if ready is not None:
                usable.append(page)
            continue
        if ready is not None:
            usable.append(page)
            ttis.append(float(ready))
        elif shots is not None:  # keep what a learner would have seen, to find out why
            name = f"not-interactive-{len(pages)}-{len(usable)}"
            page.locator(".jp-OutputArea").last.scroll_into_view_if_needed()
            page.screenshot(path=str(shots / f"{name}.png"))
            state = page.evaluate(
                "() => [...document.querySelectorAll('.jp-OutputArea-output')].map("
                "e => e.innerText.slice(0, 200))"
            )
            (shots / f"{name}.txt").write_text(json.dumps(state, ensure_ascii=False, indent=1))
    refused = sum(1 for s in statuses if s == 503)
    return OpenedClass(usable, ttis, refused, reopened, contexts)


def _close(pages: list[Page]) -> None:
    for page in pages:
        page.close(run_before_unload=True)


def _memory(server_pid: int) -> dict[str, float]:
    kernels = app.kernel_pids(server_pid)
    sizes = [app.resident_bytes(pid) for pid in kernels]
    mb = 1024 * 1024
    return {
        "server_mb": app.resident_bytes(server_pid) / mb,
        "kernels": len(kernels),
        "kernels_mb": sum(sizes) / mb,
        "per_kernel_mb": (statistics.median(sizes) / mb) if sizes else 0.0,
    }


def measure(
    sizes: list[int],
    clicks: int,
    max_kernels: int | None,
    verify_cap: int,
    shots: Path | None = None,
) -> Any:
    from playwright.sync_api import sync_playwright

    cap = max_kernels if max_kernels is not None else hardening.kernel_budget()
    results: dict[str, Any] = {"cap": cap, "cpus": _cpus(), "sizes": []}
    with tempfile.TemporaryDirectory(prefix="canasta-load-") as tmp:
        site = app.link_site(Path(tmp) / "site")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=app.CHROMIUM, args=app.CHROMIUM_ARGS)
            try:
                runs = [("load", n, cap) for n in sizes] + [("cap", verify_cap + 5, verify_cap)]
                for label, n, server_cap in runs:
                    # A fresh server for each N: a tab closed before its page finished loading
                    # sends no shutdown beacon, and its kernel would count against the next N
                    # until the 5-minute cull.
                    port = app.free_port()
                    log = open(Path(tmp) / f"voila-{label}-{n}.log", "wb")  # noqa: SIM115
                    # Every learner here comes from this one machine: no share per address
                    # (the whole class is one address).
                    options = {"max_kernels": server_cap, "per_address": 0}
                    proc = app.start_server(port, site, options=options, stdout=log, stderr=log)
                    try:
                        app.wait_for_port(port, timeout=120, proc=proc)
                        base = f"http://127.0.0.1:{port}/voila/render/"
                        idle = app.resident_bytes(proc.pid) / 1024 / 1024
                        alone = _server_only(base, n)
                        _wait_no_kernels(proc.pid)
                        started = time.perf_counter()
                        opened = _open_class(browser, base, n, shots)
                        pages, ttis = opened.pages, opened.ttis
                        wall = time.perf_counter() - started
                        memory = _memory(proc.pid)
                        click_ms = [_click(page, MELD_REFUSAL) for page in pages[:clicks]]
                        row = {
                            "label": label,
                            "n": n,
                            "cap": server_cap,
                            "interactive": len(pages),
                            "reopened": opened.reopened,
                            "refused": opened.refused,
                            "tti_median_ms": statistics.median(ttis) if ttis else None,
                            "tti_worst_ms": max(ttis) if ttis else None,
                            "all_ready_s": wall,
                            "click_median_ms": statistics.median(click_ms) if click_ms else None,
                            "click_worst_ms": max(click_ms) if click_ms else None,
                            "server_idle_mb": idle,
                            **memory,
                            "server_only": alone,
                        }
                        results["sizes"].append(row)
                        print(_line(row), flush=True)
                        _close(pages)
                        for context in opened.contexts:
                            context.close()
                    finally:
                        app.stop_server(proc)
                        log.close()
            finally:
                browser.close()
    return results


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _line(row: dict[str, Any]) -> str:
    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:,.0f} ms"

    def s(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f} s"

    alone = row["server_only"]
    return (
        f"N={row['n']:>3} (cap {row['cap']}): server alone: {alone['served']} pages served, "
        f"{alone['refused']} turned away, page median {s(alone['page_median_s'])}, worst "
        f"{s(alone['page_worst_s'])}\n"
        f"       in Chromium on the same CPUs: {row['interactive']} interactive "
        f"({row['reopened']} after the page opened itself again), "
        f"{row['refused']} turned away; TTI median {ms(row['tti_median_ms'])}, "
        f"worst {ms(row['tti_worst_ms'])}; click median {ms(row['click_median_ms'])}, "
        f"worst {ms(row['click_worst_ms'])}; server {row['server_mb']:.0f} MB "
        f"(idle {row['server_idle_mb']:.0f} MB), {row['kernels']} kernels "
        f"{row['kernels_mb']:,.0f} MB ({row['per_kernel_mb']:.0f} MB each)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 25, 50])
    parser.add_argument("--clicks", type=int, default=5)
    parser.add_argument("--max-kernels", type=int, default=None, help="default: the server's")
    parser.add_argument("--verify-cap", type=int, default=8, help="cap of the refusal check")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not Path(app.CHROMIUM).exists():
        print(f"load_bench: {app.CHROMIUM} is missing (make browser)", file=sys.stderr)
        return 1
    shots = Path(__file__).resolve().parent.parent / "test-artifacts"
    shots.mkdir(exist_ok=True)
    result = measure(args.sizes, args.clicks, args.max_kernels, args.verify_cap, shots)
    print(
        f"cap on this machine ({result['cpus']} CPUs): {result['cap']} kernels; "
        f"learners are turned away from N = {result['cap'] + 1}"
    )
    if args.json:
        print(json.dumps(result, indent=2))
    return 0 if _cap_held(result, args.verify_cap) else 1


def _cap_held(result: dict[str, Any], cap: int) -> bool:
    """The refusal check: with N = cap + 5 learners, exactly ``cap`` served and 5 turned away,
    by the server alone and in Chromium."""
    (row,) = [r for r in result["sizes"] if r["label"] == "cap"]
    alone = row["server_only"]
    in_chromium = (row["interactive"], row["refused"])
    held = (alone["served"], alone["refused"]) == (cap, 5) and in_chromium == (cap, 5)
    print(
        f"cap check (cap {cap}, {cap + 5} learners): server alone {alone['served']} served / "
        f"{alone['refused']} turned away; Chromium {row['interactive']} interactive / "
        f"{row['refused']} turned away: {'PASS' if held else 'FAIL'}"
    )
    return held


if __name__ == "__main__":
    raise SystemExit(main())
