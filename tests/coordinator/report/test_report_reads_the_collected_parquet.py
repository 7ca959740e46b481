"""`wmcdp report` reads the collected ratings.parquet (checked against collect-report.json's SHA-256) and
gives exactly the report the validated JSON lines give."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.kit.exports import record_obj
from tests.kit.studies import build_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.coordinator.report.collected_parquet import dataset_from_parquet
from wmcdp_desktop.coordinator.report.loading import load_dataset, load_items, load_study_and_rubric

pytest.importorskip("pyarrow")


def _collected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    built = build_study(tmp_path, n_items=8, n_raters=4, overlap=3)
    study = built.folder
    exports = []
    rng = np.random.default_rng(5)
    for rater in ("R1", "R2", "R3", "R4"):
        b = built.bundles[rater]
        recs: list[dict[str, Any]] = []
        for t in b.task_ids:
            rec = record_obj(b.task(t), rater, b.manifest.bundle_id, b.manifest_sha256, score=int(rng.integers(1, 6)))
            rec["scoring"]["overall_clinical_judgment_score"] = int(rng.integers(1, 6))
            rec["clinician_notes"]["confidence_rating"] = int(rng.integers(1, 6))
            recs.append(rec)
        path = built.export(rater, recs, f"export-{rater}.zip")
        exports.append(str(path))
    out = tmp_path / "results"
    assert main(["results", "collect", *exports, "--key", str(built.key),
                 "--out", str(out)]) == 0
    capsys.readouterr()
    return out, study


def _summary(collected: Path, study: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["report", str(collected), "--study", str(study), "--out", str(out), "--bootstrap", "30",
                 "--no-charts", "--json"]) == 0
    capsys.readouterr()
    return dict(json.loads((out / "summary.json").read_text(encoding="utf-8")))


def test_parquet_and_json_lines_give_the_same_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    collected, study = _collected(tmp_path, capsys)
    from_parquet = _summary(collected, study, tmp_path / "a", capsys)
    lines_only = tmp_path / "lines-only"
    shutil.copytree(collected, lines_only)
    (lines_only / "ratings.parquet").unlink()
    from_lines = _summary(lines_only, study, tmp_path / "b", capsys)
    assert from_parquet["tables"] == from_lines["tables"]
    assert from_parquet["meta"] == from_lines["meta"]
    note = [n["text"] for n in from_lines["notes"] if "ratings.parquet was not found" in n["text"]]
    assert note and from_parquet["notes"] == [n for n in from_lines["notes"] if n["text"] not in note]


def test_the_dataset_columns_are_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    collected, study = _collected(tmp_path, capsys)
    from_parquet = load_dataset(collected, study)
    lines_only = tmp_path / "lines-only"
    shutil.copytree(collected, lines_only)
    (lines_only / "ratings.parquet").unlink()
    from_lines = load_dataset(lines_only, study)
    for name in ("task_ids", "rater_ids", "item_ids", "model_ids", "blinding_guess"):
        assert getattr(from_parquet, name) == getattr(from_lines, name), name
    for name in ("task", "rater", "item", "model", "na", "severity", "gold_target", "submitted"):
        assert np.array_equal(getattr(from_parquet, name), getattr(from_lines, name)), name
    for name in ("scores", "confidence", "seconds"):
        assert np.array_equal(getattr(from_parquet, name), getattr(from_lines, name), equal_nan=True), name
    assert list(from_parquet.rationale) == list(from_lines.rationale)
    assert from_parquet.rationale[3] == from_lines.rationale[3]


def test_a_changed_parquet_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    collected, study = _collected(tmp_path, capsys)
    data = bytearray((collected / "ratings.parquet").read_bytes())
    data[len(data) // 2] ^= 1
    (collected / "ratings.parquet").write_bytes(bytes(data))
    code = main(["report", str(collected), "--study", str(study), "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 1 and "does not match the SHA-256" in err and "Traceback" not in err
    report = json.loads((collected / "collect-report.json").read_text(encoding="utf-8"))
    del report["outputs"]
    (collected / "collect-report.json").write_text(json.dumps(report), encoding="utf-8")
    assert main(["report", str(collected), "--study", str(study), "--out", str(tmp_path / "r"), "--json"]) == 1
    assert "does not record ratings.parquet's SHA-256" in capsys.readouterr().out


def test_a_parquet_of_other_column_types_is_refused_in_plain_words(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # Rewritten by another tool (scores as text) and its SHA-256 recorded again: the types are checked too.
    import hashlib

    import pyarrow as pa
    import pyarrow.parquet as pq

    collected, study = _collected(tmp_path, capsys)
    table = pq.read_table(collected / "ratings.parquet")
    i = table.schema.get_field_index("overall_judgment")
    old = table.schema.field(i)
    text = pa.array([None if v is None else str(v) for v in table.column(i).to_pylist()], pa.string())
    table = table.set_column(i, pa.field(old.name, pa.string(), metadata=old.metadata), text)
    pq.write_table(table, collected / "ratings.parquet")
    report = json.loads((collected / "collect-report.json").read_text(encoding="utf-8"))
    report["outputs"]["ratings.parquet"] = hashlib.sha256((collected / "ratings.parquet").read_bytes()).hexdigest()
    (collected / "collect-report.json").write_text(json.dumps(report), encoding="utf-8")
    code = main(["report", str(collected), "--study", str(study), "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err and "internal error" not in err
    assert "overall_judgment is string, not score" in err and "collect again" in err


def test_rows_that_break_the_studys_rubric_are_left_out_and_listed(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    collected, study = _collected(tmp_path, capsys)
    # The study's rubric narrowed after collecting: scores of 5 are now off the scale of WM-RUB-001.
    rubric_path = study / "rubric.json"
    rubric = json.loads(rubric_path.read_text(encoding="utf-8"))
    dim = rubric["dimensions"][0]
    dim["scale"] = {"min": 1, "max": 4, "anchors": dim["scale"]["anchors"][:4]}
    rubric_path.write_text(json.dumps(rubric), encoding="utf-8")
    st, rb = load_study_and_rubric(study)
    items, notes = load_items(study)
    ds = dataset_from_parquet(collected, rb, st, items, notes)
    assert ds.records_excluded > 0 and ds.n + ds.records_excluded == ds.records_read
    assert all("outside the rubric's scale 1-4" in p.message for p in ds.problems)
    assert not (ds.scores[:, 0] > 4).any()


def test_with_rows_left_out_the_ids_are_numbered_as_from_the_json_lines(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Tasks, raters and items are numbered in order of first appearance among the ratings kept (as the JSON
    Lines path numbers them), also when rows left out held a first appearance."""
    collected, study = _collected(tmp_path, capsys)
    rubric_path = study / "rubric.json"
    rubric = json.loads(rubric_path.read_text(encoding="utf-8"))
    for dim in rubric["dimensions"][:3]:  # scores of 4 and 5 now off these scales: about half the rows go
        dim["scale"] = {"min": 1, "max": 3, "anchors": dim["scale"]["anchors"][:3]}
    rubric_path.write_text(json.dumps(rubric), encoding="utf-8")
    lines_only = tmp_path / "lines-only"
    shutil.copytree(collected, lines_only)
    (lines_only / "ratings.parquet").unlink()
    from_parquet, from_lines = load_dataset(collected, study), load_dataset(lines_only, study)
    assert 0 < from_parquet.n < from_parquet.records_read
    for name in ("task_ids", "rater_ids", "item_ids", "model_ids"):
        assert getattr(from_parquet, name) == getattr(from_lines, name), name
    for name in ("task", "rater", "item", "model"):
        assert np.array_equal(getattr(from_parquet, name), getattr(from_lines, name)), name
