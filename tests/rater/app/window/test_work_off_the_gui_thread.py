"""Opening, checking and exporting run off the GUI thread: the window keeps painting and answering input,
shows progress with a cancel button, and a cancel really stops the work (nothing is opened or written).
Slow work is made slow on purpose (a worker that waits for the test), never by timing the machine."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QThread, QTimer
from PySide6.QtWidgets import QApplication, QPushButton

from tests.kit.bundles import bundle_docs, write_bundle_folder
from tests.rater.app.window_helpers import (
    export_and_wait,
    open_and_wait,
    set_all_scores_by_keyboard,
    submit_by_keyboard,
    type_rationale,
    wait_opened,
)
from wmcdp_desktop.rater import export as export_module
from wmcdp_desktop.rater.app.bundle import checking as bundle_check
from wmcdp_desktop.rater.app.bundle import opening as bundle_opening
from wmcdp_desktop.rater.app.window.main_window import MainWindow

WAIT_MS = 10_000


class Gate:
    """Holds a worker inside a core call until the test opens it; records the thread it ran on."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.threads: list[QThread] = []

    def hold(self) -> None:
        self.threads.append(QThread.currentThread())
        self.entered.set()
        assert self.release.wait(WAIT_MS / 1000), "the test never released the worker"


@pytest.fixture
def gate() -> Iterator[Gate]:
    g = Gate()
    yield g
    g.release.set()  # never leave a worker waiting


@pytest.fixture
def slow_open(monkeypatch: pytest.MonkeyPatch, gate: Gate) -> Gate:
    """Every bundle opens slowly (a network drive, a huge bundle): the worker waits for the test."""
    real = bundle_opening.open_bundle

    def slow(path: Path) -> Any:
        gate.hold()
        return real(path)

    monkeypatch.setattr(bundle_opening, "open_bundle", slow)
    return gate


def event_loop_turns(qtbot: Any, until: Callable[[], bool]) -> int:
    """How many times a 10 ms timer fired (the event loop ran) until ``until()``."""
    turns = [0]
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: turns.__setitem__(0, turns[0] + 1))
    timer.start()
    qtbot.waitUntil(until, timeout=WAIT_MS)
    timer.stop()
    return turns[0]


def cancel_button(qtbot: Any, window: MainWindow, name: str) -> QPushButton:
    """The status bar's cancel button for a running job (shown once the job has run a moment)."""

    def shown() -> QPushButton | None:
        for button in window.statusBar().findChildren(QPushButton):
            if button.accessibleName() == name and button.isVisible():
                return button
        return None

    qtbot.waitUntil(lambda: shown() is not None, timeout=WAIT_MS)
    found = shown()
    assert found is not None
    return found


def test_the_window_answers_while_a_slow_bundle_opens_then_shows_it(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path, slow_open: Gate
) -> None:
    window = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    window.open_bundle_path(bundle_dir)
    assert slow_open.entered.wait(WAIT_MS / 1000)
    assert slow_open.threads[0] is not QApplication.instance().thread()  # type: ignore[union-attr]
    assert window.opener.busy and window.session is None
    # The event loop runs and the window takes input while the worker is held.
    assert event_loop_turns(qtbot, lambda: cancel_button(qtbot, window, "Cancel opening").isVisible()) > 3
    assert not window.welcome.open_button.isEnabled() and not window.menu.act_open.isEnabled()  # one opening at a time
    qtbot.keyClick(window, "=", window.menu.act_bigger.shortcuts()[0][0].keyboardModifiers())  # Ctrl+= works meanwhile
    with qtbot.waitSignal(window.opener.opened, timeout=WAIT_MS):
        slow_open.release.set()
    wait_opened(qtbot, window)
    assert window.session is not None and window.session.current_id == "T-0001"
    assert window.welcome.open_button.isEnabled() and window.menu.act_open.isEnabled()


def test_cancel_while_opening_leaves_nothing_open_and_the_late_result_is_dropped(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path, slow_open: Gate
) -> None:
    window = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    window.open_bundle_path(bundle_dir)
    assert slow_open.entered.wait(WAIT_MS / 1000)
    with qtbot.waitSignal(window.opener.finished, timeout=WAIT_MS):
        qtbot.mouseClick(cancel_button(qtbot, window, "Cancel opening"), Qt.MouseButton.LeftButton)
    assert not window.opener.busy and window.session is None
    assert window.stack.currentWidget() is window.welcome and window.welcome.open_button.isEnabled()
    slow_open.release.set()  # the worker finishes its read; nobody takes the result
    qtbot.wait(200)
    assert window.session is None and not (data_dir / "bundles").exists()  # no session was started
    assert open_and_wait(qtbot, window, bundle_dir)  # and a new opening works


def test_a_bundle_open_stays_open_when_opening_another_is_cancelled(
    qtbot: Any, window: MainWindow, tmp_path: Path, sample_docs: Any, monkeypatch: pytest.MonkeyPatch, gate: Gate
) -> None:
    rubric, tasks = bundle_docs(sample_docs)
    other = write_bundle_folder(tmp_path / "other", rubric, tasks, bundle_id="B-other")
    real = bundle_opening.open_bundle
    monkeypatch.setattr(bundle_opening, "open_bundle", lambda path: (gate.hold(), real(path))[1])
    set_all_scores_by_keyboard(qtbot, window, "3")
    window.open_bundle_path(other)
    assert gate.entered.wait(WAIT_MS / 1000)
    assert window.session is not None and window.session.manifest.bundle_id == "B-test"
    qtbot.mouseClick(cancel_button(qtbot, window, "Cancel opening"), Qt.MouseButton.LeftButton)
    assert not window.opener.busy
    assert window.session is not None and window.session.manifest.bundle_id == "B-test"
    assert window.session.current is not None and len(window.session.current.scores) == 8  # nothing lost


def test_an_unexpected_error_in_the_worker_reaches_the_error_handler_and_the_window_recovers(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    window = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    caught: list[tuple[type[BaseException], QThread]] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, exc, tb: caught.append((kind, QThread.currentThread())))

    def broken(path: Path) -> Any:
        raise MemoryError("out of memory while reading the bundle")

    monkeypatch.setattr(bundle_opening, "open_bundle", broken)
    assert not open_and_wait(qtbot, window, bundle_dir)
    assert [kind for kind, _ in caught] == [MemoryError]
    assert caught[0][1] is QApplication.instance().thread()  # type: ignore[union-attr]  # reported on the GUI thread
    assert not window.opener.busy and window.welcome.open_button.isEnabled()
    monkeypatch.undo()
    assert open_and_wait(qtbot, window, bundle_dir)


def test_a_refused_bundle_is_explained_in_plain_words(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    (bundle_dir / "bundle.json").write_text('{"document_type": "wmcdp_bundle", "files": [', encoding="utf-8")
    window = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    assert not open_and_wait(qtbot, window, bundle_dir)
    message = window.messages[-1]
    assert message.startswith("This bundle cannot be opened:") and "bundle.json" in message
    assert "Traceback" not in message


def test_the_background_check_names_a_damaged_task_in_a_banner_without_taking_the_keyboard(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    task = bundle_dir / "tasks" / "T-0003.json"
    task.write_bytes(task.read_bytes().replace(b"Sam", b"Tom"))  # changed after the bundle was built
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.page is not None
    banner = window.page.notice_text
    assert banner.isVisible() and "T-0003.json" in banner.text() and "SHA-256" in banner.text()
    assert window.messages == []  # a banner, not a dialog: the rater's typing goes on
    assert window.isActiveWindow()
    assert window.rating is not None and not window.rating.go_to("T-0003")  # and the task is refused when opened
    assert window.rating.checker.problems is not None and len(window.rating.checker.problems) == 1


def test_the_background_check_reads_the_open_bundle_and_notices_bundle_json_changed_since_opening(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = bundle_check.check_bundle
    checked: list[Any] = []

    def changed_first(opened: Any, progress: Any) -> Any:
        checked.append(opened)  # the session's own bundle object: the bundle is not opened a second time
        manifest = bundle_dir / "bundle.json"
        manifest.write_bytes(manifest.read_bytes() + b"\n")  # changed on disk after it was opened
        return real(opened, progress)

    monkeypatch.setattr(bundle_check, "check_bundle", changed_first)
    window = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    assert open_and_wait(qtbot, window, bundle_dir)
    assert window.rating is not None
    qtbot.waitUntil(lambda: not window.rating.checker.busy, timeout=WAIT_MS)  # type: ignore[union-attr]
    assert window.session is not None and checked == [window.session.bundle]
    assert window.page is not None and "changed on disk since it was opened" in window.page.notice_text.text()


def test_stop_checking_stops_the_check_of_a_big_bundle_midway(
    qtbot: Any, make_window: Callable[..., MainWindow], tmp_path: Path, sample_docs: Any, data_dir: Path,
    monkeypatch: pytest.MonkeyPatch, gate: Gate,
) -> None:
    import copy

    from PySide6.QtWidgets import QProgressBar

    rubric, (plain, _, _) = bundle_docs(sample_docs)
    tasks = []
    for i in range(1, 301):
        task = copy.deepcopy(plain)
        task["task_id"], task["candidate_response_id"] = f"T-{i:04d}", f"cr-{i:04d}"
        tasks.append(task)
    bundle = write_bundle_folder(tmp_path / "big", rubric, tasks)
    real = bundle_check.check_bundle
    checked: list[int] = []

    def held_at_100(opened: Any, progress: Any) -> Any:
        def counting(done: int, total: int) -> None:
            progress(done, total)  # raises once "Stop checking" was pressed
            checked.append(done)
            if done == 100:
                gate.hold()

        return real(opened, counting)

    monkeypatch.setattr(bundle_check, "check_bundle", held_at_100)
    window = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    with qtbot.waitSignal(window.openingDone, timeout=WAIT_MS):
        window.open_bundle_path(bundle)
    assert window.rating is not None and window.rating.checker.busy
    assert gate.entered.wait(WAIT_MS / 1000)
    stop = cancel_button(qtbot, window, "Stop checking")
    bar = next(b for b in window.statusBar().findChildren(QProgressBar) if b.accessibleName() == "Checking the bundle's files")
    qtbot.waitUntil(lambda: bar.maximum() == 301 and bar.value() > 0, timeout=WAIT_MS)  # 300 tasks + rubric
    with qtbot.waitSignal(window.rating.checker.finished, timeout=WAIT_MS):
        qtbot.mouseClick(stop, Qt.MouseButton.LeftButton)
    assert "stopped" in window.statusBar().currentMessage()
    gate.release.set()
    qtbot.waitUntil(lambda: not window.workers.busy and window.workers.pool.activeThreadCount() == 0, timeout=WAIT_MS)
    assert max(checked) == 100  # the worker stopped at the next file, it did not check on unseen
    assert window.rating.checker.problems is None and not window.page.notice_banner.isVisible()  # type: ignore[union-attr]


def test_cancel_export_midway_writes_nothing_and_the_rater_keeps_working(
    qtbot: Any, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gate: Gate
) -> None:
    set_all_scores_by_keyboard(qtbot, window, "4")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    real = export_module.ExportPlan.build
    reached: list[bool] = []

    def slow(plan: export_module.ExportPlan, progress: Any = None) -> Any:
        progress(0, 1)
        gate.hold()
        progress(0, 1)  # a cancel is noticed here: the worker stops before anything is built or written
        reached.append(True)
        return real(plan, progress)

    monkeypatch.setattr(export_module.ExportPlan, "build", slow)
    target = tmp_path / "results.zip"
    before = set(tmp_path.iterdir())
    assert window.rating is not None
    outcome: list[bool] = []
    window.rating.exporter.finished.connect(outcome.append)
    assert window.rating.export_to(target)
    assert gate.entered.wait(WAIT_MS / 1000)
    set_all_scores_by_keyboard(qtbot, window, "2")  # rating goes on while the export is written
    qtbot.mouseClick(cancel_button(qtbot, window, "Cancel export"), Qt.MouseButton.LeftButton)
    assert outcome == [False] and "nothing was written" in window.statusBar().currentMessage()
    gate.release.set()
    qtbot.waitUntil(lambda: not window.workers.busy, timeout=WAIT_MS)
    qtbot.wait(100)
    assert reached == [] and set(tmp_path.iterdir()) == before  # no file, no temporary file
    monkeypatch.undo()
    assert export_and_wait(qtbot, window, target) and target.exists()


def test_closing_the_window_while_a_bundle_opens_stops_the_work_and_frees_the_data_folder(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path, slow_open: Gate
) -> None:
    window = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    window.open_bundle_path(bundle_dir)
    assert slow_open.entered.wait(WAIT_MS / 1000)
    threading.Timer(0.2, slow_open.release.set).start()  # the read ends a moment after the close began
    window.close()
    assert not window.lock.held and not window.workers.busy
    assert window.workers.pool.activeThreadCount() == 0


HUNG_READ = """
import sys, threading
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from wmcdp_desktop.rater.app import jobs, main as app_module
from wmcdp_desktop.rater.app.bundle import opening as bundle_opening

jobs.SHUTDOWN_WAIT_MS = 300
bundle_opening.open_bundle = lambda path: threading.Event().wait()  # a network drive that never answers
qapp = QApplication([])
QTimer.singleShot(1500, lambda: [w.close() for w in QApplication.topLevelWidgets() if w.isWindow()])
print("exit", app_module.main([sys.argv[1], "--data-dir", sys.argv[2], "--rater", "R01"]), flush=True)
"""


def test_a_read_that_never_ends_does_not_keep_the_app_or_its_lock_alive(bundle_dir: Path, data_dir: Path) -> None:
    """The rater quits while the bundle's drive hangs: the process ends (Qt would wait for the hung worker
    thread for ever) and the data folder can be opened again at once."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-c", HUNG_READ, str(bundle_dir), str(data_dir)],
                          capture_output=True, text=True, timeout=60, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    from wmcdp_desktop.rater.storage import InstanceLock

    with InstanceLock(data_dir):  # free: not held by a lingering process
        pass
