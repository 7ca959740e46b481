"""The whole chain on the demo study: bundle build -> records saved by the app's store -> export zips ->
`wmcdp results collect` -> `wmcdp report`. Checks that the report reads what collect writes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.core.resources import demo_study_dir
from wmcdp_desktop.rater import export as export_mod
from wmcdp_desktop.rater import storage, timing


def _record(task: Any, rater: str, bundle_id: str, sha: str, rubric: Any) -> dict[str, Any]:
    h = int(hashlib.sha256(f"{task.task_id}".encode()).hexdigest(), 16)
    noise = int(hashlib.sha256(f"{rater}{task.task_id}".encode()).hexdigest(), 16) % 3 - 1
    scores = {d.field: max(1, min(5, 1 + (h >> (4 * k)) % 5 + (noise if k % 2 else 0)))
              for k, d in enumerate(rubric.dimensions)}
    return {
        "envelope": {
            "schema_id": "WM-CDP-ANNOTATION-SCHEMA-001", "schema_version": "0.0.1",
            "record_id": hashlib.md5(f"{rater}:{task.task_id}".encode()).hexdigest(),
            "task_id": task.task_id, "bundle_id": bundle_id, "bundle_sha256": sha, "app_version": "0.1.0",
            "started_at": "2026-11-29T10:00:00Z", "submitted_at": "2026-11-29T10:07:30Z", "revision": 1,
        },
        "benchmark_item_id": task.benchmark_item_id,
        "clinical_domain_id": task.clinical_domain_id,
        "scenario_type_ids": list(task.scenario_type_ids),
        "candidate_response_id": task.candidate_response_id,
        "candidate_response_text": task.candidate_response_text,
        "rater_id": rater,
        "scoring": scores,
        "failure_mode_annotations": {fm.id: ("minor" if h % 4 == 0 and i == 0 else "none")
                                     for i, fm in enumerate(rubric.failure_modes)},
        "clinician_notes": {"brief_rationale": "</td><script>alert(1)</script>", "confidence_rating": 1 + h % 5},
        "time_spent_scoring_seconds": 60 + h % 300,
    }


def test_collect_then_report_on_the_demo_study(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = demo_study_dir()
    assert main(["bundle", "build", str(study), "--out", str(tmp_path / "bundles"), "--json"]) == 0
    capsys.readouterr()
    keys = list((tmp_path / "bundles").glob("*unblinding-key*.json"))
    assert len(keys) == 1
    exports = []
    for path in sorted((tmp_path / "bundles").glob("*.wmcdp")):
        bundle = open_bundle(path)
        rater = bundle.manifest.rater_id
        assert rater
        store = storage.RaterStore(tmp_path / "data", bundle.manifest.bundle_id, rater)
        for task_id in bundle.task_ids:
            obj = _record(bundle.task(task_id), rater, bundle.manifest.bundle_id, bundle.manifest_sha256, bundle.rubric)
            store.save_record(RatingRecord.model_validate(obj))
        destination = tmp_path / f"results-{rater}.zip"
        export_mod.ExportPlan(store, bundle_id=bundle.manifest.bundle_id, bundle_sha256=bundle.manifest_sha256,
                              study_id=bundle.manifest.study_id, task_ids=bundle.task_ids, drafts_not_submitted=0,
                              clock=timing.FakeClock()).run(destination)
        exports.append(destination)
    code = main(["results", "collect", *map(str, exports), "--key", str(keys[0]), "--out", str(tmp_path / "collected")])
    capsys.readouterr()
    assert code == 0
    out = tmp_path / "report"
    assert main(["report", str(tmp_path / "collected"), "--study", str(study), "--out", str(out),
                 "--bootstrap", "60"]) == 0  # charts too: the demo's once stopped the report
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    n_lines = len((tmp_path / "collected" / "ratings.jsonl").read_text(encoding="utf-8").splitlines())
    assert summary["meta"]["ratings"] == n_lines and summary["meta"]["records_excluded"] == 0
    assert summary["meta"]["raters"] == 3 and summary["meta"]["models"] == 3
    alpha = summary["tables"]["agreement_alpha"][0]
    assert alpha["pairable_tasks"] > 0 and alpha["alpha_ordinal"] is not None
    assert summary["tables"]["model_scores"] and summary["tables"]["gold_by_criterion"]
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html and "&lt;/td&gt;&lt;script&gt;" in html
