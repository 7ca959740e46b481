"""A jackknife interval on few tasks may lie beside its point estimate; the charts still draw both (the demo
study's report stopped with an internal error: matplotlib refuses a negative error bar)."""

from __future__ import annotations

from types import SimpleNamespace

from wmcdp_desktop.coordinator.report import charts


def _row(dim: str, alpha: float, lo: float, hi: float) -> dict[str, object]:
    value = SimpleNamespace(alpha=alpha, lo=lo, hi=hi)
    return {"id": dim, "label": f"Dimension {dim}", "ordinal": value, "interval": value}


def test_the_alpha_chart_draws_a_point_beside_its_interval() -> None:
    inside = charts.alpha_chart([_row("WM-RUB-001", 0.7, 0.5, 0.9), _row("WM-RUB-002", 0.4, 0.2, 0.6)])
    beside = charts.alpha_chart([_row("WM-RUB-001", 0.7, 0.5, 0.9), _row("WM-RUB-002", 0.9, 0.2, 0.6)])
    assert inside and beside and inside.startswith(b"\x89PNG") and beside.startswith(b"\x89PNG")
    assert inside != beside


def test_the_profile_chart_draws_a_mean_beside_its_interval() -> None:
    png = charts.profile_chart(["WM-RUB-001", "WM-RUB-002"], {"model-a": [(3.0, 3.2, 3.9), (2.0, 1.5, 2.5)]},
                               (1, 5))
    assert png is not None and png.startswith(b"\x89PNG")
