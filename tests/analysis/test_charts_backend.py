"""Charts never import pyplot or probe for a GUI backend (analysis/charts.py, docs/PERFORMANCE.md)."""

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
    from wmcdp_desktop.analysis import charts

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
