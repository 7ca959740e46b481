"""``wmcdp study validate`` and ``wmcdp bundle build`` refuse every kind of leak of a model's identity, in
every text that reaches a bundle, once per place; a coordinator accepts a finding only in study.json."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.coordinator.leak.leakfix import LEAK_KINDS, LEAK_TERMS, LEAK_TEXT, TEXT_FIELDS, write_model_study
from tests.kit.commands import run
from tests.kit.studies import edit_json, read_responses, write_responses


def validate_json(capsys: pytest.CaptureFixture[str], study: Path) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(capsys, "study", "validate", str(study), "--json")
    return code, json.loads(out)


def leaks_by_place(result: dict[str, Any]) -> dict[tuple[str, str], list[str]]:
    places: dict[tuple[str, str], list[str]] = {}
    for leak in result.get("leaks", []):
        places.setdefault((leak["file"], leak["path"]), []).append(leak["term"])
    return {k: sorted(v) for k, v in places.items()}


def test_every_leak_kind_in_every_text_field_is_one_finding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_model_study(tmp_path / "s")
    for file, _path, put in TEXT_FIELDS:
        edit_json(study / file, lambda o, put=put: put(o, LEAK_TEXT))
    responses = read_responses(study)
    responses[0]["text"] = LEAK_TEXT
    write_responses(study, responses)

    code, result = validate_json(capsys, study)
    assert code == 1 and result["ok"] is False
    expected = {(file, path): LEAK_TERMS for file, path, _ in TEXT_FIELDS}
    expected[("responses/responses.jsonl line 1", "text")] = LEAK_TERMS
    assert leaks_by_place(result) == expected
    assert all(leak["count"] == 1 for leak in result["leaks"])
    assert len(result["problems"]) == len(expected) * len(LEAK_TERMS)
    # each finding quotes the original text around it, hidden characters visible
    zero_width = next(x for x in result["leaks"] if x["term"] == "gpt-4o-2024-08-06")
    assert "«gpt<U+200B>-4o-2024-08-06»" in zero_width["context"]
    in_response = [x for x in result["leaks"] if x["file"].startswith("responses/")]
    assert {x.get("response_id") for x in in_response} == {"resp-0001"}

    # the build refuses the same findings (one scan), and writes nothing
    code, _out, err = run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "out"))
    assert code == 1 and err.count("leak: ") == len(expected) * len(LEAK_TERMS)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("kind", sorted(LEAK_KINDS))
def test_each_leak_kind_alone_is_refused(kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, terms = LEAK_KINDS[kind]
    study = write_model_study(tmp_path / "s")
    edit_json(study / "cases" / "CASE-002.json", lambda o: o["scenario"]["turns"][0].update(text=f"Earlier: {text}."))
    code, _out, err = run(capsys, "study", "validate", str(study))
    assert code == 1
    assert err.count("leak: ") == len(terms), err
    assert "cases/CASE-002.json: scenario.turns[0].text: leak: " in err


def test_identifiers_that_reach_bundles_are_scanned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_model_study(tmp_path / "s")

    def study_ids(o: dict[str, Any]) -> None:
        o["study_id"] = "STUDY-o1"
        o["raters"][0]["rater_id"] = "R-claude"

    edit_json(study / "study.json", study_ids)
    edit_json(study / "cases" / "CASE-001.json", lambda o: o.update(
        clinical_domain_id="WM-DOM-GEMINI", scenario_type_ids=["WM-SCN-LLAMA"]))

    def rubric(o: dict[str, Any]) -> None:
        o["failure_modes"][0]["id"] = "WM-FM-GROK"

    edit_json(study / "rubric.json", rubric)

    def item(o: dict[str, Any]) -> None:
        o["goldStandard"]["criterionGold"][1]["criterionId"] = "WM-FM-GROK"

    edit_json(study / "items" / "ITEM-003.json", item)
    for path in (study / "items").glob("*.json"):
        edit_json(path, lambda o: o["goldStandard"]["criterionGold"][1].update(criterionId="WM-FM-GROK"))
    code, result = validate_json(capsys, study)
    assert code == 1
    assert leaks_by_place(result) == {
        ("study.json", "study_id"): ["o1"],
        ("study.json", "raters[0].rater_id"): ["Claude"],
        ("cases/CASE-001.json", "clinical_domain_id"): ["Gemini"],
        ("cases/CASE-001.json", "scenario_type_ids[0]"): ["Llama"],
        ("rubric.json", "failure_modes[0].id"): ["Grok"],
        ("items/ITEM-003.json", "goldStandard.criterionGold[1].criterionId"): ["Grok"],
    }


def test_texts_that_never_reach_a_bundle_are_not_scanned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_model_study(tmp_path / "s")

    def item(o: dict[str, Any]) -> None:  # a test item: its gold and adjudication stay with the coordinator
        o["goldStandard"]["criterionGold"][0]["notes"] = "ChatGPT did better"
        o["adjudication"]["adjudicationNotes"] = "Claude was vague"
        o["metadata"] = {"note": "from gpt-4o-2024-08-06"}

    edit_json(study / "items" / "ITEM-001.json", item)
    edit_json(study / "cases" / "CASE-001.json", lambda o: o.update(title="The Claude case"))
    edit_json(study / "study.json", lambda o: o.update(description="Comparing Claude and ChatGPT"))
    code, _out, err = run(capsys, "study", "validate", str(study))
    assert code == 0, err


def test_a_leak_is_reported_once_not_per_task_or_bundle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_model_study(tmp_path / "s", n_items=4)
    # one case used by two items: its scenario reaches 8 tasks in 3 bundles
    edit_json(study / "items" / "ITEM-002.json", lambda o: o["caseRef"].update(caseId="CASE-001"))
    edit_json(study / "cases" / "CASE-001.json", lambda o: o["scenario"]["turns"][0].update(
        text="Claude said so. Claude said it twice. And Claude again."))
    code, result = validate_json(capsys, study)
    assert code == 1
    assert [(x["file"], x["term"], x["count"]) for x in result["leaks"]] == [("cases/CASE-001.json", "Claude", 3)]
    code, _out, err = run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "out"))
    assert code == 1 and err.count("leak: ") == 1 and "(and 2 more times in this field)" in err


def test_accepted_findings_pass_and_are_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    accepted = [
        {"file": "cases/CASE-001.json", "term": "Claude", "reason": "Claude is the father's first name"},
        {"response_id": "resp-0003", "term": "GPT", "reason": "GPT here is the liver enzyme in the lab results"},
    ]
    study = write_model_study(tmp_path / "s", study_extra={"accepted_findings": accepted})
    edit_json(study / "cases" / "CASE-001.json", lambda o: o["scenario"]["turns"][0].update(
        text="My husband Claude thinks it is a phase."))
    responses = read_responses(study)
    responses[2]["text"] = "Her GPT (ALT) was normal, so the stomach aches are unlikely to be liver-related."
    write_responses(study, responses)

    code, result = validate_json(capsys, study)
    assert code == 0, result
    assert sorted((a["term"], a["reason"]) for a in result["accepted_findings"]) == [
        ("Claude", "Claude is the father's first name"), ("GPT", "GPT here is the liver enzyme in the lab results")]
    code, out, err = run(capsys, "study", "validate", str(study))
    assert code == 0 and "2 accepted findings" in out and "Claude is the father's first name" in out

    code, out, err = run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert "2 accepted findings" in out and "response resp-0003: text: 'GPT'" in out
    code, out, _ = run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "out2"), "--json")
    assert len(json.loads(out)["accepted_findings"]) == 2

    # the same name elsewhere is still refused: an acceptance covers its own file or response only
    edit_json(study / "cases" / "CASE-002.json", lambda o: o["scenario"]["turns"][0].update(text="Ask Claude."))
    responses[4]["text"] = "GPT again"
    write_responses(study, responses)
    code, result = validate_json(capsys, study)
    assert code == 1
    assert sorted((x["file"], x["term"]) for x in result["leaks"]) == [
        ("cases/CASE-002.json", "Claude"), ("responses/responses.jsonl line 5", "GPT")]


def test_stale_or_wrong_acceptances(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    accepted = [{"file": "cases/CASE-001.json", "term": "Claude", "reason": "a name"}]
    study = write_model_study(tmp_path / "s", study_extra={"accepted_findings": accepted})
    code, result = validate_json(capsys, study)
    assert code == 0
    assert any("matches no finding any more" in w["message"] for w in result["warnings"])

    malformed = [
        {"file": "cases/CASE-001.json", "response_id": "resp-0001", "term": "Claude", "reason": "x"},
        {"term": "Claude", "reason": "x"},
        {"file": "cases/CASE-001.json", "term": "Claude", "reason": " "},
    ]
    expected = ["accepted_findings[0]: give exactly one of response_id and file",
                "accepted_findings[0]: give exactly one of response_id and file",
                "accepted_findings[0].reason: must not be blank"]
    for entry, words in zip(malformed, expected, strict=True):  # a list stops at its first bad item: one at a time
        edit_json(study / "study.json", lambda o, entry=entry: o.update(accepted_findings=[entry]))
        code, _out, err = run(capsys, "study", "validate", str(study))
        assert code == 1
        assert words in err

    pointing_nowhere = [
        {"response_id": "resp-9999", "term": "Claude", "reason": "x"},
        {"file": "../outside.json", "term": "Claude", "reason": "x"},
        {"file": "responses/responses.jsonl", "term": "Claude", "reason": "x"},
        {"file": "cases/NOPE.json", "term": "Claude", "reason": "x"},
    ]
    (tmp_path / "outside.json").write_text("{}")
    edit_json(study / "study.json", lambda o: o.update(accepted_findings=pointing_nowhere))
    code, _out, err = run(capsys, "study", "validate", str(study))
    assert code == 1
    assert "accepted_findings[0].response_id: resp-9999 is not a response" in err
    assert "accepted_findings[1].file: '../outside.json' is not a file of the study folder" in err
    assert "accepted_findings[2].file: 'responses/responses.jsonl' is not a file" in err
    assert "accepted_findings[3].file: 'cases/NOPE.json' is not a file" in err


def test_short_ids_match_whole_words_and_unsearchable_ids_are_explained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_model_study(tmp_path / "s", models=["o1", "7"])
    edit_json(study / "cases" / "CASE-001.json", lambda o: o["scenario"]["turns"][0].update(
        text="Co1 and o12 are fine; 7 years old; but o1 is not."))
    code, result = validate_json(capsys, study)
    assert code == 1
    assert [(x["term"], x["matched"]) for x in result["leaks"]] == [("o1", "o1")]
    assert any("'7'" in w["message"] and "not searched" in w["message"] for w in result["warnings"])


def test_model_settings_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    extra = {
        "models": [{"model_source": "gpt-5", "aliases": ["Orion"]}],
        "blinding_check": {"labels": [{"label": "ChatGPT", "model_source": "gpt-5"}, {"label": "chat gpt"}]},
    }
    study = write_model_study(tmp_path / "s", study_extra=extra)
    code, _out, err = run(capsys, "study", "validate", str(study))
    assert code == 1
    assert "models[0].model_source: 'gpt-5' is not a model_source of responses/" in err
    assert "blinding_check.labels[0].model_source: 'gpt-5' is not a model_source" in err
    assert "blinding_check.labels[1].label: 'chat gpt' reads the same as label 1" in err

    many = {"blinding_check": {"labels": [{"label": f"System {i}"} for i in range(21)]}}
    study = write_model_study(tmp_path / "s2", study_extra=many)
    code, _out, err = run(capsys, "study", "validate", str(study))
    assert code == 1 and "blinding_check.labels" in err and "20" in err
    long = {"blinding_check": {"labels": [{"label": "x" * 81}, {"label": "y"}]}}
    study = write_model_study(tmp_path / "s3", study_extra=long)
    code, _out, err = run(capsys, "study", "validate", str(study))
    assert code == 1 and "blinding_check.labels[0].label" in err and "80" in err
    broken = {"blinding_check": {"labels": [{"label": "two\nlines"}, {"label": "y"}]}}
    study = write_model_study(tmp_path / "s4", study_extra=broken)
    code, _out, err = run(capsys, "study", "validate", str(study))
    assert code == 1 and "blinding_check.labels[0].label: must be one line of printable characters" in err


def test_unknown_models_get_a_warning_to_add_aliases(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_model_study(tmp_path / "s", models=["zeta-llm-large", "gpt-4o"])
    code, _out, err = run(capsys, "study", "validate", str(study))
    assert code == 0
    assert Counter(line.split(": ")[1] for line in err.splitlines() if "has no vendor or family name" in line) == {
        "models": 1}
    assert "'zeta-llm-large' has no vendor or family name" in err


def test_a_clumsy_coordinators_aliases(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a letter, a number and dashes name nothing: said so and not searched (not one finding per "a" or "42")
    extra = {"models": [{"model_source": "o1", "aliases": ["a", "42", "---", "Bard"]},
                        {"model_source": "gpt-4o-2024-08-06", "aliases": [f"Codename{i:03d}" for i in range(500)]}]}
    study = write_model_study(tmp_path / "s", study_extra=extra)
    responses = read_responses(study)
    responses[0]["text"] = "A bard of 42 years, the Bard of Avon --- and O1s, co1, o12."  # an alias that is a word
    responses[1]["text"] = "Codename250 and Codename499 say so."  # the 500 aliases are all searched
    responses[2]["text"] = "She is a Gemini; Geminis are curious, says her horoscope."  # astrology, not the model
    write_responses(study, responses)
    code, result = validate_json(capsys, study)
    assert code == 1
    assert sorted((x["file"], x["term"], x["count"]) for x in result["leaks"]) == [
        ("responses/responses.jsonl line 1", "Bard", 2), ("responses/responses.jsonl line 2", "Codename250", 1),
        ("responses/responses.jsonl line 2", "Codename499", 1), ("responses/responses.jsonl line 3", "Gemini", 2)]
    unsearched = [w["message"] for w in result["warnings"] if w["message"].startswith("aliases ")]
    assert len(unsearched) == 1 and all(f"'{a}'" in unsearched[0] for a in ("a", "42", "---"))
    # each is accepted with a reason, and then the study passes
    accepted = [{"response_id": "resp-0001", "term": "Bard", "reason": "Shakespeare"},
                {"response_id": "resp-0003", "term": "Gemini", "reason": "the star sign"}]
    edit_json(study / "study.json", lambda o: o.update(accepted_findings=accepted))
    responses[1]["text"] = "A plain answer."
    write_responses(study, responses)
    code, result = validate_json(capsys, study)
    assert code == 0, result["leaks"]
    assert len(result["accepted_findings"]) == 2
