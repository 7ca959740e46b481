"""``wmcdp study validate``: documents and every cross-reference, all problems at once."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.kit.commands import run
from tests.kit.studies import item_obj, write_json, write_study
from wmcdp_desktop.coordinator.commands.main import main


def test_valid_study(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_study(tmp_path / "s")
    code, out, _ = run(capsys, "study", "validate", str(root))
    assert code == 0
    assert "is valid" in out and "15 responses" in out
    code, out, _ = run(capsys, "study", "validate", str(root), "--json")
    result = json.loads(out)
    assert code == 0 and result["ok"] is True
    assert result["counts"]["tasks"] == 15 and result["counts"]["models"] == 3


def test_every_cross_reference_problem_reported_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_study(tmp_path / "s")
    bad_case = item_obj("ITEM-BAD1", "CASE-NOPE")
    wrong_version = item_obj("ITEM-BAD2", "CASE-001")
    wrong_version["caseRef"]["caseVersion"] = "9.9.9"
    wrong_sha = item_obj("ITEM-BAD3", "CASE-001", case_sha="0" * 64)
    wrong_contract = item_obj("ITEM-BAD4", "CASE-001")
    wrong_contract["contractRef"]["contractVersion"] = "2.0.0"
    bad_criterion = item_obj("ITEM-BAD5", "CASE-001", criterion_ids=("WM-RUB-001", "WM-FM-UNKNOWN", "WM-RUB-001"))
    for obj in (bad_case, wrong_version, wrong_sha, wrong_contract, bad_criterion):
        write_json(root / "items" / f"{obj['benchmarkItemId']}.json", obj)
    write_json(root / "items" / "dup.json", item_obj("ITEM-001", "CASE-001"))
    (root / "cases" / "CASE-001-copy.json").write_bytes((root / "cases" / "CASE-001.json").read_bytes())
    with (root / "responses" / "responses.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"response_id": "ITEM-001--acme-gpt-9", "benchmark_item_id": "ITEM-001", "model_source": "m", "text": "x"}) + "\n")
        fh.write(json.dumps({"response_id": "orphan-1", "benchmark_item_id": "ITEM-ZZZ", "model_source": "m", "text": "x"}) + "\n")
    code, out, _ = run(capsys, "study", "validate", str(root), "--json")
    assert code == 1
    problems = json.loads(out)["problems"]
    found = {(p["file"], p["path"]) for p in problems}
    expected = {
        ("items/ITEM-BAD1.json", "caseRef"),
        ("items/ITEM-BAD2.json", "caseRef"),
        ("items/ITEM-BAD3.json", "caseRef.sha256"),
        ("items/ITEM-BAD4.json", "contractRef"),
        ("items/ITEM-BAD5.json", "goldStandard.criterionGold[1].criterionId"),
        ("items/ITEM-BAD5.json", "goldStandard.criterionGold[2].criterionId"),
        ("items/dup.json", "benchmarkItemId"),
        ("cases/CASE-001.json", "case_id"),
        ("responses/responses.jsonl line 16", "response_id"),
        ("responses/responses.jsonl line 17", "benchmark_item_id"),
    }
    assert expected <= found, expected - found
    text = {p["message"] for p in problems}
    assert any("9.9.9" in m for m in text)
    # the text form lists the same problems on stderr
    code, _, err = run(capsys, "study", "validate", str(root))
    assert code == 1 and "items/ITEM-BAD4.json: contractRef:" in err


def test_matching_case_sha_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_study(tmp_path / "s")
    sha = hashlib.sha256((root / "cases" / "CASE-001.json").read_bytes()).hexdigest()
    write_json(root / "items" / "ITEM-001.json", item_obj("ITEM-001", "CASE-001", case_sha=sha))
    assert run(capsys, "study", "validate", str(root))[0] == 0


def test_invalid_documents_are_reported_with_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_study(tmp_path / "s")
    item = item_obj("ITEM-001", "CASE-001")
    item["weight"] = 0
    write_json(root / "items" / "ITEM-001.json", item)
    (root / "cases" / "CASE-002.json").write_text("{not json", encoding="utf-8")
    study = json.loads((root / "study.json").read_text())
    study["overlap"] = 9
    write_json(root / "study.json", study)
    code, out, _ = run(capsys, "study", "validate", str(root), "--json")
    assert code == 1
    found = {(p["file"], p["path"]) for p in json.loads(out)["problems"]}
    assert ("items/ITEM-001.json", "weight") in found
    assert ("cases/CASE-002.json", "") in found
    assert any(f == "study.json" for f, _ in found)


def test_held_out_split_in_rater_splits_warns_that_its_bundles_are_encrypted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The held-out project's own study sends its held-out items, in encrypted bundles only."""
    root = write_study(tmp_path / "s")
    study = json.loads((root / "study.json").read_text())
    study["rater_splits"] = ["test", "held_out_project"]
    write_json(root / "study.json", study)
    code, out, _ = run(capsys, "study", "validate", str(root), "--json")
    assert code == 0
    warned = [w for w in json.loads(out)["warnings"] if w["path"] == "rater_splits[1]"]
    assert len(warned) == 1 and "encrypted bundles only" in warned[0]["message"]


def test_warnings_do_not_fail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_study(tmp_path / "s", models=["ab", "long-model-name"])
    write_json(root / "items" / "ITEM-LONELY.json", item_obj("ITEM-LONELY", "CASE-001"))
    code, out, _ = run(capsys, "study", "validate", str(root), "--json")
    assert code == 0
    warnings = json.loads(out)["warnings"]
    assert any("ITEM-LONELY" in w["file"] for w in warnings)
    assert any("'ab'" in w["message"] for w in warnings)


@pytest.mark.parametrize("what", ["missing", "file"])
def test_not_a_study_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str) -> None:
    target = tmp_path / "nope"
    if what == "file":
        target.write_text("x")
    code, _, err = run(capsys, "study", "validate", str(target))
    assert code == 1 and "not a folder" in err


def test_usage_error_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["study", "validate"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["study", "validate", "--help"])
    assert info.value.code == 0
    assert "cross-reference" in capsys.readouterr().out


def test_unexpected_error_has_no_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from wmcdp_desktop.coordinator.commands import main as main_mod
    from wmcdp_desktop.coordinator.commands import study as study_cmd

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("internal bug")

    monkeypatch.setattr(study_cmd, "validate_study", boom)  # the one call the command makes
    from wmcdp_desktop.core import crash_log

    logs = tmp_path / "logs"
    monkeypatch.setattr(crash_log, "log_dir", lambda: logs)
    code, _, err = run(capsys, "study", "validate", str(tmp_path))
    assert main_mod.EXIT_UNEXPECTED == 3
    (log,) = logs.iterdir()
    assert code == 3 and "unexpected internal error (RuntimeError: internal bug)" in err and str(log) in err
    assert "Traceback" not in err
    assert "RuntimeError: internal bug" in log.read_text() and "Traceback" in log.read_text()


def test_broken_rubric_does_not_hide_other_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A BOM in rubric.json (a common save-as mistake) and a missing case are reported in the same run."""
    root = write_study(tmp_path / "s")
    (root / "rubric.json").write_bytes(b"\xef\xbb\xbf" + (root / "rubric.json").read_bytes())
    (root / "cases" / "CASE-002.json").unlink()
    study = json.loads((root / "study.json").read_text())
    study["overlap"] = 99
    (root / "study.json").write_text(json.dumps(study) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "study", "validate", str(root), "--json")
    assert code == 1
    found = {(p["file"], p["path"]) for p in json.loads(out)["problems"]}
    assert ("rubric.json", "") in found
    assert ("items/ITEM-002.json", "caseRef") in found
    assert ("study.json", "overlap") in found


def test_a_broken_file_is_reported_once_not_through_what_points_at_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A typo in an item (or a trailing comma in a case) is one problem, not also 'responses point at no item'."""
    root = write_study(tmp_path / "s")
    item_path = root / "items" / "ITEM-001.json"
    item_path.write_text(item_path.read_text().replace('"benchmarkVersion"', '"benchmarkVerison"'), encoding="utf-8")
    case_path = root / "cases" / "CASE-002.json"
    case_path.write_text(case_path.read_text().replace('"case_version"', '"x": 1,,"case_version"'), encoding="utf-8")
    responses = root / "responses" / "responses.jsonl"
    lines = responses.read_text().splitlines()
    lines.append('{"response_id": "extra-1", "benchmark_item_id": "ITEM-003",}')  # a trailing comma
    responses.write_text("\n".join(lines) + "\n", encoding="utf-8")
    gold_item = item_obj("ITEM-004", "CASE-004")  # its gold response is in the broken responses file
    gold_item["metadata"] = {
        "goldResponseId": next(json.loads(x)["response_id"] for x in lines[:-1] if '"ITEM-004"' in x)
    }
    write_json(root / "items" / "ITEM-004.json", gold_item)
    code, out, _ = run(capsys, "study", "validate", str(root), "--json")
    assert code == 1
    problems = json.loads(out)["problems"]
    files = sorted({p["file"].split(" line ")[0] for p in problems})
    assert files == ["cases/CASE-002.json", "items/ITEM-001.json", "responses/responses.jsonl"], problems
    # a reference to an id that no file names is still reported
    lines[-1] = '{"response_id": "orphan", "benchmark_item_id": "ITEM-NOPE", "model_source": "m", "text": "x"}'
    responses.write_text("\n".join(lines) + "\n", encoding="utf-8")
    gold_item["metadata"] = {"goldResponseId": "not-a-response"}
    write_json(root / "items" / "ITEM-004.json", gold_item)
    code, out, _ = run(capsys, "study", "validate", str(root), "--json")
    messages = [p["message"] for p in json.loads(out)["problems"]]
    assert any("ITEM-NOPE is not an item" in m for m in messages), messages
    assert any("not-a-response is not a response" in m for m in messages), messages


@pytest.mark.parametrize("folder", ["items", "responses"])
def test_an_empty_or_missing_folder_is_one_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str], folder: str) -> None:
    root = write_study(tmp_path / "s")
    item = item_obj("ITEM-001", "CASE-001")
    item["metadata"] = {"goldResponseId": "ITEM-001--" + "x"}
    write_json(root / "items" / "ITEM-001.json", item)  # a reference into responses/
    for path in (root / folder).iterdir():
        path.unlink()
    code, out, _ = run(capsys, "study", "validate", str(root), "--json")
    problems = json.loads(out)["problems"]
    assert code == 1 and [p["file"] for p in problems] == [f"{folder}/"], problems


@pytest.mark.parametrize("version", ["9.9.9", "1.0.1", "2.0.0-rc.1"])
def test_a_schema_version_the_app_does_not_know_is_refused_naming_the_known_ones(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], version: str) -> None:
    root = write_study(tmp_path / "s")
    item = root / "items" / "ITEM-001.json"
    obj = json.loads(item.read_text(encoding="utf-8"))
    obj["schemaVersion"] = version
    write_json(item, obj)
    code, out, _ = run(capsys, "study", "validate", str(root), "--json")
    assert code == 1
    (problem,) = json.loads(out)["problems"]
    assert problem["file"] == "items/ITEM-001.json" and problem["path"] == "schemaVersion"
    assert problem["message"] == f"{version} is not a benchmark-item schema version this app knows (it knows 1.0.0)"


def test_mixed_benchmark_versions_in_one_study_are_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_study(tmp_path / "s")
    code, out, _ = run(capsys, "study", "validate", str(root), "--json")
    assert code == 0 and not [w for w in json.loads(out)["warnings"] if w["path"] == "benchmarkVersion"]
    for name, version in (("ITEM-001", "1.1.0"), ("ITEM-002", "0.9.0-rc.1")):
        obj = json.loads((root / "items" / f"{name}.json").read_text(encoding="utf-8"))
        obj["benchmarkVersion"] = version
        write_json(root / "items" / f"{name}.json", obj)
    code, out, _ = run(capsys, "study", "validate", str(root), "--json")
    assert code == 0
    (warning,) = [w for w in json.loads(out)["warnings"] if w["path"] == "benchmarkVersion"]
    assert "mixes benchmark versions" in warning["message"]
    assert "0.9.0-rc.1: 1 item (ITEM-002)" in warning["message"] and "1.1.0: 1 item (ITEM-001)" in warning["message"]


def test_no_gold_yet_has_one_spelling_and_other_empty_gold_is_warned(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    root = write_study(tmp_path / "s")
    for name, status in (("ITEM-001", "insufficient_evidence"), ("ITEM-002", "clear")):
        obj = json.loads((root / "items" / f"{name}.json").read_text(encoding="utf-8"))
        obj["goldStandard"]["criterionGold"] = []
        obj["goldStandard"]["ambiguityStatus"] = status
        write_json(root / "items" / f"{name}.json", obj)
    code, out, _ = run(capsys, "study", "validate", str(root), "--json")
    assert code == 0
    warnings = {(w["file"], w["path"]): w["message"] for w in json.loads(out)["warnings"]}
    assert warnings[("items/", "goldStandard")].startswith("no gold yet for 1 item (ITEM-001)")
    assert "write ambiguityStatus 'insufficient_evidence'" in warnings[("items/ITEM-002.json", "goldStandard.criterionGold")]
    assert ("items/ITEM-001.json", "goldStandard.criterionGold") not in warnings


@pytest.mark.parametrize(("field", "value", "path"), [
    ("clinical_domain_id", "ANY-THING", "clinical_domain_id"), ("clinical_domain_id", "wm-dom-ocd", "clinical_domain_id"),
    ("clinical_domain_id", "WM-DOM-", "clinical_domain_id"), ("scenario_type_ids", ["WM-SCN-OK", "reassurance"],
                                                              "scenario_type_ids[1]")])
def test_ids_off_the_vocabulary_are_warned(tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str,
                                           value: object, path: str) -> None:
    root = write_study(tmp_path / "s")
    case = root / "cases" / "CASE-001.json"
    obj = json.loads(case.read_text(encoding="utf-8"))
    obj[field] = value
    write_json(case, obj)
    code, out, _ = run(capsys, "study", "validate", str(root), "--json")
    assert code == 0
    (warning,) = [w for w in json.loads(out)["warnings"] if w["file"] == "cases/CASE-001.json"]
    assert warning["path"] == path and "does not follow the WM-CDP vocabulary" in warning["message"]
