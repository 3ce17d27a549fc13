"""How the package's modules import each other.

No module of the package imports another module's private names (``_name``).

A leading underscore says "only this module uses it"; a module that needs another's helper
asks for it to be made public (as ``handfoot_notation`` uses ``notation``'s readers).  The
imports still to be made public are listed in ``NOT_YET_PUBLIC``: the list may only shrink,
and an entry that no longer occurs fails too, so it cannot go stale.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "canasta_teach"

#: (importing module, imported module) -> private names, left for the modules' owners to
#: make public (issue 20).
NOT_YET_PUBLIC: dict[tuple[str, str], set[str]] = {
}  # fmt: skip


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def private_imports(source: str, module: str, is_package: bool = False) -> dict[str, set[str]]:
    """imported module -> the private names ``module`` (its source) imports from it, for
    modules of ``canasta_teach`` only (relative imports resolved; dunders are public)."""
    found: dict[str, set[str]] = {}
    package = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package[: len(package) - node.level + 1]
            target = ".".join([*base, node.module] if node.module else base)
        else:
            target = node.module or ""
        if target.split(".")[0] != "canasta_teach" or target == module:
            continue
        names = {
            alias.name
            for alias in node.names
            if alias.name.startswith("_") and not alias.name.startswith("__")
        }
        if names:
            found.setdefault(target, set()).update(names)
    return found


def _all_private_imports() -> dict[tuple[str, str], set[str]]:
    out: dict[tuple[str, str], set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        source = path.read_text(encoding="utf-8")
        for target, names in private_imports(source, module, path.name == "__init__.py").items():
            out[(module, target)] = names
    return out


def test_no_module_imports_another_modules_private_names() -> None:
    found = _all_private_imports()
    new = {key: names - NOT_YET_PUBLIC.get(key, set()) for key, names in found.items()}
    new = {key: names for key, names in new.items() if names}
    assert not new, f"private names imported across modules (make them public): {new}"
    stale = {key: names - found.get(key, set()) for key, names in NOT_YET_PUBLIC.items()}
    stale = {key: names for key, names in stale.items() if names}
    assert not stale, f"no longer imported: remove from NOT_YET_PUBLIC: {stale}"


def test_the_scan_sees_relative_and_absolute_private_imports() -> None:
    source = (
        "from .notation import _Line, Tok\n"
        "from ..engine.cards import _BY_TOKEN, __all__\n"
        "from canasta_teach.widgets.table import _capitalised\n"
        "from collections import _private_outside\n"
        "def f():\n    from . import _lazy\n"
    )
    found = private_imports(source, "canasta_teach.engine.handfoot_notation")
    assert found == {
        "canasta_teach.engine.notation": {"_Line"},
        "canasta_teach.engine.cards": {"_BY_TOKEN"},
        "canasta_teach.widgets.table": {"_capitalised"},
        "canasta_teach.engine": {"_lazy"},
    }


def _imported_modules(path: Path) -> set[str]:
    module = _module_name(path)
    package = module.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, node.module] if node.module else base)
            out.add(target)
            out.update(f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return out


def test_classic_notation_imports_no_variant_notation() -> None:
    """``notation`` reads every family's positions through its registry
    (``register_position_format``): a variant's module imports it, never the other way."""
    imported = _imported_modules(PACKAGE / "engine" / "notation.py")
    assert not {m for m in imported if "handfoot" in m}, imported
    assert "canasta_teach.engine.state" in imported  # the scan sees the module's imports
