"""Per-model results (after unblinding): mean and median scores per dimension with 95% intervals, failure-mode
rates by severity, the overall-judgment distribution, and paired comparisons of models on the items they
share.

Intervals account for both sources of sampling, the benchmark items and the raters (two-way jackknife,
:mod:`wmcdp_desktop.coordinator.report.intervals`); ``fixed_raters=True`` gives them for these particular raters.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from wmcdp_desktop.coordinator.report.common import (
    FloatArray,
    IntArray,
    Note,
    ProgressFn,
    Table,
    fnum,
    holm,
    no_progress,
)
from wmcdp_desktop.coordinator.report.dataset import Dataset
from wmcdp_desktop.coordinator.report.intervals import (
    MIN_ITEMS,
    Shuffles,
    scope_text,
    shuffles,
    two_way_interval,
)
from wmcdp_desktop.core.counts import count
from wmcdp_desktop.core.models.common import SEVERITIES


@dataclass
class ModelResults:
    tables: list[Table]
    notes: list[Note]
    profile: dict[str, list[tuple[float | None, float | None, float | None]]]
    """model -> per dimension (mean, ci low, ci high), for the chart."""
    fm_present: dict[str, list[float | None]]
    """model -> share of ratings tagging each failure mode (any severity), for the heat map."""


@dataclass
class _Cells:
    """One model's scores summed per (item, rater) cell and dimension."""

    sums: FloatArray
    """(cells, dims) sum of scores (N/A left out)."""
    counts: FloatArray
    """(cells, dims) number of scores."""


def _cells(ds: Dataset, rows: IntArray, sh: Shuffles, weight: FloatArray | None = None) -> _Cells:
    """Per cell and dimension: sum and count of scores; with ``weight`` (per rating) weighted sums and
    summed weights (the same jackknife then gives the weighted mean's interval)."""
    n_c, n_d = sh.cell_item.size, len(ds.dimensions)
    sc = ds.scores[rows]
    ok = ~np.isnan(sc)
    w = np.ones(len(rows)) if weight is None else weight[rows]
    flat = (sh.row_cell[rows][:, None] * n_d + np.arange(n_d)[None, :]).ravel()
    sums = np.bincount(flat, weights=(np.where(ok, sc, 0.0) * w[:, None]).ravel(), minlength=n_c * n_d)
    counts = np.bincount(flat, weights=(ok * w[:, None]).ravel(), minlength=n_c * n_d)
    return _Cells(sums.reshape(n_c, n_d).astype(np.float64), counts.reshape(n_c, n_d).astype(np.float64))


def _item_sums(ds: Dataset, rows: IntArray) -> _Cells:
    """Per item and dimension: sum and count of the scores of ``rows`` (N/A left out)."""
    n_i, n_d = len(ds.item_ids), len(ds.dimensions)
    sc = ds.scores[rows]
    ok = ~np.isnan(sc)
    flat = (ds.item[rows][:, None] * n_d + np.arange(n_d)[None, :]).ravel()
    sums = np.bincount(flat, weights=np.where(ok, sc, 0.0).ravel(), minlength=n_i * n_d)
    counts = np.bincount(flat, weights=ok.ravel().astype(np.float64), minlength=n_i * n_d)
    return _Cells(sums.reshape(n_i, n_d).astype(np.float64), counts.reshape(n_i, n_d).astype(np.float64))


def _per_item(sh: Shuffles, values: FloatArray, n_items: int) -> FloatArray:
    """Sum of per-cell ``values`` per item."""
    out: FloatArray = np.bincount(sh.cell_item, weights=values, minlength=n_items).astype(np.float64)
    return out


def _ratio(num: FloatArray, den: FloatArray) -> FloatArray:
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out


def mean_interval(s: FloatArray, c: FloatArray, sh: Shuffles, n_items: int, fixed_raters: bool,
                  ) -> tuple[float | None, float | None, str | None]:
    """Interval of the mean of every rating, from per-cell sums ``s`` and counts ``c`` (item and rater
    jackknife, :func:`two_way_interval`; with ``fixed_raters=False`` the rater term from the label shuffles
    ``sh``): (low, high, why there is none). The per-model and per-slice means of the report use it."""
    total_s, total_c = float(s.sum()), float(c.sum())
    theta = total_s / total_c
    item_s, item_c = _per_item(sh, s, n_items), _per_item(sh, c, n_items)
    has_i = item_c > 0
    by_item = _ratio(total_s - item_s[has_i], total_c - item_c[has_i])
    rater_s, rater_c = sh.by_rater(s), sh.by_rater(c)
    has_r = rater_c > 0
    by_rater = _ratio(total_s - rater_s[has_r], total_c - rater_c[has_r])
    null = None
    if not fixed_raters and sh.copies:
        both = sh.by_label(np.stack([s, c], axis=1))
        null = np.where(both[..., 1] > 0, _ratio(total_s - both[..., 0], total_c - both[..., 1]), np.nan)
    return two_way_interval(theta, by_item, by_rater, null, fixed_raters=fixed_raters, bias_correct=False)


def _diff_interval(sa: FloatArray, ca: FloatArray, sb: FloatArray, cb: FloatArray, sh: Shuffles, n_items: int,
                   fixed_raters: bool) -> tuple[float | None, float | None, str | None]:
    """Interval of the mean over shared items of (mean of A - mean of B), from per-cell sums and counts.

    Leaving a rater out changes only the items they rated: per cell, the item's difference without that
    cell (and whether the item is still shared); the statistic per left-out rater (or shuffled label) is
    then a sum over that rater's cells."""
    items = [_per_item(sh, x, n_items) for x in (sa, ca, sb, cb)]
    d = _ratio(items[0], items[1]) - _ratio(items[2], items[3])
    shared = ~np.isnan(d)
    n_s = int(shared.sum())
    theta = float(d[shared].mean())
    by_item = (d[shared].sum() - d[shared]) / (n_s - 1) if n_s > 1 else np.empty(0)
    ci = sh.cell_item
    on = shared[ci] & ((ca + cb) > 0)  # cells whose removal can change a shared item
    d_without = _ratio(items[0][ci] - sa, items[1][ci] - ca) - _ratio(items[2][ci] - sb, items[3][ci] - cb)
    still = ~np.isnan(d_without)
    # per cell: change of (sum of differences, number of shared items) when the cell goes
    change = np.stack([np.where(on, np.where(still, d_without, 0.0) - d[ci], 0.0),
                       np.where(on & ~still, -1.0, 0.0)], axis=1)
    change[~shared[ci]] = 0.0
    total = float(d[shared].sum())

    def stat(agg: FloatArray) -> FloatArray:
        return _ratio(total + agg[..., 0], n_s + agg[..., 1])

    involved = sh.by_rater(on.astype(float)) > 0
    by_rater = stat(sh.by_rater(change))[involved]
    null = None
    if not fixed_raters and sh.copies:
        null = np.where(sh.by_label(on.astype(float)) > 0, stat(sh.by_label(change)), np.nan)
    return two_way_interval(theta, by_item, by_rater, null, fixed_raters=fixed_raters, bias_correct=False)


def _model_tables(ds: Dataset, scope: str) -> tuple[Table, Table, Table, Table]:
    """The per-model tables, empty: scores, failure modes, the overall judgment's distribution, pairs."""
    levels = ds.scale_values(len(ds.dimensions) - 1)
    overall = ds.dimensions[-1]
    scores_t = Table(
        "model_scores", "Scores per model and dimension",
        ["model", "dimension", "label", "items", "ratings", "na", "mean", "mean_ci_low", "mean_ci_high",
         "median", "item_weighted_mean", "item_weighted_ci_low", "item_weighted_ci_high", "note"],
        description="Mean and median of the raters' scores (N/A left out). 95% interval of the mean "
        f"{scope}: two-way jackknife over benchmark items and raters, t quantile (docs/ANALYSIS.md). "
        "item_weighted_mean weighs each rating by its item's weight in the study (items/*.json weight; "
        "equal to the mean when every weight is the same), with its interval made the same way. "
        "The median has no interval: on a 1-5 scale it moves in half points and resampling a few raters "
        "cannot give an honest one; use the mean's.")
    fm_t = Table(
        "model_failure_modes", "Failure-mode rates per model",
        ["model", "failure_mode", "label", "ratings", *[f"share_{s}" for s in SEVERITIES], "share_present"],
        description="Share of the model's ratings tagging each failure mode at each severity.")
    dist_t = Table(
        "model_overall_distribution", f"{overall.label} ({overall.id}): distribution per model",
        ["model", "ratings", *[f"n_{int(v)}" for v in levels], "n_na", *[f"share_{int(v)}" for v in levels]],
        description="How often each level of the overall judgment was given (shares exclude N/A).")
    pair_t = Table(
        "model_paired", "Paired comparisons between models on shared items",
        ["model_a", "model_b", "dimension", "shared_items", "mean_diff", "diff_ci_low", "diff_ci_high",
         "a_better", "b_better", "ties", "wilcoxon_p", "p_holm", "rank_biserial", "note"],
        description="Per shared item, the mean score of A minus the mean score of B (over raters). "
        f"mean_diff > 0 favours A. 95% interval {scope} (two-way jackknife over items and raters). "
        "Wilcoxon signed-rank test over items (zero differences dropped) and matched-pairs rank-biserial "
        "correlation (+1: A better on every item, -1: B better on every item). p_holm adjusts for the "
        "number of comparisons in this table.")
    return scores_t, fm_t, dist_t, pair_t


_Profile = list[tuple[float | None, float | None, float | None]]


def analyse_models(ds: Dataset, seed: int, b: int, progress: ProgressFn = no_progress, *,
                   fixed_raters: bool = False) -> ModelResults:
    """Per-model tables. ``b``: shuffled-rater copies behind the intervals (0 = no intervals)."""
    notes: list[Note] = []
    scope = scope_text(fixed_raters)
    scores_t, fm_t, dist_t, pair_t = _model_tables(ds, scope)
    profile: dict[str, _Profile] = {}
    fm_present: dict[str, list[float | None]] = {}
    if not ds.model_ids:
        notes.append(Note("models", "No rating carries a model_source: per-model results need unblinded data."))
        return ModelResults([scores_t, fm_t, dist_t, pair_t], notes, profile, fm_present)

    sh = shuffles(ds.item, ds.rater, len(ds.rater_ids), seed, 0 if fixed_raters else b)
    rating_weight = ds.item_weight()[ds.item]
    cells: dict[int, _Cells] = {}
    by_item: dict[int, _Cells] = {}
    for m, name in enumerate(ds.model_ids):
        rows = np.flatnonzero(ds.model == m)
        # Per item (items x dims) for the point estimates; per (item, rater) cell only for the intervals: at a
        # million ratings the cells of every model would take over a GB (docs/ANALYSIS.md, "At scale").
        by_item[m] = _item_sums(ds, rows)
        if b > 0:
            cells[m] = _cells(ds, rows, sh)
        items_any = np.unique(ds.item[rows])
        if items_any.size < MIN_ITEMS:
            notes.append(Note("models", f"Model {name} was rated on {count(items_any.size, 'item')}: its means are "
                                        f"shown without an interval (at least {MIN_ITEMS} items are needed)."))
        profile[name] = _model_scores(ds, name, rows, by_item[m], cells.get(m), sh, b, fixed_raters, scores_t,
                                      rating_weight)
        progress(1)
        fm_present[name] = _model_failure_modes(ds, name, rows, fm_t)
        dist_t.rows.append(_overall_distribution(ds, name, rows))

    _paired(ds, by_item, cells, sh, b, fixed_raters, pair_t, notes)
    slice_t = _slices(ds, sh, b, fixed_raters, scope)
    progress(1)
    return ModelResults([scores_t, fm_t, dist_t, pair_t, slice_t], notes, profile, fm_present)


def _model_scores(ds: Dataset, name: str, rows: IntArray, item_sums: _Cells, cell: _Cells | None, sh: Shuffles,
                  b: int, fixed_raters: bool, table: Table, rating_weight: FloatArray) -> _Profile:
    """One model's rows of the scores table (mean, median, item-weighted mean, their intervals); its profile
    (mean, low, high) per dimension. ``rating_weight``: each rating's item weight."""
    wcell = _cells(ds, rows, sh, rating_weight) if cell is not None else None
    n_items = len(ds.item_ids)
    sc = ds.scores[rows]
    prof: _Profile = []
    for d, dim in enumerate(ds.dimensions):
        vals = sc[:, d][~np.isnan(sc[:, d])]
        n_na = int(ds.na[rows, d].sum())
        n_items_d = int((item_sums.counts[:, d] > 0).sum())
        lo = hi = wmean = wlo = whi = None
        note: str | None
        if vals.size == 0:
            mean = med = None
            note = "no scores (all N/A)" if n_na else "no ratings"
        else:
            mean, med = float(vals.mean()), float(np.median(vals))
            w = rating_weight[rows][~np.isnan(sc[:, d])]
            wmean = float((vals * w).sum() / w.sum())
            note = None
            if b > 0 and cell is not None and wcell is not None:
                lo, hi, note = mean_interval(cell.sums[:, d], cell.counts[:, d], sh, n_items, fixed_raters)
                wlo, whi, _ = mean_interval(wcell.sums[:, d], wcell.counts[:, d], sh, n_items, fixed_raters)
        table.rows.append([name, dim.id, dim.label, n_items_d, int(vals.size), n_na, mean, lo, hi, med,
                           wmean, wlo, whi, note])
        prof.append((mean, lo, hi))
    return prof


def _model_failure_modes(ds: Dataset, name: str, rows: IntArray, table: Table) -> list[float | None]:
    """One model's rows of the failure-mode table; the share of its ratings tagging each failure mode."""
    sev = ds.severity[rows]
    n_r = len(rows)
    present: list[float | None] = []
    for f, fm in enumerate(ds.rubric.failure_modes):
        if not n_r:
            table.rows.append([name, fm.id, fm.label, 0, *[None] * len(SEVERITIES), None])
            present.append(None)
            continue
        shares = np.bincount(sev[:, f], minlength=len(SEVERITIES)) / n_r
        table.rows.append([name, fm.id, fm.label, n_r, *[float(s) for s in shares], float(shares[1:].sum())])
        present.append(float(shares[1:].sum()))
    return present


def _overall_distribution(ds: Dataset, name: str, rows: IntArray) -> list[object]:
    """One model's row of the overall judgment's distribution (counts and shares of each level, N/A apart)."""
    overall = ds.dimensions[-1]
    levels = ds.scale_values(len(ds.dimensions) - 1)
    ov = ds.scores[rows][:, -1]
    ok = ~np.isnan(ov)
    counts = np.bincount((ov[ok] - overall.scale.min).astype(np.int64), minlength=levels.size)
    total = int(counts.sum())
    return [name, len(rows), *[int(c) for c in counts], int(ds.na[rows, -1].sum()),
            *[(float(c) / total if total else None) for c in counts]]


def item_slices(ds: Dataset) -> dict[tuple[str, str], IntArray]:
    """(kind, name) -> the item indexes in that slice: ``tag`` for each of the items' ``sliceTags``,
    ``challenge`` for each ``challengeAttributes`` value, ``split`` for each split."""
    out: dict[tuple[str, str], list[int]] = {}
    for i, item_id in enumerate(ds.item_ids):
        item = ds.items.get(item_id)
        if item is None:
            continue
        keys = [("split", item.split), *(("tag", t) for t in item.sliceTags),
                *(("challenge", c) for c in item.challengeAttributes)]
        for key in keys:
            out.setdefault(key, []).append(i)
    return {k: np.array(v, np.int64) for k, v in sorted(out.items())}


def _slices(ds: Dataset, sh: Shuffles, b: int, fixed_raters: bool, scope: str) -> Table:
    """Mean score per slice of items (split, slice tag, challenge attribute), model and dimension, with the
    counts behind each; the overall judgment's mean with its interval."""
    dims = ds.dimensions
    table = Table(
        "model_scores_by_slice", "Scores per slice of items and model",
        ["slice_kind", "slice", "model", "items", "ratings", *[f"mean_{d.id}" for d in dims],
         f"{dims[-1].id}_ci_low", f"{dims[-1].id}_ci_high", "note"],
        description="Items grouped by their split, each of their sliceTags and each of their "
        "challengeAttributes (an item can be in several slices): per slice and model the items and ratings "
        "behind it, the mean of every dimension (N/A left out) and the overall judgment's 95% interval "
        f"{scope}. Small slices give wide intervals or none (fewer than {MIN_ITEMS} items).")
    n_items = len(ds.item_ids)
    n_d = len(dims)
    model_rows = [np.flatnonzero(ds.model == m) for m in range(len(ds.model_ids))]  # once, not once a slice
    model_items = [ds.item[rows] for rows in model_rows]
    for (kind, name), members in item_slices(ds).items():
        in_slice = np.zeros(n_items, bool)
        in_slice[members] = True
        for m, model in enumerate(ds.model_ids):
            rows = model_rows[m][in_slice[model_items[m]]]  # in the same (increasing) order as before
            if rows.size == 0:
                continue
            sc = ds.scores[rows]
            ok = ~np.isnan(sc)
            counts = ok.sum(axis=0)
            means = [float(np.where(ok[:, d], sc[:, d], 0).sum() / counts[d]) if counts[d] else None
                     for d in range(n_d)]
            lo = hi = None
            note = None
            if b > 0 and counts[-1]:
                cell = _cells(ds, rows, sh)
                lo, hi, note = mean_interval(cell.sums[:, -1], cell.counts[:, -1], sh, n_items, fixed_raters)
            elif not counts[-1]:
                note = "no overall judgment scores (all N/A)"
            table.rows.append([kind, name, model, int((np.bincount(ds.item[rows], minlength=n_items) > 0).sum()),
                               int(rows.size), *means, lo, hi, note])
    return table


def rank_biserial(diff: FloatArray) -> float | None:
    """Matched-pairs rank-biserial correlation of paired differences (zeros dropped)."""
    from scipy.stats import rankdata

    d = diff[diff != 0]
    if d.size == 0:
        return None
    ranks = rankdata(np.abs(d))
    total = ranks.sum()
    return float((ranks[d > 0].sum() - ranks[d < 0].sum()) / total)


def wilcoxon_p(diff: FloatArray) -> float | None:
    """Two-sided Wilcoxon signed-rank p-value (zeros dropped), or None when there is nothing to test."""
    from scipy.stats import wilcoxon

    d = diff[diff != 0]
    if d.size == 0:
        return None
    # Exact null distribution only without ties (deterministic); otherwise the normal approximation with
    # tie correction. Never scipy's permutation fallback, which is random and slow.
    exact = d.size <= 50 and np.unique(np.abs(d)).size == d.size  # ties are looked for only where it matters
    method = "exact" if exact else "asymptotic"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = wilcoxon(d, zero_method="wilcox", alternative="two-sided", method=method)
        except ValueError:  # scipy < 1.13 calls the normal approximation "approx"
            if method != "asymptotic":
                raise
            res = wilcoxon(d, zero_method="wilcox", alternative="two-sided", method="approx")
    return fnum(res.pvalue)


def _paired(ds: Dataset, by_item: dict[int, _Cells], cells: dict[int, _Cells], sh: Shuffles, b: int,
            fixed_raters: bool, table: Table, notes: list[Note]) -> None:
    dims = ds.dimensions
    if len(ds.model_ids) < 2:
        notes.append(Note("models", "Only one model in the data: no paired comparison between models."))
        return
    start = len(table.rows)
    pvals: list[float | None] = []
    for ma, mb in combinations(range(len(ds.model_ids)), 2):
        name_a, name_b = ds.model_ids[ma], ds.model_ids[mb]
        n_items = len(ds.item_ids)
        per_item = [by_item[ma].sums, by_item[ma].counts, by_item[mb].sums, by_item[mb].counts]
        diff = _ratio(per_item[0], per_item[1]) - _ratio(per_item[2], per_item[3])  # (items, D), NaN: unshared
        valid = ~np.isnan(diff)
        if not valid.any():
            notes.append(Note("models", f"Models {name_a} and {name_b} share no rated item: not compared."))
            continue
        for d, dim in enumerate(dims):
            dd = diff[:, d][valid[:, d]]
            note = None
            if dd.size == 0:
                table.rows.append([name_a, name_b, dim.id, 0, None, None, None, 0, 0, 0, None, None, None,
                                   "no shared scored item"])
                pvals.append(None)
                continue
            lo = hi = None
            if b > 0:
                ca_, cb_ = cells[ma], cells[mb]
                lo, hi, note = _diff_interval(ca_.sums[:, d], ca_.counts[:, d], cb_.sums[:, d], cb_.counts[:, d],
                                              sh, n_items, fixed_raters)
            p = wilcoxon_p(dd) if dd.size >= 2 else None
            if dd.size < 2:
                note = "one shared item: no interval or test"
            elif p is None and note is None:
                note = "no differences to test"
            pvals.append(p)
            table.rows.append([name_a, name_b, dim.id, int(dd.size), float(dd.mean()), lo, hi,
                               int((dd > 0).sum()), int((dd < 0).sum()), int((dd == 0).sum()), p, None,
                               rank_biserial(dd), note])
    for row, adj in zip(table.rows[start:], holm(pvals), strict=True):
        row[11] = adj
