"""The suite's own rules (issue 24): a missing module of the package is a failure, never a skip, and no test
changes where Python finds modules. Skips for optional outside tools (R, atheris, a root-only check) stay."""

from __future__ import annotations

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
