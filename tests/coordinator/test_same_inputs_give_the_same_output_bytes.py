"""``bundle build``, ``results collect`` and ``report`` write the same bytes for the same inputs wherever their
folders are: the listing of ``python -m tools.output_digests`` (the check a refactoring is held to, in
docs/ARCHITECTURE.md) is the same for two runs in two places, and covers every output of each command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyarrow")

REPO = Path(__file__).resolve().parents[2]


def _listing(out: Path) -> list[str]:
    """The tool as a developer runs it, in a process of its own."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-m", "tools.output_digests", str(out), "--tasks", "24"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.splitlines()


def test_two_runs_in_two_places_list_the_same_digests(tmp_path: Path) -> None:
    first = _listing(tmp_path / "one" / "out")
    second = _listing(tmp_path / "elsewhere" / "deeper" / "out")
    assert first == second
    files = {line.split("  ", 1)[1] for line in first}
    for side in ("demo", "synthetic"):
        assert {f"{side}/collected/ratings.csv", f"{side}/collected/ratings.parquet",
                f"{side}/collected/collect-report.json", f"{side}/report/report.html",
                f"{side}/report/summary.json"} <= files
        assert any(f.startswith(f"{side}/bundles/") and f.endswith(".wmcdp") for f in files)
        assert any(f.startswith(f"{side}/bundles/") and f.endswith("-unblinding-key.json") for f in files)
    assert not any("study/" in f for f in files)  # the inputs are not listed
