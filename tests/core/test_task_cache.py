"""OpenedBundle keeps only the tasks used last: memory does not grow with the tasks read.

The task list now names the rows it shows by reading their tasks, and ``wmcdp bundle verify`` reads every
task of a bundle; before, every task read stayed in memory for good (10,000 tasks of 100 KB: gigabytes).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from studyfix import bundle_files

from wmcdp_desktop.core import bundle_reader
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.zipsafe import deterministic_zip


@pytest.fixture
def bundle_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(bundle_reader, "TASK_CACHE_SIZE", 5)
    path = tmp_path / "b.wmcdp"
    path.write_bytes(deterministic_zip(bundle_files(12)))
    return path


def test_only_the_last_tasks_used_are_kept(bundle_path: Path) -> None:
    bundle = open_bundle(bundle_path)
    first = bundle.task("t0000")
    for tid in bundle.task_ids[1:5]:
        bundle.task(tid)
    assert bundle.task("t0000") is first  # still kept, and now the most recent
    for tid in bundle.task_ids[5:9]:
        bundle.task(tid)
    assert len(bundle._cache) == 5
    assert list(bundle._cache) == ["t0000", "t0005", "t0006", "t0007", "t0008"]
    bundle.task("t0001")
    assert list(bundle._cache) == ["t0005", "t0006", "t0007", "t0008", "t0001"]  # the least recently used went
    again = bundle.task("t0000")
    assert again.task_id == "t0000" and again is not first  # read (and checked) again


def test_verify_all_keeps_no_task(bundle_path: Path) -> None:
    bundle = open_bundle(bundle_path)
    assert bundle.verify_all() == []
    assert len(bundle._cache) == 0
