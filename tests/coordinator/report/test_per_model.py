"""Per-model results: means/medians with item bootstrap, failure-mode rates, overall distribution, paired
comparisons with an effect size."""

from __future__ import annotations

import numpy as np
import pytest

from tests.kit.ratings import Spec, dataset_of, make_ratings, records_from_matrix, rubric
from wmcdp_desktop.coordinator.report import per_model


def _rows(table, **match):  # type: ignore[no-untyped-def]
    cols = table.columns
    out = []
    for row in table.rows:
        d = dict(zip(cols, row, strict=True))
        if all(d[k] == v for k, v in match.items()):
            out.append(d)
    return out


def test_means_medians_and_intervals() -> None:
    # Two models, 10 items, 3 raters, same score from every rater on every dimension; "poor" is 3 lower.
    good_scores = [5, 4] * 5
    matrix = [good_scores + [s - 3 for s in good_scores]] * 3
    models = ["good"] * 10 + ["poor"] * 10
    items = [f"i{k}" for k in range(10)] * 2
    ds = dataset_of(records_from_matrix(matrix, models=models, items=items), rubric())
    res = per_model.analyse_models(ds, seed=1, b=100)
    good = _rows(res.tables[0], model="good", dimension="WM-RUB-001")[0]
    assert good["mean"] == pytest.approx(4.5) and good["median"] == pytest.approx(4.5)
    assert good["items"] == 10 and good["ratings"] == 30
    # Raters agree exactly, so only the items vary: the t interval over 10 items (t_9 * sd / sqrt(10)).
    half = 2.2621571628 * 0.5 * (10 / 9) ** 0.5 / 10**0.5
    assert good["mean_ci_low"] == pytest.approx(4.5 - half) and good["mean_ci_high"] == pytest.approx(4.5 + half)
    paired = _rows(res.tables[3], dimension="WM-RUB-001")[0]
    assert paired["model_a"] == "good" and paired["shared_items"] == 10
    assert paired["mean_diff"] == pytest.approx(3.0)
    assert paired["a_better"] == 10 and paired["rank_biserial"] == pytest.approx(1.0)
    assert paired["diff_ci_low"] == pytest.approx(3.0) and paired["diff_ci_high"] == pytest.approx(3.0)
    dist = _rows(res.tables[2], model="good")[0]
    assert dist["n_5"] == 15 and dist["n_4"] == 15 and dist["share_5"] == pytest.approx(0.5)


def test_model_shift_is_detected_in_paired_comparison() -> None:
    spec = Spec(n_items=40, models=("base", "better"), raters=3, noise=0.5, model_shift={"better": 1.0}, seed=4)
    ds = dataset_of(make_ratings(spec), rubric())
    res = per_model.analyse_models(ds, seed=2, b=400)
    rows = _rows(res.tables[3])
    assert len(rows) == 8
    diffs = np.array([r["mean_diff"] for r in rows])
    assert diffs.mean() < -0.5  # base - better
    assert sum(r["diff_ci_high"] < 0 for r in rows) >= 5
    assert all(r["p_holm"] >= r["wilcoxon_p"] for r in rows)
    assert np.mean([r["rank_biserial"] for r in rows]) < -0.4


def test_rank_biserial_known_value() -> None:
    # |d| ranks: 1 -> 1, 2 -> 2, 3 -> 3; positive ranks 1+3, negative 2: (4 - 2) / 6
    assert per_model.rank_biserial(np.array([1.0, -2.0, 3.0, 0.0])) == pytest.approx(1 / 3)
    assert per_model.rank_biserial(np.zeros(3)) is None


def test_wilcoxon_exact_known_value() -> None:
    # Five positive differences, no ties: the exact two-sided p is 2 * (1/2)^5 = 0.0625.
    assert per_model.wilcoxon_p(np.array([1.0, 2.0, 3.0, 4.0, 5.0])) == pytest.approx(0.0625)
    assert per_model.wilcoxon_p(np.zeros(4)) is None


def test_wilcoxon_is_deterministic_with_ties() -> None:
    d = np.array([1.0, 1.0, -0.5, 2.0, 1.0, 0.5, 1.5])
    assert per_model.wilcoxon_p(d) == per_model.wilcoxon_p(d)
    assert 0 < per_model.wilcoxon_p(d) < 0.2  # type: ignore[operator]


def test_model_with_one_item_gets_a_note_and_no_interval() -> None:
    spec = Spec(n_items=6, models=("many", "lonely"), raters=2, noise=0.5, single_item_models=("lonely",))
    ds = dataset_of(make_ratings(spec), rubric())
    res = per_model.analyse_models(ds, seed=1, b=100)
    lonely = _rows(res.tables[0], model="lonely")
    assert all(r["mean"] is not None and r["mean_ci_low"] is None for r in lonely)
    assert any("lonely" in n.text and "rated on 1 item:" in n.text for n in res.notes)
    paired = _rows(res.tables[3])
    assert all(r["diff_ci_low"] is None and r["wilcoxon_p"] is None for r in paired)


def test_failure_mode_rates_by_severity() -> None:
    sev = [["major", "none", "minor", "none"]]
    ds = dataset_of(records_from_matrix([[3, 4, 2, 5]], severities=sev), rubric())  # type: ignore[arg-type]
    res = per_model.analyse_models(ds, seed=1, b=0)
    first = _rows(res.tables[1], failure_mode=rubric().failure_modes[0].id)[0]
    assert first["share_major"] == pytest.approx(0.25) and first["share_minor"] == pytest.approx(0.25)
    assert first["share_none"] == pytest.approx(0.5) and first["share_present"] == pytest.approx(0.5)
    assert res.fm_present["model-a"][0] == pytest.approx(0.5)


def test_no_model_source_gives_a_note() -> None:
    recs = [r.model_copy(update={"model_source": None}) for r in make_ratings(Spec(n_items=2))]
    ds = dataset_of(recs, rubric())
    res = per_model.analyse_models(ds, seed=1, b=10)
    assert not res.tables[0].rows
    assert any("model_source" in n.text for n in [*res.notes, *ds.notes])


def test_per_model_bootstrap_reproducible() -> None:
    ds = dataset_of(make_ratings(Spec(n_items=8, noise=0.8, seed=9)), rubric())
    a = per_model.analyse_models(ds, seed=5, b=150)
    b = per_model.analyse_models(ds, seed=5, b=150)
    assert [t.rows for t in a.tables] == [t.rows for t in b.tables]
