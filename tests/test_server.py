"""The web app against hostile visitors (``../shared/reviews/reliability.md``, F1–F5, F15, F16).

Unit tests of canasta_teach.hardening, then one real server (``canasta_teach.app.start_server``
with a cap of three kernels) attacked with the review's reproductions: absurd websocket frames
(v1 and legacy), a widget message that makes ipywidgets publish a traceback, a foreign Host
header, a fourth learner past the cap, error pages, and a server stopped while hung.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from canasta_teach import hardening
from canasta_teach.app import free_port, start_server, stop_server, wait_for_port
from canasta_teach.app import kernel_pids as kernels_of
from canasta_teach.app import resident_bytes as rss
from canasta_teach.hardening import V1_PROTOCOL, frame_is_sane, host_allowed, message_to_drop

websocket = pytest.importorskip("websocket")  # websocket-client, a jupyter_server dependency

REPO = Path(__file__).resolve().parent.parent
CAP = 3
LESSON = "/voila/render/ur/03-melds-canastas.ipynb"
STATIC = "/voila/templates/canasta/static/styles/canasta.css"


# ---------------------------------------------------------------------------- frames (unit)


def v1_frame(parts: list[bytes], channel: str = "shell") -> bytes:
    from jupyter_server.services.kernels.connection.base import serialize_msg_to_ws_v1

    return bytes(serialize_msg_to_ws_v1(parts, channel))


def legacy_frame(msg: dict[str, Any]) -> bytes:
    from jupyter_server.services.kernels.connection.base import serialize_binary_message

    return bytes(serialize_binary_message(msg))


def kernel_message(kind: str, content: dict[str, Any]) -> dict[str, Any]:
    header = {"msg_id": uuid.uuid4().hex, "msg_type": kind, "session": "s", "username": "u",
              "date": "2026-12-01T00:00:00Z", "version": "5.3"}  # fmt: skip
    return {"header": header, "parent_header": {}, "metadata": {}, "content": content,
            "buffers": [], "channel": "iopub"}  # fmt: skip


def test_real_frames_pass_and_the_reviews_frames_do_not() -> None:
    parts = [json.dumps(p).encode() for p in ({"msg_type": "comm_msg"}, {}, {}, {"data": {}})]
    assert frame_is_sane(v1_frame(parts), V1_PROTOCOL)
    assert frame_is_sane(v1_frame([*parts, b"\x00" * 100]), V1_PROTOCOL)
    message = kernel_message("comm_msg", {"data": {}})
    message["buffers"] = [b"abc", b"\x00" * 10]
    assert frame_is_sane(legacy_frame(message), "")
    # F1 (ws_v1_hang.py) and F2 (ws_legacy_nbufs.py), at several sizes.
    for count in (2_000_000, 20_000_000, 2**40, 2**63):
        assert not frame_is_sane(count.to_bytes(8, "little") + b"\0" * 16, V1_PROTOCOL)
    for count in (20_000_000, 2**31 - 1, 65):
        assert not frame_is_sane(count.to_bytes(4, "big") + b"\0" * 8, "")
    # Offsets that point outside the frame or run backwards, and scraps.
    good = v1_frame(parts)
    count = int.from_bytes(good[:8], "little")
    beyond = bytearray(good)
    beyond[8 * count : 8 * count + 8] = (len(good) + 100).to_bytes(8, "little")
    assert not frame_is_sane(bytes(beyond), V1_PROTOCOL)
    assert not frame_is_sane(good[: 8 * count], V1_PROTOCOL)  # offsets without their parts
    backwards = bytearray(good)
    backwards[16:24] = (1).to_bytes(8, "little")
    assert not frame_is_sane(bytes(backwards), V1_PROTOCOL)
    for scrap in (b"", b"\x01", b"\x00" * 8, b"\x01" + b"\0" * 7):
        assert not frame_is_sane(scrap, V1_PROTOCOL)
        assert not frame_is_sane(scrap[:4], "")


def test_no_traceback_or_stderr_goes_to_the_browser() -> None:
    trace = ["site-packages/ipywidgets/widget.py:222"]
    error = kernel_message("error", {"ename": "TraceError", "evalue": "x", "traceback": trace})
    stderr = kernel_message("stream", {"name": "stderr", "text": "Traceback ..."})
    stdout = kernel_message("stream", {"name": "stdout", "text": "fine"})
    comm = kernel_message("comm_msg", {"data": {"text": 'an "error" in a message'}})
    for msg, drop in ((error, True), (stderr, True), (stdout, False), (comm, False)):
        assert message_to_drop(json.dumps(msg)) is drop
        assert message_to_drop(msg) is drop
        parts = [json.dumps(msg[k]).encode() for k in ("header", "parent_header", "metadata",
                                                       "content")]  # fmt: skip
        assert message_to_drop(v1_frame(parts, "iopub")) is drop


def test_code_cells_are_told_from_the_file_and_anything_unclear_counts_as_code(
    tmp_path: Path,
) -> None:
    from canasta_teach.app import LESSONS_DIR, _CodeCells

    code_cells = _CodeCells()
    assert not code_cells.in_notebook(str(LESSONS_DIR), "index.ipynb")
    assert not code_cells.in_notebook(str(LESSONS_DIR), "te/00-start.ipynb")
    assert code_cells.in_notebook(str(LESSONS_DIR), "te/01-cards-values.ipynb")

    def notebook(*cells: tuple[str, str]) -> str:
        return json.dumps({"cells": [{"cell_type": k, "source": [s]} for k, s in cells]})

    page = tmp_path / "page.ipynb"
    page.write_text(notebook(("markdown", "# Hello"), ("code", "  \n")))  # an empty code cell
    assert not code_cells.in_notebook(str(tmp_path), "page.ipynb")
    page.write_text(notebook(("markdown", "# Hello"), ("code", "play('x')")))
    os.utime(page, ns=(time.time_ns(), time.time_ns() + 10**9))  # a new version of the file
    assert code_cells.in_notebook(str(tmp_path), "page.ipynb")
    # Voilà answers these as it always does (it has its own checks and its own 404).
    (tmp_path / "broken.ipynb").write_text("{not json")
    (tmp_path / "sub").mkdir()
    for unclear in ("broken.ipynb", "missing.ipynb", "../page.ipynb", "sub/../../x.ipynb", "sub"):
        assert code_cells.in_notebook(str(tmp_path / "sub" if ".." in unclear else tmp_path),
                                      unclear)  # fmt: skip


@pytest.mark.parametrize(
    ("host", "allowed", "ok"),
    [
        ("127.0.0.1:8866", [], True),
        ("localhost:8866", [], True),
        ("[::1]:8866", [], True),
        ("LOCALHOST", [], True),
        ("evil.example", [], False),
        ("evil.example:8866", [], False),
        ("127.0.0.1.evil.example", [], False),
        ("", [], False),
        (None, [], False),
        ("canasta.school.example", ["canasta.school.example"], True),
        ("canasta.school.example:443", ["canasta.school.example"], True),
        ("other.example", ["canasta.school.example"], False),
        ("anything.example", ["*"], True),
    ],
)
def test_host_allowed(host: str | None, allowed: list[str], ok: bool) -> None:
    assert host_allowed(host, allowed) is ok


def test_the_default_cap_follows_the_memory() -> None:
    assert hardening.kernel_budget(4 * 2**30) == 21
    assert hardening.kernel_budget(256 * 2**20) == 4  # never fewer than 4
    assert hardening.kernel_budget(2**50) == 400  # never more than 400
    assert hardening.kernel_budget(None) >= 4


@pytest.mark.parametrize("lang", ["en", "ur", "hi", "te"])
def test_busy_and_error_pages_speak_the_pages_language_first(lang: str) -> None:
    from canasta_teach.i18n import get_translator

    tr = get_translator(lang)
    page = hardening.busy_page(f"/voila/render/{lang}/05-discard-pile.ipynb")
    assert f'<html lang="{lang}" dir="{tr.direction}">' in page
    first = re.search(r'<section lang="(\w+)"', page)
    assert first is not None and first.group(1) == lang
    assert tr.ui("server.busy.text") in page
    assert page.count("<section") == 4  # and the other three languages below
    for status in (403, 404, 500):
        text = hardening.error_page(status, f"/voila/render/{lang}/x.ipynb")
        assert tr.ui(hardening.ERROR_TEXTS.get(status, "server.error.failed")) in text
        assert "Traceback" not in text and "site-packages" not in text


def test_the_idle_culler_passes_over_prerendered_pages_and_kernels_already_gone() -> None:
    import asyncio

    from canasta_teach.app import _ServerKernels

    slots = hardening.KernelSlots(4)
    visitor = hardening.Visitor("10.0.0.1", "a")
    for kernel_id, speculative in (("shown", False), ("prerendered", True), ("closed", False)):
        slots.started(slots.admit(visitor, speculative=speculative), kernel_id)
    kernels = _ServerKernels(slots, unattended=1800, preheat=0)
    kernels.manager = {"shown", "prerendered"}  # "closed" was shut down after being listed
    culled: list[str] = []

    async def cull(kernel_id: str) -> None:
        culled.append(kernel_id)
        if kernel_id not in kernels.manager:
            raise KeyError(kernel_id)  # as jupyter_server's cull_kernel_if_idle does

    kernels._cull = cull
    for kernel_id in ("shown", "prerendered", "closed"):
        asyncio.run(kernels.cull_if_idle(kernel_id))
    assert culled == ["shown"]


def test_kernel_slots_count_a_rendering_page_once() -> None:
    # F22 (cap_stagger.py): a page being rendered has its kernel running; it counted twice.
    slots = hardening.KernelSlots(3)
    learners = [hardening.Visitor(f"10.0.0.{n}") for n in range(4)]
    running: list[str] = []
    pages = []
    for n, learner in enumerate(learners[:3]):
        assert slots.refusal(learner, running) is None
        pages.append(slots.admit(learner))
        assert slots.refusal(learners[3], running) == ("cap" if n == 2 else None)
        slots.started(pages[-1], f"kernel-{n}")  # asked for: not listed by the manager yet
        assert slots.refusal(learners[3], running) == ("cap" if n == 2 else None)
        running.append(f"kernel-{n}")  # now listed too, and still rendering
        assert slots.refusal(learners[3], running) == ("cap" if n == 2 else None)
    for page in pages:
        slots.rendered(page)
    assert slots.refusal(learners[3], running) == "cap"
    running.remove("kernel-1")  # a learner closed their tab
    assert slots.refusal(learners[3], running) is None


def test_kernel_slots_limit_one_address_and_one_browser() -> None:
    slots = hardening.KernelSlots(10, per_address=3, per_browser=2)
    running: list[str] = []

    def open_page(visitor: hardening.Visitor) -> str | None:
        refusal = slots.refusal(visitor, running)
        if refusal is None:
            slot = slots.admit(visitor)
            slots.started(slot, f"k{len(running)}")
            running.append(f"k{len(running)}")
            slots.rendered(slot)
        return refusal

    tab = hardening.Visitor("10.0.0.1", "browser-a")
    assert [open_page(tab) for _ in range(3)] == [None, None, "browser"]
    assert open_page(hardening.Visitor("10.0.0.1", None)) is None  # no cookie: the address
    assert open_page(hardening.Visitor("10.0.0.1", "browser-b")) == "address"
    assert open_page(hardening.Visitor("10.0.0.2", "browser-b")) is None
    assert slots.held_by("10.0.0.1") == 3
    running.remove("k0")
    assert open_page(tab) is None


def test_kernel_slots_name_kernels_no_person_used() -> None:
    now = [0.0]
    slots = hardening.KernelSlots(10, clock=lambda: now[0])
    for kernel_id in ("quiet", "busy", "rendering"):
        slot = slots.admit(hardening.Visitor("10.0.0.1"))
        slots.started(slot, kernel_id)
        if kernel_id != "rendering":
            slots.rendered(slot)
    running = ["quiet", "busy", "rendering", "not-a-page"]
    now[0] = 50
    slots.saw_person("busy")
    now[0] = 70
    assert slots.unattended(running, 60) == ["quiet"]
    now[0] = 200
    assert slots.unattended(running, 60) == ["quiet", "busy"]


def test_spare_kernels_use_only_room_no_learner_holds() -> None:
    """Warm kernels (``--preheat``): a spare counts against the cap from the moment it is asked
    for, is started only while there is room, never turns a learner away, and once a page takes
    it, it is that visitor's, within their share (a visitor cannot drain spares past it)."""
    slots = hardening.KernelSlots(3, per_address=2)
    running: list[str] = []

    def take(visitor: hardening.Visitor, kernel_id: str) -> None:  # a page served by a spare
        page = slots.admit(visitor)
        slots.started(page, kernel_id)
        slots.rendered(page)

    for n in range(3):
        assert slots.room_for_spare(running)
        slots.add_spare(f"spare-{n}")  # asked for: counted before the manager lists it
    assert not slots.room_for_spare(running)  # three spares fill the cap of three
    running += ["spare-0", "spare-1", "spare-2"]
    visitor = hardening.Visitor("10.0.0.1")
    for n in range(2):  # each page takes a spare: no kernel starts, the visitor holds it
        assert slots.refusal(visitor, running) is None
        take(visitor, f"spare-{n}")
        assert not slots.is_spare(f"spare-{n}")
    assert slots.held_by("10.0.0.1") == 2
    assert slots.refusal(visitor, running) == "address"  # a spare is waiting, but not theirs
    other = hardening.Visitor("10.0.0.2")
    assert slots.refusal(other, running) is None
    take(other, "spare-2")
    assert slots.refusal(hardening.Visitor("10.0.0.3"), running) == "cap"
    assert not slots.room_for_spare(running)
    running.remove("spare-0")  # a learner left: room for one spare again
    assert slots.room_for_spare(running)
    slots.add_spare("spare-3")
    assert not slots.room_for_spare(running)
    # A learner is never refused for a spare: the page takes it instead.
    assert slots.refusal(hardening.Visitor("10.0.0.3"), running) is None
    slots.drop_spare("spare-3")  # failed to start: forgotten
    assert slots.room_for_spare(running)


def test_prerendered_pages_use_only_room_to_spare_and_never_turn_a_learner_away() -> None:
    """A page the browser prerenders (the next lesson) gets a kernel only while two places are
    free and within its visitor's share; a learner refused for the cap, or for their own share,
    takes the place of a kernel whose page was never shown; a page once shown (its websocket)
    is a learner's like any other, and a visitor's new prerender replaces their older one."""
    slots = hardening.KernelSlots(4, per_address=3)
    running: list[str] = []

    def open_page(visitor: hardening.Visitor, kernel_id: str, *, speculative: bool) -> None:
        page = slots.admit(visitor, speculative=speculative)
        slots.started(page, kernel_id)
        running.append(kernel_id)
        slots.rendered(page)

    ana, bo = hardening.Visitor("10.0.0.1", "a"), hardening.Visitor("10.0.0.2", "b")
    assert hardening.is_prerender({"Sec-Purpose": "prefetch;prerender"})
    assert not hardening.is_prerender({"Sec-Purpose": "prefetch"})
    assert not hardening.is_prerender({})
    open_page(ana, "ana-2", speculative=False)
    assert slots.room_to_speculate(ana, running)
    open_page(ana, "ana-3", speculative=True)  # lesson 3, prerendered while ana reads lesson 2
    assert slots.is_speculative("ana-3") and slots.speculative_of(ana) == ["ana-3"]
    # Two of ana's three places: the last is kept for a page ana opens, not a prerender.
    assert slots.refusal(ana, running) is None and not slots.room_to_speculate(ana, running)
    open_page(bo, "bo-1", speculative=False)
    assert not slots.room_to_speculate(bo, running)  # one place left: kept for a learner
    open_page(bo, "bo-2", speculative=False)
    carl = hardening.Visitor("10.0.0.3", "c")
    assert slots.refusal(carl, running) == "cap"
    assert slots.evictable(carl, "cap", running) == "ana-3"  # never shown: it makes room
    slots.evict("ana-3")
    assert slots.refusal(carl, running) is None and not slots.is_speculative("ana-3")
    open_page(carl, "carl-1", speculative=False)
    running.remove("ana-3")  # the server shut it down
    assert slots.refusal(hardening.Visitor("10.0.0.4"), running) == "cap"
    assert slots.evictable(hardening.Visitor("10.0.0.4"), "cap", running) is None  # learners'
    # A shown page is nobody's to take; a visitor's own share makes room from their own pages.
    running.remove("bo-2")
    open_page(ana, "ana-4", speculative=True)
    slots.shown("ana-4")
    assert slots.evictable(hardening.Visitor("10.0.0.4"), "cap", running) is None
    running.remove("carl-1")
    running.remove("bo-1")
    open_page(ana, "ana-5", speculative=True)
    assert slots.refusal(ana, running) == "address"
    assert slots.evictable(bo, "address", running) is None  # not bo's address
    assert slots.evictable(ana, "address", running) == "ana-5"
    # The same for one browser's share: a prerender that would leave its learner no place for
    # another tab (a prerender still rendering cannot give its place back) gets no kernel.
    slots = hardening.KernelSlots(10, per_browser=3)
    running.clear()
    dee = hardening.Visitor("10.0.0.5", "d")
    open_page(dee, "dee-1", speculative=False)
    assert slots.room_to_speculate(dee, running)
    open_page(dee, "dee-2", speculative=False)
    assert slots.refusal(dee, running) is None and not slots.room_to_speculate(dee, running)
    assert slots.room_to_speculate(hardening.Visitor("10.0.0.5", "e"), running)


def test_a_page_that_left_makes_room_for_its_own_browser_at_once_and_others_later() -> None:
    """A page whose websocket closed and whose shutdown beacon was lost still has its kernel
    (until the idle culler). Its own browser, asking for another page, has moved on from it: it
    takes that kernel's place at once; anyone else only after ``LEFT_GRACE_S``, in the
    refusal's scope; a page still connected, or connected again, is nobody's to take."""
    now = [0.0]
    slots = hardening.KernelSlots(4, per_browser=2, clock=lambda: now[0])
    running: list[str] = []

    def open_page(visitor: hardening.Visitor, kernel_id: str) -> None:
        page = slots.admit(visitor)
        slots.started(page, kernel_id)
        running.append(kernel_id)
        slots.rendered(page)
        slots.connected(kernel_id, hash(kernel_id))

    ana, bo = hardening.Visitor("10.0.0.1", "a"), hardening.Visitor("10.0.0.2", "b")
    open_page(ana, "ana-1")
    open_page(ana, "ana-2")
    assert slots.refusal(ana, running) == "browser"
    assert slots.evictable(ana, "browser", running) is None  # both pages are open
    slots.disconnected("ana-1", hash("ana-1"))  # the tab closed; its beacon never came
    slots.disconnected("ana-1", hash("ana-1"))  # the connection's close(): counted once
    assert slots.has_left("ana-1") and not slots.has_left("ana-2")
    assert slots.evictable(bo, "browser", running) is None  # not bo's browser
    assert slots.evictable(ana, "browser", running) == "ana-1"
    slots.evict("ana-1")
    assert slots.refusal(ana, running) is None and not slots.has_left("ana-1")
    running.remove("ana-1")
    open_page(ana, "ana-3")
    # A page that reconnects (a network blip) is there again.
    slots.disconnected("ana-2", hash("ana-2"))
    slots.connected("ana-2", 7)
    assert not slots.has_left("ana-2")
    assert slots.evictable(ana, "browser", running) is None
    # Another visitor at the cap: a page left for the grace period, not before.
    open_page(bo, "bo-1")
    open_page(bo, "bo-2")
    carl = hardening.Visitor("10.0.0.3", "c")
    assert slots.refusal(carl, running) == "cap"
    slots.disconnected("bo-1", hash("bo-1"))
    now[0] = hardening.LEFT_GRACE_S - 1
    assert slots.evictable(carl, "cap", running) is None
    now[0] = hardening.LEFT_GRACE_S
    assert slots.evictable(carl, "cap", running) == "bo-1"
    assert slots.evictable(hardening.Visitor("10.0.0.1", "d"), "address", running) is None
    running.remove("bo-1")  # the culler shut it down meanwhile: forgotten
    assert slots.evictable(carl, "cap", running) is None and not slots.has_left("bo-1")


def test_a_person_is_a_widget_message_in_any_framing() -> None:
    message = kernel_message("comm_msg", {"comm_id": "0" * 32, "data": {"method": "custom"}})
    info = kernel_message("kernel_info_request", {})
    for msg, kind in ((message, "comm_msg"), (info, "kernel_info_request")):
        assert hardening.incoming_kind(json.dumps(msg), "") == kind
        parts = [json.dumps(msg[k]).encode() for k in ("header", "parent_header", "metadata",
                                                       "content")]  # fmt: skip
        assert hardening.incoming_kind(v1_frame(parts), V1_PROTOCOL) == kind
        assert hardening.incoming_kind(legacy_frame(msg), "") == kind
    for junk in ("", "[]", "{", '{"header": 3}', b"\0" * 30):
        assert hardening.incoming_kind(junk, "") is None
        assert hardening.incoming_kind(junk.encode() if isinstance(junk, str) else junk,
                                       V1_PROTOCOL) is None  # fmt: skip


def test_behind_a_trusted_proxy_the_visitor_is_the_forwarded_address() -> None:
    headers = {"X-Forwarded-For": "203.0.113.9, 198.51.100.7"}
    assert hardening.visitor_of("127.0.0.1", headers, None).address == "127.0.0.1"
    trusted = hardening.visitor_of("127.0.0.1", headers, "b", trust_proxy=True)
    assert trusted == hardening.Visitor("198.51.100.7", "b")  # the address the proxy saw
    real = {"X-Real-IP": "203.0.113.5", **headers}
    assert hardening.visitor_of("127.0.0.1", real, None, trust_proxy=True).address == "203.0.113.5"
    assert hardening.visitor_of("127.0.0.1", {}, None, trust_proxy=True).address == "127.0.0.1"


# ---------------------------------------------------------------------------- a real server


class Server:
    def __init__(self, port: int, proc: Any) -> None:
        import http.cookiejar

        self.port = port
        self.proc = proc
        self.base = f"http://127.0.0.1:{port}"
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        self.opened: list[str] = []
        self.log: Path | None = None

    def get(
        self, path: str, headers: dict[str, str] | None = None, data: bytes | None = None
    ) -> tuple[int, str, Any]:
        request = urllib.request.Request(self.base + path, headers=headers or {}, data=data)
        try:
            with self.opener.open(request, timeout=120) as response:
                return response.status, response.read().decode("utf-8", "replace"), response.headers
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode("utf-8", "replace"), error.headers

    def page_kernel(self, path: str = LESSON) -> tuple[str, str]:
        status, body, _ = self.get(path)
        assert status == 200, body[:500]
        match = re.search(r'"kernelId"\s*:\s*"([0-9a-f-]{36})"', body)
        assert match, "no kernel id in the page"
        self.opened.append(match.group(1))
        return match.group(1), body

    def socket(self, kernel_id: str, protocol: str | None = None, host: str | None = None) -> Any:
        options: dict[str, Any] = {"origin": self.base, "timeout": 20}
        if protocol:
            options["subprotocols"] = [protocol]
        if host:
            options["host"] = host
        url = f"ws://127.0.0.1:{self.port}/api/kernels/{kernel_id}/channels"
        return websocket.create_connection(url, **options)

    def close_pages(self) -> None:
        """Close every page this test opened, as a closed tab does (Voilà's shutdown beacon)."""
        xsrf = next((c.value for c in self.cookies if c.name == "_xsrf"), "")
        for kernel_id in self.opened:
            self.get(f"/voila/api/shutdown/{kernel_id}", headers={"X-XSRFToken": xsrf}, data=b"")
        self.opened.clear()

    def shutdown_kernels(self) -> None:
        """Close every page this test opened; no kernel may outlive them."""
        self.close_pages()
        deadline = time.monotonic() + 30
        while kernels_of(self.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not kernels_of(self.proc.pid), "kernels outlived their pages"


@contextlib.contextmanager
def capped_server(
    folder: Path, cap: int = CAP, root: Path | None = None, **options: Any
) -> Iterator[Server]:
    """A real server (``start_server``) with a cap of ``cap`` kernels, its log in ``folder``."""
    log = folder / "voila.log"
    port = free_port()
    with open(log, "wb") as out:
        options = {"max_kernels": cap, **options}
        proc = start_server(port, root, options=options, stdout=out, stderr=out)
        try:
            wait_for_port(port, timeout=120, proc=proc)
            served = Server(port, proc)
            served.log = log
            yield served
        finally:
            stop_server(proc)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with capped_server(tmp_path_factory.mktemp("server")) as served:
        yield served


def closed_by_server(sock: Any, seconds: float = 10) -> bool:
    """Read until the server closes the socket (True), or ``seconds`` pass (False)."""
    deadline = time.monotonic() + seconds
    sock.settimeout(1.0)
    while time.monotonic() < deadline:
        try:
            opcode, _ = sock.recv_data(control_frame=True)
        except websocket.WebSocketTimeoutException:
            continue
        except (websocket.WebSocketConnectionClosedException, ConnectionError):
            return True
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            return True
    return False


@pytest.mark.parametrize(
    ("protocol", "frame"),
    [
        (V1_PROTOCOL, (2**40).to_bytes(8, "little") + b"\0" * 16),  # ws_v1_hang.py
        (V1_PROTOCOL, (20_000_000).to_bytes(8, "little") + b"\0" * 16),
        (None, (20_000_000).to_bytes(4, "big") + b"\0" * 8),  # ws_legacy_nbufs.py
        (None, (2**31 - 1).to_bytes(4, "big") + b"\0" * 8),
    ],
    ids=["v1-2**40", "v1-2e7", "legacy-2e7", "legacy-2**31"],
)
def test_an_absurd_frame_neither_blocks_nor_bloats_the_server(
    server: Server, protocol: str | None, frame: bytes
) -> None:
    kernel_id, _ = server.page_kernel()
    before = rss(server.proc.pid)
    sock = server.socket(kernel_id, protocol)
    took: list[float] = []

    def probe() -> None:
        time.sleep(0.3)
        start = time.monotonic()
        status, _, _ = server.get(STATIC)
        took.append(time.monotonic() - start if status == 200 else float("inf"))

    thread = threading.Thread(target=probe)
    thread.start()
    for _ in range(3):  # a few in a row: each a different count for the legacy format cache
        sock.send_binary(frame)
        assert closed_by_server(sock), "the server kept a socket that sent a malformed frame"
        frame = frame[:-1] + b"\1"
        sock = server.socket(kernel_id, protocol)
    sock.close()
    thread.join(timeout=30)
    assert took and took[0] < 1.0, f"a page request waited {took} s"
    assert server.log is not None  # the server says what it refused, in its own log only
    assert "refused a malformed" in server.log.read_text(errors="replace")
    assert rss(server.proc.pid) - before < 50 * 2**20
    server.shutdown_kernels()


def test_a_widget_message_that_raises_sends_no_traceback(server: Server) -> None:
    kernel_id, body = server.page_kernel()
    model = re.search(r'"model_id"\s*:\s*"([0-9a-f]{32})"', body)
    assert model, "no widget in the page"
    sock = server.socket(kernel_id)  # the legacy JSON protocol: easy to read here
    update = {"method": "update", "state": {"view": 5}}
    bad = kernel_message("comm_msg", {"comm_id": model.group(1), "data": update})
    bad["channel"] = "shell"
    sock.send(json.dumps(bad))
    unknown = kernel_message("comm_msg", {"comm_id": "0" * 32, "data": {"method": "x"}})
    unknown["channel"] = "shell"
    sock.send(json.dumps(unknown))
    received = []
    sock.settimeout(1.0)
    deadline = time.monotonic() + 6
    while time.monotonic() < deadline:
        try:
            received.append(sock.recv())
        except websocket.WebSocketTimeoutException:
            continue
    sock.close()
    text = "\n".join(m if isinstance(m, str) else m.decode("latin-1") for m in received)
    assert received, "the kernel said nothing at all (status messages are expected)"
    assert "traceback" not in text.lower()
    assert "site-packages" not in text and '"stderr"' not in text
    server.shutdown_kernels()


def test_past_the_cap_a_learner_is_told_to_come_back_and_no_kernel_starts(
    server: Server,
) -> None:
    from canasta_teach.i18n import get_translator

    for _ in range(CAP):
        server.page_kernel("/voila/render/en/01-cards-values.ipynb")
    assert len(kernels_of(server.proc.pid)) == CAP
    status, body, headers = server.get("/voila/render/hi/02-deal-and-turn.ipynb")
    assert status == 503
    assert headers["Retry-After"] == "60"
    assert '<html lang="hi"' in body and get_translator("hi").ui("server.busy.text") in body
    # Its fonts come from the template's stylesheet, which still loads at the cap.
    sheet = re.search(r'<link rel="stylesheet" href="([^"]+)"', body)
    assert sheet and server.get(sheet.group(1))[0] == 200
    time.sleep(1)
    assert len(kernels_of(server.proc.pid)) == CAP
    # Static files still load, and a place frees up when a learner leaves.
    assert server.get(STATIC)[0] == 200
    server.shutdown_kernels()
    server.page_kernel("/voila/render/hi/02-deal-and-turn.ipynb")
    server.shutdown_kernels()


def test_pages_without_code_start_no_kernel_and_open_at_the_cap(server: Server) -> None:
    """The language chooser and the start pages are only text and links: they start no kernel,
    so they hold no learner's place, and they open even when every place is taken."""
    for _ in range(CAP):
        server.page_kernel("/voila/render/en/01-cards-values.ipynb")
    running = sorted(kernels_of(server.proc.pid))
    assert len(running) == CAP
    for path in ("/voila/render/index.ipynb", "/voila/render/ur/00-start.ipynb"):
        status, body, headers = server.get(path)
        assert status == 200, body[:500]
        assert headers["Cache-Control"] == "no-cache, no-store, must-revalidate"
        config = json.loads(
            re.search(r'id="jupyter-config-data"[^>]*>(.*?)</script>', body, re.S).group(1)  # type: ignore[union-attr]
        )
        assert config["kernelId"] == ""  # no kernel, and none for the page to ask about
        assert config["federated_extensions"] == []  # no widget to show, no widget manager
        assert "00-start.ipynb" in body or "01-cards-values.ipynb" in body  # its links
        assert "Traceback" not in body
    # A lesson's page at the cap is still refused: the start pages took no place.
    assert server.get("/voila/render/hi/02-deal-and-turn.ipynb")[0] == 503
    time.sleep(1)
    assert sorted(kernels_of(server.proc.pid)) == running
    server.shutdown_kernels()


def test_content_hashed_widget_files_are_cached_and_others_asked_again(server: Server) -> None:
    """Voilà serves the widget extensions with ``no-cache``: every page asked again for each
    of their files before its first widget. A file named by its content's hash is kept."""
    import sys

    static = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "anywidget" / "static"
    hashed = next(static.glob("remoteEntry.*.js")).name
    for name, policy in ((hashed, hardening.IMMUTABLE_CACHE), ("../package.json", "no-cache")):
        status, _, headers = server.get(f"/voila/labextensions/anywidget/static/{name}")
        assert status == 200 and headers["Cache-Control"] == policy, (name, headers)


def test_a_page_can_ask_whether_its_kernel_still_runs(server: Server) -> None:
    """A prerendered page, once shown, asks for its kernel's model (the template's activation
    check) and opens itself again on a 404: the hardened server must answer that route, and
    only with the kernel's bare model."""
    kernel_id, _ = server.page_kernel()
    status, body, _ = server.get(f"/api/kernels/{kernel_id}")
    assert status == 200
    model = {"id", "name", "last_activity", "execution_state", "connections"}
    assert set(json.loads(body)) <= model
    server.shutdown_kernels()
    assert server.get(f"/api/kernels/{kernel_id}")[0] == 404
    # The listing of every kernel stays closed.
    assert server.get("/api/kernels")[0] == 404


def test_a_prerender_gets_a_kernel_unless_prerendering_is_off(
    server: Server, tmp_path: Path
) -> None:
    """The browser's prerender of the next lesson (``Sec-Purpose: prefetch;prerender``) gets a
    page and a kernel on a server with room to spare; with ``--no-prerender`` a quiet 503 (the
    browser drops it) and no kernel, and the learner's own click still gets the page."""
    prerender = {"Sec-Purpose": "prefetch;prerender"}
    status, body, _ = server.get(LESSON, headers=prerender)
    assert status == 200 and '"kernelId"' in body
    assert len(kernels_of(server.proc.pid)) == 1
    server.opened.extend(re.findall(r'"kernelId"\s*:\s*"([0-9a-f-]{36})"', body)[:1])
    server.shutdown_kernels()
    with capped_server(tmp_path, prerender=False) as served:
        status, _, _ = served.get(LESSON, headers=prerender)
        assert status == 503
        time.sleep(1)
        assert not kernels_of(served.proc.pid)
        assert served.log is not None and "prerendering is off" in served.log.read_text()
        served.page_kernel()
        served.shutdown_kernels()


def test_a_foreign_host_is_refused_with_a_page_and_no_kernel(server: Server) -> None:
    before = len(kernels_of(server.proc.pid))
    status, body, _ = server.get(LESSON, headers={"Host": "evil.example"})
    assert status == 403
    assert "<section" in body and "Traceback" not in body
    status, _, _ = server.get(STATIC, headers={"Host": f"evil.example:{server.port}"})
    assert status == 403
    assert len(kernels_of(server.proc.pid)) == before
    # The websocket too (DNS rebinding delivers the frames above through a victim's browser).
    kernel_id, _ = server.page_kernel()
    with pytest.raises(websocket.WebSocketBadStatusException):
        server.socket(kernel_id, host=f"evil.example:{server.port}")
    # A cross-origin websocket with the right Host stays refused.
    with pytest.raises(websocket.WebSocketBadStatusException):
        websocket.create_connection(
            f"ws://127.0.0.1:{server.port}/api/kernels/{kernel_id}/channels",
            origin="http://evil.example", timeout=20,
        )  # fmt: skip
    server.socket(kernel_id).close()  # the real host and origin still work
    server.shutdown_kernels()


@pytest.mark.parametrize(
    "path",
    [
        # old_findings_http.py's F16 addresses: each was a 500 with a traceback in the log.
        "/voila/templates/canasta/conf.json",
        "/voila/templates/canasta/index.html.j2",
        "/voila/templates/canasta/static/",
        "/voila/files/x.txt%00.png",
        "/logout",
        "/login",
        "/voila/render/nope.ipynb",
        "/no/such/page",
        "/voila/render/ur/99-missing.ipynb",
    ],
)
def test_a_missing_page_is_a_translated_404_and_logs_no_traceback(
    server: Server, path: str
) -> None:
    from canasta_teach.i18n import get_translator

    assert server.log is not None
    logged = len(server.log.read_text(errors="replace"))
    code, body, headers = server.get(path, headers={"Accept-Language": "te-IN,te;q=0.9,en;q=0.5"})
    assert code == 404, (path, body[:300])
    assert "text/html" in headers.get("Content-Type", "")
    assert "<section" in body, body[:300]
    assert "Traceback" not in body and "site-packages" not in body and ".py" not in body
    # The page's language when its address names one, else the browser's.
    first = "ur" if "/ur/" in path else "te"
    assert f'<html lang="{first}" dir="{get_translator(first).direction}">' in body
    assert get_translator(first).ui("server.error.not_found") in body
    # tornado logs an uncaught exception before it answers: it is in the file by now.
    log = server.log.read_text(errors="replace")[logged:]
    assert "Traceback" not in log and "Uncaught exception" not in log, log[-2000:]


def test_a_hung_server_is_stopped_and_leaves_no_secrets_behind(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    log = tmp_path_factory.mktemp("hung") / "voila.log"
    port = free_port()
    with open(log, "wb") as out:
        proc = start_server(port, options={"max_kernels": 2}, stdout=out, stderr=out)
    assert proc.run_dir is not None
    run_dir = Path(proc.run_dir)
    try:
        wait_for_port(port, timeout=120, proc=proc)
        Server(port, proc).page_kernel("/voila/render/en/01-cards-values.ipynb")
        connection_files = list(run_dir.rglob("kernel-*.json"))
        assert connection_files, "Voilà writes the kernel's connection file in the run folder"
        os.kill(proc.pid, signal.SIGSTOP)  # as hung as F1 left it: only SIGKILL stops it
    finally:
        stop_server(proc, timeout=3)
    assert not run_dir.exists(), "the connection files (HMAC keys) outlive the server"


# ------------------------------------------------------------------------ the review's own files

REPRO = REPO.parent / "shared" / "reviews" / "reliability-repro"


@pytest.fixture(scope="module")
def repro_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    if not REPRO.is_dir():
        pytest.skip("../shared/reviews/reliability-repro is not here (a user's clone)")
    with capped_server(tmp_path_factory.mktemp("repro")) as served:
        yield served


# The review's scripts open index.ipynb because it started a kernel then. The language chooser
# has no code and starts none now, so each script is run on a copy aimed at a lesson page, which
# does: the attack is the same, only the page that hands out a kernel moved.
PAGE_WITH_A_KERNEL = "en/01-cards-values.ipynb"


def _run_repro(script: str, *args: str, copies: Path, timeout: float = 180) -> str:
    import os
    import subprocess
    import sys

    source = (REPRO / script).read_text(encoding="utf-8")
    assert "index.ipynb" in source, f"{script} no longer opens index.ipynb: read it again"
    copy = copies / script
    copy.write_text(source.replace("index.ipynb", PAGE_WITH_A_KERNEL), encoding="utf-8")
    runner = [sys.executable] if script.endswith(".py") else ["sh"]
    command = [*runner, str(copy), *args]
    env = {**os.environ, "PYTHONPATH": str(REPRO)}  # the scripts import their neighbours
    done = subprocess.run(command, cwd=REPRO, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)  # fmt: skip
    return done.stdout + done.stderr


def test_the_reviews_reproductions_do_no_harm(repro_server: Server, tmp_path: Path) -> None:
    port, pid = str(repro_server.port), str(repro_server.proc.pid)
    # F1: "concurrent static GET took 5.88 s" before; the server now answers at once.
    out = _run_repro("ws_v1_hang.py", port, str(2**40), copies=tmp_path)
    took = re.search(r"concurrent static GET took ([\d.]+) s", out)
    assert took and float(took.group(1)) < 1.0, out
    # F2: "server RSS 102 MB -> 815 MB" before.
    out = _run_repro("ws_legacy_nbufs.py", port, pid, "20000000", copies=tmp_path)
    sizes = [int(n) for n in re.findall(r"server RSS [^:]*: (\d+) MB", out)]
    assert len(sizes) == 2 and sizes[1] - sizes[0] < 50, out
    # F3: ten plain GETs used to start ten kernels; the cap holds.
    out = _run_repro("kernel_flood.sh", port, pid, "10", copies=tmp_path)
    after = re.search(r"kernels after 10 GETs: (\d+)", out)
    assert after and 1 <= int(after.group(1)) <= CAP, out


@pytest.mark.parametrize(
    "name",
    sorted(p.name for p in REPRO.glob("*.txt")) + sorted(p.name for p in REPRO.glob("*.json"))
    if REPRO.is_dir()
    else ["(no ../shared here)"],
)
def test_the_reviews_bad_files_exit_2(name: str) -> None:
    # F6-F9, F12: each file made the command line exit 3 ("Internal error"), or was accepted.
    if not REPRO.is_dir():
        pytest.skip("../shared/reviews/reliability-repro is not here (a user's clone)")
    import contextlib
    import io

    from canasta_teach.cli import main

    command = (
        ["replay", str(REPRO / name)] if name.endswith(".json") else ["moves", str(REPRO / name)]
    )
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(command)
    assert code == 2, (name, code, out.getvalue()[-300:], err.getvalue()[-300:])
    assert "Traceback" not in out.getvalue() + err.getvalue()


# ------------------------------------------------------------ the cap under a class and a visitor

GATED_NOTEBOOK = {
    "cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
               "source": "import pathlib, time, uuid\n"
                         "gate = pathlib.Path(GATE)\n"
                         "(gate / f'rendering-{uuid.uuid4().hex}').touch()\n"
                         "while not (gate / 'open').exists():\n"
                         "    time.sleep(0.05)\n"}],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                "name": "python3"}},
    "nbformat": 4, "nbformat_minor": 5,
}  # fmt: skip


def wait_until(condition: Any, what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"still not {what} after {seconds} s"
        time.sleep(0.1)


def test_pages_rendering_together_each_count_once(tmp_path: Path) -> None:
    """F22 (cap_stagger.py): learners arriving while others' pages render were turned away
    below the cap. Here every page stays rendering (its notebook waits for a gate) while the
    next one arrives: the cap's three pages are all served, the fourth learner is refused."""
    from canasta_teach.app import link_site

    gate = tmp_path / "gate"
    gate.mkdir()
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    cell = GATED_NOTEBOOK["cells"][0]  # type: ignore[index]
    notebook = {**GATED_NOTEBOOK, "cells": [{**cell, "source": f"GATE = {str(gate)!r}\n"
                                             + cell["source"]}]}  # fmt: skip
    (notebooks / "gated.ipynb").write_text(json.dumps(notebook))
    site = link_site(tmp_path / "site", {"_gate": notebooks})
    with capped_server(tmp_path, CAP, root=site, per_address=0) as served:
        statuses: list[int] = []
        threads = []
        for n in range(CAP):
            thread = threading.Thread(
                target=lambda: statuses.append(served.get("/voila/render/_gate/gated.ipynb")[0])
            )
            thread.start()
            threads.append(thread)
            # The page's kernel runs its notebook (and is listed), the page is still rendering.
            wait_until(lambda n=n: len(list(gate.glob("rendering-*"))) == n + 1, "rendering")
        status, body, _ = served.get("/voila/render/en/01-cards-values.ipynb")
        assert status == 503 and "<section" in body
        (gate / "open").touch()
        for thread in threads:
            thread.join(timeout=120)
        assert statuses == [200] * CAP


def test_one_address_holds_its_share_and_unused_pages_are_culled(tmp_path: Path) -> None:
    """F23 (kernel_slots_hold.py): one visitor held every kernel with open sockets for as long
    as they liked. Now one address holds at most its share, and a kernel whose page sends no
    widget message is shut down after ``--unattended-minutes``, socket open or not, while a
    page that is used stays."""
    from canasta_teach.i18n import get_translator

    minutes = 0.1  # 6 s
    with capped_server(tmp_path, 6, per_address=2, unattended_minutes=minutes) as served:
        assert served.log is not None
        log = served.log
        used, _ = served.page_kernel()
        used_socket = served.socket(used)
        ping = kernel_message("comm_msg", {"comm_id": "0" * 32, "data": {"method": "custom"}})
        ping["channel"] = "shell"
        stop = threading.Event()

        def person() -> None:  # clicks now and then, as a learner does
            while not stop.wait(0.3):
                used_socket.send(json.dumps(ping))

        clicking = threading.Thread(target=person)
        clicking.start()
        try:
            quiet, _ = served.page_kernel()
            quiet_socket = served.socket(quiet)  # open, answering pings, sending nothing
            status, body, headers = served.get(LESSON)  # a third page from the same address
            assert status == 429 and headers["Retry-After"] == "60"
            assert get_translator("ur").ui("server.busy.yours") in body
            wait_until(
                lambda: f"shutting down kernel {quiet}" in log.read_text(errors="replace"),
                "culled",
            )
            wait_until(lambda: len(kernels_of(served.proc.pid)) == 1, "down to the used kernel")
            assert f"shutting down kernel {used}" not in log.read_text(errors="replace")
            served.opened.remove(quiet)
            # The address has a place again once the kernel manager has let the kernel go.
            wait_until(lambda: _served_page(served), "served again")
        finally:
            stop.set()
            clicking.join()
        quiet_socket.close()
        used_socket.close()
        served.shutdown_kernels()


def test_a_tab_closed_without_its_beacon_does_not_hold_its_browsers_place(
    tmp_path: Path,
) -> None:
    """A closed tab whose shutdown beacon was lost left its kernel running, counted in its
    browser's share until the idle culler came (5 minutes): a learner going through lessons
    was refused their next one. Now their browser's next page takes that kernel's place."""
    with capped_server(tmp_path, 6, per_browser=1) as served:
        assert served.log is not None
        log = served.log
        served.get("/voila/render/en/no-such-lesson.ipynb")  # the browser gets its cookie
        assert any(c.name == "_xsrf" for c in served.cookies)
        left, _ = served.page_kernel()
        page_socket = served.socket(left)
        page_socket.close()  # the tab is gone; no beacon
        wait_until(lambda: f"Starting buffering for {left}" in log.read_text(errors="replace"),
                   "the server saw the websocket close")  # fmt: skip
        served.page_kernel()  # refused (429) while the left page counted
        text = log.read_text(errors="replace")
        assert f"kernel {left}: its page has left; it makes room for a learner" in text
        served.opened.remove(left)
        wait_until(lambda: len(kernels_of(served.proc.pid)) == 1, "the left page's kernel gone")
        served.shutdown_kernels()


def _served_page(served: Server) -> bool:
    status, body, _ = served.get(LESSON)
    if status == 200:
        match = re.search(r'"kernelId"\s*:\s*"([0-9a-f-]{36})"', body)
        assert match
        served.opened.append(match.group(1))
        return True
    assert status == 429
    return False


#: Prints what a page's kernel knows of itself: its process, folder and visitor's address.
WHOAMI_NOTEBOOK = {
    "cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
               "source": "import os\nfrom canasta_teach.rooms.room import CLIENT_ADDRESS_ENV\n"
                         "print('whoami', os.getpid(), os.getcwd(),"
                         " os.environ.get(CLIENT_ADDRESS_ENV), 'end')"}],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                "name": "python3"}},
    "nbformat": 4, "nbformat_minor": 5,
}  # fmt: skip


def test_warm_kernels_serve_pages_within_the_cap_and_the_visitors_share(tmp_path: Path) -> None:
    """``--preheat 2``: a page takes a warm kernel (no kernel starts for it), which then runs in
    the page's folder and knows the page's visitor; spares and pages together never pass the
    cap, and one address gets no more than its share however many spares wait."""
    from canasta_teach.app import link_site

    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    (notebooks / "whoami.ipynb").write_text(json.dumps(WHOAMI_NOTEBOOK))
    site = link_site(tmp_path / "site", {"_who": notebooks})
    with capped_server(tmp_path, 3, root=site, preheat=2, per_address=2) as served:
        wait_until(lambda: len(kernels_of(served.proc.pid)) == 2, "two warm kernels")
        spares = set(kernels_of(served.proc.pid))
        _, body = served.page_kernel("/voila/render/_who/whoami.ipynb")
        match = re.search(r"whoami (\d+) (\S+) (\S+) end", body)
        assert match, body[-2000:]
        assert int(match.group(1)) in spares  # a warm kernel, not a new one
        assert Path(match.group(2)).resolve() == notebooks.resolve()
        assert match.group(3) == "127.0.0.1"
        wait_until(lambda: len(kernels_of(served.proc.pid)) == 3, "the pool refilled")
        served.page_kernel("/voila/render/en/01-cards-values.ipynb")
        assert len(kernels_of(served.proc.pid)) <= 3
        status, _, _ = served.get(LESSON)  # a third page from this address: its share is 2
        assert status == 429
        time.sleep(3)  # no refill past the cap: two pages and one spare
        assert len(kernels_of(served.proc.pid)) == 3
        served.close_pages()
        wait_until(lambda: len(kernels_of(served.proc.pid)) == 2, "back to two warm kernels")
