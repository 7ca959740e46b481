"""`wmcdp study init DIR` writes a complete, valid, explained starter study that builds as it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wmcdp_desktop.coordinator.commands.main import main


def test_starter_is_valid_builds_and_explains_itself(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = tmp_path / "my study"  # a space in the path, as a coordinator might type
    assert main(["study", "init", str(study), "--json"]) == 0
    written = json.loads(capsys.readouterr().out)
    names = {Path(p).relative_to(study).as_posix() for p in written["files"]}
    assert {"study.json", "rubric.json", "README.md"} <= names
    assert {n.split("/")[0] for n in names} >= {"items", "cases", "responses"}
    assert main(["study", "validate", str(study), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["ok"] and result["warnings"] == [] and result["counts"]["items_sent"] == 2
    assert main(["bundle", "build", str(study), "--out", str(tmp_path / "bundles"), "--json"]) == 0
    built = json.loads(capsys.readouterr().out)
    assert built["ok"] and len(built["bundles"]) == 3 and built["left_out"] == []
    readme = (study / "README.md").read_text(encoding="utf-8")
    assert "wmcdp study validate" in readme
    for field in ("adjudication.adjudicatorCount", "leakageControl.accessPolicy",
                  "goldStandard.criterionGold[].acceptableVerdicts", "raters[].rater_id"):
        assert f"`{field}`" in readme, field
    described = json.loads((study / "study.json").read_text(encoding="utf-8"))["description"]
    assert "README.md" in described


def test_never_overwrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "taken"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["study", "init", str(folder)]) == 1
    assert "is not empty" in capsys.readouterr().err
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]
    file = tmp_path / "file"
    file.write_text("x", encoding="utf-8")
    assert main(["study", "init", str(file), "--json"]) == 1
    assert "is a file" in json.loads(capsys.readouterr().out)["error"]


def test_an_empty_folder_is_fine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["study", "init", str(tmp_path / "empty")]) == 0
    assert "wmcdp study validate" in capsys.readouterr().out
