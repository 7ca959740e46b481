"""A rating made with the clock three days ahead is collected and flagged in every counted table (issue 25):
``clock_suspect`` is a column of ratings.csv, ratings-excel.csv, both Parquet tables and the REDCap import, and
the codebook (datapackage.json, the REDCap data dictionary) describes it. Each table is read back."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timedelta
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import TEST_NOW
from tests.kit.studies import BuiltStudy, build_study
from wmcdp_desktop.coordinator.commands.main import main


@pytest.fixture
def study(tmp_path: Path) -> BuiltStudy:
    return build_study(tmp_path, n_items=4, n_raters=3, overlap=2)


def _rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_bytes().decode("utf-8-sig"), newline="")))


def test_a_rating_made_three_days_ahead_is_flagged_in_every_table(
    study: BuiltStudy, capsys: pytest.CaptureFixture[str]
) -> None:
    ahead = (datetime.fromisoformat(TEST_NOW) + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
    r1 = study.records("R1", submitted_at=ahead)  # every R1 rating: the rater's clock three days ahead
    r2 = study.records("R2")  # R2's clock is right
    exports = [study.export("R1", r1, "r1.zip"), study.export("R2", r2, "r2.zip")]
    out = study.root / "merged"
    code = main(["results", "collect", *map(str, exports), "--key", str(study.key), "--out", str(out), "--excel-safe"])
    text = capsys.readouterr().out
    assert code == 0 and "clock_suspect" in text
    suspect = {r["envelope"]["record_id"] for r in r1}
    every = suspect | {r["envelope"]["record_id"] for r in r2}
    # every rating is counted: the wrong clock loses none
    jsonl = [json.loads(line) for line in (out / "ratings.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {r["envelope"]["record_id"] for r in jsonl} == every

    for name in ("ratings.csv", "ratings-excel.csv"):
        rows = _rows(out / name)
        assert {row["record_id"] for row in rows} == every, name
        assert {row["record_id"]: row["clock_suspect"] for row in rows} == {
            rid: "TRUE" if rid in suspect else "FALSE" for rid in every}, name
    ratings = pq.read_table(out / "ratings.parquet").to_pydict()
    assert dict(zip(ratings["record_id"], ratings["clock_suspect"], strict=True)) == {rid: rid in suspect for rid in every}
    long = pq.read_table(out / "failure_modes.parquet").to_pydict()
    assert {rid for rid, flag in zip(long["record_id"], long["clock_suspect"], strict=True) if flag} == suspect
    redcap = _rows(out / "redcap-import.csv")
    assert {row["record_id"]: row["clock_suspect"] for row in redcap} == {
        rid: "1" if rid in suspect else "0" for rid in every}
    dictionary = {row["Variable / Field Name"]: row for row in _rows(out / "redcap-data-dictionary.csv")}
    assert dictionary["clock_suspect"]["Field Type"] == "yesno"
    package = json.loads((out / "datapackage.json").read_text(encoding="utf-8"))
    for resource in ("ratings-csv", "ratings-parquet", "failure-modes-parquet", "redcap-import-csv"):
        fields = next(r for r in package["resources"] if r["name"] == resource)["schema"]["fields"]
        (field,) = [f for f in fields if f["name"] == "clock_suspect"]
        assert field["type"] == "boolean" and "wrong clock" in field["description"], resource
    csv_field = next(f for f in next(r for r in package["resources"] if r["name"] == "ratings-csv")["schema"]["fields"]
                     if f["name"] == "clock_suspect")
    assert csv_field["trueValues"] == ["TRUE"] and csv_field["falseValues"] == ["FALSE"]
    # collect-report.json says why, per record
    report = json.loads((out / "collect-report.json").read_text(encoding="utf-8"))
    assert {row["record_id"] for row in report["clock_suspect"]} == suspect
    assert all(ahead in row["why"] for row in report["clock_suspect"])
