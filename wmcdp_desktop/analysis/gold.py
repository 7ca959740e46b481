"""Ratings against the adjudicated gold standard (``goldStandard.criterionGold`` of the study's items).

Each rating is turned into a criterion verdict (the mapping is written down in docs/ANALYSIS.md):

- a rubric dimension: above the midpoint of its scale -> ``satisfied``; exactly the midpoint ->
  ``partially_satisfied``; below -> ``not_satisfied``; N/A -> ``not_applicable``
  (on the 1-5 scale: 4-5, 3, 1-2, N/A);
- a failure mode (the criterion "the response avoids this failure"): severity ``none`` -> ``satisfied``,
  ``minor`` -> ``partially_satisfied``, ``moderate``/``major``/``critical`` -> ``not_satisfied``.

A rating agrees with gold when its verdict is one of the criterion's ``acceptableVerdicts``. The mapping
never produces ``cannot_determine``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wmcdp_desktop.analysis.common import IntArray, Note, Table, group_index
from wmcdp_desktop.analysis.loading import Dataset
from wmcdp_desktop.core.models.rubric import Dimension

VERDICTS = ("satisfied", "partially_satisfied", "not_satisfied", "not_applicable", "cannot_determine")
_V = {v: i for i, v in enumerate(VERDICTS)}
FM_VERDICT = np.array([_V["satisfied"], _V["partially_satisfied"], _V["not_satisfied"], _V["not_satisfied"],
                       _V["not_satisfied"]])
"""Severity index (none, minor, moderate, major, critical) -> verdict index."""


def dimension_verdicts(scores: np.ndarray, dim: Dimension) -> IntArray:
    """Verdict index per score (NaN = N/A -> not_applicable)."""
    mid2 = dim.scale.min + dim.scale.max  # compare 2*score with min+max to stay in integers
    s2 = np.nan_to_num(scores, nan=0.0) * 2
    out = np.where(s2 > mid2, _V["satisfied"], np.where(s2 == mid2, _V["partially_satisfied"], _V["not_satisfied"]))
    return np.where(np.isnan(scores), _V["not_applicable"], out).astype(np.int64)


@dataclass
class GoldResults:
    tables: list[Table]
    notes: list[Note]


def analyse_gold(ds: Dataset) -> GoldResults:
    notes: list[Note] = []
    by_crit = Table(
        "gold_by_criterion", "Agreement with gold per criterion",
        ["criterion", "label", "items", "ratings", "agree", "agreement", *[f"rated_{v}" for v in VERDICTS[:4]]],
        description="Share of ratings whose mapped verdict is one of the gold's acceptable verdicts, over "
        "every rated item whose gold names the criterion.")
    by_item = Table(
        "gold_by_item", "Agreement with gold per item and criterion",
        ["item", "split", "criterion", "acceptable_verdicts", "ratings", "agree", "agreement"],
        description="Each row: one gold criterion of one item, and how the ratings of that item matched it.")
    by_rater = Table(
        "gold_by_rater", "Agreement with gold per rater",
        ["rater", "ratings_x_criteria", "agree", "agreement", "calibration_n", "calibration_agree",
         "calibration_agreement"],
        description="Over every (rating, gold criterion) pair of the rater; calibration columns use only "
        "items of the calibration split.")
    tables = [by_crit, by_rater, by_item]
    if not ds.items:
        notes.append(Note("gold", "No benchmark items were read: nothing to compare with gold."))
        return GoldResults(tables, notes)
    dim_index = {d.id: k for k, d in enumerate(ds.dimensions)}
    fm_index = {f.id: k for k, f in enumerate(ds.rubric.failure_modes)}
    labels = {d.id: d.label for d in ds.dimensions} | {f.id: f.label for f in ds.rubric.failure_modes}

    # Verdicts of every rating on every criterion (n, 8 + F): vectorised once.
    verdicts = np.concatenate(
        [np.stack([dimension_verdicts(ds.scores[:, k], d) for k, d in enumerate(ds.dimensions)], axis=1)
         if ds.n else np.zeros((0, len(ds.dimensions)), np.int64),
         FM_VERDICT[ds.severity]], axis=1)
    col = dim_index | {f: len(dim_index) + k for f, k in fm_index.items()}

    n_r = len(ds.rater_ids)
    rater_n = np.zeros(n_r)
    rater_ok = np.zeros(n_r)
    cal_n = np.zeros(n_r)
    cal_ok = np.zeros(n_r)
    crit_stats: dict[str, np.ndarray] = {}
    crit_items: dict[str, int] = {}
    unknown: set[str] = set()
    rows_of_item = group_index(ds.item, len(ds.item_ids))
    for i, item_id in enumerate(ds.item_ids):
        item = ds.items.get(item_id)
        if item is None:
            continue
        rows = rows_of_item[i]
        calibration = item.split == "calibration"
        for g in item.goldStandard.criterionGold:
            c = col.get(g.criterionId)
            if c is None:
                unknown.add(g.criterionId)
                continue
            v = verdicts[rows, c]
            acceptable = np.zeros(len(VERDICTS), bool)
            acceptable[[_V[a] for a in g.acceptableVerdicts]] = True
            ok = acceptable[v]
            st = crit_stats.setdefault(g.criterionId, np.zeros(2 + len(VERDICTS)))
            st[0] += ok.size
            st[1] += ok.sum()
            st[2:] += np.bincount(v, minlength=len(VERDICTS))
            crit_items[g.criterionId] = crit_items.get(g.criterionId, 0) + 1
            rr = ds.rater[rows]
            rater_n += np.bincount(rr, minlength=n_r)
            rater_ok += np.bincount(rr, weights=ok.astype(float), minlength=n_r)
            if calibration:
                cal_n += np.bincount(rr, minlength=n_r)
                cal_ok += np.bincount(rr, weights=ok.astype(float), minlength=n_r)
            by_item.rows.append([item_id, item.split, g.criterionId, " | ".join(g.acceptableVerdicts), int(ok.size),
                                 int(ok.sum()), float(ok.mean()) if ok.size else None])
    if unknown:
        notes.append(Note("gold", f"Gold criteria that name neither a rubric dimension nor a failure mode of this "
                                  f"rubric were skipped: {', '.join(sorted(unknown)[:10])}."))
    order = [d.id for d in ds.dimensions] + [f.id for f in ds.rubric.failure_modes]
    for cid in order:
        if cid not in crit_stats:
            continue
        st = crit_stats[cid]
        by_crit.rows.append([cid, labels[cid], crit_items[cid], int(st[0]), int(st[1]),
                             float(st[1] / st[0]) if st[0] else None, *[int(x) for x in st[2:6]]])
    if not crit_stats:
        notes.append(Note("gold", "No rated item has gold verdicts on this rubric's criteria."))
    if ds.items and not cal_n.any():
        notes.append(Note("gold", "No calibration item was rated: calibration performance is not available."))
    for r, rid in enumerate(ds.rater_ids):
        by_rater.rows.append([rid, int(rater_n[r]), int(rater_ok[r]),
                              float(rater_ok[r] / rater_n[r]) if rater_n[r] else None, int(cal_n[r]),
                              int(cal_ok[r]), float(cal_ok[r] / cal_n[r]) if cal_n[r] else None])
    return GoldResults(tables, notes)
