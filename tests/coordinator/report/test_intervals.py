"""Intervals over items and raters (two-way jackknife): the leave-one-out alphas equal the package on the
reduced data, the linear case equals the ANOVA formula, and the report refuses an interval it cannot back."""

from __future__ import annotations

from types import SimpleNamespace

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.kit.ratings import Spec, dataset_of, make_ratings, records_from_matrix, rubric
from wmcdp_desktop.coordinator.report import agreement, per_model
from wmcdp_desktop.coordinator.report.intervals import MIN_ITEMS, shuffles, two_way_interval

VALUES = np.arange(1.0, 6.0)


def _package_alpha(task: np.ndarray, index: np.ndarray, n_tasks: int, level: str) -> float:
    vc = agreement.pairable_units(agreement.value_counts(task, index, n_tasks, 5))
    return float(krippendorff.alpha(value_counts=vc, value_domain=VALUES, level_of_measurement=level))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 100_000), st.sampled_from(["ordinal", "interval", "nominal"]))
def test_left_out_alphas_equal_the_package_on_the_reduced_data(seed: int, level: str) -> None:
    rng = np.random.default_rng(seed)
    n_items, n_models, n_raters = int(rng.integers(3, 8)), int(rng.integers(1, 4)), int(rng.integers(3, 6))
    ii, mm, rr = (a.ravel() for a in np.meshgrid(np.arange(n_items), np.arange(n_models), np.arange(n_raters),
                                                 indexing="ij"))
    keep = rng.random(ii.size) > 0.25
    ii, mm, rr = ii[keep], mm[keep], rr[keep]
    task = ii * n_models + mm
    index = rng.integers(0, 5, ii.size)
    n_tasks = n_items * n_models

    ds = SimpleNamespace(item_ids=list(range(n_items)), rater_ids=list(range(n_raters)), item=ii, rater=rr)
    plan = agreement.AlphaIntervals(ds, 3, seed)  # type: ignore[arg-type]  # what it reads of a dataset
    vc = agreement.value_counts(task, index, n_tasks, 5)
    res = plan.add(task, index, np.arange(ii.size), vc, VALUES, (level,))  # type: ignore[arg-type]
    if res[level].alpha is None or not plan.jobs:
        return
    o_items, o_raters, o_null, has = plan.coincidences(plan.jobs[0])
    pairable_items = [i for i in range(n_items) if (vc[i * n_models:(i + 1) * n_models].sum(1) >= 2).any()]
    assert len(o_items) == len(pairable_items)

    def check(o_row: np.ndarray, keep_rows: np.ndarray) -> None:
        sub = agreement.value_counts(task[keep_rows], index[keep_rows], n_tasks, 5)
        if len(agreement.pairable_units(sub)) == 0 or (agreement.pairable_units(sub).sum(0) > 0).sum() < 2:
            return
        got = agreement.alpha_from_coincidences(o_row[None], VALUES, level)[0]  # type: ignore[arg-type]
        assert got == pytest.approx(_package_alpha(task[keep_rows], index[keep_rows], n_tasks, level), abs=1e-9)

    for k, i in enumerate(pairable_items):
        check(o_items[k], ii != i)
    raters_in = [r for r in range(n_raters) if (vc[task[rr == r]].sum(1) >= 2).any()]
    for k, r in enumerate(raters_in):
        check(o_raters[k], rr != r)
    sh = plan.shuffles
    for p in range(3):
        new = sh.labels[p, sh.row_cell]
        for r in range(n_raters):
            if has[p, r]:
                check(o_null[p * n_raters + r], new != r)


def test_shuffles_permute_each_items_own_raters_and_follow_the_seed() -> None:
    rng = np.random.default_rng(0)
    item, rater = rng.integers(0, 6, 40), rng.integers(0, 5, 40)
    a = shuffles(item, rater, 5, seed=3, count=20)
    assert np.array_equal(a.labels, shuffles(item, rater, 5, seed=3, count=20).labels)
    assert not np.array_equal(a.labels, shuffles(item, rater, 5, seed=4, count=20).labels)
    assert np.array_equal(a.cell_item[a.row_cell], item) and np.array_equal(a.cell_rater[a.row_cell], rater)
    for i in range(6):
        own = np.sort(a.cell_rater[a.cell_item == i])
        assert all(np.array_equal(np.sort(row[a.cell_item == i]), own) for row in a.labels)
    assert len({tuple(row) for row in a.labels}) > 1


def _grid(n_items: int, n_raters: int) -> tuple[np.ndarray, np.ndarray]:
    item, rater = np.meshgrid(np.arange(n_items), np.arange(n_raters), indexing="ij")
    return item.ravel(), rater.ravel()


def _balanced(seed: int, n_items: int = 12, n_raters: int = 4) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = 3 + rng.normal(0, 0.6, (n_items, 1)) + rng.normal(0, 0.4, (1, n_raters)) + rng.normal(0, 0.7, (n_items, n_raters))
    return y, np.ones_like(y)


def test_items_only_interval_of_a_mean_is_the_anova_t_interval() -> None:
    """Balanced items x raters: the delete-one-item jackknife variance of the mean is MS_items / (I R)."""
    y, c = _balanced(1)
    n_i, n_r = y.shape
    sh = shuffles(*_grid(n_i, n_r), n_r, seed=1, count=0)
    lo, hi, why = per_model.mean_interval(y.ravel(), c.ravel(), sh, n_i, fixed_raters=True)
    assert why is None and lo is not None and hi is not None
    ms_items = n_r * ((y.mean(1) - y.mean()) ** 2).sum() / (n_i - 1)
    half = 2.200985160082949 * np.sqrt(ms_items / (n_i * n_r))  # t(0.975, 11)
    assert (lo + hi) / 2 == pytest.approx(y.mean()) and (hi - lo) / 2 == pytest.approx(half)


def test_raters_like_these_widen_the_interval_by_the_rater_part() -> None:
    """With a large rater effect the interval for raters like these is wider than for these raters, and is
    close to the crossed ANOVA interval: variance (MS_items + MS_raters - MS_residual) / (I R), Satterthwaite
    df of that combination of mean squares."""
    rng = np.random.default_rng(2)
    n_i, n_r = 30, 5
    y = 3 + rng.normal(0, 0.5, (n_i, 1)) + np.array([[-0.8, -0.3, 0.0, 0.4, 0.9]]) + rng.normal(0, 0.6, (n_i, n_r))
    c = np.ones_like(y)
    sh = shuffles(*_grid(n_i, n_r), n_r, seed=5, count=400)
    lo_f, hi_f, _ = per_model.mean_interval(y.ravel(), c.ravel(), sh, n_i, fixed_raters=True)
    lo, hi, why = per_model.mean_interval(y.ravel(), c.ravel(), sh, n_i, fixed_raters=False)
    assert why is None and lo is not None and hi is not None and lo_f is not None and hi_f is not None
    assert hi - lo > 2 * (hi_f - lo_f)
    grand = y.mean()
    ms_i = n_r * ((y.mean(1) - grand) ** 2).sum() / (n_i - 1)
    ms_r = n_i * ((y.mean(0) - grand) ** 2).sum() / (n_r - 1)
    resid = y - y.mean(1, keepdims=True) - y.mean(0, keepdims=True) + grand
    ms_e = (resid**2).sum() / ((n_i - 1) * (n_r - 1))
    var = (ms_i + ms_r - ms_e) / (n_i * n_r)
    from scipy.stats import t as t_dist

    df = (ms_i + ms_r - ms_e) ** 2 / (ms_i**2 / (n_i - 1) + ms_r**2 / (n_r - 1) + ms_e**2 / ((n_i - 1) * (n_r - 1)))
    assert (hi - lo) / 2 == pytest.approx(t_dist.ppf(0.975, df) * np.sqrt(var), rel=0.05)


def test_no_evident_rater_part_is_pooled_into_the_noise(monkeypatch: pytest.MonkeyPatch) -> None:
    """Raters who differ only by noise: F = v_raters / v_shuffled is small, the rater part is pooled and the
    interval is the items-only one (t with items - 1 df), not widened by a noisy 2-df term."""
    rng = np.random.default_rng(3)
    y = 3 + rng.normal(0, 0.6, (20, 1)) + rng.normal(0, 0.7, (20, 3))  # no rater effect; F = 1.27 < 1.44
    c = np.ones_like(y)
    sh = shuffles(*_grid(20, 3), 3, seed=1, count=200)
    fixed = per_model.mean_interval(y.ravel(), c.ravel(), sh, 20, fixed_raters=True)
    like = per_model.mean_interval(y.ravel(), c.ravel(), sh, 20, fixed_raters=False)
    assert like == pytest.approx(fixed)
    from wmcdp_desktop.coordinator.report import intervals

    monkeypatch.setattr(intervals, "POOL_QUANTILE", 1e-12)  # never pool: the noisy rater term widens it
    unpooled = per_model.mean_interval(y.ravel(), c.ravel(), sh, 20, fixed_raters=False)
    assert unpooled[1] - unpooled[0] > 1.05 * (fixed[1] - fixed[0])  # type: ignore[operator]


def test_too_few_items_or_raters_give_no_interval_and_say_why() -> None:
    items = np.full(MIN_ITEMS - 1, 3.0)
    assert two_way_interval(3.0, items, np.ones(4), np.ones((2, 4)), fixed_raters=False,
                            bias_correct=False)[2] == f"{MIN_ITEMS - 1} items: an interval needs at least {MIN_ITEMS} items"
    lo, hi, why = two_way_interval(3.0, np.full(12, 3.0), np.full(2, 3.0), np.ones((2, 2)), fixed_raters=False,
                                   bias_correct=False)
    assert lo is None and hi is None and why is not None and "at least 3" in why and "--fixed-raters" in why
    lo, hi, why = two_way_interval(3.0, np.full(12, 3.0), None, None, fixed_raters=True, bias_correct=False)
    assert (lo, hi, why) == (3.0, 3.0, None)
    assert "undefined" in str(two_way_interval(0.5, np.array([0.4] * 11 + [np.nan]), np.ones(3), np.ones((1, 3)),
                                               fixed_raters=False, bias_correct=True)[2])


def test_two_raters_get_intervals_only_for_these_raters() -> None:
    ds = dataset_of(make_ratings(Spec(n_items=12, raters=2, noise=0.6, seed=3)), rubric())
    random_ = agreement.analyse_agreement(ds, 1, 50).tables[0]
    fixed = agreement.analyse_agreement(ds, 1, 50, fixed_raters=True).tables[0]
    note = random_.columns.index("note")
    assert all(r[8] is None and "needs at least 3" in r[note] for r in random_.rows)
    assert all(r[8] is not None and r[8] <= r[9] for r in fixed.rows)
    models = per_model.analyse_models(ds, 1, 50).tables[0]
    assert all(r[7] is None for r in models.rows)
    assert all(r[7] is not None for r in per_model.analyse_models(ds, 1, 50, fixed_raters=True).tables[0].rows)


def test_alpha_interval_is_centred_on_the_bias_corrected_alpha_and_stays_at_most_one() -> None:
    matrix = [[5, 4, 3, 2, 1, 5, 4, 3, 2, 1, 3, 4]] * 3  # perfect agreement on 12 items
    ds = dataset_of(records_from_matrix(matrix), rubric())
    row = agreement.analyse_agreement(ds, 1, 50).tables[0].rows[0]
    assert row[7] == pytest.approx(1.0) and row[8] == pytest.approx(1.0) and row[9] == pytest.approx(1.0)


def test_a_huge_bootstrap_is_lowered_to_bound_memory_and_the_report_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from wmcdp_desktop.coordinator.report import intervals, report

    monkeypatch.setattr(intervals, "MAX_LABEL_ENTRIES", 2_000)
    ds = dataset_of(make_ratings(Spec(n_items=12, raters=3, noise=0.6)), rubric())
    sh = intervals.shuffles(ds.item, ds.rater, 3, seed=1, count=1_000_000)
    assert sh.copies > 0 and sh.copies * sh.cell_item.size <= 2_000
    rep = report.compute_report(ds, 1, 1_000_000, with_charts=False)
    assert any(f"lowered to {sh.copies} shuffled-rater copies" in n.text for n in rep.notes)
    assert rep.tables()[0].rows[0][8] is not None
