"""A rubric's translations through the coordinator's commands: ``study validate`` refuses an incomplete one
naming the language and the field, ``bundle build`` carries a complete one into every bundle, and the leak
scan reads the translated texts as it reads the original's (they reach raters too)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.coordinator.leak.leakfix import write_model_study
from tests.kit.studies import edit_json, rubric_translation, write_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core.bundle_reader import open_bundle


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out + err


def _translate(study: Path, change: Any = None) -> None:
    def add(rubric: dict[str, Any]) -> None:
        t = rubric_translation(rubric)
        if change is not None:
            change(t)
        rubric["translations"] = {"es": t}

    edit_json(study / "rubric.json", add)


def test_study_validate_refuses_an_incomplete_translation_naming_language_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    study = write_study(tmp_path / "s")
    _translate(study, lambda t: t["failure_modes"].pop("WM-FM-SHAMING"))
    code, text = _run(capsys, "study", "validate", str(study))
    assert code == 1
    assert "rubric.json: translations.es.failure_modes: misses failure mode WM-FM-SHAMING" in text
    code, text = _run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "out"))
    assert code == 1 and "translations.es.failure_modes" in text
    assert not list((tmp_path / "out").glob("*.wmcdp"))


def test_bundle_build_carries_the_translations_into_every_bundle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    study = write_study(tmp_path / "s")
    _translate(study)
    code, text = _run(capsys, "study", "validate", str(study))
    assert code == 0, text
    code, text = _run(capsys, "bundle", "build", str(study), "--out", str(tmp_path / "out"))
    assert code == 0, text
    bundles = sorted((tmp_path / "out").glob("*.wmcdp"))
    assert bundles
    wanted = json.loads((study / "rubric.json").read_text(encoding="utf-8"))["translations"]
    for path in bundles:
        rubric = open_bundle(path).rubric
        assert rubric.translations is not None
        assert {k: v.to_json_obj() for k, v in rubric.translations.items()} == wanted
        assert rubric.in_language("es").rubric.dimensions[0].label.startswith("ES ")


@pytest.mark.parametrize(("where", "place"), [
    (lambda t: t.update(title="Rúbrica de Claude"), "translations.es.title"),
    (lambda t: t["dimensions"]["WM-RUB-002"]["anchors"]["3"].update(text="Aceptable: como diría Gemini"),
     "translations.es.dimensions.WM-RUB-002.anchors.3.text"),
    (lambda t: t["failure_modes"]["WM-FM-REASSURANCE"]["severity_guidance"].update(major="al estilo de ChatGPT"),
     "translations.es.failure_modes.WM-FM-REASSURANCE.severity_guidance.major"),
    (lambda t: t.update(note="Traducido con ayuda de Mistral"), "translations.es.note"),
    (lambda t: t["confidence_scale"]["anchors"]["5"].update(short_label="Muy alta (o1)"),
     "translations.es.confidence_scale.anchors.5.short_label"),
], ids=["title", "anchor", "severity", "note", "short label"])
def test_the_leak_scan_reads_every_translated_text(
    where: Any, place: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    study = write_model_study(tmp_path / "s")
    _translate(study, where)
    code, out = _run(capsys, "study", "validate", str(study), "--json")
    assert code == 1
    leaks = json.loads(out[: out.rindex("}") + 1])["leaks"]
    assert [(leak["file"], leak["path"]) for leak in leaks] == [("rubric.json", place)]
