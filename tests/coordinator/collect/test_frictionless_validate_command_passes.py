"""`frictionless validate datapackage.json`, the command docs/COORDINATORS.md gives, exits 0 on a collection
with lists, N/A, nulls, "cannot rate" records, flags, every failure-mode severity and text in other scripts:
every resource (both CSV tables, both Parquet files, the JSON Lines records, both REDCap files, the summary)
is described and checked; a file that breaks its schema is caught by the same command."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.coordinator.collect.varied_collection import collection
from wmcdp_desktop.core.models.common import SEVERITIES

pytest.importorskip("pyarrow")
pytest.importorskip("frictionless")


def _frictionless() -> str:
    beside = Path(sys.executable).parent / "frictionless"
    found = str(beside) if beside.is_file() else shutil.which("frictionless")
    if found is None:
        pytest.skip("the frictionless command is not installed")
    return found


def _validate(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([_frictionless(), "validate", "datapackage.json"], cwd=folder, capture_output=True,
                          text=True, timeout=300, check=False)


@pytest.mark.slow
@pytest.mark.parametrize("extra", [(), ("--names", "r")], ids=["original-names", "r-names"])
def test_frictionless_validate_exits_0_on_every_resource(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         extra: tuple[str, ...]) -> None:
    out = collection(tmp_path, capsys, *extra)
    package = json.loads((out / "datapackage.json").read_text(encoding="utf-8"))
    described = {r["path"] for r in package["resources"]}
    written = {p.name for p in out.iterdir() if p.is_file() and p.name not in ("datapackage.json", ".collect.lock")}
    assert written - described == {"collect-report.json"}  # it holds the codebook's own hash: it comes after it
    tables = {r["path"] for r in package["resources"] if r.get("schema")}
    assert tables == described - {"summary.json"}
    run = _validate(out)
    assert run.returncode == 0, run.stdout[-4000:]
    assert "INVALID" not in run.stdout
    severities = {c for line in (out / "ratings.csv").read_text(encoding="utf-8").splitlines() for c in line.split(",")}
    assert set(SEVERITIES) <= severities


def test_the_summary_follows_its_json_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    out = collection(tmp_path, capsys)
    package = json.loads((out / "datapackage.json").read_text(encoding="utf-8"))
    schema = next(r for r in package["resources"] if r["path"] == "summary.json")["x-json-schema"]
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(json.loads((out / "summary.json").read_text(encoding="utf-8")), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"study_id": "S", "ratings": -1}, schema)


def _rehash(folder: Path, name: str) -> None:
    """Put ``name``'s new SHA-256 in the codebook, so only its schema can object to the edit."""
    path = folder / "datapackage.json"
    package = json.loads(path.read_text(encoding="utf-8"))
    for resource in package["resources"]:
        if resource["path"] == name:
            resource["hash"] = "sha256:" + hashlib.sha256((folder / name).read_bytes()).hexdigest()
    path.write_text(json.dumps(package), encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize(("name", "old", "new"), [
    ("ratings.jsonl", '"record_kind":"rating"', '"record_kind":"maybe"'),
    ("ratings.csv", ",rating,", ",maybe,"),
    ("redcap-import.csv", "\n", "\nnot-a-number-id,"),
    ("redcap-data-dictionary.csv", ",ratings,", ",other-form,"),
], ids=["jsonl-kind", "csv-kind", "redcap-row", "redcap-form"])
def test_a_file_that_breaks_its_schema_fails_the_same_command(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              name: str, old: str, new: str) -> None:
    out = collection(tmp_path, capsys)
    text = (out / name).read_text(encoding="utf-8")
    assert old in text
    (out / name).write_text(text.replace(old, new, 1), encoding="utf-8")
    _rehash(out, name)
    run = _validate(out)
    assert run.returncode != 0 and "INVALID" in run.stdout, run.stdout[-2000:]
