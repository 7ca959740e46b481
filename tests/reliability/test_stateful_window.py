"""The stateful session test again, through the real window (``create_main_window``), smaller: the
submitted count the window shows ("N of M submitted") = tasks with valid record files = the export
manifest's entries, and every hash matches the audit log, after every step. A crash drops the window
without closing its session (timers stopped, the lock released as the OS would) and builds a new one."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from PySide6.QtWidgets import QApplication

from tests.kit.bundles import write_bundle
from tests.kit.sessions import RATER, audit_hash_problems, fill, valid_records
from wmcdp_desktop.core.zips.reader import open_zip_bytes
from wmcdp_desktop.rater.timing import FakeClock

from .helpers import all_orphans
from .tally import TALLY
from .uikit import close_message_boxes, export_and_wait, wait_opened

pytestmark = [pytest.mark.reliability, pytest.mark.usefixtures("ui_guard")]

TASKS = ["t0000", "t0001", "t0002"]


def _window(bundle: Path, data: Path, clock: FakeClock) -> Any:
    from wmcdp_desktop.rater.app import main as app_module

    window = app_module.create_main_window([str(bundle), "--data-dir", str(data), "--rater", RATER], clock=clock)
    wait_opened(window)
    window.show()
    QApplication.processEvents()
    return window


def test_stateful_rating_in_the_window(qapp: Any, tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path / "bundle", 3)

    class WindowMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.root = Path(tempfile.mkdtemp(dir=tmp_path))
            self.clock = FakeClock()
            self.window = _window(bundle, self.root / "data", self.clock)
            self.revisions: dict[str, int] = {}
            self.exports = 0

        def teardown(self) -> None:
            self.window.shutdown()
            self.window.close()
            self.window.deleteLater()
            close_message_boxes()

        @property
        def s(self) -> Any:
            return self.window.session

        @rule(task=st.sampled_from(TASKS))
        def go_to(self, task: str) -> None:
            assert self.window.rating.go_to(task)

        @precondition(lambda self: self.window.session.current is not None)
        @rule(dim=st.integers(0, 7), value=st.integers(1, 5))
        def edit(self, dim: int, value: int) -> None:
            self.s.set_score(self.s.rubric.dimensions[dim].id, value)

        @precondition(lambda self: self.window.session.current is not None)
        @rule()
        def autosave(self) -> None:
            assert self.window.rating.save_now()

        @rule()
        def crash(self) -> None:
            TALLY.faults_injected["crash of the window (dropped unclosed, reopened from disk)"] += 1
            self.window.shutdown()  # timers stopped and lock released, as the OS does for a dead process
            self.window.deleteLater()
            self.window = _window(bundle, self.root / "data", self.clock)
            TALLY.faults_survived["crash of the window (dropped unclosed, reopened from disk)"] += 1

        @precondition(lambda self: self.window.session.viewing_record is not None)
        @rule()
        def revise(self) -> None:
            self.window.rating.revise()
            assert self.s.current is not None

        @precondition(lambda self: self.window.session.current is not None)
        @rule(score=st.integers(1, 5))
        def submit(self, score: int) -> None:
            task = self.s.current_id
            fill(self.s, score)
            self.window.rating.submit()
            assert self.s.store.latest_revisions().get(task) == self.revisions.get(task, 0) + 1
            self.revisions[task] = self.revisions.get(task, 0) + 1

        @rule()
        def export(self) -> None:
            dest = self.root / f"results-{self.exports}.zip"
            self.exports += 1
            assert export_and_wait(self.window, dest)
            close_message_boxes()
            safe = open_zip_bytes(dest.read_bytes(), dest.name)
            assert len([n for n in safe.names() if n.startswith("records/")]) == sum(self.revisions.values())

        @invariant()
        def window_agrees_with_disk(self) -> None:
            records = valid_records(self.s.store)
            expected = sum(self.revisions.values())
            TALLY.records(expected, max(0, expected - len(records)))
            shown = self.window.page.task_list.progress_text()
            assert shown == f"{len(self.revisions)} of {len(TASKS)} submitted"
            assert {n.split(".")[0] for n in records} == set(self.revisions)
            assert len(records) == expected
            assert audit_hash_problems(self.s.store) == ([], [])
            assert all_orphans(self.root / "data") == []
            TALLY.stateful_steps += 1

    run_state_machine_as_test(
        WindowMachine,
        settings=settings(
            max_examples=6,
            stateful_step_count=12,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
            derandomize=True,
        ),
    )
