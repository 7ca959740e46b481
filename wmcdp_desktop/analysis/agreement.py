"""Agreement between raters: Krippendorff's alpha (with a bootstrap over tasks), pairwise quadratic-weighted
Cohen's kappa, N/A reporting, failure-mode agreement and prevalence.

The unit of agreement is the task (``envelope.task_id``): the same candidate response seen by several
raters. N/A is not a value on the scale: it is left out of alpha and kappa (a task where only one rater
gave a number has nothing to pair) and reported on its own, per dimension and per rater.

Point estimates come from the ``krippendorff`` package. The bootstrap needs thousands of alphas, so it
uses the same formula written as matrix products over per-task coincidence matrices
(:func:`alpha_from_coincidences`); the tests check it against the package on the same resamples.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np

from wmcdp_desktop.analysis.common import (
    FloatArray,
    IntArray,
    Note,
    ProgressFn,
    Table,
    bootstrap_weights,
    fnum,
    no_progress,
    percentile_ci,
    rng_for,
)
from wmcdp_desktop.analysis.loading import Dataset
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


def alpha_point(vc: IntArray, values: FloatArray, level: Level,
                engine: Literal["package", "matrix"] = "package") -> tuple[float | None, str | None]:
    """Krippendorff's alpha, or ``(None, reason)`` when it is undefined.

    ``engine="package"`` asks the ``krippendorff`` package (used for the rubric dimensions);
    ``"matrix"`` uses :func:`alpha_from_coincidences`, the same formula as one matrix product (used for
    the many failure-mode alphas; tests check both engines agree to 1e-9).
    """
    return _alpha_point(pairable_units(vc), values, level, engine)


def _alpha_point(vc: IntArray, values: FloatArray, level: Level,
                 engine: Literal["package", "matrix"]) -> tuple[float | None, str | None]:
    """:func:`alpha_point` on units already reduced to the pairable ones."""
    if len(vc) == 0:
        return None, "no task has two or more scores to compare"
    if int((vc.sum(axis=0) > 0).sum()) < 2:
        return None, "every paired score is the same value, so alpha is undefined (no variation to agree on)"
    if engine == "matrix":
        return fnum(alpha_from_coincidences(coincidences(vc).reshape(1, -1), values, level)[0]), None
    import krippendorff

    value = krippendorff.alpha(value_counts=vc, value_domain=values, level_of_measurement=level)
    return fnum(value), None


@dataclass
class AlphaResult:
    alpha: float | None
    lo: float | None
    hi: float | None
    note: str | None


@dataclass
class _Job:
    vc: IntArray
    values: FloatArray
    results: dict[Level, AlphaResult]


class BootstrapPlan:
    """Collects alphas, then bootstraps them all on the same resamples of tasks.

    Every statistic is resampled with the same task weights (drawn from one seeded stream), so the B
    resamples are the same for all dimensions and failure modes, and the weights are drawn once per chunk
    for a whole group of statistics: their per-task coincidence matrices are stacked side by side and
    one matrix product gives every statistic's coincidences. Tasks with fewer than two values contribute
    zero, exactly as in alpha itself.
    """

    COLUMN_BUDGET = 8_000_000
    """Largest tasks x stacked-columns matrix built at once (floats)."""

    def __init__(self, n_units: int, b: int, seed: int, progress: ProgressFn = no_progress) -> None:
        self.n_units = n_units
        self.b = b
        self.seed = seed
        self.progress = progress
        self.jobs: list[_Job] = []

    def add(self, vc: IntArray, values: FloatArray, levels: tuple[Level, ...],
            engine: Literal["package", "matrix"] = "package") -> dict[Level, AlphaResult]:
        """Point estimates now (``vc``: every task, in task order); intervals are filled by :meth:`run`."""
        pairable = pairable_units(vc)
        results: dict[Level, AlphaResult] = {}
        for lv in levels:
            a, why = _alpha_point(pairable, values, lv, engine)
            results[lv] = AlphaResult(a, None, None, why)
        if self.b > 0 and any(r.alpha is not None for r in results.values()):
            self.jobs.append(_Job(vc, values, results))
        else:
            self.progress(1)
        return results

    def run(self) -> None:
        if not self.jobs:
            return
        max_cols = max(1, self.COLUMN_BUDGET // max(self.n_units, 1))
        group: list[_Job] = []
        cols = 0
        for job in self.jobs:
            width = job.values.size ** 2
            if group and cols + width > max_cols:
                self._run_group(group)
                group, cols = [], 0
            group.append(job)
            cols += width
        if group:
            self._run_group(group)

    def _run_group(self, group: list[_Job]) -> None:
        stacked = np.hstack([unit_coincidences(job.vc) for job in group])
        reps: list[dict[Level, list[FloatArray]]] = [{lv: [] for lv in job.results} for job in group]
        for w in bootstrap_weights(rng_for(self.seed, "agreement-tasks"), self.n_units, self.b):
            o_all = w @ stacked
            offset = 0
            for job, rep in zip(group, reps, strict=True):
                width = job.values.size ** 2
                o = o_all[:, offset:offset + width]
                offset += width
                for lv in job.results:
                    rep[lv].append(alpha_from_coincidences(o, job.values, lv))
        for job, rep in zip(group, reps, strict=True):
            for lv, res in job.results.items():
                if res.alpha is None:
                    continue
                res.lo, res.hi, res.note = percentile_ci(np.concatenate(rep[lv]))
        self.progress(len(group))


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


def rater_matrix(ds: Dataset, column: IntArray) -> IntArray:
    """(raters, tasks) matrix of a per-rating integer column, -1 where the rater has no value."""
    m = np.full((len(ds.rater_ids), len(ds.task_ids)), -1, np.int64)
    m[ds.rater, ds.task] = column
    return m


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


def analyse_agreement(ds: Dataset, seed: int, b: int, progress: ProgressFn = no_progress) -> AgreementResults:
    notes: list[Note] = []
    nt = len(ds.task_ids)
    multi_rater = len(ds.rater_ids) >= 2
    ratings_per_task = np.bincount(ds.task, minlength=nt)

    alpha_table = Table(
        "agreement_alpha", "Krippendorff's alpha per dimension",
        ["dimension", "label", "tasks", "ratings", "na_ratings", "pairable_tasks", "pairable_values",
         "alpha_ordinal", "ordinal_ci_low", "ordinal_ci_high", "alpha_interval", "interval_ci_low",
         "interval_ci_high", "note"],
        description="Unit = task (one candidate response seen by several raters). N/A answers are left out; "
        "a task counts as pairable when at least two raters gave it a number. Intervals: 95% percentile "
        "bootstrap over tasks (the same resamples for every dimension). Alpha 1 = perfect agreement, 0 = no better than chance, "
        "below 0 = systematic disagreement; 0.667 and 0.8 are the usual thresholds for tentative and "
        "firm conclusions.")
    na_table = Table(
        "na_by_dimension", "N/A answers per dimension",
        ["dimension", "label", "ratings", "na", "na_rate", "tasks_split_na_vs_score"],
        description="How often raters answered N/A, and on how many tasks some raters answered N/A while "
        "others gave a number (a disagreement alpha cannot see, since N/A is not on the scale).")
    na_rater = Table("na_by_rater", "N/A rate per rater and dimension",
                     ["rater", *[d.id for d in ds.dimensions]],
                     description="Share of the rater's ratings answered N/A, per dimension.", percent=True)
    kappa_pairs = Table(
        "kappa_pairs", "Pairwise quadratic-weighted Cohen's kappa",
        ["dimension", "rater_a", "rater_b", "shared_tasks", "kappa"],
        description="For each pair of raters, the tasks both scored (N/A left out). Kappa is undefined "
        "(blank) with fewer than 2 shared tasks or no variation.")
    kappa_rater = Table(
        "kappa_by_rater", "Mean pairwise kappa of each rater with the others",
        ["rater", *[d.id for d in ds.dimensions]],
        description="Average of the rater's pairwise kappas (pairs with a defined kappa). A rater far "
        "below the others reads the scale differently.")
    alpha_rows: list[dict[str, object]] = []

    n_raters = len(ds.rater_ids)
    pairs = list(combinations(range(n_raters), 2))
    rater_kappas: dict[tuple[int, int], list[float]] = {}
    plan = BootstrapPlan(nt, b, seed, progress)
    pending: list[tuple[int, list[object], str | None, dict[Level, AlphaResult] | None]] = []
    for d, dim in enumerate(ds.dimensions):
        idx, values = _dim_value_index(ds, d)
        scored = idx >= 0
        n_na = int(ds.na[:, d].sum())
        vc = value_counts(ds.task[scored], idx[scored], nt, values.size)
        m_u = vc.sum(axis=1)
        pairable = int((m_u >= 2).sum())
        pairable_values = int(m_u[m_u >= 2].sum())
        fixed: str | None = None
        res: dict[Level, AlphaResult] | None = None
        if ds.n and n_na == ds.n:
            fixed = "every rating is N/A: no agreement on scores can be computed"
        elif not multi_rater:
            fixed = "only one rater: agreement cannot be computed"
        else:
            res = plan.add(vc, values, ("ordinal", "interval"))
        pending.append((d, [dim.id, dim.label, int((ratings_per_task > 0).sum()), ds.n, n_na, pairable,
                            pairable_values], fixed, res))

        # N/A per dimension: tasks where some raters said N/A and others gave a score.
        na_per_task = np.bincount(ds.task, weights=ds.na[:, d].astype(float), minlength=nt)
        split = int(((na_per_task > 0) & (na_per_task < ratings_per_task)).sum())
        na_table.rows.append([dim.id, dim.label, ds.n, n_na, n_na / ds.n if ds.n else None, split])

        # Pairwise kappa on the raters x tasks matrix.
        mat = rater_matrix(ds, idx)
        for ra, rb in pairs:
            both = (mat[ra] >= 0) & (mat[rb] >= 0)
            shared = int(both.sum())
            if shared == 0:
                continue
            kappa = quadratic_kappa(mat[ra][both], mat[rb][both], values.size)
            kappa_pairs.rows.append([dim.id, ds.rater_ids[ra], ds.rater_ids[rb], shared, kappa])
            if kappa is not None:
                rater_kappas.setdefault((ra, d), []).append(kappa)
                rater_kappas.setdefault((rb, d), []).append(kappa)

    fm_table, fm_notes, fm_finish = _failure_modes(ds, plan, multi_rater)
    plan.run()  # every bootstrap interval, on shared resamples of tasks
    fm_finish()
    empty = AlphaResult(None, None, None, None)
    dims_by_note: dict[str, list[str]] = {}
    for d, head, fixed, res in pending:
        dim = ds.dimensions[d]
        row_o = res["ordinal"] if res else empty
        row_i = res["interval"] if res else empty
        reasons = sorted({r.note for r in (row_o, row_i) if r.note})
        note = fixed or ("; ".join(reasons) if reasons else None)
        alpha_table.rows.append([*head, row_o.alpha, row_o.lo, row_o.hi, row_i.alpha, row_i.lo, row_i.hi, note])
        if note and multi_rater:  # a single rater is one report-wide note, not one per dimension
            dims_by_note.setdefault(note, []).append(f"{dim.id} {dim.label}")
        alpha_rows.append({"id": dim.id, "label": dim.label, "ordinal": row_o, "interval": row_i})

    for note, names in dims_by_note.items():  # one note per reason, naming its dimensions
        where = "every dimension" if len(names) == len(ds.dimensions) > 1 else "; ".join(names)
        notes.append(Note("agreement", f"{where}: {note}."))

    # N/A per rater (vectorised over ratings).
    cnt = np.bincount(ds.rater, minlength=n_raters).astype(float)
    na_counts = [np.bincount(ds.rater, weights=ds.na[:, d].astype(float), minlength=n_raters)
                 for d in range(len(ds.dimensions))]
    for r, rid in enumerate(ds.rater_ids):
        na_rater.rows.append([rid, *[float(k[r] / cnt[r]) if cnt[r] else None for k in na_counts]])
        kappa_rater.rows.append([rid, *[
            float(np.mean(rater_kappas[(r, d)])) if (r, d) in rater_kappas else None
            for d in range(len(ds.dimensions))
        ]])
    if multi_rater and not kappa_pairs.rows:
        notes.append(Note("agreement", "No two raters scored the same task: pairwise kappa cannot be computed."))

    notes.extend(fm_notes)
    return AgreementResults([alpha_table, na_table, na_rater, kappa_rater, kappa_pairs, fm_table], notes,
                            alpha_rows)


def _failure_modes(ds: Dataset, plan: BootstrapPlan,
                   multi_rater: bool) -> tuple[Table, list[Note], Callable[[], None]]:
    """The failure-mode table; its alphas are registered in ``plan``; call the returned function after
    ``plan.run()`` to fill the rows."""
    notes: list[Note] = []
    nt = len(ds.task_ids)
    table = Table(
        "failure_mode_agreement", "Failure modes: prevalence and agreement",
        ["failure_mode", "label", "ratings", *[f"share_{s}" for s in SEVERITIES], "share_present",
         "alpha_presence_nominal", "presence_ci_low", "presence_ci_high", "alpha_severity_ordinal",
         "severity_ci_low", "severity_ci_high", "note"],
        description="Prevalence = share of ratings tagging the mode at each severity (none = checked and "
        "absent). Presence alpha (nominal) asks whether raters agree the failure is there at all; severity "
        "alpha (ordinal, none < minor < moderate < major < critical) whether they agree how bad it is.")
    presence_values = np.array([0.0, 1.0])
    severity_values = np.arange(len(SEVERITIES), dtype=np.float64)
    pending: list[tuple[list[object], AlphaResult, AlphaResult, str | None]] = []
    for f, fm in enumerate(ds.rubric.failure_modes):
        sev = ds.severity[:, f]
        shares = np.bincount(sev, minlength=len(SEVERITIES)) / ds.n if ds.n else np.full(len(SEVERITIES), np.nan)
        present = (sev > 0).astype(np.int64)
        fixed: str | None = None
        if multi_rater and ds.n:
            pres = plan.add(value_counts(ds.task, present, nt, 2), presence_values, ("nominal",), "matrix")["nominal"]
            sevr = plan.add(value_counts(ds.task, sev, nt, len(SEVERITIES)), severity_values, ("ordinal",),
                            "matrix")["ordinal"]
        else:
            pres = sevr = AlphaResult(None, None, None, None)
            fixed = "only one rater" if ds.n else "no ratings"
        pending.append(([fm.id, fm.label, ds.n, *[float(s) for s in shares], float(shares[1:].sum())],
                        pres, sevr, fixed))

    def finish() -> None:
        for head, pres, sevr, fixed in pending:
            reason = fixed or "; ".join(sorted({r.note for r in (pres, sevr) if r.note})) or None
            table.rows.append([*head, pres.alpha, pres.lo, pres.hi, sevr.alpha, sevr.lo, sevr.hi, reason])

    return table, notes, finish


def bootstrap_steps(ds: Dataset) -> int:
    """How many progress steps :func:`analyse_agreement` reports (one per bootstrapped statistic)."""
    return len(ds.dimensions) + 2 * len(ds.rubric.failure_modes)
