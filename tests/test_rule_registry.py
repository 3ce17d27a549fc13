"""The rule registry (``reasons.RULES``) against the tests and against ``classic.md``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from canasta_teach.engine.reasons import FROZEN_BY, REASONS, RULES, SCORE_LINES

TESTS_DIR = Path(__file__).resolve().parent
CLASSIC_MD = Path(__file__).resolve().parents[1].parent / "shared/rules/classic.md"
HANDFOOT_MD = CLASSIC_MD.with_name("hand-and-foot.md")
RULE_ID = re.compile(r"\bC-[A-Z]+-\d+\b")
MARKER = re.compile(r"""\brule\(\s*["']([CH]-[A-Z]+-\d+)["']\s*\)""")


def cited_rules() -> dict[str, list[str]]:
    """Rule id -> test files that cite it with a ``rule("C-...")`` marker."""
    cited: dict[str, list[str]] = {}
    for path in sorted(TESTS_DIR.rglob("*.py")):
        for rule in MARKER.findall(path.read_text(encoding="utf-8")):
            cited.setdefault(rule, []).append(path.name)
    return cited


def test_every_rule_is_cited_by_a_test() -> None:
    uncited = sorted(set(RULES) - set(cited_rules()))
    assert uncited == [], f"rules no test cites: {uncited}"


def test_every_cited_rule_exists() -> None:
    unknown = sorted(set(cited_rules()) - set(RULES))
    assert unknown == [], f"tests cite rules the registry does not have: {unknown}"


def test_reasons_cite_registered_rules() -> None:
    for code, (rules, _params) in REASONS.items():
        assert rules, code
        assert set(rules) <= set(RULES), code
    assert len(set(FROZEN_BY)) == len(FROZEN_BY)
    assert all(isinstance(names, tuple) for names in SCORE_LINES.values())


@pytest.mark.skipif(not CLASSIC_MD.exists(), reason="../shared/rules/classic.md is not here")
def test_registry_matches_classic_md() -> None:
    text = CLASSIC_MD.read_text(encoding="utf-8")
    # A rule is defined where a list item starts with its id in backticks.
    defined = re.findall(r"^- `(C-[A-Z]+-\d+)`", text, flags=re.MULTILINE)
    assert len(defined) == len(set(defined)), "an id is defined twice in classic.md"
    assert set(defined) == {r for r in RULES if r.startswith("C-")}
    # Every id the reference mentions anywhere (C-RED-* style wildcards aside) is defined.
    mentioned = set(RULE_ID.findall(text))
    assert mentioned <= set(RULES), sorted(mentioned - set(RULES))


@pytest.mark.skipif(not HANDFOOT_MD.exists(), reason="../shared/rules/hand-and-foot.md is not here")
def test_registry_matches_hand_and_foot_md() -> None:
    text = HANDFOOT_MD.read_text(encoding="utf-8")
    defined = re.findall(r"^- `(H-[A-Z]+-\d+)`", text, flags=re.MULTILINE)
    assert len(defined) == len(set(defined)), "an id is defined twice in hand-and-foot.md"
    assert set(defined) == {r for r in RULES if r.startswith("H-")}
    mentioned = set(re.findall(r"\bH-[A-Z]+-\d+\b", text))
    assert mentioned <= set(RULES), sorted(mentioned - set(RULES))
