"""Every leak class of issue 26 is found in every text field that reaches a bundle, reported like the other
findings (file, JSON path, term, text around it, class, refused or warning), refused by `study validate` and
`bundle build` unless accepted in study.json; warnings are listed and pass, and the bundle carries them."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.coordinator.leak.leakfix import TEXT_FIELDS, write_model_study
from tests.kit.commands import run
from tests.kit.studies import edit_json, read_responses, write_responses

# one refused example of each class (different from the issue's), each at a line start or mid-line
REFUSED = {
    "transliteration": ("Ответ дал Клауд.", "Клауд"),
    "short form": ("served by vLLM today", "vLLM"),
    "serving artefact": ("ok\nUser: and then?", "user:"),
    "self-description": ("As of my last update in 2024, yes.", "knowledge cut-off"),
    "self-introduction": ("Hello, I'm Kimi.", "Kimi"),
    "name and role noun": ("ask the Cohere chatbot", "Cohere"),
    "model size": ("try Zephyr-7b", "zephyr-7b"),
}
WARNING = ("the Mistrla advice", "mistrla")
TEXT = " ".join(text for text, _ in REFUSED.values()) + " " + WARNING[0]


def validate(capsys: pytest.CaptureFixture[str], study: Path) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(capsys, "study", "validate", str(study), "--json")
    return code, json.loads(out)


def put_everywhere(study: Path, text: str) -> list[tuple[str, str]]:
    for file, _path, put in TEXT_FIELDS:
        edit_json(study / file, lambda o, put=put: put(o, text))
    responses = read_responses(study)
    responses[0]["text"] = text
    write_responses(study, responses)
    return [(file, path) for file, path, _ in TEXT_FIELDS] + [("responses/responses.jsonl line 1", "text")]


def test_every_class_in_every_field_is_reported_with_its_class(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_model_study(tmp_path / "s")
    places = put_everywhere(study, TEXT)
    code, result = validate(capsys, study)
    assert code == 1 and result["ok"] is False
    by_place: dict[tuple[str, str], set[tuple[str, str, str]]] = {}
    for leak in result["leaks"]:
        by_place.setdefault((leak["file"], leak["path"]), set()).add((leak["class"], leak["term"], leak["severity"]))
        assert "«" in leak["context"] and leak["kind"] and leak["matched"]
    expected = {(cls, term, "refused") for cls, (_, term) in REFUSED.items()}
    assert by_place == {place: expected for place in places}
    # the misspelling is a warning in each field, not a refusal, and says what it may stand for
    warned = [w for w in result["warnings"] if "possible leak" in w["message"]]
    assert {(w["file"], w["path"]) for w in warned} == set(places)
    assert all("'mistrla' (one letter from 'Mistral'" in w["message"] for w in warned)
    assert {(x["class"], x["severity"], x["stands_for"]) for x in result["leak_warnings"]} == {
        ("misspelling", "warning", "Mistral")}

    code, _out, err = run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "out"))
    assert code == 1 and err.count("leak: ") == len(places) * len(REFUSED)
    assert not (tmp_path / "out").exists()


def test_warnings_pass_and_reach_the_bundle_and_accepting_silences_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_model_study(tmp_path / "s")
    text = "I'm Cluade, here to help 🤗"
    responses = read_responses(study)
    responses[0]["text"] = text
    write_responses(study, responses)
    code, result = validate(capsys, study)
    assert code == 0, result
    assert sorted((x["class"], x["term"]) for x in result["leak_warnings"]) == [
        ("misspelling", "cluade"), ("short form", "🤗")]
    code, _out, err = run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert "possible leak" in err
    texts = []
    for bundle in (tmp_path / "out").glob("*.wmcdp"):
        with zipfile.ZipFile(bundle) as zf:
            texts += [zf.read(n).decode() for n in zf.namelist() if n.startswith("tasks/")]
    assert any(json.dumps(text)[1:-1] in t or text in t for t in texts)

    accepted = [{"response_id": "resp-0001", "term": "Cluade", "reason": "the child's toy is called Cluade"},
                {"response_id": "resp-0001", "term": "🤗", "reason": "a hug emoji"}]
    edit_json(study / "study.json", lambda o: o.update(accepted_findings=accepted))
    code, result = validate(capsys, study)
    assert code == 0 and result["leak_warnings"] == [] and len(result["accepted_findings"]) == 2


def test_refused_classes_are_accepted_with_a_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_model_study(tmp_path / "s")
    edit_json(study / "cases" / "CASE-001.json", lambda o: o["scenario"]["turns"][0].update(text=TEXT))
    accepted = [{"file": "cases/CASE-001.json", "term": term, "reason": "checked"} for _, term in REFUSED.values()]
    edit_json(study / "study.json", lambda o: o.update(accepted_findings=accepted))
    code, result = validate(capsys, study)
    assert code == 0, result
    assert {a["class"] for a in result["accepted_findings"]} == set(REFUSED)
    code, _out, err = run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "out"))
    assert code == 0, err


def test_identifiers_carry_short_forms_and_misspellings_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_model_study(tmp_path / "s")

    def ids(o: dict[str, Any]) -> None:
        o["study_id"] = "STUDY-OAI"
        o["raters"][0]["rater_id"] = "R-cluade"

    edit_json(study / "study.json", ids)
    edit_json(study / "cases" / "CASE-001.json", lambda o: o.update(clinical_domain_id="WM-DOM-OLLAMA"))
    code, result = validate(capsys, study)
    assert code == 1
    assert {(x["path"], x["term"]) for x in result["leaks"]} == {("study_id", "OAI"), ("clinical_domain_id", "Ollama")}
    assert [(x["path"], x["term"]) for x in result["leak_warnings"]] == [("raters[0].rater_id", "cluade")]


def test_a_role_word_in_the_scenario_speaker_fields_is_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write_model_study(tmp_path / "s")
    edit_json(study / "cases" / "CASE-001.json", lambda o: o["scenario"]["turns"][0].update(
        speaker_label="Assistant", text="The assistant said: try one small step."))
    code, result = validate(capsys, study)
    assert code == 0, result
