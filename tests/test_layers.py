"""Layering: core, cli and analysis never import Qt; only the ui package mentions PySide6 imports."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import wmcdp_desktop

PACKAGE_DIR = Path(wmcdp_desktop.__file__).resolve().parent
QT_ROOTS = ("PySide6", "shiboken6")
PURE_PACKAGES = ("wmcdp_desktop.core", "wmcdp_desktop.cli", "wmcdp_desktop.analysis")

_IMPORT_ALL = """
import importlib, json, pkgutil, sys
imported = []
failed = []
for name in {packages!r}:
    package = importlib.import_module(name)
    imported.append(name)
    def onerror(mod, failed=failed):
        failed.append(mod)
    for info in pkgutil.walk_packages(package.__path__, name + ".", onerror=onerror):
        importlib.import_module(info.name)
        imported.append(info.name)
# The CLI also picks up optional command modules lazily: build the full parser too.
from wmcdp_desktop.cli.main import build_parser
build_parser()
qt = sorted(m for m in sys.modules if m.split(".")[0] in {roots!r})
print(json.dumps({{"imported": imported, "failed": failed, "qt": qt}}))
"""


def _run(code: str) -> dict[str, list[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_core_cli_analysis_import_no_qt() -> None:
    result = _run(_IMPORT_ALL.format(packages=PURE_PACKAGES, roots=QT_ROOTS))
    assert result["failed"] == []
    # The walk really found the modules (a walk that imports nothing would prove nothing).
    for expected in (
        "wmcdp_desktop.core.strict_json",
        "wmcdp_desktop.core.models.rating_record",
        "wmcdp_desktop.core.record_rules",
        "wmcdp_desktop.cli.main",
        "wmcdp_desktop.cli.schemas_cmd",
    ):
        assert expected in result["imported"]
    # Every module file on disk under the pure packages was imported.
    on_disk = set()
    for package in PURE_PACKAGES:
        root = PACKAGE_DIR / package.split(".")[1]
        for path in root.rglob("*.py"):
            rel = path.relative_to(PACKAGE_DIR.parent).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            on_disk.add(".".join(parts))
    assert on_disk <= set(result["imported"]), sorted(on_disk - set(result["imported"]))
    assert result["qt"] == [], f"Qt was imported by the pure layers: {result['qt']}"


def test_the_check_detects_qt() -> None:
    """Control: importing the ui does load PySide6, so the sys.modules check above can fail."""
    code = "import sys, json, wmcdp_desktop.ui.app\n" + (
        f"print(json.dumps({{'qt': sorted(m for m in sys.modules if m.split('.')[0] in {QT_ROOTS!r})}}))"
    )
    assert any(name.startswith("PySide6") for name in _run(code)["qt"])


def _qt_imports(path: Path) -> list[str]:
    """Qt modules a source file imports (import/from statements and import_module/__import__ calls)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Call):
            func = node.func
            func_name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if func_name in ("import_module", "__import__") and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    names = [first.value]
        found += [n for n in names if n.split(".")[0] in QT_ROOTS]
    return found


def test_only_ui_source_imports_qt() -> None:
    offenders = {}
    ui_imports = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        rel = path.relative_to(PACKAGE_DIR)
        imports = _qt_imports(path)
        if rel.parts[0] == "ui":
            ui_imports += imports
        elif imports:
            offenders[str(rel)] = imports
    assert offenders == {}, f"only wmcdp_desktop/ui may import Qt: {offenders}"
    assert ui_imports, "the ui package should import PySide6 (the scan found nothing: is it broken?)"


def test_qt_import_scan_recognises_every_form(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import PySide6.QtCore\n"
        "from shiboken6 import isValid\n"
        "import importlib\n"
        "importlib.import_module('PySide6.QtWidgets')\n"
        "x = 'PySide6 in a string is fine'\n",
        encoding="utf-8",
    )
    assert sorted(_qt_imports(sample)) == ["PySide6.QtCore", "PySide6.QtWidgets", "shiboken6"]
