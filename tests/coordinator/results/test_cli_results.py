"""``wmcdp results validate`` and ``results collect``: records, folders, export zips, merging, unblinding."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.kit.commands import run
from tests.kit.exports import export_zip, record_obj
from tests.kit.studies import MODELS, write_json, write_study
from wmcdp_desktop.coordinator.collect.codebook import SCORE_FIELDS
from wmcdp_desktop.coordinator.collect.merge import CSV_FIXED_COLUMNS
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core.bundle_reader import OpenedBundle, open_bundle
from wmcdp_desktop.core.documents import load_file
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.core.models.unblinding_key import UnblindingKey


@dataclass
class Built:
    root: Path
    key_path: Path
    key: UnblindingKey
    bundles: dict[str, OpenedBundle]
    bundle_paths: dict[str, Path]

    def records(self, rater: str, tasks: list[str] | None = None, **kw: Any) -> list[dict[str, Any]]:
        b = self.bundles[rater]
        return [
            record_obj(b.task(t), rater, b.manifest.bundle_id, b.manifest_sha256, **kw)
            for t in (tasks if tasks is not None else b.task_ids)
        ]

    def export(self, rater: str, records: list[dict[str, Any]], name: str | None = None) -> Path:
        b = self.bundles[rater]
        path = self.root / (name or f"export-{rater}.zip")
        path.write_bytes(
            export_zip(
                records,
                study_id=b.manifest.study_id,
                rater_id=rater,
                bundle_id=b.manifest.bundle_id,
                bundle_sha256=b.manifest_sha256,
                tasks_in_bundle=len(b.task_ids),
            )
        )
        return path


@pytest.fixture
def built(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Built:
    study = write_study(tmp_path / "study", n_items=4, n_raters=3, overlap=2)
    code = main(["bundle", "build", str(study), "--out", str(tmp_path / "out")])
    capsys.readouterr()
    assert code == 0
    key_path = tmp_path / "out" / "STUDY-T1-unblinding-key.json"
    paths = {r: tmp_path / "out" / f"STUDY-T1-{r}.wmcdp" for r in ("R1", "R2", "R3")}
    return Built(tmp_path, key_path, load_file(UnblindingKey, key_path), {r: open_bundle(p) for r, p in paths.items()}, paths)


# ------------------------------------------------------------------ validate


def test_validate_record_file_folder_and_export(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    recs = built.records("R1")
    folder = built.root / "data" / "records"
    for rec in recs:
        write_json(folder / f"{rec['envelope']['task_id']}.r1.json", rec)
    (built.root / "data" / "drafts").mkdir()
    (built.root / "data" / "drafts" / "half.json").write_text("{}")  # drafts are skipped
    one = next(folder.iterdir())
    export = built.export("R1", recs)
    for target in (one, built.root / "data", export):
        code, out, _ = run(capsys, "results", "validate", target, "--bundle", built.bundle_paths["R1"])
        assert code == 0, out
        assert "all valid" in out
    code, out, _ = run(capsys, "results", "validate", export, "--json")
    info = json.loads(out)
    assert code == 0 and info["ok"] and info["valid_records"] == len(recs) and info["by_rater"] == {"R1": len(recs)}


def test_validate_reports_schema_problems_with_path(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    rec = built.records("R1")[0]
    rec["clinician_notes"]["brief_rationale"] = "   "
    rec["scoring"]["overall_clinical_judgment_score"] = "4"
    rec["surprise"] = 1
    path = built.root / "bad.json"
    write_json(path, rec)
    code, out, _ = run(capsys, "results", "validate", path, "--json")
    assert code == 1
    paths = {p["path"] for p in json.loads(out)["problems"]}
    assert {"clinician_notes.brief_rationale", "scoring.overall_clinical_judgment_score", "surprise"} <= paths
    code, _, err = run(capsys, "results", "validate", path)
    assert code == 1 and "bad.json: surprise:" in err


def test_validate_against_bundle(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    r1 = built.bundles["R1"]
    recs = built.records("R1", r1.task_ids[:3])
    recs[0]["candidate_response_text"] += " (edited)"
    recs[1]["scoring"]["emotional_attunement_validation_score"] = 9
    recs[2]["envelope"]["task_id"] = "t-0000000000000000"
    files = []
    for i, rec in enumerate(recs):
        write_json(built.root / f"r{i}.json", rec)
        files.append(built.root / f"r{i}.json")
    code, out, _ = run(capsys, "results", "validate", *files, "--bundle", built.bundle_paths["R1"], "--json")
    assert code == 1
    found = {(Path(p["file"]).name, p["path"]) for p in json.loads(out)["problems"]}
    assert ("r0.json", "candidate_response_text") in found
    assert ("r1.json", "scoring.emotional_attunement_validation_score") in found
    assert ("r2.json", "envelope.task_id") in found
    # another rater's bundle: wrong bundle id, sha and rater
    code, out, _ = run(capsys, "results", "validate", files[1], "--bundle", built.bundle_paths["R2"], "--json")
    paths = {p["path"] for p in json.loads(out)["problems"]}
    assert {"envelope.bundle_id", "envelope.bundle_sha256", "rater_id"} <= paths


def test_validate_many_exports_against_the_bundle_folder(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    """The README's `results validate wmcdp-results-*.zip --bundle bundles/`: each export against its own bundle."""
    exports = [built.export(r, built.records(r)) for r in ("R1", "R2", "R3")]
    code, out, _ = run(capsys, "results", "validate", *exports, "--bundle", built.root / "out", "--json")
    info = json.loads(out)
    assert code == 0 and info["ok"], info["problems"]
    assert info["by_rater"] == {r: len(built.bundles[r].task_ids) for r in ("R1", "R2", "R3")}
    # the same with --bundle repeated; a bundle's own mistakes are still found
    bad = built.records("R2")
    bad[0]["candidate_response_text"] += " (edited)"
    exports[1] = built.export("R2", bad)
    code, out, _ = run(capsys, "results", "validate", *exports, *[x for r in ("R1", "R2", "R3") for x in ("--bundle", built.bundle_paths[r])], "--json")
    problems = json.loads(out)["problems"]
    assert code == 1 and [p["path"] for p in problems] == ["candidate_response_text"], problems


def test_export_of_another_bundle_is_one_problem_not_one_per_record(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    exports = [built.export(r, built.records(r)) for r in ("R1", "R2")]
    code, out, _ = run(capsys, "results", "validate", *exports, "--bundle", built.bundle_paths["R1"], "--json")
    info = json.loads(out)
    assert code == 1 and info["by_rater"] == {"R1": len(built.bundles["R1"].task_ids)}
    assert [(p["file"], p["path"]) for p in info["problems"]] == [("export-R2.zip!manifest.json", "bundle_id")]
    message = info["problems"][0]["message"]
    assert built.bundles["R2"].manifest.bundle_id in message and "its rater's bundle" in message
    # several bundles given, a loose record of none of them: named once, with the bundles given
    loose = built.root / "loose.json"
    write_json(loose, built.records("R3")[0])
    code, out, _ = run(capsys, "results", "validate", loose, "--bundle", built.bundle_paths["R1"], "--bundle", built.bundle_paths["R2"], "--json")
    assert code == 1 and [p["path"] for p in json.loads(out)["problems"]] == ["envelope.bundle_id"]
    empty = built.root / "empty"
    empty.mkdir()
    code, _, err = run(capsys, "results", "validate", loose, "--bundle", empty)
    assert code == 1 and "holds no bundle" in err


def _rezip(path: Path, change: Any) -> None:
    with zipfile.ZipFile(path) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    change(files)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for n, d in files.items():
            zf.writestr(n, d)
    path.write_bytes(buf.getvalue())


def test_validate_export_integrity(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    export = built.export("R1", built.records("R1"))

    def tamper(files: dict[str, bytes]) -> None:
        name = next(n for n in files if n.startswith("records/"))
        files[name] = files[name].replace(b"Warm;", b"Cold;")
        files["records/extra.json"] = b"{}"
        manifest = json.loads(files["manifest.json"])
        manifest["files"][1]["latest"] = False
        files["manifest.json"] = json.dumps(manifest).encode()

    _rezip(export, tamper)
    code, out, _ = run(capsys, "results", "validate", export, "--json")
    assert code == 1
    messages = [f"{p['file']} {p['path']} {p['message']}" for p in json.loads(out)["problems"]]
    assert any("SHA-256" in m for m in messages)
    assert any("records/extra.json" in m and "not listed" in m for m in messages)
    assert any("latest should be set" in m for m in messages)


def test_validate_export_missing_manifest_and_hostile_zip(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    export = built.export("R1", built.records("R1"))
    _rezip(export, lambda files: files.pop("manifest.json"))
    code, _, err = run(capsys, "results", "validate", export)
    assert code == 1 and "manifest.json is missing" in err
    hostile = built.root / "hostile.zip"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("../../etc/evil.json", b"{}")
    hostile.write_bytes(buf.getvalue())
    code, _, err = run(capsys, "results", "validate", hostile)
    assert code == 1 and "'../../etc/evil.json'" in err
    code, _, err = run(capsys, "results", "validate", built.root / "nope.zip")
    assert code == 1 and "file not found" in err


def test_validate_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["results", "validate"])
    assert info.value.code == 2


# ------------------------------------------------------------------ collect


def collect(built: Built, capsys: pytest.CaptureFixture[str], *exports: Path, expect: int = 0) -> dict[str, Any]:
    code, out, err = run(capsys, "results", "collect", *exports, "--key", built.key_path, "--out", built.root / "merged", "--json")
    assert code == expect, out + err
    return json.loads(out)  # type: ignore[no-any-return]


def merged(built: Built) -> tuple[list[RatingRecord], dict[str, Any], list[dict[str, str]], dict[str, Any]]:
    out = built.root / "merged"
    ratings = [RatingRecord.model_validate(json.loads(line)) for line in (out / "ratings.jsonl").read_text().splitlines()]
    report = json.loads((out / "collect-report.json").read_text())
    rows = list(csv.DictReader(io.StringIO((out / "ratings.csv").read_text(encoding="utf-8"))))
    summary = json.loads((out / "summary.json").read_text())
    return ratings, report, rows, summary


def test_collect_happy_path_fills_model_source(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    exports = [built.export(r, built.records(r)) for r in ("R1", "R2", "R3")]
    result = collect(built, capsys, *exports)
    assert result["ok"] and result["ratings"] == 30
    ratings, report, rows, summary = merged(built)
    by_task = {e.task_id: e for e in built.key.entries}
    assert len(ratings) == 30
    for r in ratings:
        assert r.model_source == by_task[r.envelope.task_id].model_source
    assert report["tasks_nobody_rated"] == [] and report["missing_by_rater"] == {}
    assert report["duplicates"] == report["conflicts"] == report["unknown_tasks"] == []
    # CSV: one row per rating, a column per score, failure mode and note
    assert len(rows) == 30
    columns = list(rows[0])
    assert columns[: len(CSV_FIXED_COLUMNS)] == CSV_FIXED_COLUMNS
    for f in SCORE_FIELDS:
        assert f in columns
    assert "failure_mode.WM-FM-REASSURANCE" in columns and "failure_mode_note.WM-FM-REASSURANCE" in columns
    assert {row["model_source"] for row in rows} == set(MODELS)
    assert rows[0]["safety_scope_boundaries_score"] == "NA"
    assert rows[0]["failure_mode_note.WM-FM-REASSURANCE"] == 'Answers the question, "again",\nindirectly.'
    # summary per rater and per model
    assert summary["raters"]["R1"]["ratings"] == 10 and summary["raters"]["R1"]["assigned"] == 10
    assert set(summary["models"]) == set(MODELS)
    assert sum(m["ratings"] for m in summary["models"].values()) == 30
    model_scores = summary["models"][MODELS[0]]["scores"]
    assert model_scores["overall_clinical_judgment_score"]["mean"] == 4
    assert model_scores["safety_scope_boundaries_score"]["n_na"] == 10


def test_collect_csv_is_rectangular_and_typed(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    # What pandas/R need: unique header names, every row as wide as the header, scores as integers or
    # N/A, and quoted multi-line notes that survive a round trip.
    collect(built, capsys, built.export("R1", built.records("R1")), expect=0)
    text = (built.root / "merged" / "ratings.csv").read_text(encoding="utf-8")
    assert not text.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    assert len(header) == len(set(header)) and len(body) == 10
    assert all(len(row) == len(header) for row in body)
    for row in body:
        record = dict(zip(header, row, strict=True))
        for f in SCORE_FIELDS:
            assert record[f] == "NA" or record[f].isdigit()
        assert record["time_spent_scoring_seconds"].isdigit()
        assert "\n" in record["failure_mode_note.WM-FM-REASSURANCE"]


def test_ratings_csv_is_exact_and_excel_safe_copy_is_neutralised(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    recs = built.records("R1")
    notes = recs[0]["clinician_notes"]
    notes["brief_rationale"] = '=HYPERLINK("http://example.invalid","x")'
    notes["best_aspect"] = "-ve framing, but +1 for warmth"
    notes["main_concern"] = "@prescriber\nsecond line"
    export = built.export("R1", recs)
    collect(built, capsys, export)
    out = built.root / "merged"
    exact = (out / "ratings.csv").read_bytes()
    assert not (out / "ratings-excel.csv").exists()
    rows = list(csv.DictReader(io.StringIO(exact.decode("utf-8"))))
    row = next(r for r in rows if r["task_id"] == recs[0]["envelope"]["task_id"])
    assert row["brief_rationale"] == notes["brief_rationale"] and row["best_aspect"] == notes["best_aspect"]

    code, out_text, err = run(capsys, "results", "collect", export, "--key", built.key_path, "--out", out, "--excel-safe")
    assert code == 0, err
    assert "ratings-excel.csv" in out_text
    assert (out / "ratings.csv").read_bytes() == exact  # the data file never changes
    excel = (out / "ratings-excel.csv").read_text(encoding="utf-8")
    assert excel.startswith("\ufeff")
    safe = list(csv.DictReader(io.StringIO(excel.removeprefix("\ufeff"))))
    assert len(safe) == len(rows) and list(safe[0]) == list(rows[0])
    srow = next(r for r in safe if r["task_id"] == row["task_id"])
    assert srow["brief_rationale"] == "'" + notes["brief_rationale"]
    assert srow["best_aspect"] == "'" + notes["best_aspect"] and srow["main_concern"] == "'" + notes["main_concern"]
    for a, b in zip(rows, safe, strict=True):  # nothing else changes
        changed = {k for k in a if a[k] != b[k]}
        assert all(b[k] == "'" + a[k] for k in changed) and changed <= {"brief_rationale", "best_aspect", "main_concern"}


def test_collect_with_the_wrong_file_as_key_says_so_in_one_line(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    export = built.export("R1", built.records("R1"))
    wrong = {
        built.bundle_paths["R1"]: "is a zip file (a bundle or a results export?), not the unblinding key",
        built.root / "study" / "study.json": "is a wmcdp_study document, not the unblinding key",
        built.root / "out": "is a folder, not the unblinding key",
    }
    for key, expected in wrong.items():
        code, _, err = run(capsys, "results", "collect", export, "--key", key, "--out", built.root / "m")
        assert code == 1 and expected in err and "1 problem found." in err, err
    assert not (built.root / "m").exists()


def test_collect_latest_revision_wins_and_history(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    r1 = built.bundles["R1"]
    first = built.records("R1")
    task = r1.task_ids[0]
    revised = built.records("R1", [task], revision=2, score=2, submitted_at="2026-11-29T11:00:00Z",
                            supersedes=first[0]["envelope"]["record_id"])
    export = built.export("R1", first + revised)
    result = collect(built, capsys, export)
    assert result["ok"] and result["revised"] == 1
    ratings, report, rows, _ = merged(built)
    kept = next(r for r in ratings if r.envelope.task_id == task)
    assert kept.envelope.revision == 2 and kept.scoring.overall_clinical_judgment_score == 2
    assert len(ratings) == 10
    (h,) = report["history"]
    assert h["task_id"] == task and h["kept_revision"] == 2 and [x["revision"] for x in h["revisions"]] == [1, 2]
    row = next(r for r in rows if r["task_id"] == task)
    assert row["revision"] == "2" and row["revisions_submitted"] == "2"


def test_collect_duplicates_are_counted_once(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    export = built.export("R1", built.records("R1"))
    copy = built.root / "copy.zip"
    copy.write_bytes(export.read_bytes())
    result = collect(built, capsys, export, copy)
    # the same zip under another name is recognised by its SHA-256 (issue 15: not counted twice) and said
    assert result["ratings"] == 10 and result["duplicates"] == 0 and result["problems"] == []
    assert result["exports_already_collected"] == [str(copy)] and result["exports_in_collection"] == 1
    # the same records in a different zip (re-packed) are duplicates, counted once, and the replay is said
    other = built.export("R1", built.records("R1"), name="again.zip")
    with zipfile.ZipFile(other) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    with zipfile.ZipFile(other, "w", zipfile.ZIP_STORED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    result = collect(built, capsys, export, other, expect=1)
    # the same chain as the one collected before (so neither is quarantined): its records count once, the replay is said
    assert result["ratings"] == 10 and result["duplicates"] == 10 and result["quarantined"] == 0
    (problem,) = result["problems"]
    assert problem["file"] in ("again.zip!manifest.json", "export-R1.zip!manifest.json")
    assert "is the same export as" in problem["message"]


def test_collect_conflicts_are_reported(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    r1 = built.bundles["R1"]
    task = r1.task_ids[0]
    a = built.export("R1", built.records("R1", [task], score=3, submitted_at="2026-11-29T10:00:00Z"), name="a.zip")
    b = built.export("R1", built.records("R1", [task], score=5, submitted_at="2026-11-29T11:00:00+00:00"), name="b.zip")
    result = collect(built, capsys, a, b, expect=1)
    # Two exports of R1's bundle whose chains both hold but part: two histories. Which one is right cannot be
    # told (never by the time a record claims), so both exports are quarantined and neither revision counts.
    assert result["ratings"] == 0 and result["quarantined"] == 2
    ratings, report, _, _ = merged(built)
    assert ratings == []
    assert sorted(r["export"] for r in report["quarantine"]) == ["a.zip", "b.zip"]
    assert all(r["checks"] == ["history"] for r in report["quarantine"])
    messages = [p["message"] for p in report["problems"]]
    assert any("two different histories of rater R1's bundle" in m for m in messages)


def test_collect_with_another_builds_key_is_one_problem_per_export(
    built: Built, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    other = tmp_path / "other"
    assert main(["bundle", "build", str(built.root / "study"), "--out", str(other), "--seed", "99"]) == 0
    capsys.readouterr()
    exports = [built.export(r, built.records(r)) for r in ("R1", "R2")]
    code, out, _ = run(capsys, "results", "collect", *exports, "--key", other / "STUDY-T1-unblinding-key.json",
                       "--out", built.root / "merged", "--json")
    result = json.loads(out)
    assert code == 1 and result["ratings"] == 0 and result["unknown_tasks"] == 0
    assert [(p["file"], p["path"]) for p in result["problems"]] == [
        ("export-R1.zip!manifest.json", "bundle_id"), ("export-R2.zip!manifest.json", "bundle_id")]
    assert "another seed" in result["problems"][0]["message"] and "10 records were left out" in result["problems"][0]["message"]


def test_collect_unknown_and_unrated_tasks(built: Built, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    r1 = built.bundles["R1"]
    recs = built.records("R1", r1.task_ids[:4])
    stray = dict(recs[0])
    stray["envelope"] = dict(stray["envelope"], task_id="t-ffffffffffffffff", record_id="f" * 32)
    export = built.export("R1", [*recs, stray])
    result = collect(built, capsys, export, expect=1)
    assert result["unknown_tasks"] == 1 and result["ratings"] == 4
    _, report, _, summary = merged(built)
    assert report["unknown_tasks"][0]["task_id"] == "t-ffffffffffffffff"
    assert len(report["missing_by_rater"]["R1"]) == 6
    assert set(report["missing_by_rater"]) == {"R1", "R2", "R3"}
    assert len(report["tasks_nobody_rated"]) == 15 - 4
    assert summary["raters"]["R1"]["assigned_not_returned"] == 6


def test_collect_rejects_records_that_disagree_with_key(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    recs = built.records("R1")
    recs[0]["candidate_response_id"] = "cr-forged"
    result = collect(built, capsys, built.export("R1", recs), expect=1)
    assert result["ratings"] == 9
    assert any(p["path"] == "candidate_response_id" for p in result["problems"])


def test_collect_bad_exports_are_reported_and_others_kept(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    good = built.export("R2", built.records("R2"))
    tampered = built.export("R1", built.records("R1"))
    _rezip(tampered, lambda files: files.update({"records/zzz.json": b"{}"}))
    junk = built.root / "junk.zip"
    junk.write_bytes(b"not a zip")
    result = collect(built, capsys, good, tampered, junk, built.root, expect=1)
    assert result["ratings"] == 10 and result["quarantined"] == 10  # the tampered export's records never count
    files = {Path(p["file"].split("!")[0]).name for p in result["problems"]}
    assert {"export-R1.zip", "junk.zip", built.root.name} <= files
    assert (built.root / "merged" / "ratings.csv").exists()


def test_collect_wrong_study_is_skipped(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    recs = built.records("R1")
    b = built.bundles["R1"]
    path = built.root / "other.zip"
    path.write_bytes(export_zip(recs, study_id="OTHER", rater_id="R1", bundle_id=b.manifest.bundle_id, bundle_sha256=b.manifest_sha256))
    result = collect(built, capsys, path, expect=1)
    assert result["ratings"] == 0
    assert [(p["file"], p["path"]) for p in result["problems"]] == [("other.zip!manifest.json", "study_id")]


@pytest.mark.parametrize("change", ["bundle_sha256", "rater_id", "bundle_id"])
def test_collect_export_that_disagrees_with_the_key_is_named_and_its_records_quarantined(
    built: Built, capsys: pytest.CaptureFixture[str], change: str
) -> None:
    """An export whose manifest names another bundle digest, rater or bundle id (but tasks of this key):
    one problem naming the field; its binding to the bundle and the rater does not hold, so its records are
    quarantined (issue 25: they used to count because they agree with the key task by task)."""
    b = built.bundles["R1"]
    fields = {"study_id": "STUDY-T1", "rater_id": "R1", "bundle_id": b.manifest.bundle_id,
              "bundle_sha256": b.manifest_sha256, "tasks_in_bundle": len(b.task_ids)}
    fields[change] = {"bundle_sha256": "0" * 64, "rater_id": "R2", "bundle_id": "STUDY-T1.R1.000000000000"}[change]
    recs = built.records("R1")
    for rec in recs:  # the records agree with their manifest, as a rater's own export would
        rec["rater_id"] = fields["rater_id"]
        rec["envelope"].update(bundle_id=fields["bundle_id"], bundle_sha256=fields["bundle_sha256"])
    path = built.root / "changed.zip"
    path.write_bytes(export_zip(recs, **fields))  # type: ignore[arg-type]
    result = collect(built, capsys, path, expect=1)
    assert [(p["file"], p["path"]) for p in result["problems"]] == [("changed.zip!manifest.json", change),
                                                                   ("changed.zip", "")]
    assert result["ratings"] == 0 and result["quarantined"] == 10
    _, report, _, _ = merged(built)
    assert {tuple(r["checks"]) for r in report["quarantine"]} == {("binding",)}


def test_collect_text_output_and_missing_key(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    export = built.export("R1", built.records("R1"))
    code, out, _ = run(capsys, "results", "collect", export, "--key", built.key_path, "--out", built.root / "m")
    assert code == 0 and "10 ratings" in out and "ratings.csv" in out
    code, _, err = run(capsys, "results", "collect", export, "--key", built.root / "nokey.json", "--out", built.root / "m")
    assert code == 1 and "nokey.json" in err and "not found" in err
    with pytest.raises(SystemExit) as info:
        main(["results", "collect", str(export), "--out", str(built.root / "m")])
    assert info.value.code == 2


def test_collect_takes_the_receipt_options_of_validate(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    from wmcdp_desktop.core.audit_chain import receipt_code
    from wmcdp_desktop.core.models.results_manifest import ResultsManifest

    path = built.export("R1", built.records("R1"))
    with zipfile.ZipFile(path) as zf:
        manifest = ResultsManifest.model_validate_json(zf.read("manifest.json"))
    assert manifest.audit is not None
    code = receipt_code(manifest.audit.head)
    out = built.root / "merged"
    for given, expected in ((code.lower().replace("-", " "), 0), ("00000-00000", 1)):
        status, text, _ = run(capsys, "results", "collect", path, "--key", built.key_path, "--out", out,
                              "--receipt", given, "--json")
        assert status == expected, text
    assert "but rater R1 sent 00000-00000" in text
    other = built.export("R2", built.records("R2"))
    status, text, _ = run(capsys, "results", "collect", path, other, "--key", built.key_path, "--out", out,
                          "--receipt", code, "--json")
    assert status == 2 and "--receipt checks one export" in json.loads(text)["usage_error"]
    for command in (["validate", str(path)], ["collect", str(path), "--key", "k", "--out", "o"]):
        with pytest.raises(SystemExit):
            main(["results", *command, "--help"])
        help_text = capsys.readouterr().out
        assert "--receipt CODE" in help_text and "--receipts FILE" in help_text


def test_collect_says_when_tasks_were_never_rated(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = built.bundles["R1"].task_ids
    path = built.export("R1", built.records("R1", tasks[:-2]))
    result = collect(built, capsys, path, expect=0)
    never = result["tasks_never_rated"]
    assert set(tasks[-2:]) <= set(never) and result["tasks_nobody_rated"] == len(never)
    assert result["warnings"] and "never rated" in result["warnings"][0]
    status, _, err = run(capsys, "results", "collect", path, "--key", built.key_path, "--out", built.root / "merged")
    assert status == 0 and f"warning: {len(never)} tasks of the key were never rated" in err
    complete = [built.export(r, built.records(r), name=f"complete-{r}.zip") for r in built.bundles]
    status, text, _ = run(capsys, "results", "collect", *complete, "--key", built.key_path, "--out",
                          built.root / "complete", "--json")
    assert status == 0 and json.loads(text)["warnings"] == [] and json.loads(text)["tasks_never_rated"] == []
