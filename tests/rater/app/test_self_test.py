"""``wmcdp-desktop --self-test``: rates one task through the real window, exports, and says what it did;
a refused bundle ends it with the app's own message (the built app runs the same code: tests/standalone)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from tests.kit.bundles import RUBRIC_BYTES, bundle_files_of, task_obj
from wmcdp_desktop.core.models.common import MAX_TURNS
from wmcdp_desktop.core.resources import demo_bundle_path
from wmcdp_desktop.core.zips.writer import deterministic_zip
from wmcdp_desktop.rater.app import main as app_module
from wmcdp_desktop.rater.app import self_test


def _run(qapp: QApplication, argv: list[str]) -> int:
    return self_test.run(qapp, [*argv, "--self-test"], app_module.create_main_window)


def test_self_test_rates_exports_and_passes(qapp: QApplication, tmp_path: Path, capsys: Any) -> None:
    if not demo_bundle_path().exists():
        pytest.skip("the demo bundle is not built yet")
    assert _run(qapp, ["--demo", "--data-dir", str(tmp_path / "d"), "--rater", "R"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("self-test: window ready with task ")
    assert out[1].startswith("self-test: rated and submitted task ") and "(1 of " in out[1]
    assert out[-1] == "self-test: passed"
    export = tmp_path / "d" / self_test.EXPORT_NAME
    with zipfile.ZipFile(export) as z:
        records = [n for n in z.namelist() if n.startswith("records/")]
    assert len(records) == 1
    assert list((tmp_path / "d").glob("bundles/*/R/records/*.json"))


def test_self_test_with_a_rating_bundle_fixture_passes_too(
    qapp: QApplication, bundle_dir: Path, tmp_path: Path, capsys: Any
) -> None:
    assert _run(qapp, [str(bundle_dir), "--data-dir", str(tmp_path / "d"), "--rater", "R01"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "self-test: passed"


def test_self_test_reports_a_refused_bundle_and_fails(qapp: QApplication, tmp_path: Path, capsys: Any) -> None:
    bad = tmp_path / "bad.wmcdp"
    bad.write_bytes(b"not a zip at all")
    assert _run(qapp, [str(bad), "--rater", "R"]) == 1
    out = capsys.readouterr().out
    assert "self-test: FAILED: the bundle was refused" in out
    assert "This bundle cannot be opened" in out and str(bad) in out


def test_a_bundle_whose_only_task_is_refused_fails_in_plain_words(
    qapp: QApplication, tmp_path: Path, capsys: Any
) -> None:
    """The bundle opens but its one task cannot be read (more turns than a scenario may have): the self-test
    says so with the app's own message and exits 1, never a traceback about a rating nobody started."""
    task = task_obj("t0000")
    turn = task["scenario"]["turns"][0]  # type: ignore[index]
    task["scenario"]["turns"] = [{**turn, "text": f"turn {i}"} for i in range(MAX_TURNS + 1)]  # type: ignore[index]
    path = tmp_path / "one-bad-task.wmcdp"
    path.write_bytes(deterministic_zip(bundle_files_of(json.loads(RUBRIC_BYTES), [task])))
    assert _run(qapp, [str(path), "--data-dir", str(tmp_path / "d"), "--rater", "R01"]) == 1
    captured = capsys.readouterr()
    assert "self-test: FAILED: the bundle was opened but its tasks were refused" in captured.out
    assert "scenario.turns" in captured.out and "Traceback" not in captured.out + captured.err
    assert not list((tmp_path / "d").glob("bundles/*/*/records/*.json"))


def test_self_test_alone_checks_the_installation_on_the_built_in_demo(
    qapp: QApplication, tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``wmcdp-desktop --self-test`` with no other argument, as README and --help give it: the demo, exit 0,
    in a temporary data folder (the rater's own usual folder is never touched)."""
    if not demo_bundle_path().exists():
        pytest.skip("the demo bundle is not built yet")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home" / "data"))
    assert app_module.main(["--self-test"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("self-test: window ready with task ")
    assert out[-1] == "self-test: passed"
    assert not (tmp_path / "home").exists()


def test_self_test_without_a_bundle_given_to_run_says_what_to_give(
    qapp: QApplication, tmp_path: Path, capsys: Any
) -> None:
    assert _run(qapp, ["--data-dir", str(tmp_path / "d")]) == 1
    assert "no bundle was opened (give a bundle or --demo)" in capsys.readouterr().out


def test_self_test_is_documented_in_help(capsys: Any) -> None:
    with pytest.raises(SystemExit):
        app_module.build_parser().parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--self-test" in text and "open the built-in demo (or BUNDLE)" in text
