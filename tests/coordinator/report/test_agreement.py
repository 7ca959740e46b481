"""Agreement: alpha against the krippendorff package and Krippendorff's (2011) published example, kappa
against a worked example and an independent formula, and datasets with known answers."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.kit.ratings import Spec, dataset_of, make_ratings, records_from_matrix, rubric
from wmcdp_desktop.coordinator.report import agreement, intervals
from wmcdp_desktop.coordinator.report.common import rng_for
from wmcdp_desktop.core.models.rubric import Rubric

NAN = math.nan
# Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability, section C (4 observers, 12 units).
KRIPP_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]
KRIPP_2011_PUBLISHED = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849}
VALUES = np.arange(1.0, 6.0)


def _vc(matrix: list[list[float]]) -> np.ndarray:
    m = np.array(matrix, dtype=float)
    raters, units = np.nonzero(~np.isnan(m))
    return agreement.value_counts(units, (m[raters, units] - 1).astype(np.int64), m.shape[1], 5)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_matches_krippendorff_2011_published_values(level: str) -> None:
    vc = _vc(KRIPP_2011)
    value, why = agreement.alpha_point(vc, VALUES, level)  # type: ignore[arg-type]
    assert why is None and value is not None
    assert round(value, 3) == KRIPP_2011_PUBLISHED[level]
    # The vectorised formula used by the bootstrap gives the same number.
    vec = agreement.alpha_from_coincidences(agreement.unit_coincidences(agreement.pairable_units(vc)).sum(0)[None],
                                            VALUES, level)  # type: ignore[arg-type]
    assert vec[0] == pytest.approx(value, abs=1e-12)


def test_whole_pipeline_reproduces_the_published_example() -> None:
    """Records built from the 2011 matrix (same value on every dimension) give the published alphas."""
    matrix = [[None if math.isnan(v) else int(v) for v in row] for row in KRIPP_2011]
    ds = dataset_of(records_from_matrix(matrix), rubric())
    res = agreement.analyse_agreement(ds, seed=1, b=50)
    table = res.tables[0]
    col = table.columns
    for row in table.rows:
        assert round(row[col.index("alpha_ordinal")], 3) == 0.815
        assert round(row[col.index("alpha_interval")], 3) == 0.849
        assert row[col.index("pairable_tasks")] == 11  # unit 12 has one value only
        assert row[col.index("pairable_values")] == 40


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["nominal", "ordinal", "interval"]))
def test_vectorised_bootstrap_alpha_equals_package_on_the_same_resample(seed: int, level: str) -> None:
    rng = np.random.default_rng(seed)
    units = int(rng.integers(3, 30))
    m = rng.integers(1, 6, size=(int(rng.integers(2, 5)), units)).astype(float)
    m[rng.random(m.shape) < 0.2] = np.nan
    vc = agreement.pairable_units(_vc(m.tolist()))
    if len(vc) == 0 or (vc.sum(0) > 0).sum() < 2:
        return
    idx = rng.integers(0, len(vc), size=len(vc))
    sample = vc[idx]
    if (sample.sum(0) > 0).sum() < 2:
        return
    expected = krippendorff.alpha(value_counts=sample, value_domain=VALUES, level_of_measurement=level)
    weights = np.bincount(idx, minlength=len(vc)).astype(float)[None]
    got = agreement.alpha_from_coincidences(weights @ agreement.unit_coincidences(vc), VALUES, level)  # type: ignore[arg-type]
    assert got[0] == pytest.approx(expected, abs=1e-9)


def test_kappa_worked_example_two_categories() -> None:
    """Cohen's classic 2x2 example (20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no): kappa = 0.4.

    With two categories the quadratic weights are 0/1, so weighted kappa equals Cohen's kappa.
    """
    a = np.array([0] * 20 + [0] * 5 + [1] * 10 + [1] * 15)
    b = np.array([0] * 20 + [1] * 5 + [0] * 10 + [1] * 15)
    assert agreement.quadratic_kappa(a, b, 2) == pytest.approx(0.4)


def _kappa_by_moments(a: np.ndarray, b: np.ndarray) -> float:
    """Independent formula: quadratic-weighted kappa = 2 cov(a,b) / (var a + var b + (mean a - mean b)^2),
    with population (1/n) moments (Schuster 2004)."""
    cov = ((a - a.mean()) * (b - b.mean())).mean()
    return float(2 * cov / (a.var() + b.var() + (a.mean() - b.mean()) ** 2))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=60))
def test_kappa_matches_moment_formula(pairs: list[tuple[int, int]]) -> None:
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    got = agreement.quadratic_kappa(a, b, 5)
    denominator = a.var() + b.var() + (a.mean() - b.mean()) ** 2
    if denominator == 0:
        assert got is None
    else:
        assert got == pytest.approx(_kappa_by_moments(a, b), abs=1e-9)


def _alpha_col(res: agreement.AgreementResults, name: str) -> list[float | None]:
    t = res.tables[0]
    return [row[t.columns.index(name)] for row in t.rows]


def _named(res, name):  # type: ignore[no-untyped-def]
    return next(t for t in res.tables if t.name == name)


def test_perfect_agreement_gives_alpha_and_kappa_one() -> None:
    ds = dataset_of(make_ratings(Spec(n_items=10, raters=3, noise=0)), rubric())
    res = agreement.analyse_agreement(ds, 1, 100)
    assert _alpha_col(res, "alpha_ordinal") == [pytest.approx(1.0)] * 8
    assert _alpha_col(res, "alpha_interval") == [pytest.approx(1.0)] * 8
    kappas = [row[4] for row in _named(res, "kappa_pairs").rows]
    assert kappas and all(k == pytest.approx(1.0) for k in kappas)


def test_random_ratings_give_alpha_near_zero() -> None:
    ds = dataset_of(make_ratings(Spec(n_items=60, models=("m1", "m2", "m3"), raters=4, random_ratings=True,
                                         seed=3)), rubric())
    res = agreement.analyse_agreement(ds, 1, 200)
    alphas = np.array(_alpha_col(res, "alpha_interval"), dtype=float)
    assert np.all(np.abs(alphas) < 0.12), alphas
    assert abs(alphas.mean()) < 0.05
    lows = np.array(_alpha_col(res, "interval_ci_low"), dtype=float)
    highs = np.array(_alpha_col(res, "interval_ci_high"), dtype=float)
    assert np.mean((lows <= 0) & (highs >= 0)) >= 0.75  # the interval mostly covers 0


def test_one_inverted_rater_lowers_alpha_and_gives_negative_kappa_for_their_pairs() -> None:
    base = Spec(n_items=30, raters=3, noise=0.4, seed=5)
    good = agreement.analyse_agreement(dataset_of(make_ratings(base), rubric()), 1, 0)
    inv = Spec(n_items=30, raters=3, noise=0.4, seed=5, inverted=(2,))
    ds = dataset_of(make_ratings(inv), rubric())
    bad = agreement.analyse_agreement(ds, 1, 0)
    a_good = np.array(_alpha_col(good, "alpha_ordinal"), dtype=float)
    a_bad = np.array(_alpha_col(bad, "alpha_ordinal"), dtype=float)
    assert np.all(a_good > 0.7) and np.all(a_bad < a_good - 0.5)
    for dim, ra, rb, _, kappa, _note in _named(bad, "kappa_pairs").rows:
        if "rater-3" in (ra, rb):
            assert kappa < 0, (dim, ra, rb, kappa)
        else:
            assert kappa > 0.6, (dim, ra, rb, kappa)
    per_rater = {row[0]: row[1:-1] for row in _named(bad, "kappa_by_rater").rows}
    assert all(k < 0 for k in per_rater["rater-3"])


def test_bootstrap_is_reproducible_for_a_seed_and_changes_with_it() -> None:
    ds = dataset_of(make_ratings(Spec(n_items=15, raters=3, noise=0.8, seed=2)), rubric())
    one = agreement.analyse_agreement(ds, 11, 200).tables[0].rows
    two = agreement.analyse_agreement(ds, 11, 200).tables[0].rows
    other = agreement.analyse_agreement(ds, 12, 200).tables[0].rows
    assert one == two
    assert [r[8] for r in one] != [r[8] for r in other]
    assert [r[7] for r in one] == [r[7] for r in other]  # the point estimate does not depend on the seed


def test_interval_contains_point_estimate() -> None:
    ds = dataset_of(make_ratings(Spec(n_items=20, raters=3, noise=0.7, seed=8)), rubric())
    for row in agreement.analyse_agreement(ds, 3, 300).tables[0].rows:
        assert row[8] <= row[7] <= row[9]
        assert row[11] <= row[10] <= row[12]


def test_na_is_left_out_and_reported() -> None:
    # rater-1 says N/A on task 0 for every dimension; others score. Task 1: all score.
    matrix = [["N/A", 4, 2], [3, 4, 2], [3, 4, 2]]
    obj = rubric().to_json_obj()
    for dim in obj["dimensions"]:
        dim["allow_na"] = True  # N/A allowed on every dimension
    ds = dataset_of(records_from_matrix(matrix), Rubric.model_validate(obj))
    res = agreement.analyse_agreement(ds, 1, 0)
    alpha_t, na_t, na_rater = res.tables[0], _named(res, "na_by_dimension"), _named(res, "na_by_rater")
    row = alpha_t.rows[0]
    assert row[alpha_t.columns.index("na_ratings")] == 1
    assert row[alpha_t.columns.index("pairable_values")] == 8  # 2 + 3 + 3, the N/A is not a value
    assert row[alpha_t.columns.index("alpha_ordinal")] == pytest.approx(1.0)
    assert na_t.rows[0][na_t.columns.index("tasks_split_na_vs_score")] == 1
    assert na_t.rows[0][na_t.columns.index("na_rate")] == pytest.approx(1 / 9)
    rates = {r[0]: r[1] for r in na_rater.rows}
    assert rates == {"rater-1": pytest.approx(1 / 3), "rater-2": 0.0, "rater-3": 0.0}


def test_all_na_dimension_gives_a_note_not_a_number() -> None:
    ds = dataset_of(make_ratings(Spec(n_items=5, raters=3, all_na_dims=(2,))), rubric())
    res = agreement.analyse_agreement(ds, 1, 50)
    row = res.tables[0].rows[2]
    assert row[7] is None and row[10] is None
    assert "N/A" in row[-1]
    assert any("WM-RUB-003" in n.text and "N/A" in n.text for n in res.notes)


def test_no_variation_gives_a_note_not_nan() -> None:
    ds = dataset_of(records_from_matrix([[3, 3, 3], [3, 3, 3]]), rubric())
    res = agreement.analyse_agreement(ds, 1, 50)
    row = res.tables[0].rows[0]
    assert row[7] is None and "no variation" in row[-1]
    pairs = _named(res, "kappa_pairs")
    assert all(r[4] is None for r in pairs.rows)  # kappa undefined, not NaN, and the table says why
    assert all(r[5] == "no variation: both raters gave one and the same score on every shared task" for r in pairs.rows)
    assert all("no variation" in r[-1] for r in _named(res, "kappa_by_rater").rows)


def test_single_rater_is_noted() -> None:
    ds = dataset_of(make_ratings(Spec(n_items=4, raters=1)), rubric())
    res = agreement.analyse_agreement(ds, 1, 50)
    assert all(r[7] is None for r in res.tables[0].rows)
    assert any("one rater" in n.text for n in ds.notes)


def test_failure_mode_presence_and_severity_agreement() -> None:
    sev = [["major", "none", "minor", "none"], ["major", "none", "minor", "none"]]
    ds = dataset_of(records_from_matrix([[3, 4, 2, 5], [3, 4, 2, 5]], severities=sev), rubric())  # type: ignore[arg-type]
    t = agreement.analyse_agreement(ds, 1, 0).tables[-1]
    first = dict(zip(t.columns, t.rows[0], strict=True))
    assert first["share_present"] == pytest.approx(0.5)
    assert first["share_major"] == pytest.approx(0.25)
    assert first["alpha_presence_nominal"] == pytest.approx(1.0)
    assert first["alpha_severity_ordinal"] == pytest.approx(1.0)
    second = dict(zip(t.columns, t.rows[1], strict=True))
    assert second["share_present"] == 0 and second["alpha_presence_nominal"] is None


def test_rng_streams_are_independent_of_order() -> None:
    a = rng_for(5, "alpha", "WM-RUB-001").integers(0, 1000, 5)
    rng_for(5, "alpha", "WM-RUB-002").integers(0, 1000, 5)
    b = rng_for(5, "alpha", "WM-RUB-001").integers(0, 1000, 5)
    assert list(a) == list(b)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["nominal", "ordinal", "interval"]))
def test_alpha_equals_the_krippendorff_package(seed: int, level: str) -> None:
    """Every alpha of the report (one formula on coincidence matrices) gives the package's number, or no
    number exactly where the package has none to give."""
    rng = np.random.default_rng(seed)
    m = rng.integers(1, 6, size=(int(rng.integers(2, 6)), int(rng.integers(2, 40)))).astype(float)
    m[rng.random(m.shape) < 0.3] = np.nan
    vc = _vc(m.tolist())
    got, why = agreement.alpha_point(vc, VALUES, level)  # type: ignore[arg-type]
    pairable = agreement.pairable_units(vc)
    if len(pairable) == 0 or (pairable.sum(0) > 0).sum() < 2:
        assert got is None and why
        return
    want = krippendorff.alpha(value_counts=pairable, value_domain=VALUES, level_of_measurement=level)
    assert why is None and got == pytest.approx(want, abs=1e-12)


def test_sums_by_shuffled_label_equal_a_plain_loop() -> None:
    """The shuffled copies' per-label sums (one sparse product for every copy) equal summing cell by cell."""
    rng = np.random.default_rng(3)
    item, rater = rng.integers(0, 7, 60), rng.integers(0, 4, 60)
    sh = intervals.shuffles(item, rater, 4, seed=2, count=9)
    values = rng.normal(size=(sh.cell_item.size, 3))
    expected = np.zeros((9, 4, 3))
    for p in range(9):
        for k in range(sh.cell_item.size):
            expected[p, sh.labels[p, k]] += values[k]
    assert np.allclose(sh.by_label(values), expected)
    assert np.allclose(sh.by_label(values[:, 0]), expected[:, :, 0])
    assert np.allclose(sh.by_rater(values), [values[sh.cell_rater == r].sum(0) for r in range(4)])
