"""Launch the canasta-teach web app: Voilà serving ``lessons/`` with the ``canasta`` template.

One place for the launch logic, shared by ``make app``, the browser tests and the benchmarks:

- :func:`voila_command` gives the argv that starts the server (``python -m canasta_teach.app
  serve ...``); it needs no environment variable and no working directory.
- ``serve`` (in that child process) copies the ``canasta`` template and the fonts and CSS of
  ``assets/`` into a fresh temporary Jupyter data folder, puts it first on ``JUPYTER_PATH`` and
  runs Voilà in-process with :data:`VOILA_CONFIG`, with the directory tree page and the contents
  API removed (``/`` redirects to the start page).
- :func:`main` (``python -m canasta_teach.app``) starts that command, waits until the port
  answers and prints the URL of the start page.

Safe defaults kept (see :data:`VOILA_CONFIG`): sources stripped, tracebacks hidden, the template
and theme cannot be overridden from the URL or a notebook, only images are served from the
lessons folder (never ``.ipynb``/``.py``), and Voilà's kernel websocket already refuses execute
requests from the browser (only comm and info messages pass).

Nothing from Jupyter is imported at module import time: ``import canasta_teach`` stays light.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
LESSONS_DIR = REPO_ROOT / "lessons"
TEMPLATE_NAME = "canasta"
TEMPLATE_SOURCE = REPO_ROOT / "share" / "jupyter" / "voila" / "templates" / TEMPLATE_NAME
ASSETS_DIR = REPO_ROOT / "assets"
DEFAULT_PORT = 8866
HOST = "127.0.0.1"
START_PAGE = "index.ipynb"

#: Voilà settings, as traitlets config. Used as command-line flags by ``serve`` and written as a
#: Jupyter server config by ``write-server-config`` (Binder, where Voilà is a server extension).
VOILA_CONFIG: dict[str, dict[str, Any]] = {
    "VoilaConfiguration": {
        "template": TEMPLATE_NAME,
        "theme": "light",
        "strip_sources": True,
        "show_tracebacks": False,
        "allow_template_override": "NO",
        "allow_theme_override": "NO",
        # Voilà's own defaults, stated so that nobody widens them by accident: fonts and CSS are
        # served from the template's static folder, not from the lessons folder.
        "file_allowlist": [r".*\.(png|jpg|gif|svg)"],
        "file_denylist": [r".*\.(ipynb|py)", r"(.*/)?\..*"],
    },
}


def start_page_url(port: int, host: str = HOST) -> str:
    """URL of the language chooser, ``lessons/index.ipynb``."""
    return f"http://{host}:{port}/voila/render/{START_PAGE}"


def voila_command(port: int, root: str | os.PathLike[str] | None = None) -> list[str]:
    """The argv that serves ``root`` (default ``lessons/``) on 127.0.0.1:``port``.

    Start it in its own process group (``start_new_session=True``) and stop it by killing that
    group: the kernels are its children.
    """
    root_dir = Path(root) if root is not None else LESSONS_DIR
    return [
        sys.executable,
        "-m",
        "canasta_teach.app",
        "serve",
        "--port",
        str(int(port)),
        "--root",
        str(root_dir.resolve()),
    ]


def voila_args(port: int, root: str | os.PathLike[str]) -> list[str]:
    """Voilà's own command-line arguments (used inside ``serve``)."""
    args = [
        "--no-browser",
        f"--Voila.ip={HOST}",
        f"--Voila.port={int(port)}",
        "--Voila.port_retries=0",
    ]
    for section, values in VOILA_CONFIG.items():
        for key, value in values.items():
            args.append(f"--{section}.{key}={_cli_value(value)}")
    args.append(str(root))
    return args


def _cli_value(value: Any) -> str:
    if isinstance(value, bool | int):
        return str(value)
    if isinstance(value, str):
        return value
    return json.dumps(value)


def build_jupyter_path(
    dest: str | os.PathLike[str], repo: str | os.PathLike[str] | None = None
) -> Path:
    """Lay out a Jupyter data folder holding the ``canasta`` Voilà template.

    ``dest/voila/templates/canasta/`` gets the template files of
    ``share/jupyter/voila/templates/canasta/`` and a ``static/`` folder with ``styles/canasta.css``
    and ``fonts/*.woff2`` copied from ``assets/`` (so the CSS's relative ``../fonts/`` URLs hold).
    Put ``dest`` on ``JUPYTER_PATH``, or use ``sys.prefix/share/jupyter`` as ``dest``.
    Returns the template folder.
    """
    repo_root = Path(repo) if repo is not None else REPO_ROOT
    source = repo_root / "share" / "jupyter" / "voila" / "templates" / TEMPLATE_NAME
    assets = repo_root / "assets"
    if not (source / "conf.json").is_file() or not (assets / "styles" / "canasta.css").is_file():
        raise FileNotFoundError(
            f"canasta template sources not found under {repo_root} "
            "(need share/jupyter/voila/templates/canasta/ and assets/); pass the repository path"
        )
    target = Path(dest) / "voila" / "templates" / TEMPLATE_NAME
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("static", "__pycache__"))
    static = target / "static"
    (static / "styles").mkdir(parents=True)
    (static / "fonts").mkdir()
    shutil.copy2(assets / "styles" / "canasta.css", static / "styles" / "canasta.css")
    for font in sorted((assets / "fonts").glob("*.woff2")):
        shutil.copy2(font, static / "fonts" / font.name)
    return target


def server_config() -> dict[str, Any]:
    """:data:`VOILA_CONFIG` as a Jupyter server config (for ``jupyter_server_config.d``)."""
    config: dict[str, Any] = json.loads(json.dumps(VOILA_CONFIG))
    return config


def _serve(port: int, root: str) -> None:
    """Run Voilà in this process (the ``serve`` subcommand)."""
    data_dir = tempfile.mkdtemp(prefix="canasta-jupyter-")
    atexit.register(shutil.rmtree, data_dir, True)
    build_jupyter_path(data_dir)
    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = data_dir + (os.pathsep + old if old else "")

    import tornado.web
    from jupyter_server.utils import url_path_join
    from voila.app import Voila  # type: ignore[import-untyped]

    class CanastaVoila(Voila):  # type: ignore[misc]
        """Voilà without the directory tree page and the contents API.

        The tree page lists the served folder and the contents API returns any notebook's JSON,
        sources included, so both go; ``/`` redirects to the start page instead.
        """

        def init_handlers(self) -> list[Any]:
            dropped = {"TornadoVoilaTreeHandler", "VoilaContentsHandler"}
            handlers = [h for h in super().init_handlers() if h[1].__name__ not in dropped]
            start = url_path_join(self.server_url, "voila/render", START_PAGE)
            handlers.insert(0, (self.server_url, tornado.web.RedirectHandler, {"url": start}))
            return handlers

    try:
        CanastaVoila.launch_instance(argv=voila_args(port, root))
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def wait_for_port(port: int, host: str = HOST, timeout: float = 60.0, proc: Any = None) -> None:
    """Poll until ``host:port`` accepts a TCP connection (raise on timeout or if ``proc`` exits)."""
    deadline = time.monotonic() + timeout
    while True:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server exited with code {proc.returncode} before listening")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on {host}:{port} after {timeout} s") from None
            time.sleep(0.1)


def free_port(host: str = HOST) -> int:
    """A TCP port that was free a moment ago (bind port 0 and ask)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def start_server(
    port: int, root: str | os.PathLike[str] | None = None, **popen_kwargs: Any
) -> subprocess.Popen[bytes]:
    """Start :func:`voila_command` in a new process group (see :func:`stop_server`)."""
    return subprocess.Popen(voila_command(port, root), start_new_session=True, **popen_kwargs)


def stop_server(proc: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    """SIGTERM the server's process group (kernels included), then SIGKILL what is left."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=timeout)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    if proc.poll() is None:
        proc.wait(timeout=timeout)


def _run(port: int, root: str | None) -> int:
    proc = start_server(port, root)
    try:
        wait_for_port(port, proc=proc)
        print(f"\ncanasta-teach is ready: {start_page_url(port)}\n(Ctrl-C stops it)\n", flush=True)
        return proc.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        stop_server(proc)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m canasta_teach.app", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    default_port = int(os.environ.get("PORT") or DEFAULT_PORT)

    run = sub.add_parser("run", help="serve the app and print its URL (the default)")
    serve = sub.add_parser("serve", help="run Voilà in this process (what voila_command runs)")
    for p in (parser, run, serve):
        p.add_argument("--port", type=int, default=default_port)
        p.add_argument("--root", default=None, help="folder to serve (default: lessons/)")

    install = sub.add_parser(
        "install-template", help="copy the canasta template into a Jupyter data folder"
    )
    install.add_argument(
        "dest", help="e.g. $(python -c 'import sys; print(sys.prefix)')/share/jupyter"
    )
    install.add_argument("--repo", default=None, help="repository checkout (default: this one)")

    config = sub.add_parser("write-server-config", help="write VOILA_CONFIG as JSON")
    config.add_argument("path", help="e.g. PREFIX/etc/jupyter/jupyter_server_config.d/canasta.json")

    args = parser.parse_args(argv)
    if args.command == "serve":
        _serve(args.port, args.root or str(LESSONS_DIR))
        return 0
    if args.command == "install-template":
        print(build_jupyter_path(args.dest, args.repo))
        return 0
    if args.command == "write-server-config":
        path = Path(args.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(server_config(), indent=2) + "\n", encoding="utf-8")
        print(path)
        return 0
    return _run(args.port, args.root)


if __name__ == "__main__":
    sys.exit(main())
