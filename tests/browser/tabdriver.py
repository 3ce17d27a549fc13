"""Debian's Chromium driven over the DevTools protocol through its *tab* target, for what
Playwright cannot show: prerendering (issue 22).

Chromium refuses to prerender (``PrerenderingDisabledByDevTools``) while a DevTools client is
attached to a page the old way, as Playwright's is; a client attached through the tab target
(as here, and as Puppeteer does) leaves it on. So the "next lesson" timings of
``benchmarks.app_bench`` and the browser tests of prerendered lessons drive Chromium with this
small client (``websocket-client``, a jupyter_server dependency): one tab, its page's session,
and the sessions of the pages it prerenders.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from canasta_teach import app

Event = dict[str, Any]


def _drain(stream: Any) -> None:
    for _line in stream:
        pass


class TabBrowser:
    """One Chromium tab. ``page`` is the session of the page shown in it."""

    def __init__(
        self,
        profile: str | os.PathLike[str],
        chromium: str = app.CHROMIUM,
        args: Sequence[str] = tuple(app.CHROMIUM_ARGS),
        size: tuple[int, int] = (1100, 800),
    ) -> None:
        import websocket  # websocket-client

        command = [
            chromium,
            *args,
            f"--user-data-dir={Path(profile)}",
            f"--window-size={size[0]},{size[1]}",
            "--remote-debugging-port=0",
            "about:blank",
        ]
        self._proc = subprocess.Popen(
            command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, start_new_session=True
        )
        try:
            url = self._devtools_url()
            self._ws = websocket.create_connection(url, suppress_origin=True)
        except BaseException:
            self._kill()
            raise
        self._ids = itertools.count(1)
        self._lock = threading.Condition()
        self._replies: dict[int, dict[str, Any]] = {}
        self.events: list[Event] = []
        self._detached: set[str] = set()  # sessions whose page is gone (never answer again)
        threading.Thread(target=self._read, daemon=True).start()
        tabs = self.send("Target.getTargets", {"filter": [{"type": "tab"}]})["targetInfos"]
        tab = next(t for t in tabs if t["type"] == "tab")
        attach = {"targetId": tab["targetId"], "flatten": True}
        self._tab = self.send("Target.attachToTarget", attach)["sessionId"]
        auto = {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True}
        self.send("Target.setAutoAttach", auto, self._tab)
        self.page = self.wait_event(
            lambda e: (
                e["method"] == "Target.attachedToTarget"
                and e["params"]["targetInfo"]["type"] == "page"
                and e["params"]["targetInfo"].get("subtype") != "prerender"
            )
        )["params"]["sessionId"]
        self.send("Preload.enable", session=self.page)

    def _devtools_url(self) -> str:
        assert self._proc.stderr is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self._proc.stderr.readline().decode(errors="replace")
            if not line and self._proc.poll() is not None:
                break
            found = re.search(r"DevTools listening on (ws://\S+)", line)
            if found:  # Chromium's later chatter is read and dropped (a full pipe would block)
                threading.Thread(target=_drain, args=(self._proc.stderr,), daemon=True).start()
                return found.group(1)
        raise RuntimeError("Chromium did not open its DevTools port")

    def _read(self) -> None:
        while True:
            try:
                message = json.loads(self._ws.recv())
            except Exception:
                return
            with self._lock:
                if "id" in message:
                    self._replies[message["id"]] = message
                else:
                    self.events.append(message)
                    if message.get("method") == "Target.detachedFromTarget":
                        self._detached.add(message["params"]["sessionId"])
                self._lock.notify_all()

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = 60.0,
    ) -> dict[str, Any]:
        """Send one DevTools command and return its result (raise on an error)."""
        number = next(self._ids)
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self._ws.send(json.dumps(message))
        with self._lock:
            if not self._lock.wait_for(
                lambda: number in self._replies or session in self._detached, timeout
            ):
                raise TimeoutError(f"no answer to {method} within {timeout} s")
            if number not in self._replies:
                raise RuntimeError(f"{method}: the page of session {session} is gone")
            reply = self._replies.pop(number)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    def wait_event(self, matches: Callable[[Event], bool], timeout: float = 60.0) -> Event:
        """The first event (since the start) that ``matches``, waiting for it if need be."""
        found: list[Event] = []

        def seen() -> bool:
            found.extend(e for e in self.events if matches(e))
            return bool(found)

        with self._lock:
            if not self._lock.wait_for(seen, timeout):
                raise TimeoutError(f"no such DevTools event within {timeout} s")
        return found[0]

    def evaluate(self, expression: str, session: str | None = None) -> Any:
        """The value of a JavaScript expression in a page (default: the one shown)."""
        params = {"expression": expression, "awaitPromise": True, "returnByValue": True}
        result = self.send("Runtime.evaluate", params, session or self.page)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r} failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 60.0, session: str | None = None) -> Any:
        """Evaluate ``expression`` every few milliseconds until it is truthy; its value."""
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(RuntimeError):  # a page between two documents
                value = self.evaluate(expression, session)
                if value:
                    return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"{expression!r} still false after {timeout} s")
            time.sleep(0.005)

    def goto(self, url: str) -> None:
        self.send("Page.navigate", {"url": url}, self.page)

    def prerendered(self, url_end: str, timeout: float = 60.0) -> str:
        """The session of the first page the tab prerendered (waiting for Chromium to start
        one); raise if Chromium gave up on prerendering an address ending in ``url_end``."""

        def about_it(e: Event) -> bool:
            if e["method"] == "Target.attachedToTarget":  # its address may be blank yet
                return bool(e["params"]["targetInfo"].get("subtype") == "prerender")
            return bool(
                e["method"] == "Preload.prerenderStatusUpdated"
                and e["params"]["key"]["url"].endswith(url_end)
                and e["params"]["status"] == "Failure"
            )

        event = self.wait_event(about_it, timeout)
        if event["method"] == "Preload.prerenderStatusUpdated":
            raise RuntimeError(f"Chromium did not prerender {url_end}: {event['params']}")
        session: str = event["params"]["sessionId"]
        return session

    def show(self, session: str) -> None:
        """The tab now shows the page of ``session`` (a prerendered page it activated)."""
        self.page = session
        self.send("Preload.enable", session=session)

    def prerender_failures(self) -> list[dict[str, Any]]:
        """Every prerender Chromium gave up on so far (its status update)."""
        return [
            e["params"]
            for e in self.events
            if e["method"] == "Preload.prerenderStatusUpdated"
            and e["params"]["status"] == "Failure"
        ]

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._ws.close()
        self._kill()

    def _kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        self._proc.wait(timeout=10)

    def __enter__(self) -> TabBrowser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
