"""Agreement between raters: Krippendorff's alpha (with 95% intervals over items and raters), pairwise
quadratic-weighted Cohen's kappa, N/A reporting, failure-mode agreement and prevalence.

The unit of agreement is the task (``envelope.task_id``): the same candidate response seen by several
raters. N/A is not a value on the scale: it is left out of alpha and kappa (a task where only one rater
gave a number has nothing to pair) and reported on its own, per dimension and per rater.

Every alpha, point estimate or left-out replicate of an interval (two-way jackknife, see
:mod:`wmcdp_desktop.coordinator.report.intervals`: an alpha per left-out item, per left-out rater and per left-out
rater of each shuffled copy), is Krippendorff's formula written on coincidence matrices
(:func:`alpha_from_coincidences`); the tests check it against the ``krippendorff`` package and the published
example. (The package builds a units x values x values array for each call: at a million ratings its 16
calls for the dimensions took 3 s, the matrix product 0.6 s, with the same digits on the benchmark's data.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from wmcdp_desktop.coordinator.report.coefficients import (
    PairKappas,
    fleiss_kappa,
    gwet_ac2,
    icc_two_way,
    pairwise_kappas,
    quadratic_weights,
)
from wmcdp_desktop.coordinator.report.common import (
    BoolArray,
    FloatArray,
    IntArray,
    Note,
    ProgressFn,
    Table,
    fnum,
    no_progress,
)
from wmcdp_desktop.coordinator.report.dataset import Dataset
from wmcdp_desktop.coordinator.report.intervals import scope_text, shuffles, sum_rows, two_way_interval
from wmcdp_desktop.core.models.common import SEVERITIES

Level = Literal["nominal", "ordinal", "interval"]


# ----------------------------------------------------------------------------------------- alpha core

def value_counts(unit: IntArray, value_index: IntArray, n_units: int, n_values: int) -> IntArray:
    """(units, values) count matrix: how many raters gave each value to each unit."""
    flat = unit.astype(np.int64) * n_values + value_index.astype(np.int64)
    return np.bincount(flat, minlength=n_units * n_values).reshape(n_units, n_values)


def pairable_units(vc: IntArray) -> IntArray:
    """Only units with two or more values contribute to alpha."""
    out: IntArray = vc[vc.sum(axis=1) >= 2]
    return out


def unit_coincidences(vc: IntArray) -> FloatArray:
    """Per-unit coincidence matrices, flattened: (units, V*V). Their sum is Krippendorff's o matrix."""
    v = vc.shape[1]
    m = vc.sum(axis=1).astype(np.float64)
    o = vc[:, :, None].astype(np.float64) * vc[:, None, :]
    o[:, np.arange(v), np.arange(v)] -= vc
    o /= np.maximum(m - 1, 1)[:, None, None]
    return o.reshape(len(vc), v * v)


def coincidences(vc: IntArray) -> FloatArray:
    """Krippendorff's coincidence matrix (V, V) of pairable units as one matrix product."""
    w = 1.0 / np.maximum(vc.sum(axis=1) - 1, 1)
    weighted = vc * w[:, None]
    out: FloatArray = weighted.T @ vc - np.diag(weighted.sum(axis=0))
    return out


def _distances(values: FloatArray, n_v: FloatArray, level: Level) -> FloatArray:
    """Distance matrices (B, V, V) for each row of n_v (B, V), as the krippendorff package defines them."""
    b, v = n_v.shape
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(v), (b, v, v))
    if level == "interval":
        diff = values[:, None] - values[None, :]
        return np.broadcast_to(diff**2, (b, v, v))
    cum = np.concatenate([np.zeros((b, 1)), np.cumsum(n_v, axis=1)], axis=1)
    i = np.arange(v)
    lo = np.minimum(i[:, None], i[None, :])
    hi = np.maximum(i[:, None], i[None, :])
    between = cum[:, hi + 1] - cum[:, lo]
    out: FloatArray = (between - (n_v[:, :, None] + n_v[:, None, :]) / 2) ** 2
    return out


def alpha_from_coincidences(o: FloatArray, values: FloatArray, level: Level) -> FloatArray:
    """Alpha for each row of ``o`` (B, V*V); NaN where undefined (no variation)."""
    v = values.size
    o3 = o.reshape(-1, v, v)
    n_v = o3.sum(axis=1)
    n = n_v.sum(axis=1)
    e = (n_v[:, :, None] * n_v[:, None, :] - n_v[:, :, None] * np.eye(v)) / np.maximum(n - 1, 1)[:, None, None]
    d = _distances(values, n_v, level)
    num = (o3 * d).sum(axis=(1, 2))
    den = (e * d).sum(axis=(1, 2))
    out = np.full(len(o3), np.nan)
    ok = (den > 1e-12) & (n > 1)
    out[ok] = 1.0 - num[ok] / den[ok]
    return out


def alpha_point(vc: IntArray, values: FloatArray, level: Level) -> tuple[float | None, str | None]:
    """Krippendorff's alpha of the (units, values) counts ``vc``, or ``(None, reason)`` when it is undefined."""
    return _alpha_point(pairable_units(vc), values, level)


def _alpha_point(vc: IntArray, values: FloatArray, level: Level) -> tuple[float | None, str | None]:
    """:func:`alpha_point` on units already reduced to the pairable ones."""
    if len(vc) == 0:
        return None, "no task has two or more scores to compare"
    if int((vc.sum(axis=0) > 0).sum()) < 2:
        return None, "every paired score is the same value, so alpha is undefined (no variation to agree on)"
    return fnum(alpha_from_coincidences(coincidences(vc).reshape(1, -1), values, level)[0]), None


@dataclass
class AlphaResult:
    alpha: float | None
    lo: float | None
    hi: float | None
    note: str | None


@dataclass
class _Job:
    task: IntArray
    """Task of each value (ratings with a value only)."""
    cell: IntArray
    """(item, rater) cell of each value (:class:`~wmcdp_desktop.coordinator.report.intervals.Shuffles`)."""
    index: IntArray
    """Value index of each value on ``values``."""
    vc: IntArray
    values: FloatArray
    results: dict[Level, AlphaResult]


class AlphaIntervals:
    """Collects alphas, then gives each a 95% interval over items and raters (two-way jackknife).

    For one statistic: ``o_t`` = per-task coincidence matrices; leaving an item out subtracts its tasks'
    matrices; leaving a rater out adds, for each of the rater's values, the change of its task's matrix
    when that value goes (``delta``), summed per (item, rater) cell; a shuffled copy sums the same cells
    by their shuffled labels. Every alpha is then one call of :func:`alpha_from_coincidences` on stacked
    matrices.
    """

    def __init__(self, ds: Dataset, b: int, seed: int, progress: ProgressFn = no_progress, *,
                 fixed_raters: bool = False) -> None:
        self.b = b
        self.fixed_raters = fixed_raters
        self.progress = progress
        self.n_items = len(ds.item_ids)
        self.shuffles = shuffles(ds.item, ds.rater, len(ds.rater_ids), seed, 0 if fixed_raters else b)
        self.jobs: list[_Job] = []

    def add(self, task: IntArray, index: IntArray, rows: IntArray, vc: IntArray, values: FloatArray,
            levels: tuple[Level, ...]) -> dict[Level, AlphaResult]:
        """Point estimates now (one value per rating: its ``task``, value ``index`` and the rating's
        position ``rows`` in the dataset; ``vc`` their :func:`value_counts` over every task); intervals are
        filled by :meth:`run`."""
        pairable = pairable_units(vc)
        results: dict[Level, AlphaResult] = {}
        for lv in levels:
            a, why = _alpha_point(pairable, values, lv)
            results[lv] = AlphaResult(a, None, None, why)
        if self.b > 0 and any(r.alpha is not None for r in results.values()):
            self.jobs.append(_Job(task, self.shuffles.row_cell[rows], index, vc, values, results))
        else:
            self.progress(1)
        return results

    def run(self) -> None:
        for job in self.jobs:
            self._run_job(job)
            self.progress(1)

    def coincidences(self, job: _Job) -> tuple[FloatArray, FloatArray, FloatArray, BoolArray]:
        """Coincidence matrices (rows of V*V) of the statistic with each item left out (items with a
        pairable task, in item order), with each rater left out (raters with a value in a pairable task,
        in rater order), and with each label left out of each shuffled copy ((copies * raters) rows, and
        which labels have data: (copies, raters))."""
        sh = self.shuffles
        v = job.values.size
        vc = job.vc
        o_t = unit_coincidences(vc)  # (tasks, V*V)
        total = o_t.sum(axis=0)
        m = vc.sum(axis=1)
        item_of_task = np.zeros(len(vc), np.int64)
        item_of_task[job.task] = sh.cell_item[job.cell]
        item_o = sum_rows(item_of_task, o_t, self.n_items)
        pair_items = np.bincount(item_of_task, weights=(m >= 2).astype(float), minlength=self.n_items) > 0
        o_items = total[None, :] - item_o[pair_items]
        if self.fixed_raters:  # the items alone
            return o_items, np.empty((0, v * v)), np.empty((0, v * v)), np.zeros((0, sh.n_raters), bool)
        # The change of each value's task matrix when that value goes.
        vrow = vc[job.task].astype(np.float64)  # (values, V)
        vrow[np.arange(len(job.task)), job.index] -= 1
        m_rest = vrow.sum(axis=1)
        o_rest = vrow[:, :, None] * vrow[:, None, :]
        o_rest[:, np.arange(v), np.arange(v)] -= vrow
        o_rest /= np.maximum(m_rest - 1, 1)[:, None, None]
        delta = o_rest.reshape(len(job.task), v * v) - o_t[job.task]
        n_cells = sh.cell_item.size
        g = sum_rows(job.cell, delta, n_cells)
        has = np.bincount(job.cell, weights=(m[job.task] >= 2).astype(float), minlength=n_cells).astype(np.float64)
        in_rater = sh.by_rater(has) > 0
        o_raters = total[None, :] + sh.by_rater(g)[in_rater]
        o_null = np.empty((0, v * v))
        null_has = np.zeros((0, sh.n_raters), bool)
        if sh.copies:
            o_null = (total[None, None, :] + sh.by_label(g)).reshape(-1, v * v)
            null_has = sh.by_label(has) > 0
        return o_items, o_raters, o_null, null_has

    def _run_job(self, job: _Job) -> None:
        o_items, o_raters, o_null, null_has = self.coincidences(job)
        copies = null_has.shape[0]
        for lv, res in job.results.items():
            if res.alpha is None:
                continue
            by_item = alpha_from_coincidences(o_items, job.values, lv)
            by_rater = alpha_from_coincidences(o_raters, job.values, lv)
            null = None
            if o_null.size:
                null = alpha_from_coincidences(o_null, job.values, lv).reshape(copies, self.shuffles.n_raters)
                null = np.where(null_has, null, np.nan)
            res.lo, res.hi, res.note = two_way_interval(res.alpha, by_item, by_rater, null,
                                                        fixed_raters=self.fixed_raters, bias_correct=True,
                                                        upper=1.0)


# ----------------------------------------------------------------------------------------- kappa

def quadratic_kappa(a: IntArray, b: IntArray, k: int) -> float | None:
    """Quadratic-weighted Cohen's kappa of two raters' category indices (0..k-1) on the same tasks."""
    n = a.size
    if n < 2 or k < 2:
        return None
    obs = np.bincount(a * k + b, minlength=k * k).reshape(k, k) / n
    exp = np.outer(obs.sum(axis=1), obs.sum(axis=0))
    i = np.arange(k)
    w = (i[:, None] - i[None, :]) ** 2 / (k - 1) ** 2
    den = float((w * exp).sum())
    if den <= 1e-12:
        return None
    return 1.0 - float((w * obs).sum()) / den


# ----------------------------------------------------------------------------------------- section

@dataclass
class AgreementResults:
    tables: list[Table]
    notes: list[Note]
    alpha_rows: list[dict[str, object]]
    """Per dimension: id, label, ordinal/interval alpha and CI (for the chart)."""


def _dim_value_index(ds: Dataset, d: int) -> tuple[IntArray, FloatArray]:
    """Per-rating value index on the dimension's scale (-1 for N/A) and the scale values."""
    values = ds.scale_values(d)
    col = ds.scores[:, d]
    idx = np.where(np.isnan(col), -1, np.nan_to_num(col, nan=values[0]) - values[0]).astype(np.int64)
    return idx, values


@dataclass
class _AgreementTables:
    """The agreement tables of the report, filled dimension by dimension."""

    alpha: Table
    icc: Table
    gwet: Table
    na: Table
    na_rater: Table
    kappa_rater: Table
    kappa_pairs: Table

    @classmethod
    def empty(cls, ds: Dataset, fixed_raters: bool) -> _AgreementTables:
        dims = [d.id for d in ds.dimensions]
        return cls(
            alpha=Table(
                "agreement_alpha", "Krippendorff's alpha per dimension",
                ["dimension", "label", "tasks", "ratings", "na_ratings", "pairable_tasks", "pairable_values",
                 "alpha_ordinal", "ordinal_ci_low", "ordinal_ci_high", "alpha_interval", "interval_ci_low",
                 "interval_ci_high", "note"],
                description="Unit = task (one candidate response seen by several raters). N/A answers are left "
                "out; a task counts as pairable when at least two raters gave it a number. 95% intervals "
                f"{scope_text(fixed_raters)}: two-way jackknife over benchmark items (all tasks of an item "
                "together) and raters, centred on alpha corrected for its small-sample bias, so an interval can "
                "sit a little above the estimate (docs/ANALYSIS.md). Alpha 1 = perfect agreement, 0 = no better "
                "than chance, below 0 = systematic disagreement; 0.667 and 0.8 are the usual thresholds for "
                "tentative and firm conclusions."),
            icc=Table(
                "agreement_icc", "Intraclass correlation per dimension: ICC(2,1) and ICC(2,k)",
                ["dimension", "label", "tasks", "raters", "design", "icc_2_1", "icc_2_1_ci_low", "icc_2_1_ci_high",
                 "k", "icc_2_k", "icc_2_k_ci_low", "icc_2_k_ci_high", "note"],
                description="Two-way random effects, absolute agreement (Shrout & Fleiss 1979): ICC(2,1) is the "
                "reliability of one rater's score, ICC(2,k) of the mean of k raters. Scores are treated as "
                "interval data; N/A is left out. 95% intervals by McGraw & Wong (1996), as pingouin computes "
                "them; on an incomplete design (each task seen by a few of the raters) the mean squares come from "
                "Henderson's method III and k is the effective number of raters per task (docs/ANALYSIS.md)."),
            gwet=Table(
                "agreement_gwet", "Gwet's AC2 per dimension (quadratic weights)",
                ["dimension", "label", "tasks", "pairable_tasks", "ac2", "observed_agreement", "chance_agreement",
                 "note"],
                description="Gwet's agreement coefficient with quadratic weights over the dimension's scale "
                "(Gwet 2014): unlike kappa and alpha it does not collapse when almost every score is the same "
                "(skewed prevalence). N/A is left out; tasks with one score count only in the chance term."),
            na=Table(
                "na_by_dimension", "N/A answers per dimension",
                ["dimension", "label", "ratings", "na", "na_rate", "tasks_split_na_vs_score"],
                description="How often raters answered N/A, and on how many tasks some raters answered N/A while "
                "others gave a number (a disagreement alpha cannot see, since N/A is not on the scale)."),
            na_rater=Table("na_by_rater", "N/A rate per rater and dimension", ["rater", *dims],
                           description="Share of the rater's ratings answered N/A, per dimension.", percent=True),
            kappa_rater=Table(
                "kappa_by_rater", "Mean pairwise kappa of each rater with the others", ["rater", *dims, "note"],
                description="Average of the rater's pairwise kappas (pairs with a defined kappa). A rater far "
                "below the others reads the scale differently. An empty cell: no pair with a defined kappa (the "
                "note says why)."),
            kappa_pairs=Table(
                "kappa_pairs", "Pairwise quadratic-weighted Cohen's kappa",
                ["dimension", "rater_a", "rater_b", "shared_tasks", "kappa", "note"],
                description="For each pair of raters, the tasks both scored (N/A left out). The weights are "
                "quadratic distances between scores (not item weights). When kappa cannot be computed the note "
                "says why: fewer than 2 shared tasks, or both raters gave one and the same score throughout."),
        )


class _KappaTally:
    """Every pair's kappa per dimension, gathered per rater for the kappa-by-rater table."""

    def __init__(self, ds: Dataset, table: Table) -> None:
        self.ds, self.table = ds, table
        self.kappas: dict[tuple[int, int], list[float]] = {}
        self.notes: dict[int, set[str]] = {}
        self.in_pair = np.zeros(len(ds.rater_ids), bool)

    def add(self, d: int, pk: PairKappas) -> None:
        """One dimension's pairwise kappas: a row per pair, and each pair counted for both its raters."""
        dim_id, ids = self.ds.dimensions[d].id, self.ds.rater_ids
        for ra, rb, shared, kappa, pair_why in zip(pk.rater_a, pk.rater_b, pk.shared, pk.kappa, pk.note, strict=True):
            kv = fnum(kappa)
            self.table.rows.append([dim_id, ids[ra], ids[rb], int(shared), kv, pair_why])
            for r in (int(ra), int(rb)):
                if kv is not None:
                    self.kappas.setdefault((r, d), []).append(kv)
                else:
                    self.notes.setdefault(r, set()).add(pair_why or "")
        self.in_pair[np.concatenate([pk.rater_a, pk.rater_b]).astype(np.int64)] = True

    def rater_row(self, r: int) -> list[object]:
        """The rater's mean kappa per dimension, and why a cell is empty."""
        means = [float(np.mean(self.kappas[(r, d)])) if (r, d) in self.kappas else None
                 for d in range(len(self.ds.dimensions))]
        why: str | None = None
        if not self.in_pair[r]:
            why = "shares no scored task with another rater"
        elif any(m is None for m in means):
            why = "; ".join(sorted(self.notes.get(r, set()))) or None
        return [self.ds.rater_ids[r], *means, why]


_Pending = tuple[int, list[object], str | None, dict[Level, AlphaResult] | None]


def analyse_agreement(ds: Dataset, seed: int, b: int, progress: ProgressFn = no_progress, *,
                      fixed_raters: bool = False) -> AgreementResults:
    """Agreement tables. ``b``: shuffled-rater copies behind the intervals (0 = no intervals);
    ``fixed_raters``: intervals for these particular raters instead of raters like these."""
    tables = _AgreementTables.empty(ds, fixed_raters)
    multi_rater = len(ds.rater_ids) >= 2
    tally = _KappaTally(ds, tables.kappa_pairs)
    plan = AlphaIntervals(ds, b, seed, progress, fixed_raters=fixed_raters)
    pending = [_dimension_agreement(ds, d, tables, tally, plan, multi_rater) for d in range(len(ds.dimensions))]
    fm_table, fm_notes, fm_finish = _failure_modes(ds, plan, multi_rater)
    plan.run()  # every interval (the same shuffled copies for every statistic)
    fm_finish()
    alpha_rows, notes = _alpha_rows(ds, pending, tables.alpha, multi_rater)

    # N/A per rater (vectorised over ratings) and mean kappa per rater.
    n_raters = len(ds.rater_ids)
    cnt = np.bincount(ds.rater, minlength=n_raters).astype(float)
    na_counts = [np.bincount(ds.rater, weights=ds.na[:, d].astype(float), minlength=n_raters)
                 for d in range(len(ds.dimensions))]
    for r, rid in enumerate(ds.rater_ids):
        tables.na_rater.rows.append([rid, *[float(k[r] / cnt[r]) if cnt[r] else None for k in na_counts]])
        tables.kappa_rater.rows.append(tally.rater_row(r))
    if multi_rater and not tables.kappa_pairs.rows:
        notes.append(Note("agreement", "No two raters scored the same task: pairwise kappa cannot be computed."))

    notes.extend(fm_notes)
    t = tables
    return AgreementResults([t.alpha, t.icc, t.gwet, t.na, t.na_rater, t.kappa_rater, t.kappa_pairs, fm_table],
                            notes, alpha_rows)


def _dimension_agreement(ds: Dataset, d: int, tables: _AgreementTables, tally: _KappaTally, plan: AlphaIntervals,
                         multi_rater: bool) -> _Pending:
    """One dimension: its alphas registered in ``plan`` (their row is written once the intervals are run),
    N/A counts, pairwise kappas, ICC and Gwet's AC2."""
    dim, nt, n_raters = ds.dimensions[d], len(ds.task_ids), len(ds.rater_ids)
    ratings_per_task = np.bincount(ds.task, minlength=nt)
    tasks = int((ratings_per_task > 0).sum())
    idx, values = _dim_value_index(ds, d)
    scored = idx >= 0
    n_na = int(ds.na[:, d].sum())
    vc = value_counts(ds.task[scored], idx[scored], nt, values.size)
    m_u = vc.sum(axis=1)
    pairable = int((m_u >= 2).sum())
    fixed: str | None = None
    res: dict[Level, AlphaResult] | None = None
    if ds.n and n_na == ds.n:
        fixed = "every rating is N/A: no agreement on scores can be computed"
    elif not multi_rater:
        fixed = "only one rater: agreement cannot be computed"
    else:
        res = plan.add(ds.task[scored], idx[scored], np.flatnonzero(scored), vc, values, ("ordinal", "interval"))
    head: list[object] = [dim.id, dim.label, tasks, ds.n, n_na, pairable, int(m_u[m_u >= 2].sum())]

    # N/A per dimension: tasks where some raters said N/A and others gave a score.
    na_per_task = np.bincount(ds.task, weights=ds.na[:, d].astype(float), minlength=nt)
    split = int(((na_per_task > 0) & (na_per_task < ratings_per_task)).sum())
    tables.na.rows.append([dim.id, dim.label, ds.n, n_na, n_na / ds.n if ds.n else None, split])

    # Pairwise kappa: every pair of raters' joint table at once.
    tally.add(d, pairwise_kappas(ds.task[scored], ds.rater[scored], idx[scored], values.size, n_raters))

    # ICC(2,1), ICC(2,k) and Gwet's AC2 on the same scores.
    if fixed:
        tables.icc.rows.append([dim.id, dim.label, tasks, n_raters, None, *[None] * 7, fixed])
        tables.gwet.rows.append([dim.id, dim.label, tasks, pairable, None, None, None, fixed])
        return d, head, fixed, res
    icc = icc_two_way(ds.task[scored], ds.rater[scored], ds.scores[scored, d])
    tables.icc.rows.append([dim.id, dim.label, icc.tasks, icc.raters, "complete" if icc.complete else "incomplete",
                            icc.icc1, icc.icc1_lo, icc.icc1_hi, icc.k, icc.icck, icc.icck_lo, icc.icck_hi, icc.note])
    counts = vc[vc.sum(axis=1) > 0]
    gw = gwet_ac2(counts, quadratic_weights(values.size))
    tables.gwet.rows.append([dim.id, dim.label, len(counts), pairable, gw.ac2, gw.pa, gw.pe, gw.note])
    return d, head, fixed, res


def _alpha_rows(ds: Dataset, pending: list[_Pending], table: Table,
                multi_rater: bool) -> tuple[list[dict[str, object]], list[Note]]:
    """The alpha table's rows once the intervals are run, and one note per reason an alpha or interval is
    missing (naming its dimensions)."""
    empty = AlphaResult(None, None, None, None)
    alpha_rows: list[dict[str, object]] = []
    dims_by_note: dict[str, list[str]] = {}
    for d, head, fixed, res in pending:
        dim = ds.dimensions[d]
        row_o = res["ordinal"] if res else empty
        row_i = res["interval"] if res else empty
        reasons = sorted({r.note for r in (row_o, row_i) if r.note})
        note = fixed or ("; ".join(reasons) if reasons else None)
        table.rows.append([*head, row_o.alpha, row_o.lo, row_o.hi, row_i.alpha, row_i.lo, row_i.hi, note])
        if note and multi_rater:  # a single rater is one report-wide note, not one per dimension
            dims_by_note.setdefault(note, []).append(f"{dim.id} {dim.label}")
        alpha_rows.append({"id": dim.id, "label": dim.label, "ordinal": row_o, "interval": row_i})
    notes = []
    for note, names in dims_by_note.items():
        where = "every dimension" if len(names) == len(ds.dimensions) > 1 else "; ".join(names)
        notes.append(Note("agreement", f"{where}: {note}."))
    return alpha_rows, notes


def _failure_modes(ds: Dataset, plan: AlphaIntervals,
                   multi_rater: bool) -> tuple[Table, list[Note], Callable[[], None]]:
    """The failure-mode table; its alphas are registered in ``plan``; call the returned function after
    ``plan.run()`` to fill the rows."""
    notes: list[Note] = []
    nt = len(ds.task_ids)
    table = Table(
        "failure_mode_agreement", "Failure modes: prevalence and agreement",
        ["failure_mode", "label", "ratings", *[f"share_{s}" for s in SEVERITIES], "share_present",
         "alpha_presence_nominal", "presence_ci_low", "presence_ci_high", "fleiss_kappa_presence",
         "alpha_severity_ordinal", "severity_ci_low", "severity_ci_high", "note"],
        description="Prevalence = share of ratings tagging the mode at each severity (none = checked and "
        "absent). Presence alpha (nominal) and Fleiss' kappa ask whether raters agree the failure is there at "
        "all (kappa over tasks with two or more ratings, each task's agreement over its own rater pairs); "
        "severity alpha (ordinal, none < minor < moderate < major < critical) whether they agree how bad it "
        "is. The note says why a value is missing.")
    presence_values = np.array([0.0, 1.0])
    severity_values = np.arange(len(SEVERITIES), dtype=np.float64)
    pending: list[tuple[list[object], AlphaResult, AlphaResult, tuple[float | None, str | None], str | None]] = []
    for f, fm in enumerate(ds.rubric.failure_modes):
        sev = ds.severity[:, f]
        shares = np.bincount(sev, minlength=len(SEVERITIES)) / ds.n if ds.n else np.full(len(SEVERITIES), np.nan)
        present = (sev > 0).astype(np.int64)
        fixed: str | None = None
        if multi_rater and ds.n:
            every = np.arange(ds.n)
            sev_vc = value_counts(ds.task, sev, nt, len(SEVERITIES))
            pres_vc = np.stack([sev_vc[:, 0], sev_vc[:, 1:].sum(axis=1)], axis=1)  # absent, present per task
            pres = plan.add(ds.task, present, every, pres_vc, presence_values, ("nominal",))["nominal"]
            sevr = plan.add(ds.task, sev, every, sev_vc, severity_values, ("ordinal",))["ordinal"]
            kappa = fleiss_kappa(pres_vc)  # Fleiss leaves out the tasks with fewer than 2 ratings
        else:
            pres = sevr = AlphaResult(None, None, None, None)
            fixed = "only one rater" if ds.n else "no ratings"
            kappa = (None, None)
        pending.append(([fm.id, fm.label, ds.n, *[float(s) for s in shares], float(shares[1:].sum())],
                        pres, sevr, kappa, fixed))

    def finish() -> None:
        for head, pres, sevr, (kappa, kappa_why), fixed in pending:
            whys = {r.note for r in (pres, sevr) if r.note} | ({f"Fleiss' kappa: {kappa_why}"} if kappa_why else set())
            reason = fixed or "; ".join(sorted(whys)) or None
            table.rows.append([*head, pres.alpha, pres.lo, pres.hi, kappa, sevr.alpha, sevr.lo, sevr.hi, reason])

    return table, notes, finish


def interval_steps(ds: Dataset) -> int:
    """How many progress steps :func:`analyse_agreement` reports (one per alpha with an interval)."""
    return len(ds.dimensions) + 2 * len(ds.rubric.failure_modes)
