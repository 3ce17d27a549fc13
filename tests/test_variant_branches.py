"""No variant branch outside a variant's own modules (issue 20): what callers branch on lives
in ``engine.variants.Variant`` or in a state method, so a third variant is its own modules and
one entry in ``variants``, not an edit of every widget.

A *variant branch* is, in the package's source (read with ``ast``, not run):

- a comparison with a rule family's or a preset's name ("handfoot", "classic", "classic4",
  ``CLASSIC``), e.g. ``rules.family == "handfoot"`` or ``doc["variant"] in ("classic", ...)``;
- a choice between presets (``CLASSIC4 if players == 4 else CLASSIC2``);
- any use of ``HandFootState``, or an import from ``engine.handfoot`` / ``handfoot_notation``
  (``isinstance(state, HandFootState)`` is both).

Only ``engine/handfoot.py``, ``engine/handfoot_notation.py`` and ``engine/variants.py`` may
have them (with ``bots/handfoot.py``, Hand and Foot's own computer player): the other bots
look a variant's players and the coach's pieces up in ``bots.variant_bots`` by rule family,
and read its features from ``Variant`` and the view."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from canasta_teach.engine.rules import FAMILIES, PRESETS

PACKAGE = Path(__file__).resolve().parent.parent / "canasta_teach"
#: The variant's own modules: the only ones that may name a family and its state class.
#: ``bots/handfoot.py`` is Hand and Foot's own computer player (its policy and the search's
#: side for that game), as ``engine/handfoot.py`` is its rules.
VARIANT_MODULES = frozenset(
    {"engine/handfoot.py", "engine/handfoot_notation.py", "engine/variants.py", "bots/handfoot.py"}
)
#: Names of families and presets (as strings, and the constants that hold them).
FAMILY_WORDS = frozenset({*FAMILIES, *PRESETS})
FAMILY_CONSTANTS = frozenset({"CLASSIC", "CLASSIC2", "CLASSIC4", "HAND_AND_FOOT"})
VARIANT_ONLY_MODULES = frozenset(
    {"canasta_teach.engine.handfoot", "canasta_teach.engine.handfoot_notation"}
)


def _names_a_family(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in FAMILY_WORDS
    if isinstance(node, ast.Name):
        return node.id in FAMILY_CONSTANTS
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_family(e) for e in node.elts)
    return False


def _imported_module(node: ast.ImportFrom, module: str) -> str:
    """The absolute name of the module ``node`` imports from (``module``: the importer)."""
    if not node.level:
        return node.module or ""
    base = module.split(".")[: -node.level]
    return ".".join([*base, *([node.module] if node.module else [])])


def variant_branches(path: Path, module: str | None = None) -> list[str]:
    """The source of every variant branch in one module of the package (``module``: its
    dotted name, by default from its path)."""
    if module is None:
        module = "canasta_teach." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            if any(_names_a_family(n) for n in (node.left, *node.comparators)):
                found.append(ast.unparse(node))
        elif isinstance(node, ast.IfExp):
            if _names_a_family(node.body) and _names_a_family(node.orelse):
                found.append(ast.unparse(node))
        elif isinstance(node, ast.Name) and node.id == "HandFootState":
            found.append(ast.unparse(node))
        elif isinstance(node, ast.ImportFrom):
            source = _imported_module(node, module)
            names = {alias.name for alias in node.names}
            if source == "canasta_teach.engine":  # ``from canasta_teach.engine import handfoot``
                source = next((f"{source}.{n}" for n in names if f"{source}.{n}" in
                               VARIANT_ONLY_MODULES), source)  # fmt: skip
            if source in VARIANT_ONLY_MODULES or "HandFootState" in names:
                found.append(ast.unparse(node))
        elif isinstance(node, ast.Import):
            found += [ast.unparse(node) for alias in node.names
                      if alias.name in VARIANT_ONLY_MODULES]  # fmt: skip
    return found


def all_branches() -> Counter[tuple[str, str]]:
    found: Counter[tuple[str, str]] = Counter()
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if where in VARIANT_MODULES:
            continue
        found.update((where, branch) for branch in variant_branches(path))
    return found


def test_no_variant_branch_outside_the_variants_modules() -> None:
    found = sorted(all_branches().elements())
    assert not found, "variant branches outside the variant's modules (ask Variant instead):\n" + (
        "\n".join(f"  {where}: {branch}" for where, branch in found)
    )


def test_the_scanner_finds_each_kind_of_branch(tmp_path: Path) -> None:
    """The scanner is not blind: every form it looks for is caught in a sample module."""
    sample = tmp_path / "sample.py"
    code = (
        "from canasta_teach.engine.handfoot import HandFootState\n"
        "from canasta_teach.engine import handfoot\n"
        "from ..engine.handfoot_notation import parse_handfoot\n"
        "a = rules.family == 'handfoot'\n"
        "b = variant != CLASSIC\n"
        "c = doc['variant'] in ('classic', 'x')\n"
        "d = CLASSIC4 if players == 4 else CLASSIC2\n"
        "e = isinstance(state, HandFootState)\n"
        "f = rules.family == other.family\n"  # two families compared: not a branch
        "g = PRESETS[name]\n"  # a lookup: not a branch
    )
    sample.write_text(code, encoding="utf-8")
    found = variant_branches(sample, "canasta_teach.widgets.sample")
    assert len(found) == 8, found
    assert "rules.family == other.family" not in found
