"""The shipped fonts, sent to a page that has not loaded them (JupyterLab).

See canasta_teach.widgets.fonts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from canasta_teach.engine.notation import parse_position
from canasta_teach.i18n import get_translator
from canasta_teach.widgets import TableController
from canasta_teach.widgets.fonts import MAX_BYTES, all_faces, faces_for, families, font_message

LANGS = ("en", "ur", "hi", "te")


def test_the_faces_are_the_stylesheets_and_their_files_ship() -> None:
    faces = all_faces()
    assert {f.family for f in faces} == {
        "Noto Nastaliq Urdu",
        "Noto Sans Devanagari",
        "Noto Sans Telugu",
        "Noto Sans",
    }
    for face in faces:
        assert face.path.read_bytes()[:4] == b"wOF2", face.path
        assert face.weight in ("400", "700")
        assert face.unicode_range.startswith("U+")


@pytest.mark.parametrize("lang", LANGS)
def test_each_language_gets_its_script_and_latin_in_both_weights(lang: str) -> None:
    content, buffers = font_message(lang)
    faces = content["faces"]
    assert isinstance(faces, list) and len(faces) == len(buffers) == len(faces_for(lang))
    named = {face["family"] for face in faces}
    assert named == {families(lang)[0], "Noto Sans"}
    assert {face["weight"] for face in faces} == {"400", "700"}
    assert 0 < sum(map(len, buffers)) <= MAX_BYTES


@pytest.mark.parametrize("lang", ("ur", "te"))
def test_the_table_answers_a_fonts_intent_with_the_files_and_changes_nothing(lang: str) -> None:
    examples = Path(__file__).resolve().parent.parent / "examples"
    state = parse_position((examples / "frozen-pile.txt").read_text("utf-8"))
    controller = TableController(state, get_translator(lang), lang, seat=state.current)
    sent: list[tuple[Any, Any]] = []
    controller.widget.send = lambda content, buffers=None: sent.append((content, buffers))  # type: ignore[method-assign]
    before = controller.state.copy()
    view = dict(controller.widget.view)
    controller.intent({"action": "fonts"})
    assert len(sent) == 1
    content, buffers = sent[0]
    assert content["kind"] == "fonts"
    assert [f["family"] for f in content["faces"]][0] == families(lang)[0]
    assert all(bytes(b)[:4] == b"wOF2" for b in buffers)
    assert controller.state == before
    assert controller.widget.view == view
