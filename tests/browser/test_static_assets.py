"""What the Voilà server serves and refuses, over plain HTTP; and the fonts/CSS shipped in assets/.

Kept safe: no notebook or Python source, no directory listing, no contents API, no traceback;
served: the canasta stylesheet and every web font it names, from the template's static folder.
"""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from canasta_teach import app

from .conftest import REPO_ROOT, TEST_PREFIX, render_url

pytestmark = pytest.mark.browser

ASSETS = REPO_ROOT / "assets"
CSS = ASSETS / "styles" / "canasta.css"
STATIC = "/voila/templates/canasta/static"
FONT_URL = re.compile(r"url\('\.\./fonts/([^']+)'\)")


def get(base_url: str, path: str) -> tuple[int, dict[str, str], bytes]:
    """GET without following redirects; path sent as is (no ../ normalization)."""
    parts = urlsplit(base_url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        headers = {k.lower(): v for k, v in response.getheaders()}
        return response.status, headers, body
    finally:
        conn.close()


def css_fonts() -> list[str]:
    return FONT_URL.findall(CSS.read_text(encoding="utf-8"))


# --- refused ---------------------------------------------------------------------------------

REFUSED = [
    # notebook and Python sources, through the files handler
    f"/voila/files/{TEST_PREFIX}/bare_button.ipynb",
    f"/voila/files/{TEST_PREFIX}/source_probe.py",
    "/voila/files/index.ipynb",
    # directory listings: the tree page and the contents API are removed, files/ lists nothing
    "/voila/tree",
    "/voila/tree/",
    f"/voila/tree/{TEST_PREFIX}",
    "/tree",
    "/voila/files/",
    f"/voila/files/{TEST_PREFIX}/",
    f"/voila/api/contents/{TEST_PREFIX}/bare_button.ipynb?content=1",
    "/voila/api/contents/",
    "/api/contents/",
    "/api/kernels",
    # no climbing out of the served folder or the template's static folder
    "/voila/files/../pyproject.toml",
    "/voila/files/../../etc/passwd",
    "/voila/static/../../../etc/passwd",
    f"{STATIC}/../index.html.j2",
    f"{STATIC}/../conf.json",
]


@pytest.mark.parametrize("path", REFUSED)
def test_refused(voila_url: str, path: str) -> None:
    status, _, body = get(voila_url, path)
    assert status in (403, 404, 405) or status >= 500, (status, body[:200])
    assert b"py-source-must-not-be-served" not in body
    assert b'"cell_type"' not in body


def test_render_of_a_python_file_does_not_leak_it(voila_url: str) -> None:
    # Voilà redirects non-notebooks to files/, which refuses them.
    status, headers, _ = get(voila_url, f"/voila/render/{TEST_PREFIX}/source_probe.py")
    if status in (301, 302, 303, 307, 308):
        status, _, body = get(voila_url, urlsplit(headers["location"]).path)
        assert b"py-source-must-not-be-served" not in body
    assert status in (403, 404)


def test_root_redirects_to_the_start_page(voila_url: str) -> None:
    status, headers, _ = get(voila_url, "/")
    assert status in (301, 302)
    assert urlsplit(headers["location"]).path == "/voila/render/index.ipynb"


def test_rendered_page_has_no_source_and_the_canasta_head(voila_url: str) -> None:
    status, _, body = get(
        voila_url, urlsplit(render_url(voila_url, f"{TEST_PREFIX}/bare_button.ipynb")).path
    )
    page = body.decode("utf-8")
    assert status == 200
    assert "def on_click" not in page  # sources stripped
    assert f'href="{STATIC}/styles/canasta.css"' in page
    assert "cdn.jsdelivr.net" not in page and "cdnjs.cloudflare.com" not in page
    assert "Running " not in page  # Voilà's English loading title is replaced


def test_tracebacks_are_hidden(voila_url: str) -> None:
    status, _, body = get(voila_url, f"/voila/render/{TEST_PREFIX}/raises.ipynb")
    page = body.decode("utf-8")
    assert status == 200
    assert "before the error" in page  # the cell did run
    assert "traceback-marker-4711" not in page
    assert "Traceback" not in page


# --- served ----------------------------------------------------------------------------------


def test_stylesheet_is_served(voila_url: str) -> None:
    status, headers, body = get(voila_url, f"{STATIC}/styles/canasta.css")
    assert status == 200
    assert headers["content-type"].startswith("text/css")
    assert body == CSS.read_bytes()


@pytest.mark.parametrize("font", css_fonts())
def test_font_is_served(voila_url: str, font: str) -> None:
    status, headers, body = get(voila_url, f"{STATIC}/fonts/{font}")
    assert status == 200
    assert headers["content-type"] == "font/woff2"
    assert body == (ASSETS / "fonts" / font).read_bytes()
    assert body[:4] == b"wOF2"


# --- the shipped files (no server needed) ----------------------------------------------------


def test_css_names_exactly_the_shipped_fonts() -> None:
    shipped = sorted(p.name for p in (ASSETS / "fonts").glob("*.woff2"))
    assert sorted(css_fonts()) == shipped
    assert len(shipped) == 12


def test_css_families_and_classes() -> None:
    css = CSS.read_text(encoding="utf-8")
    for family in ("Noto Nastaliq Urdu", "Noto Sans Devanagari", "Noto Sans Telugu", "Noto Sans"):
        assert f"font-family: '{family}';" in css
    assert css.count("font-display: block;") == css.count("@font-face")
    assert "swap" not in css
    for cls in (".ct-lang-en", ".ct-lang-ur", ".ct-lang-hi", ".ct-lang-te"):
        assert f"\n{cls} {{" in css
    urdu = css.split("\n.ct-lang-ur {", 1)[1].split("}", 1)[0]
    assert "direction: rtl;" in urdu
    assert "font-family: 'Noto Nastaliq Urdu', 'Noto Naskh Arabic', serif;" in urdu
    assert "line-height: 2.2;" in urdu


def test_font_licence_and_provenance() -> None:
    ofl = (ASSETS / "fonts" / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in ofl
    readme = (ASSETS / "fonts" / "README.md").read_text(encoding="utf-8")
    for package in ("noto-nastaliq-urdu", "noto-sans-devanagari", "noto-sans-telugu", "noto-sans"):
        assert f"@fontsource/{package}`" in readme


def test_built_template_folder(tmp_path: Path) -> None:
    template = app.build_jupyter_path(tmp_path)
    assert template == tmp_path / "voila" / "templates" / "canasta"
    assert (template / "conf.json").is_file() and (template / "index.html.j2").is_file()
    assert (template / "static" / "styles" / "canasta.css").read_bytes() == CSS.read_bytes()
    assert sorted(p.name for p in (template / "static" / "fonts").iterdir()) == sorted(css_fonts())


def test_voila_command_shape() -> None:
    cmd = app.voila_command(8899)
    assert cmd[:4] == [sys.executable, "-m", "canasta_teach.app", "serve"]
    assert "8899" in cmd
    args = app.voila_args(8899, "/x")
    assert "--Voila.port_retries=0" in args and "--Voila.ip=127.0.0.1" in args
    assert "--VoilaConfiguration.template=canasta" in args
    assert "--VoilaConfiguration.show_tracebacks=False" in args
    assert "--VoilaConfiguration.strip_sources=True" in args
    assert app.start_page_url(8866) == "http://127.0.0.1:8866/voila/render/index.ipynb"


def test_importing_the_app_module_imports_no_jupyter() -> None:
    code = (
        "import sys, canasta_teach, canasta_teach.app\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in "
        "('voila', 'jupyter_server', 'jupyter_core', 'tornado', 'ipywidgets', 'nbconvert')]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO_ROOT)


def test_binder_setup_uses_the_same_settings(tmp_path: Path) -> None:
    post_build = REPO_ROOT / "binder" / "postBuild"
    text = post_build.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/bash\n") and "set -euo pipefail" in text
    assert post_build.stat().st_mode & 0o111
    assert "install-template" in text and "write-voila-config" in text
    code = app.main(["write-voila-config", str(tmp_path / "voila.json")])
    assert code == 0
    written = json.loads((tmp_path / "voila.json").read_text(encoding="utf-8"))
    assert written == {"VoilaConfiguration": app.VOILA_CONFIG["VoilaConfiguration"]}
