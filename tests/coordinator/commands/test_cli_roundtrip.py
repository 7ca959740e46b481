"""End to end with the app's own storage and export (rater/storage.py, rater/export.py):
study -> bundle build -> records saved by RaterStore -> export zip -> results validate -> collect."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.kit.exports import record_obj
from tests.kit.studies import build_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.rater import export as export_mod
from wmcdp_desktop.rater import storage, timing


def test_app_export_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    built = build_study(tmp_path, n_raters=2, overlap=1)
    key = built.key
    exports = []
    for rater in ("R1", "R2"):
        bundle = built.bundles[rater]
        store = storage.RaterStore(tmp_path / "data", bundle.manifest.bundle_id, rater)
        for task_id in bundle.task_ids[:3]:
            obj = record_obj(bundle.task(task_id), rater, bundle.manifest.bundle_id, bundle.manifest_sha256)
            store.save_record(RatingRecord.model_validate(obj))
        destination = tmp_path / f"results-{rater}.zip"
        export_mod.ExportPlan(
            store,
            bundle_id=bundle.manifest.bundle_id,
            bundle_sha256=bundle.manifest_sha256,
            study_id=bundle.manifest.study_id,
            task_ids=bundle.task_ids,
            drafts_not_submitted=0,
            clock=timing.FakeClock(),
        ).run(destination)
        exports.append(destination)
        # the rater's data folder validates too (records/ found, drafts/ skipped)
        assert main(["results", "validate", str(store.root), "--bundle", str(tmp_path / "out" / f"STUDY-T1-{rater}.wmcdp")]) == 0
        assert main(["results", "validate", str(destination), "--bundle", str(tmp_path / "out" / f"STUDY-T1-{rater}.wmcdp")]) == 0
    capsys.readouterr()
    code = main(["results", "collect", *map(str, exports), "--key", str(key), "--out", str(tmp_path / "merged"), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0, result
    assert result["ratings"] == 6 and result["tasks_nobody_rated"] == 15 - 6
    lines = (tmp_path / "merged" / "ratings.jsonl").read_text().splitlines()
    assert all(json.loads(line)["model_source"] for line in lines)
