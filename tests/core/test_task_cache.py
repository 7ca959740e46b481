"""OpenedBundle keeps only the tasks used last: memory does not grow with the tasks read.

The task list now names the rows it shows by reading their tasks, and ``wmcdp bundle verify`` reads every
task of a bundle; before, every task read stayed in memory for good (10,000 tasks of 100 KB: gigabytes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.kit.bundles import ASSIGNED_TO_R1, bundle_files, rehash, task_obj
from tests.kit.sessions import new_session
from wmcdp_desktop.core import bundle_reader
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.zips.writer import deterministic_zip


@pytest.fixture
def bundle_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(bundle_reader, "TASK_CACHE_SIZE", 5)
    path = tmp_path / "b.wmcdp"
    path.write_bytes(deterministic_zip(bundle_files(12, **ASSIGNED_TO_R1)))
    return path


def test_only_the_last_tasks_used_are_kept(bundle_path: Path) -> None:
    bundle = open_bundle(bundle_path)
    first = bundle.task("t0000")
    for tid in bundle.task_ids[1:5]:
        bundle.task(tid)
    assert bundle.task("t0000") is first  # still kept, and now the most recent
    for tid in bundle.task_ids[5:9]:
        bundle.task(tid)
    assert bundle.tasks_in_memory == ("t0000", "t0005", "t0006", "t0007", "t0008")
    bundle.task("t0001")
    assert bundle.tasks_in_memory == ("t0005", "t0006", "t0007", "t0008", "t0001")  # the least recently used went
    again = bundle.task("t0000")
    assert again.task_id == "t0000" and again is not first  # read (and checked) again


def test_verify_keeps_no_task(bundle_path: Path) -> None:
    bundle = open_bundle(bundle_path)
    assert bundle.verify() == ([], 0)
    assert bundle.tasks_in_memory == ()


def test_verify_finds_a_response_given_to_two_tasks_and_counts_calibration_tasks(tmp_path: Path,
                                                                                 sample_docs: Any) -> None:
    import json

    from wmcdp_desktop.core.strict_json import dumps_canonical

    files = bundle_files(4, **ASSIGNED_TO_R1)
    twin = task_obj("t0002")
    twin["candidate_response_id"] = json.loads(files["tasks/t0000.json"])["candidate_response_id"]
    files["tasks/t0002.json"] = dumps_canonical(twin).encode()
    path = tmp_path / "twins.wmcdp"
    path.write_bytes(deterministic_zip(rehash(files)))
    problems, _ = open_bundle(path).verify()
    assert [(p.file.rsplit("!", 1)[-1], p.path) for p in problems] == [("tasks/t0002.json", "candidate_response_id")]
    assert "is also used by task t0000" in problems[0].message

    files = bundle_files(4, **ASSIGNED_TO_R1)
    calibration = json.loads(files["tasks/t0001.json"])
    calibration["calibration_feedback"] = sample_docs("CalibrationTask")["calibration_feedback"]
    files["tasks/t0001.json"] = dumps_canonical(calibration).encode()
    path = tmp_path / "calibration.wmcdp"
    path.write_bytes(deterministic_zip(rehash(files)))
    assert open_bundle(path).verify() == ([], 1)


def test_the_open_task_stays_with_the_session_when_the_bundle_forgets_it(tmp_path: Path, sample_docs: Any,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The task list reads the rows it shows, which can push the open task out of the bundle's cache; the
    rater must still be able to submit if the bundle's files can no longer be read (a pulled USB stick).
    Found in review."""
    import copy

    from tests.kit.bundles import make_bundle
    from wmcdp_desktop.rater.timing import FakeClock

    monkeypatch.setattr(bundle_reader, "TASK_CACHE_SIZE", 1)
    root = make_bundle(tmp_path / "bundle", lambda name: copy.deepcopy(sample_docs(name)))
    clock = FakeClock()
    bundle = open_bundle(root)
    session = new_session(bundle, tmp_path / "data", clock, role="child psychologist")
    opened = session.open_task("T-0001")
    for dim in session.rubric.dimensions:
        session.set_score(dim.id, 4)
    session.set_note("brief_rationale", "Warm but keeps reassuring.")
    session.task("T-0002")  # what the task list does for a row in view: T-0001 leaves the bundle's cache
    assert "T-0001" not in bundle.tasks_in_memory and session.task() is opened
    (root / "tasks" / "T-0001.json").unlink()
    outcome = session.submit()
    assert outcome.ok and outcome.record is not None
    session.close()
    assert session.task("T-0002").task_id == "T-0002"
