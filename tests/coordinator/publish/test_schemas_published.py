"""The committed ``schemas/`` are what the models generate, and the developer's tool ``python -m tools.schemas
check`` says so (it is not a command of the coordinator's ``wmcdp``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from tools.schemas import main as schemas_tool
from wmcdp_desktop.coordinator.commands.main import main as wmcdp
from wmcdp_desktop.coordinator.publish.schemas import (
    COMMON_SCHEMA,
    GENERATED,
    SEED_SCHEMA,
    stale_schemas,
    write_schemas,
)
from wmcdp_desktop.core.resources import schemas_dir
from wmcdp_desktop.core.strict_json import dumps_canonical, parse_json_bytes

SEED_FILE = "002_217395684be5fd22.txt"


def _load(path: Path) -> Any:
    return parse_json_bytes(path.read_bytes(), str(path))


def test_committed_schemas_are_not_stale() -> None:
    assert stale_schemas(schemas_dir()) == [], "run `python -m tools.schemas write` and commit schemas/"


def test_schemas_folder_holds_exactly_the_published_files() -> None:
    names = {p.name for p in schemas_dir().glob("*.json")}
    assert names == {*GENERATED, SEED_SCHEMA, COMMON_SCHEMA}


@pytest.mark.parametrize("name", sorted({*GENERATED, COMMON_SCHEMA}))
def test_generated_files_are_canonical_json(name: str) -> None:
    path = schemas_dir() / name
    text = path.read_text(encoding="utf-8")
    assert dumps_canonical(_load(path)) == text


def test_cli_check_passes_on_the_repository() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tools.schemas", "check"],
        capture_output=True, text=True, timeout=120, check=False, cwd=Path(__file__).parents[3],
    )
    assert proc.returncode == 0, proc.stderr
    assert "up to date" in proc.stdout


def test_cli_check_fails_on_an_edited_copy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "schemas"
    shutil.copytree(schemas_dir(), copy)
    assert schemas_tool(["check", "--dir", str(copy)]) == 0
    capsys.readouterr()

    edited = copy / "study.schema.json"
    schema = json.loads(edited.read_text(encoding="utf-8"))
    schema["properties"]["overlap"]["minimum"] = 0
    edited.write_text(dumps_canonical(schema), encoding="utf-8")
    assert schemas_tool(["check", "--dir", str(copy)]) == 1
    err = capsys.readouterr().err
    assert f"{edited}: stale; run `python -m tools.schemas write`" in err
    assert "rubric.schema.json" not in err  # only the edited file is named

    (copy / "task.schema.json").unlink()
    assert stale_schemas(copy) == ["study.schema.json", "task.schema.json"]

    assert schemas_tool(["write", "--dir", str(copy)]) == 0
    assert stale_schemas(copy) == []
    assert (copy / SEED_SCHEMA).read_bytes() == (schemas_dir() / SEED_SCHEMA).read_bytes()


def test_cli_check_as_a_separate_process_exits_1(tmp_path: Path) -> None:
    copy = tmp_path / "schemas"
    shutil.copytree(schemas_dir(), copy)
    with (copy / "common.schema.json").open("a", encoding="utf-8") as f:
        f.write("\n")
    proc = subprocess.run(
        [sys.executable, "-m", "tools.schemas", "check", "--dir", str(copy)],
        capture_output=True, text=True, timeout=120, check=False, cwd=Path(__file__).parents[3],
    )
    assert proc.returncode == 1
    assert "common.schema.json: stale" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_write_keeps_the_seed_schema(tmp_path: Path) -> None:
    (tmp_path / SEED_SCHEMA).write_bytes((schemas_dir() / SEED_SCHEMA).read_bytes())
    written = write_schemas(tmp_path)
    assert set(written) == {*GENERATED, COMMON_SCHEMA, SEED_SCHEMA}
    assert stale_schemas(tmp_path) == []


def test_benchmark_item_schema_is_the_seed(repo_root: Path) -> None:
    seed = repo_root.parent / "shared" / "seeds" / SEED_FILE
    if not seed.exists():
        pytest.skip(f"the seed {seed} is not next to this checkout (CI clones the repo beside shared/)")
    assert _load(schemas_dir() / SEED_SCHEMA) == json.loads(seed.read_text(encoding="utf-8"))


# --- common.schema.json is FORMATS.md section 3 -----------------------------------------------------

COMMON = json.loads((schemas_dir() / COMMON_SCHEMA).read_text(encoding="utf-8"))
REGISTRY: Registry = Registry().with_resources(
    (s["$id"], Resource.from_contents(s))
    for s in (json.loads(p.read_text(encoding="utf-8")) for p in schemas_dir().glob("*.json"))
)


def _def_validator(name: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"{COMMON['$id']}#/$defs/{name}"}, registry=REGISTRY)


def test_common_defs_are_the_formats_list() -> None:
    assert set(COMMON["$defs"]) == {
        "SemVer", "Identifier", "DateTime", "ContractRef", "CaseRef", "CriterionVerdict", "Severity",
        "SpanRef", "DecisionTarget", "OperationalAction"}
    defs = COMMON["$defs"]
    assert defs["CriterionVerdict"]["enum"] == [
        "satisfied", "partially_satisfied", "not_satisfied", "not_applicable", "cannot_determine"]
    assert defs["Severity"]["enum"] == ["none", "minor", "moderate", "major", "critical"]
    assert defs["DecisionTarget"]["enum"] == ["candidate_response", "benchmark_item"]
    assert defs["OperationalAction"]["enum"] == [
        "accept", "accept_with_minor_edits", "revise", "reject", "escalate", "exclude"]


@pytest.mark.parametrize(
    ("name", "value", "valid"),
    [
        ("SemVer", "1.0.0", True),
        ("SemVer", "10.20.30-rc.1+build.7", True),
        ("SemVer", "1.0", False),
        ("SemVer", "v1.0.0", False),
        ("SemVer", "1.0.0-01", False),
        ("Identifier", "WM-RUB-001", True),
        ("Identifier", "a", True),
        ("Identifier", "x" * 128, True),
        ("Identifier", "x" * 129, False),
        ("Identifier", "_x", False),
        ("Identifier", "a/b", False),
        ("Identifier", "", False),
        ("DateTime", "2026-11-29T10:00:00Z", True),
        ("DateTime", "2026-11-29T10:00:00.25+05:30", True),
        ("DateTime", "2026-11-29T10:00:00", False),
        ("DateTime", "2026-11-29", False),
        ("DateTime", "2026-11-29T24:00:00Z", False),
        ("ContractRef", {"contractId": "WM-CDP-RUBRIC", "contractVersion": "1.0.0"}, True),
        ("ContractRef", {"contractId": "WM-CDP-RUBRIC"}, False),
        ("CaseRef", {"caseId": "c1", "caseVersion": "1.0.0", "sha256": "0" * 64}, True),
        ("CaseRef", {"caseId": "c1", "caseVersion": "1.0.0", "sha256": "0" * 63}, False),
        ("CaseRef", {"caseId": "c1", "caseVersion": "1.0.0", "extra": 1}, False),
        ("SpanRef", {"source": "candidate_response", "start": 0, "end": 4}, True),
        ("SpanRef", {"source": "scenario", "turnIndex": 2, "start": 3, "end": 4, "quote": "x"}, True),
        ("SpanRef", {"source": "scenario", "turnIndex": -1, "start": 3, "end": 4}, False),
        ("SpanRef", {"source": "candidate_response", "start": 0}, False),
        ("Severity", "critical", True),
        ("Severity", "severe", False),
    ],
)
def test_common_defs_validate(name: str, value: Any, valid: bool) -> None:
    assert _def_validator(name).is_valid(value) == valid


def test_field_descriptions_come_from_docstrings_read_when_writing_schemas() -> None:
    import pydantic._internal._docs_extraction as pydantic_docs

    from wmcdp_desktop.coordinator.publish import schemas
    from wmcdp_desktop.core.models import RatingRecord
    from wmcdp_desktop.core.models.rating_record import Envelope

    # The models do not parse their own source at import (start-up time of the rater app) ...
    assert RatingRecord.model_fields["benchmark_item_id"].description is None
    # ... the published schema still describes every documented field, read the way pydantic reads them.
    body = schemas.model_schema("rating-record.schema.json", RatingRecord)
    assert body["properties"]["benchmark_item_id"]["description"] == "WM-FLD-001 Benchmark item ID."
    import wmcdp_desktop.core.models as models_pkg
    from wmcdp_desktop.core.models.base import Document

    for name in models_pkg.__all__:
        getattr(models_pkg, name)  # import every model module
    classes: list[type] = []
    todo: list[type] = [Document]
    while todo:
        cls = todo.pop()
        classes.append(cls)
        todo.extend(cls.__subclasses__())
    assert Envelope in classes and len(classes) > 20
    compared = 0
    for cls in classes:
        theirs = pydantic_docs.extract_docstrings_from_cls(cls, use_inspect=True)
        ours = schemas.field_docstrings(cls)
        for field, doc in theirs.items():
            assert ours.get(field) == doc, (cls, field)
            compared += 1
    assert compared > 100


def test_schemas_check_and_write_take_json(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           repo_root: Path) -> None:
    assert schemas_tool(["check", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"ok": True, "dir": str(repo_root / "schemas"), "stale": []}
    target = tmp_path / "schemas"
    target.mkdir()
    (target / "benchmark-item.schema.json").write_bytes((repo_root / "schemas" / "benchmark-item.schema.json").read_bytes())
    assert schemas_tool(["check", "--dir", str(target), "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert not result["ok"] and str(target / "rating-record.schema.json") in result["stale"]
    assert schemas_tool(["write", "--dir", str(target), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"]
    assert schemas_tool(["check", "--dir", str(target), "--json"]) == 0
    capsys.readouterr()
    # A folder that is not there (or not a copy of schemas/) is a plain problem, in JSON too.
    assert schemas_tool(["write", "--dir", str(tmp_path / "nowhere"), "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert not result["ok"] and "cannot be written" in result["problems"][0]["message"]
    assert schemas_tool(["write", "--dir", str(tmp_path / "nowhere")]) == 1
    err = capsys.readouterr().err
    assert "benchmark-item.schema.json" in err and "internal error" not in err


def test_schemas_is_not_a_command_of_wmcdp(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        wmcdp(["schemas", "write"])
    assert info.value.code == 2 and "invalid choice: 'schemas'" in capsys.readouterr().err
