"""Warm kernels: kernels started before any page asks, so that a page (the next lesson above all)
finds one ready (issue 22, item 4).

A page's kernel used to start when the page was asked for: a new Python process, ipykernel,
ipywidgets and ``canasta_teach.widgets`` imported, then the notebook run. That start is most of
a lesson's time to interactive, and all of the difference between a lesson and a bare
one-button page. :class:`WarmKernels` keeps ``size`` kernels started with the widgets imported
(:data:`WARM_CODE`), for any page: a page that would start a kernel takes a warm one instead,
which is then told the page's folder and request variables (:func:`page_setup_code`) and runs
the notebook as a fresh kernel would. The pool is refilled once that page is drawn.

Why not Voilà's own pre-heated kernels (``preheat_kernel``)? They keep a pool per notebook,
each kernel having run its notebook already: one kernel per page for every page that should be
ready (81 notebooks here, 60 MB each), and a pooled kernel's environment is fixed when the pool
is filled, so the visitor's address (``HTTP_X_CANASTA_CLIENT_ADDRESS``, by which rooms are
counted) never reaches it. A warm kernel serves any page, and learns its page's variables when
it is taken.

The cap holds (``canasta_teach.hardening.KernelSlots``): a warm kernel is a *spare*, counted from
the moment it is asked for; it is started only while the server has room for one more kernel,
a learner never waits for a spare's room (a page at the cap takes the spare instead of starting
a kernel), and a taken spare belongs to its page's visitor, within their share. Spares are never
culled as idle or unattended (nobody owns them).

This module imports nothing from Jupyter at import time (``canasta_teach.app`` stays light).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import os
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

log = logging.getLogger("canasta_teach.warmkernels")

#: What a warm kernel runs before any page takes it: the imports every lesson makes, so that
#: a lesson's first cell finds them loaded (their cost is most of a kernel's start), and the
#: texts and puzzle sets a first game reads (``canasta_teach.widgets.warm_up``: a lesson's
#: first ``play`` took 46 ms in a fresh kernel, 8 ms once these are loaded).
WARM_CODE = "import ipywidgets, canasta_teach.widgets; canasta_teach.widgets.warm_up()"
#: Seconds after the page that took a spare opened its websocket (its widgets are being drawn)
#: before the pool starts the spare's replacement. A kernel starting sooner takes the CPU the
#: page needs: with the refill one second after the page was *asked for*, a lesson's time to
#: interactive was 1.70 s against the bare page's 1.46 s on this project's 2-core machine; with
#: the refill after the page is drawn, 1.36 s against 1.41 s.
REFILL_DELAY_S = 1.0
#: Seconds after a spare was taken before the pool refills anyway (a page that never opens a
#: websocket: a plain GET, a browser that went away).
REFILL_FALLBACK_S = 10.0
#: How long a warm kernel may take to start and import (a busy machine: many seconds).
START_TIMEOUT_S = 120.0
KERNEL_NAME = "python3"


class SpareSlots(Protocol):
    """What the pool needs of ``canasta_teach.hardening.KernelSlots``."""

    def room_for_spare(self, running: list[str]) -> bool: ...
    def add_spare(self, kernel_id: str) -> None: ...
    def drop_spare(self, kernel_id: str) -> None: ...
    def is_spare(self, kernel_id: str) -> bool: ...


def page_setup_code(cwd: str, variables: Mapping[str, str]) -> str:
    """Python that moves a warm kernel to its page's folder and adds the page's variables
    (request address, query string ...) to its environment, leaving no name behind."""
    payload = json.dumps({"cwd": cwd, "env": dict(variables)})
    return (
        "(lambda os, data: (os.chdir(data['cwd']), os.environ.update(data['env'])))"
        f"(__import__('os'), __import__('json').loads({payload!r}))"
    )


async def _maybe(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


async def run_silently(manager: Any, kernel_id: str, code: str, timeout: float) -> None:
    """Run ``code`` in a kernel of ``manager`` and wait for its reply (raise if it failed).
    Silent: nothing of it goes to a page's output or history."""
    kernel = manager.get_kernel(kernel_id)
    client = kernel.client()
    client.start_channels()
    try:
        await _maybe(client.wait_for_ready(timeout=timeout))
        msg_id = client.execute(code, silent=True, store_history=False, allow_stdin=False)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            reply = await _maybe(client.get_shell_msg(timeout=max(0.1, deadline - loop.time())))
            if reply.get("parent_header", {}).get("msg_id") == msg_id:
                break
        status = reply.get("content", {}).get("status")
        if status != "ok":
            raise RuntimeError(f"kernel {kernel_id} answered {status!r} to its set-up code")
    finally:
        client.stop_channels()


class WarmKernels:
    """Up to ``size`` spare kernels of ``manager`` (a Jupyter Server kernel manager), warmed
    with :data:`WARM_CODE`, counted by ``slots``. Runs on the server's event loop: no locks."""

    def __init__(
        self,
        manager: Any,
        slots: SpareSlots,
        size: int,
        *,
        env: Callable[[], dict[str, str]],
        warm_code: str = WARM_CODE,
        refill_delay: float = REFILL_DELAY_S,
    ) -> None:
        self.manager = manager
        self.slots = slots
        self.size = max(0, size)
        self._env = env
        self._warm_code = warm_code
        self._refill_delay = refill_delay
        self._spares: dict[str, asyncio.Task[bool]] = {}  # kernel id -> warmed (in order)
        self._refill: asyncio.TimerHandle | None = None
        #: Taken spares whose page has not connected yet -> until when the pool waits for it.
        self._being_drawn: dict[str, float] = {}
        self.taken = 0
        self.missed = 0

    def __len__(self) -> int:
        return len(self._spares)

    def fill(self) -> None:
        """Start spares until there are ``size``, while the server has room for them and no
        page that took a spare is being drawn (for at most ``REFILL_FALLBACK_S``)."""
        if self._refill is not None:
            self._refill.cancel()
        self._refill = None
        now = asyncio.get_event_loop().time()
        running = self._kernel_ids()
        self._being_drawn = {
            kernel_id: until
            for kernel_id, until in self._being_drawn.items()
            if kernel_id in running and until > now
        }
        if self._being_drawn:  # page_connected refills, or this fallback
            self.fill_later(min(self._being_drawn.values()) - now)
            return
        while len(self._spares) < self.size and self.slots.room_for_spare(
            list(self.manager.list_kernel_ids())
        ):
            kernel_id = str(uuid.uuid4())
            self.slots.add_spare(kernel_id)
            self._spares[kernel_id] = asyncio.ensure_future(self._warm(kernel_id))

    def _kernel_ids(self) -> set[str]:
        """The manager's kernels, those still starting included: jupyter_client's
        MultiKernelManager lists a kernel only once it is ready, and keeps it in
        ``_pending_kernels`` until then (a page's own kernel, being started, is not gone)."""
        pending = getattr(self.manager, "_pending_kernels", None) or {}
        return set(self.manager.list_kernel_ids()) | set(pending)

    def fill_later(self, delay: float | None = None) -> None:
        """Refill after ``delay`` seconds (default ``refill_delay``), or sooner if a refill is
        planned sooner already."""
        if not self.size:
            return
        loop = asyncio.get_event_loop()
        when = loop.time() + (self._refill_delay if delay is None else delay)
        if self._refill is not None:
            if self._refill.when() <= when:
                return
            self._refill.cancel()
        self._refill = loop.call_at(when, self.fill)

    def drawing(self, kernel_id: str) -> None:
        """A page is being drawn on ``kernel_id``, a spare it took or a kernel of its own (it
        found no spare): the pool waits until it connects, or ``REFILL_FALLBACK_S``. For a page's
        own kernel too: a refill planned by an earlier page would otherwise start kernels while
        this one starts (three kernels starting at once made such a lesson 1.3 to 1.6 times as
        slow as the bare page in the benchmark)."""
        if not self.size:
            return
        self._being_drawn[kernel_id] = asyncio.get_event_loop().time() + REFILL_FALLBACK_S
        self.fill_later(REFILL_FALLBACK_S)  # sooner once the page connects (page_connected)

    def page_connected(self, kernel_id: str) -> None:
        """A page's kernel got its first websocket: if the page took a spare, it is being drawn
        now, and the pool refills ``refill_delay`` seconds later."""
        if self._being_drawn.pop(kernel_id, None) is not None:
            self.fill_later()

    async def _warm(self, kernel_id: str) -> bool:
        try:
            started = self.manager.start_kernel(
                kernel_id=kernel_id, kernel_name=KERNEL_NAME, path="", env=self._env()
            )
            await _maybe(started)
            await run_silently(self.manager, kernel_id, self._warm_code, START_TIMEOUT_S)
            return True
        except Exception:
            log.exception("a warm kernel failed to start")
            self._forget(kernel_id)
            with contextlib.suppress(Exception):
                await _maybe(self.manager.shutdown_kernel(kernel_id, now=True))
            return False

    def _forget(self, kernel_id: str) -> None:
        self._spares.pop(kernel_id, None)
        self.slots.drop_spare(kernel_id)

    async def take(
        self, kernel_name: str, claim: Callable[[str], None], path: str, env: Mapping[str, str]
    ) -> str | None:
        """A warm kernel for a page, set up for its folder ``path`` (API path) and environment
        ``env``, or None (no spare, or it failed: start a kernel as usual). ``claim(id)`` is
        called first, before any await, so that the kernel is the page's from that moment."""
        if kernel_name != KERNEL_NAME or not self._spares:
            self.missed += 1
            return None
        kernel_id, warmed = next(iter(self._spares.items()))
        del self._spares[kernel_id]
        claim(kernel_id)  # the spare is the page's now (KernelSlots.started)
        self.drawing(kernel_id)
        try:
            if not await warmed or kernel_id not in self.manager:
                raise RuntimeError("the warm kernel is gone")
            variables = {k: v for k, v in env.items() if os.environ.get(k) != v}
            code = page_setup_code(self.manager.cwd_for_path(path), variables)
            await run_silently(self.manager, kernel_id, code, 30.0)
        except Exception:
            log.exception("a warm kernel could not be used; starting one for the page")
            with contextlib.suppress(Exception):
                await _maybe(self.manager.shutdown_kernel(kernel_id, now=True))
            self.missed += 1
            return None
        self.taken += 1
        log.info("page uses warm kernel %s (%d left)", kernel_id, len(self._spares))
        return kernel_id

    def protect_from_culling(self) -> None:
        """Make the manager's idle culler pass over spares (nobody is connected to them)."""
        cull: Callable[[str], Awaitable[Any]] = self.manager.cull_kernel_if_idle
        slots = self.slots

        async def cull_unless_spare(kernel_id: str) -> Any:
            if slots.is_spare(kernel_id):
                return None
            return await _maybe(cull(kernel_id))

        self.manager.cull_kernel_if_idle = cull_unless_spare
