"""Every command that reads records applies the same record rules (issue 13, item 6), conflicts are never
decided by a clock a file can claim (item 11), and tampered or replayed exports are reported with a clear
line by ``results validate`` and ``results collect`` (tamper-evident results)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.kit.exports import Export, record_obj
from tests.kit.sessions import rated_session
from tests.kit.studies import BuiltStudy, build_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.rater.export import export_receipt


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, dict[str, Any], str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, (json.loads(out) if out.strip().startswith("{") else {}), out + err


@pytest.fixture
def study(tmp_path: Path) -> BuiltStudy:
    return build_study(tmp_path, n_items=4, n_raters=2, overlap=1)


def collect(study: BuiltStudy, capsys: pytest.CaptureFixture[str], *exports: Path, out: str = "merged", extra: tuple[object, ...] = ()) -> tuple[int, dict[str, Any]]:
    code, result, _ = run(capsys, "results", "collect", *exports, "--key", study.key, "--out", study.root / out, "--json", *extra)
    return code, result


def messages(result: dict[str, Any]) -> list[str]:
    return [f"{p['file']}: {p['path']}: {p['message']}" for p in result["problems"]]


# ----- item 6: the same record rules everywhere -------------------------------------------------------------
@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda r: r["scoring"].__setitem__("overall_clinical_judgment_score", 99), "scoring.overall_clinical_judgment_score: "),
        (lambda r: r["failure_mode_annotations"].popitem(), "failure_mode_annotations."),
        (lambda r: r.__setitem__("candidate_response_text", r["candidate_response_text"] + " (edited)"),
         "candidate_response_text: does not match the task's response text"),
        (lambda r: r["scoring"].__setitem__("emotional_attunement_validation_score", "N/A"), "N/A is not allowed"),
    ],
    ids=["score-99-on-1-5", "dropped-failure-mode", "changed-response-text", "na-not-allowed"],
)
def test_collect_applies_the_rubric_and_the_task(study: BuiltStudy, capsys: pytest.CaptureFixture[str], change, expected: str) -> None:  # type: ignore[no-untyped-def]
    records = study.records("R1")
    change(records[0])
    export = study.export("R1", records, "r1.zip")
    code, result = collect(study, capsys, export)
    assert code == 1 and not result["ok"]
    assert result["ratings"] == len(records) - 1  # the broken record is left out, the others are kept
    assert any(expected in m for m in messages(result)), messages(result)
    assert any(m.endswith("breaks the record rules above: record left out") for m in messages(result))
    means = [s["mean"] for m in result["summary"]["models"].values() for s in m["scores"].values() if s["mean"] is not None]
    assert max(means) <= 5  # a 99 never reaches summary.json


def test_validate_applies_the_rubric_with_the_bundle_and_the_0_100_bound_without(study: BuiltStudy, capsys: pytest.CaptureFixture[str]) -> None:
    records = study.records("R1")
    records[0]["scoring"]["overall_clinical_judgment_score"] = 99
    export = study.export("R1", records, "r1.zip")
    code, result, _ = run(capsys, "results", "validate", export, "--bundle", study.out, "--json")
    assert code == 1 and any("99 is outside the scale 1-5" in m for m in messages(result))
    assert result["valid_records"] == len(records) - 1
    code, result, _ = run(capsys, "results", "validate", export, "--json")
    assert code == 0  # 99 is a whole number from 0 to 100: only the rubric (the bundle) says it is off-scale


@pytest.mark.parametrize("field", ["score", "seconds"])
def test_a_309_digit_number_is_refused_cleanly_everywhere(
    study: BuiltStudy, capsys: pytest.CaptureFixture[str], tmp_path: Path, field: str
) -> None:
    records = study.records("R1")
    if field == "score":
        records[0]["scoring"]["overall_clinical_judgment_score"] = 10**308
    else:
        records[0]["time_spent_scoring_seconds"] = 10**308
    export = study.export("R1", records, "big.zip")
    code, result, _ = run(capsys, "results", "validate", export, "--json")
    assert code == 1 and result["valid_records"] == 0 and result["quarantined"] == len(records) - 1
    assert any("309-digit" in m or "must be at most" in m for m in messages(result))
    code, result = collect(study, capsys, export)
    # the app never writes such a number: the export is not what the app wrote, so none of it counts
    assert code == 1 and result["ratings"] == 0 and result["quarantined"] == len(records) - 1
    code, result = collect(study, capsys, study.export("R1", study.records("R1"), "clean.zip"), out="clean")
    assert code == 0 and result["ratings"] == len(records)


def test_times_are_checked_by_validate_and_collect(study: BuiltStudy, capsys: pytest.CaptureFixture[str]) -> None:
    """Implausible times are said by both (clock_suspect), and never lose a record (issue 25)."""
    records = study.records("R1")
    records[0]["envelope"]["submitted_at"] = "9999-12-31T23:59:59Z"
    records[1]["envelope"]["started_at"] = "2019-06-01T10:00:00Z"
    export = study.export("R1", records, "times.zip")
    code, result, _ = run(capsys, "results", "validate", export, "--json")
    assert code == 0 and result["valid_records"] == len(records)
    text = "\n".join(f"{p['path']}: {p['message']}" for p in result["clock_suspect"])
    assert "envelope.submitted_at: 9999-12-31T23:59:59Z is in the future" in text
    assert "envelope.started_at: 2019-06-01T10:00:00Z is before 2020-01-01" in text
    code, result = collect(study, capsys, export)
    # both flagged, as validate flags them: a start time in 2019 is a wrong clock's as much as a submission in 9999
    assert code == 0 and result["ratings"] == len(records) and result["clock_suspect"] == 2


def test_a_key_without_its_rubric_or_task_facts_is_refused_naming_the_field(
        study: BuiltStudy, capsys: pytest.CaptureFixture[str]) -> None:
    whole = json.loads(study.key.read_text())
    export = study.export("R1", study.records("R1"), "r1.zip")
    for cut in ("rubric", "candidate_response_sha256"):
        key = json.loads(json.dumps(whole))
        if cut == "rubric":
            del key["rubric"]
        else:
            del key["entries"][0][cut]
        study.key.write_text(json.dumps(key))
        assert main(["results", "collect", str(export), "--key", str(study.key), "--out",
                     str(study.root / f"out-{cut}")]) == 1
        err = capsys.readouterr().err
        assert str(study.key) in err and cut in err and "Traceback" not in err


# ----- item 11: conflicts are not decided by a clock ---------------------------------------------------------
def test_a_forged_far_future_record_never_wins(study: BuiltStudy, capsys: pytest.CaptureFixture[str]) -> None:
    genuine = study.export("R1", study.records("R1", score=3), "genuine.zip")
    # the same records, scores changed and dated later (plausibly, and implausibly), in an export without a chain
    later = study.records("R1", score=5, submitted_at="2026-11-30T10:00:00Z")
    later[0]["envelope"]["submitted_at"] = "9999-01-01T00:00:00Z"
    forged = study.export("R1", later, "forged.zip", chain=False)
    code, result = collect(study, capsys, genuine, forged)
    assert code == 1
    ratings = [json.loads(x) for x in (study.root / "merged" / "ratings.jsonl").read_text().splitlines()]
    assert len(ratings) == len(later) and {r["scoring"]["overall_clinical_judgment_score"] for r in ratings} == {3}
    report = json.loads((study.root / "merged" / "collect-report.json").read_text())
    # an export without a chain is quarantined whole: its records never even meet the genuine ones
    assert report["conflicts"] == [] and len(report["quarantine"]) == len(later)
    assert all(q["export"] == "forged.zip" and q["checks"] == ["chain"] for q in report["quarantine"])
    text = "\n".join(messages(result))
    assert "forged.zip!manifest.json: audit: has no audit chain" in text


def test_the_highest_revision_wins_not_the_latest_time(study: BuiltStudy, capsys: pytest.CaptureFixture[str]) -> None:
    b = study.bundles["R1"]
    task = b.task(b.task_ids[0])
    r1 = record_obj(task, "R1", b.manifest.bundle_id, b.manifest_sha256, revision=1, score=2, submitted_at="2026-11-29T12:00:00Z")
    r2 = record_obj(task, "R1", b.manifest.bundle_id, b.manifest_sha256, revision=2, score=4, submitted_at="2026-11-29T10:30:00Z",
                    supersedes=r1["envelope"]["record_id"])
    code, result = collect(study, capsys, study.export("R1", [r1, r2], "r.zip"))
    assert code == 0, messages(result)
    (rating,) = [json.loads(x) for x in (study.root / "merged" / "ratings.jsonl").read_text().splitlines()]
    assert rating["envelope"]["revision"] == 2 and rating["scoring"]["overall_clinical_judgment_score"] == 4


# ----- tamper-evident results through the commands ------------------------------------------------------------
@pytest.fixture
def app_export(tmp_path: Path, sample_docs: Any) -> tuple[Path, str, Path]:
    """An export written by the rater's core, its receipt code, and the bundle it was made from."""
    session = rated_session(tmp_path / "app", sample_docs)
    path = tmp_path / "app-export.zip"
    manifest = session.export_results(path)
    return path, export_receipt(manifest), tmp_path / "app" / "bundle"


def test_validate_with_the_receipt(app_export: tuple[Path, str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    path, receipt, bundle = app_export
    code, _, text = run(capsys, "results", "validate", path, "--bundle", bundle, "--receipt", receipt.lower().replace("-", " "))
    assert code == 0, text
    assert "audit chain holds, sealed to bundle B-test and rater R01; receipt code matches" in text
    code, result, _ = run(capsys, "results", "validate", path, "--receipt", "00000-00000", "--json")
    assert code == 1 and result["valid_records"] == 0
    assert any("its receipt code is " + receipt + ", but rater R01 sent 00000-00000" in m for m in messages(result))
    code, _, text = run(capsys, "results", "validate", path, "--receipt", "not a code")
    assert code == 2 and "a receipt code has 10 letters and digits, e.g. 7K3QD-M2XWA; this has 8" in text


def test_an_edited_and_rehashed_export_is_caught(app_export: tuple[Path, str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # The case of the issue: a score edited, the manifest re-hashed. It used to pass validate and collect.
    path, _receipt, bundle = app_export
    export = Export.read(path)
    record = export.record("T-0002.r1.json")
    record["scoring"]["overall_clinical_judgment_score"] = 1
    export.set_record("T-0002.r1.json", record)
    tampered = export.rehash().write(tmp_path / "tampered.zip")
    code, result, _ = run(capsys, "results", "validate", tampered, "--bundle", bundle, "--json")
    assert code == 1
    text = "\n".join(messages(result))
    assert "tampered.zip!records/T-0002.r1.json: : is not the record the audit chain says was submitted" in text
    assert result["valid_records"] == 0 and result["quarantined"] == 2  # nothing of a changed export counts


def test_replays_and_receipts_in_validate(tmp_path: Path, sample_docs: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.kit.sessions import submit

    session = rated_session(tmp_path / "app", sample_docs)
    first = tmp_path / "first.zip"
    receipt_1 = export_receipt(session.export_results(first))
    submit(session, "T-0003", 2)
    second = tmp_path / "second.zip"
    receipt_2 = export_receipt(session.export_results(second))
    code, result, _ = run(capsys, "results", "validate", first, second, "--json")
    assert code == 1
    assert any("first.zip!manifest.json: audit.head: is an older export of rater R01's bundle B-test than second.zip" in m
               for m in messages(result))
    receipts = tmp_path / "receipts.txt"
    receipts.write_text(f"# from the raters' emails\nR01 {receipt_2}\n")
    code, result, _ = run(capsys, "results", "validate", second, "--receipts", receipts, "--json")
    assert code == 0, messages(result)
    code, result, _ = run(capsys, "results", "validate", first, "--receipts", receipts, "--json")
    assert code == 1 and receipt_1 != receipt_2
    assert any(f"but rater R01 sent {receipt_2}" in m for m in messages(result))


def test_collect_remembers_the_newest_chain_and_reports_an_older_one_later(
    tmp_path: Path, sample_docs: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # Exports of a built study (collect needs its key), their chains made as the app makes them.
    built = build_study(tmp_path, n_items=4, n_raters=1, overlap=1)
    recs = built.records("R1")
    older = built.export("R1", recs[:2], "older.zip")
    newer = built.export("R1", recs, "newer.zip")
    key = built.key
    code, result, _ = run(capsys, "results", "collect", newer, "--key", key, "--out", tmp_path / "merged", "--json")
    assert code == 0, messages(result)
    code, result, _ = run(capsys, "results", "collect", older, "--key", key, "--out", tmp_path / "merged", "--json")
    assert code == 1
    assert any("older.zip!manifest.json: audit.head: is not a continuation of the export of rater R1's bundle" in m
               or "is older than the export of rater R1's bundle" in m for m in messages(result))


def test_collect_receipts_leave_out_a_changed_export(study: BuiltStudy, capsys: pytest.CaptureFixture[str]) -> None:
    r1 = study.export("R1", study.records("R1"), "r1.zip")
    r2 = study.export("R2", study.records("R2"), "r2.zip")
    receipts = study.root / "receipts.txt"
    from wmcdp_desktop.coordinator.results.reader import read_export

    chain = read_export(r1).chain
    assert chain is not None
    receipts.write_text(f"R1 {chain.receipt}\nR2 AAAAA-AAAAA\n")
    code, result = collect(study, capsys, r1, r2, extra=("--receipts", receipts))
    assert code == 1 and result["ratings"] == len(study.records("R1"))  # R2's export is left out
    assert any("r2.zip!manifest.json: audit.head: its receipt code is" in m for m in messages(result))


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_collect_outputs_are_owner_only(study: BuiltStudy, capsys: pytest.CaptureFixture[str]) -> None:
    old = os.umask(0o022)
    try:
        code, result = collect(study, capsys, study.export("R1", study.records("R1"), "r1.zip"), extra=("--excel-safe",))
    finally:
        os.umask(old)
    assert code == 0, messages(result)
    assert stat.S_IMODE((study.root / "merged").stat().st_mode) == 0o700  # the folder collect made, too
    for path in (study.root / "merged").rglob("*"):
        assert stat.S_IMODE(path.stat().st_mode) == (0o700 if path.is_dir() else 0o600), path
    assert stat.S_IMODE(study.key.stat().st_mode) == 0o600
