"""A hostile bundle cannot inflate what the app builds (issue 25): a rubric of more than MAX_FAILURE_MODES failure
modes (10,000 passed ``bundle verify`` and took the app 23 s and 1.1 GB to open) and a scenario of more than
MAX_TURNS turns (200,000 opened in 9.6 s and 788 MB) are refused in plain words naming the file and the field,
by the one bundle reader the app and ``wmcdp bundle verify`` share."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.kit.bundles import RUBRIC_BYTES, bundle_files_of, task_obj, with_manifest
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core.bundle_reader import MAX_DOCUMENT_VALUES, open_bundle
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.models.common import MAX_FAILURE_MODES, MAX_TURNS
from wmcdp_desktop.core.zips.writer import deterministic_zip


def _rubric(n_failure_modes: int) -> dict[str, object]:
    rubric = json.loads(RUBRIC_BYTES)
    template = rubric["failure_modes"][0]
    rubric["failure_modes"] = [{**template, "id": f"WM-FM-X{i:05d}", "label": f"failure {i}"} for i in range(n_failure_modes)]
    rubric.pop("translations", None)  # they name the shipped failure modes
    return rubric  # type: ignore[no-any-return]


def _task(n_turns: int) -> dict[str, object]:
    task = task_obj("t0000")
    turn = task["scenario"]["turns"][0]  # type: ignore[index]
    # texts that do not compress a hundredfold (the zip rules would refuse the bundle as a bomb first)
    task["scenario"]["turns"] = [{**turn, "text": hashlib.sha256(str(i).encode()).hexdigest()}  # type: ignore[index]
                                 for i in range(n_turns)]
    return task


@pytest.mark.parametrize(("rubric", "task", "field"), [
    (_rubric(MAX_FAILURE_MODES + 1), _task(1), "failure_modes"),
    (json.loads(RUBRIC_BYTES), _task(MAX_TURNS + 1), "scenario.turns"),
], ids=["failure-modes", "turns"])
def test_too_many_failure_modes_or_turns_are_refused_by_verify_and_the_app(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rubric: dict[str, object], task: dict[str, object], field: str
) -> None:
    path = tmp_path / "big.wmcdp"
    path.write_bytes(deterministic_zip(bundle_files_of(rubric, [task])))
    assert main(["bundle", "verify", str(path)]) == 1
    text = "\n".join(capsys.readouterr())
    assert field in text and "at most" in text and "Traceback" not in text
    with pytest.raises(DocumentError) as info:  # the app opens bundles through the same reader
        open_bundle(path).task("t0000")
    assert any(field in str(p) for p in info.value.problems)


def test_the_limits_themselves_are_allowed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "edge.wmcdp"
    path.write_bytes(deterministic_zip(bundle_files_of(_rubric(MAX_FAILURE_MODES), [_task(MAX_TURNS)])))
    assert main(["bundle", "verify", str(path)]) == 0, capsys.readouterr()


def test_a_task_of_tiny_objects_is_refused_before_it_is_parsed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A task holding more JSON values than any real task (a 50 MB task of tiny objects cost ``bundle verify``
    646 MB): refused by counting, before a Python object is made for each value."""
    task = task_obj("t0000")
    extra = ",".join(f"[{i}]" for i in range(MAX_DOCUMENT_VALUES + 10))
    data = json.dumps(task).replace('"turns": [', '"turns": [[' + extra + "],", 1).encode()
    files = bundle_files_of(json.loads(RUBRIC_BYTES), [task])
    files["tasks/t0000.json"] = data
    files = with_manifest({k: v for k, v in files.items() if k != "bundle.json"}, ["t0000"])
    path = tmp_path / "tiny.wmcdp"
    path.write_bytes(deterministic_zip(files))
    assert main(["bundle", "verify", str(path)]) == 1
    text = "\n".join(capsys.readouterr())
    assert f"tasks/t0000.json: holds more than {MAX_DOCUMENT_VALUES:,} JSON values" in text
    with pytest.raises(DocumentError, match="JSON values"):
        open_bundle(path).task("t0000")
