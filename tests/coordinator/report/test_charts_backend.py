"""Charts never import pyplot or probe for a GUI backend (coordinator/report/charts.py, docs/PERFORMANCE.md)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("matplotlib")

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    from wmcdp_desktop.coordinator.report import charts

    png = charts.time_chart({"r1": np.array([10.0, 20.0, 35.0, 400.0]), "r2": np.array([5.0, 6.0])})
    assert png is not None and png.startswith(b"\\x89PNG"), "no PNG"
    import matplotlib
    print("pyplot" if "matplotlib.pyplot" in sys.modules else "no-pyplot", matplotlib.get_backend(auto_select=False))
""")


def _run(env_backend: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    if env_backend:
        env["MPLBACKEND"] = env_backend
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_box_plot_does_not_import_pyplot() -> None:
    # Axes.boxplot reads rcParams["backend"]; unresolved, that imported pyplot and probed GUI toolkits.
    assert _run(None) == "no-pyplot agg"


def test_a_backend_chosen_by_the_user_is_kept() -> None:
    assert _run("svg") == "no-pyplot svg"


def test_time_chart_with_many_raters_shows_the_extremes() -> None:
    import numpy as np

    from wmcdp_desktop.coordinator.report import charts

    times = {f"R{i:03d}": np.full(30, float(i)) for i in range(200)}
    shown = charts.time_chart_raters(times)
    assert len(shown) == charts.MAX_TIME_CHART_RATERS
    assert shown[:20] == [f"R{i:03d}" for i in range(20)] and shown[-20:] == [f"R{i:03d}" for i in range(180, 200)]
    few = {f"R{i}": np.ones(3) for i in range(5)} | {"silent": np.empty(0)}
    assert charts.time_chart_raters(few) == [f"R{i}" for i in range(5)]
    assert charts.time_chart(times)  # a PNG
