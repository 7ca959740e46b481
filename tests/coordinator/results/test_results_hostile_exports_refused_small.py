"""A tiny hostile results export (or record file) is refused at once, with a few lines, in little memory.

Found by probing (issue 13): a 508 KB export whose manifest listed about a million empty objects took
7.3 GB and 45-74 s in `results validate` and `collect`, and `collect` wrote a 955 MB report: every
validation error of every object became a problem. Now the manifest is measured against the zip before it
is parsed, record files against what a record can hold, and at most 100 problems are kept per file.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.kit.commands import run
from tests.kit.exports import export_zip, record_obj
from tests.kit.studies import write_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.errors import MAX_PROBLEMS_PER_DOCUMENT


@dataclass
class Export:
    members: dict[str, bytes]
    key: Path
    root: Path

    def write(self, name: str, members: dict[str, bytes]) -> Path:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for member, data in members.items():
                zf.writestr(member, data)
        path = self.root / name
        path.write_bytes(buf.getvalue())
        return path

    def manifest(self) -> dict[str, Any]:
        obj: dict[str, Any] = json.loads(self.members["manifest.json"])
        return obj


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Export:
    root = tmp_path_factory.mktemp("hostile")
    study = write_study(root / "study", n_items=4, n_raters=3, overlap=2)
    assert main(["bundle", "build", str(study), "--out", str(root / "built"), "--json"]) == 0
    bundle = open_bundle(root / "built" / "STUDY-T1-R1.wmcdp")
    records = [record_obj(bundle.task(t), "R1", bundle.manifest.bundle_id, bundle.manifest_sha256) for t in bundle.task_ids]
    data = export_zip(records, study_id="STUDY-T1", rater_id="R1", bundle_id=bundle.manifest.bundle_id,
                      bundle_sha256=bundle.manifest_sha256, tasks_in_bundle=len(bundle.task_ids))
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    return Export(members, root / "built" / "STUDY-T1-unblinding-key.json", root)


def empty_objects(n: int) -> str:
    """``[{}, {}, ...]`` with random whitespace, so it compresses no better than real text (the zip checks
    refuse a member compressed over 100 times)."""
    spaces = random.Random(n).choices(["", " ", "\t", "\n", "  ", " \t", "\n\t", "\t\t ", "\n  "], k=n)
    return "[" + ",".join(space + "{}" for space in spaces) + "]"


def with_array(obj: dict[str, Any], key: str, n: int) -> bytes:
    return json.dumps({**obj, key: "@"}).replace('"@"', empty_objects(n)).encode()


def test_a_manifest_of_a_million_empty_objects_is_one_problem(
    export: Export, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = export.write("million.zip", {**export.members, "manifest.json": with_array(export.manifest(), "files", 1_000_000)})
    assert path.stat().st_size < 1_000_000
    code, out, _ = run(capsys, "results", "validate", path, "--json")
    assert code == 1
    assert json.loads(out)["problems"] == [{
        "file": "million.zip!manifest.json", "path": "",
        "message": "is far larger than an export of 10 record files needs (not read)"}]
    code, _, err = run(capsys, "results", "collect", path, "--key", export.key, "--out", tmp_path / "out")
    assert code == 1 and "is far larger than an export" in err
    report = tmp_path / "out" / "collect-report.json"
    assert report.stat().st_size < 10_000 and len(json.loads(report.read_text())["problems"]) == 1


def test_a_manifest_listing_more_files_than_the_zip_holds_is_refused_before_validation(
    export: Export, capsys: pytest.CaptureFixture[str]
) -> None:
    path = export.write("more.zip", {**export.members, "manifest.json": with_array(export.manifest(), "files", 20)})
    code, out, _ = run(capsys, "results", "validate", path, "--json")
    assert code == 1 and json.loads(out)["problems"] == [{
        "file": "more.zip!manifest.json", "path": "files",
        "message": "lists 20 record files but the zip holds 10 (not checked further)"}]


def test_problems_are_capped_per_file_with_a_count_of_the_rest(export: Export, capsys: pytest.CaptureFixture[str]) -> None:
    # 300 unknown fields in the manifest: 300 problems of one file (a list stops at its first bad item, so
    # 300 bad entries would make 6).
    n = 300
    manifest = {**export.manifest(), **{f"unknown_{i:03d}": 1 for i in range(n)}}
    path = export.write("capped.zip", {**export.members, "manifest.json": json.dumps(manifest).encode()})
    code, out, _ = run(capsys, "results", "validate", path, "--json")
    problems = [p for p in json.loads(out)["problems"] if p["file"] == "capped.zip!manifest.json"]
    assert code == 1 and len(problems) == MAX_PROBLEMS_PER_DOCUMENT + 1
    assert problems[-1] == {"file": "capped.zip!manifest.json", "path": "",
                            "message": f"and {n - MAX_PROBLEMS_PER_DOCUMENT:,} more problems in this file, not listed"}


def test_a_record_of_a_million_values_is_not_parsed(export: Export, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    manifest = export.manifest()
    entry = manifest["files"][0]
    record = with_array(json.loads(export.members[entry["path"]]), "scenario_type_ids", 1_000_000)
    entry.update(sha256=hashlib.sha256(record).hexdigest(), size=len(record))
    path = export.write("record.zip", {**export.members, entry["path"]: record, "manifest.json": json.dumps(manifest).encode()})
    assert path.stat().st_size < 1_000_000
    loose = tmp_path / "loose.json"
    loose.write_bytes(record)
    code, out, _ = run(capsys, "results", "validate", path, loose, "--json")
    message = "holds more than 100,000 JSON values; a rating record has a few hundred (not read)"
    problems = json.loads(out)["problems"]
    assert code == 1
    assert {"file": f"record.zip!{entry['path']}", "path": "", "message": message} in problems
    assert problems[-1] == {"file": str(loose), "path": "", "message": message}
    # the replaced record is also not the one the export's audit chain sealed
    assert any(p["path"] == "export_sealed.records_sha256" for p in problems)
    # an export that is not what the app wrote has no valid record (issue 25: counted means verified)
    assert json.loads(out)["valid_records"] == 0 and json.loads(out)["quarantined"] == 9
