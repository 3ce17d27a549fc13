"""``docs/reasons.md`` (reason code -> rule ids, with the rule's covering words) against the
registry ``REASONS``, and the quoted words against ``classic.md`` where that file exists.

The property tests check that every refusal the engine gives cites one of its code's rules in
``REASONS``; this file checks that ``REASONS`` is the table a reader can audit.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from canasta_teach.engine.reasons import REASONS, RULES

REPO = Path(__file__).resolve().parents[1]
TABLE = REPO / "docs" / "reasons.md"
CLASSIC_MD = REPO.parent / "shared" / "rules" / "classic.md"
HANDFOOT_MD = CLASSIC_MD.with_name("hand-and-foot.md")
ROW = re.compile(
    r"^\| `(?P<code>[a-z_]+)` \| (?P<rules>[^|]+) \| (?P<when>[^|]+) \| (?P<words>.+) \|$"
)
QUOTE = re.compile(r"([CH]-[A-Z]+-\d+): \"((?:[^\"\\]|\\.)+)\"")


def table() -> dict[str, tuple[tuple[str, ...], str]]:
    rows: dict[str, tuple[tuple[str, ...], str]] = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            code = match["code"]
            assert code not in rows, f"{code} twice in docs/reasons.md"
            rules = tuple(r.strip() for r in match["rules"].split(","))
            rows[code] = (rules, match["words"])
    return rows


def quotes(words: str) -> list[tuple[str, str]]:
    return [(rule, text.replace('\\"', '"')) for rule, text in QUOTE.findall(words)]


def test_the_table_lists_every_reason_with_the_registrys_rules() -> None:
    rows = table()
    assert set(rows) == set(REASONS), (
        f"missing: {sorted(set(REASONS) - set(rows))}, unknown: {sorted(set(rows) - set(REASONS))}"
    )
    for code, (rules, _words) in rows.items():
        assert rules == REASONS[code][0], f"{code}: table {rules}, registry {REASONS[code][0]}"


def test_every_cited_rule_is_quoted_under_its_code() -> None:
    for code, (rules, words) in table().items():
        quoted = {rule for rule, _text in quotes(words)}
        assert set(rules) <= quoted, f"{code}: no words quoted for {sorted(set(rules) - quoted)}"
        assert quoted <= set(RULES), f"{code}: quotes unknown rules {sorted(quoted - set(RULES))}"


def test_the_parser_sees_a_wrong_citation() -> None:
    # The check must be able to fail: a row citing another rule is told apart.
    line = '| `wild_on_top` | C-PILE-3 | x | C-PILE-3: "A frozen pile" |'
    match = ROW.match(line)
    assert match is not None and match["rules"].strip() != ",".join(REASONS["wild_on_top"][0])


def _rule_texts() -> dict[str, str]:
    """Rule id -> its list item in classic.md (markdown emphasis kept, as quoted)."""
    texts: dict[str, str] = {}
    for path in (CLASSIC_MD, HANDFOOT_MD):
        for line in path.read_text(encoding="utf-8").splitlines():
            match = re.match(r"^- `([CH]-[A-Z]+-\d+)`(.*)$", line)
            if match:
                texts[match[1]] = match[2]
    return texts


@pytest.mark.skipif(not CLASSIC_MD.exists(), reason="../shared/rules/classic.md is not here")
def test_the_quoted_words_are_the_rules_own() -> None:
    texts = _rule_texts()
    for code, (_rules, words) in table().items():
        for rule, text in quotes(words):
            assert text in texts[rule], f"{code}: {rule} does not say {text!r}"
