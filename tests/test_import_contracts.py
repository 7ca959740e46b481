"""The layers hold: import-linter checks the contracts written in pyproject.toml ([tool.importlinter]).

The core never imports Qt, the UI, the command line or the analysis; only the UI imports Qt; the rater's
core and the coordinator's core never import each other; the UI never imports the coordinator's core;
the shared core imports neither audience; sibling modules import each other without cycles.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

import wmcdp_desktop

REPO_ROOT = Path(__file__).resolve().parent.parent
CORE = Path(wmcdp_desktop.__file__).resolve().parent / "core"


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["importlinter"]["contracts"]  # type: ignore[no-any-return]


def test_every_import_contract_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO_ROOT)
    assert lint_imports(config_filename=str(REPO_ROOT / "pyproject.toml"), no_cache=True) == 0


def test_the_shared_core_contract_names_every_module_of_the_shared_core() -> None:
    (shared,) = [c for c in _contracts() if c["name"] == "The shared core serves both audiences and imports neither"]
    listed = set(shared["source_modules"])  # type: ignore[call-overload]
    on_disk = {
        f"wmcdp_desktop.core.{p.stem if p.is_file() else p.name}"
        for p in CORE.iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p.is_dir() and (p / "__init__.py").exists())
    } - {"wmcdp_desktop.core.rater", "wmcdp_desktop.core.coordinator"}
    assert listed == on_disk


def test_a_broken_contract_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: a contract the code breaks (the UI imports the core) is reported as broken."""
    config = tmp_path / "contracts.toml"
    config.write_text(
        '[tool.importlinter]\nroot_packages = ["wmcdp_desktop"]\n'
        '[[tool.importlinter.contracts]]\nname = "broken on purpose"\ntype = "forbidden"\n'
        'source_modules = ["wmcdp_desktop.ui"]\nforbidden_modules = ["wmcdp_desktop.core"]\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    assert lint_imports(config_filename=str(config), no_cache=True) == 1
