"""Against gold (verdict mapping, agreement per criterion/rater, calibration) and rater behaviour."""

from __future__ import annotations

import numpy as np
import pytest

from tests.kit.ratings import Spec, dataset_of, item_doc, make_ratings, records_from_matrix, rubric
from wmcdp_desktop.coordinator.report import behaviour, gold
from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
from wmcdp_desktop.core.models.rubric import Scale


def _table(res, name):  # type: ignore[no-untyped-def]
    t = next(t for t in res.tables if t.name == name)
    return [dict(zip(t.columns, row, strict=True)) for row in t.rows]


def test_dimension_verdict_mapping_on_1_to_5() -> None:
    dim = rubric().dimensions[0]
    got = gold.dimension_verdicts(np.array([1, 2, 3, 4, 5, np.nan]), dim)
    assert [gold.VERDICTS[v] for v in got] == [
        "not_satisfied", "not_satisfied", "partially_satisfied", "satisfied", "satisfied", "not_applicable"]


def test_dimension_verdict_mapping_on_an_even_scale() -> None:
    dim = rubric().dimensions[0]
    anchors = [{"level": k, "text": f"level {k}"} for k in range(1, 5)]
    dim4 = dim.model_copy(update={"scale": Scale.model_validate({"min": 1, "max": 4, "anchors": anchors})})
    got = gold.dimension_verdicts(np.array([1, 2, 3, 4]), dim4)
    # The two middle levels are "partially", as the calibration feedback tells raters (one mapping).
    assert [gold.VERDICTS[v] for v in got] == ["not_satisfied", "partially_satisfied", "partially_satisfied",
                                               "satisfied"]


def test_dimension_verdict_bands_on_a_0_to_10_scale() -> None:
    dim = rubric().dimensions[0]
    anchors = [{"level": k, "text": f"level {k}"} for k in range(11)]
    dim10 = dim.model_copy(update={"scale": Scale.model_validate({"min": 0, "max": 10, "anchors": anchors})})
    got = [gold.VERDICTS[v][0] for v in gold.dimension_verdicts(np.arange(11.0), dim10)]
    assert "".join(got) == "nnnnppps" + "sss"  # p < 40% | 40%..60% | > 60%


def test_failure_mode_verdict_mapping() -> None:
    assert [gold.VERDICTS[v] for v in gold.FM_VERDICT] == [
        "satisfied", "partially_satisfied", "not_satisfied", "not_satisfied", "not_satisfied"]


def test_gold_agreement_per_criterion_rater_and_calibration() -> None:
    fm0 = rubric().failure_modes[0].id
    # item-000 (calibration), item-001 (test). rater-1 scores 5 and 4; rater-2 scores 2 and 3.
    matrix = [[5, 4], [2, 3]]
    sev = [["none", "minor"], ["major", None]]
    ds = dataset_of(records_from_matrix(matrix, severities=sev), rubric())  # type: ignore[arg-type]
    crit = [{"id": "WM-RUB-001", "verdicts": ["satisfied"]}, {"id": fm0, "verdicts": ["satisfied"]},
            {"id": "WM-FM-unknown", "verdicts": ["satisfied"]}]
    ds.items = {
        "item-000": BenchmarkItem.model_validate(item_doc("item-000", "calibration", crit)),
        "item-001": BenchmarkItem.model_validate(item_doc("item-001", "test", crit)),
    }
    res = gold.analyse_gold(ds)
    by_crit = {r["criterion"]: r for r in _table(res, "gold_by_criterion")}
    assert by_crit["WM-RUB-001"]["ratings"] == 4 and by_crit["WM-RUB-001"]["agree"] == 2
    assert by_crit["WM-RUB-001"]["rated_partially_satisfied"] == 1
    assert by_crit[fm0]["agree"] == 2  # rater-1 item-000 none, rater-2 item-001 none
    by_rater = {r["rater"]: r for r in _table(res, "gold_by_rater")}
    assert by_rater["rater-1"]["agreement"] == pytest.approx(3 / 4)
    assert by_rater["rater-1"]["calibration_agreement"] == pytest.approx(1.0)
    assert by_rater["rater-2"]["calibration_agreement"] == pytest.approx(0.0)
    assert any("WM-FM-unknown" in n.text for n in res.notes)


def test_no_items_gives_a_note() -> None:
    ds = dataset_of(make_ratings(Spec(n_items=2)), rubric())
    res = gold.analyse_gold(ds)
    assert res.notes and all(not t.rows for t in res.tables)


def test_time_straightlining_and_drift() -> None:
    spec = Spec(n_items=12, raters=3, noise=0.3, seed=6)
    recs = make_ratings(spec)
    # rater-3 straight-lines (all 3s) on every task.
    out = []
    for r in recs:
        if r.rater_id == "rater-3":
            scoring = r.scoring.model_copy(update={f: 3 for f in type(r.scoring).model_fields})
            r = r.model_copy(update={"scoring": scoring})
        out.append(r)
    ds = dataset_of(out, rubric())
    res = behaviour.analyse_behaviour(ds)
    straight = {r["rater"]: r for r in _table(res, "rater_straightlining")}
    assert straight["rater-3"]["share"] == 1.0 and straight["rater-3"]["flag"] == "review"
    assert straight["rater-1"]["share"] < 0.5 and straight["rater-1"]["flag"] == ""
    times = {r["rater"]: r for r in _table(res, "rater_time")}
    assert times["rater-1"]["median_s"] < times["rater-3"]["median_s"]
    assert times["rater-1"]["q1_s"] <= times["rater-1"]["median_s"] <= times["rater-1"]["q3_s"]


def test_drift_flags_a_rater_who_scores_higher() -> None:
    matrix = [[2, 3, 2, 3, 2, 3], [2, 3, 2, 3, 2, 3], [4, 5, 4, 5, 4, 5]]
    ds = dataset_of(records_from_matrix(matrix), rubric())
    res = behaviour.analyse_behaviour(ds)
    drift = {r["rater"]: r for r in _table(res, "rater_drift")}
    assert drift["rater-3"]["mean_signed_dev"] == pytest.approx(2.0)
    assert drift["rater-3"]["flag"] == "review"
    assert drift["rater-1"]["mean_signed_dev"] == pytest.approx(-1.0)  # 2 - mean(2, 4)
    assert any("rater-3" in n.text for n in res.notes)


def test_deviation_uses_other_raters_only() -> None:
    ds = dataset_of(records_from_matrix([[1], [3], [5]]), rubric())
    dev, row = behaviour.deviations(ds)
    assert list(row) == [pytest.approx(-3.0), pytest.approx(0.0), pytest.approx(3.0)]
    assert dev.shape == (3, 8) and dev[0, 0] == pytest.approx(1 - (3 + 5) / 2)


def test_confidence_against_deviation_table() -> None:
    ds = dataset_of(make_ratings(Spec(n_items=10, raters=3, noise=0.6)), rubric())
    res = behaviour.analyse_behaviour(ds)
    rows = _table(res, "confidence_vs_deviation")
    assert rows and sum(r["ratings"] for r in rows) == ds.n
    assert all(r["mean_abs_dev"] >= 0 for r in rows)


def test_gold_applies_only_to_the_named_gold_response(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from wmcdp_desktop.coordinator.report.loading import load_gold_responses
    from wmcdp_desktop.core.strict_json import dumps_canonical

    # One item, two responses (models good/poor); the gold describes the good one only.
    matrix = [[5, 1], [4, 2]]
    recs = records_from_matrix(matrix, models=["good", "poor"], items=["item-x", "item-x"])
    recs = [r.model_copy(update={"candidate_response_text": f"text of {r.model_source}"}) for r in recs]
    doc = item_doc("item-x", "test", [{"id": "WM-RUB-001", "verdicts": ["satisfied"]}])
    doc["metadata"] = {"goldResponseId": "resp-good"}
    items = {"item-x": BenchmarkItem.model_validate(doc)}
    (tmp_path / "responses").mkdir()
    lines = [{"response_id": f"resp-{m}", "benchmark_item_id": "item-x", "model_source": m, "text": f"text of {m}"}
             for m in ("good", "poor")]
    (tmp_path / "responses" / "r.jsonl").write_text(
        "".join(dumps_canonical(x).replace("\n", "") + "\n" for x in lines), encoding="utf-8")
    notes: list = []  # type: ignore[type-arg]
    gold_responses = load_gold_responses(tmp_path, items, notes)
    assert gold_responses == {"item-x": ("good", "text of good")} and not notes
    ds = dataset_of(recs, rubric(), items=items, gold_responses=gold_responses)
    rows = _table(gold.analyse_gold(ds), "gold_by_criterion")
    assert rows[0]["ratings"] == 2 and rows[0]["agreement"] == 1.0  # the poor response's 1 and 2 are not compared
    # Without the restriction both responses are compared with the same gold.
    ds_all = dataset_of(recs, rubric(), items=items)
    assert _table(gold.analyse_gold(ds_all), "gold_by_criterion")[0]["agreement"] == 0.5
    # Only the other response was rated: nothing is compared, and the note says why.
    poor_only = dataset_of([r for r in recs if r.model_source == "poor"], rubric(), items=items,
                              gold_responses=gold_responses)
    res = gold.analyse_gold(poor_only)
    assert not _table(res, "gold_by_criterion")
    assert any("goldResponseId" in n.text and "item-x" in n.text for n in res.notes)
    # A goldResponseId that is not found: the item is left out, with a note.
    doc["metadata"] = {"goldResponseId": "resp-missing"}
    missing = load_gold_responses(tmp_path, {"item-x": BenchmarkItem.model_validate(doc)}, notes)
    assert missing == {"item-x": None} and "resp-missing" in notes[0].text
