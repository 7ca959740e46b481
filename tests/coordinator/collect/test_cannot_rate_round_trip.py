"""The "cannot rate" record kind and the coordinator flag end to end, written by the rater's real session:
study -> bundle build -> sessions (ratings, "cannot rate", flags, a revision) -> export -> results validate
-> results collect (report, CSV, JSONL) -> wmcdp report (counted per task and rater, out of the statistics,
the task nobody could rate named)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.kit.sessions import new_session
from tests.kit.studies import write_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.rater.session import RatingSession
from wmcdp_desktop.rater.timing import FakeClock

pytest.importorskip("numpy")


def _rate(session: RatingSession, score: int) -> None:
    for dim in session.rubric.dimensions:
        session.set_score(dim.id, score)
    session.set_note("brief_rationale", f"Scored {score} throughout.")


def _json(capsys: pytest.CaptureFixture[str]) -> Any:
    return json.loads(capsys.readouterr().out)


def _typed_tables_carry_both_kinds(merged: Path, rows: list[dict[str, str]]) -> None:
    """ratings.parquet, failure_modes.parquet, the REDCap import and the codebook hold the "cannot rate" rows and
    the flags as ratings.csv does: a "cannot rate" has no scores (null, and not N/A), no failure-mode rows, its
    reason coded as the REDCap dictionary says."""
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(merged / "ratings.parquet").to_pylist()
    assert [(t["rater_id"], t["task_id"], t["record_kind"], t["cannot_rate_reason"], t["cannot_rate_detail"],
             t["coordinator_flag"]) for t in table] == [
        (r["rater_id"], r["task_id"], r["record_kind"], r["cannot_rate_reason"] or None, r["cannot_rate_detail"] or None,
         r["coordinator_flag"] or None) for r in rows]
    for t in table:
        unable = t["record_kind"] == "cannot_rate"
        assert (t["overall_judgment"] is None and t["overall_judgment_na"] is None) if unable else (
            t["overall_judgment"] is not None and t["overall_judgment_na"] is False)
        assert (t["confidence_rating"] is None and t["blinding_guess"] is None) if unable else True
    long = pq.read_table(merged / "failure_modes.parquet").to_pylist()
    rated_ids = {t["record_id"] for t in table if t["record_kind"] == "rating"}
    assert {f["record_id"] for f in long} == rated_ids
    dictionary = {r["Variable / Field Name"]: r for r in csv.DictReader(io.StringIO(
        (merged / "redcap-data-dictionary.csv").read_text(encoding="utf-8")))}
    codes = {name: dict(tuple(part.strip() for part in choice.split(",", 1)[::-1])
                        for choice in dictionary[name]["Choices, Calculations, OR Slider Labels"].split("|"))
             for name in ("record_kind", "cannot_rate_reason")}
    redcap = list(csv.DictReader(io.StringIO((merged / "redcap-import.csv").read_text(encoding="utf-8"))))
    assert [(r["record_kind"], r["cannot_rate_reason"], r["coordinator_flag"]) for r in redcap] == [
        (codes["record_kind"][r["record_kind"]], codes["cannot_rate_reason"].get(r["cannot_rate_reason"], ""),
         r["coordinator_flag"]) for r in rows]
    assert all(r["overall_judgment"] == "" for r in redcap if r["record_kind"] == codes["record_kind"]["cannot_rate"])
    frictionless = pytest.importorskip("frictionless")
    report = frictionless.validate(str(merged / "datapackage.json"))
    assert report.valid, [(e.type, e.note) for t in report.tasks for e in t.errors][:5]


def test_cannot_rate_and_flags_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_study(tmp_path / "study", n_items=6, n_raters=3, overlap=2)
    out = tmp_path / "out"
    assert main(["bundle", "build", str(study), "--out", str(out)]) == 0
    capsys.readouterr()
    key = json.loads((out / "STUDY-T1-unblinding-key.json").read_text(encoding="utf-8"))
    shared = next(e for e in key["entries"] if len(e["raters"]) == 2)  # both its raters cannot rate it
    unable_task, unable_raters = shared["task_id"], set(shared["raters"])
    clock = FakeClock()
    exports: list[Path] = []
    expected_unable: list[tuple[str, str]] = []
    flagged: list[tuple[str, str]] = []
    for n, rater in enumerate(("R1", "R2", "R3")):
        bundle = open_bundle(out / f"STUDY-T1-{rater}.wmcdp")
        session = new_session(bundle, tmp_path / "data", clock, rater=rater)
        for i, tid in enumerate(session.task_ids):
            session.open_task(tid)
            clock.advance(30)
            session.user_input()
            if tid == unable_task:
                session.mark_cannot_rate(True)
                reason = "outside_expertise" if rater == min(unable_raters) else "other"
                session.set_cannot_rate(reason=reason, detail="" if reason != "other" else "I treated this family.")
                expected_unable.append((rater, tid))
            elif i == 1:
                # rated first, then revised into a "cannot rate" (the latest revision counts)
                _rate(session, 2)
                assert session.submit().ok
                session.open_task(tid)
                session.revise()
                session.mark_cannot_rate(True)
                session.set_cannot_rate(reason="content_broken_or_truncated", detail="Response cut off.")
                expected_unable.append((rater, tid))
            else:
                _rate(session, 3 + (i + n) % 3)
            if i == 0:
                session.set_flag(True)
                session.set_flag_note(f"{rater}: please check =SUM(A1) this scenario's age band.")
                flagged.append((rater, tid))
            assert session.submit().ok, session.submit().problems
        export = tmp_path / f"results-{rater}.zip"
        session.export_results(export)
        session.close()
        exports.append(export)
        assert main(["results", "validate", str(export), "--bundle", str(out), "--json"]) == 0
        validated = _json(capsys)
        assert validated["ok"] and validated["cannot_rate"] == sum(1 for r, _ in expected_unable if r == rater)
        assert validated["flagged"] == 1

    merged = tmp_path / "merged"
    code = main(["results", "collect", *map(str, exports), "--key", str(out / "STUDY-T1-unblinding-key.json"),
                 "--out", str(merged), "--json"])
    collected = _json(capsys)
    assert code == 0, collected["problems"]
    assert collected["cannot_rate"] == len(expected_unable) and collected["flagged"] == len(flagged)
    assert collected["tasks_every_rater_could_not_rate"] == [unable_task]
    report = json.loads((merged / "collect-report.json").read_text(encoding="utf-8"))
    assert sorted((c["rater_id"], c["task_id"]) for c in report["cannot_rate"]) == sorted(expected_unable)
    assert sorted((f["rater_id"], f["task_id"]) for f in report["flagged"]) == sorted(flagged)
    assert unable_task in report["tasks_nobody_rated"]
    assert not any(unable_task in tasks for tasks in report["missing_by_rater"].values())  # returned, not missing
    summary = json.loads((merged / "summary.json").read_text(encoding="utf-8"))
    assert summary["cannot_rate"] == len(expected_unable)
    assert sum(r["cannot_rate"] for r in summary["raters"].values()) == len(expected_unable)
    lines = [json.loads(line) for line in (merged / "ratings.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {line["record_kind"] for line in lines} == {"rating", "cannot_rate"}
    assert all(line["model_source"] for line in lines)  # both kinds unblinded
    rows = list(csv.DictReader(io.StringIO((merged / "ratings.csv").read_text(encoding="utf-8"))))
    unable_rows = [r for r in rows if r["record_kind"] == "cannot_rate"]
    assert sorted((r["rater_id"], r["task_id"]) for r in unable_rows) == sorted(expected_unable)
    assert all(r["emotional_attunement_validation_score"] == "" and r["cannot_rate_reason"] for r in unable_rows)
    assert sum(1 for r in rows if r["coordinator_flag"]) == len(flagged)
    ratings = len(rows) - len(unable_rows)
    _typed_tables_carry_both_kinds(merged, rows)

    report_dir = tmp_path / "report"
    assert main(["report", str(merged), "--study", str(study), "--out", str(report_dir), "--bootstrap", "0",
                 "--no-charts", "--json"]) == 0
    result = _json(capsys)
    meta = result["meta"]
    assert meta["ratings"] == ratings and meta["cannot_rate"] == len(expected_unable)
    assert meta["flagged"] == len(flagged) and meta["tasks_nobody_could_rate"] == [unable_task]
    assert any(unable_task in finding for finding in result["findings"])
    tables = json.loads((report_dir / "summary.json").read_text(encoding="utf-8"))["tables"]
    by_rater = {r["rater"]: r for r in tables["cannot_rate_by_rater"]}
    for rater in ("R1", "R2", "R3"):
        assert by_rater[rater]["cannot_rate"] == sum(1 for r, _ in expected_unable if r == rater)
    by_task = {r["task"]: r for r in tables["cannot_rate_by_task"]}
    assert by_task[unable_task]["nobody_could_rate"] == "yes" and by_task[unable_task]["ratings"] == 0
    # Out of every statistic: no table row of the analysis names the task nobody could rate.
    time_rows = tables["rater_time"]
    assert sum(int(r["ratings"]) for r in time_rows if r.get("ratings") is not None) == ratings
    html = (report_dir / "report.html").read_text(encoding="utf-8")
    assert "Cannot rate" in html or "cannot rate" in html
    table_csv = (report_dir / "tables" / "cannot_rate_by_task.csv").read_text(encoding="utf-8")
    assert unable_task in table_csv
