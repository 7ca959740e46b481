"""The report applies item weights where it says "item_weighted", reports per-slice results with their
counts, and carries ICC, Gwet's AC2 and Fleiss' kappa tables whose cells say why they are empty."""

from __future__ import annotations

import numpy as np
import pytest

from tests.kit.ratings import Spec, dataset_of, item_doc, make_ratings, records_from_matrix, rubric
from wmcdp_desktop.coordinator.report import agreement, gold, per_model
from wmcdp_desktop.coordinator.report.coefficients import fleiss_kappa, icc_two_way
from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem


def _rows(tables, name):  # type: ignore[no-untyped-def]
    t = next(t for t in tables if t.name == name)
    return [dict(zip(t.columns, row, strict=True)) for row in t.rows]


def _items(n: int, weights: dict[str, float] | None = None, tags: dict[str, list[str]] | None = None,
           challenges: dict[str, list[str]] | None = None) -> dict[str, BenchmarkItem]:
    out = {}
    for i in range(n):
        item_id = f"item-{i + 1:03d}"
        doc = item_doc(item_id, "test", [{"id": "WM-RUB-001", "verdicts": ["satisfied"]}])
        doc["weight"] = (weights or {}).get(item_id, 1.0)
        doc["sliceTags"] = (tags or {}).get(item_id, [])
        doc["challengeAttributes"] = (challenges or {}).get(item_id, [])
        out[item_id] = BenchmarkItem.model_validate(doc)
    return out


def test_item_weighted_mean_and_gold_agreement_apply_the_weights() -> None:
    ds = dataset_of(make_ratings(Spec(n_items=8, raters=3, noise=0.5, seed=4)), rubric())
    weights = {"item-001": 5.0, "item-002": 0.5}
    ds.items = _items(8, weights)
    res = per_model.analyse_models(ds, 1, 50)
    w = ds.item_weight()[ds.item]
    for row in _rows(res.tables, "model_scores"):
        m = ds.model_ids.index(row["model"])
        d = [x.id for x in ds.dimensions].index(row["dimension"])
        keep = (ds.model == m) & ~np.isnan(ds.scores[:, d])
        want = float((ds.scores[keep, d] * w[keep]).sum() / w[keep].sum())
        assert row["item_weighted_mean"] == pytest.approx(want)
        assert row["item_weighted_mean"] != pytest.approx(row["mean"])  # the weights matter here
        assert row["item_weighted_ci_low"] <= row["item_weighted_mean"] <= row["item_weighted_ci_high"]
    crit = _rows(gold.analyse_gold(ds).tables, "gold_by_criterion")[0]
    verdict_ok = gold.dimension_verdicts(ds.scores[:, 0], ds.dimensions[0]) == gold.VERDICTS.index("satisfied")
    assert crit["agreement"] == pytest.approx(verdict_ok.mean())
    assert crit["item_weighted_agreement"] == pytest.approx((verdict_ok * w).sum() / w.sum())
    assert any("item_weighted" in n.text for n in build_dataset_notes(ds))


def build_dataset_notes(ds):  # type: ignore[no-untyped-def]
    return dataset_of(make_ratings(Spec(n_items=8, raters=3, seed=4)), ds.rubric, items=ds.items).notes


def test_slices_report_their_counts_and_means() -> None:
    ds = dataset_of(make_ratings(Spec(n_items=8, raters=3, noise=0.3, seed=2)), rubric())
    ds.items = _items(8, tags={"item-001": ["adolescent"], "item-002": ["adolescent", "parent"]},
                      challenges={"item-003": ["severity_edge"]})
    rows = _rows(per_model.analyse_models(ds, 1, 0).tables, "model_scores_by_slice")
    teen = [r for r in rows if (r["slice_kind"], r["slice"]) == ("tag", "adolescent")]
    assert {r["model"] for r in teen} == {"model-a", "model-b"}
    for r in teen:
        m = ds.model_ids.index(r["model"])
        keep = (ds.model == m) & np.isin(ds.item, [ds.item_ids.index("item-001"), ds.item_ids.index("item-002")])
        assert r["items"] == 2 and r["ratings"] == int(keep.sum())
        assert r["mean_WM-RUB-008"] == pytest.approx(float(np.nanmean(ds.scores[keep, 7])))
    assert [r["items"] for r in rows if r["slice"] == "severity_edge"] == [1, 1]
    assert {r["slice"] for r in rows if r["slice_kind"] == "split"} == {"test"}


def test_icc_gwet_and_fleiss_tables_match_their_functions_and_explain_blanks() -> None:
    ds = dataset_of(make_ratings(Spec(n_items=12, raters=4, noise=0.6, seed=9, all_na_dims=(2,))), rubric())
    res = agreement.analyse_agreement(ds, 1, 0)
    icc_rows = _rows(res.tables, "agreement_icc")
    assert [r["dimension"] for r in icc_rows] == [d.id for d in ds.dimensions]
    first = icc_rows[0]
    ref = icc_two_way(ds.task, ds.rater, ds.scores[:, 0])
    assert first["icc_2_1"] == pytest.approx(ref.icc1) and first["icc_2_k"] == pytest.approx(ref.icck)
    assert first["design"] == "complete" and first["k"] == pytest.approx(4)
    assert icc_rows[2]["icc_2_1"] is None and "N/A" in icc_rows[2]["note"]
    gwet_rows = _rows(res.tables, "agreement_gwet")
    assert 0 < gwet_rows[0]["ac2"] <= 1 and gwet_rows[2]["ac2"] is None and "N/A" in gwet_rows[2]["note"]
    fm = _rows(res.tables, "failure_mode_agreement")
    present = (ds.severity[:, 0] > 0).astype(np.int64)
    counts = np.zeros((len(ds.task_ids), 2), np.int64)
    np.add.at(counts, (ds.task, present), 1)
    assert fm[0]["fleiss_kappa_presence"] == pytest.approx(fleiss_kappa(counts)[0])


def test_fleiss_kappa_cell_says_why_it_is_empty() -> None:
    fm0 = rubric().failure_modes[0].id
    ds = dataset_of(records_from_matrix([[3, 4], [3, 4]]), rubric())  # no failure mode tagged anywhere
    rows = _rows(agreement.analyse_agreement(ds, 1, 0).tables, "failure_mode_agreement")
    row = next(r for r in rows if r["failure_mode"] == fm0)
    assert row["fleiss_kappa_presence"] is None
    assert "Fleiss' kappa: every rating is in the same category" in row["note"]
