"""Charts as PNG bytes, drawn with matplotlib's Agg canvas (no pyplot state, never a display)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import numpy as np

from wmcdp_desktop.coordinator.report.common import FloatArray

DPI = 110
PALETTE = ("#0072b2", "#b35900", "#007a5a", "#a8447a", "#5e5e5e", "#8a6d00", "#1d6fa5", "#8c564b")
"""Series colours: the Okabe-Ito palette (told apart with the common colour-vision deficiencies), darkened
where needed so that each reaches 3:1 against the white background (WCAG AA for graphics; a test computes
it): blue, vermillion-orange, bluish green, reddish purple, grey, dark yellow, sky blue, brown."""


def _choose_agg_backend() -> None:
    """Name Agg as matplotlib's backend when nothing chose one yet (no window is ever shown here).

    ``Axes.boxplot`` reads every rcParam, ``backend`` included, and reading ``backend`` while it is still
    "choose automatically" imports pyplot and probes for a GUI toolkit: 0.4 s of ``wmcdp report``
    (docs/PERFORMANCE.md). The charts are drawn on an Agg canvas either way, so they do not change.
    A backend already chosen (``MPLBACKEND``, ``matplotlib.use``, pyplot in use) is left alone.
    """
    import sys

    import matplotlib

    if "matplotlib.pyplot" in sys.modules:
        return
    try:
        chosen = matplotlib.get_backend(auto_select=False)
    except TypeError:  # matplotlib < 3.10 has no auto_select; leave it as it is
        return
    if chosen is None:
        matplotlib.use("agg")


def _figure(width: float, height: float):  # type: ignore[no-untyped-def]
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    _choose_agg_backend()

    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def _png(fig) -> bytes:  # type: ignore[no-untyped-def]
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", metadata={"Software": None})
    return buf.getvalue()


def _short(text: str, n: int = 38) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _points_and_intervals(ax: Any, x: Any, y: Any, lo: Any, hi: Any, *, colour: str, capsize: int,
                          label: str) -> None:
    """Each point at ``x`` with its interval ``lo``-``hi``. An interval need not hold its point (a jackknife
    interval on few tasks may lie beside it): then each interval is drawn around its own centre and the points
    on top (matplotlib refuses a negative error bar; the demo study's report stopped on one)."""
    if np.all((lo <= x) & (x <= hi)):
        ax.errorbar(x, y, xerr=[x - lo, hi - x], fmt="o", color=colour, capsize=capsize, label=label)
        return
    ax.errorbar((lo + hi) / 2, y, xerr=(hi - lo) / 2, fmt="none", ecolor=colour, capsize=capsize)
    ax.plot(x, y, "o", color=colour, label=label)


def alpha_chart(rows: Sequence[dict[str, object]]) -> bytes | None:
    """Horizontal point + interval plot of ordinal and interval alpha per dimension."""
    labels = [f"{r['id']} {_short(str(r['label']), 30)}" for r in rows]
    series = []
    for key, colour, offset in (("ordinal", PALETTE[0], -0.15), ("interval", PALETTE[1], 0.15)):
        pts = [(i + offset, r[key].alpha, r[key].lo, r[key].hi) for i, r in enumerate(rows)]  # type: ignore[attr-defined]
        series.append((key, colour, [p for p in pts if p[1] is not None]))
    if not any(s[2] for s in series):
        return None
    fig = _figure(7.5, 0.45 * len(rows) + 1.2)
    ax = fig.add_subplot()
    for key, colour, pts in series:
        if not pts:
            continue
        y = np.array([p[0] for p in pts])
        x = np.array([p[1] for p in pts], dtype=float)
        lo = np.array([p[2] if p[2] is not None else p[1] for p in pts], dtype=float)
        hi = np.array([p[3] if p[3] is not None else p[1] for p in pts], dtype=float)
        _points_and_intervals(ax, x, y, lo, hi, colour=colour, capsize=3, label=f"alpha ({key})")
    for ref, style in ((0.667, ":"), (0.8, "--")):
        ax.axvline(ref, color="grey", linestyle=style, linewidth=0.8)
    ax.axvline(0, color="black", linewidth=0.6)
    ax.set_yticks(range(len(rows)), labels)
    ax.invert_yaxis()
    ax.set_xlabel("Krippendorff's alpha (95% interval); dotted 0.667, dashed 0.8")
    ax.set_xlim(min(-0.2, ax.get_xlim()[0]), 1.05)
    # Outside the axes, right of them: inside, it covered the intervals of the last dimension.
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    ax.set_title("Agreement between raters per dimension")
    return _png(fig)


def profile_chart(dim_labels: Sequence[str],
                  profile: dict[str, list[tuple[float | None, float | None, float | None]]],
                  scale: tuple[float, float]) -> bytes | None:
    """Mean score per dimension for each model, with intervals."""
    if not profile or all(m is None for prof in profile.values() for m, _, _ in prof):
        return None
    fig = _figure(7.5, 0.45 * len(dim_labels) + 1.4)
    ax = fig.add_subplot()
    n = len(profile)
    width = 0.6 / max(n, 1)
    colours = PALETTE
    for k, (model, prof) in enumerate(profile.items()):
        y = np.arange(len(prof)) - 0.3 + width * (k + 0.5)
        pts = [(yy, m, lo, hi) for yy, (m, lo, hi) in zip(y, prof, strict=True) if m is not None]
        if not pts:
            continue
        x = np.array([p[1] for p in pts], dtype=float)
        lo = np.array([p[2] if p[2] is not None else p[1] for p in pts], dtype=float)
        hi = np.array([p[3] if p[3] is not None else p[1] for p in pts], dtype=float)
        _points_and_intervals(ax, x, np.array([p[0] for p in pts]), lo, hi, colour=colours[k % len(colours)],
                              capsize=2, label=_short(model, 30))
    ax.set_yticks(range(len(dim_labels)), [_short(lbl, 36) for lbl in dim_labels])
    ax.invert_yaxis()
    ax.set_xlim(scale[0] - 0.2, scale[1] + 0.2)
    ax.set_xlabel("mean score (95% interval)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    ax.set_title("Score profile per model")
    return _png(fig)


def failure_heatmap(models: Sequence[str], fm_labels: Sequence[str],
                    shares: dict[str, list[float | None]]) -> bytes | None:
    """Models x failure modes, colour = share of ratings tagging the mode (any severity)."""
    if not models or not fm_labels:
        return None
    data = np.array([[np.nan if v is None else v for v in shares[m]] for m in models], dtype=float)
    fig = _figure(min(14.0, 1.6 + 0.55 * len(fm_labels)), 1.6 + 0.45 * len(models))
    ax = fig.add_subplot()
    im = ax.imshow(np.ma.masked_invalid(data), cmap="Reds", vmin=0, vmax=max(0.05, float(np.nanmax(data)) if np.isfinite(data).any() else 1))
    ax.set_xticks(range(len(fm_labels)), [_short(f, 28) for f in fm_labels], rotation=60, ha="right", fontsize=7)
    ax.set_yticks(range(len(models)), [_short(m, 30) for m in models], fontsize=8)
    if data.size <= 400:
        for i in range(data.shape[0]):
            for j in range(data.shape[1]):
                if np.isfinite(data[i, j]):
                    ax.text(j, i, f"{data[i, j]:.0%}", ha="center", va="center", fontsize=6,
                            color="white" if data[i, j] > 0.6 * np.nanmax(data) else "black")
    fig.colorbar(im, ax=ax, fraction=0.025, label="share of ratings")
    ax.set_title("Failure modes tagged per model (any severity)")
    return _png(fig)


MAX_TIME_CHART_RATERS = 40
"""Raters drawn in the time chart at most (the fastest and slowest by median; all are in rater_time.csv)."""
MAX_FLIER_POINTS = 20_000
"""Beyond this many times, the box plot leaves out the single outlying points (each is a drawn marker)."""


def time_chart_raters(times: dict[str, FloatArray]) -> list[str]:
    """The raters the time chart shows: every rater with a time, or, beyond :data:`MAX_TIME_CHART_RATERS`, the
    half with the shortest and the half with the longest median time."""
    data = {k: v for k, v in times.items() if v.size}
    if len(data) <= MAX_TIME_CHART_RATERS:
        return list(data)
    by_median = sorted(data, key=lambda k: (float(np.median(data[k])), k))
    half = MAX_TIME_CHART_RATERS // 2
    keep = set(by_median[:half] + by_median[-half:])
    return [k for k in data if k in keep]


def time_chart(times: dict[str, FloatArray]) -> bytes | None:
    """Box plot of active seconds per rater (at most :data:`MAX_TIME_CHART_RATERS`: see
    :func:`time_chart_raters`)."""
    shown = time_chart_raters(times)
    data = {k: times[k] for k in shown}
    if not data:
        return None
    fliers = sum(v.size for v in data.values()) <= MAX_FLIER_POINTS
    fig = _figure(7.5, 0.35 * len(data) + 1.4)
    ax = fig.add_subplot()
    import inspect

    if "orientation" in inspect.signature(ax.boxplot).parameters:  # matplotlib >= 3.10
        ax.boxplot(list(data.values()), orientation="horizontal", showfliers=fliers)
    else:
        ax.boxplot(list(data.values()), vert=False, showfliers=fliers)
    ax.set_yticks(range(1, len(data) + 1), [_short(k, 30) for k in data])
    ax.invert_yaxis()
    ax.set_xlabel("active seconds per task")
    ax.set_title("Time on task per rater")
    return _png(fig)
