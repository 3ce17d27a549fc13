"""The warm kernel pool's refill: after the page that took a spare is drawn, not while it is.

A kernel starting while a page draws takes the CPU the page needs (``canasta_teach.warmkernels``,
REFILL_DELAY_S). These tests drive :class:`WarmKernels` on a fake kernel manager (no processes):
what is checked is *when* the pool starts kernels, which a real server test cannot time.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from canasta_teach import hardening, warmkernels


class FakeClient:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def start_channels(self) -> None:
        pass

    def stop_channels(self) -> None:
        pass

    async def wait_for_ready(self, timeout: float) -> None:
        pass

    def execute(self, code: str, **_options: Any) -> str:
        self.sent.append(code)
        return f"msg-{len(self.sent)}"

    async def get_shell_msg(self, timeout: float) -> dict[str, Any]:
        return {"parent_header": {"msg_id": f"msg-{len(self.sent)}"}, "content": {"status": "ok"}}


class FakeKernel:
    def client(self) -> FakeClient:
        return FakeClient()


class FakeManager:
    """The parts of a Jupyter Server kernel manager the pool uses; records each start."""

    def __init__(self) -> None:
        self.kernels: dict[str, FakeKernel] = {}
        self._pending_kernels: dict[str, object] = {}  # as jupyter_client's: not listed yet
        self.starts = 0
        self.start_seconds = 0.0

    def list_kernel_ids(self) -> list[str]:
        return list(self.kernels)

    def __contains__(self, kernel_id: object) -> bool:
        return kernel_id in self.kernels

    async def start_kernel(self, kernel_id: str, **_options: Any) -> str:
        self.starts += 1
        if self.start_seconds:
            self._pending_kernels[kernel_id] = object()
            await asyncio.sleep(self.start_seconds)
            del self._pending_kernels[kernel_id]
        self.kernels[kernel_id] = FakeKernel()
        return kernel_id

    def get_kernel(self, kernel_id: str) -> FakeKernel:
        return self.kernels[kernel_id]

    def cwd_for_path(self, path: str) -> str:
        return "/tmp"

    async def shutdown_kernel(self, kernel_id: str, now: bool = False) -> None:
        self.kernels.pop(kernel_id, None)


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def pool_of(
    size: int,
) -> tuple[FakeManager, hardening.KernelSlots, warmkernels.WarmKernels, hardening.Visitor]:
    """A pool of ``size`` spares on a fake manager, under a cap of 10, told when a page
    connects (as the app wires it), and a visitor to open pages."""
    manager = FakeManager()
    slots = hardening.KernelSlots(10)
    pool = warmkernels.WarmKernels(manager, slots, size, env=dict, refill_delay=0.05)
    slots.on_first_connection = pool.page_connected
    return manager, slots, pool, hardening.Visitor("10.0.0.1", "a")


def test_the_pool_refills_once_the_page_that_took_a_spare_is_drawn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(warmkernels, "REFILL_FALLBACK_S", 0.3)
    manager, slots, pool, visitor = pool_of(2)

    async def take() -> str:
        page = slots.admit(visitor)
        kernel_id = await pool.take(
            warmkernels.KERNEL_NAME, lambda k: slots.started(page, k), "", {}
        )
        assert kernel_id is not None
        slots.rendered(page)
        return kernel_id

    async def scenario() -> None:
        pool.fill()
        await settle()
        assert manager.starts == 2 and len(pool) == 2
        drawn = await take()
        pool.fill()  # the server's periodic top-up: the page is being drawn, nothing starts
        await asyncio.sleep(0.1)
        assert manager.starts == 2 and len(pool) == 1
        slots.connected(drawn, 1)  # its page's websocket: drawn now
        await asyncio.sleep(0.1)
        assert manager.starts == 3 and len(pool) == 2
        slots.disconnected(drawn, 1)
        slots.connected(drawn, 2)  # a reconnection is not a page being drawn
        never = await take()  # a page that never connects (a plain GET)
        pool.fill()
        await asyncio.sleep(0.1)
        assert manager.starts == 3
        await asyncio.sleep(0.4)  # the fallback refills anyway
        assert manager.starts == 4 and len(pool) == 2
        assert never in manager.kernels

    asyncio.run(scenario())


def test_a_closed_page_does_not_hold_the_refill_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warmkernels, "REFILL_FALLBACK_S", 30.0)
    manager = FakeManager()
    slots = hardening.KernelSlots(10)
    pool = warmkernels.WarmKernels(manager, slots, 1, env=dict, refill_delay=0.05)

    async def scenario() -> None:
        pool.fill()
        await settle()
        page = slots.admit(hardening.Visitor("10.0.0.1"))
        kernel_id = await pool.take(
            warmkernels.KERNEL_NAME, lambda k: slots.started(page, k), "", {}
        )
        assert kernel_id is not None
        pool.fill()
        await settle()
        assert manager.starts == 1
        await manager.shutdown_kernel(kernel_id)  # the tab closed before it connected
        pool.fill()
        await settle()
        assert manager.starts == 2

    asyncio.run(scenario())


def test_a_page_that_starts_its_own_kernel_holds_the_refill_back_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pool is empty (the previous page took the last spare, and its refill is due): the
    next page starts its own kernel, and the refill waits until that page is drawn."""
    from canasta_teach.app import _CountedKernels

    monkeypatch.setattr(warmkernels, "REFILL_FALLBACK_S", 5.0)
    manager, slots, pool, visitor = pool_of(1)

    async def open_page() -> str:
        page = slots.admit(visitor)
        kernels = _CountedKernels(manager, slots, page, pool)
        kernel_id = await kernels.start_kernel(kernel_name=warmkernels.KERNEL_NAME, path="", env={})
        slots.rendered(page)
        return kernel_id

    async def scenario() -> None:
        pool.fill()
        await settle()
        first = await open_page()  # takes the spare
        assert manager.starts == 1 and len(pool) == 0
        slots.connected(first, 1)  # drawn: the refill is due in 0.05 s
        manager.start_seconds = 0.2  # the page's own kernel is listed once it is ready
        opening = asyncio.ensure_future(open_page())  # no spare: its own kernel
        await asyncio.sleep(0.1)
        assert manager.starts == 2, "a spare started while the second page's kernel started"
        second = await opening
        assert second != first
        await asyncio.sleep(0.2)
        assert manager.starts == 2, "a spare started while the second page was drawn"
        slots.connected(second, 1)
        await asyncio.sleep(0.2)
        assert manager.starts == 3 and len(pool) == 1

    asyncio.run(scenario())
