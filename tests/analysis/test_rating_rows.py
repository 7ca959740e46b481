"""``ratings.jsonl`` read in chunks by worker processes gives exactly what one process gives.

The report's loading moved from records to rows (``analysis/rating_rows.py``) and, for big files, to a
process pool; these tests pin that the dataset, its notes and problems, and the written report do not
depend on how the file was read, and that an unreadable file fails the same way.
"""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import numpy as np
import pytest

from wmcdp_desktop.analysis import loading
from wmcdp_desktop.analysis.loading import Dataset, build_dataset, load_dataset
from wmcdp_desktop.analysis.rating_rows import read_rating_rows
from wmcdp_desktop.cli.main import main
from wmcdp_desktop.core.documents import load_jsonl
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.core.strict_json import parse_jsonl_bytes

from .synth import Spec, make_ratings, rubric, write_collected, write_study

START_METHODS = [m for m in ("fork", "spawn") if m in multiprocessing.get_all_start_methods()]


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


def _same(a: Dataset, b: Dataset) -> None:
    for name in ("task_ids", "rater_ids", "item_ids", "model_ids", "rationale", "problems", "records_read",
                 "records_excluded"):
        assert getattr(a, name) == getattr(b, name), name
    assert [(n.section, n.text) for n in a.notes] == [(n.section, n.text) for n in b.notes]
    for name in ("task", "rater", "item", "model", "scores", "na", "severity", "confidence", "seconds",
                 "submitted", "gold_target"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.mark.parametrize("start_method", START_METHODS)
def test_pool_gives_the_same_dataset_as_one_process(study_and_collected: tuple[Path, Path], start_method: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    study, collected = study_and_collected
    one = load_dataset(collected, study, jobs=1)
    real = loading.read_rating_rows

    def small_chunks(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        return real(*args, chunk_size=7, start_method=start_method, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(loading, "read_rating_rows", small_chunks)
    pooled = load_dataset(collected, study, jobs=2)
    _same(one, pooled)
    assert one.records_excluded == 2 and one.problems  # the bad lines really were there
    assert any("older revision" in n.text for n in one.notes)


def test_rows_give_the_same_dataset_as_records(study_and_collected: tuple[Path, Path]) -> None:
    """build_dataset (records in memory, as the statistics tests use it) and the file reader agree."""
    study, collected = study_and_collected
    from_file = load_dataset(collected, study, jobs=1)
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


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_line_that_is_not_json_makes_the_file_unreadable_listing_every_such_line(tmp_path: Path, jobs: int) -> None:
    lines = [json.dumps(r.to_json_obj()) for r in make_ratings(Spec(n_items=6, raters=3))]
    lines[3] = "{not json"
    lines[30] = '{"a": 1, "a": 2}'
    path = tmp_path / "ratings.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DocumentError) as got:
        read_rating_rows(path, rubric(), jobs=jobs, chunk_size=5)
    with pytest.raises(DocumentError) as expected:
        parse_jsonl_bytes(path.read_bytes(), str(path))  # what every JSON Lines reader of the project says
    assert [str(p) for p in got.value.problems] == [str(p) for p in expected.value.problems]
    assert [p.file for p in got.value.problems] == [f"{path}:4", f"{path}:31"]


def test_while_waiting_runs_once_with_or_without_a_pool(tmp_path: Path) -> None:
    path = write_collected(tmp_path, make_ratings(Spec(n_items=4, raters=3))) / "ratings.jsonl"
    for jobs in (1, 2):
        calls: list[int] = []
        rows, problems, lines = read_rating_rows(path, rubric(), jobs=jobs, chunk_size=3,
                                                 while_waiting=lambda calls=calls: calls.append(1))
        assert calls == [1] and len(rows) == lines == 24 and not problems


def test_report_cli_jobs_gives_the_same_files(study_and_collected: tuple[Path, Path], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    study, collected = study_and_collected
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        assert main(["report", str(collected), "--study", str(study), "--out", str(out), "--bootstrap", "30",
                     "--jobs", jobs]) == 0
        outs.append(out)
    files = sorted(p.relative_to(outs[0]) for p in outs[0].rglob("*") if p.is_file())
    assert files and files == sorted(p.relative_to(outs[1]) for p in outs[1].rglob("*") if p.is_file())
    for rel in files:
        assert (outs[0] / rel).read_bytes() == (outs[1] / rel).read_bytes(), rel
    capsys.readouterr()
    with pytest.raises(SystemExit) as usage:
        main(["report", str(collected), "--study", str(study), "--out", str(tmp_path / "x"), "--jobs", "0"])
    assert usage.value.code == 2 and "--jobs: 0 is less than 1" in capsys.readouterr().err


@pytest.mark.skipif("fork" not in START_METHODS, reason="the failure is injected into forked workers")
def test_a_worker_that_dies_is_a_plain_error_naming_the_lines(study_and_collected: tuple[Path, Path], tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    import os

    from wmcdp_desktop.analysis import rating_rows
    from wmcdp_desktop.core import parallel

    study, collected = study_and_collected
    real = rating_rows.row_of

    def dies(*args: object) -> object:
        if os.getpid() != parent:
            os._exit(7)  # the worker dies (out of memory, killed)
        return real(*args)  # type: ignore[arg-type]

    parent = os.getpid()
    monkeypatch.setattr(parallel, "START_METHOD", "fork")
    monkeypatch.setattr(rating_rows, "row_of", dies)
    real_read = loading.read_rating_rows
    monkeypatch.setattr(loading, "read_rating_rows",
                        lambda *a, **k: real_read(*a, **{**k, "chunk_size": 9}))  # type: ignore[arg-type]
    code = main(["report", str(collected), "--study", str(study), "--out", str(tmp_path / "out"), "--jobs", "2"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert "a worker process failed" in err and "while reading lines" in err and "ratings.jsonl" in err
    assert err.rstrip().endswith("run again with --jobs 1 to read in one process")
    assert multiprocessing.active_children() == []
    assert main(["report", str(collected), "--study", str(study), "--out", str(tmp_path / "out"), "--jobs", "1",
                 "--no-charts", "--bootstrap", "0"]) == 0  # in one process the same data is fine


def test_an_empty_file_is_refused_before_the_slow_work(tmp_path: Path) -> None:
    """Found in review: the study's items and the statistics libraries were loaded first (about 1.5 s)."""
    (tmp_path / "ratings.jsonl").write_text("\n  \n", encoding="utf-8")
    calls: list[int] = []
    assert read_rating_rows(tmp_path, rubric(), while_waiting=lambda: calls.append(1)) == ([], [], 0)
    assert calls == []
