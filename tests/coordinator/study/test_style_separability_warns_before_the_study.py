"""``wmcdp study validate`` and ``wmcdp bundle build`` measure whether the model can be told from the
response text alone, warn with the evidence when it can, and stay silent when it cannot."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.coordinator.study import stylefix
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.coordinator.study.style import StyleText, measure_style


def validate(capsys: pytest.CaptureFixture[str], root: Path) -> tuple[int, dict[str, Any]]:
    code = main(["study", "validate", str(root), "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, json.loads(out)


def style_warnings(result: dict[str, Any]) -> list[str]:
    return [w["message"] for w in result["warnings"] if w["file"] == "responses"]


def test_identical_responses_give_no_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, result = validate(capsys, stylefix.write_style_study(tmp_path / "s", stylefix.identical))
    assert code == 0 and result["ok"]
    assert style_warnings(result) == []
    style = result["style"]
    assert style["measured"] and not style["separable"]
    assert style["accuracy"] <= style["chance"] + 0.05
    assert style["tokens"] == []


@pytest.mark.parametrize(
    ("text_of", "evidence"),
    [
        (stylefix.only_length, "length alone predicts the model with accuracy 1.000"),
        (stylefix.only_markdown, "formatting alone predicts the model with accuracy 1.000"),
        (stylefix.signature_word, "`Didi`: 41 of 41 responses of acme-gpt-9, 0 of 41 responses of zeta-llm-large"),
    ],
    ids=["length", "markdown", "signature-word"],
)
def test_a_study_whose_models_differ_in_one_way_warns_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text_of: stylefix.TextOf, evidence: str
) -> None:
    code, result = validate(capsys, stylefix.write_style_study(tmp_path / "s", text_of))
    assert code == 0 and result["ok"], "a style finding never fails the check"
    (warning,) = style_warnings(result)
    assert "the model can be told from the response text" in warning
    assert evidence in warning
    assert "chance 0.500" in warning and "grouped by item" in warning
    assert "--one-response-per-item" in warning and "accepted_style" in warning
    style = result["style"]
    assert style["separable"] and style["accuracy"] >= 0.9 and style["accuracy_ci_low"] > 0.5


def test_the_text_form_names_the_evidence_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = stylefix.write_style_study(tmp_path / "s", stylefix.only_length)
    assert main(["study", "validate", str(root)]) == 0
    out, err = capsys.readouterr()
    assert "is valid" in out
    assert "the model can be told from the response text" in err
    assert "median characters: acme-gpt-9" in err
    assert "the longest answer of an item was acme-gpt-9's in 0, zeta-llm-large's in 41 of 41 items" in err


def test_a_not_separable_study_says_the_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = stylefix.write_style_study(tmp_path / "s", stylefix.identical)
    assert main(["study", "validate", str(root)]) == 0
    out, err = capsys.readouterr()
    assert "style separability: a classifier (" in out and "predicts the model" in out and "not separable" in out
    assert "told from the response text" not in err


def markdown_headings_for_one_of_three(item: str, model: str, s: list[str]) -> str:
    body = " ".join(s[:5])
    return f"# {s[0]}\n\n{body}" if model == "orca-chat-2" else body


def closing_emoji(item: str, model: str, s: list[str]) -> str:
    body = " ".join(s[:5])
    return f"{body} 🙂" if model == "zeta-llm-large" else body


def same_opening_phrase(item: str, model: str, s: list[str]) -> str:
    body = " ".join(s[:5])
    return f"Great question! {body}" if model == "acme-gpt-9" else body


@pytest.mark.parametrize(
    ("text_of", "models", "evidence"),
    [
        (markdown_headings_for_one_of_three, ("acme-gpt-9", "zeta-llm-large", "orca-chat-2"),
         "headings in 0 of 41 of acme-gpt-9"),
        (closing_emoji, ("acme-gpt-9", "zeta-llm-large"),
         "closing `. 🙂`: 41 of 41 responses of zeta-llm-large, 0 of 41 responses of acme-gpt-9"),
        (same_opening_phrase, ("acme-gpt-9", "zeta-llm-large"), "opening `Great question`: 41 of 41"),
    ],
    ids=["one-of-three-models-uses-headings", "emoji-sign-off", "stock-opening"],
)
def test_variants_one_model_of_three_an_emoji_an_opening(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text_of: stylefix.TextOf, models: tuple[str, ...],
    evidence: str,
) -> None:
    root = stylefix.write_style_study(tmp_path / "s", text_of, models=models)
    _, result = validate(capsys, root)
    (warning,) = style_warnings(result)
    assert evidence in warning


def test_identical_text_in_other_scripts_and_long_markdown_gives_no_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scripts = ["不安なときは、ゆっくり息をしましょう。", "Тревога проходит, если не искать заверений.",
               "القلق يخف مع الوقت 🙂", "**Plan**\n\n| step | when |\n|---|---|\n| wait | 5 min |\n\n- breathe"]

    def text_of(item: str, model: str, s: list[str]) -> str:
        return f"{scripts[int(item[-3:]) % len(scripts)]}\n\n{' '.join(s[:4])}"

    _, result = validate(capsys, stylefix.write_style_study(tmp_path / "s", text_of))
    assert style_warnings(result) == []


def test_the_same_study_and_seed_give_the_same_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = stylefix.write_style_study(tmp_path / "s", stylefix.signature_word)
    first = validate(capsys, root)[1]["style"]
    again = validate(capsys, root)[1]["style"]
    assert first == again


def test_accepting_the_finding_with_a_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = stylefix.write_style_study(tmp_path / "s", stylefix.signature_word)
    study = json.loads((root / "study.json").read_text(encoding="utf-8"))
    study["accepted_style"] = {"reason": "the study compares greetings", "up_to_accuracy": 1.0}
    (root / "study.json").write_text(json.dumps(study), encoding="utf-8")
    code, result = validate(capsys, root)
    assert code == 0 and style_warnings(result) == []
    assert "the study compares greetings" in result["style"]["accepted"]
    assert main(["study", "validate", str(root)]) == 0
    out, _ = capsys.readouterr()
    assert "style separability accepted up to accuracy 1.000 (measured 1.000): the study compares greetings" in out

    study["accepted_style"]["up_to_accuracy"] = 0.6
    (root / "study.json").write_text(json.dumps(study), encoding="utf-8")
    _, result = validate(capsys, root)
    (warning,) = style_warnings(result)
    assert "accepts up to 0.600; the accuracy is now higher" in warning


@pytest.mark.parametrize("bad", [{"reason": "ok"}, {"reason": " ", "up_to_accuracy": 0.9},
                                 {"reason": "ok", "up_to_accuracy": 1.5}, {"reason": "ok", "up_to_accuracy": "0.9"}])
def test_a_bad_acceptance_is_named_by_file_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: dict[str, Any]
) -> None:
    root = stylefix.write_style_study(tmp_path / "s", stylefix.identical, n_items=3)
    study = json.loads((root / "study.json").read_text(encoding="utf-8"))
    study["accepted_style"] = bad
    (root / "study.json").write_text(json.dumps(study), encoding="utf-8")
    code, result = validate(capsys, root)
    assert code == 1
    assert any(p["file"] == "study.json" and p["path"].startswith("accepted_style") for p in result["problems"])


def test_without_scikit_learn_it_says_so_plainly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = stylefix.write_style_study(tmp_path / "s", stylefix.signature_word, n_items=5)
    for name in [m for m in sys.modules if m == "sklearn" or m.startswith("sklearn.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "sklearn", None)
    assert main(["study", "validate", str(root)]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert "style separability not measured: scikit-learn is not installed" in err
    assert "pip install 'wmcdp-desktop[analysis]'" in err


def test_one_model_or_one_item_is_not_measured_and_not_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = stylefix.write_style_study(tmp_path / "s", stylefix.signature_word, models=("acme-gpt-9",))
    code, result = validate(capsys, root)
    assert code == 0 and style_warnings(result) == []
    assert result["style"]["not_measured"] == "the responses raters see come from fewer than two models"


def test_bundle_build_warns_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = stylefix.write_style_study(tmp_path / "s", stylefix.only_markdown, n_items=12)
    code = main(["bundle", "build", str(root), "--out", str(tmp_path / "out"), "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in out + err
    result = json.loads(out)
    (warning,) = style_warnings(result)
    assert "formatting alone predicts the model" in warning
    assert result["style"]["separable"]


@pytest.mark.parametrize(
    ("name", "texts", "separable"),
    [
        ("emoji only", [StyleText(f"I{i}", m, "🙂" if m == "a" else "🙃") for i in range(20) for m in "ab"], True),
        ("one character, the same", [StyleText(f"I{i}", m, "x") for i in range(20) for m in "ab"], False),
        ("Arabic against Chinese", [StyleText(f"I{i}", m, ("مرحبا بك " if m == "a" else "你好，欢迎 ") * 5)
                                    for i in range(20) for m in "ab"], True),
        ("two items only", [StyleText(f"I{i}", m, f"text {m}") for i in range(2) for m in "ab"], False),
        ("one model mostly", [StyleText(f"I{i}", "a", "same words") for i in range(30)]
         + [StyleText(f"I{i}", "b", "same words") for i in range(5)], False),
        ("a 5 MB response", [StyleText(f"I{i}", m, "word " * 1_000_000 if i == 0 else "short text here")
                             for i in range(10) for m in "ab"], False),
    ],
)
def test_odd_texts_are_measured_without_a_traceback(name: str, texts: list[StyleText], separable: bool) -> None:
    result = measure_style(texts, 3)
    assert result.not_measured is None, name
    assert result.separable is separable, (name, result.accuracy, result.ci_low)


def test_a_model_that_answers_one_item_is_not_measured_and_says_why() -> None:
    texts = [StyleText(f"I{i}", "a", "hello there") for i in range(20)] + [StyleText("I0", "b", "bye now")]
    result = measure_style(texts, 3)
    assert result.not_measured is not None and "too few items" in result.not_measured
    assert not result.separable and result.evidence() == []
