"""ICC(2,1)/ICC(2,k), Fleiss' kappa, Gwet's AC2 and pairwise kappa against reference implementations
(pingouin, statsmodels; irrCAC's figures recorded) and published worked examples."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wmcdp_desktop.coordinator.report import agreement, coefficients

NAN = math.nan

# Shrout, P.E. & Fleiss, J.L. (1979) Intraclass correlations: uses in assessing rater reliability,
# Psychological Bulletin 86, 420-428, Table 2: 6 targets x 4 judges; ICC(2,1) = 0.29, ICC(2,4) = 0.62.
SHROUT_FLEISS = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], float)

# Fleiss, J.L. (1971) as reproduced in most textbooks: 10 subjects, 14 raters, 5 categories; kappa 0.210.
FLEISS_TABLE = np.array([
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]])

# Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed.: 4 raters, 12 subjects, 5 categories, missing
# ratings (the data of Krippendorff 2011). AC1 (unweighted) 0.7754 as published.
GWET_2014 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]


def _long(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(task, rater, value) of a (tasks, raters) matrix with NaN for no rating."""
    t, r = np.nonzero(~np.isnan(matrix))
    return t.astype(np.int64), r.astype(np.int64), matrix[t, r]


def _pingouin(matrix: np.ndarray) -> dict[str, tuple[float, float, float]]:
    pingouin = pytest.importorskip("pingouin")
    t, r, y = _long(matrix)
    with warnings.catch_warnings():  # pingouin divides by a zero mean square on degenerate data (then: nan)
        warnings.simplefilter("ignore", RuntimeWarning)
        out = pingouin.intraclass_corr(pd.DataFrame({"t": t, "r": r, "y": y}), "t", "r", "y")
    ci = next(c for c in out.columns if str(c).startswith("CI95"))
    rows = {2: "ICC2", 5: "ICC2k"}
    return {name: (float(out["ICC"].iloc[i - 1]), *map(float, out[ci].iloc[i - 1])) for i, name in rows.items()}


def test_icc_reproduces_shrout_and_fleiss_1979() -> None:
    res = coefficients.icc_two_way(*_long(SHROUT_FLEISS))
    assert res.complete and res.k == 4
    assert round(res.icc1, 2) == 0.29 and round(res.icck, 2) == 0.62  # type: ignore[arg-type]


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 25), st.integers(2, 6), st.integers(0, 2**32 - 1))
@example(3, 2, 100190)  # the raters agree exactly: no residual variation
def test_icc_and_its_intervals_equal_pingouin_on_complete_designs(n: int, k: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    y = np.round(2 * (rng.normal(size=(n, 1)) + 0.5 * rng.normal(size=(1, k)) + rng.normal(size=(n, k))))
    if np.ptp(y.mean(axis=1)) == 0:
        return
    res = coefficients.icc_two_way(*_long(y))
    if res.note == "no residual variation: no interval":  # pingouin divides by zero there (a warning, an error here)
        assert res.icc1_lo is None and res.icck_lo is None and res.icc1 is not None and res.icc1 > 0
        return
    ref = _pingouin(y)
    if not all(math.isfinite(v) for v in (*ref["ICC2"], *ref["ICC2k"])):
        return  # the reference gives no figure here (a zero mean square): nothing to compare with
    assert res.icc1 == pytest.approx(ref["ICC2"][0], abs=1e-9)
    assert res.icck == pytest.approx(ref["ICC2k"][0], abs=1e-9)
    # pingouin rounds its interval bounds to 2 decimals
    for got, want in ((res.icc1_lo, ref["ICC2"][1]), (res.icc1_hi, ref["ICC2"][2]),
                      (res.icck_lo, ref["ICC2k"][1]), (res.icck_hi, ref["ICC2k"][2])):
        assert got == pytest.approx(want, abs=0.0051)


def _ols_reduction(columns: list[np.ndarray], y: np.ndarray) -> tuple[float, int]:
    x = np.column_stack(columns)
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    fit = x @ beta
    return float(fit @ y), int(np.linalg.matrix_rank(x))


def test_icc_on_an_incomplete_design_uses_henderson_method_three() -> None:
    """Overlap 3 of 8 raters, some scores missing: the mean squares are the fitting-constants reductions of
    dummy-variable least squares (computed here independently)."""
    rng = np.random.default_rng(7)
    n_t, n_r = 40, 8
    rows = []
    for t in range(n_t):
        for r in rng.choice(n_r, 3, replace=False):
            if rng.random() > 0.1:
                rows.append((t, r, float(np.clip(round(3 + rng.normal() + 0.3 * (r - 4)), 1, 5))))
    task, rater, y = (np.array(c) for c in zip(*rows, strict=True))
    task = task.astype(np.int64)
    rater = rater.astype(np.int64)
    res = coefficients.icc_two_way(task, rater, y)
    assert not res.complete
    dt = (task[:, None] == np.unique(task)[None, :]).astype(float)
    dr = (rater[:, None] == np.unique(rater)[None, :]).astype(float)
    full, rank_full = _ols_reduction([dt, dr], y)
    r_t, rank_t = _ols_reduction([dt], y)
    r_r, rank_r = _ols_reduction([dr], y)
    n = y.size
    ms_e = (float(y @ y) - full) / (n - rank_full)
    ms_t = (full - r_r) / (rank_full - rank_r)
    ms_r = (full - r_t) / (rank_full - rank_t)
    k0 = (n - dr.shape[1]) / (rank_full - rank_r)
    n0 = (n - dt.shape[1]) / (rank_full - rank_t)
    icc1 = (ms_t - ms_e) / (ms_t + (k0 - 1) * ms_e + k0 * (ms_r - ms_e) / n0)
    assert res.icc1 == pytest.approx(icc1, abs=1e-9)
    assert res.k == pytest.approx(k0)
    assert res.icc1_lo is not None and res.icc1_lo < res.icc1 < res.icc1_hi  # type: ignore[operator]


def test_icc_says_why_it_cannot_be_computed() -> None:
    one_rater = coefficients.icc_two_way(np.arange(5), np.zeros(5, np.int64), np.arange(5.0))
    assert one_rater.icc1 is None and one_rater.note == "only one rater"
    t, r, _ = _long(np.ones((5, 3)))
    flat = coefficients.icc_two_way(t, r, np.full(t.size, 3.0))
    assert flat.icc1 is None and flat.note and "no variation" in flat.note


def test_fleiss_kappa_reproduces_the_1971_example_and_statsmodels() -> None:
    from statsmodels.stats.inter_rater import fleiss_kappa

    value, why = coefficients.fleiss_kappa(FLEISS_TABLE)
    assert why is None and round(value, 3) == 0.210  # type: ignore[arg-type]
    rng = np.random.default_rng(3)
    for _ in range(20):
        table = rng.multinomial(5, rng.dirichlet(np.ones(3)), size=rng.integers(2, 40))
        value, why = coefficients.fleiss_kappa(table)
        assert value == pytest.approx(fleiss_kappa(table), abs=1e-12)


def test_fleiss_kappa_undefined_without_variation() -> None:
    value, why = coefficients.fleiss_kappa(np.array([[3, 0], [3, 0]]))
    assert value is None and why and "same category" in why
    value, why = coefficients.fleiss_kappa(np.array([[1, 0], [0, 1]]))
    assert value is None and why == "no task has two or more ratings"


def _counts(matrix: list[list[float]], q: int = 5) -> np.ndarray:
    m = np.array(matrix, dtype=float).T  # (subjects, raters)
    t, _, v = _long(m)
    return _rated(t, (v - 1).astype(np.int64), q)


def _rated(task: np.ndarray, category: np.ndarray, q: int) -> np.ndarray:
    """(tasks with a rating, categories) counts, as the report builds them."""
    vc = agreement.value_counts(task, category, int(task.max()) + 1, q)
    return vc[vc.sum(axis=1) > 0]


# irrCAC 0.4.4 (Gwet's package, Python port), CAC(data, weights="quadratic", categories=[1..5]).gwet() on
# GWET_2014: AC2 0.914, pa 0.97538, pe 0.7137. Recorded here: irrcac pins scipy==1.12.0 and cannot be
# installed beside the project's dependencies, so the random-data test below uses a subject-by-subject
# implementation written from Gwet's formulas instead.
IRRCAC_GWET_2014 = {"ac2": 0.914, "pa": 0.97538, "pe": 0.7137}


def test_gwet_reproduces_the_2014_example() -> None:
    counts = _counts(GWET_2014)
    unweighted = coefficients.gwet_ac2(counts, np.eye(5))
    assert round(unweighted.ac2, 4) == 0.7754  # type: ignore[arg-type]  # AC1, as published
    res = coefficients.gwet_ac2(counts, coefficients.quadratic_weights(5))
    assert round(res.ac2, 3) == IRRCAC_GWET_2014["ac2"]  # type: ignore[arg-type]
    assert res.pa == pytest.approx(IRRCAC_GWET_2014["pa"], abs=1e-5)
    assert res.pe == pytest.approx(IRRCAC_GWET_2014["pe"], abs=1e-4)


def _gwet_by_subject(m: np.ndarray, q: int) -> float:
    """AC2 with quadratic weights, one subject at a time (Gwet 2014, eq. 3.6.x, written out plainly)."""
    w = [[1 - (k - j) ** 2 / (q - 1) ** 2 for j in range(q)] for k in range(q)]
    pa_terms, pi = [], [0.0] * q
    n_rated = 0
    for row in m:
        vals = [int(v) - 1 for v in row if not math.isnan(v)]
        if not vals:
            continue
        n_rated += 1
        r_ik = [vals.count(k) for k in range(q)]
        for k in range(q):
            pi[k] += r_ik[k] / len(vals)
        if len(vals) >= 2:
            star = [sum(w[k][j] * r_ik[j] for j in range(q)) for k in range(q)]
            pa_terms.append(sum(r_ik[k] * (star[k] - 1) for k in range(q)) / (len(vals) * (len(vals) - 1)))
    pa = sum(pa_terms) / len(pa_terms)
    pi = [p / n_rated for p in pi]
    tw = sum(sum(row) for row in w)
    pe = tw / (q * (q - 1)) * sum(p * (1 - p) for p in pi)
    return (pa - pe) / (1 - pe)


@settings(max_examples=20, deadline=None)
@given(st.integers(3, 30), st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_gwet_ac2_equals_the_subject_by_subject_formula_with_missing_ratings(n: int, k: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = rng.integers(1, 6, size=(n, k)).astype(float)
    m[rng.random((n, k)) < 0.25] = np.nan
    if (np.sum(~np.isnan(m), axis=1) >= 2).sum() == 0:
        return
    t, _, v = _long(m)
    res = coefficients.gwet_ac2(_rated(t, (v - 1).astype(np.int64), 5),
                                coefficients.quadratic_weights(5))
    want = _gwet_by_subject(m, 5)
    if res.ac2 is None:
        assert not math.isfinite(want) or abs(want) > 1e6
    else:
        assert res.ac2 == pytest.approx(want, abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 6), st.integers(2, 30), st.integers(0, 2**32 - 1))
def test_pairwise_kappas_equal_the_pair_by_pair_formula(n_raters: int, n_tasks: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    mat = rng.integers(0, 5, size=(n_raters, n_tasks))
    mat[rng.random(mat.shape) < 0.4] = -1
    r, t = np.nonzero(mat >= 0)
    got = coefficients.pairwise_kappas(t.astype(np.int64), r.astype(np.int64), mat[r, t], 5, n_raters)
    by_pair = {(int(a), int(b)): (int(s), k) for a, b, s, k in
               zip(got.rater_a, got.rater_b, got.shared, got.kappa, strict=True)}
    for a in range(n_raters):
        for b in range(a + 1, n_raters):
            both = (mat[a] >= 0) & (mat[b] >= 0)
            if not both.any():
                assert (a, b) not in by_pair
                continue
            shared, kappa = by_pair[(a, b)]
            assert shared == int(both.sum())
            want = agreement.quadratic_kappa(mat[a][both], mat[b][both], 5)
            if want is None:
                assert math.isnan(kappa)
            else:
                assert kappa == pytest.approx(want, abs=1e-12)
