"""A throwaway ``redis-server`` on a free loopback port, for the store's tests, the rooms
benchmark, and trying the Redis store on one machine (``make redis`` installs the server)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def redis_available() -> bool:
    return os.path.exists(REDIS_SERVER)


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """Start ``redis-server`` (no persistence, loopback only) and yield its URL; stopped and
    its folder removed on exit.  ``FileNotFoundError`` when it is not installed."""
    if not redis_available():
        raise FileNotFoundError(REDIS_SERVER)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="canasta-redis-") as folder:
        proc = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                folder,
            ],  # fmt: skip
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_for(port, proc)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_for(port: int, proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"redis-server exited with code {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"redis-server did not listen on port {port}")
        time.sleep(0.05)
