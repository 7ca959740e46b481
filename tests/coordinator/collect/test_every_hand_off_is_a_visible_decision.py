"""Issue 25's classes, tried with cases of our own through the real commands: (1) a record whose provenance fails a
check is never counted; (2) every hand-off turns a problem into a visible decision, never a silent drop or a
silent keep; (3) every input has a bound. Each case is one function of :data:`CASES` (the reliability suite runs
them again and counts them: ``tests/reliability/test_hand_offs_count_only_what_is_verified.py``)."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import re
import zipfile
from collections.abc import Callable
from itertools import count
from pathlib import Path
from typing import Any

import pytest

from tests.kit.exports import Export, record_obj
from tests.kit.studies import BuiltStudy, build_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core import audit_chain

LIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Characters that must never reach the coordinator's terminal raw."""
_N = count()


def run(*argv: object) -> tuple[int, str]:
    """A ``wmcdp`` command through its ``main``, its output (stdout and stderr) as text."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse's own refusals
            code = int(exc.code or 0)
    text = out.getvalue() + err.getvalue()
    assert "Traceback" not in text and not LIVE.search(text), text
    return code, text


class Collection:
    """One ``wmcdp results collect`` into a folder of its own, read back."""

    def __init__(self, study: BuiltStudy, *args: object, out: Path | None = None) -> None:
        self.out = out or study.root / f"collected-{next(_N)}"
        self.code, self.text = run("results", "collect", *args, "--key", study.key, "--out", self.out)
        lines = (self.out / "ratings.jsonl").read_text(encoding="utf-8").splitlines()
        self.kept = [json.loads(line) for line in lines]
        self.report: dict[str, Any] = json.loads((self.out / "collect-report.json").read_text(encoding="utf-8"))
        with (self.out / "quarantine.csv").open(encoding="utf-8", newline="") as fh:
            self.quarantine = list(csv.DictReader(fh))

    def ids(self) -> set[str]:
        return {r["envelope"]["record_id"] for r in self.kept}

    def quarantined(self) -> dict[str, str]:
        """record id -> its failed checks, of the rows not accepted."""
        return {row["record_id"]: row["checks"] for row in self.quarantine if row["accepted"] == "no"}


def _name(study: BuiltStudy, stem: str) -> str:
    return f"{stem}-{next(_N)}.zip"


def _forge_first_score(export: Export) -> None:
    """Every score of the export's first record 1, its new SHA-256 in its ``submitted`` line (the issue's forgery)."""
    name = sorted(n for n in export.files if n.startswith("records/"))[0].removeprefix("records/")
    record = export.record(name)
    record["scoring"] = {k: (1 if v != "N/A" else v) for k, v in record["scoring"].items()}
    export.set_record(name, record)
    sha = hashlib.sha256(export.files[f"records/{name}"]).hexdigest()
    export.set_audit_lines([audit_chain.encode_event({**json.loads(x), "sha256": sha})
                            if json.loads(x).get("file") == name else x for x in export.audit_lines()])
    export.rehash()


def _common_task(study: BuiltStudy) -> str:
    return next(t for t in study.bundles["R1"].task_ids if t in set(study.bundles["R2"].task_ids))


# ------------------------------------------------------------------------------- (1) provenance fails: not counted

def record_naming_another_rater(study: BuiltStudy) -> None:
    """A record naming rater R2 inside R1's sealed export, for a task both were given."""
    b1 = study.bundles["R1"]
    task = _common_task(study)
    stray = record_obj(b1.task(task), "R2", b1.manifest.bundle_id, b1.manifest_sha256, score=1)
    records = [r for r in study.records("R1") if r["envelope"]["task_id"] != task] + [stray]
    c = Collection(study, study.export("R1", records, _name(study, "other-rater")))
    assert c.code == 1 and stray["envelope"]["record_id"] not in c.ids()
    assert not any(r["rater_id"] == "R2" for r in c.kept)


def an_audit_line_after_the_seal(study: BuiltStudy) -> None:
    export = Export.read(study.export("R1", study.records("R1"), _name(study, "sealed")))
    lines = export.audit_lines()
    late = {"event": "opened", "prev": hashlib.sha256(lines[-1]).hexdigest(), "at": "2026-11-29T13:00:00Z"}
    export.set_audit_lines([*lines, audit_chain.encode_event(late)])
    c = Collection(study, export.rehash().write(study.root / _name(study, "after-seal")))
    assert c.code == 1 and c.kept == [] and len(c.quarantined()) == len(study.records("R1"))
    assert all("seal" in checks for checks in c.quarantined().values())


def a_chain_whose_first_line_is_not_opened(study: BuiltStudy) -> None:
    from tests.kit.exports import reforge_chain

    export = Export.read(study.export("R1", study.records("R1"), _name(study, "first")))
    lines = export.audit_lines()
    first = json.loads(lines[0])
    assert first["event"] == "opened"
    lines[0] = audit_chain.encode_event({**first, "event": "draft_saved"})
    export.set_audit_lines(reforge_chain(lines))
    c = Collection(study, export.rehash().write(study.root / _name(study, "not-opened")))
    assert c.code == 1 and c.kept == [] and c.quarantined()


def revision_three_without_revision_two(study: BuiltStudy) -> None:
    records = study.records("R1")
    b = study.bundles["R1"]
    r3 = record_obj(b.task(records[0]["envelope"]["task_id"]), "R1", b.manifest.bundle_id, b.manifest_sha256,
                    revision=3, score=5, supersedes=records[0]["envelope"]["record_id"])
    c = Collection(study, study.export("R1", [*records, r3], _name(study, "gap")))
    rid = r3["envelope"]["record_id"]
    assert c.code == 1 and rid not in c.ids() and c.quarantined()[rid] == "revisions"
    # and revision 1 does not silently stand in for it
    assert records[0]["envelope"]["task_id"] not in {r["envelope"]["task_id"] for r in c.kept}
    assert "revision 2 of this task is in none of the exports" in " ".join(r["why"] for r in c.quarantine)
    # results validate says the same: the record is not valid
    code, text = run("results", "validate", study.root / c.report["exports"][0]["file"], "--json")
    assert code == 1 and json.loads(text)["valid_records"] == len(records)


def revision_one_that_replaces_a_record(study: BuiltStudy) -> None:
    records = study.records("R1")
    records[0]["envelope"]["supersedes_record_id"] = "f" * 32
    c = Collection(study, study.export("R1", records, _name(study, "r1-supersedes")))
    rid = records[0]["envelope"]["record_id"]
    assert c.code == 1 and rid not in c.ids() and c.quarantined() == {rid: "revisions"}


def a_revision_replacing_another_tasks_record(study: BuiltStudy) -> None:
    records = study.records("R1")
    b = study.bundles["R1"]
    r2 = record_obj(b.task(records[0]["envelope"]["task_id"]), "R1", b.manifest.bundle_id, b.manifest_sha256,
                    revision=2, score=5, supersedes=records[1]["envelope"]["record_id"])
    c = Collection(study, study.export("R1", [*records, r2], _name(study, "cross")))
    assert c.code == 1 and c.quarantined() == {r2["envelope"]["record_id"]: "revisions"}
    assert {r["envelope"]["revision"] for r in c.kept} == {1}


def the_same_record_id_in_two_raters_exports(study: BuiltStudy) -> None:
    task = _common_task(study)
    r1, r2 = study.records("R1"), study.records("R2")
    a = next(r for r in r1 if r["envelope"]["task_id"] == task)
    b = next(r for r in r2 if r["envelope"]["task_id"] == task)
    b["envelope"]["record_id"] = a["envelope"]["record_id"]
    c = Collection(study, study.export("R1", r1, _name(study, "id-a")), study.export("R2", r2, _name(study, "id-b")))
    assert c.code == 1 and a["envelope"]["record_id"] not in c.ids()
    assert "same record id as" in c.text and c.report["conflicts"]


def an_export_with_no_receipt_code_when_receipts_are_checked(study: BuiltStudy) -> None:
    receipts = study.root / f"receipts-{next(_N)}.txt"
    receipts.write_text("R2 AAAAA-AAAAA\n", encoding="utf-8")
    c = Collection(study, study.export("R1", study.records("R1"), _name(study, "no-code")), "--receipts", receipts)
    assert c.code == 1 and c.kept == [] and set(c.quarantined().values()) == {"receipt"}
    assert "not checked, so its records are not counted" in c.text


def a_refused_receipt_is_remembered_by_a_later_collect(study: BuiltStudy) -> None:
    receipts = study.root / f"receipts-{next(_N)}.txt"
    receipts.write_text(f"R1 {audit_chain.receipt_code('cd' * 32)}\n", encoding="utf-8")
    out = study.root / f"later-{next(_N)}"
    refused = study.export("R1", study.records("R1"), _name(study, "refused"))
    assert Collection(study, refused, "--receipts", receipts, out=out).code == 1
    # the next export arrives and is collected without the receipts file: the refusal stands
    c = Collection(study, study.export("R2", study.records("R2"), _name(study, "next")), out=out)
    assert c.code == 1 and not any(r["rater_id"] == "R1" for r in c.kept)
    assert "refused it for its receipt code" in c.text


def one_receipt_for_the_new_export_of_a_collection(study: BuiltStudy) -> None:
    """``--receipt CODE`` for the export arriving now never checks the ones collected earlier against that code."""
    out = study.root / f"growing-{next(_N)}"
    earlier = study.export("R1", study.records("R1"), _name(study, "earlier"))
    assert Collection(study, earlier, out=out).code == 0
    new = study.export("R2", study.records("R2"), _name(study, "new"))
    code = audit_chain.receipt_code(Export.read(new).manifest["audit"]["head"])
    c = Collection(study, new, "--receipt", code, out=out)
    assert c.code == 0, c.text
    assert {r["rater_id"] for r in c.kept} == {"R1", "R2"} and c.quarantine == []
    # the wrong code for it quarantines it, and it only
    wrong = Collection(study, new, "--receipt", audit_chain.receipt_code("ab" * 32), out=study.root / f"w-{next(_N)}")
    assert wrong.code == 1 and wrong.kept == []


def two_exports_of_one_file_name_one_forged(study: BuiltStudy) -> None:
    n = next(_N)
    (study.root / f"a{n}").mkdir()
    (study.root / f"b{n}").mkdir()
    good = study.export("R1", study.records("R1"), study.root / f"a{n}" / "results.zip")
    forged = Export.read(study.export("R2", study.records("R2"), study.root / f"b{n}" / "results.zip"))
    _forge_first_score(forged)
    bad = forged.write(study.root / f"b{n}" / "results.zip")
    c = Collection(study, good, bad)
    assert c.code == 1
    # R1's genuine export is counted whole; only the forged one is quarantined, and each is named apart
    assert {r["envelope"]["record_id"] for r in study.records("R1")} <= c.ids()
    assert not any(r["rater_id"] == "R2" for r in c.kept)
    assert {row["export"] for row in c.quarantine} == {f"results.zip@{hashlib.sha256(bad.read_bytes()).hexdigest()[:12]}"}


def an_export_named_like_a_formula(study: BuiltStudy) -> None:
    """The quarantine table names the export; its file name is the sender's choice."""
    export = Export.read(study.export("R1", study.records("R1"), _name(study, "formula")))
    _forge_first_score(export)
    name = f"=HYPERLINK(1)-{next(_N)}.zip"
    c = Collection(study, export.write(study.root / name))
    assert c.code == 1 and {row["export"] for row in c.quarantine} == {"'" + name}
    assert all(row["record_file"].startswith("'=") and row["why"].startswith("'=") for row in c.quarantine)
    import pyarrow.parquet as pq

    assert set(pq.read_table(c.out / "quarantine.parquet").column("export").to_pylist()) == {name}


def accepted_then_off_the_assignment_too_is_one_row(study: BuiltStudy) -> None:
    b1, b2 = study.bundles["R1"], study.bundles["R2"]
    task = next(t for t in b2.task_ids if t not in set(b1.task_ids))
    stray = record_obj(b2.task(task), "R1", b1.manifest.bundle_id, b1.manifest_sha256, score=2)
    export = Export.read(study.export("R1", [*study.records("R1"), stray], _name(study, "both")))
    _forge_first_score(export)  # the chain no longer holds: every record quarantined
    path = export.write(study.root / _name(study, "both-forged"))
    ids = [r["envelope"]["record_id"] for r in export.records()]
    accepting = [a for rid in ids for a in ("--accept", rid, "--reason", "checked by phone")]
    c = Collection(study, path, *accepting)
    assert c.code == 0, c.text
    rows = [row for row in c.quarantine if row["record_id"] == stray["envelope"]["record_id"]]
    assert len(rows) == 1 and {"assignment", "chain"} <= set(rows[0]["checks"].split(";"))


# ------------------------------------------------------------------------------- (2) visible decisions

def a_receipt_code_whose_export_never_arrived(study: BuiltStudy) -> None:
    export = study.export("R1", study.records("R1"), _name(study, "arrived"))
    head = Export.read(export).manifest["audit"]["head"]
    receipts = study.root / f"receipts-{next(_N)}.txt"
    receipts.write_text(f"R1 {audit_chain.receipt_code(head)}\nR3 {audit_chain.receipt_code('ab' * 32)}\n",
                        encoding="utf-8")
    c = Collection(study, export, "--receipts", receipts)
    assert c.code == 0 and "rater R3 sent the receipt code" in c.text and "has that export arrived?" in c.text
    assert c.report["receipts_without_export"]


def accept_given_a_text_that_is_no_record_id(study: BuiltStudy) -> None:
    export = study.export("R1", study.records("R1"), _name(study, "accept-id"))
    code, text = run("results", "collect", export, "--key", study.key, "--out", study.root / f"x{next(_N)}",
                     "--accept", "x\x1b[2J../../etc", "--reason", "r")
    assert code == 2 and "is not a record id" in text


def accept_given_twice_with_two_reasons(study: BuiltStudy) -> None:
    export = study.export("R1", study.records("R1"), _name(study, "twice"))
    code, text = run("results", "collect", export, "--key", study.key, "--out", study.root / f"x{next(_N)}",
                     "--accept", "a" * 32, "--reason", "one", "--accept", "a" * 32, "--reason", "two")
    assert code == 2 and "is given twice" in text


def accept_of_a_record_that_is_counted(study: BuiltStudy) -> None:
    records = study.records("R1")
    rid = records[0]["envelope"]["record_id"]
    c = Collection(study, study.export("R1", records, _name(study, "counted")), "--accept", rid, "--reason", "why not")
    assert c.code == 1 and "is not quarantined (it is counted already)" in c.text and rid in c.ids()


def times_in_year_one(study: BuiltStudy) -> None:
    records = study.records("R1", submitted_at="0001-01-01T00:00:00Z")
    for r in records:
        r["envelope"]["started_at"] = "0001-01-01T00:00:00Z"
    c = Collection(study, study.export("R1", records, _name(study, "year-one")))
    assert c.code == 0 and len(c.kept) == len(records) and len(c.report["clock_suspect"]) == len(records)
    rows = list(csv.DictReader(io.StringIO((c.out / "ratings.csv").read_text(encoding="utf-8"))))
    assert {row["clock_suspect"] for row in rows} == {"TRUE"}


def times_with_offset_plus_fourteen_hours(study: BuiltStudy) -> None:
    records = study.records("R1", submitted_at="2026-11-30T00:07:30+14:00")  # 10:07:30 UTC on the 29th
    c = Collection(study, study.export("R1", records, _name(study, "kiribati")))
    assert c.code == 0 and len(c.kept) == len(records) and c.report["clock_suspect"] == []
    import pyarrow.parquet as pq

    when = pq.read_table(c.out / "ratings.parquet").column("submitted_at").to_pylist()
    assert {w.isoformat() for w in when} == {"2026-11-29T10:07:30+00:00"}


def a_leap_second(study: BuiltStudy) -> None:
    records = study.records("R1", submitted_at="2026-11-29T23:59:60Z")
    c = Collection(study, study.export("R1", records, _name(study, "leap")))
    assert c.code == 0 and len(c.kept) == len(records)


def bidi_overrides_and_escapes_in_flags_and_notes(study: BuiltStudy) -> None:
    records = study.records("R1")
    records[0]["coordinator_flag"] = {"note": "ok \u202egnp.exe\u202c \u2066x\u2069 \x1b[31mred"}
    records[1]["clinician_notes"]["brief_rationale"] = "\u202e=HYPERLINK(1)"
    c = Collection(study, study.export("R1", records, _name(study, "bidi")))  # run() checks the terminal
    assert c.code == 0 and "flag: R1 on" in c.text
    assert {r["coordinator_flag"]["note"] for r in c.kept if r.get("coordinator_flag")} == {records[0]["coordinator_flag"]["note"]}


# ------------------------------------------------------------------------------- (3) bounds and zip members

def members_that_differ_only_in_case(study: BuiltStudy) -> None:
    export = Export.read(study.export("R1", study.records("R1"), _name(study, "case")))
    name = sorted(n for n in export.files if n.startswith("records/"))[0]
    path = study.root / _name(study, "case-dup")
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", json.dumps(export.manifest))
        for member, data in export.files.items():
            zf.writestr(member, data)
        zf.writestr("records/" + name.removeprefix("records/").upper(), export.files[name])
    c = Collection(study, path)
    assert c.code == 1 and c.kept == [] and "clashes with" in c.text


def a_record_file_with_a_windows_reserved_name(study: BuiltStudy) -> None:
    export = Export.read(study.export("R1", study.records("R1"), _name(study, "con")))
    name = sorted(n for n in export.files if n.startswith("records/"))[0]
    export.files["records/CON.json"] = export.files.pop(name)
    for entry in export.manifest["files"]:
        if entry["path"] == name:
            entry["path"] = "records/CON.json"
    c = Collection(study, export.rehash().write(study.root / _name(study, "con-named")))
    assert c.code == 1 and c.kept == [] and not (c.out / "CON.json").exists()


def a_flag_note_of_a_hundred_thousand_characters(study: BuiltStudy) -> None:
    records = study.records("R1")
    records[0]["coordinator_flag"] = {"note": "x" * 100_000}
    c = Collection(study, study.export("R1", records, _name(study, "long-note")))
    assert c.code == 1 and records[0]["envelope"]["record_id"] not in c.ids() and len(c.text) < 200_000


CASES: dict[str, Callable[[BuiltStudy], None]] = {
    "a record naming another rater inside a sealed export": record_naming_another_rater,
    "an audit line appended after the seal": an_audit_line_after_the_seal,
    "a chain whose first line is not 'opened'": a_chain_whose_first_line_is_not_opened,
    "revision 3 without revision 2": revision_three_without_revision_two,
    "revision 1 that says it replaces a record": revision_one_that_replaces_a_record,
    "a revision replacing another task's record": a_revision_replacing_another_tasks_record,
    "the same record id in two raters' exports": the_same_record_id_in_two_raters_exports,
    "receipts checked but none for the export's rater": an_export_with_no_receipt_code_when_receipts_are_checked,
    "an export refused for its receipt, then a collect without receipts": a_refused_receipt_is_remembered_by_a_later_collect,
    "--receipt for the new export of a collection": one_receipt_for_the_new_export_of_a_collection,
    "two exports of one file name, one forged": two_exports_of_one_file_name_one_forged,
    "a record accepted, off the assignment too": accepted_then_off_the_assignment_too_is_one_row,
    "an export whose file name starts like a formula": an_export_named_like_a_formula,
    "a receipt code whose export never arrived": a_receipt_code_whose_export_never_arrived,
    "--accept of a text that is no record id": accept_given_a_text_that_is_no_record_id,
    "--accept of one id twice with two reasons": accept_given_twice_with_two_reasons,
    "--accept of a record that is counted": accept_of_a_record_that_is_counted,
    "times in year 1": times_in_year_one,
    "times with offset +14:00": times_with_offset_plus_fourteen_hours,
    "a leap second": a_leap_second,
    "bidi overrides and escapes in flags and notes": bidi_overrides_and_escapes_in_flags_and_notes,
    "zip members that differ only in case": members_that_differ_only_in_case,
    "a record file named CON.json": a_record_file_with_a_windows_reserved_name,
    "a flag note of 100,000 characters": a_flag_note_of_a_hundred_thousand_characters,
}
"""Every case, by what it tries."""


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> BuiltStudy:
    return build_study(tmp_path_factory.mktemp("hand-offs"), n_items=4, n_raters=3, overlap=2)


@pytest.mark.parametrize("case", list(CASES))
def test_every_hand_off_is_a_visible_decision(study: BuiltStudy, case: str) -> None:
    CASES[case](study)
