"""What ``make app`` prints: one address, the start page's.

The walkthrough: the first ``make app`` showed setuptools' boxed "Editable installation" warning,
then Voilà's own "running at http://127.0.0.1:8871/" (the bare server root) before the real
address. The launcher here is the real one (``python -m canasta_teach.app``) on a free port.
With warm kernels on (its default), the kernels said their TCP warning and, stopped while
starting, ipykernel's tracebacks: the test stops the launcher just after it is ready, while
its warm kernels are still starting.
"""

from __future__ import annotations

import http.client
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from canasta_teach.app import free_port, start_page_url

REPO = Path(__file__).resolve().parent.parent
URL = re.compile(r"https?://\S+")
STARTUP_S = 120  # a busy two-core machine: Voilà imports for a while


def test_the_launcher_prints_only_the_start_pages_address() -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "canasta_teach.app", "run", "--port", str(port)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + STARTUP_S
        while not any("canasta-teach is ready" in line for line in lines):
            line = proc.stdout.readline().decode("utf-8", "replace")
            assert line or proc.poll() is None, "".join(lines)
            assert time.monotonic() < deadline, "".join(lines)
            lines.append(line)
        # The server answers (its ioloop runs, so Voilà has said all it says on starting): "/"
        # is the redirect to the start page, which starts no kernel.
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", "/")
        response = connection.getresponse()
        assert response.status in (301, 302) and response.getheader("Location", "").endswith(
            "/voila/render/index.ipynb"
        )
        connection.close()
    finally:
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C, as in a terminal
        rest, _ = proc.communicate(timeout=60)
    output = "".join(lines) + rest.decode("utf-8", "replace")
    assert URL.findall(output) == [start_page_url(port)], output
    assert "running at" not in output, output
    assert "Traceback" not in output and "Error" not in output, output
    assert "IPKernelApp" not in output and "Kernel started" in output, output  # warm kernels


def test_the_served_kernel_spec_is_found_first_and_quiet(tmp_path: Path) -> None:
    from jupyter_client.kernelspec import KernelSpecManager

    from canasta_teach.app import write_kernel_spec

    write_kernel_spec(tmp_path)
    manager = KernelSpecManager(kernel_dirs=[str(tmp_path / "kernels"), *jupyter_kernel_dirs()])
    spec = manager.get_kernel_spec("python3")
    assert spec.resource_dir == str(tmp_path / "kernels" / "python3")
    assert spec.argv[0] == sys.executable and "{connection_file}" in spec.argv
    assert "--IPKernelApp.log_level=ERROR" in spec.argv
    assert spec.interrupt_mode == "message"  # no SIGINT into a kernel that is still importing


def jupyter_kernel_dirs() -> list[str]:
    from jupyter_core.paths import jupyter_path

    return jupyter_path("kernels")


def _makefile_quiet_build() -> str:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    match = re.search(r'^QUIET_BUILD := PYTHONWARNINGS="([^"]+)"$', makefile, re.M)
    assert match, "the Makefile silences the build's notice"
    assert "$(QUIET_BUILD) $(PY) -m pip install" in makefile
    return match.group(1)


@pytest.mark.parametrize("quiet", [True, False])
def test_the_editable_install_notice_is_silenced_by_the_makefile(quiet: bool) -> None:
    # setuptools says it with warnings.warn("Editable installation.\n!!\n...") in the build's
    # own Python; the Makefile's PYTHONWARNINGS reaches that process. Here a Python is started
    # the same way and says the same words.
    setting = _makefile_quiet_build()
    notice = (
        "import warnings\n"
        "class InformationOnly(UserWarning): pass\n"
        "warnings.warn('Editable installation.\\n!!\\n\\n  Please be careful with folders in "
        "your working directory', InformationOnly)\n"
        "warnings.warn('A real problem', UserWarning)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    if quiet:
        env["PYTHONWARNINGS"] = setting
    done = subprocess.run([sys.executable, "-c", notice], env=env, capture_output=True,
                          text=True, timeout=60, check=True)  # fmt: skip
    assert ("Editable installation" in done.stderr) is not quiet, done.stderr
    assert "A real problem" in done.stderr  # other warnings still show
