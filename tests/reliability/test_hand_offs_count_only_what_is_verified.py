"""Issue 25's cases, counted by the reliability suite (``python -m tests.reliability.report``): every hand-off
between the rater and the coordinator turns a problem into a visible decision. A forged score with the genuine
receipt, a forged history and an off-assignment record never reach ratings.jsonl; a rating made with the clock
three days ahead is collected and flagged; a carriage return never splits a CSV row; a folder of the data
folder linked outside it is refused; a rater id with terminal escapes never reaches the terminal raw."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TEST_NOW
from tests.coordinator.collect.test_every_hand_off_is_a_visible_decision import CASES as HAND_OFF_CASES
from tests.kit.exports import Export, export_zip, record_obj
from tests.kit.studies import BuiltStudy, build_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core import audit_chain
from wmcdp_desktop.core.errors import StorageError
from wmcdp_desktop.core.models.draft import Draft
from wmcdp_desktop.rater.storage import RaterStore
from wmcdp_desktop.rater.timing import FakeClock

from .tally import Tally

pytestmark = pytest.mark.reliability
LIVE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> BuiltStudy:
    return build_study(tmp_path_factory.mktemp("handoffs"), n_items=4, n_raters=3, overlap=2)


def _collect(study: BuiltStudy, capsys: pytest.CaptureFixture[str], out: str, *args: object) -> tuple[int, list[dict[str, Any]], str]:
    code = main(["results", "collect", *map(str, args), "--key", str(study.key), "--out", str(study.root / out)])
    text = capsys.readouterr()
    lines = (study.root / out / "ratings.jsonl").read_text(encoding="utf-8").split("\n")
    return code, [json.loads(line) for line in lines if line], text.out + text.err


def _genuine(study: BuiltStudy, name: str, **kw: Any) -> Path:
    return study.export("R1", study.records("R1", **kw), name)


def test_forged_score_history_and_assignment_are_never_counted(
    built: BuiltStudy, capsys: pytest.CaptureFixture[str], tally: Tally
) -> None:
    with tally.hostile("collect: a score edited, its submitted line re-hashed, genuine receipt given"):
        genuine = _genuine(built, "g1.zip", score=4)
        export = Export.read(genuine)
        name = sorted(n for n in export.files if n.startswith("records/"))[0].removeprefix("records/")
        record = export.record(name)
        record["scoring"] = {k: (1 if v != "N/A" else v) for k, v in record["scoring"].items()}
        export.set_record(name, record)
        sha = hashlib.sha256(export.files[f"records/{name}"]).hexdigest()
        export.set_audit_lines([audit_chain.encode_event({**json.loads(x), "sha256": sha})
                                if json.loads(x).get("file") == name else x for x in export.audit_lines()])
        forged = export.rehash().write(built.root / "forged-score.zip")
        receipts = built.root / "receipts.txt"
        receipts.write_text(f"R1 {audit_chain.receipt_code(export.manifest['audit']['head'])}\n", encoding="utf-8")
        code, kept, _ = _collect(built, capsys, "score", forged, "--receipts", receipts)
        assert code == 1 and kept == []
    with tally.hostile("collect: a rebuilt chain with an added revision, after the genuine export"):
        records = built.records("R1", score=3)
        genuine = built.export("R1", records, "g2.zip")
        assert _collect(built, capsys, "history", genuine)[0] == 0
        b = built.bundles["R1"]
        r2 = record_obj(b.task(records[0]["envelope"]["task_id"]), "R1", b.manifest.bundle_id, b.manifest_sha256,
                        revision=2, score=5, supersedes=records[0]["envelope"]["record_id"])
        code, kept, _ = _collect(built, capsys, "history", built.export("R1", [*records, r2], "forged-history.zip"))
        assert code == 1 and {r["envelope"]["revision"] for r in kept} == {1}
        assert {r["scoring"]["overall_clinical_judgment_score"] for r in kept} == {3}
    with tally.hostile("collect: a record of a task outside the rater's assignment"):
        b1, b2 = built.bundles["R1"], built.bundles["R2"]
        task = next(t for t in b2.task_ids if t not in set(b1.task_ids))
        stray = record_obj(b2.task(task), "R1", b1.manifest.bundle_id, b1.manifest_sha256)
        code, kept, _ = _collect(built, capsys, "assignment", built.export("R1", [*built.records("R1"), stray], "off.zip"))
        assert code == 1 and task not in {r["envelope"]["task_id"] for r in kept}


def test_a_wrong_clock_a_carriage_return_and_terminal_escapes(
    built: BuiltStudy, capsys: pytest.CaptureFixture[str], tally: Tally
) -> None:
    with tally.hostile("collect: ratings made with the clock three days ahead"):
        when = (datetime.fromisoformat(TEST_NOW) + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
        records = built.records("R1", submitted_at=when)
        path = built.root / "ahead.zip"
        path.write_bytes(export_zip(records, **built.export_options("R1")))
        code, kept, text = _collect(built, capsys, "clock", path)
        assert code == 0 and len(kept) == len(records) and "clock_suspect" in text
    with tally.hostile("collect: a bare CR (and a formula after it) in a flag note"):
        records = built.records("R1")
        records[0]["coordinator_flag"] = {"note": "see\r=1+1"}
        path = built.root / "cr.zip"
        path.write_bytes(export_zip(records, **built.export_options("R1")))
        code, kept, _ = _collect(built, capsys, "cr", path, "--excel-safe")
        assert code == 0
        for table in ("ratings.csv", "ratings-excel.csv", "redcap-import.csv"):
            text = (built.root / "cr" / table).read_bytes().decode("utf-8-sig")
            rows = list(csv.reader(io.StringIO(text, newline="")))
            assert len(rows) == len(kept) + 1, table
    with tally.hostile("collect: a rater id with terminal escapes in the manifest"):
        records = built.records("R1")
        options = {**built.export_options("R1"), "rater_id": "R1\x1b[2J"}
        for r in records:
            r["rater_id"] = options["rater_id"]
        path = built.root / "escape.zip"
        path.write_bytes(export_zip(records, **options))
        code, kept, text = _collect(built, capsys, "escape", path)
        assert code == 1 and kept == [] and not LIVE.search(text) and "rater_id" in text


@pytest.mark.skipif(os.name != "posix", reason="POSIX symbolic links")
@pytest.mark.parametrize("level", ["bundles", "bundles/B-test", "bundles/B-test/R01", "bundles/B-test/R01/drafts",
                                   "bundles/B-test/R01/records"])
def test_a_data_folder_level_linked_outside_is_refused(tmp_path: Path, tally: Tally, level: str) -> None:
    with tally.hostile(f"app: {level} of the data folder a link to outside it"):
        data = tmp_path / "data"
        store = RaterStore(data, "B-test", "R01", FakeClock())
        store.ensure()
        outside = tmp_path / "outside"
        (data / level).rename(outside)
        (data / level).symlink_to(outside, target_is_directory=True)
        before = sorted(p.name for p in outside.rglob("*"))
        draft = Draft.model_validate({
            "document_type": "wmcdp_draft", "format_version": "1.0.0", "task_id": "T-0001", "bundle_id": "B-test",
            "rater_id": "R01", "scores": {"WM-RUB-001": 3}, "active_seconds": 1.0,
            "started_at": "2026-11-29T10:00:00Z", "updated_at": "2026-11-29T10:01:00Z",
        })
        with pytest.raises(StorageError, match="outside the data folder"):
            store.save_draft(draft)
        with pytest.raises(StorageError, match="outside the data folder"):
            store.audit("opened")
        assert sorted(p.name for p in outside.rglob("*")) == before


@pytest.mark.parametrize("case", list(HAND_OFF_CASES))
def test_the_hand_off_cases_of_each_class(built: BuiltStudy, tally: Tally, case: str) -> None:
    """Cases of issue 25's three classes beyond the issue's own (tests/coordinator/collect/
    test_every_hand_off_is_a_visible_decision.py), each through the real commands."""
    with tally.hostile(f"collect: {case}"):
        HAND_OFF_CASES[case](built)
