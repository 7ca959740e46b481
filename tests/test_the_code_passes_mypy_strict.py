"""The package and the developers' tools type-check under ``mypy --strict`` (the configuration in
pyproject.toml), in the suite, so that CI's run of the README's test command holds it as it holds ruff."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def test_the_package_and_the_tools_pass_mypy_strict(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), "wmcdp_desktop", "tools"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout


def test_a_type_error_is_reported(tmp_path: Path) -> None:
    """The check can fail: a module that adds a number to a text is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f() -> int:\n    return 'one' + 1\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), str(bad)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 1 and "bad.py:2: error" in done.stdout, done.stdout
