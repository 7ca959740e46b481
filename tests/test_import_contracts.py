"""The layers hold: import-linter checks the contracts written in pyproject.toml ([tool.importlinter]), and
a scan of the package's source checks the one rule import-linter cannot see (who prints).

The shared core imports neither side and never Qt; the rater's side and the coordinator's side never import
each other; only the rater's app imports Qt; only the coordinator's commands (and the rater app's entry
point, for its own command line) parse arguments or print; sibling modules import each other without cycles.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

import wmcdp_desktop

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(wmcdp_desktop.__file__).resolve().parent

PRINTERS = {"coordinator/commands", "rater/app/main.py", "rater/app/self_test.py"}
"""Where the package may write to the terminal: the coordinator's commands, and the rater app's entry point
and ``--self-test`` (their own command line)."""


def _contracts() -> dict[str, dict[str, object]]:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {c["name"]: c for c in config["tool"]["importlinter"]["contracts"]}


def _children(folder: Path, dotted: str) -> set[str]:
    return {
        f"{dotted}.{p.stem if p.is_file() else p.name}"
        for p in folder.iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p.is_dir() and (p / "__init__.py").exists())
    }


def test_every_import_contract_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO_ROOT)
    assert lint_imports(config_filename=str(REPO_ROOT / "pyproject.toml"), no_cache=True) == 0


def test_the_qt_contract_names_every_module_of_the_rater_side_but_its_app() -> None:
    listed = set(_contracts()["Only the rater's app imports Qt"]["source_modules"])  # type: ignore[call-overload]
    expected = _children(PACKAGE / "rater", "wmcdp_desktop.rater") - {"wmcdp_desktop.rater.app"}
    assert listed == expected | {"wmcdp_desktop.coordinator"}


def test_the_arguments_contract_names_every_part_of_the_coordinator_but_its_commands() -> None:
    listed = set(_contracts()["Only the coordinator's commands parse arguments"]["source_modules"])  # type: ignore[call-overload]
    parts = _children(PACKAGE / "coordinator", "wmcdp_desktop.coordinator") - {"wmcdp_desktop.coordinator.commands"}
    assert listed == parts | {"wmcdp_desktop.core", "wmcdp_desktop.rater"}


def _writes_to_the_terminal(tree: ast.AST) -> list[int]:
    """Lines that call ``print`` or write to ``sys.stdout`` / ``sys.stderr``."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Name) and func.id == "print") or (isinstance(func, ast.Attribute) and func.attr == "write" and isinstance(func.value, ast.Attribute)
                  and func.value.attr in {"stdout", "stderr"}):
                lines.append(node.lineno)
    return lines


def test_only_the_commands_and_the_apps_entry_point_print() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if any(rel == p or rel.startswith(p + "/") for p in PRINTERS):
            continue
        offenders += [f"{rel}:{line}" for line in _writes_to_the_terminal(ast.parse(path.read_text(encoding="utf-8")))]
    assert offenders == []


def test_the_print_check_can_fail() -> None:
    assert _writes_to_the_terminal(ast.parse("import sys\nprint('x')\nsys.stderr.write('y')\n")) == [2, 3]


def test_a_broken_contract_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: a contract the code breaks (the rater's app imports the core) is reported as broken."""
    config = tmp_path / "contracts.toml"
    config.write_text(
        '[tool.importlinter]\nroot_packages = ["wmcdp_desktop"]\n'
        '[[tool.importlinter.contracts]]\nname = "broken on purpose"\ntype = "forbidden"\n'
        'source_modules = ["wmcdp_desktop.rater.app"]\nforbidden_modules = ["wmcdp_desktop.core"]\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    assert lint_imports(config_filename=str(config), no_cache=True) == 1


BREAKS = {
    "The shared core imports neither side and never Qt": (
        "core/breaks_the_layers.py", "from wmcdp_desktop.rater import session  # noqa\n",
        "wmcdp_desktop.core.breaks_the_layers -> wmcdp_desktop.rater.session"),
    "The rater's side and the coordinator's side never import each other": (
        "coordinator/breaks_the_sides.py", "from wmcdp_desktop.rater import labels  # noqa\n",
        "wmcdp_desktop.coordinator.breaks_the_sides -> wmcdp_desktop.rater.labels"),
    "Only the rater's app imports Qt": (
        "rater/timing.py", "\nimport PySide6.QtCore  # noqa\n", "wmcdp_desktop.rater.timing -> PySide6"),
    "Only the coordinator's commands parse arguments": (
        "coordinator/study/loader.py", "\nimport argparse  # noqa\n", "wmcdp_desktop.coordinator.study.loader -> argparse"),
    "No import cycles between sibling modules": (
        "core/errors.py", "\nfrom wmcdp_desktop.core import atomic  # noqa\n", ".errors -> .atomic"),
}
"""For each contract of pyproject.toml: the module of a copy of the package that breaks it, what is added to
it, and what the report must name."""


def test_a_module_that_breaks_each_contract_is_reported(tmp_path: Path) -> None:
    """The project's own contracts fail on a copy of the package in which each of them is broken once: the core
    imports the rater's side, the coordinator the rater's, a rater module Qt, a study module argparse, and the
    core's errors import its atomic writes (which import the errors)."""
    assert set(BREAKS) == set(_contracts())
    copy = tmp_path / "wmcdp_desktop"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.qm", "*.ts"))
    for module, added, _ in BREAKS.values():
        path = copy / module
        path.write_text((path.read_text(encoding="utf-8") if path.exists() else "") + added, encoding="utf-8")
    shutil.copy(REPO_ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    lint = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
            "sys.exit(lint_imports_command())", "--no-cache"]
    done = subprocess.run(lint, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)},
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    for name, (_, _, named) in BREAKS.items():
        assert f"{name} BROKEN" in done.stdout, name
        assert named in done.stdout, named
    assert "0 kept, 5 broken" in done.stdout, done.stdout[-2000:]


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_package_init_outside_the_app_imports_qt_or_the_app() -> None:
    """import-linter cannot name a package without what is below it, so ``wmcdp_desktop/__init__.py`` and
    ``rater/__init__.py`` are outside the Qt contract: they are read here (an ``__init__`` runs whenever anything
    below it is imported, so Qt there would reach the core's and the coordinator's users)."""
    inits = [p for p in PACKAGE.rglob("__init__.py") if not p.relative_to(PACKAGE).as_posix().startswith("rater/app/")]
    assert PACKAGE / "__init__.py" in inits and PACKAGE / "rater" / "__init__.py" in inits
    offenders = {p.relative_to(PACKAGE).as_posix(): sorted(n for n in _imported(p)
                                                            if n.split(".")[0] in {"PySide6", "shiboken6"}
                                                            or n.startswith("wmcdp_desktop.rater.app"))
                 for p in inits}
    assert {k: v for k, v in offenders.items() if v} == {}
    assert _imported(Path(__file__)) >= {"ast", "importlinter.cli"}  # the reader sees imports
