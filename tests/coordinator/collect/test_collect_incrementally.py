"""Adding exports to a collection reads only the new zips, recognises one given twice, and gives byte for
byte the outputs of collecting everything at once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.kit.exports import record_obj
from tests.kit.studies import build_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.coordinator.results import reader as results_reader


def _exports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[list[str], str]:
    built = build_study(tmp_path, n_items=5, n_raters=3, overlap=2)
    paths = []
    for n, rater in enumerate(("R1", "R2", "R3")):
        b = built.bundles[rater]
        recs = [record_obj(b.task(t), rater, b.manifest.bundle_id, b.manifest_sha256, score=1 + (n + i) % 5)
                for i, t in enumerate(b.task_ids)]
        path = built.export(rater, recs, f"wmcdp-results-{rater}.zip")
        paths.append(str(path))
    return paths, str(built.key)


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

    def spy(path: Path, *args: Any, **kwargs: Any) -> results_reader.ExportRead:
        opened.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr("wmcdp_desktop.coordinator.collect.merge.read_export", spy)
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
    # ... and under another name, in the same run as its original too.
    renamed = tmp_path / "R2 sent again.zip"
    renamed.write_bytes(Path(exports[1]).read_bytes())
    again = _collect(capsys, key, step, str(renamed))
    assert opened == [] and again["exports_already_collected"] == [str(renamed)]
    assert _files(step) == _files(at_once)
    once = _collect(capsys, key, tmp_path / "once", exports[0], exports[1], str(renamed), exports[2])
    assert once["exports_already_collected"] == [str(renamed)] and once["ratings"] == again["ratings"]


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


def test_a_stray_file_in_the_collection_is_named_and_nothing_else_changes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exports, key = _exports(tmp_path, capsys)
    clean, stray = tmp_path / "clean", tmp_path / "stray"
    _collect(capsys, key, clean, exports[0])
    _collect(capsys, key, stray, exports[0])
    (stray / "notes.txt").write_text("my notes", encoding="utf-8")  # the coordinator's own file: left alone
    (stray / "collected-exports" / "copy of an entry.json").write_text("{}", encoding="utf-8")
    (stray / "collected-exports" / ".DS_Store.json").write_text("", encoding="utf-8")  # hidden: ignored
    code = main(["results", "collect", exports[1], "--key", key, "--out", str(stray), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [p["message"] for p in result["problems"]] == [
        "was not written by collect (its entries are named by the SHA-256 of an export zip): move it out of "
        "collected-exports/"]
    _collect(capsys, key, clean, exports[1])
    assert (stray / "notes.txt").read_text(encoding="utf-8") == "my notes"
    for name in ("ratings.parquet", "ratings.csv", "ratings.jsonl"):  # summary.json counts the problem
        assert (stray / name).read_bytes() == (clean / name).read_bytes()


def test_the_terminal_gets_the_first_problems_and_where_the_rest_are(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    exports, key = _exports(tmp_path, capsys)
    monkeypatch.setattr("wmcdp_desktop.coordinator.commands.results.PROBLEMS_SHOWN", 1)
    (tmp_path / "empty.zip").write_bytes(b"")
    (tmp_path / "not a zip.zip").write_bytes(b"hello")
    out = tmp_path / "c"
    code = main(["results", "collect", str(tmp_path / "empty.zip"), str(tmp_path / "not a zip.zip"), exports[0],
                 "--key", key, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1
    assert "2 problems:" in err and "empty.zip: is empty, not a zip file" in err
    assert f"… and 1 more: every problem is in {out / 'collect-report.json'}" in err
    report = json.loads((out / "collect-report.json").read_text(encoding="utf-8"))
    assert len(report["problems"]) == 2


def test_the_cache_problems_come_first_in_file_name_order_and_a_damaged_entry_is_not_counted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exports, key = _exports(tmp_path, capsys)
    out = tmp_path / "c"
    _collect(capsys, key, out, exports[0], exports[1])
    damaged = sorted((out / "collected-exports").glob("*.json"))[0]
    damaged.write_bytes(damaged.read_bytes()[:100])
    (out / "collected-exports" / "0 copy.json").write_text("{}", encoding="utf-8")
    (out / "collected-exports" / "zz copy.json").write_text("{}", encoding="utf-8")
    receipts = tmp_path / "receipts.txt"
    receipts.write_text("R1 not-a-code\n", encoding="utf-8")
    code = main(["results", "collect", exports[2], "--key", key, "--out", str(out), "--receipts", str(receipts)])
    assert code == 1
    capsys.readouterr()
    problems = json.loads((out / "collect-report.json").read_text(encoding="utf-8"))["problems"]
    assert [Path(p["file"]).name for p in problems[:4]] == ["0 copy.json", damaged.name, "zz copy.json", "receipts.txt"]
    assert "cannot be used" in problems[1]["message"]
    main(["results", "collect", exports[2], "--key", key, "--out", str(out)])
    assert "2 collected earlier" in capsys.readouterr().out  # of the three entries, the damaged one does not count
