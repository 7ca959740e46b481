"""The benchmark suite keeps working: the smoke size runs and reports every figure with its floor and ratio.

No timing is asserted here (timings belong in benchmarks/out/results.md, not in pass/fail).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
FIGURES = {
    "first_paint",
    "first_task",
    "stall_open",
    "stall_rate",
    "next_task",
    "save_submit",
    "open_big",
    "memory",
    "validate",
    "build",
    "report",
    "huge_response",
    "long_token",
    "open_encrypted",
    "autosave_encrypted",
}


def _import_common() -> object:
    from benchmarks import common

    return common


def test_ratio_kinds() -> None:
    common = _import_common()
    fig = common.Figure("t", "t", "f", "s", "time", 1.5, "<= 1.5x")  # type: ignore[attr-defined]
    fig.settle([3.0, 1.0, 2.0], [1.0, 1.0, 2.0])
    assert fig.figure["median"] == 2.0 and fig.floor["median"] == 1.0
    assert fig.ratio == 2.0 and fig.passed is False
    thr = common.Figure("v", "v", "f", "s", "throughput", 1 / 3, ">= 1/3")  # type: ignore[attr-defined]
    thr.settle([2.0], [1.0])  # half the floor's throughput
    assert thr.ratio == 0.5 and thr.passed is True
    mem = common.Figure("m", "m", "f", "MB", "difference", 60.0, "<= +60 MB")  # type: ignore[attr-defined]
    mem.settle([150.0, 170.0, 160.0, 155.0], [80.0, 80.0, 81.0, 79.0])
    assert mem.ratio == pytest.approx(77.5) and mem.passed is False
    assert {"q1", "q3", "min", "max", "n"} <= set(mem.figure)
    stall = common.Figure("s", "s", "f", "s", "limit", 0.1, "<= 100 ms")  # type: ignore[attr-defined]
    stall.settle([0.12, 0.08, 0.09], [0.5])  # the figure itself against the limit; the floor is context
    assert stall.ratio == 0.09 and stall.passed is True


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_smoke_run_reports_every_figure_with_floor_and_ratio(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.run", "--size", "smoke", "--out", str(out), "--cache", str(tmp_path / "cache")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=580,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    table = (out / "results.md").read_text(encoding="utf-8")
    assert results["size"] == "smoke"
    assert {"nproc", "cpu", "python", "qt"} <= set(results["machine"])
    figures = {f["key"]: f for f in results["figures"]}
    assert set(figures) == FIGURES
    for key, fig in figures.items():
        assert fig["error"] is None, f"{key}: {fig['error']}"
        for side in ("figure", "floor"):
            st = fig[side]
            assert st["n"] >= 1 and st["median"] > 0, (key, side, st)
            assert st["min"] <= st["median"] <= st["max"]
        assert isinstance(fig["ratio"], float) and math.isfinite(fig["ratio"]), key
        assert isinstance(fig["passed"], bool) and fig["target_text"], key
        assert fig["title"] in table and fig["floor_title"] in table, key
    assert table.count("| pass |") + table.count("| **miss** |") + table.count("| reported |") == len(FIGURES)
    assert table.count("| reported |") == 1  # the 30,000-rating report: no target of its own (issue 12)
