"""Adding exports to a collection reads only the new zips, recognises one given twice, and gives byte for
byte the outputs of collecting everything at once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.studyfix import export_zip, record_obj, write_study
from wmcdp_desktop.cli.main import main
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.coordinator import results_reader


def _exports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[list[str], str]:
    study = write_study(tmp_path / "study", n_items=5, n_raters=3, overlap=2)
    assert main(["bundle", "build", str(study), "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    paths = []
    for n, rater in enumerate(("R1", "R2", "R3")):
        b = open_bundle(tmp_path / "out" / f"STUDY-T1-{rater}.wmcdp")
        recs = [record_obj(b.task(t), rater, b.manifest.bundle_id, b.manifest_sha256, score=1 + (n + i) % 5)
                for i, t in enumerate(b.task_ids)]
        path = tmp_path / f"wmcdp-results-{rater}.zip"
        path.write_bytes(export_zip(recs, study_id=b.manifest.study_id, rater_id=rater, bundle_id=b.manifest.bundle_id,
                                    bundle_sha256=b.manifest_sha256, tasks_in_bundle=len(b.task_ids)))
        paths.append(str(path))
    return paths, str(tmp_path / "out" / "STUDY-T1-unblinding-key.json")


def _collect(capsys: pytest.CaptureFixture[str], key: str, out: Path, *exports: str) -> dict[str, object]:
    code = main(["results", "collect", *exports, "--key", key, "--out", str(out), "--json"])
    result: dict[str, object] = json.loads(capsys.readouterr().out)
    assert code == 0, result["problems"]
    return result


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_adding_exports_equals_collecting_all_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    exports, key = _exports(tmp_path, capsys)
    at_once = tmp_path / "at-once"
    _collect(capsys, key, at_once, *reversed(exports))  # the order given does not matter either
    step = tmp_path / "step"
    first = _collect(capsys, key, step, exports[0], exports[1])
    assert first["exports_read"] == exports[:2]

    opened: list[str] = []
    real = results_reader.read_export

    def spy(path: Path) -> results_reader.ExportRead:
        opened.append(str(path))
        return real(path)

    monkeypatch.setattr("wmcdp_desktop.core.coordinator.collect.read_export", spy)
    second = _collect(capsys, key, step, exports[2])
    assert opened == [exports[2]], "only the new export is read"
    assert second["exports_in_collection"] == 3 and second["exports_already_collected"] == []
    assert _files(step) == _files(at_once)
    names = set(_files(step))
    assert {"ratings.parquet", "ratings.csv", "ratings.jsonl", "summary.json", "collect-report.json"} <= names

    # The same export given again is recognised by its SHA-256: not read, not counted twice.
    opened.clear()
    again = _collect(capsys, key, step, exports[1])
    assert opened == [] and again["exports_already_collected"] == [exports[1]]
    assert _files(step) == _files(at_once)


def test_a_damaged_cache_entry_is_reported_not_trusted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exports, key = _exports(tmp_path, capsys)
    out = tmp_path / "c"
    _collect(capsys, key, out, exports[0])
    entry = next((out / "collected-exports").glob("*.json"))
    obj = json.loads(entry.read_text(encoding="utf-8"))
    obj["records"][0]["record"]["scoring"]["overall_clinical_judgment_score"] = "excellent"
    entry.write_text(json.dumps(obj), encoding="utf-8")
    code = main(["results", "collect", exports[1], "--key", key, "--out", str(out), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 1 and any("cannot be used" in p["message"] for p in result["problems"])
