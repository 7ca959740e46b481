"""Rater behaviour: time on task, straight-lining, confidence against agreement, drift from the others.

"Deviation" of a rating on a dimension = the rater's score minus the mean score of the *other* raters of
the same task (N/A left out; only tasks where at least one other rater gave a number). A rating's
deviation is the mean over its dimensions. Computed with per-(task, dimension) sums, no per-rating loop.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from wmcdp_desktop.coordinator.report.common import FloatArray, IntArray, Note, Table, fnum, group_index
from wmcdp_desktop.coordinator.report.dataset import Dataset

STRAIGHT_MIN_SCORED = 6
"""A rating counts as straight-lined when at least this many dimensions got a number and all are equal."""
STRAIGHT_FLAG_SHARE = 0.5
STRAIGHT_FLAG_MIN = 5
DRIFT_FLAG = 0.5
"""A rater whose mean signed deviation from the others (score points) is at least this large is flagged."""


def deviations(ds: Dataset) -> tuple[FloatArray, FloatArray]:
    """(n, D) signed deviation from the other raters' mean (NaN where undefined), and (n,) row means."""
    nt = len(ds.task_ids)
    dev = np.full(ds.scores.shape, np.nan)
    for d in range(ds.scores.shape[1]):
        col = ds.scores[:, d]
        ok = ~np.isnan(col)
        s = np.bincount(ds.task, weights=np.where(ok, col, 0.0), minlength=nt)
        c = np.bincount(ds.task, weights=ok.astype(float), minlength=nt)
        others = c[ds.task] - 1
        good = ok & (others > 0)
        dev[good, d] = col[good] - (s[ds.task][good] - col[good]) / others[good]
    has = ~np.isnan(dev)
    cnt = has.sum(axis=1)
    row = np.full(ds.n, np.nan)
    row[cnt > 0] = np.where(has, dev, 0).sum(axis=1)[cnt > 0] / cnt[cnt > 0]
    return dev, row


@dataclass
class BehaviourResults:
    tables: list[Table]
    notes: list[Note]
    times: dict[str, FloatArray]
    """rater -> active seconds per rating (for the chart)."""


def _behaviour_tables() -> tuple[Table, Table, Table, Table]:
    """The rater-behaviour tables, empty: time, straight-lining, drift, confidence against deviation."""
    time_t = Table(
        "rater_time", "Time on task per rater (active seconds)",
        ["rater", "ratings", "timed", "median_s", "q1_s", "q3_s", "iqr_s", "min_s", "max_s"],
        description="Active time recorded by the app (idle and hidden-window time excluded).")
    straight_t = Table(
        "rater_straightlining", "Straight-lining per rater",
        ["rater", "ratings", "straight_lined", "share", "flag"],
        description=f"A rating is straight-lined when at least {STRAIGHT_MIN_SCORED} dimensions got a number "
        f"and they are all the same. Flagged: share >= {STRAIGHT_FLAG_SHARE:.0%} over at least "
        f"{STRAIGHT_FLAG_MIN} ratings.")
    drift_t = Table(
        "rater_drift", "Deviation of each rater from the others",
        ["rater", "ratings_compared", "mean_signed_dev", "mean_abs_dev", "first_half_dev", "second_half_dev",
         "change", "flag"],
        description="Signed deviation > 0: the rater scores higher than the others on the same tasks. Halves "
        f"split the rater's ratings by submission time (a change shows drift during the study). Flagged: "
        f"|mean signed deviation| >= {DRIFT_FLAG} or |change| >= {DRIFT_FLAG} score points.")
    conf_t = Table(
        "confidence_vs_deviation", "Confidence against agreement",
        ["confidence", "ratings", "mean_abs_dev"],
        description="Mean absolute deviation from the other raters by stated confidence. Well-calibrated "
        "raters deviate less when they are more confident.")
    return time_t, straight_t, drift_t, conf_t


def analyse_behaviour(ds: Dataset) -> BehaviourResults:
    notes: list[Note] = []
    time_t, straight_t, drift_t, conf_t = _behaviour_tables()
    times: dict[str, FloatArray] = {}
    scored = ~np.isnan(ds.scores)
    n_scored = scored.sum(axis=1)
    lo = np.where(scored, ds.scores, np.inf).min(axis=1) if ds.n else np.empty(0)
    hi = np.where(scored, ds.scores, -np.inf).max(axis=1) if ds.n else np.empty(0)
    straight = (n_scored >= STRAIGHT_MIN_SCORED) & (lo == hi)
    dev, row_dev = deviations(ds)

    for r, rows in enumerate(group_index(ds.rater, len(ds.rater_ids))):
        rid = ds.rater_ids[r]
        t = ds.seconds[rows]
        times[rid] = t = t[~np.isnan(t)]
        if t.size:
            q1, med, q3 = np.percentile(t, [25, 50, 75])
            time_t.rows.append([rid, rows.size, t.size, float(med), float(q1), float(q3), float(q3 - q1),
                                float(t.min()), float(t.max())])
        else:
            time_t.rows.append([rid, rows.size, 0, None, None, None, None, None, None])
        k = int(straight[rows].sum())
        share = k / rows.size if rows.size else None
        flag = bool(share is not None and share >= STRAIGHT_FLAG_SHARE and rows.size >= STRAIGHT_FLAG_MIN)
        straight_t.rows.append([rid, rows.size, k, share, "review" if flag else ""])
        if flag:
            notes.append(Note("behaviour", f"Rater {rid} gave the same score on every dimension in {k} of "
                                           f"{rows.size} ratings (straight-lining)."))
        notes.extend(_drift(ds, rid, rows, dev, row_dev, drift_t))

    notes.extend(_confidence_against_deviation(ds, dev, conf_t))
    if not any(v.size for v in times.values()):
        notes.append(Note("behaviour", "No rating has a recorded time: time on task is not available."))
    return BehaviourResults([time_t, straight_t, drift_t, conf_t], notes, times)


def _drift(ds: Dataset, rid: str, rows: IntArray, dev: FloatArray, row_dev: FloatArray, table: Table) -> list[Note]:
    """The rater's deviation from the others, overall and between the halves of their ratings in submission
    order; a note when it is large enough to review."""
    rd = row_dev[rows]
    has = ~np.isnan(rd)
    if not has.any():
        table.rows.append([rid, 0, None, None, None, None, None, ""])
        return []
    ordered = rows[has][np.argsort(ds.submitted[rows[has]], kind="stable")]
    vals = row_dev[ordered]
    half = vals.size // 2
    first = fnum(vals[:half].mean()) if half else None
    second = fnum(vals[half:].mean()) if half else None
    change = second - first if first is not None and second is not None else None
    mean_signed = float(vals.mean())
    flag = abs(mean_signed) >= DRIFT_FLAG or (change is not None and abs(change) >= DRIFT_FLAG)
    absdev = np.abs(dev[rows][~np.isnan(dev[rows])])
    table.rows.append([rid, int(vals.size), mean_signed, float(absdev.mean()), first, second, change,
                       "review" if flag else ""])
    if not flag:
        return []
    between = f" (change {change:+.2f} between halves)" if change is not None else ""
    return [Note("behaviour", f"Rater {rid} deviates from the other raters by {mean_signed:+.2f} points on "
                              f"average{between}.")]


def _confidence_against_deviation(ds: Dataset, dev: FloatArray, table: Table) -> list[Note]:
    """Mean absolute deviation from the other raters per stated confidence, and their Spearman correlation."""
    from scipy.stats import spearmanr

    absrow = np.where(np.isnan(dev), np.nan, np.abs(dev))
    cnt = (~np.isnan(absrow)).sum(axis=1)
    mad = np.full(ds.n, np.nan)
    mad[cnt > 0] = np.nansum(absrow[cnt > 0], axis=1) / cnt[cnt > 0]
    usable = ~np.isnan(mad) & ~np.isnan(ds.confidence)
    if not usable.any():
        return [Note("behaviour", "Confidence against agreement needs confidence ratings and tasks seen "
                                  "by two or more raters; none are available.")]
    conf = ds.confidence[usable].astype(np.int64)
    lvl = conf - conf.min()
    sums = np.bincount(lvl, weights=mad[usable])
    cnts = np.bincount(lvl)
    for level in np.flatnonzero(cnts):
        table.rows.append([int(level + conf.min()), int(cnts[level]), float(sums[level] / cnts[level])])
    rho = None
    varied = mad[usable]
    if (conf != conf[0]).any() and (varied != varied[0]).any():  # two values or more (no sort of a million)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rho = fnum(spearmanr(ds.confidence[usable], mad[usable]).statistic)
    table.description += (f" Spearman correlation of confidence with absolute deviation: {rho:+.3f} "
                          f"(negative = confident raters agree more)." if rho is not None else
                          " The correlation is not defined (no variation).")
    return []
