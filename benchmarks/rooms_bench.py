"""Play with friends: how long a move takes to reach the other players, with 1, 10 and 50 rooms
playing at once on one server, on each room store (SQLite, the default, and Redis).

Each room is a two-player Classic game between two people.  Each seat is a real ``RoomTable``
(what a room page's kernel runs: its watch task, its replica of the game, its table drawn in its
own language, every comm message serialized to JSON), and a room's two seats live in different
processes, as two visitors' kernels do.  Seats are spread over up to ``--processes`` worker
processes (one event loop each, many seats per loop, as many kernels on a busy server), so
100 seats do not need 100 Pythons.  A player thinks ``--think`` seconds (drawn at random in the
range) before each move, draws from the stock and throws away a card; a hand that ends is moved
on by South.

Two figures for each store and each N:

- **browser to browser**: one of the N rooms is played by two real Chromium browsers (a profile
  each: two people, one page in Urdu, one in Hindi) on a Voilà server whose kernels use the
  store, joined by the room's link; from the click in one page (read in that page) to the new
  line in the other page's narration (read by a MutationObserver there); one clock, this
  machine's.  This is the issue's figure: everything between two people's screens.
- **kernel to kernel**, over the other N - 1 rooms: from the moment the mover's kernel receives
  the click (the intent reaches ``RoomTable``) to the moment the other seat's kernel has sent its
  redrawn table (the comm message its browser draws).

Everything (the server, its kernels, the simulated kernels, Chromium) shares this machine's CPUs,
so the figures are an upper bound of what players on their own devices see.  Without Chromium
(``--no-browser``, or no ``/usr/bin/chromium``) all N rooms are simulated kernels.

Redis is a ``redis-server`` this benchmark starts on a free loopback port (skipped when the
binary is missing).

Then, with hard computer players: ``--hard-rooms`` rooms (3) of one person and three hard
computer players played flat out (each in its own process), each move timed from the person's
submit to the computers' answer, and another room's heartbeat timed meanwhile (it must not wait
for their thinking).

    python -m benchmarks.rooms_bench [--sizes 1 10 50] [--stores sqlite redis]
        [--duration 30] [--think 0.4 1.2] [--processes 8] [--no-browser] [--json]
        [--hard-rooms 3] [--hard-duration 20] [--hard-only]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from canasta_teach.rooms.localredis import redis_available, redis_server

#: Targets (seconds): a move should reach the other player well within a human's glance.
TARGET_MEDIAN_S = 0.25
TARGET_P95_S = 1.0
LANGS = ("en", "ur", "hi", "te")


# ---------------------------------------------------------------------- the stores


# ---------------------------------------------------------------------- one worker (kernels)


def _seat_worker(url: str, seats: list[dict[str, Any]], start_at: float, stop_at: float,
                 think: tuple[float, float], seed: int) -> dict[str, Any]:  # fmt: skip
    """Run ``seats`` (each a RoomTable with its watch) until ``stop_at``; when each move was
    sent by its mover and when each seat saw each move (``time.monotonic``: one clock for every
    process of this machine)."""
    return asyncio.run(_seats(url, seats, start_at, stop_at, think, seed))


async def _seats(url: str, seats: list[dict[str, Any]], start_at: float, stop_at: float,
                 think: tuple[float, float], seed: int) -> dict[str, Any]:  # fmt: skip
    from canasta_teach.engine import Discard, Kind
    from canasta_teach.engine.cards import TOKENS
    from canasta_teach.engine.state import Phase
    from canasta_teach.i18n import get_translator
    from canasta_teach.rooms import Rooms, open_store
    from canasta_teach.widgets.friends import RoomTable

    sent: list[tuple[str, int, int, float]] = []
    seen: list[tuple[str, int, int, float]] = []
    rng = random.Random(seed)
    store = open_store(url)
    rooms = Rooms(store)

    class Seat(RoomTable):
        """A room page's kernel whose redraws are timed."""

        seen_moves = -1
        turn = asyncio.Event()

        def render(self) -> None:
            super().render()
            moves = len(self.replica.moves) if self.replica is not None else 0
            if self.seen_moves < 0:
                self.seen_moves = moves  # what the room held when this seat came
            now = time.monotonic()
            for k in range(self.seen_moves, moves):
                seen.append((self.code or "", k, self.seat, now))
            self.seen_moves = max(self.seen_moves, moves)
            self.turn.set()

    def comm_send(data: Any = None, metadata: Any = None, buffers: Any = None) -> None:
        json.dumps(data)  # what the kernel's session does to every message

    async def play(table: Seat) -> None:
        while time.monotonic() < stop_at:
            table.turn.clear()
            snap = table.snapshot
            state = table.controller.state
            record = snap.doc.get("game") if snap is not None else None
            if record is not None and record["awaiting_next"]:
                if table.seat == 0:
                    await asyncio.sleep(rng.uniform(*think))
                    table._on_control("next_hand")
                    continue
            elif record is not None and state.to_move == table.seat and not state.is_over:
                await asyncio.sleep(rng.uniform(*think))
                if time.monotonic() >= stop_at:
                    return
                state = table.controller.state
                if state.to_move != table.seat or state.is_over:
                    continue
                assert table.replica is not None
                k = len(table.replica.moves)
                if state.phase is Phase.DRAW:
                    intent: dict[str, Any] = {"action": "draw", "cards": []}
                else:
                    hand = state.hands[table.seat]
                    held = [Kind(i) for i, n in enumerate(hand) if n]
                    kind = next(c for c in held if state.check(Discard(c)).legal)
                    intent = {"action": "discard", "cards": [TOKENS[kind]]}
                sent.append((table.code or "", k, table.seat, time.monotonic()))
                table.controller.intent(intent)
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(table.turn.wait(), timeout=0.5)

    await asyncio.sleep(max(0.0, start_at - time.monotonic()))
    tables: list[Seat] = []
    for entry in seats:
        lang = LANGS[len(tables) % len(LANGS)]
        table = Seat(get_translator(lang), lang, rooms=rooms)
        table.turn = asyncio.Event()
        table.widget.comm.send = comm_send  # type: ignore[union-attr]
        table.join(entry["code"], entry["token"])
        tables.append(table)
    await asyncio.gather(*(play(t) for t in tables))
    for table in tables:
        table.closed = True
    await asyncio.sleep(0.2)
    store.close()
    return {"sent": sent, "seen": seen}


# ---------------------------------------------------------------------- one size, one store


def _rooms_for(url: str, n: int) -> list[tuple[str, str, str]]:
    """``n`` started two-player rooms: (code, host token, friend token)."""
    from canasta_teach.rooms import Rooms, open_store

    rooms = Rooms(open_store(url))
    made = []
    for i in range(n):
        code, host = rooms.create(LANGS[i % 4], players=2, level="easy")
        _seat, friend = rooms.join(code, None, LANGS[(i + 1) % 4])
        assert friend is not None
        rooms.start(code, host)
        made.append((code, host, friend))
    rooms.store.close()
    return made


def latencies(result: dict[str, Any]) -> list[float]:
    """Each move's delay to the other seat's redraw (seconds)."""
    seen = {(code, k, seat): t for code, k, seat, t in result["seen"]}
    out = []
    for code, k, mover, t0 in result["sent"]:
        other = 1 - mover
        t1 = seen.get((code, k, other))
        if t1 is not None:
            out.append(t1 - t0)
    return out


def run(url: str, n: int, *, duration: float, think: tuple[float, float], processes: int,
        pair: BrowserPair | None = None) -> dict[str, Any]:  # fmt: skip
    """``n`` rooms playing at once for ``duration`` seconds: the simulated kernels' rooms, and
    with ``pair`` one of the ``n`` played by two real browsers meanwhile."""
    simulated = n - 1 if pair is not None else n
    made = _rooms_for(url, simulated)
    workers = max(2, min(processes, 2 * simulated))
    shares: list[list[dict[str, Any]]] = [[] for _ in range(workers)]
    for i, (code, host, friend) in enumerate(made):
        # A room's two seats in two different processes (two visitors' kernels).
        shares[(2 * i) % workers].append({"code": code, "token": host})
        shares[(2 * i + 1) % workers].append({"code": code, "token": friend})
    start_at = time.monotonic() + 4.0  # the workers' imports first
    stop_at = start_at + duration
    results: dict[str, list[Any]] = {"sent": [], "seen": []}
    browser_delays: list[float] = []
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = [
            pool.submit(_seat_worker, url, share, start_at, stop_at, think, seed)
            for seed, share in enumerate(shares)
            if share
        ]
        if pair is not None:
            pair.join_new_room()
            time.sleep(max(0.0, start_at - time.monotonic()))
            browser_delays = pair.play(stop_at, think)
        for future in futures:
            got = future.result()
            results["sent"] += got["sent"]
            results["seen"] += got["seen"]
    row: dict[str, Any] = {"rooms": n, "processes": workers if simulated else 0}
    row["kernel"] = _summary(latencies(results), simulated)
    if pair is not None:
        row["browser"] = _summary(browser_delays, 1)
    return row


def _summary(delays: list[float], rooms: int) -> dict[str, Any] | None:
    if not delays:
        return None
    delays = sorted(delays)
    return {
        "rooms": rooms,
        "samples": len(delays),
        "median_ms": round(statistics.median(delays) * 1000, 1),
        "p95_ms": round(_quantile(delays, 0.95) * 1000, 1),
        "max_ms": round(delays[-1] * 1000, 1),
    }


def _quantile(ordered: list[float], q: float) -> float:
    if len(ordered) == 1:
        return ordered[0]
    return statistics.quantiles(ordered, n=100, method="inclusive")[round(q * 100) - 1]


# ---------------------------------------------------------------------- hard computer players


def _hard_room(url: str, code: str, token: str, stop_at: float, seed: int) -> dict[str, Any]:
    """One person (seat 0) against three hard computer players, as fast as they can: each
    move's time from the submit to the computers having answered (the person to move again)."""
    from canasta_teach.engine.game import Game
    from canasta_teach.engine.rules import preset
    from canasta_teach.rooms import RoomError, Rooms, open_store

    rng = random.Random(seed)
    rooms = Rooms(open_store(url))
    took: list[float] = []
    errors: list[str] = []
    while time.monotonic() < stop_at:
        doc = rooms.read(code).doc
        record = doc["game"]
        if doc["status"] != "playing":
            break
        started = time.monotonic()
        try:
            if record["awaiting_next"]:
                rooms.next_hand(code, token)
            else:
                game = Game.replay(preset(record["rules"]), record["seed"], record["moves"])
                rooms.submit(code, token, rng.choice(game.state.legal_moves()))
        except RoomError as error:
            errors.append(error.code)
        took.append(time.monotonic() - started)
    rooms.store.close()
    return {"moves": took, "errors": errors}


def _other_room(url: str, code: str, token: str, stop_at: float) -> dict[str, Any]:
    """Another room's kernel meanwhile: says "still here" every 0.2 s, each timed."""
    from canasta_teach.rooms import RoomError, Rooms, open_store

    rooms = Rooms(open_store(url))
    took: list[float] = []
    errors: list[str] = []
    while time.monotonic() < stop_at:
        started = time.monotonic()
        try:
            rooms.heartbeat(code, 0)
            rooms.read(code)
        except RoomError as error:
            errors.append(error.code)
        took.append(time.monotonic() - started)
        time.sleep(0.2)
    rooms.store.close()
    return {"moves": took, "errors": errors}


def hard_players(url: str, n: int, *, duration: float) -> dict[str, Any]:
    """``n`` rooms of one person and three hard computer players played flat out for
    ``duration`` seconds (each in its own process), and another room's heartbeat meanwhile."""
    from canasta_teach.rooms import Rooms, open_store

    rooms = Rooms(open_store(url))
    busy = []
    for _ in range(n):
        code, token = rooms.create("en", players=4, level="hard")
        rooms.start(code, token)
        busy.append((code, token))
    other, other_token = rooms.create("en", players=2)
    rooms.store.close()
    stop_at = time.monotonic() + 3.0 + duration  # the workers' imports first
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=n + 1, mp_context=ctx) as pool:
        moving = [pool.submit(_hard_room, url, c, t, stop_at, i) for i, (c, t) in enumerate(busy)]
        beating = pool.submit(_other_room, url, other, other_token, stop_at)
        moves = [f.result() for f in moving]
        beats = beating.result()
    delays = [d for m in moves for d in m["moves"]]
    return {
        "rooms": n,
        "move": _summary(delays, n),
        "heartbeat": _summary(beats["moves"], 1),
        "errors": sorted({e for m in [*moves, beats] for e in m["errors"]}),
    }


def report_hard(stores: list[str], n: int, duration: float) -> list[dict[str, Any]]:
    """``hard_players`` on each store, printed."""
    rows = []
    print(f"{n} room(s) of one person + three hard computer players, played flat out "
          f"for {duration:.0f} s, another room's heartbeat every 0.2 s")  # fmt: skip
    for name in stores:
        with contextlib.ExitStack() as stack:
            if name == "sqlite":
                folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="canasta-rooms-"))
                url = f"sqlite:///{folder}/rooms.sqlite3"
            elif redis_available():
                url = stack.enter_context(redis_server())
            else:
                print(f"{name}: redis-server is not installed (make redis): skipped")
                continue
            row = {"store": name, **hard_players(url, n, duration=duration)}
        rows.append(row)
        move, beat = row["move"] or {}, row["heartbeat"] or {}
        print(f"{name:6} a move and the computers' answer: median {move.get('median_ms')} ms, "
              f"p95 {move.get('p95_ms')} ms, max {move.get('max_ms')} ms "
              f"({move.get('samples')} moves); another room's heartbeat: median "
              f"{beat.get('median_ms')} ms, p95 {beat.get('p95_ms')} ms, max {beat.get('max_ms')} "
              f"ms; errors {row['errors'] or 'none'}", flush=True)  # fmt: skip
    return rows


# ---------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    from canasta_teach import app

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 10, 50])
    parser.add_argument("--stores", nargs="+", default=["sqlite", "redis"],
                        choices=["sqlite", "redis"])  # fmt: skip
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--think", type=float, nargs=2, default=[0.4, 1.2])
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--hard-rooms",
        type=int,
        default=3,
        help="rooms of one person and three hard computer players (0: none)",
    )
    parser.add_argument("--hard-duration", type=float, default=20.0)
    parser.add_argument("--hard-only", action="store_true",
                        help="only the rooms with hard computer players")  # fmt: skip
    args = parser.parse_args(argv)
    if args.hard_only:
        rows = report_hard(args.stores, args.hard_rooms, args.hard_duration)
        if args.json:
            print(json.dumps(rows, indent=2))
        return 0
    think = (args.think[0], args.think[1])
    browser = not args.no_browser and Path(app.CHROMIUM).exists()
    if not args.no_browser and not browser:
        print(f"{app.CHROMIUM} is missing (make browser): kernels only")
    rows: list[dict[str, Any]] = []
    ok = True
    print(f"two-player rooms, a move every {think[0]}-{think[1]} s a player, "
          f"{args.duration:.0f} s a size, {os.cpu_count()} CPUs")  # fmt: skip
    for name in args.stores:
        with contextlib.ExitStack() as stack:
            if name == "sqlite":
                folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="canasta-rooms-"))
                url = f"sqlite:///{folder}/rooms.sqlite3"
            elif redis_available():
                url = stack.enter_context(redis_server())
            else:
                print(f"{name}: redis-server is not installed (make redis): skipped")
                continue
            pair = BrowserPair(url, stack) if browser else None
            for n in args.sizes:
                row = {"store": name, **run(url, n, duration=args.duration, think=think,
                                             processes=args.processes, pair=pair)}  # fmt: skip
                rows.append(row)
                parts = []
                for kind, label in (("browser", "browser to browser"),
                                    ("kernel", "kernel to kernel")):  # fmt: skip
                    got = row.get(kind)
                    if got is None:
                        continue
                    good = got["median_ms"] <= TARGET_MEDIAN_S * 1000 and (
                        got["p95_ms"] <= TARGET_P95_S * 1000
                    )
                    ok &= good
                    parts.append(
                        f"{label} median {got['median_ms']} ms, p95 {got['p95_ms']} ms "
                        f"({got['samples']} moves in {got['rooms']} room(s))"
                        + ("" if good else " ABOVE TARGET")
                    )
                print(f"{name:6} {n:3} room(s) at once: " + "; ".join(parts), flush=True)
    print(f"targets: median under {TARGET_MEDIAN_S * 1000:.0f} ms, "
          f"95th percentile under {TARGET_P95_S * 1000:.0f} ms")  # fmt: skip
    if args.hard_rooms:
        rows += report_hard(args.stores, args.hard_rooms, args.hard_duration)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0 if ok else 1


#: In a page: the time (ms since the epoch, this machine's clock) each new line of the narration
#: appeared, kept in ``window.__ctSeen``.
_WATCH_LOG = """
window.__ctSeen = [];
let last = "";
new MutationObserver(() => {
  const lines = document.querySelectorAll(".ct-log li");
  const text = lines.length ? lines[lines.length - 1].textContent : "";
  if (text === last) return;
  last = text;
  window.__ctSeen.push(performance.timeOrigin + performance.now());
}).observe(document.body, { childList: true, subtree: true, characterData: true });
"""
_CLICK = """(selector) => {
  const t = performance.timeOrigin + performance.now();
  document.querySelector(selector).click();
  return t;
}"""


class BrowserPair:
    """Two Chromium browsers (a profile each: two people) on a Voilà server whose kernels use
    the store; for each size they join a new room by its link and play it by clicking.  A
    move's delay is from the click in one page to the new line of the other page's narration,
    both read in the pages (one clock: this machine's)."""

    def __init__(self, url: str, stack: contextlib.ExitStack) -> None:
        from playwright.sync_api import sync_playwright

        from canasta_teach import app

        self.url = url
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="canasta-rooms-browser-"))
        env = {**os.environ, "CANASTA_ROOMS_URL": url, "CANASTA_DATA_DIR": tmp}
        log = stack.enter_context(open(Path(tmp) / "voila.log", "wb"))  # noqa: SIM115
        port = app.free_port()
        server = app.start_server(port, env=env, stdout=log, stderr=log)
        stack.callback(app.stop_server, server)
        app.wait_for_port(port, timeout=120, proc=server)
        self.base = f"http://{app.HOST}:{port}/voila/render/play-together.ipynb"
        p = stack.enter_context(sync_playwright())
        self.contexts = []
        for i in range(2):
            context = p.chromium.launch_persistent_context(
                str(Path(tmp) / f"profile{i}"), executable_path=app.CHROMIUM, headless=True,
                args=app.CHROMIUM_ARGS, viewport={"width": 1100, "height": 800},
            )  # fmt: skip
            stack.callback(context.close)
            self.contexts.append(context)
        self.pages: list[Any] = []
        self.rng = random.Random(7)

    def join_new_room(self) -> None:
        for page in self.pages:
            page.close(run_before_unload=True)  # as a closed tab: its kernel shuts down
        ((code, host, friend),) = _rooms_for(self.url, 1)
        self.pages = []
        for context, token, lang in zip(self.contexts, (host, friend), ("ur", "hi"), strict=True):
            page = context.new_page()
            page.add_init_script(
                f"localStorage.setItem('canasta-teach:v1:room:{code}', '{token}');"
                f"localStorage.setItem('canasta-teach:v1:lang', '{lang}');"
            )
            page.goto(f"{self.base}#room={code}")
            page.wait_for_selector(".ct-root [data-ct-action='draw']", timeout=120_000)
            page.evaluate(_WATCH_LOG)
            self.pages.append(page)

    def play(self, stop_at: float, think: tuple[float, float]) -> list[float]:
        delays: list[float] = []
        pages = self.pages
        while time.monotonic() < stop_at:
            mover = _whose_turn(pages)
            other = pages[1 - pages.index(mover)]
            for step in ("draw", "discard"):
                mover.wait_for_timeout(self.rng.uniform(*think) * 1000)
                if step == "discard":
                    if mover.locator("[data-ct-game='next_hand']").count():
                        break
                    mover.locator(".ct-root .ct-hand [data-ct-card]").first.click()
                    mover.wait_for_selector(".ct-root [data-ct-action='discard']:not([disabled])")
                before = other.evaluate("window.__ctSeen.length")
                t0 = mover.evaluate(_CLICK, f".ct-root [data-ct-action='{step}']")
                other.wait_for_function(f"window.__ctSeen.length > {before}", timeout=30_000)
                delays.append((other.evaluate(f"window.__ctSeen[{before}]") - t0) / 1000)
                enabled = f".ct-root [data-ct-action='{step}']:not([disabled])"
                mover.wait_for_function(f"!document.querySelector({json.dumps(enabled)})")
        return delays


def _whose_turn(pages: list[Any]) -> Any:
    """The page whose Draw button is enabled (moving a finished hand on first)."""
    for _ in range(300):
        for page in pages:
            next_hand = page.locator("[data-ct-game='next_hand']")
            if next_hand.count():
                next_hand.first.click()
                page.wait_for_timeout(300)
                break
            if page.locator(".ct-root [data-ct-action='draw']:not([disabled])").count():
                return page
        pages[0].wait_for_timeout(50)
    raise RuntimeError("nobody's turn")


if __name__ == "__main__":
    sys.exit(main())
