"""``results collect`` is one call: collect_results holds the folder, reads the collection's cache, merges,
writes the outputs and returns a typed result in the order the command prints it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.coordinator.collect.test_collect_incrementally import _exports
from wmcdp_desktop.coordinator.collect.collection import Collected, collect_results
from wmcdp_desktop.coordinator.collect.outputs import hold_collection
from wmcdp_desktop.core.errors import WmcdpError


def test_the_result_is_typed_and_matches_what_was_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exports, key = _exports(tmp_path, capsys)
    out = tmp_path / "merged"
    result = collect_results([Path(e) for e in exports], Path(key), out)
    assert isinstance(result, Collected) and result.ok
    report = json.loads(result.report_path.read_text(encoding="utf-8"))
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert result.ratings == report["ratings"] == summary["ratings"] > 0
    assert result.summary == summary
    assert [r.rater_id for r in result.raters] == ["R1", "R2", "R3"]
    assert sum(r.ratings for r in result.raters) == result.ratings
    assert result.read == exports and result.collected_earlier == 0
    assert result.outputs[-1] == result.report_path and all(p.is_file() for p in result.outputs)

    again = collect_results([Path(exports[0])], Path(key), out)
    assert again.read == [] and again.already_collected == [exports[0]] and again.collected_earlier == 3
    assert again.ratings == result.ratings


def test_problems_of_the_cache_and_the_receipts_file_come_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exports, key = _exports(tmp_path, capsys)
    out = tmp_path / "merged"
    (out / "collected-exports").mkdir(parents=True)
    (out / "collected-exports" / "notes.json").write_text("{}", encoding="utf-8")
    receipts = tmp_path / "receipts.txt"
    receipts.write_text("R1 not-a-code\n", encoding="utf-8")
    result = collect_results([Path(exports[0])], Path(key), out, receipts_file=receipts)
    assert not result.ok
    files = [p.file for p in result.problems]
    assert files[0].endswith("notes.json") and files[1] == str(receipts)
    report = json.loads(result.report_path.read_text(encoding="utf-8"))
    assert report["ok"] is False
    assert [p["file"] for p in report["problems"]] == files
    assert json.loads((out / "summary.json").read_text(encoding="utf-8"))["problems"] == len(files)


def test_a_second_collect_into_a_held_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exports, key = _exports(tmp_path, capsys)
    out = tmp_path / "merged"
    with hold_collection(out), pytest.raises(WmcdpError, match="another `wmcdp results collect`"):
        collect_results([Path(exports[0])], Path(key), out)
