"""Warnings and errors raised inside a page's kernel, written to the server's log (F26).

A kernel's own stderr is captured by ipykernel and sent to the browser as a ``stream``
message, which the app drops on its way (``canasta_teach.hardening``: no traceback reaches a
learner), so ``log.exception(...)`` in a kernel reached nobody.  ipykernel keeps a copy of the
stderr the kernel was started with, the server's own: this package's records of WARNING and
above go there, so the operator reads them in the server's log beside its own lines.
Outside a kernel (a script, the tests) nothing changes.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import IO, Final

#: The records' prefix in the server's log: which kernel (its process id) said it.
FORMAT: Final = "[canasta kernel %(process)d] %(levelname)s %(name)s: %(message)s"
_LOGGER: Final = "canasta_teach"


class ServerLogHandler(logging.StreamHandler[IO[str]]):
    """The handler ``log_to_server`` adds (one per kernel)."""


def server_stream(stderr: object | None = None) -> IO[str] | None:
    """The server's stderr as this kernel got it, or None outside an ipykernel kernel.

    ipykernel's ``OutStream`` (``sys.stderr`` in a kernel) keeps the original file descriptor
    as ``_original_stdstream_copy`` when it captures fd 2; without capture, fd 2 itself is
    still the server's."""
    stderr = sys.stderr if stderr is None else stderr
    if not type(stderr).__module__.startswith("ipykernel"):
        return None
    original = getattr(stderr, "_original_stdstream_copy", None)
    fd = original if isinstance(original, int) else 2
    return open(  # noqa: SIM115 - lives as long as the kernel (the handler's stream)
        os.dup(fd), "w", buffering=1, encoding="utf-8", errors="replace", closefd=True
    )


def log_to_server(stderr: object | None = None) -> bool:
    """Send this package's warnings and errors to the server's log; whether a handler was
    added (once per process; never outside a kernel)."""
    logger = logging.getLogger(_LOGGER)
    if any(isinstance(handler, ServerLogHandler) for handler in logger.handlers):
        return False
    stream = server_stream(stderr)
    if stream is None:
        return False
    handler = ServerLogHandler(stream)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter(FORMAT))
    logger.addHandler(handler)
    if logger.level == logging.NOTSET or logger.level > logging.WARNING:
        logger.setLevel(logging.WARNING)
    return True
