"""Per-model results (after unblinding): scores per dimension with bootstrap intervals over benchmark
items, failure-mode rates by severity, the overall-judgment distribution, and paired comparisons of
models on the items they share.

The resampling unit is the benchmark item: ratings of the same item are not independent (same scenario,
several raters), so items are drawn with replacement and every rating of a drawn item comes along.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from wmcdp_desktop.analysis.common import (
    FloatArray,
    Note,
    ProgressFn,
    Table,
    bootstrap_weights,
    fnum,
    holm,
    no_progress,
    percentile_ci,
    rng_for,
)
from wmcdp_desktop.analysis.loading import Dataset
from wmcdp_desktop.core.models.common import SEVERITIES

MIN_ITEMS_FOR_INTERVAL = 2
FEW_ITEMS = 10


def weighted_median(counts: FloatArray, values: FloatArray) -> FloatArray:
    """Median of each row of value counts (B, V), as numpy's median of the expanded data; NaN if empty."""
    n = counts.sum(axis=1)
    cum = np.cumsum(counts, axis=1)
    k_lo = np.floor((n - 1) / 2)
    k_hi = np.floor(n / 2)
    i_lo = (cum > k_lo[:, None]).argmax(axis=1)
    i_hi = (cum > k_hi[:, None]).argmax(axis=1)
    out: FloatArray = (values[i_lo] + values[i_hi]) / 2
    out[n <= 0] = np.nan
    return out


@dataclass
class ModelResults:
    tables: list[Table]
    notes: list[Note]
    profile: dict[str, list[tuple[float | None, float | None, float | None]]]
    """model -> per dimension (mean, ci low, ci high), for the chart."""
    fm_present: dict[str, list[float | None]]
    """model -> share of ratings tagging each failure mode (any severity), for the heat map."""


def _item_sums(ds: Dataset, rows: np.ndarray, n_items: int) -> tuple[FloatArray, FloatArray]:
    """Per item (I, D): sum of scores and count of scores (N/A left out) over ``rows``."""
    item = ds.item[rows]
    sc = ds.scores[rows]
    ok = ~np.isnan(sc)
    d = sc.shape[1]
    flat_i = np.repeat(item, d) * d + np.tile(np.arange(d), len(item))
    sums = np.bincount(flat_i, weights=np.where(ok, sc, 0).ravel(), minlength=n_items * d).reshape(n_items, d)
    cnts = np.bincount(flat_i, weights=ok.ravel().astype(float), minlength=n_items * d).reshape(n_items, d)
    return sums.astype(np.float64), cnts.astype(np.float64)


def analyse_models(ds: Dataset, seed: int, b: int, progress: ProgressFn = no_progress) -> ModelResults:
    notes: list[Note] = []
    dims = ds.dimensions
    n_dim = len(dims)
    n_items = len(ds.item_ids)
    fm_ids = ds.failure_mode_ids
    scores_t = Table(
        "model_scores", "Scores per model and dimension",
        ["model", "dimension", "label", "items", "ratings", "na", "mean", "mean_ci_low", "mean_ci_high",
         "median", "median_ci_low", "median_ci_high", "note"],
        description="Mean and median of the raters' scores (N/A left out). Intervals: 95% bootstrap over "
        "benchmark items (all ratings of a drawn item come along).")
    fm_t = Table(
        "model_failure_modes", "Failure-mode rates per model",
        ["model", "failure_mode", "label", "ratings", *[f"share_{s}" for s in SEVERITIES], "share_present"],
        description="Share of the model's ratings tagging each failure mode at each severity.")
    levels = ds.scale_values(n_dim - 1)
    overall = dims[-1]
    dist_t = Table(
        "model_overall_distribution", f"{overall.label} ({overall.id}): distribution per model",
        ["model", "ratings", *[f"n_{int(v)}" for v in levels], "n_na", *[f"share_{int(v)}" for v in levels]],
        description="How often each level of the overall judgment was given (shares exclude N/A).")
    pair_t = Table(
        "model_paired", "Paired comparisons between models on shared items",
        ["model_a", "model_b", "dimension", "shared_items", "mean_diff", "diff_ci_low", "diff_ci_high",
         "a_better", "b_better", "ties", "wilcoxon_p", "p_holm", "rank_biserial", "note"],
        description="Per shared item, the mean score of A minus the mean score of B (over raters). "
        "mean_diff > 0 favours A. Interval: 95% bootstrap over items. Wilcoxon signed-rank test (zero "
        "differences dropped) and matched-pairs rank-biserial correlation (+1: A better on every item, "
        "-1: B better on every item). p_holm adjusts for the number of comparisons in this table.")
    profile: dict[str, list[tuple[float | None, float | None, float | None]]] = {}
    fm_present: dict[str, list[float | None]] = {}
    if not ds.model_ids:
        notes.append(Note("models", "No rating carries a model_source: per-model results need unblinded data."))
        return ModelResults([scores_t, fm_t, dist_t, pair_t], notes, profile, fm_present)

    item_means: dict[int, FloatArray] = {}
    for m, name in enumerate(ds.model_ids):
        rows = np.flatnonzero(ds.model == m)
        sums, cnts = _item_sums(ds, rows, n_items)
        item_means[m] = np.where(cnts > 0, sums / np.where(cnts > 0, cnts, 1), np.nan)
        items_m = np.flatnonzero(cnts.sum(axis=1) > 0) if n_dim else np.array([], int)
        items_any = np.unique(ds.item[rows])
        if items_any.size < MIN_ITEMS_FOR_INTERVAL:
            notes.append(Note("models", f"Model {name} was rated on only {items_any.size} item(s): its means are "
                                        "shown without an interval and cannot be compared reliably."))
        elif items_any.size < FEW_ITEMS:
            notes.append(Note("models", f"Model {name} was rated on only {items_any.size} items: its intervals "
                                        "are wide and rough."))
        # Per-item value histograms for medians: (I, D, V) on each dimension's own scale.
        v_max = max(int(d.scale.max - d.scale.min + 1) for d in dims)
        hist = np.zeros((n_items, n_dim, v_max))
        sc = ds.scores[rows]
        for d in range(n_dim):
            ok = ~np.isnan(sc[:, d])
            vi = (sc[ok, d] - dims[d].scale.min).astype(np.int64)
            hist[:, d, :] = np.bincount(ds.item[rows][ok] * v_max + vi, minlength=n_items * v_max).reshape(n_items, v_max)
        sub_s, sub_c, sub_h = sums[items_m], cnts[items_m], hist[items_m]
        reps_mean: list[FloatArray] = []
        reps_med: list[FloatArray] = []
        if items_m.size >= MIN_ITEMS_FOR_INTERVAL and b > 0:
            for w in bootstrap_weights(rng_for(seed, "model", name), items_m.size, b):
                c = w @ sub_c
                with np.errstate(invalid="ignore", divide="ignore"):
                    reps_mean.append((w @ sub_s) / c)
                hw = np.einsum("bi,idv->bdv", w, sub_h)
                reps_med.append(np.stack([
                    weighted_median(hw[:, d, :], np.arange(dims[d].scale.min, dims[d].scale.min + v_max, dtype=float))
                    for d in range(n_dim)], axis=1))
        progress(1)
        rm = np.concatenate(reps_mean) if reps_mean else np.empty((0, n_dim))
        rmed = np.concatenate(reps_med) if reps_med else np.empty((0, n_dim))
        prof: list[tuple[float | None, float | None, float | None]] = []
        for d, dim in enumerate(dims):
            vals = sc[:, d][~np.isnan(sc[:, d])]
            n_na = int(ds.na[rows, d].sum())
            n_items_d = int((cnts[:, d] > 0).sum())
            note = None
            if vals.size == 0:
                mean = med = lo = hi = mlo = mhi = None
                note = "no scores (all N/A)" if n_na else "no ratings"
            else:
                mean, med = float(vals.mean()), float(np.median(vals))
                if n_items_d < MIN_ITEMS_FOR_INTERVAL:
                    lo = hi = mlo = mhi = None
                    note = f"scored on {n_items_d} item: no interval"
                else:
                    lo, hi, why = percentile_ci(rm[:, d])
                    mlo, mhi, _ = percentile_ci(rmed[:, d])
                    note = why if b > 0 else None
            scores_t.rows.append([name, dim.id, dim.label, n_items_d, int(vals.size), n_na, mean, lo, hi, med,
                                  mlo, mhi, note])
            prof.append((mean, lo, hi))
        profile[name] = prof

        sev = ds.severity[rows]
        n_r = len(rows)
        present: list[float | None] = []
        for f, fm in enumerate(ds.rubric.failure_modes):
            shares = np.bincount(sev[:, f], minlength=len(SEVERITIES)) / n_r if n_r else None
            if shares is None:
                fm_t.rows.append([name, fm.id, fm.label, 0, *[None] * len(SEVERITIES), None])
                present.append(None)
            else:
                fm_t.rows.append([name, fm.id, fm.label, n_r, *[float(s) for s in shares], float(shares[1:].sum())])
                present.append(float(shares[1:].sum()))
        fm_present[name] = present

        ov = sc[:, -1]
        ok = ~np.isnan(ov)
        counts = np.bincount((ov[ok] - overall.scale.min).astype(np.int64), minlength=levels.size)
        total = int(counts.sum())
        dist_t.rows.append([name, n_r, *[int(c) for c in counts], int(ds.na[rows, -1].sum()),
                            *[(float(c) / total if total else None) for c in counts]])
    del fm_ids

    _paired(ds, item_means, seed, b, pair_t, notes)
    progress(1)
    return ModelResults([scores_t, fm_t, dist_t, pair_t], notes, profile, fm_present)


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
    ties = np.unique(np.abs(d)).size < d.size
    method = "exact" if d.size <= 50 and not ties else "asymptotic"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = wilcoxon(d, zero_method="wilcox", alternative="two-sided", method=method)
        except ValueError:  # scipy < 1.13 calls the normal approximation "approx"
            if method != "asymptotic":
                raise
            res = wilcoxon(d, zero_method="wilcox", alternative="two-sided", method="approx")
    return fnum(res.pvalue)


def _paired(ds: Dataset, item_means: dict[int, FloatArray], seed: int, b: int, table: Table,
            notes: list[Note]) -> None:
    dims = ds.dimensions
    if len(ds.model_ids) < 2:
        notes.append(Note("models", "Only one model in the data: no paired comparison between models."))
        return
    start = len(table.rows)
    pvals: list[float | None] = []
    for ma, mb in combinations(range(len(ds.model_ids)), 2):
        diff = item_means[ma] - item_means[mb]  # (I, D), NaN where either side has no score
        valid = ~np.isnan(diff)
        shared = np.flatnonzero(valid.any(axis=1))
        name_a, name_b = ds.model_ids[ma], ds.model_ids[mb]
        if shared.size == 0:
            notes.append(Note("models", f"Models {name_a} and {name_b} share no rated item: not compared."))
            continue
        dsub = np.where(valid[shared], diff[shared], 0.0)
        vsub = valid[shared].astype(float)
        reps: list[FloatArray] = []
        if shared.size >= MIN_ITEMS_FOR_INTERVAL and b > 0:
            for w in bootstrap_weights(rng_for(seed, "paired", name_a, name_b), shared.size, b):
                with np.errstate(invalid="ignore", divide="ignore"):
                    reps.append((w @ dsub) / (w @ vsub))
        rep = np.concatenate(reps) if reps else np.empty((0, len(dims)))
        for d, dim in enumerate(dims):
            dd = diff[:, d][valid[:, d]]
            note = None
            if dd.size == 0:
                table.rows.append([name_a, name_b, dim.id, 0, None, None, None, 0, 0, 0, None, None, None,
                                   "no shared scored item"])
                pvals.append(None)
                continue
            lo = hi = None
            if dd.size < MIN_ITEMS_FOR_INTERVAL:
                note = "one shared item: no interval or test"
            else:
                lo, hi, note = percentile_ci(rep[:, d])
                note = note if b > 0 else None
            p = wilcoxon_p(dd) if dd.size >= MIN_ITEMS_FOR_INTERVAL else None
            if p is None and note is None:
                note = "no differences to test"
            pvals.append(p)
            table.rows.append([name_a, name_b, dim.id, int(dd.size), float(dd.mean()), lo, hi,
                               int((dd > 0).sum()), int((dd < 0).sum()), int((dd == 0).sum()), p, None,
                               rank_biserial(dd), note])
    for row, adj in zip(table.rows[start:], holm(pvals), strict=True):
        row[11] = adj
