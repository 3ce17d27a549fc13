"""What keeps the Voilà app safe to put online (``../shared/reviews/reliability.md``, F1–F5, F16).

Used by ``canasta_teach.app``'s ``serve`` (this module imports tornado and Voilà; the engine and
the widgets never import it):

- :func:`frame_is_sane`: a binary websocket frame's own offsets must fit inside it before
  jupyter_server decodes it (F1: a 24-byte v1 frame whose offset count is 2**40 loops on the event
  loop; F2: a 12-byte legacy frame whose buffer count is 20,000,000 grows the server by 640 MB).
- ``SafeFramesConnection``: the kernel websocket connection with that check on every incoming
  frame (the app's, and a Jupyter Server's through :data:`SERVER_CONFIG`).
- :func:`guarded_websocket_handler`: no traceback, install path or stderr text in what the
  kernel websocket sends to the browser (F4).
- :func:`host_allowed`: the Host header must name this server (F5, DNS rebinding).
- :func:`kernel_budget` / :func:`busy_page` / :func:`error_page`: the kernel cap (F3) and the
  translated pages that replace a bare "500: Internal Server Error" (F16).
- :class:`KernelSlots`: who holds the server's kernels, each counted once (F22), with a share
  per address and per browser, and which of them no person has used for a while (F23); spare
  (warm) kernels count against the cap but never against a learner.
- :func:`quiet_static_handler`: a file path that cannot name a file is a 404, never a 500 with a
  traceback in the log (F3/F16 leftovers).
"""

from __future__ import annotations

import contextlib
import functools
import html
import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

log = logging.getLogger("canasta_teach.hardening")

V1_PROTOCOL = "v1.kernel.websocket.jupyter.org"
#: A kernel message has header, parent header, metadata and content (plus the channel in v1):
#: anything beyond is a binary buffer. The widgets send none; allow a generous few.
MAX_PARTS = 64
#: The memory one lesson kernel takes (RSS measured: 53 MB; ``make bench`` reports it), with room.
KERNEL_MEMORY = 96 * 1024 * 1024


# ---------------------------------------------------------------------------- websocket frames


def frame_is_sane(frame: bytes, protocol: str) -> bool:
    """Whether a binary websocket frame's header agrees with its length.

    ``protocol`` is the websocket's subprotocol: v1 frames start with a little-endian 64-bit
    count of offsets, then the offsets (each 64-bit); legacy frames with a big-endian 32-bit
    count of buffers, then their 32-bit offsets. The counts must be small, the header must fit in
    the frame, and the offsets must rise and stay inside it."""
    order: Literal["little", "big"]
    if protocol == V1_PROTOCOL:
        width, order = 8, "little"
    else:
        width, order = 4, "big"
    if len(frame) < width:
        return False
    count = int.from_bytes(frame[:width], order)
    if count < 1 or count > MAX_PARTS or len(frame) < width * (count + 1):
        return False
    offsets = [
        int.from_bytes(frame[width * (i + 1) : width * (i + 2)], order) for i in range(count)
    ]
    if offsets[0] < width * (count + 1):
        return False
    return all(a <= b for a, b in zip(offsets, offsets[1:], strict=False)) and offsets[-1] <= len(
        frame
    )


# ---------------------------------------------------------------------------- outgoing messages


def _v1_parts(frame: bytes) -> list[bytes] | None:
    if not frame_is_sane(frame, V1_PROTOCOL):
        return None
    count = int.from_bytes(frame[:8], "little")
    offsets = [int.from_bytes(frame[8 * (i + 1) : 8 * (i + 2)], "little") for i in range(count)]
    offsets.append(len(frame))
    return [frame[offsets[i] : offsets[i + 1]] for i in range(count)]


def message_to_drop(message: Any) -> bool:
    """Whether an outgoing kernel message carries what a browser must not get: an ``error``
    (traceback with install paths and source lines) or a ``stream`` on stderr."""
    header: Any = None
    content: Any = None
    if isinstance(message, bytes):
        parts = _v1_parts(message)
        if parts is None or len(parts) < 5:
            return False  # legacy binary frames carry comm buffers, never errors
        try:
            header = json.loads(parts[1])
            if header.get("msg_type") == "stream":
                content = json.loads(parts[4])
        except (ValueError, AttributeError):
            return False
    elif isinstance(message, str):
        if '"error"' not in message and '"stream"' not in message:
            return False  # the common case, without parsing
        try:
            parsed = json.loads(message)
        except ValueError:
            return False
        header, content = parsed.get("header"), parsed.get("content")
    elif isinstance(message, dict):
        header, content = message.get("header"), message.get("content")
    if not isinstance(header, dict):
        return False
    kind = header.get("msg_type")
    if kind == "error":
        return True
    return kind == "stream" and isinstance(content, dict) and content.get("name") == "stderr"


@functools.cache
def guarded_websocket_handler() -> type:
    """Voilà's kernel websocket handler, sending no tracebacks or stderr to the browser (F4).
    (Frames are checked by :data:`SafeFramesConnection`, its connection class.)"""
    from voila.tornado.kernel_websocket_handler import (
        VoilaKernelWebsocketHandler,
    )

    # Voilà ships no types, so its handler is Any here (pyproject's mypy overrides).
    class GuardedKernelWebsocketHandler(VoilaKernelWebsocketHandler):  # type: ignore[misc]
        def write_message(self, message: Any, binary: bool = False) -> Any:
            if message_to_drop(message):
                log.info("kept an error or stderr message from the browser")
                return None
            return super().write_message(message, binary)

    return GuardedKernelWebsocketHandler


# ---------------------------------------------------------------------------- hosts

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")


def _host_name(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:8866
        return host[1 : host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        return host.rsplit(":", 1)[0]
    return host


def host_allowed(host: str | None, allowed: Iterable[str]) -> bool:
    """Whether a request's Host header names this server: a loopback name, or one of
    ``allowed`` (``"*"`` allows any, for a server behind a proxy that checks Host itself)."""
    names = {name.strip().lower() for name in allowed if name.strip()}
    if "*" in names:
        return True
    if not host:
        return False
    name = _host_name(host)
    return name in LOCAL_HOSTS or name in names


# ---------------------------------------------------------------------------- kernels


def total_memory() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def kernel_budget(memory: int | None = None) -> int:
    """The default cap on kernels: half the machine's memory at :data:`KERNEL_MEMORY` each,
    between 4 and 400."""
    memory = total_memory() if memory is None else memory
    if not memory:
        return 50
    return max(4, min(400, int(memory * 0.5) // KERNEL_MEMORY))


def address_share(cap: int) -> int:
    """The default share of the cap one address may hold: a quarter, at least 4 (a class
    behind one school router is one address: 30 learners fit a cap of 125)."""
    return max(4, cap // 4)


#: The default share of one browser (one ``_xsrf`` cookie): a learner's lesson tabs.
BROWSER_SHARE = 8
#: The default minutes after which a kernel whose page has sent no widget message is culled,
#: connected or not: a learner reading a lesson for half an hour without a click loses the
#: kernel (a reload brings the page and the saved game back), a visitor holding sockets open
#: loses every place they hold.
UNATTENDED_MINUTES = 30.0
#: Seconds after a page's last websocket closed (and none came back) from which its kernel may
#: make room for another visitor: the page is gone (a tab whose shutdown beacon was lost, a
#: crashed browser); a page on a flaky network reconnects well within it.
LEFT_GRACE_S = 60.0


@dataclass(frozen=True)
class Visitor:
    """Who asked for a page: their address, and their browser when it sent a cookie."""

    address: str
    browser: str | None = None


@dataclass(eq=False)
class PageSlot:
    """A page being rendered: its visitor, and its kernel's id once the kernel is asked for.
    ``speculative``: the browser is prerendering the page (:func:`is_prerender`), nobody has
    asked to see it yet."""

    visitor: Visitor
    kernel_id: str | None = None
    speculative: bool = False


def is_prerender(headers: Any) -> bool:
    """Whether a page request is a browser's prerender (``Sec-Purpose: prefetch;prerender``,
    sent by Chromium for the Speculation Rules API): a page nobody has asked to see yet."""
    purpose = str(headers.get("Sec-Purpose") or headers.get("Purpose") or "")
    return "prerender" in purpose.lower()


class KernelSlots:
    """Who holds the server's kernels (F22, F23 in ``../shared/reviews/reliability.md``).

    A page in the middle of rendering has its kernel running already: counting both the kernel
    and the page turned learners away below the cap. Here a page counts until its kernel is
    asked for (:meth:`started`, with the id the page's kernel will have), and from then on the
    kernel counts, once, whether or not the kernel manager lists it yet.

    Each kernel remembers its visitor: one address may hold ``per_address`` kernels, one browser
    ``per_browser`` (0: no limit), so one visitor cannot fill the cap. And each kernel remembers
    when its page last sent a widget message (:meth:`saw_person`): :meth:`unattended` names the
    kernels no person has used for a while, connected or not, for the server to cull.

    A page the browser prerenders (the next lesson, while the learner reads this one) is
    *speculative* until it is shown: it gets a kernel only while two places are free (its own,
    and one for whoever comes next: :meth:`room_to_speculate`), within its visitor's share; and
    a learner who would be refused (the cap, or their own share) takes such a kernel's place
    instead (:meth:`evictable`, :meth:`evict`), so speculation never turns anyone away.

    And a page whose websocket closed and did not come back has *left* (:meth:`disconnected`):
    its browser's shutdown beacon should have shut its kernel down, but a beacon can be lost
    (a tab closed in a hurry, a crash), and until the idle culler comes the kernel would count.
    A visitor refused for their browser's share takes the place of a kernel their own browser
    left at once (the browser asking for a page has moved on from it); anyone refused takes
    the place of a kernel left for :data:`LEFT_GRACE_S`, within the refusal's scope.

    Everything runs on the server's event loop: no locks."""

    def __init__(
        self,
        cap: int,
        per_address: int = 0,
        per_browser: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cap = cap
        self.per_address = per_address
        self.per_browser = per_browser
        self._clock = clock
        self._rendering: list[PageSlot] = []
        self._owners: dict[str, Visitor] = {}
        self._person_seen: dict[str, float] = {}
        self._spares: set[str] = set()
        self._speculative: dict[str, float] = {}  # kernel id -> when asked for, until shown
        self._leaving: set[str] = set()  # evicted: no longer counted, shutting down
        self._connections: dict[str, set[int]] = {}  # kernel id -> its open websockets
        #: Called with a kernel's id when its page opens its first websocket (the page is
        #: being drawn): the warm kernel pool refills then (``canasta_teach.warmkernels``).
        self.on_first_connection: Callable[[str], None] | None = None
        self._left: dict[str, float] = {}  # kernel id -> when its last websocket closed

    def _held(self, running: Iterable[str]) -> tuple[set[str], list[PageSlot]]:
        """The kernels that count (running, asked for by a page, or spares), and the pages whose
        kernel is not asked for yet; kernels that are gone are forgotten."""
        kernels = set(running) | {s.kernel_id for s in self._rendering if s.kernel_id}
        kernels |= self._spares
        self._leaving &= kernels
        kernels -= self._leaving
        for kernel_id in [k for k in self._owners if k not in kernels]:
            del self._owners[kernel_id]
            self._person_seen.pop(kernel_id, None)
            self._speculative.pop(kernel_id, None)
        for kernel_id in [k for k in self._connections if k not in kernels]:
            del self._connections[kernel_id]
        for kernel_id in [k for k in self._left if k not in kernels]:
            del self._left[kernel_id]
        return kernels, [s for s in self._rendering if s.kernel_id is None]

    def refusal(self, visitor: Visitor, running: Iterable[str]) -> str | None:
        """Why ``visitor`` may not open one more page now ("cap", "address" or "browser"), or
        None when they may. ``running``: the kernel manager's kernel ids."""
        kernels, waiting = self._held(running)
        # A spare is the server's, not a learner's: a page at the cap takes one instead of
        # starting a kernel (``canasta_teach.warmkernels``), so spares never turn anyone away.
        if len(kernels - self._spares) + len(waiting) >= self.cap:
            return "cap"
        by_address, by_browser = self._shares(visitor, kernels, waiting)
        if self.per_address and self.per_address <= by_address:
            return "address"
        if visitor.browser is not None and self.per_browser and self.per_browser <= by_browser:
            return "browser"
        return None

    def _shares(
        self, visitor: Visitor, kernels: set[str], waiting: list[PageSlot]
    ) -> tuple[int, int]:
        """How many places ``visitor``'s address and ``visitor``'s browser hold."""
        holders = [self._owners.get(k) for k in kernels] + [s.visitor for s in waiting]
        by_address = sum(1 for v in holders if v is not None and v.address == visitor.address)
        by_browser = sum(
            1
            for v in holders
            if v is not None and visitor.browser is not None and v.browser == visitor.browser
        )
        return by_address, by_browser

    def admit(self, visitor: Visitor, *, speculative: bool = False) -> PageSlot:
        """Count a page being rendered (after :meth:`refusal` said None, with no await between
        the two); :meth:`rendered` when it is done, whatever happened."""
        slot = PageSlot(visitor, speculative=speculative)
        self._rendering.append(slot)
        return slot

    # Speculative pages (prerendered by the browser before anyone asked to see them).

    def room_to_speculate(self, visitor: Visitor, running: Iterable[str]) -> bool:
        """Whether a prerendered page of ``visitor`` may have a kernel now: with a place left
        free after it, under the cap (spares counted as taken) for a learner, and in the
        visitor's own shares for the visitor's next page. (A page still rendering cannot give
        its place back: without that spare place, a prerender that starts as its learner opens
        another tab would turn the learner away.)"""
        if self.refusal(visitor, running) is not None:
            return False
        kernels, waiting = self._held(running)
        if len(kernels) + len(waiting) + 2 > self.cap:
            return False
        by_address, by_browser = self._shares(visitor, kernels, waiting)
        if self.per_address and by_address + 2 > self.per_address:
            return False
        return not (
            visitor.browser is not None and self.per_browser and by_browser + 2 > self.per_browser
        )

    def is_speculative(self, kernel_id: str) -> bool:
        """Whether the kernel belongs to a prerendered page that has not been shown yet."""
        return kernel_id in self._speculative

    def shown(self, kernel_id: str) -> bool:
        """The kernel's page was shown (its first websocket: a browser opens none while it
        prerenders): from now on it is a learner's page like any other. Whether it was a
        prerendered page until now."""
        return self._speculative.pop(kernel_id, None) is not None

    def evictable(self, visitor: Visitor, refusal: str, running: Iterable[str]) -> str | None:
        """A kernel whose place would let ``visitor`` in (refused for ``refusal``: anyone's for
        "cap", their own address's or browser's otherwise), or None when there is none: first a
        page never shown (the one asked for first), then a page that has left (see the class):
        one their own browser left, or one left for :data:`LEFT_GRACE_S`."""
        rendering = {s.kernel_id for s in self._rendering}
        kernels, _waiting = self._held(running)

        def in_scope(kernel_id: str) -> Visitor | None:
            owner = self._owners.get(kernel_id)
            if kernel_id in rendering or kernel_id not in kernels or owner is None:
                return None
            if (
                refusal == "cap"
                or (refusal == "address" and owner.address == visitor.address)
                or (refusal == "browser" and owner.browser == visitor.browser)
            ):
                return owner
            return None

        for kernel_id, _since in sorted(self._speculative.items(), key=lambda item: item[1]):
            if in_scope(kernel_id) is not None:
                return kernel_id
        now = self._clock()
        for kernel_id, since in sorted(self._left.items(), key=lambda item: item[1]):
            owner = in_scope(kernel_id)
            if owner is None:
                continue
            own_browser = visitor.browser is not None and owner.browser == visitor.browser
            if own_browser or now - since >= LEFT_GRACE_S:
                return kernel_id
        return None

    def connected(self, kernel_id: str, connection: int) -> None:
        """A websocket (``connection``: any id unique among the open ones) opened to the
        kernel: its page is there."""
        first = kernel_id not in self._connections
        self._connections.setdefault(kernel_id, set()).add(connection)
        self._left.pop(kernel_id, None)
        if first and self.on_first_connection is not None:
            self.on_first_connection(kernel_id)

    def disconnected(self, kernel_id: str, connection: int) -> None:
        """A websocket to the kernel closed (called again for the same one: no change); with
        none left open, the page has left, from now (:meth:`has_left`)."""
        open_ones = self._connections.get(kernel_id)
        if open_ones is None or connection not in open_ones:
            return
        open_ones.discard(connection)
        if not open_ones:
            self._left[kernel_id] = self._clock()

    def has_left(self, kernel_id: str) -> bool:
        """Whether the kernel's page had a websocket and has none open now."""
        return kernel_id in self._left

    def speculative_of(self, visitor: Visitor) -> list[str]:
        """The kernels of ``visitor``'s pages never shown, that no page is rendering any more
        (a browser asks for the next lesson only once its page's game is drawn, so these are
        pages it went past)."""
        rendering = {s.kernel_id for s in self._rendering}
        return [
            kernel_id
            for kernel_id in self._speculative
            if kernel_id not in rendering and self._owners.get(kernel_id) == visitor
        ]

    def evict(self, kernel_id: str) -> None:
        """Stop counting a kernel at once (the server shuts it down next)."""
        self._speculative.pop(kernel_id, None)
        self._leaving.add(kernel_id)
        self._owners.pop(kernel_id, None)
        self._person_seen.pop(kernel_id, None)
        self._connections.pop(kernel_id, None)
        self._left.pop(kernel_id, None)

    # Spares (warm kernels, ``canasta_teach.warmkernels``): started before any page asks, owned
    # by nobody until a page takes one (:meth:`started`), then its visitor's like any other.

    def room_for_spare(self, running: Iterable[str]) -> bool:
        """Whether one more spare fits under the cap, every kernel and waiting page counted
        (spares included): spares only ever use room no learner holds."""
        kernels, waiting = self._held(running)
        return len(kernels) + len(waiting) + 1 <= self.cap

    def add_spare(self, kernel_id: str) -> None:
        """A spare is asked for, with this id: it counts from now on."""
        self._spares.add(kernel_id)

    def drop_spare(self, kernel_id: str) -> None:
        """A spare failed or was shut down."""
        self._spares.discard(kernel_id)

    def is_spare(self, kernel_id: str) -> bool:
        return kernel_id in self._spares

    def started(self, slot: PageSlot, kernel_id: str) -> None:
        """The page's kernel is asked for, with this id (a new kernel, or a spare it takes):
        from now on the kernel counts as its visitor's."""
        self._spares.discard(kernel_id)
        slot.kernel_id = kernel_id
        self._owners[kernel_id] = slot.visitor
        self._person_seen[kernel_id] = self._clock()
        if slot.speculative:
            self._speculative[kernel_id] = self._clock()

    def rendered(self, slot: PageSlot) -> None:
        """The page is done (sent, or failed): its person has the whole time from now."""
        with contextlib.suppress(ValueError):
            self._rendering.remove(slot)
        if slot.kernel_id in self._person_seen:
            self._person_seen[slot.kernel_id] = self._clock()

    def saw_person(self, kernel_id: str) -> None:
        """The kernel's page sent a widget message: someone is there."""
        if kernel_id in self._person_seen:
            self._person_seen[kernel_id] = self._clock()

    def unattended(self, running: Iterable[str], seconds: float) -> list[str]:
        """The running kernels started for a page that has sent no widget message for
        ``seconds`` (a page still rendering is never one of them)."""
        rendering = {s.kernel_id for s in self._rendering}
        now = self._clock()
        return [
            kernel_id
            for kernel_id in running
            if kernel_id not in rendering
            and kernel_id in self._person_seen
            and now - self._person_seen[kernel_id] >= seconds
        ]

    def held_by(self, address: str) -> int:
        """How many kernels one address holds now (for the log and the tests)."""
        return sum(1 for v in self._owners.values() if v.address == address)


def visitor_of(
    remote_ip: str | None, headers: Any, browser: str | None, *, trust_proxy: bool = False
) -> Visitor:
    """The visitor of a request. Behind a reverse proxy every request comes from the proxy's
    address: with ``trust_proxy`` (the proxy sets ``X-Real-IP`` or appends to
    ``X-Forwarded-For``), the address the proxy saw is used instead. Never trusted otherwise:
    any visitor can send those headers."""
    address = remote_ip or "?"
    if trust_proxy:
        real = (headers.get("X-Real-IP") or "").strip()
        forwarded = [a.strip() for a in (headers.get("X-Forwarded-For") or "").split(",")]
        address = real or (forwarded[-1] if forwarded[-1] else address)
    return Visitor(address[:64], browser[:64] if browser else None)


# ---------------------------------------------------------------------------- incoming messages


def incoming_kind(frame: str | bytes, protocol: str) -> str | None:
    """The ``msg_type`` of a message a page sent over its kernel websocket (None when it cannot
    be read: the frame checks and jupyter_server deal with such frames)."""
    try:
        if isinstance(frame, str):
            header = json.loads(frame).get("header")
        elif protocol == V1_PROTOCOL:
            parts = _v1_parts(frame)
            header = json.loads(parts[1]) if parts is not None and len(parts) > 1 else None
        else:  # legacy binary: the message's JSON comes first, then its buffers
            if not frame_is_sane(frame, protocol):
                return None
            count = int.from_bytes(frame[:4], "big")
            ends = [int.from_bytes(frame[4 * i : 4 * i + 4], "big") for i in range(1, count + 1)]
            ends.append(len(frame))
            header = json.loads(frame[ends[0] : ends[1]]).get("header")
    except (ValueError, AttributeError, RecursionError):
        return None
    kind = header.get("msg_type") if isinstance(header, dict) else None
    return kind if isinstance(kind, str) else None


#: What a person's page sends when its learner acts: widget messages (a click, a choice, a
#: hello with the browser's id). Info requests and websocket pings come from any open socket.
PERSON_MESSAGES = frozenset({"comm_msg"})


# ---------------------------------------------------------------------------- pages

_LANG_IN_PATH = re.compile(r"/voila/render/(en|ur|hi|te)/")
_PAGE = """<!DOCTYPE html>
<html lang="{lang}" dir="{dir}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="{stylesheet}">
<style>
body {{ font-family: 'Noto Sans', 'DejaVu Sans', sans-serif; margin: 2em auto; max-width: 40em;
  padding: 0 1em; color: #1d2b45; line-height: 1.5; }}
section {{ margin: 0 0 1.6em; padding: 0 0 1em; border-bottom: 1px solid #c8ccd4; }}
[lang=ur] {{ font-family: 'Noto Nastaliq Urdu', 'Noto Naskh Arabic', serif; line-height: 2.2; }}
[lang=hi] {{ font-family: 'Noto Sans Devanagari', sans-serif; }}
[lang=te] {{ font-family: 'Noto Sans Telugu', sans-serif; }}
h1 {{ font-size: 1.4em; }}
</style></head>
<body>
{sections}
</body></html>
"""


def page_language(path: str, accept_language: str | None = None) -> str:
    """The lesson language a URL path names (``/voila/render/ur/...``), else the first of the
    app's languages the browser asks for (``Accept-Language: ur-PK,ur;q=0.9``), else English."""
    from canasta_teach.i18n import LANGUAGES

    match = _LANG_IN_PATH.search(path or "")
    if match:
        return match.group(1)
    for part in (accept_language or "")[:500].split(","):
        code = part.split(";", 1)[0].strip().lower()[:2]
        if code in LANGUAGES:
            return code
    return "en"


def _page(
    path: str,
    title_key: str,
    text_key: str,
    base_url: str = "/",
    accept_language: str | None = None,
) -> str:
    from canasta_teach.i18n import LANGUAGES, get_translator

    first = page_language(path, accept_language)
    order = [first, *(lang for lang in LANGUAGES if lang != first)]
    start = html.escape(base_url.rstrip("/") + "/voila/render/index.ipynb")
    # The template's stylesheet carries the shipped fonts (@font-face), so these pages do not
    # depend on the visitor's fonts either; it is a static file, served even at the cap.
    stylesheet = html.escape(
        base_url.rstrip("/") + "/voila/templates/canasta/static/styles/canasta.css"
    )
    sections = []
    for lang in order:
        tr = get_translator(lang)
        sections.append(
            f'<section lang="{lang}" dir="{tr.direction}"><h1>{html.escape(tr.ui(title_key))}</h1>'
            f"<p>{html.escape(tr.ui(text_key))}</p>"
            f'<p><a href="{start}">{html.escape(tr.ui("server.start_page"))}</a></p></section>'
        )
    tr = get_translator(first)
    return _PAGE.format(
        lang=first,
        dir=tr.direction,
        title=html.escape(tr.ui(title_key)),
        stylesheet=stylesheet,
        sections="\n".join(sections),
    )


def busy_page(
    path: str, base_url: str = "/", accept_language: str | None = None, *, mine: bool = False
) -> str:
    """503: every kernel the server may start is in use ("try again in a minute"); with
    ``mine``, 429: this visitor's address or browser holds its share already ("close a lesson
    you no longer need")."""
    if mine:
        return _page(path, "server.busy.title", "server.busy.yours", base_url, accept_language)
    return _page(path, "server.busy.title", "server.busy.text", base_url, accept_language)


#: Status -> the message key of its explanation.
ERROR_TEXTS = {403: "server.error.refused", 404: "server.error.not_found"}


def error_page(
    status: int, path: str, base_url: str = "/", accept_language: str | None = None
) -> str:
    """Any error status, in the page's (or else the browser's) language first, without a
    traceback."""
    text = ERROR_TEXTS.get(status, "server.error.failed")
    return _page(path, "server.error.title", text, base_url, accept_language)


def install_error_pages() -> None:
    """Make every handler of this process answer errors with :func:`error_page`.

    Voilà has no hook for its error pages: tornado's default is a bare "500: Internal Server
    Error", Jupyter's an English template. API handlers (JSON) keep theirs. The traceback stays
    in the server log (tornado logs it before ``write_error``)."""
    import tornado.web
    from jupyter_server.base.handlers import JupyterHandler

    def write_error(self: tornado.web.RequestHandler, status_code: int, **kwargs: Any) -> None:
        self.set_header("Content-Type", "text/html; charset=UTF-8")
        self.set_header("Cache-Control", "no-store")
        language = self.request.headers.get("Accept-Language")
        self.finish(error_page(status_code, self.request.path, accept_language=language))

    # APIHandler (JSON) defines its own write_error, which these leave in place. Replacing a
    # method on the class is the point here (every handler of the server, Voilà's included).
    tornado.web.RequestHandler.write_error = write_error  # type: ignore[method-assign]
    JupyterHandler.write_error = write_error  # type: ignore[method-assign]


def quiet_static_handler(base: type) -> type:
    """``base`` (a tornado ``StaticFileHandler``) answering 404 for a path that cannot name one
    of its files. Voilà's template handler fails to split ``/voila/templates/canasta/conf.json``
    and tornado's handler chokes on a NUL byte (``x.txt%00.png``): both raised ``ValueError``,
    a 500 with a traceback in the log for any visitor who typed such an address."""
    import tornado.web

    class QuietStaticFileHandler(base):  # type: ignore[misc]
        async def get(self, path: str, include_body: bool = True) -> None:
            try:
                await super().get(path, include_body)
            except ValueError:  # raised while resolving the path, before anything is sent
                raise tornado.web.HTTPError(404) from None

    QuietStaticFileHandler.__name__ = QuietStaticFileHandler.__qualname__ = base.__name__
    return QuietStaticFileHandler


#: A built file whose name carries its content's hash (webpack's ``[name].[contenthash].js``):
#: the same name never serves other bytes.
_CONTENT_HASHED = re.compile(r"\.[0-9a-f]{8,}\.(?:js|css)$")
#: How long a browser keeps a content-hashed file without asking again (a year, as for any
#: fingerprinted asset).
IMMUTABLE_CACHE = "public, max-age=31536000, immutable"


def hashed_files_cached(base: type) -> type:
    """``base`` (a tornado ``StaticFileHandler``) letting browsers keep content-hashed files.

    Voilà serves the widget extensions (``/voila/labextensions/``) with ``Cache-Control:
    no-cache`` (``no_cache_paths: ["/"]``), so every page asked again for each of their ~20
    files, one round trip each, between the page's scripts and its first widget: about 300 ms of
    a lesson's time to interactive on a busy server. A file whose name holds its content's hash
    cannot change under that name: it is cached for a year. Other files (``style.js``,
    ``package.json``) keep the handler's own policy."""

    class HashedFilesCached(base):  # type: ignore[misc]
        def set_headers(self) -> None:
            super().set_headers()  # jupyter_server's sets no-cache here, after the extras
            if _CONTENT_HASHED.search(str(self.path or "").rsplit("/", 1)[-1]):
                self.set_header("Cache-Control", IMMUTABLE_CACHE)

    HashedFilesCached.__name__ = HashedFilesCached.__qualname__ = base.__name__
    return HashedFilesCached


def _safe_frames_connection_class() -> type:
    from jupyter_server.services.kernels.connection.channels import (
        ZMQChannelsWebsocketConnection,
    )

    class SafeFramesConnection(ZMQChannelsWebsocketConnection):
        """jupyter_server's kernel websocket connection, refusing frames that lie about their
        length (F1, F2) before its decoder sees them. The app sets it as
        ``Voila.kernel_websocket_connection_class``; a Jupyter Server (Binder, JupyterHub,
        JupyterLab) as ``ServerApp.kernel_websocket_connection_class`` (:data:`SERVER_CONFIG`)."""

        def _slots(self) -> KernelSlots | None:
            slots = self.websocket_handler.settings.get(SLOTS_SETTING)
            return slots if isinstance(slots, KernelSlots) else None

        async def prepare(self) -> None:
            # A browser opens no websocket from a page it prerenders (Chromium defers them
            # until the page is shown): the first one says the page is in front of a person.
            slots = self._slots()
            if slots is not None and slots.shown(self.kernel_id):
                self.log.info("kernel %s: its prerendered page is shown", self.kernel_id)
            await super().prepare()  # type: ignore[no-untyped-call]

        def connect(self) -> Any:
            if (slots := self._slots()) is not None:
                slots.connected(self.kernel_id, id(self))
            return super().connect()

        def disconnect(self) -> Any:
            # Called on the websocket's close, and again by close(): KernelSlots counts once.
            if (slots := self._slots()) is not None:
                slots.disconnected(self.kernel_id, id(self))
            return super().disconnect()  # type: ignore[no-untyped-call]

        def handle_incoming_message(self, incoming_msg: Any) -> None:
            if isinstance(incoming_msg, bytes) and not frame_is_sane(
                incoming_msg, self.subprotocol or ""
            ):
                log.warning("refused a malformed %d-byte websocket frame", len(incoming_msg))
                self.websocket_handler.close(1003, "malformed frame")
                return
            slots = self._slots()
            if slots is not None and (
                incoming_kind(incoming_msg, self.subprotocol or "") in PERSON_MESSAGES
            ):
                slots.saw_person(self.kernel_id)
            super().handle_incoming_message(incoming_msg)

    return SafeFramesConnection


#: The tornado setting that holds the app's :class:`KernelSlots` (absent on a Jupyter Server).
SLOTS_SETTING = "canasta_kernel_slots"

#: Jupyter Server settings for an environment that serves the lessons (Binder's postBuild).
SERVER_CONFIG = {
    "ServerApp": {
        "kernel_websocket_connection_class": "canasta_teach.hardening.SafeFramesConnection"
    }
}


def __getattr__(name: str) -> Any:
    # ``SafeFramesConnection`` is named in Jupyter config by its dotted path; built on first use
    # so that importing this module needs no jupyter_server.
    if name == "SafeFramesConnection":
        value = _safe_frames_connection_class()
        globals()[name] = value
        return value
    raise AttributeError(name)
