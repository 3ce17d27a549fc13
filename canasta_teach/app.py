"""Launch the canasta-teach web app: Voilà serving ``lessons/`` with the ``canasta`` template.

One place for the launch logic, shared by ``make app``, the browser tests and the benchmarks:

- :func:`voila_command` gives the argv that starts the server (``python -m canasta_teach.app
  serve ...``); it needs no environment variable and no working directory.
- ``serve`` (in that child process) copies the ``canasta`` template and the fonts and CSS of
  ``assets/`` into a fresh temporary Jupyter data folder, puts it first on ``JUPYTER_PATH`` and
  runs Voilà in-process with :data:`VOILA_CONFIG`, with the directory tree page and the contents
  API removed (``/`` redirects to the start page) and the ``_xsrf`` cookie set so that a closed
  tab's kernel is shut down.
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
import hashlib
import inspect
import json
import logging
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

from canasta_teach.hardening import BROWSER_SHARE, UNATTENDED_MINUTES
from canasta_teach.paths import LESSONS_DIR, REPO_ROOT, TEMPLATE_NAME
from canasta_teach.rooms.room import CLIENT_ADDRESS_HEADER

DEFAULT_PORT = 8866
HOST = "127.0.0.1"
START_PAGE = "index.ipynb"
#: Warm kernels the launcher keeps ready (``--preheat``; issue 22): the size measured in
#: docs/deploy.md. They stay quiet in ``make app``'s terminal (:func:`kernel_spec`,
#: ``CanastaVoila.stop``).
DEFAULT_PREHEAT = 2
#: Debian's Chromium, driven by Playwright's Python API in tests and benchmarks (never
#: ``playwright install``: no browser download works here).
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

#: Voilà settings, as traitlets config. Used as command-line flags by ``serve``; its
#: ``VoilaConfiguration`` is written as ``voila.json`` by ``write-voila-config`` (Binder, where
#: Voilà is a Jupyter server extension).
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
    # A websocket frame whose header does not fit it is refused before it is decoded (one such
    # frame could hang the whole server): canasta_teach.hardening.
    "Voila": {
        "kernel_websocket_connection_class": "canasta_teach.hardening.SafeFramesConnection",
    },
    # A closed tab shuts its kernel down (Voilà sends a beacon on `beforeunload`); a crashed tab,
    # a lost connection or a plain GET (no browser) does not: cull kernels that nobody has been
    # connected to for 5 minutes. A page left open (or a socket held open by a script) is culled
    # by the app itself once no person has used it for `--unattended-minutes` (F23).
    "MappingKernelManager": {"cull_idle_timeout": 300, "cull_interval": 30},
}


#: JupyterLab settings for lessons opened in Lab (``make lab``, Binder): no "news" question
#: and no update check pops up over a lesson (both would also reach for the network).
LAB_OVERRIDES: dict[str, dict[str, Any]] = {
    "@jupyterlab/apputils-extension:notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


def write_lab_overrides(prefix: str | os.PathLike[str]) -> Path:
    """Merge :data:`LAB_OVERRIDES` into ``prefix/share/jupyter/lab/settings/overrides.json``.

    That file holds the defaults JupyterLab starts from in an environment (``prefix`` is the
    environment's ``sys.prefix``); settings a user has saved still win."""
    path = Path(prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    settings: dict[str, Any] = {}
    if path.is_file():
        with contextlib.suppress(ValueError, OSError):
            loaded = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(loaded, dict):
                settings = loaded
    for plugin, values in LAB_OVERRIDES.items():
        settings.setdefault(plugin, {}).update(values)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    return path


def lab_command(
    port: int, root: str | os.PathLike[str] | None = None, token: str = ""
) -> list[str]:
    """The argv that opens ``root`` (default ``lessons/``) in JupyterLab on 127.0.0.1:``port``."""
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        f"--ServerApp.ip={HOST}",
        f"--ServerApp.port={int(port)}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={Path(root) if root is not None else LESSONS_DIR}",
        f"--IdentityProvider.token={token}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # Lab refuses root otherwise (containers, CI)
    return command


def lab_url(port: int, page: str = "en/00-start.ipynb", token: str = "", host: str = HOST) -> str:
    query = f"?token={token}" if token else ""
    return f"http://{host}:{port}/lab/tree/{page}{query}"


def start_page_url(port: int, host: str = HOST) -> str:
    """URL of the language chooser, ``lessons/index.ipynb``."""
    return f"http://{host}:{port}/voila/render/{START_PAGE}"


def voila_command(
    port: int,
    root: str | os.PathLike[str] | None = None,
    *,
    preheat: int = 0,
    max_kernels: int | None = None,
    allow_hosts: Sequence[str] = (),
    ip: str = HOST,
    per_address: int | None = None,
    per_browser: int | None = None,
    unattended_minutes: float | None = None,
    trust_proxy: bool = False,
    prerender: bool = True,
) -> list[str]:
    """The argv that serves ``root`` (default ``lessons/``) on 127.0.0.1:``port``.

    Start it in its own process group (``start_new_session=True``) and stop it by killing that
    group: the kernels are its children. ``preheat``: how many warm kernels the server keeps
    ready for the next page (``canasta_teach.warmkernels``; 0: none, as here by default, which
    tests rely on; the launcher ``make app`` uses :data:`DEFAULT_PREHEAT`). The other options
    are ``serve``'s (None: its default).
    """
    root_dir = Path(root) if root is not None else LESSONS_DIR
    command = [
        sys.executable,
        "-m",
        "canasta_teach.app",
        "serve",
        "--port",
        str(int(port)),
        "--root",
        str(root_dir.resolve()),
    ]
    command += ["--preheat", str(max(0, int(preheat)))]
    if max_kernels is not None:
        command += ["--max-kernels", str(int(max_kernels))]
    for name in allow_hosts:
        command += ["--allow-host", name]
    if ip != HOST:
        command += ["--ip", ip]
    if per_address is not None:
        command += ["--max-kernels-per-address", str(int(per_address))]
    if per_browser is not None:
        command += ["--max-kernels-per-browser", str(int(per_browser))]
    if unattended_minutes is not None:
        command += ["--unattended-minutes", repr(float(unattended_minutes))]
    if trust_proxy:
        command.append("--trust-proxy")
    if not prerender:
        command.append("--no-prerender")
    return command


def voila_args(port: int, root: str | os.PathLike[str], *, ip: str = HOST) -> list[str]:
    """Voilà's own command-line arguments (used inside ``serve``)."""
    args = [
        "--no-browser",
        f"--Voila.ip={ip}",
        f"--Voila.port={int(port)}",
        "--Voila.port_retries=0",
    ]
    for section, values in VOILA_CONFIG.items():
        for key, value in values.items():
            if isinstance(value, list):  # traitlets 5: a list is its items, one flag each
                args += [f"--{section}.{key}={item}" for item in value]
            else:
                args.append(f"--{section}.{key}={_cli_value(value)}")
    # Only this server sets the header (``PageHandler``): Voilà used elsewhere (Binder) would
    # pass on whatever a visitor sent.
    args.append(f"--VoilaConfiguration.http_header_envs={CLIENT_ADDRESS_HEADER}")
    args.append(str(root))
    return args


def link_site(dest: str | os.PathLike[str], extra: dict[str, Path] | None = None) -> Path:
    """Make ``dest`` a folder to serve: symlinks to every entry of ``lessons/`` plus ``extra``.

    Tests and benchmarks serve ``lessons/`` and their own notebooks (e.g. ``{"_test":
    tests/browser/notebooks}``) from one server without writing into ``lessons/``. Kernels run
    in the real folders (symlinks resolve), so lessons' relative paths still work.
    """
    root = Path(dest)
    root.mkdir(parents=True, exist_ok=True)
    extra = extra or {}
    if LESSONS_DIR.is_dir():
        for entry in sorted(LESSONS_DIR.iterdir()):
            if entry.name.startswith(".") or entry.name in extra:
                continue
            (root / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    for name, target in extra.items():
        (root / name).symlink_to(Path(target).resolve(), target_is_directory=True)
    return root


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


def kernel_spec() -> dict[str, Any]:
    """The ``python3`` kernel spec ``serve`` gives its kernels (pages' and warm ones alike).

    It is ipykernel's own, with two changes that keep ``make app``'s terminal to one line:

    - ``--IPKernelApp.log_level=ERROR``: every kernel logged "Kernel is running over TCP
      without encryption" (a warning about other users of the machine: the kernels listen on
      127.0.0.1 and sign each message with their connection file's HMAC key, kept in the run's
      private temporary folder) and "Parent appears to have exited". Errors still show, and
      the app's own records from a kernel (``canasta_teach.widgets.serverlog``: the
      ``canasta_teach`` logger, not ipykernel's) are not affected.
    - ``interrupt_mode: message``: Jupyter interrupts a kernel before shutting it down; by a
      signal, a kernel still importing (Ctrl-C soon after the start, a warm kernel starting)
      dies with a ``KeyboardInterrupt`` traceback. A message reaches only a kernel that is up,
      where it interrupts a running cell as the signal did.

    The Python is this one (``sys.executable``), not whichever ``python`` is first on PATH.
    """
    return {
        "argv": [
            sys.executable,
            "-m",
            "ipykernel_launcher",
            "-f",
            "{connection_file}",
            "--IPKernelApp.log_level=ERROR",
        ],  # fmt: skip
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
        "interrupt_mode": "message",
        "metadata": {"debugger": False},
    }


def write_kernel_spec(data_dir: str | os.PathLike[str]) -> Path:
    """Write :func:`kernel_spec` as ``data_dir/kernels/python3/kernel.json`` (``data_dir`` first
    on ``JUPYTER_PATH``: it wins over the environment's own ``python3`` spec)."""
    path = Path(data_dir) / "kernels" / "python3" / "kernel.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(kernel_spec(), indent=1) + "\n", encoding="utf-8")
    return path


def voila_json() -> dict[str, Any]:
    """The ``VoilaConfiguration`` part of :data:`VOILA_CONFIG`, as ``voila.json`` holds it.

    For Voilà as a Jupyter server extension (Binder): it reads ``voila.json`` from every Jupyter
    config folder (e.g. ``sys.prefix/etc/jupyter``). Not ``jupyter_server_config.d/``: files
    there only enable extensions, their other settings are ignored.
    """
    config: dict[str, Any] = json.loads(json.dumps(VOILA_CONFIG["VoilaConfiguration"]))
    return {"VoilaConfiguration": config}


def _serve(
    port: int,
    root: str,
    preheat: int = 0,
    max_kernels: int | None = None,
    allow_hosts: Sequence[str] = (),
    ip: str = HOST,
    *,
    per_address: int | None = None,
    per_browser: int | None = None,
    unattended_minutes: float | None = None,
    trust_proxy: bool = False,
    prerender: bool = True,
) -> None:
    """Run Voilà in this process (the ``serve`` subcommand), hardened (canasta_teach.hardening)."""
    data_dir = tempfile.mkdtemp(prefix="canasta-jupyter-")
    atexit.register(shutil.rmtree, data_dir, True)
    build_jupyter_path(data_dir)
    write_kernel_spec(data_dir)
    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = data_dir + (os.pathsep + old if old else "")

    from canasta_teach import hardening

    hardening.install_error_pages()
    cap = max_kernels if max_kernels is not None else hardening.kernel_budget()
    slots = hardening.KernelSlots(
        cap,
        per_address=hardening.address_share(cap) if per_address is None else per_address,
        per_browser=hardening.BROWSER_SHARE if per_browser is None else per_browser,
    )
    unattended = 60.0 * (
        hardening.UNATTENDED_MINUTES if unattended_minutes is None else unattended_minutes
    )
    kernels = _ServerKernels(slots, unattended, preheat)
    allowed = [*allow_hosts, *([ip] if ip not in ("0.0.0.0", "::", "") else [])]
    page_handler = _page_handler_class(kernels, prerender=prerender, trust_proxy=trust_proxy)
    voila = _voila_class(kernels, page_handler, allowed)
    try:
        voila.launch_instance(argv=voila_args(port, root, ip=ip))
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


class _ServerKernels:
    """The served app's kernels: who holds them (``hardening.KernelSlots``), the warm pool
    (``--preheat``) and the chores on them (shutting down, culling), for the page handler and
    the Voilà app of :func:`_serve`. Runs on the server's event loop."""

    def __init__(self, slots: Any, unattended: float, preheat: int) -> None:
        self.slots = slots
        self.unattended = unattended
        self.preheat = preheat
        self.manager: Any = None  # the Voilà app's kernel manager, once it listens
        self.warm: Any = None  # canasta_teach.warmkernels.WarmKernels, with --preheat
        self._cull: Any = None  # the manager's own cull_kernel_if_idle

    async def cull_if_idle(self, kernel_id: str) -> Any:
        """The manager's idle culler for one kernel, which passes over prerendered pages'
        kernels: such a page has no websocket until it is shown, and its learner may read the
        page before it for a long while. It is culled only as unattended (cull_unattended) or
        when a learner needs its place (PageHandler.get). A kernel shut down after the culler
        listed the kernels (a closed tab's) is not looked for: jupyter_server's culler would
        log a KeyError traceback for it."""
        if self.slots.is_speculative(kernel_id) or kernel_id not in self.manager:
            return None
        return await self._cull(kernel_id)

    async def shut_down(self, kernel_id: str) -> None:
        with contextlib.suppress(Exception):  # already gone, or going: nothing to do
            await self.manager.shutdown_kernel(kernel_id, now=True)

    async def cull_unattended(self) -> None:
        from canasta_teach import hardening

        for kernel_id in self.slots.unattended(self.manager.list_kernel_ids(), self.unattended):
            hardening.log.warning(
                "shutting down kernel %s: its page sent nothing for %.0f minutes",
                kernel_id, self.unattended / 60,
            )  # fmt: skip
            with contextlib.suppress(Exception):  # already gone, or going: nothing to do
                await self.manager.shutdown_kernel(kernel_id)

    async def kill_starting_kernels(self) -> None:
        manager = self.manager
        if manager is None:  # stopped before it listened: no kernel yet
            return
        starting = [
            kernel_id
            for kernel_id in manager.list_kernel_ids()
            if getattr(manager.get_kernel(kernel_id), "execution_state", "starting") == "starting"
        ]
        for kernel_id in starting:
            with contextlib.suppress(Exception):  # gone meanwhile: nothing to do
                await manager.shutdown_kernel(kernel_id, now=True)

    def start(self, voila_app: Any) -> None:
        """Take over ``voila_app``'s kernel manager as it starts listening: the culler passes
        over prerendered pages' kernels, the warm pool fills, unattended kernels are culled."""
        import tornado.ioloop

        from canasta_teach.warmkernels import WarmKernels

        self.manager = manager = voila_app.kernel_manager
        slots = self.slots
        self._cull = manager.cull_kernel_if_idle
        manager.cull_kernel_if_idle = self.cull_if_idle
        loop = tornado.ioloop.IOLoop.current()
        if self.preheat > 0:
            env = {
                "VOILA_PREHEAT": "False",
                "VOILA_BASE_URL": voila_app.base_url,
                "VOILA_SERVER_URL": voila_app.server_url,
                "VOILA_APP_PORT": str(voila_app.port),
            }
            pool = WarmKernels(manager, slots, self.preheat, env=lambda: {**os.environ, **env})
            pool.protect_from_culling()
            slots.on_first_connection = pool.page_connected
            self.warm = pool
            loop.add_callback(pool.fill)
            # Room comes back when a learner leaves (a closed tab, a culled kernel): top up.
            tornado.ioloop.PeriodicCallback(pool.fill, 2000).start()
        every = min(30.0, max(0.5, self.unattended / 4))
        tornado.ioloop.PeriodicCallback(self.cull_unattended, every * 1000).start()


class _CodeCells:
    """Whether a served notebook has a code cell, read once per version of the file (its size
    and modification time): the pages of notebooks without one need no kernel
    (``PageHandler._page_without_kernel``)."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[tuple[int, int], bool]] = {}

    def in_notebook(self, root: str, path: str) -> bool:
        """Whether ``path`` (as served, under ``root``) has a code cell with code in it. True
        whenever that cannot be told (no such file, not a notebook, a path out of ``root``):
        such a page goes to Voilà as always, which answers it."""
        root = os.path.abspath(root)
        file = os.path.abspath(os.path.join(root, path))
        if not file.startswith(root + os.sep) or not file.endswith(".ipynb"):
            return True
        try:
            stat = os.stat(file)
        except OSError:
            return True
        version = (stat.st_size, stat.st_mtime_ns)
        known = self._known.get(file)
        if known is not None and known[0] == version:
            return known[1]
        try:
            with open(file, encoding="utf-8") as notebook:
                cells = json.load(notebook).get("cells", [])
            has_code = any(
                cell.get("cell_type") == "code" and "".join(cell.get("source", "")).strip()
                for cell in cells
            )
        except (OSError, ValueError, AttributeError, TypeError):
            return True
        self._known[file] = (version, has_code)
        return has_code


def _renderer_without_kernel_class() -> type:
    """Voilà's notebook renderer for a notebook without code: it starts no kernel and runs
    nothing. The page's ``kernelId`` is empty: Voilà's widget manager finds no kernel and
    registers no widget (there is none to show), and the page sends no shutdown beacon."""
    from voila.notebook_renderer import NotebookRenderer

    class RendererWithoutKernel(NotebookRenderer):  # type: ignore[misc]  # Voilà has no types
        async def _jinja_kernel_start(self, nb: Any, kernel_id: Any, kernel_future: Any) -> str:
            self.kernel_started = True
            return ""

        async def _jinja_notebook_execute(self, nb: Any, kernel_id: Any) -> None:
            return None

        async def _jinja_cell_generator(self, nb: Any, kernel_id: Any) -> Any:
            for cell in nb.cells:
                yield cell

        _jinja_cell_generator_without_execution = _jinja_cell_generator

        async def _cleanup_resources(self) -> None:
            return None

    return RendererWithoutKernel


def _page_handler_class(kernels: _ServerKernels, *, prerender: bool, trust_proxy: bool) -> type:
    """Voilà's page handler with the app's kernel places (see the class's docstring)."""
    import tornado.ioloop
    from voila.tornado.handler import TornadoVoilaHandler
    from voila.utils import get_page_config

    from canasta_teach import hardening

    slots = kernels.slots
    code_cells = _CodeCells()
    renderer_without_kernel = _renderer_without_kernel_class()

    # Voilà ships no types, so its classes are Any here (pyproject's mypy overrides).
    class PageHandler(TornadoVoilaHandler):  # type: ignore[misc]
        """Voilà's page handler, with a cap on kernels and the ``_xsrf`` cookie set.

        Each page view starts a kernel (but a notebook without code: its page has none,
        ``_page_without_kernel``): past ``cap`` kernels (running, or asked for by a page
        being rendered: each counted once, ``hardening.KernelSlots``), the visitor gets a
        translated "too many learners right now" page (503, Retry-After) instead, and no kernel
        starts; past their address's or browser's share, the same page saying that it is their
        own pages that are too many (429).

        On ``beforeunload`` the page asks the server to shut its kernel down with a beacon that
        carries the ``_xsrf`` cookie; Voilà never sets that cookie, so the request fails with
        403 "'_xsrf' argument missing from POST" and every closed tab leaves a kernel running
        (voila-dashboards/voila#1458). Reading ``xsrf_token`` sets the cookie.
        """

        slot: hardening.PageSlot | None = None

        async def prepare(self) -> None:
            await super().prepare()
            self.xsrf_token  # noqa: B018 (the property sets the cookie)
            # The page's kernel learns its visitor's address from this header (Voilà passes
            # it on as an environment variable): the rooms it may hold are counted per
            # address (F18), the same address the kernel limits count (behind a trusted
            # proxy, the address the proxy saw). Set here, whatever the visitor sent.
            self.request.headers[CLIENT_ADDRESS_HEADER] = hardening.visitor_of(
                self.request.remote_ip, self.request.headers, None, trust_proxy=trust_proxy
            ).address

        @property
        def kernel_manager(self) -> Any:
            manager = super().kernel_manager
            if self.slot is None:
                return manager
            return _CountedKernels(manager, slots, self.slot, kernels.warm)

        def _visitor(self) -> hardening.Visitor:
            # The browser is its _xsrf cookie's token (kept by the browser, the same in every
            # tab); a visitor without cookies is only their address.
            cookie = self.get_cookie("_xsrf")
            browser = hashlib.sha256(cookie.encode()).hexdigest()[:32] if cookie else None
            return hardening.visitor_of(
                self.request.remote_ip, self.request.headers, browser, trust_proxy=trust_proxy
            )

        async def get(self, path: str | None = None) -> None:
            notebook = self.notebook_path or path or ""
            if not code_cells.in_notebook(self.contents_manager.root_dir, notebook):
                await self._page_without_kernel(notebook)
                return
            visitor = self._visitor()
            running = self.kernel_manager.list_kernel_ids()
            speculative = hardening.is_prerender(self.request.headers)
            if speculative:
                # One page in waiting per visitor: the one prerendered before (which the
                # learner went past) gives its place to this one.
                for older in slots.speculative_of(visitor):
                    slots.evict(older)
                    self.log.info("kernel %s of a page never shown: replaced", older)
                    tornado.ioloop.IOLoop.current().add_callback(kernels.shut_down, older)
            if speculative and not (prerender and slots.room_to_speculate(visitor, running)):
                # The browser drops a prerender that is not answered 2xx, and nobody sees this
                # answer: the learner's own click asks for the page again, as a plain page.
                why = "no room to spare" if prerender else "prerendering is off"
                self.log.info("no kernel for a prerendered page (%s): %s", self.request.path, why)
                self.set_status(503)
                self.set_header("Cache-Control", "no-store")
                self.finish()
                return
            refusal = None if speculative else slots.refusal(visitor, running)
            # A prerendered page never shown, or a page that has left (its websocket closed
            # and its shutdown beacon lost), gives its place to a learner who needs it.
            while refusal is not None and (victim := slots.evictable(visitor, refusal, running)):
                why = "has left" if slots.has_left(victim) else "was never shown"
                slots.evict(victim)
                self.log.info("kernel %s: its page %s; it makes room for a learner", victim, why)
                tornado.ioloop.IOLoop.current().add_callback(kernels.shut_down, victim)
                refusal = slots.refusal(visitor, running)
            if refusal is not None:
                self.log.warning(
                    "page refused (%s): %d kernels held by %s", refusal,
                    slots.held_by(visitor.address), visitor.address,
                )  # fmt: skip
                self.set_status(503 if refusal == "cap" else 429)
                self.set_header("Retry-After", "60")
                self.set_header("Cache-Control", "no-store")
                self.set_header("Content-Type", "text/html; charset=UTF-8")
                language = self.request.headers.get("Accept-Language")
                page = hardening.busy_page(
                    self.request.path, self.base_url, language, mine=refusal != "cap"
                )
                self.finish(page)
                return
            self.slot = slots.admit(visitor, speculative=speculative)
            try:
                await super().get(path)
            finally:
                slots.rendered(self.slot)
            if speculative and self.slot.kernel_id:
                kernel_id = self.slot.kernel_id
                self.log.info("kernel %s: a prerendered page's (%s), until it is shown",
                              kernel_id, self.request.path)  # fmt: skip

        async def _page_without_kernel(self, notebook: str) -> None:
            """The page of a notebook without code (the language chooser, each language's
            start page): only text and links, so no kernel. Voilà would start one all the
            same, which would run nothing, hold a learner's place under the cap and, with
            warm kernels, take the spare that the lesson opened next would need."""
            page_config_kwargs = {
                "base_url": self.base_url,
                "settings": self.settings,
                "log": self.log,
                "voila_configuration": self.voila_configuration,
            }
            page_config = get_page_config(**page_config_kwargs)
            if self.page_config_hook:
                page_config = self.page_config_hook(
                    page_config, **page_config_kwargs, notebook_path=notebook
                )
            # No extension: they show widgets (there are none), and Voilà's widget manager
            # would ask the server for the page's kernel, which does not exist (a 404).
            page_config["federated_extensions"] = []
            renderer = renderer_without_kernel(
                request_handler=self,
                voila_configuration=self.voila_configuration,
                traitlet_config=self.traitlet_config,
                notebook_path=notebook,
                template_paths=self.template_paths,
                config_manager=self.config_manager,
                contents_manager=self.contents_manager,
                base_url=self.base_url,
                kernel_spec_manager=self.kernel_spec_manager,
                prelaunch_hook=self.prelaunch_hook,
                page_config=page_config,
                mathjax_config=self.settings.get("mathjax_config"),
                mathjax_url=self.settings.get("mathjax_url"),
            )
            await renderer.initialize(
                template=self.get_argument("template", None),
                theme=self.get_argument("theme", None),
            )
            # As Voilà answers a page.
            self.set_header("Content-Type", "text/html")
            self.set_header("Cache-Control", "no-cache, no-store, must-revalidate")
            self.set_header("Pragma", "no-cache")
            self.set_header("Expires", "0")
            async for html, _ in renderer.generate_content_generator():
                self.write(html)
                self.flush()

    return PageHandler


def _voila_class(kernels: _ServerKernels, page_handler: type, allowed: list[str]) -> Any:
    """Voilà's app, hardened: the page handler ``page_handler``, no tree, contents API or login
    pages, the ``Host`` check against ``allowed``, and ``kernels`` started with it."""
    import tornado.web
    from jupyter_core.utils import run_sync
    from jupyter_server.utils import url_path_join
    from voila.app import Voila
    from voila.tornado.handler import TornadoVoilaHandler
    from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler

    from canasta_teach import hardening

    slots = kernels.slots

    class CanastaVoila(Voila):  # type: ignore[misc]  # Voilà ships no types (see PageHandler)
        """Voilà without the directory tree page, the contents API and the login pages;
        static paths that name no file are 404s; kernels shut down.

        The tree and the contents API list the served folder (file names, sizes, dates; Voilà
        blanks file contents) and the app needs neither: they go, and ``/`` redirects to the
        start page instead. The app has no login, and ``/logout`` failed with a 500.
        """

        def init_handlers(self) -> list[Any]:
            dropped = {
                "TornadoVoilaTreeHandler", "VoilaContentsHandler", "LoginFormHandler",
                "LogoutHandler", "VoilaLoginHandler",
            }  # fmt: skip
            guarded = hardening.guarded_websocket_handler()
            handlers = []
            for handler in super().init_handlers():
                if handler[1].__name__ in dropped:
                    continue
                if handler[1] is TornadoVoilaHandler:
                    handler = (handler[0], page_handler, *handler[2:])
                elif handler[1] is VoilaKernelWebsocketHandler:
                    handler = (handler[0], guarded, *handler[2:])
                elif issubclass(handler[1], tornado.web.StaticFileHandler):
                    static = hardening.hashed_files_cached(handler[1])
                    handler = (handler[0], hardening.quiet_static_handler(static), *handler[2:])
                handlers.append(handler)
            start = url_path_join(self.server_url, "voila/render", START_PAGE)
            handlers.insert(0, (self.server_url, tornado.web.RedirectHandler, {"url": start}))
            return handlers

        def listen(self) -> None:
            # The launcher prints the one address a learner needs, the start page's, once the
            # port answers: Voilà's own "running at" line (the bare server root) would come
            # first and look like the address to open.
            self.log.addFilter(_NotVoilasAddress())
            # DNS rebinding (F5): a request whose Host is not this server's gets a 403 page,
            # whatever its path (pages, static files and the kernel websocket alike).
            app = self.app
            find_handler = app.find_handler

            def checked(request: Any, **kwargs: Any) -> Any:
                if not hardening.host_allowed(request.host, allowed):
                    return app.get_handler_delegate(request, HostRefusedHandler)
                return find_handler(request, **kwargs)

            app.find_handler = checked
            # The kernel websocket tells the slots when a page sends a widget message.
            app.settings[hardening.SLOTS_SETTING] = slots
            kernels.start(self)
            super().listen()

        def stop(self) -> None:
            # Voilà asks every kernel to shut down; one still starting (a warm kernel, a page
            # opened a moment before) gets that request mid-start and ipykernel prints a
            # traceback ("Event loop is closed") in the terminal. Such a kernel has run no
            # page yet and holds nothing: it is killed outright first (no interrupt signal:
            # kernel_spec), the others shut down as Voilà does.
            run_sync(kernels.kill_starting_kernels)()
            super().stop()

    class HostRefusedHandler(tornado.web.RequestHandler):
        def prepare(self) -> None:
            hardening.log.warning("refused a request for host %r", self.request.host)
            raise tornado.web.HTTPError(403)

    return CanastaVoila


class _CountedKernels:
    """The kernel manager as one page being rendered sees it: the kernel it starts gets an id
    chosen here, given to the page's slot first, so that the kernel counts from the moment it
    is asked for (before the manager lists it) and is never counted twice (F22). With warm
    kernels (``--preheat``), the page takes a warm one when there is one, instead of starting a
    kernel."""

    def __init__(self, manager: Any, slots: Any, slot: Any, warm: Any = None) -> None:
        self._manager = manager
        self._slots = slots
        self._slot = slot
        self._warm = warm

    def __getattr__(self, name: str) -> Any:
        return getattr(self._manager, name)

    async def start_kernel(self, **kwargs: Any) -> str:
        import uuid

        if self._warm is not None:
            taken = await self._warm.take(
                kwargs.get("kernel_name", ""),
                lambda kernel_id: self._slots.started(self._slot, kernel_id),
                kwargs.get("path", ""),
                kwargs.get("env") or {},
            )
            if taken is not None:
                return str(taken)
        kernel_id = kwargs.pop("kernel_id", None) or str(uuid.uuid4())
        self._slots.started(self._slot, kernel_id)
        if self._warm is not None:
            self._warm.drawing(kernel_id)
        started = self._manager.start_kernel(kernel_id=kernel_id, **kwargs)
        return str(await started if inspect.isawaitable(started) else started)

    async def get_rendered_notebook(self, *args: Any, **kwargs: Any) -> Any:
        # Voilà's own pre-heated kernels (not used by the app): counted by the manager already.
        rendered = await self._manager.get_rendered_notebook(*args, **kwargs)
        self._slots.started(self._slot, rendered[2])
        return rendered


class _NotVoilasAddress(logging.Filter):
    """Drops Voilà's "Voilà is running at: <root URL>" record (see ``_serve``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Voil\u00e0 is running at")


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


class ServerProcess(subprocess.Popen[bytes]):
    """A server started by :func:`start_server`, with the folder of its run's temporary files
    (kernel connection files with their HMAC keys, the template copy), which
    :func:`stop_server` removes."""

    run_dir: str | None = None


def start_server(
    port: int,
    root: str | os.PathLike[str] | None = None,
    *,
    preheat: int = 0,
    options: dict[str, Any] | None = None,
    **popen_kwargs: Any,
) -> ServerProcess:
    """Start :func:`voila_command` in a new process group (see :func:`stop_server`)."""
    options = dict(options or {})
    options.setdefault("preheat", preheat)
    command = voila_command(port, root, **options)
    # The server and its kernels keep their temporary files (kernel connection files with their
    # HMAC keys, the template copy) in a folder of this run, which stop_server removes even when
    # the server had to be killed (F15).
    run_dir = tempfile.mkdtemp(prefix="canasta-run-")
    env = dict(popen_kwargs.pop("env", None) or os.environ)
    env["TMPDIR"] = run_dir
    proc = ServerProcess(command, start_new_session=True, env=env, **popen_kwargs)
    proc.run_dir = run_dir
    return proc


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
    run_dir = proc.run_dir if isinstance(proc, ServerProcess) else None
    if run_dir:
        shutil.rmtree(run_dir, ignore_errors=True)


def kernel_pids(server_pid: int) -> list[int]:
    """The kernels a server runs: its child processes started by ipykernel (Linux ``/proc``;
    for tests and benchmarks, which count and weigh them)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == server_pid and b"ipykernel" in cmdline:
            found.append(int(entry.name))
    return found


def resident_bytes(pid: int) -> int:
    """A process's resident memory (Linux ``/proc``), 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _run(port: int, root: str | None, options: dict[str, Any] | None = None) -> int:
    # The server runs in its own process group: Ctrl-C, `kill` or a closed terminal reach this
    # launcher only, which then stops the server and its kernels (even when started with SIGINT
    # ignored, as `cmd &` in a script does).
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)
    proc = start_server(port, root, options=options)
    try:
        wait_for_port(port, proc=proc)
        print(f"\ncanasta-teach is ready: {start_page_url(port)}\n(Ctrl-C stops it)\n", flush=True)
        return proc.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        stop_server(proc)


def _lab(port: int, root: str | None) -> int:
    """Open the lessons in JupyterLab (``make lab``), as :func:`_run` serves the app."""
    import secrets

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)
    write_lab_overrides(sys.prefix)
    token = secrets.token_urlsafe(24)
    proc = subprocess.Popen(lab_command(port, root, token), start_new_session=True)
    try:
        wait_for_port(port, proc=proc)
        print(
            f"\nJupyterLab is ready: {lab_url(port, token=token)}\n(Ctrl-C stops it)\n", flush=True
        )
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
    lab = sub.add_parser("lab", help="open the lessons in JupyterLab and print its URL")
    serve = sub.add_parser("serve", help="run Voilà in this process (what voila_command runs)")
    for p in (parser, run, serve, lab):
        p.add_argument("--port", type=int, default=default_port)
        p.add_argument("--root", default=None, help="folder to serve (default: lessons/)")
    env_cap = os.environ.get("CANASTA_MAX_KERNELS")
    for p in (parser, run, serve):
        p.add_argument(
            "--preheat",
            type=int,
            default=DEFAULT_PREHEAT,
            metavar="N",
            help="warm kernels kept ready (started, the widgets imported) so that the next page "
            f"opens at once; each counts against --max-kernels and takes memory like an open "
            f"lesson (0: none); default {DEFAULT_PREHEAT}",
        )
        p.add_argument(
            "--max-kernels",
            type=int,
            default=int(env_cap) if env_cap and env_cap.isdecimal() else None,
            help="most kernels (learners' pages) at once; default: from the machine's memory "
            "(canasta_teach.hardening.kernel_budget), or $CANASTA_MAX_KERNELS",
        )
        p.add_argument(
            "--allow-host",
            action="append",
            default=[n for n in os.environ.get("CANASTA_ALLOWED_HOSTS", "").split(",") if n],
            help="a host name the app is reached by besides localhost (repeat; '*' for any, "
            "behind a proxy that checks Host), or $CANASTA_ALLOWED_HOSTS (comma-separated)",
        )
        p.add_argument("--ip", default=HOST, help=f"address to listen on (default {HOST})")
        p.add_argument(
            "--max-kernels-per-address",
            type=int,
            default=None,
            help="most kernels one visitor's address may hold (0: no limit); default: a quarter "
            "of --max-kernels, at least 4. A class behind one router is one address",
        )
        p.add_argument(
            "--max-kernels-per-browser",
            type=int,
            default=None,
            help=f"most kernels one browser (its cookie) may hold (0: no limit); default "
            f"{BROWSER_SHARE}",
        )
        p.add_argument(
            "--unattended-minutes",
            type=float,
            default=None,
            help="shut a kernel down when its page has sent no widget message (no click) for "
            f"this long, connected or not; default {UNATTENDED_MINUTES:g}",
        )
        p.add_argument(
            "--trust-proxy",
            action="store_true",
            help="take the visitor's address from X-Real-IP / X-Forwarded-For (only behind a "
            "reverse proxy that sets them: anyone can send them)",
        )
        p.add_argument(
            "--no-prerender",
            dest="prerender",
            action="store_false",
            help="give no kernel to a page the browser prerenders (the next lesson, while the "
            "learner reads this one): the learner's click loads it, as a plain page",
        )

    install = sub.add_parser(
        "install-template", help="copy the canasta template into a Jupyter data folder"
    )
    install.add_argument(
        "dest", help="e.g. $(python -c 'import sys; print(sys.prefix)')/share/jupyter"
    )
    install.add_argument("--repo", default=None, help="repository checkout (default: this one)")

    server_config = sub.add_parser(
        "write-server-config",
        help="Jupyter Server settings that refuse malformed websocket frames (Binder)",
    )
    server_config.add_argument("path", help="e.g. PREFIX/etc/jupyter/jupyter_server_config.json")

    overrides = sub.add_parser(
        "write-lab-overrides", help="JupyterLab settings for the lessons (LAB_OVERRIDES)"
    )
    overrides.add_argument("prefix", help="the environment's sys.prefix")

    voila_config = sub.add_parser("write-voila-config", help="write voila.json (see voila_json)")
    voila_config.add_argument("path", help="e.g. PREFIX/etc/jupyter/voila.json")

    args = parser.parse_args(argv)
    if args.command == "serve":
        _serve(
            args.port,
            args.root or str(LESSONS_DIR),
            args.preheat,
            max_kernels=args.max_kernels,
            allow_hosts=args.allow_host,
            ip=args.ip,
            **_share_options(args),
        )
        return 0
    if args.command == "install-template":
        print(build_jupyter_path(args.dest, args.repo))
        return 0
    if args.command == "lab":
        return _lab(args.port, args.root)
    if args.command == "write-server-config":
        from canasta_teach.hardening import SERVER_CONFIG

        path = Path(args.path)
        settings: dict[str, Any] = {}
        if path.is_file():
            with contextlib.suppress(ValueError, OSError):
                loaded = json.loads(path.read_text(encoding="utf-8"))
                settings = loaded if isinstance(loaded, dict) else {}
        for section, values in SERVER_CONFIG.items():
            settings.setdefault(section, {}).update(values)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
        print(path)
        return 0
    if args.command == "write-lab-overrides":
        print(write_lab_overrides(args.prefix))
        return 0
    if args.command == "write-voila-config":
        path = Path(args.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(voila_json(), indent=2) + "\n", encoding="utf-8")
        print(path)
        return 0
    options = {
        "max_kernels": args.max_kernels,
        "allow_hosts": args.allow_host,
        "ip": args.ip,
        "preheat": args.preheat,
    }
    return _run(args.port, args.root, {**options, **_share_options(args)})


def _share_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options that limit one visitor (``--max-kernels-per-address`` ...), as keywords."""
    return {
        "per_address": args.max_kernels_per_address,
        "per_browser": args.max_kernels_per_browser,
        "unattended_minutes": args.unattended_minutes,
        "trust_proxy": args.trust_proxy,
        "prerender": args.prerender,
    }


if __name__ == "__main__":
    sys.exit(main())
