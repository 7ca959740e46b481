"""Reading ``ratings.jsonl`` into rows (``coordinator/report/rating_rows.py``): the same dataset as from records, every
bad line noted or refused, memory bounded for hostile files, progress reported."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from wmcdp_desktop.coordinator.report import loading
from wmcdp_desktop.coordinator.report.loading import build_dataset, load_dataset
from wmcdp_desktop.coordinator.report.rating_rows import MAX_LINES_WITH_PROBLEMS, read_rating_rows
from wmcdp_desktop.core.documents import load_jsonl
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.core.strict_json import parse_jsonl_bytes

from .synth import Spec, make_ratings, rubric, write_collected, write_study


def _mixed_lines(records: list[RatingRecord]) -> list[str]:
    """Valid records, then every kind of line the report must note or skip: schema errors, a rubric
    rule broken, a revision and an exact duplicate, blank lines."""
    lines = [json.dumps(r.to_json_obj(), ensure_ascii=False) for r in records]
    bad_schema = json.loads(lines[0])
    del bad_schema["scoring"]["safety_scope_boundaries_score"]
    off_scale = json.loads(lines[1])
    off_scale["scoring"]["overall_clinical_judgment_score"] = 9
    revision = json.loads(lines[2])
    revision["envelope"]["revision"] = 2
    revision["envelope"]["submitted_at"] = "2026-12-01T10:00:00Z"
    revision["clinician_notes"]["brief_rationale"] = "Revised after a second look."
    for i, obj in ((5, bad_schema), (11, off_scale), (17, revision)):
        lines.insert(i, json.dumps(obj))
    lines.insert(8, "")
    lines.insert(20, "   ")
    lines.append(lines[3])  # the same record twice
    return lines


@pytest.fixture(scope="module")
def study_and_collected(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("rows")
    spec = Spec(n_items=12, models=("model-a", "model-b", "model-c"), raters=3, noise=0.7, na_prob=0.2, fm_prob=0.3)
    study = write_study(tmp / "study", spec)
    collected = tmp / "collected"
    collected.mkdir()
    (collected / "ratings.jsonl").write_text("\n".join(_mixed_lines(make_ratings(spec))) + "\n", encoding="utf-8")
    return study, collected


def test_bad_lines_are_noted_and_the_latest_revision_kept(study_and_collected: tuple[Path, Path]) -> None:
    study, collected = study_and_collected
    ds = load_dataset(collected, study)
    assert ds.records_excluded == 2 and len({p.file for p in ds.problems}) == 2
    assert ds.records_read == len([line for line in (collected / "ratings.jsonl").read_text().splitlines() if line.strip()])
    assert any("older revision" in n.text for n in ds.notes)
    assert any("2 records were left out" in n.text for n in ds.notes)


def test_rows_give_the_same_dataset_as_records(study_and_collected: tuple[Path, Path]) -> None:
    """build_dataset (records in memory, as the statistics tests use it) and the file reader agree."""
    study, collected = study_and_collected
    from_file = load_dataset(collected, study)
    text = (collected / "ratings.jsonl").read_bytes()
    records, problems = [], []
    for number, obj in parse_jsonl_bytes(text, "x"):
        try:
            records.extend(load_jsonl(RatingRecord, json.dumps(obj).encode(), f"line {number}"))
        except DocumentError as exc:
            problems.extend(exc.problems)
    from_records = build_dataset(records, from_file.rubric)
    for name in ("task_ids", "rater_ids", "rationale"):
        assert getattr(from_records, name) == getattr(from_file, name)
    np.testing.assert_array_equal(from_records.scores, from_file.scores)
    np.testing.assert_array_equal(from_records.severity, from_file.severity)


def test_a_line_that_is_not_json_makes_the_file_unreadable_listing_every_such_line(tmp_path: Path) -> None:
    lines = [json.dumps(r.to_json_obj()) for r in make_ratings(Spec(n_items=6, raters=3))]
    lines[3] = "{not json"
    lines[30] = '{"a": 1, "a": 2}'
    path = tmp_path / "ratings.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DocumentError) as got:
        read_rating_rows(path, rubric())
    with pytest.raises(DocumentError) as expected:
        parse_jsonl_bytes(path.read_bytes(), str(path))  # what every JSON Lines reader of the project says
    assert [str(p) for p in got.value.problems] == [str(p) for p in expected.value.problems]
    assert [p.file for p in got.value.problems] == [f"{path} line 4", f"{path} line 31"]


def test_many_bad_lines_keep_a_few_problems_and_count_the_rest(tmp_path: Path) -> None:
    """Found by probing (issue 13): every problem of every line was kept; a 3 MB file of ``{}`` lines
    meant six million problems in memory (20,000 lines here, to keep the test quick)."""
    good = [json.dumps(r.to_json_obj()) for r in make_ratings(Spec(n_items=2, raters=2))]
    path = tmp_path / "ratings.jsonl"
    path.write_text("\n".join(good + ["{}"] * 20_000) + "\n", encoding="utf-8")
    found = read_rating_rows(path, rubric())
    assert found.excluded == 20_000 and found.lines == 20_000 + len(good) and len(found.rows) == len(good)
    assert len({p.file for p in found.problems}) == MAX_LINES_WITH_PROBLEMS
    assert len(found.problems) < 20 * MAX_LINES_WITH_PROBLEMS


def test_a_line_of_a_million_values_is_left_out_unparsed(tmp_path: Path) -> None:
    record = make_ratings(Spec(n_items=2, raters=2))[0].to_json_obj()
    record["scenario_type_ids"] = "@"
    huge = json.dumps(record).replace('"@"', "[" + ",".join(["{}"] * 1_000_000) + "]")
    path = tmp_path / "ratings.jsonl"
    path.write_text(huge + "\n" + json.dumps(record).replace('"@"', "[]") + "\n", encoding="utf-8")
    found = read_rating_rows(path, rubric())
    assert found.excluded == 1 and len(found.rows) == 1
    assert [p.message for p in found.problems] == ["holds more than 100,000 JSON values; a rating record has a few hundred"]


def test_progress_counts_lines_in_the_reading_stage(tmp_path: Path) -> None:
    path = write_collected(tmp_path, make_ratings(Spec(n_items=4, raters=3)))
    seen: list[tuple[str, int, int]] = []
    load_dataset(path, write_study(tmp_path / "study", Spec(n_items=4, raters=3)),
                 progress=lambda stage, done, total: seen.append((stage, done, total)))
    assert seen == [("Reading ratings", 24, 24)]


def test_an_empty_file_is_refused_before_the_study_items_are_read(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Found in review: the study's items were loaded first (slow for a big study)."""
    study = write_study(tmp_path / "study", Spec(n_items=4, raters=3))
    (tmp_path / "ratings.jsonl").write_text("\n  \n", encoding="utf-8")
    assert read_rating_rows(tmp_path, rubric()) == ([], [], 0, 0, [])
    monkeypatch.setattr(loading, "load_items", lambda *a: pytest.fail("items read"))
    with pytest.raises(DocumentError, match="holds no ratings"):
        load_dataset(tmp_path, study)
