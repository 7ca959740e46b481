"""The million-rating benchmark (report, and collect from export zips) runs end to end at smoke size (figures
present, never asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("krippendorff")


def test_scale_benchmark_smoke(tmp_path: Path, repo_root: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.scale", "--ratings", "3000", "--raters", "12", "--overlap", "3",
         "--models", "3", "--reps", "1", "--collect", "--out", str(tmp_path), "--json"],
        capture_output=True, text=True, cwd=repo_root, check=False, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout)
    assert res["ratings"] == 3000 and res["items"] == 333
    assert res["report_s"][0] > 0 and res["floor_s"][0] > 0 and res["ratio"] > 0 and res["peak_mib"] > 0
    assert {"load", "agreement", "models"} <= set(res["phases"])
    summary = json.loads((tmp_path / "report-0" / "summary.json").read_text(encoding="utf-8"))
    assert summary["meta"]["ratings"] == 3000 and summary["meta"]["raters"] == 12
    collect = res["collect"]  # every synthetic export is valid: collect keeps every record, with no problem
    assert collect["records"] == collect["kept"] == 3000
    assert collect["collect_s"] > 0 and collect["floor_s"] > 0 and collect["throughput_ratio"] > 0
