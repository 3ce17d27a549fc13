"""The reason registry (``engine.reasons.REASONS``) stays true to the engine's code.

The message catalogs are written against ``REASONS``: each code's rule ids and fact names.
This test reads ``engine/state.py`` (and the engine's other modules) with ``ast`` and finds
every ``refuse("code", "RULE", ...)`` and ``Reason("code", "RULE", ...)``; each must name a
registered code, one of the rule ids registered for it, and only registered facts.  Codes
and rule ids written as ``a if cond else b`` or through a local variable count with every
value they can take; a call that only passes its own arguments on (``refuse`` itself) is
not a call site.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

from canasta_teach.engine import state as engine_state
from canasta_teach.engine.reasons import REASONS, RULES

ENGINE_DIR = Path(engine_state.__file__).parent


@dataclass(frozen=True)
class Site:
    module: str
    line: int
    codes: frozenset[str]
    rules: frozenset[str]
    facts: frozenset[str]

    def __str__(self) -> str:
        return f"{self.module}:{self.line} {'/'.join(sorted(self.codes))}"


def _assignments(func: ast.AST) -> dict[str, list[ast.expr]]:
    found: dict[str, list[ast.expr]] = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(node.value)
    return found


def _strings(expr: ast.expr, local: dict[str, list[ast.expr]], depth: int = 0) -> set[str]:
    """Every string constant ``expr`` can evaluate to (constants, conditionals, locals)."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return {expr.value}
    if isinstance(expr, ast.IfExp):
        return _strings(expr.body, local, depth) | _strings(expr.orelse, local, depth)
    if isinstance(expr, ast.Name) and depth < 3 and expr.id in local:
        return set().union(*(_strings(v, local, depth + 1) for v in local[expr.id]))
    if (
        isinstance(expr, ast.Attribute)
        and isinstance(expr.value, ast.Name)
        and expr.value.id == "self"
        and expr.attr in CLASS_CONSTANTS
    ):
        # A rule id a variant sets as a class attribute (``State.TURN_RULE``): every value
        # any engine class gives it.
        return set(CLASS_CONSTANTS[expr.attr])
    raise AssertionError(f"cannot read a constant from {ast.dump(expr)}")


def _class_constants() -> dict[str, set[str]]:
    """String class attributes of the engine's classes, by name, over every class."""
    found: dict[str, set[str]] = {}
    for path in sorted(ENGINE_DIR.glob("*.py")):
        for cls in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(cls, ast.ClassDef):
                continue
            for node in cls.body:
                target, value = None, None
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target, value = node.targets[0], node.value
                elif isinstance(node, ast.AnnAssign):
                    target, value = node.target, node.value
                if (
                    isinstance(target, ast.Name)
                    and isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                ):
                    found.setdefault(target.id, set()).add(value.value)
    return found


CLASS_CONSTANTS = _class_constants()


def _dict_keys(expr: ast.expr, local: dict[str, list[ast.expr]]) -> set[str]:
    if isinstance(expr, ast.Dict):
        keys: set[str] = set()
        for key, value in zip(expr.keys, expr.values, strict=True):
            keys |= _dict_keys(value, local) if key is None else _strings(key, local)
        return keys
    if isinstance(expr, ast.Name) and expr.id in local:
        return set().union(*(_dict_keys(v, local) for v in local[expr.id]))
    raise AssertionError(f"cannot read the facts from {ast.dump(expr)}")


def call_sites(path: Path) -> list[Site]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    sites: list[Site] = []
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        local = _assignments(func)
        for node in ast.walk(func):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id not in ("refuse", "Reason") or len(node.args) < 2:
                continue
            code_arg = node.args[0]
            if isinstance(code_arg, ast.Name) and code_arg.id not in local:
                continue  # a helper passing its parameters on, like moves.refuse
            facts: set[str] = set()
            for keyword in node.keywords:
                if keyword.arg is None:  # **facts
                    facts |= _dict_keys(keyword.value, local)
                else:
                    facts.add(keyword.arg)
            if node.func.id == "Reason" and len(node.args) >= 3:
                facts |= _dict_keys(node.args[2], local)
            sites.append(Site(path.name, node.lineno, frozenset(_strings(node.args[0], local)),
                              frozenset(_strings(node.args[1], local)),
                              frozenset(facts)))  # fmt: skip
    return sites


SITES = [site for path in sorted(ENGINE_DIR.glob("*.py")) for site in call_sites(path)]


def test_the_scan_finds_the_engine_calls() -> None:
    """Guards the scan itself: state.py refuses moves in dozens of places."""
    assert sum(1 for s in SITES if s.module == "state.py") >= 30
    assert {"frozen_needs_pair", "set_aside", "wild_on_top", "red_three_on_top"} <= set().union(
        *(s.codes for s in SITES)
    )


@pytest.mark.parametrize("site", SITES, ids=str)
def test_call_site_matches_the_registry(site: Site) -> None:
    for code in site.codes:
        assert code in REASONS, f"{site}: {code!r} is not in REASONS"
        rules, facts = REASONS[code]
        for rule in site.rules:
            assert rule in RULES, f"{site}: unknown rule id {rule}"
            assert rule in rules, f"{site}: {code} given with {rule}, registered {rules}"
        extra = site.facts - set(facts)
        assert not extra, f"{site}: {code} gives facts {sorted(extra)} not registered {facts}"


def test_every_registered_code_is_given_somewhere() -> None:
    used = set().union(*(s.codes for s in SITES))
    assert set(REASONS) == used
