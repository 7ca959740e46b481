"""Reliability coefficients beside Krippendorff's alpha: ICC(2,1) and ICC(2,k), Fleiss' kappa, Gwet's AC2 and
pairwise weighted kappa, each as one vectorised function of per-rating columns (no loop over ratings).

Every function takes the ratings of one statistic as parallel integer arrays (``task``, ``rater``, a value)
and returns the value or ``None`` with the reason in plain words. The tests check them against
``pingouin.intraclass_corr`` (ICC), ``statsmodels``' ``fleiss_kappa``, ``irrCAC`` (Gwet's AC2) and the
published worked examples of Shrout & Fleiss (1979), Fleiss (1971) and Gwet (2014).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wmcdp_desktop.coordinator.report.common import CI_LEVEL, FloatArray, IntArray

# ----------------------------------------------------------------------------------------- ICC


@dataclass(frozen=True)
class IccResult:
    """ICC(2,1) and ICC(2,k) of one dimension (two-way random effects, absolute agreement)."""

    icc1: float | None
    icc1_lo: float | None
    icc1_hi: float | None
    icck: float | None
    icck_lo: float | None
    icck_hi: float | None
    k: float | None
    """Raters per task behind ICC(2,k) (the design's; a fraction when tasks have different numbers)."""
    complete: bool
    """Every task rated by the same raters (then the figures are exactly pingouin's)."""
    tasks: int
    raters: int
    note: str | None


def dense_codes(codes: IntArray) -> tuple[IntArray, IntArray]:
    """Non-negative codes renumbered 0, 1, ... in their order, without gaps: the distinct codes and each one's
    new number (``np.unique(codes, return_inverse=True)``; by counting instead of sorting when the codes
    are not much larger than their number: a million codes in milliseconds)."""
    codes = np.asarray(codes, np.int64).ravel()
    if codes.size == 0 or int(codes.max()) > 4 * codes.size + 1024:
        distinct, inverse = np.unique(codes, return_inverse=True)
        return distinct.astype(np.int64), inverse.ravel().astype(np.int64)
    present = np.bincount(codes) > 0
    return np.flatnonzero(present), (np.cumsum(present) - 1)[codes]


def _none(note: str, tasks: int = 0, raters: int = 0) -> IccResult:
    return IccResult(None, None, None, None, None, None, None, False, tasks, raters, note)


def _components(rater_of: IntArray, task_of: IntArray, n_r: int) -> int:
    """Connected components of the task-rater graph (rater effects are comparable only within one)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n_t = int(task_of.max()) + 1 if task_of.size else 0
    graph = coo_matrix((np.ones(task_of.size), (task_of, n_t + rater_of)), shape=(n_t + n_r, n_t + n_r))
    count, _ = connected_components(graph, directed=False)
    return int(count)


DENSE_RATERS = 3_000
"""Up to this many raters the rater system is solved densely; beyond it by conjugate gradients (sparse)."""


def _rater_reduction(t: IntArray, r: IntArray, m_t: FloatArray, n_rr: FloatArray, q: FloatArray) -> float:
    """``b' q`` for a solution b of ``C b = q``, ``C = diag(n_r) - N' D_t^-1 N`` (N: the tasks x raters incidence
    of the scores ``t``, ``r``; D_t: the scores per task ``m_t``), built as one sparse product: a raters x raters
    matrix, never anything tasks x tasks. C is singular (one null direction per connected part); ``q`` is
    orthogonal to those directions, so ``b' q`` is unique."""
    from scipy.sparse import csr_matrix, diags

    n_r = n_rr.size
    incidence = csr_matrix((np.ones(t.size), (t, r)), shape=(m_t.size, n_r))
    cmat = (diags(n_rr) - (incidence.T @ diags(1.0 / m_t)) @ incidence).tocsr()
    if n_r <= DENSE_RATERS:
        beta = np.linalg.lstsq(cmat.toarray(), q, rcond=None)[0]
    else:
        from scipy.sparse.linalg import cg

        beta, _ = cg(cmat, q, rtol=1e-12, maxiter=10 * n_r)
    return float(beta @ q)


def icc_two_way(task: IntArray, rater: IntArray, y: FloatArray) -> IccResult:
    """ICC(2,1) and ICC(2,k) with 95% intervals, as Shrout & Fleiss (1979) and McGraw & Wong (1996) define
    them and ``pingouin.intraclass_corr`` computes them (``ICC2``, ``ICC2k``) on a complete design.

    One value per (task, rater). On an incomplete design (each task rated by a few of the raters, N/A left
    out) the mean squares come from Henderson's method III (fitting constants) for the crossed random model
    ``y = mu + task + rater + e``: ``MS_tasks = R(task | rater) / (T - c)``, ``MS_raters = R(rater | task)
    / (R - c)``, ``MS_error`` from the residual (c = connected parts of the task-rater graph). Their
    expectations give the effective raters per task ``k0 = (N - R) / (T - c)`` and tasks per rater
    ``n0 = (N - T) / (R - c)``, which take the places of k and n in the formulas; on a complete design
    they are k and n and every figure equals pingouin's. ICC(2,k) is for the mean of k0 raters."""
    from scipy.stats import f as f_dist

    if task.size == 0:
        return _none("no scores")
    t, r = dense_codes(task)[1], dense_codes(rater)[1]
    n_t, n_r, n = int(t.max()) + 1, int(r.max()) + 1, t.size
    if n_r < 2:
        return _none("only one rater", n_t, n_r)
    m_t = np.bincount(t, minlength=n_t).astype(np.float64)
    if (m_t >= 2).sum() < 2:
        return _none("fewer than 2 tasks have two or more scores", n_t, n_r)
    c = _components(r, t, n_r)
    df_t, df_r, df_e = n_t - c, n_r - c, n - n_t - n_r + c
    if df_t < 1 or df_r < 1 or df_e < 1:
        return _none("too few scores for the two-way model (no residual degrees of freedom)", n_t, n_r)
    n_rr = np.bincount(r, minlength=n_r).astype(np.float64)
    sum_t = np.bincount(t, weights=y, minlength=n_t)
    sum_r = np.bincount(r, weights=y, minlength=n_r)
    r_t = float((sum_t**2 / m_t).sum())  # R(mu, task)
    r_r = float((sum_r**2 / n_rr).sum())  # R(mu, rater)
    # Rater effects after absorbing the tasks: C b = q, C = diag(n_r) - N' D_t^-1 N, q = rater totals of
    # (y - task mean). C is (raters x raters): one sparse product (_rater_reduction).
    q = np.bincount(r, weights=y - (sum_t / m_t)[t], minlength=n_r).astype(np.float64)
    beta_q = _rater_reduction(t, r, m_t, n_rr, q)
    r_full = r_t + beta_q  # R(mu, task, rater)
    sse = max(float((y**2).sum()) - r_full, 0.0)
    ms_e = sse / df_e
    ms_t = max(r_full - r_r, 0.0) / df_t  # R(task | rater) / (T - c)
    ms_r = max(r_full - r_t, 0.0) / df_r  # R(rater | task) / (R - c)
    k0 = (n - n_r) / df_t
    n0 = (n - n_t) / df_r
    complete = bool(c == 1 and n == n_t * n_r)
    den = ms_t + (k0 - 1) * ms_e + k0 * (ms_r - ms_e) / n0
    if den <= 0 or ms_t <= 0:
        return IccResult(None, None, None, None, None, None, k0, complete, n_t, n_r,
                         "no variation between tasks: the ICC is undefined")
    icc1 = (ms_t - ms_e) / den
    icck = (ms_t - ms_e) / (ms_t + (ms_r - ms_e) / n0)
    # McGraw & Wong (1996) case 2A interval (pingouin's), with k0 and n0 in the places of k and n.
    alpha = 1 - CI_LEVEL
    lo = hi = None
    if ms_e > 0:
        fj = ms_r / ms_e
        x = n0 * (1 + (k0 - 1) * icc1) - k0 * icc1
        y_ = k0 * icc1 * fj
        v = (x + y_) ** 2 / (y_**2 / df_r + x**2 / df_e) if (x or y_) else float("nan")
        if np.isfinite(v) and v > 0:
            f_u = float(f_dist.ppf(1 - alpha / 2, df_t, v))
            f_l = float(f_dist.ppf(1 - alpha / 2, v, df_t))
            base = k0 * ms_r + (k0 * n0 - k0 - n0) * ms_e
            lo = n0 * (ms_t - f_u * ms_e) / (f_u * base + n0 * ms_t)
            hi = n0 * (f_l * ms_t - ms_e) / (base + n0 * f_l * ms_t)

    def spearman_brown(x: float | None) -> float | None:
        return None if x is None else x * k0 / (1 + x * (k0 - 1))

    note = None if lo is not None else "no residual variation: no interval"
    return IccResult(float(icc1), lo, hi, float(icck), spearman_brown(lo), spearman_brown(hi), float(k0), complete,
                     n_t, n_r, note)


# ----------------------------------------------------------------------------------------- Fleiss


def fleiss_kappa(counts: IntArray) -> tuple[float | None, str | None]:
    """Fleiss' kappa (1971) of a (subjects, categories) count table; subjects with fewer than 2 ratings are
    left out. With the same number of raters per subject it is Fleiss' formula exactly (statsmodels'
    ``fleiss_kappa``); with different numbers, each subject's agreement is over its own rater pairs and
    category shares are over all ratings (Fleiss, Levin & Paik 2003, 18.1)."""
    counts = counts[counts.sum(axis=1) >= 2].astype(np.float64)
    if len(counts) == 0:
        return None, "no task has two or more ratings"
    m = counts.sum(axis=1)
    p_i = ((counts * (counts - 1)).sum(axis=1)) / (m * (m - 1))
    p_bar = float(p_i.mean())
    share = counts.sum(axis=0) / counts.sum()
    p_e = float((share**2).sum())
    if p_e >= 1 - 1e-12:
        return None, "every rating is in the same category: kappa is undefined (no variation)"
    return (p_bar - p_e) / (1 - p_e), None


# ----------------------------------------------------------------------------------------- Gwet


def quadratic_weights(q: int) -> FloatArray:
    """Gwet's quadratic agreement weights ``1 - (k - l)^2 / (q - 1)^2`` on q ordered categories."""
    i = np.arange(q)
    out: FloatArray = 1.0 - (i[:, None] - i[None, :]) ** 2 / max(q - 1, 1) ** 2
    return out


@dataclass(frozen=True)
class GwetResult:
    ac2: float | None
    pa: float | None
    """Weighted observed agreement."""
    pe: float | None
    """Weighted chance agreement."""
    note: str | None


def gwet_ac2(counts: IntArray, weights: FloatArray) -> GwetResult:
    """Gwet's AC2 (Gwet 2014, Handbook of Inter-Rater Reliability, 4th ed., ch. 3-4) of a (subjects,
    categories) count table with agreement ``weights`` (quadratic for the rubric's ordinal scales), any
    number of raters per subject (missing ratings allowed): ``p_a`` over subjects with 2 or more ratings,
    the category shares ``pi_k`` over every subject with a rating, ``p_e = T_w / (q (q - 1)) sum pi_k (1 -
    pi_k)``. Equal to ``irrCAC``'s ``gwet()``."""
    counts = counts.astype(np.float64)
    m = counts.sum(axis=1)
    rated = m >= 1
    if not rated.any():
        return GwetResult(None, None, None, "no scores")
    pair = m >= 2
    if not pair.any():
        return GwetResult(None, None, None, "no task has two or more scores")
    q = counts.shape[1]
    star = counts @ weights.T  # r*_ik = sum_l w_kl r_il
    pa_i = (counts[pair] * (star[pair] - 1)).sum(axis=1) / (m[pair] * (m[pair] - 1))
    pa = float(pa_i.mean())
    pi = (counts[rated] / m[rated, None]).mean(axis=0)
    pe = float(weights.sum() / (q * (q - 1)) * (pi * (1 - pi)).sum())
    if pe >= 1 - 1e-12:
        return GwetResult(None, pa, pe, "chance agreement is 1: AC2 is undefined")
    return GwetResult((pa - pe) / (1 - pe), pa, pe, None)


# ----------------------------------------------------------------------------------------- pairwise kappa


@dataclass(frozen=True)
class PairKappas:
    """Quadratic-weighted Cohen's kappa of every pair of raters who share a task."""

    rater_a: IntArray
    rater_b: IntArray
    shared: IntArray
    kappa: FloatArray
    """NaN where undefined (see :attr:`note`)."""
    note: list[str | None]


NO_VARIATION = "no variation: both raters gave one and the same score on every shared task"
ONE_TASK = "one shared task: kappa needs at least 2"


def pairwise_kappas(task: IntArray, rater: IntArray, value: IntArray, k: int, n_raters: int) -> PairKappas:
    """Kappa for every pair of raters (rater_a < rater_b) over the tasks both scored: ``value`` the
    category index (0..k-1) of each rating, one per (task, rater). The joint tables of all pairs are counted
    at once (a bincount over the pairs of ratings of each task)."""
    # By task, then rater: one stable sort of a combined key (lexsort sorts twice: 13x slower on a million
    # ratings already in task order, 2x on shuffled ones; the same order).
    order = np.argsort(task.astype(np.int64) * max(n_raters, 1) + rater, kind="stable")
    ts, rs, vs = task[order], rater[order], value[order]
    if ts.size == 0:
        empty = np.empty(0, np.int64)
        return PairKappas(empty, empty, empty, np.empty(0), [])
    first = np.r_[True, ts[1:] != ts[:-1]]
    group = np.cumsum(first) - 1
    starts = np.flatnonzero(first)
    size = np.diff(np.r_[starts, ts.size])[group]
    pos = np.arange(ts.size) - starts[group]
    a_idx: list[IntArray] = []
    b_idx: list[IntArray] = []
    for offset in range(1, int(size.max()) if size.size else 1):
        a = np.flatnonzero(pos + offset < size)
        a_idx.append(a)
        b_idx.append(a + offset)
    if not a_idx:
        empty = np.empty(0, np.int64)
        return PairKappas(empty, empty, empty, np.empty(0), [])
    a = np.concatenate(a_idx)
    b = np.concatenate(b_idx)
    ra, rb, va, vb = rs[a], rs[b], vs[a], vs[b]  # rs sorted within a task: ra < rb
    pair = ra.astype(np.int64) * n_raters + rb
    pairs, pix = dense_codes(pair)
    p = pairs.size
    joint = np.bincount(pix * k * k + va * k + vb, minlength=p * k * k).reshape(p, k, k).astype(np.float64)
    n = joint.sum(axis=(1, 2))
    obs = joint / n[:, None, None]
    exp = obs.sum(axis=2)[:, :, None] * obs.sum(axis=1)[:, None, :]
    i = np.arange(k)
    w = (i[:, None] - i[None, :]) ** 2 / max(k - 1, 1) ** 2
    den = (w * exp).sum(axis=(1, 2))
    num = (w * obs).sum(axis=(1, 2))
    ok = (n >= 2) & (den > 1e-12)
    kappa = np.full(p, np.nan)
    kappa[ok] = 1.0 - num[ok] / den[ok]
    notes: list[str | None] = [None if o else (ONE_TASK if m < 2 else NO_VARIATION) for o, m in zip(ok, n, strict=True)]
    return PairKappas(pairs // n_raters, pairs % n_raters, n.astype(np.int64), kappa, notes)
