"""The shipped Noto fonts, for pages that do not load the app's stylesheet (JupyterLab).

The Voilà app loads the fonts with the template's CSS (``assets/styles/canasta.css``).
JupyterLab does not, and would draw Urdu, Hindi and Telugu in whatever the host has.  So the
table, when it finds none of its language's fonts in the page, asks its kernel for them; the
kernel answers with the font files as binary buffers of one comm message, and the page adds
them with the CSS Font Loading API (``new FontFace(family, bytes)``).  Nothing comes from the
network, and from then on the lesson's prose in that tab uses them too.

The faces (family, weight, unicode-range, file) are read from ``canasta.css`` itself, so there
is one list of fonts.  The CSS and the fonts are found in the repository's ``assets/`` or, for
an installed package (Binder), in the installed ``canasta`` Voilà template's static folder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from canasta_teach.paths import ASSETS_DIR, TEMPLATE_NAME

_FACE = re.compile(r"@font-face\s*\{(.*?)\}", re.S)
_PROP = re.compile(r"([\w-]+)\s*:\s*(.*?);", re.S)
_URL = re.compile(r"url\('?\.\./fonts/([\w.-]+\.woff2)'?\)")
#: The font stack of each language's text (the table's and the lessons' pages).
FONT_FAMILIES = {
    "ur": "'Noto Nastaliq Urdu', 'Noto Naskh Arabic', serif",
    "hi": "'Noto Sans Devanagari', 'Noto Sans', sans-serif",
    "te": "'Noto Sans Telugu', 'Noto Sans', sans-serif",
    "en": "'Noto Sans', 'DejaVu Sans', sans-serif",
}
#: At most this many bytes of fonts in one answer (Urdu's Nastaliq is the largest, ~330 KB).
MAX_BYTES = 2_000_000


@dataclass(frozen=True)
class Face:
    family: str
    weight: str
    unicode_range: str
    path: Path


def _stylesheets() -> list[tuple[Path, Path]]:
    """(canasta.css, fonts folder) pairs where they may be, the repository's first."""
    places = [(ASSETS_DIR / "styles" / "canasta.css", ASSETS_DIR / "fonts")]
    try:
        from jupyter_core.paths import jupyter_path

        for data in jupyter_path("voila", "templates", TEMPLATE_NAME, "static"):
            static = Path(data)
            places.append((static / "styles" / "canasta.css", static / "fonts"))
    except ImportError:  # pragma: no cover - Jupyter is always there when a widget is
        pass
    return places


@cache
def all_faces() -> tuple[Face, ...]:
    """Every ``@font-face`` of the first ``canasta.css`` found whose font files exist."""
    for css, fonts in _stylesheets():
        if not css.is_file():
            continue
        faces = []
        for block in _FACE.findall(css.read_text(encoding="utf-8")):
            props = {k: v.strip() for k, v in _PROP.findall(block + ";")}
            url = _URL.search(props.get("src", ""))
            if not url:
                continue
            faces.append(
                Face(
                    family=props.get("font-family", "").strip("'\""),
                    weight=props.get("font-weight", "400"),
                    unicode_range=props.get("unicode-range", "U+0-10FFFF"),
                    path=fonts / url.group(1),
                )
            )
        if faces and all(face.path.is_file() for face in faces):
            return tuple(faces)
    return ()


def families(lang: str) -> list[str]:
    """The named families of ``lang``'s font stack ("Noto Nastaliq Urdu", "Noto Naskh Arabic")."""
    return re.findall(r"'([^']+)'", FONT_FAMILIES.get(lang, FONT_FAMILIES["en"]))


def faces_for(lang: str) -> list[Face]:
    """The shipped faces a page in ``lang`` draws with (its script and Latin)."""
    wanted = set(families(lang)) | {"Noto Sans"}
    return [face for face in all_faces() if face.family in wanted]


def font_message(lang: str) -> tuple[dict[str, object], list[bytes]]:
    """The comm message that carries ``lang``'s fonts: a description and one buffer a face."""
    described: list[dict[str, str]] = []
    buffers: list[bytes] = []
    size = 0
    for face in faces_for(lang):
        data = face.path.read_bytes()
        if size + len(data) > MAX_BYTES:
            break
        size += len(data)
        described.append(
            {"family": face.family, "weight": face.weight, "range": face.unicode_range}
        )
        buffers.append(data)
    return {"kind": "fonts", "faces": described}, buffers
