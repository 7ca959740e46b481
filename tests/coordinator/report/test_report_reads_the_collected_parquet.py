"""`wmcdp report` reads one input, the collected ratings.parquet (checked against collect-report.json's
SHA-256, its column types and the study's rubric); a collection without it is refused saying how to make one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.kit.exports import record_obj
from tests.kit.ratings import Spec, dataset_of, make_ratings, rubric
from tests.kit.studies import build_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.coordinator.report.collected_parquet import MAX_ROWS_WITH_PROBLEMS, dataset_from_parquet
from wmcdp_desktop.coordinator.report.loading import load_dataset, load_items, load_study_and_rubric
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.core.models.rubric import Rubric


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


def test_a_collection_without_parquet_says_how_to_make_one(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    collected, study = _collected(tmp_path, capsys)
    (collected / "ratings.parquet").unlink()  # as a collect without pyarrow leaves it: ratings.jsonl only
    assert (collected / "ratings.jsonl").is_file()
    code = main(["report", str(collected), "--study", str(study), "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert "has no ratings.parquet" in err and 'pip install "wmcdp-desktop[analysis]"' in err
    assert "`wmcdp results collect` again" in err and f"--out {collected}" in err
    assert not (tmp_path / "r").exists()
    assert main(["report", str(collected), "--study", str(study), "--out", str(tmp_path / "r"), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False and "has no ratings.parquet" in json.dumps(out)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["report", str(empty), "--study", str(study), "--out", str(tmp_path / "r")]) == 1
    assert "holds no ratings.parquet" in capsys.readouterr().err


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


def test_a_file_of_the_recorded_sha256_that_is_not_parquet_is_refused_in_plain_words(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Found by probing: bytes whose SHA-256 was recorded again but that are no Parquet file (or a cut one) ended
    in an internal error."""
    import hashlib

    collected, study = _collected(tmp_path, capsys)
    whole = (collected / "ratings.parquet").read_bytes()
    for data in (b"not parquet", b"PAR1" + bytes(100) + b"PAR1", whole[:-20]):
        (collected / "ratings.parquet").write_bytes(data)
        report = json.loads((collected / "collect-report.json").read_text(encoding="utf-8"))
        report["outputs"]["ratings.parquet"] = hashlib.sha256(data).hexdigest()
        (collected / "collect-report.json").write_text(json.dumps(report), encoding="utf-8")
        code = main(["report", str(collected), "--study", str(study), "--out", str(tmp_path / "r")])
        err = capsys.readouterr().err
        assert code == 1 and "internal error" not in err and "Traceback" not in err
        assert f"{collected / 'ratings.parquet'}: cannot be read as Parquet" in err and "collect` again" in err


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


def test_with_rows_left_out_the_ids_are_numbered_among_the_ratings_kept(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Tasks, raters and items are numbered in order of first appearance among the ratings kept, also when rows
    left out held a first appearance."""
    import pyarrow.parquet as pq

    collected, study = _collected(tmp_path, capsys)
    rubric_path = study / "rubric.json"
    obj = json.loads(rubric_path.read_text(encoding="utf-8"))
    for dim in obj["dimensions"][:3]:  # scores of 4 and 5 now off these scales: about half the rows go
        dim["scale"] = {"min": 1, "max": 3, "anchors": dim["scale"]["anchors"][:3]}
    rubric_path.write_text(json.dumps(obj), encoding="utf-8")
    ds = load_dataset(collected, study)
    assert 0 < ds.n < ds.records_read
    table = pq.read_table(collected / "ratings.parquet")
    table = table.rename_columns([f.metadata[b"wmcdp:name"].decode() for f in table.schema])
    rows = table.to_pylist()
    fields = [d["field"] for d in obj["dimensions"][:3]]
    kept = [r for r in rows if all(r[f] is None or r[f] <= 3 for f in fields)]
    assert len(kept) == ds.n
    assert ds.task_ids == list(dict.fromkeys(r["task_id"] for r in kept))
    assert ds.rater_ids == list(dict.fromkeys(r["rater_id"] for r in kept))
    assert ds.item_ids == list(dict.fromkeys(r["benchmark_item_id"] for r in kept))
    assert [ds.task_ids[t] for t in ds.task] == [r["task_id"] for r in kept]


def test_the_latest_revision_of_a_rater_and_task_is_kept_and_the_others_noted() -> None:
    records = make_ratings(Spec(n_items=3, raters=2))
    first = records[0].to_json_obj()
    first["envelope"]["revision"] = 2
    first["envelope"]["submitted_at"] = "2026-11-02T09:00:00Z"
    first["scoring"] = {k: 1 for k in first["scoring"]}
    revised = RatingRecord.model_validate(first)
    ds = dataset_of([*records, revised, records[1]])  # a second revision, and an exact duplicate
    assert ds.n == len(records) and ds.records_read == len(records) + 2
    at = [r for r in range(ds.n) if ds.task_ids[ds.task[r]] == records[0].envelope.task_id
          and ds.rater_ids[ds.rater[r]] == records[0].rater_id]
    assert len(at) == 1 and np.all(ds.scores[at[0]] == 1)
    assert any("2 older revisions or duplicates of the same rater and task were ignored" in n.text for n in ds.notes)


def test_many_rows_that_break_the_rubric_keep_a_few_problems_and_count_the_rest() -> None:
    obj = rubric().to_json_obj()
    obj.pop("translations", None)
    obj["dimensions"][0]["scale"] = {"min": 1, "max": 2, "anchors": obj["dimensions"][0]["scale"]["anchors"][:2]}
    narrow = Rubric.model_validate(obj)
    records = make_ratings(Spec(n_items=60, models=("m1", "m2"), raters=3, noise=0.5, seed=3))
    ds = dataset_of(records, narrow)
    assert ds.records_excluded > MAX_ROWS_WITH_PROBLEMS
    assert len(ds.problems) == MAX_ROWS_WITH_PROBLEMS
    assert ds.n + ds.records_excluded == ds.records_read == len(records)
    assert any("more problems not listed" in n.text for n in ds.notes)
