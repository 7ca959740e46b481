"""Smaller things coordinators hit (issue 15): `results validate` on a rater's data folder, `bundle verify`
on a results export, and `bundle build` progress for every phase."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.kit.sessions import new_session
from tests.kit.studies import build_study, write_study
from wmcdp_desktop.coordinator.bundles.build import build
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.coordinator.study.loader import load_study
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.rater.export import ExportPlan
from wmcdp_desktop.rater.settings import Settings, save_settings, with_rater
from wmcdp_desktop.rater.timing import FakeClock


def _rated_data_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                       export_to: Path | None = None) -> tuple[Path, Path, int]:
    """A real rater data folder (settings, lock files, drafts, records, audit log) and the rater's bundle."""
    build_study(tmp_path, n_items=4, n_raters=2, overlap=1)
    bundle_path = tmp_path / "out" / "STUDY-T1-R1.wmcdp"
    bundle = open_bundle(bundle_path)
    data = tmp_path / "data"
    clock = FakeClock()
    session = new_session(bundle, data, clock, rater="R1")
    submitted = 0
    for i, tid in enumerate(session.task_ids):
        session.open_task(tid)
        clock.advance(20)
        session.user_input()
        for dim in session.rubric.dimensions:
            session.set_score(dim.id, 4)
        if i == len(session.task_ids) - 1:
            session.save_draft()  # a draft left open: not a record
            break
        session.set_note("brief_rationale", "Sound advice.")
        assert session.submit().ok
        submitted += 1
    if export_to is not None:
        ExportPlan(session.store, bundle_id=bundle.manifest.bundle_id, bundle_sha256=bundle.manifest_sha256,
                   study_id=bundle.manifest.study_id, task_ids=list(session.task_ids), drafts_not_submitted=1,
                   clock=clock).run(export_to)
    save_settings(data, with_rater(Settings(), "R1", None))
    (data / "instance.json").write_text('{"pid": 1}', encoding="utf-8")
    return data, bundle_path, submitted


def test_results_validate_reads_a_rater_data_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, bundle, submitted = _rated_data_folder(tmp_path, capsys)
    assert (data / "settings.json").is_file()
    assert main(["results", "validate", str(data), "--json"]) == 0, capsys.readouterr()
    result = json.loads(capsys.readouterr().out)
    assert result["ok"] and result["valid_records"] == submitted and result["problems"] == []
    assert main(["results", "validate", str(data), "--bundle", str(bundle), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["valid_records"] == submitted
    # Loose record files elsewhere are still read as records, settings-like names included.
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "settings.json").write_text("{}", encoding="utf-8")
    assert main(["results", "validate", str(loose), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["problems"]


def test_bundle_verify_on_a_results_export_suggests_results_validate(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    zip_path = tmp_path / "wmcdp-results-STUDY-T1-R1.zip"
    _rated_data_folder(tmp_path, capsys, export_to=zip_path)
    assert main(["bundle", "verify", str(zip_path)]) == 1
    err = capsys.readouterr().err
    assert "bundle.json is missing" in err and f"wmcdp results validate {zip_path}" in err
    assert main(["bundle", "verify", str(zip_path), "--json"]) == 1
    messages = [p["message"] for p in json.loads(capsys.readouterr().out)["problems"]]
    assert any("results validate" in m for m in messages)


def test_bundle_build_reports_every_phase(tmp_path: Path) -> None:
    study = load_study(write_study(tmp_path / "study", n_items=6, n_raters=3, overlap=2))
    heard: dict[str, tuple[int, int]] = {}
    build(study, tmp_path / "out", progress=lambda stage, done, total: heard.__setitem__(stage, (done, total)))
    assert list(heard) == ["Leak scan", "Style separability", "Making bundles", "Checking bundles", "Writing bundles"]
    assert all(done == total > 0 for done, total in heard.values())
