"""The quarantine is a table of the collection (issue 25): ``quarantine.csv`` and ``quarantine.parquet``, one row
per record a check of whose provenance failed (record, task, rater, export and its SHA-256, the failed checks as
stable codes and in plain words, accepted yes/no and the reason). ``collect`` exits 1 while any quarantined record
is undecided and 0 once every one has been accepted; a later collect into the folder keeps an earlier acceptance
(for the same bytes only), never writes a row twice and says it again."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from tests.coordinator.collect.test_counted_means_verified import _forged_score, _html
from tests.kit.exports import Export
from tests.kit.studies import BuiltStudy, build_study
from wmcdp_desktop.coordinator.commands.main import main


@pytest.fixture
def study(tmp_path: Path) -> BuiltStudy:
    return build_study(tmp_path, n_items=4, n_raters=3, overlap=2)


def _collect(study: BuiltStudy, capsys: pytest.CaptureFixture[str], *args: object,
             out: str = "merged") -> tuple[int, str]:
    code = main(["results", "collect", *map(str, args), "--key", str(study.key), "--out", str(study.root / out)])
    text = capsys.readouterr()
    return code, text.out + text.err


def _table(study: BuiltStudy, out: str = "merged") -> list[dict[str, str]]:
    text = (study.root / out / "quarantine.csv").read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text, newline="")))


def _report(study: BuiltStudy, out: str = "merged") -> dict[str, Any]:
    return json.loads((study.root / out / "collect-report.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _accepting(ids: list[str], reason: str) -> list[str]:
    return [a for rid in ids for a in ("--accept", rid, "--reason", reason)]


def test_the_quarantine_table_then_every_record_accepted_is_a_decided_collection(
    study: BuiltStudy, capsys: pytest.CaptureFixture[str]
) -> None:
    genuine = study.export("R1", study.records("R1", score=4), "genuine.zip")
    forged = _forged_score(study, genuine)
    other = study.export("R2", study.records("R2"), "r2.zip")
    code, text = _collect(study, capsys, forged, other)
    assert code == 1 and "quarantined and NOT counted" in text
    rows = _table(study)
    forged_sha = hashlib.sha256(forged.read_bytes()).hexdigest()
    ids = sorted(r["envelope"]["record_id"] for r in Export.read(forged).records())
    assert sorted(row["record_id"] for row in rows) == ids
    assert list(rows[0]) == ["record_id", "rater_id", "task_id", "revision", "record_kind", "export", "export_sha256",
                             "record_file", "record_sha256", "checks", "failed", "why", "accepted", "accepted_reason"]
    for row in rows:
        assert (row["rater_id"], row["export"], row["export_sha256"]) == ("R1", "forged.zip", forged_sha)
        assert "chain" in row["checks"].split(";") and "the audit chain does not hold" in row["failed"]
        assert row["why"] and (row["accepted"], row["accepted_reason"]) == ("no", "")
        assert row["record_file"].startswith("forged.zip!records/")
    parquet = pq.read_table(study.root / "merged" / "quarantine.parquet").to_pylist()
    assert [r["record_id"] for r in parquet] == [row["record_id"] for row in rows]
    assert {r["accepted"] for r in parquet} == {"no"} and {r["accepted_reason"] for r in parquet} == {None}
    package = json.loads((study.root / "merged" / "datapackage.json").read_text(encoding="utf-8"))
    described = {r["path"]: r for r in package["resources"]}
    assert {"quarantine.csv", "quarantine.parquet"} <= set(described)
    assert described["quarantine.csv"]["hash"] == "sha256:" + hashlib.sha256(
        (study.root / "merged" / "quarantine.csv").read_bytes()).hexdigest()
    assert "quarantine.csv" in _report(study)["outputs"]
    assert "Quarantined by collect, NOT in this report" in _html(study, capsys)

    # one record accepted: the rest still undecided, exit 1
    code, text = _collect(study, capsys, forged, other, *_accepting(ids[:1], "checked with the rater by phone"))
    assert code == 1 and f"accepted: {ids[0]}" in text
    assert {row["record_id"]: row["accepted"] for row in _table(study)} == {
        rid: "yes" if rid == ids[0] else "no" for rid in ids}

    # every one accepted, each with its reason: a decided collection, exit 0, the acceptances shown everywhere
    code, text = _collect(study, capsys, forged, other, *_accepting(ids, "checked with the rater by phone"), out="decided")
    assert code == 0, text
    assert "the collection is decided" in text and text.count("accepted: ") == len(ids)
    rows = _table(study, "decided")
    assert len(rows) == len(ids) and {(r["accepted"], r["accepted_reason"]) for r in rows} == {
        ("yes", "checked with the rater by phone")}
    report = _report(study, "decided")
    assert report["ok"] and report["quarantine"] == [] and len(report["accepted"]) == len(ids)
    assert report["decided"] and all("forged.zip" in p["file"] for p in report["decided"])
    kept = {json.loads(line)["envelope"]["record_id"]
            for line in (study.root / "decided" / "ratings.jsonl").read_text(encoding="utf-8").splitlines()}
    assert set(ids) <= kept
    html = _html(study, capsys, "decided")
    assert "Accepted by the coordinator although the audit chain does not hold" in html
    assert "Quarantined by collect, NOT in this report" not in html


def test_a_later_collect_keeps_an_acceptance_for_the_same_bytes_only(
    study: BuiltStudy, capsys: pytest.CaptureFixture[str]
) -> None:
    b1, b2 = study.bundles["R1"], study.bundles["R2"]
    from tests.kit.exports import record_obj

    stray_task = next(t for t in b2.task_ids if t not in set(b1.task_ids))
    stray = record_obj(b2.task(stray_task), "R1", b1.manifest.bundle_id, b1.manifest_sha256, score=2)
    first = study.export("R1", [*study.records("R1"), stray], "r1.zip")
    rid = stray["envelope"]["record_id"]
    code, _ = _collect(study, capsys, first, "--accept", rid, "--reason", "reassigned on paper")
    assert code == 0
    before = _table(study)
    assert [(r["record_id"], r["checks"], r["accepted"]) for r in before] == [(rid, "assignment", "yes")]

    # A later collect adds an export; the earlier acceptance is kept without being given again, said again, and the
    # row is not written twice (the same export given again under another name is not counted twice either).
    copy = study.root / "r1-copy.zip"
    copy.write_bytes(first.read_bytes())
    code, text = _collect(study, capsys, study.export("R2", study.records("R2"), "r2.zip"), copy)
    assert code == 0, text
    assert f"accepted: {rid}" in text and "accepted by an earlier collect into this folder" in text
    assert _table(study) == before
    assert stray_task in {json.loads(line)["envelope"]["task_id"]
                          for line in (study.root / "merged" / "ratings.jsonl").read_text(encoding="utf-8").splitlines()}

    # The rater sends the same record again with other bytes (another score): the acceptance does not carry over.
    changed = dict(stray, scoring={k: (5 if v != "N/A" else v) for k, v in stray["scoring"].items()})
    second = study.export("R1", [*study.records("R1"), changed], "r1-again.zip")
    code, text = _collect(study, capsys, second)
    assert code == 1 and "the acceptance does not carry over" in text
    rows = _table(study)
    assert {(r["export"], r["accepted"]) for r in rows if r["record_id"] == rid} >= {("r1-again.zip", "no")}
    # and the earlier acceptance is not lost: it is still recorded for the bytes it was given for
    assert any(a["record_id"] == rid and a["accepted_because"] == "reassigned on paper"
               for a in _report(study)["acceptances"])


def test_accepting_a_record_that_is_counted_already_is_said(
    study: BuiltStudy, capsys: pytest.CaptureFixture[str]
) -> None:
    records = study.records("R1")
    export = study.export("R1", records, "r1.zip")
    rid = records[0]["envelope"]["record_id"]
    code, text = _collect(study, capsys, export, "--accept", rid, "--reason", "just in case")
    assert code == 1 and "is not quarantined (it is counted already): nothing to accept" in text
