"""``python -m benchmarks.style`` runs at a small size and reports a figure, a floor and a ratio (never a
timing is asserted)."""

from __future__ import annotations

import json

import pytest

from benchmarks import style


def test_style_benchmark_smoke(capsys: pytest.CaptureFixture[str]) -> None:
    assert style.main(["--responses", "200", "--reps", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["responses"] == 200 and out["reps"] == 1
    assert out["figure_wall_s"] and out["floor_wall_s"] and out["ratio_to_floor"] > 0
    assert 0.5 <= out["accuracy"] <= 1.0  # the last model writes longer and in markdown half the time
