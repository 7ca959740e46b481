"""``wmcdp report`` measures the style separability of the responses that were rated, beside the blinding
indices, and never calls ratings blind when the text tells the models apart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.kit.ratings import Spec, make_ratings, write_collection, write_report_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core.models.rating_record import BlindingGuess

SENTENCES = ["Answer the worry once, calmly.", "Then let the question go.", "Praise every brave moment.",
             "Keep routines ordinary.", "A clinician can help if it takes hours a day.", "Breathe before answering."]


def greeting(item: str, model: str) -> str:
    body = " ".join(SENTENCES[int(item[-3:]) % 3:][:4])
    return f"Didi, {body} 🙂" if model == "model-a" else body


def identical(item: str, model: str) -> str:
    return " ".join(SENTENCES[int(item[-3:]) % 3:][:4])


def report(tmp_path: Path, capsys: pytest.CaptureFixture[str], text_of: Any, guess: str | None = None,
           with_check: bool = True) -> dict[str, Any]:
    spec = Spec(n_items=24, models=("model-a", "model-b"), raters=3)
    study = write_report_study(tmp_path / "study", spec,
                        blinding_labels={"Alpha": "model-a", "Beta": "model-b"} if with_check else None)
    (study / "responses").mkdir()
    lines = [json.dumps({"response_id": f"{item}--{model}", "benchmark_item_id": item, "model_source": model,
                         "text": text_of(item, model)}, ensure_ascii=False)
             for item in (f"item-{i + 1:03d}" for i in range(spec.n_items)) for model in spec.models]
    (study / "responses" / "responses.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    records = make_ratings(spec)
    if guess is not None:
        records = [r.model_copy(update={"blinding_guess": BlindingGuess(answer="cannot_tell")}) for r in records]
    collected = write_collection(tmp_path / "collected", records)
    code = main(["report", str(collected), "--study", str(study), "--out", str(tmp_path / "out"), "--bootstrap", "0",
                 "--no-charts"])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in out + err
    summary: dict[str, Any] = json.loads((tmp_path / "out" / "summary.json").read_text())
    return summary


def test_separable_rated_text_is_reported_and_blind_is_not_claimed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = report(tmp_path, capsys, greeting, guess="cannot_tell")
    (row,) = summary["tables"]["blinding_style"]
    assert row["separable"] and row["accuracy"] >= 0.9 and row["responses"] == 48
    assert "`Didi`: 24 of 24 responses of model-a, 0 of 24 responses of model-b" in row["evidence"]
    notes = [n["text"] for n in summary["notes"] if n["section"] == "blinding"]
    assert any(n.startswith("The text alone reveals the model") and "cannot be called blind" in n for n in notes)
    findings = " ".join(summary["findings"])
    assert "The text alone reveals the model" in findings
    assert "Blinding: no information" in findings
    assert "no model was" not in findings
    html = (tmp_path / "out" / "report.html").read_text()
    assert "What the text alone reveals" in html


def test_separable_text_without_a_blinding_check_still_has_the_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = report(tmp_path, capsys, greeting, with_check=False)
    assert summary["tables"]["blinding_style"][0]["separable"]
    assert "5. Blinding" in (tmp_path / "out" / "report.html").read_text()


def test_identical_rated_text_is_not_separable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = report(tmp_path, capsys, identical)
    (row,) = summary["tables"]["blinding_style"]
    assert not row["separable"]
    assert "The text alone reveals" not in " ".join(summary["findings"])


def test_a_study_folder_without_responses_says_why_it_was_not_measured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = Spec(n_items=4, models=("model-a", "model-b"), raters=2)
    study = write_report_study(tmp_path / "study", spec, blinding_labels={"Alpha": "model-a", "Beta": "model-b"})
    collected = write_collection(tmp_path / "collected", make_ratings(spec))
    assert main(["report", str(collected), "--study", str(study), "--out", str(tmp_path / "out"), "--bootstrap", "0",
                 "--no-charts"]) == 0
    capsys.readouterr()
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert "blinding_style" not in summary["tables"]
    notes = [n["text"] for n in summary["notes"] if n["section"] == "blinding"]
    assert any("Style separability of the rated responses not measured" in n and "no responses/ folder" in n
               for n in notes)


def test_a_broken_responses_file_is_named_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = Spec(n_items=4, models=("model-a", "model-b"), raters=2)
    study = write_report_study(tmp_path / "study", spec, blinding_labels={"Alpha": "model-a", "Beta": "model-b"})
    (study / "responses").mkdir()
    (study / "responses" / "bad.jsonl").write_text('{"response_id": "x", \n', encoding="utf-8")
    collected = write_collection(tmp_path / "collected", make_ratings(spec))
    assert main(["report", str(collected), "--study", str(study), "--out", str(tmp_path / "out"), "--bootstrap", "0",
                 "--no-charts"]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    notes = [n["text"] for n in summary["notes"] if n["section"] == "blinding"]
    assert any("not measured: responses/bad.jsonl" in n for n in notes)
