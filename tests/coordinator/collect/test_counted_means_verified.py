"""Counted means verified (issue 25): a record enters ratings.*, the Parquet and REDCap files and the report only
when its export's chain, seal, binding to bundle and rater, receipt (when given) and assignment all hold. Every
other record goes to the ``quarantine`` table of collect-report.json (what, from which export, which check
failed, in plain words), is named in the report's header, and collect exits 1. ``--accept RECORD_ID --reason
TEXT`` counts one after all, recorded and shown. A wrong clock never loses a rating: it is kept, flagged
``clock_suspect``."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TEST_NOW
from tests.kit.exports import Export, export_zip, record_obj
from tests.kit.studies import BuiltStudy, build_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core import audit_chain


@pytest.fixture
def study(tmp_path: Path) -> BuiltStudy:
    return build_study(tmp_path, n_items=4, n_raters=3, overlap=2)


def _collect(study: BuiltStudy, capsys: pytest.CaptureFixture[str], *args: object, out: str = "merged",
             json_out: bool = True) -> tuple[int, dict[str, Any], str]:
    code = main(["results", "collect", *map(str, args), "--key", str(study.key), "--out", str(study.root / out),
                 *(["--json"] if json_out else [])])
    text = capsys.readouterr()
    result = json.loads(text.out) if json_out and text.out.strip().startswith("{") else {}
    return code, result, text.out + text.err


def _kept(study: BuiltStudy, out: str = "merged") -> list[dict[str, Any]]:
    text = (study.root / out / "ratings.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


def _report(study: BuiltStudy, out: str = "merged") -> dict[str, Any]:
    return json.loads((study.root / out / "collect-report.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _csv_scores(study: BuiltStudy, out: str = "merged") -> set[str]:
    import csv

    with (study.root / out / "ratings.csv").open(encoding="utf-8", newline="") as fh:
        return {row["overall_clinical_judgment_score"] for row in csv.DictReader(fh)}


def _html(study: BuiltStudy, capsys: pytest.CaptureFixture[str], out: str = "merged") -> str:
    code = main(["report", str(study.root / out), "--study", str(study.folder), "--out", str(study.root / f"report-{out}"),
                 "--no-charts", "--bootstrap", "0"])
    capsys.readouterr()
    assert code in (0, 1)
    return (study.root / f"report-{out}" / "report.html").read_text(encoding="utf-8")


def _forged_score(study: BuiltStudy, genuine: Path) -> Path:
    """The issue's case: one record edited (every score 1), its new SHA-256 put in its ``submitted`` audit line;
    the links and the seal left alone, so the head (and the receipt code) stay the same; the manifest re-hashed."""
    export = Export.read(genuine)
    name = sorted(n.removeprefix("records/") for n in export.files if n.startswith("records/"))[0]
    record = export.record(name)
    record["scoring"] = {k: (1 if v != "N/A" else v) for k, v in record["scoring"].items()}
    export.set_record(name, record)
    new_sha = hashlib.sha256(export.files[f"records/{name}"]).hexdigest()
    lines = []
    for line in export.audit_lines():
        event = json.loads(line)
        if event.get("file") == name:
            event["sha256"] = new_sha
            line = audit_chain.encode_event(event)
        lines.append(line)
    export.set_audit_lines(lines)
    return export.rehash().write(study.root / "forged.zip")


def test_a_forged_score_with_the_genuine_receipt_is_quarantined(
    study: BuiltStudy, capsys: pytest.CaptureFixture[str]
) -> None:
    genuine = study.export("R1", study.records("R1", score=4), "genuine.zip")
    head = Export.read(genuine).manifest["audit"]["head"]
    receipts = study.root / "receipts.txt"
    receipts.write_text(f"R1 {audit_chain.receipt_code(head)}\n", encoding="utf-8")  # the genuine code
    forged = _forged_score(study, genuine)
    code, result, _ = _collect(study, capsys, forged, "--receipts", receipts)
    assert code == 1 and result["ratings"] == 0 and result["quarantined"] == len(study.records("R1"))
    assert _kept(study) == [] and "1" not in _csv_scores(study)
    rows = _report(study)["quarantine"]
    assert {r["export"] for r in rows} == {"forged.zip"} and all("chain" in r["checks"] for r in rows)
    assert all("the audit chain does not hold" in r["failed"] for r in rows)
    # results validate applies the same rules: none of the forged export's records is valid
    code = main(["results", "validate", str(forged), "--receipts", str(receipts), "--json"])
    validated = json.loads(capsys.readouterr().out)
    assert code == 1 and validated["valid_records"] == 0 and validated["quarantined"] == len(rows)


def test_a_forged_history_never_replaces_the_genuine_revision(
    study: BuiltStudy, capsys: pytest.CaptureFixture[str]
) -> None:
    records = study.records("R1", score=3)
    genuine = study.export("R1", records, "genuine.zip")
    code, result, _ = _collect(study, capsys, genuine)
    assert code == 0 and result["ratings"] == len(records)
    # a rebuilt chain holding an added revision 2 (all 5s) of the first task
    b = study.bundles["R1"]
    first = records[0]
    r2 = record_obj(b.task(first["envelope"]["task_id"]), "R1", b.manifest.bundle_id, b.manifest_sha256,
                    revision=2, score=5, supersedes=first["envelope"]["record_id"])
    forged = study.export("R1", [*records, r2], "forged.zip")
    code, result, _ = _collect(study, capsys, forged)
    assert code == 1 and result["quarantined"] == len(records) + 1
    kept = _kept(study)
    assert len(kept) == len(records) and {r["envelope"]["revision"] for r in kept} == {1}
    assert {r["scoring"]["overall_clinical_judgment_score"] for r in kept} == {3}
    rows = _report(study)["quarantine"]
    assert {r["export"] for r in rows} == {"forged.zip"} and all(r["checks"] == ["history"] for r in rows)
    html = _html(study, capsys)
    assert "Quarantined by collect, NOT in this report" in html and "forged.zip" in html
    # Given together, with no collection before them: two histories that part; neither can be told the genuine
    # one, so neither is counted (said, exit 1), and the forged revision is never counted.
    code, result, _ = _collect(study, capsys, genuine, forged, out="together")
    assert code == 1 and result["ratings"] == 0
    assert {r["export"] for r in _report(study, "together")["quarantine"]} == {"genuine.zip", "forged.zip"}


def test_records_off_the_raters_assignment_are_quarantined_and_can_be_accepted(
    study: BuiltStudy, capsys: pytest.CaptureFixture[str]
) -> None:
    b1, b2 = study.bundles["R1"], study.bundles["R2"]
    stray_task = next(t for t in b2.task_ids if t not in set(b1.task_ids))
    stray = record_obj(b2.task(stray_task), "R1", b1.manifest.bundle_id, b1.manifest_sha256, score=2)
    records = study.records("R1", score=4)
    export = study.export("R1", [*records, stray], "r1.zip")
    code, _, text = _collect(study, capsys, export, json_out=False)
    assert code == 1
    assert "1 record quarantined and NOT counted" in text and "the assignment does not hold" in text
    kept = _kept(study)
    assert len(kept) == len(records) and stray_task not in {r["envelope"]["task_id"] for r in kept}
    (row,) = _report(study)["quarantine"]
    assert row["checks"] == ["assignment"] and row["task_id"] == stray_task and row["export"] == "r1.zip"
    rid = row["record_id"]
    # accepted explicitly, per record, with a reason: counted, recorded in the collection and shown in the report
    code, _, text = _collect(study, capsys, export, "--accept", rid, "--reason", "reassigned by phone on 3 Dec",
                                  out="accepted", json_out=False)
    assert f"accepted: {rid}" in text and "reassigned by phone on 3 Dec" in text
    assert stray_task in {r["envelope"]["task_id"] for r in _kept(study, "accepted")}
    report = _report(study, "accepted")
    assert report["quarantine"] == [] and report["accepted"][0]["accepted_because"] == "reassigned by phone on 3 Dec"
    html = _html(study, capsys, "accepted")
    assert "Accepted by the coordinator although the assignment does not hold" in html and "reassigned by phone" in html


def test_accepting_needs_a_reason_per_record_and_an_id_that_is_quarantined(
    study: BuiltStudy, capsys: pytest.CaptureFixture[str]
) -> None:
    export = study.export("R1", study.records("R1"), "r1.zip")
    code = main(["results", "collect", str(export), "--key", str(study.key), "--out", str(study.root / "m"),
                 "--accept", "a" * 32])
    assert code == 2 and "its own --reason" in capsys.readouterr().err
    code = main(["results", "collect", str(export), "--key", str(study.key), "--out", str(study.root / "m"),
                 "--accept", "a" * 32, "--reason", "  "])
    assert code == 2 and "blank" in capsys.readouterr().err
    code, result, _ = _collect(study, capsys, export, "--accept", "a" * 32, "--reason", "typo?")
    assert code == 1 and any(p["message"] == "no quarantined record has this id: nothing accepted"
                             for p in result["problems"])


NOW = datetime.fromisoformat(TEST_NOW)
"""The clock the record rules compare times with in the tests."""


@pytest.mark.parametrize("shift", [timedelta(days=3), datetime(2001, 5, 6, tzinfo=UTC) - NOW],
                         ids=["three-days-ahead", "in-2001"])
def test_a_rating_made_with_a_wrong_clock_is_collected_and_flagged(
    study: BuiltStudy, capsys: pytest.CaptureFixture[str], shift: timedelta
) -> None:
    when = (NOW + shift).strftime("%Y-%m-%dT%H:%M:%SZ")
    records = study.records("R1", submitted_at=when)
    for r in records:
        r["envelope"]["started_at"] = when
    export = study.root / "clock.zip"
    data = export_zip(records, **study.export_options("R1"))
    export.write_bytes(data)
    code, result, _ = _collect(study, capsys, export)
    assert code == 0, result["problems"]
    assert result["ratings"] == len(records) and result["clock_suspect"] == len(records)
    assert len(_kept(study)) == len(records)
    rows = _report(study)["clock_suspect"]
    assert {r["rater_id"] for r in rows} == {"R1"} and all(when in r["why"] for r in rows)
    code, _, text = _collect(study, capsys, export, out="text", json_out=False)
    assert code == 0 and "clock_suspect" in text
    code = main(["results", "validate", str(export), "--json"])
    validated = json.loads(capsys.readouterr().out)
    assert code == 0 and validated["valid_records"] == len(records) and len(validated["clock_suspect"]) >= len(records)
    assert "times a wrong clock on the rater" in _html(study, capsys)
