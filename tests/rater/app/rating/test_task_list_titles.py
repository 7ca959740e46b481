"""The task list names the rows it shows by their task's title, reading only those tasks, a few per turn
of the event loop; rows out of view keep their id until scrolled to; a task that cannot be read keeps its
id without an error (opening it explains); a row is named by its domain and scenario types."""

from __future__ import annotations

import copy
import hashlib
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer

from tests.kit.bundles import bundle_docs, write_bundle_folder
from wmcdp_desktop.rater.app.rating import task_list
from wmcdp_desktop.rater.app.window.main_window import MainWindow

N_TASKS = 80


def _many_tasks_bundle(root: Path, sample_docs: Any) -> Path:
    rubric, (plain, _, _) = bundle_docs(sample_docs)
    tasks = []
    for i in range(1, N_TASKS + 1):
        task = copy.deepcopy(plain)
        task["task_id"] = f"T-{i:04d}"
        task["candidate_response_id"] = f"cr-{i:04d}"
        task["clinical_domain_id"] = "WM-DOM-OCD" if i % 2 else "WM-DOM-ANXIETY"
        tasks.append(task)
    return write_bundle_folder(root, rubric, tasks)


def _window(make_window: Any, tmp_path: Path, sample_docs: Any) -> MainWindow:
    bundle = _many_tasks_bundle(tmp_path / "bundle", sample_docs)
    window = make_window([str(bundle), "--data-dir", str(tmp_path / "data"), "--rater", "R01"])
    window.resize(1280, 700)
    return window


def _reads(window: MainWindow) -> list[str]:
    """Record every task the session reads from here on."""
    assert window.session is not None
    bundle = window.session.bundle
    real = bundle.task
    seen: list[str] = []

    def counting(task_id: str) -> Any:
        seen.append(task_id)
        return real(task_id)

    bundle.task = counting  # type: ignore[method-assign]
    return seen


def test_rows_in_view_are_named_rows_out_of_view_keep_their_id(qtbot: Any, make_window: Any, tmp_path: Path,
                                                               sample_docs: Any) -> None:
    window = _window(make_window, tmp_path, sample_docs)
    assert window.page is not None
    tasks = window.page.task_list
    qtbot.waitUntil(lambda: len(tasks.shown_rows()) > 3, timeout=3000)
    shown = tasks.shown_rows()
    assert 3 < len(shown) < N_TASKS - 10, shown  # the list shows some rows, far from all
    qtbot.waitUntil(lambda: all(" · reassurance" in tasks.row_text(r).split("\n")[0] for r in shown), timeout=3000)
    assert tasks.row_text(1).startswith("2. Anxiety · reassurance\n")
    assert tasks.row_text(2).startswith("3. OCD · reassurance\n")
    assert "T-0002" in (tasks.row_tooltip(1) or "")
    last = N_TASKS - 1
    assert tasks.row_text(last).startswith(f"{N_TASKS}. T-{N_TASKS:04d}\n")  # out of view: not read
    assert len(tasks.titles) <= shown.stop + task_list.TITLE_BATCH

    reads = _reads(window)
    tasks.list.setFocus()
    qtbot.keyClick(tasks.list, Qt.Key.Key_End)  # the rater jumps to the end of the list
    qtbot.waitUntil(lambda: last in tasks.shown_rows(), timeout=3000)
    qtbot.waitUntil(lambda: tasks.row_text(last).startswith(f"{N_TASKS}. Anxiety · "), timeout=3000)
    assert set(reads) <= {window.session.task_ids[r] for r in tasks.shown_rows()} | {window.session.current_id}
    assert len(reads) == len(set(reads))  # each task read once


def test_a_task_that_cannot_be_read_keeps_its_id(qtbot: Any, make_window: Any, tmp_path: Path,
                                                 sample_docs: Any) -> None:
    bundle = _many_tasks_bundle(tmp_path / "bundle", sample_docs)
    damaged = bundle / "tasks" / "T-0003.json"
    damaged.write_bytes(damaged.read_bytes().replace(b"OCD", b"XYZ"))  # no longer matches its SHA-256
    assert hashlib.sha256(damaged.read_bytes()).hexdigest() not in (bundle / "bundle.json").read_text()
    window = make_window([str(bundle), "--data-dir", str(tmp_path / "data"), "--rater", "R01"])
    assert window.page is not None
    tasks = window.page.task_list
    qtbot.waitUntil(lambda: tasks.row_text(3).startswith("4. Anxiety · "), timeout=3000)  # the rows after it too
    assert tasks.row_text(2).startswith("3. T-0003\n")
    assert tasks.row_tooltip(2) is None
    assert window.session is not None and window.session.current_id == "T-0001"  # nothing else happened


def test_an_unexpected_failure_reading_one_task_does_not_stop_the_naming(qtbot: Any, make_window: Any,
                                                                        tmp_path: Path, sample_docs: Any) -> None:
    """Found in review: only WmcdpError/OSError were caught; anything else left the timer stopped for good."""
    window = _window(make_window, tmp_path, sample_docs)
    assert window.page is not None and window.session is not None
    tasks = window.page.task_list
    real = window.session.bundle.task

    def flaky(task_id: str) -> Any:
        if task_id == "T-0003":
            raise ValueError("simulated unexpected failure")
        return real(task_id)

    window.session.bundle.task = flaky  # type: ignore[method-assign]
    tasks.titles.clear()
    tasks.resize(tasks.width(), tasks.height() + 1)  # the rater resizes the list: the rows in view are named again
    qtbot.waitUntil(lambda: tasks.row_text(7).startswith("8. Anxiety · "), timeout=3000)
    assert tasks.row_text(2).startswith("3. T-0003\n")


def test_slow_tasks_are_named_one_turn_at_a_time(qtbot: Any, make_window: Any, tmp_path: Path,
                                                 sample_docs: Any) -> None:
    """A task holding a 5 MB response takes 50-70 ms to read: a turn of the event loop stops reading once it
    has spent TITLE_BUDGET, so the window keeps answering input while names fill in."""

    window = _window(make_window, tmp_path, sample_docs)
    assert window.page is not None and window.session is not None
    tasks = window.page.task_list
    real = window.session.bundle.task
    turn = [0]
    turns = QTimer(tasks)  # a zero timer ticks once a turn of the event loop
    turns.setInterval(0)
    turns.timeout.connect(lambda: turn.__setitem__(0, turn[0] + 1))
    turns.start()
    read_in_turn: list[int] = []

    def slow(task_id: str) -> Any:
        time.sleep(task_list.TITLE_BUDGET + 0.005)
        read_in_turn.append(turn[0])
        return real(task_id)

    window.session.bundle.task = slow  # type: ignore[method-assign]
    tasks.titles.clear()
    tasks.resize(tasks.width(), tasks.height() + 1)  # the rater resizes the list: the rows in view are named again
    qtbot.waitUntil(lambda: len(read_in_turn) >= 5, timeout=5000)
    assert len(read_in_turn) == len(set(read_in_turn))  # one slow read per turn, never several in a row


def test_tasks_are_named_by_domain_and_scenario(qtbot: Any, window: MainWindow) -> None:
    """Tasks read "1. OCD · reassurance" in the list (not only an opaque id): the opened one at once, the
    others in view a moment after the list shows (tests/rater/app/rating/test_task_list_titles.py: rows out of view)."""
    assert window.page is not None
    tasks = window.page.task_list
    assert tasks.row_text(0).startswith("1. OCD · reassurance\n")
    assert "T-0001" in (tasks.row_tooltip(0) or "")
    qtbot.waitUntil(lambda: tasks.row_text(1).startswith("2. OCD · reassurance\n"), timeout=3000)
    assert "T-0002" in (tasks.row_tooltip(1) or "")
    assert set(window.page.task_list.titles) == {"T-0001", "T-0002", "T-0003"}
    assert tasks.list.textElideMode() == Qt.TextElideMode.ElideRight  # a narrow list keeps number and domain
    meta = window.page.task_view.meta
    assert meta.text() == "Clinical domain: OCD    Scenario types: Reassurance"
    assert "WM-DOM-OCD" in meta.toolTip()
    window.rating.go_to("T-0002")
    assert tasks.row_text(1).startswith("2. OCD · reassurance\n")
    assert tasks.row_text(0).startswith("1. OCD · reassurance\n")
