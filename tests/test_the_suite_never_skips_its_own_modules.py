"""The suite's own rules (issue 24): a missing module of the package is a failure, never a skip, no test
changes where Python finds modules, and none imports or patches a private name of the package. Skips for optional outside tools (R, atheris, a root-only check) stay."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
OWN_MODULE_SKIP = re.compile(r"""importorskip\(\s*["']wmcdp_desktop|find_spec\(\s*["']wmcdp_desktop|allow_module_level""")
PATH_EDIT = re.compile(r"sys\.path\.(insert|append|extend|remove)\(|sys\.path\s*(\+)?=[^=]")


def _sources() -> list[tuple[str, str]]:
    return [(str(p.relative_to(TESTS)), p.read_text(encoding="utf-8")) for p in sorted(TESTS.rglob("*.py"))
            if p.name != Path(__file__).name]


def test_no_test_skips_itself_when_a_module_of_the_package_is_missing() -> None:
    found = [f"{name}:{text[:m.start()].count(chr(10)) + 1}" for name, text in _sources()
             for m in OWN_MODULE_SKIP.finditer(text)]
    assert found == [], f"a missing module of the package must fail, not skip: {found}"


def test_no_test_edits_sys_path() -> None:
    found = [f"{name}:{text[:m.start()].count(chr(10)) + 1}" for name, text in _sources()
             for m in PATH_EDIT.finditer(text)]
    assert found == [], f"tests import the package as installed; these edit sys.path: {found}"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _package_names(tree: ast.AST) -> set[str]:
    """The names a test file binds to modules or objects of the package (``from wmcdp_desktop.core import
    atomic``, ``import wmcdp_desktop.rater.app.main as app``)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("wmcdp_desktop"):
            names |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Import):
            names |= {a.asname or a.name.split(".")[0] for a in node.names if a.name.startswith("wmcdp_desktop")}
    return names


def _is_private_use(node: ast.AST, package_names: set[str]) -> bool:
    if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("wmcdp_desktop"):
        return any(_private(p) for p in [*(node.module or "").split("."), *(a.name for a in node.names)])
    if isinstance(node, ast.Import):
        return any(_private(p) for a in node.names if a.name.startswith("wmcdp_desktop") for p in a.name.split("."))
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "setattr"
            and node.args):
        return False
    target, name = node.args[0], node.args[1] if len(node.args) > 1 else None
    if isinstance(target, ast.Constant) and isinstance(target.value, str):  # setattr("wmcdp_desktop.x._y", ...)
        return target.value.startswith("wmcdp_desktop") and any(_private(p) for p in target.value.split("."))
    return (isinstance(target, ast.Name) and target.id in package_names and isinstance(name, ast.Constant)
            and isinstance(name.value, str) and _private(name.value))


def private_uses(source: str) -> list[int]:
    """Lines that import a private name of the package (``from wmcdp_desktop.x import _y``, a ``_module``) or
    patch one (``monkeypatch.setattr(module, "_y", ...)`` on a module of the package): tests go through the
    public seams. (Patching ``sys._MEIPASS``, an outside name, is not the package's.)"""
    tree = ast.parse(source)
    names = _package_names(tree)
    return sorted({node.lineno for node in ast.walk(tree)
                   if isinstance(node, ast.stmt | ast.expr) and _is_private_use(node, names)})


def test_no_test_imports_or_patches_a_private_name_of_the_package() -> None:
    found = [f"{name}:{line}" for name, text in _sources() for line in private_uses(text)]
    assert found == [], f"use the package's public seams: {found}"


def test_a_private_use_is_noticed() -> None:
    assert private_uses("from wmcdp_desktop.rater.storage import RaterStore, _mkdir\n"
                        "from wmcdp_desktop.core.models._base import X\n"
                        "from wmcdp_desktop.rater.app import main as mod\n"
                        "monkeypatch.setattr(mod, '_fatal', print)\n"
                        "monkeypatch.setattr('wmcdp_desktop.core.atomic._write', print)\n"
                        "monkeypatch.setattr(sys, '_MEIPASS', '/x')\nfrom os import _exit\n") == [1, 2, 4, 5]
