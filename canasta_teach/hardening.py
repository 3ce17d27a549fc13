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
"""

from __future__ import annotations

import functools
import html
import json
import logging
import os
import re
from collections.abc import Iterable
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


def page_language(path: str) -> str:
    """The lesson language a URL path names (``/voila/render/ur/...``), else English."""
    match = _LANG_IN_PATH.search(path or "")
    return match.group(1) if match else "en"


def _page(path: str, title_key: str, text_key: str, base_url: str = "/") -> str:
    from canasta_teach.i18n import LANGUAGES, get_translator

    first = page_language(path)
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


def busy_page(path: str, base_url: str = "/") -> str:
    """503: every kernel the server may start is in use ("try again in a minute")."""
    return _page(path, "server.busy.title", "server.busy.text", base_url)


#: Status -> the message key of its explanation.
ERROR_TEXTS = {403: "server.error.refused", 404: "server.error.not_found"}


def error_page(status: int, path: str, base_url: str = "/") -> str:
    """Any error status, in the page's language first, without a traceback."""
    return _page(
        path, "server.error.title", ERROR_TEXTS.get(status, "server.error.failed"), base_url
    )


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
        self.finish(error_page(status_code, self.request.path))

    # APIHandler (JSON) defines its own write_error, which these leave in place. Replacing a
    # method on the class is the point here (every handler of the server, Voilà's included).
    tornado.web.RequestHandler.write_error = write_error  # type: ignore[method-assign]
    JupyterHandler.write_error = write_error  # type: ignore[method-assign]


def _safe_frames_connection_class() -> type:
    from jupyter_server.services.kernels.connection.channels import (
        ZMQChannelsWebsocketConnection,
    )

    class SafeFramesConnection(ZMQChannelsWebsocketConnection):
        """jupyter_server's kernel websocket connection, refusing frames that lie about their
        length (F1, F2) before its decoder sees them. The app sets it as
        ``Voila.kernel_websocket_connection_class``; a Jupyter Server (Binder, JupyterHub,
        JupyterLab) as ``ServerApp.kernel_websocket_connection_class`` (:data:`SERVER_CONFIG`)."""

        def handle_incoming_message(self, incoming_msg: Any) -> None:
            if isinstance(incoming_msg, bytes) and not frame_is_sane(
                incoming_msg, self.subprotocol or ""
            ):
                log.warning("refused a malformed %d-byte websocket frame", len(incoming_msg))
                self.websocket_handler.close(1003, "malformed frame")
                return
            super().handle_incoming_message(incoming_msg)

    return SafeFramesConnection


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
