"""A coordinator's machine can install ``wmcdp`` without Qt (docs/PACKAGING.md): the requirements file it is
told to use is the package's own requirements without PySide6 plus the analysis extra, and every
``wmcdp`` command runs with PySide6 impossible to import."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

NO_QT = """
import sys

class NoQt:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PySide6", "shiboken6"):
            raise ImportError(f"{name} is not installed on this machine")
        return None

sys.meta_path.insert(0, NoQt())
from wmcdp_desktop.coordinator.commands.main import main
study, out = sys.argv[1], sys.argv[2]
codes = [main(["study", "init", study]), main(["study", "validate", study]),
         main(["bundle", "build", study, "--out", out])]
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6"))
print("codes", codes, "qt", loaded)
raise SystemExit(max(codes) or bool(loaded))
"""


def test_the_requirements_file_is_the_package_without_pyside6_plus_the_analysis_extra(repo_root: Path) -> None:
    project = tomllib.loads((repo_root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    expected = [d for d in project["dependencies"] if not d.startswith("PySide6")]
    expected += project["optional-dependencies"]["analysis"]
    lines = (repo_root / "packaging" / "coordinator-requirements.txt").read_text(encoding="utf-8").splitlines()
    listed = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    assert listed == expected


@pytest.mark.slow
def test_wmcdp_runs_where_pyside6_cannot_be_imported(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-c", NO_QT, str(tmp_path / "study"), str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "qt []" in run.stdout
    assert any((tmp_path / "out").glob("*.wmcdp"))
