"""Ratings against the adjudicated gold standard (``goldStandard.criterionGold`` of the study's items).

Each rating is turned into a criterion verdict (the mapping is written down in docs/ANALYSIS.md):

- a rubric dimension, by :mod:`wmcdp_desktop.core.verdicts` (the mapping the calibration feedback uses):
  by the score's position p = (score - min) / (max - min): p > 60% -> ``satisfied``; 40% <= p <= 60% ->
  ``partially_satisfied``; p < 40% -> ``not_satisfied`` (1-5: 4-5, 3, 1-2; on 1-4, whose middle band is
  empty, 4 | 2-3 | 1); N/A -> ``not_applicable``;
- a failure mode (the criterion "the response avoids this failure"): severity ``none`` -> ``satisfied``,
  ``minor`` -> ``partially_satisfied``, ``moderate``/``major``/``critical`` -> ``not_satisfied``.

A rating agrees with gold when its verdict is one of the criterion's ``acceptableVerdicts``. The mapping
never produces ``cannot_determine``. When an item names the response its gold describes
(``metadata.goldResponseId``), only ratings of that response are compared (``Dataset.gold_target``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wmcdp_desktop.coordinator.report.common import BoolArray, FloatArray, IntArray, Note, Table
from wmcdp_desktop.coordinator.report.dataset import Dataset
from wmcdp_desktop.core.counts import agree, count
from wmcdp_desktop.core.models.benchmark_item import NO_GOLD_STATUS, has_no_gold_yet
from wmcdp_desktop.core.models.rubric import Dimension
from wmcdp_desktop.core.verdicts import scale_bands

VERDICTS = ("satisfied", "partially_satisfied", "not_satisfied", "not_applicable", "cannot_determine")
_V = {v: i for i, v in enumerate(VERDICTS)}
FM_VERDICT = np.array([_V["satisfied"], _V["partially_satisfied"], _V["not_satisfied"], _V["not_satisfied"],
                       _V["not_satisfied"]])
"""Severity index (none, minor, moderate, major, critical) -> verdict index."""


def dimension_verdicts(scores: np.ndarray, dim: Dimension) -> IntArray:
    """Verdict index per score (NaN = N/A -> not_applicable), by the one mapping of
    :mod:`wmcdp_desktop.core.verdicts` (the calibration feedback's too)."""
    lo = dim.scale.min
    table = np.full(dim.scale.max - lo + 1, _V["not_applicable"], np.int64)
    for verdict, levels in scale_bands(dim.scale).items():
        for level in levels:
            table[level - lo] = _V[verdict]
    ix = np.clip(np.nan_to_num(scores, nan=lo) - lo, 0, table.size - 1).astype(np.int64)
    return np.where(np.isnan(scores), _V["not_applicable"], table[ix]).astype(np.int64)


@dataclass
class GoldResults:
    tables: list[Table]
    notes: list[Note]


def _gold_tables() -> tuple[Table, Table, Table]:
    """The gold tables, empty: per criterion, per item and criterion, per rater."""
    by_crit = Table(
        "gold_by_criterion", "Agreement with gold per criterion",
        ["criterion", "label", "items", "ratings", "agree", "agreement", "item_weighted_agreement",
         *[f"rated_{v}" for v in VERDICTS[:4]]],
        description="Share of ratings whose mapped verdict is one of the gold's acceptable verdicts, over "
        "every rated item whose gold names the criterion; item_weighted_agreement weighs each rating by its "
        "item's weight in the study.")
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
    return by_crit, by_item, by_rater


@dataclass
class _GoldEntries:
    """One entry per (rated item, gold criterion) of this rubric."""

    item: IntArray
    col: IntArray
    """The criterion's column in the verdict matrix (dimensions, then failure modes)."""
    acceptable: BoolArray
    """(entries, verdicts): whether each verdict is acceptable."""
    calibration: BoolArray
    info: list[tuple[str, str, str, str]]
    """(item id, split, criterion id, acceptable verdicts) for the per-item table."""
    unknown: set[str]
    """Criteria named by the gold that are not in this rubric."""


def _gold_entries(ds: Dataset, col: dict[str, int]) -> _GoldEntries:
    """A plain loop over the gold, not over ratings."""
    e_item: list[int] = []
    e_col: list[int] = []
    e_acc: list[list[bool]] = []
    info: list[tuple[str, str, str, str]] = []
    unknown: set[str] = set()
    for i, item_id in enumerate(ds.item_ids):
        item = ds.items.get(item_id)
        if item is None:
            continue
        for g in item.goldStandard.criterionGold:
            c = col.get(g.criterionId)
            if c is None:
                unknown.add(g.criterionId)
                continue
            e_item.append(i)
            e_col.append(c)
            e_acc.append([v in g.acceptableVerdicts for v in VERDICTS])
            info.append((item_id, item.split, g.criterionId, " | ".join(g.acceptableVerdicts)))
    return _GoldEntries(
        np.array(e_item, np.int64), np.array(e_col, np.int64),
        np.array(e_acc, bool).reshape(len(e_item), len(VERDICTS)),
        np.array([x[1] == "calibration" for x in info], bool), info, unknown,
    )


def _rating_entry_pairs(ds: Dataset, entries: _GoldEntries) -> tuple[IntArray, IntArray]:
    """Every (rating, gold entry) pair: each rating meets every gold entry of its item (ratings of another
    response than the gold's, ``gold_target`` False, meet none)."""
    order = np.argsort(entries.item, kind="stable")
    per_item = np.bincount(entries.item, minlength=len(ds.item_ids))
    first = np.concatenate([[0], np.cumsum(per_item)[:-1]])
    reps = np.where(ds.gold_target if ds.gold_target is not None else True, per_item[ds.item], 0)
    pair_rating = np.repeat(np.arange(ds.n), reps)
    offset = np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps)
    return pair_rating, order[np.repeat(first[ds.item], reps) + offset]


def analyse_gold(ds: Dataset) -> GoldResults:
    notes: list[Note] = []
    by_crit, by_item, by_rater = _gold_tables()
    tables = [by_crit, by_rater, by_item]
    if not ds.items:
        notes.append(Note("gold", "No benchmark items were read: nothing to compare with gold."))
        return GoldResults(tables, notes)
    no_gold = sorted(i for i, item in ds.items.items() if has_no_gold_yet(item))
    if len(no_gold) == len(ds.items):
        notes.append(Note("gold", "Gold agreement skipped: no item has gold yet (every item's criterionGold is empty, "
                                  f"ambiguityStatus {NO_GOLD_STATUS!r})."))
        return GoldResults(tables, notes)
    if no_gold:
        notes.append(Note("gold", f"{count(len(no_gold), 'item')} {agree(len(no_gold), 'has', 'have')} no gold yet and "
                                  f"{agree(len(no_gold), 'is', 'are')} left out of the gold agreement: "
                                  f"{', '.join(no_gold[:10])}{' …' if len(no_gold) > 10 else ''}."))
    labels = {d.id: d.label for d in ds.dimensions} | {f.id: f.label for f in ds.rubric.failure_modes}

    # Verdicts of every rating on every criterion (n, 8 + F): vectorised once.
    verdicts = np.concatenate(
        [np.stack([dimension_verdicts(ds.scores[:, k], d) for k, d in enumerate(ds.dimensions)], axis=1)
         if ds.n else np.zeros((0, len(ds.dimensions)), np.int64),
         FM_VERDICT[ds.severity]], axis=1)
    col = {d.id: k for k, d in enumerate(ds.dimensions)}
    col |= {f.id: len(ds.dimensions) + k for k, f in enumerate(ds.rubric.failure_modes)}
    entries = _gold_entries(ds, col)
    n_e, n_crit = len(entries.info), verdicts.shape[1]
    pair_rating, pair_entry = _rating_entry_pairs(ds, entries)
    v = verdicts[pair_rating, entries.col[pair_entry]]
    ok = entries.acceptable[pair_entry, v].astype(float)

    e_n = np.bincount(pair_entry, minlength=n_e)
    e_ok = np.bincount(pair_entry, weights=ok, minlength=n_e)
    for info, n_k, ok_k in zip(entries.info, e_n.tolist(), e_ok.tolist(), strict=True):  # Python numbers: one
        by_item.rows.append([*info, n_k, int(ok_k), ok_k / n_k if n_k else None])  # row per item and criterion
    if entries.unknown:
        notes.append(Note("gold", f"Gold criteria that name neither a rubric dimension nor a failure mode of this "
                                  f"rubric were skipped: {', '.join(sorted(entries.unknown)[:10])}."))

    pair_col = entries.col[pair_entry]
    c_n = np.bincount(pair_col, minlength=n_crit)
    c_ok = np.bincount(pair_col, weights=ok, minlength=n_crit)
    pair_w = ds.item_weight()[ds.item[pair_rating]]
    c_wn = np.bincount(pair_col, weights=pair_w, minlength=n_crit)
    c_wok = np.bincount(pair_col, weights=ok * pair_w, minlength=n_crit)
    c_items = np.bincount(entries.col[np.flatnonzero(e_n > 0)], minlength=n_crit)
    c_verdicts = np.bincount(pair_col * len(VERDICTS) + v,
                             minlength=n_crit * len(VERDICTS)).reshape(n_crit, len(VERDICTS))
    for cid, c in col.items():
        if c_items[c] == 0:
            continue
        by_crit.rows.append([cid, labels[cid], int(c_items[c]), int(c_n[c]), int(c_ok[c]),
                             float(c_ok[c] / c_n[c]) if c_n[c] else None,
                             float(c_wok[c] / c_wn[c]) if c_wn[c] else None, *[int(x) for x in c_verdicts[c, :4]]])
    if n_e == 0:
        notes.append(Note("gold", "No rated item has gold verdicts on this rubric's criteria."))
    else:
        unmatched = sorted({entries.info[k][0] for k in np.flatnonzero(e_n == 0)})
        if unmatched:
            notes.append(Note("gold", f"{count(len(unmatched), 'rated item')} {agree(len(unmatched), 'has', 'have')} gold for one response only "
                                      "(metadata.goldResponseId) and no rating of that response, so they are not "
                                      f"compared: {', '.join(unmatched[:10])}."))
    notes.extend(_gold_by_rater(ds, ok, ds.rater[pair_rating], entries.calibration[pair_entry], by_rater))
    return GoldResults(tables, notes)


def _gold_by_rater(ds: Dataset, ok: FloatArray, rater: IntArray, calibration: BoolArray, table: Table) -> list[Note]:
    """Each rater's agreement with gold over every (rating, criterion) pair, and over calibration items."""
    n_r = len(ds.rater_ids)
    cal = calibration.astype(float)
    rater_n = np.bincount(rater, minlength=n_r).astype(float)
    rater_ok = np.bincount(rater, weights=ok, minlength=n_r)
    cal_n = np.bincount(rater, weights=cal, minlength=n_r)
    cal_ok = np.bincount(rater, weights=ok * cal, minlength=n_r)
    for r, rid in enumerate(ds.rater_ids):
        table.rows.append([rid, int(rater_n[r]), int(rater_ok[r]),
                           float(rater_ok[r] / rater_n[r]) if rater_n[r] else None, int(cal_n[r]),
                           int(cal_ok[r]), float(cal_ok[r] / cal_n[r]) if cal_n[r] else None])
    if not cal_n.any():
        return [Note("gold", "No calibration item was rated: calibration performance is not available.")]
    return []
