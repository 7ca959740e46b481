"""A big bundle's files are checked in a process of its own (a check on a thread of the app holds the
interpreter lock the window's thread needs): what it finds still reaches the rating page's banner, Stop
checking ends the process, a process that dies or cannot start is said in plain words or replaced by the
check on a thread, and the standalone program's entry script hands the check over before Qt is imported.

The size from which a process is used is lowered to 0 here, so the small test bundle takes that path."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from tests.rater.app.window_helpers import open_and_wait
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.rater import bundle_check
from wmcdp_desktop.rater.app.bundle import checking
from wmcdp_desktop.rater.app.window.main_window import MainWindow

WAIT_MS = 20_000
REPO = Path(__file__).resolve().parents[4]


@pytest.fixture(autouse=True)
def _every_bundle_checked_in_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checking, "PROCESS_FROM_FILES", 0)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _opened(qtbot: Any, make_window: Callable[..., MainWindow], bundle: Path, data_dir: Path) -> MainWindow:
    window = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    assert open_and_wait(qtbot, window, bundle)  # waits for the check too
    assert window.rating is not None
    return window


def test_a_damaged_task_found_by_the_check_process_is_named_in_the_banner(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    task = bundle_dir / "tasks" / "T-0003.json"
    task.write_bytes(task.read_bytes().replace(b"Sam", b"Tom"))  # changed after the bundle was built
    window = _opened(qtbot, make_window, bundle_dir, data_dir)
    checker = window.rating.checker  # type: ignore[union-attr]
    assert checker.process_id is not None and checker.process_id != os.getpid()  # not the app's process
    assert checker.problems is not None and len(checker.problems) == 1
    banner = window.page.notice_text  # type: ignore[union-attr]
    assert banner.isVisible() and "T-0003.json" in banner.text() and "SHA-256" in banner.text()
    assert window.messages == []
    qtbot.waitUntil(lambda: _gone(checker.process_id), timeout=WAIT_MS)  # type: ignore[arg-type]


def test_an_intact_bundle_checked_in_a_process_says_so(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    window = _opened(qtbot, make_window, bundle_dir, data_dir)
    checker = window.rating.checker  # type: ignore[union-attr]
    assert checker.process_id not in (None, os.getpid()) and checker.problems == []
    assert "every file is intact" in window.statusBar().currentMessage()
    assert not window.page.notice_banner.isVisible()  # type: ignore[union-attr]


def test_the_check_process_notices_bundle_json_changed_since_the_app_opened_it(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = bundle_check.check_in_process

    def changed_first(path: Path, sha256: str, progress: Any, **kw: Any) -> Any:
        manifest = bundle_dir / "bundle.json"
        manifest.write_bytes(manifest.read_bytes() + b"\n")  # a valid bundle.json, but not the one opened
        return real(path, sha256, progress, **kw)

    monkeypatch.setattr(bundle_check, "check_in_process", changed_first)
    window = _opened(qtbot, make_window, bundle_dir, data_dir)
    assert "changed on disk since it was opened" in window.page.notice_text.text()  # type: ignore[union-attr]


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="holds the check process with SIGSTOP")
def test_stop_checking_ends_the_check_process_and_nothing_is_reported(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    window = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    with qtbot.waitSignal(window.openingDone, timeout=WAIT_MS):
        window.open_bundle_path(bundle_dir)
    checker = window.rating.checker  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: checker.process_id is not None, timeout=WAIT_MS)
    pid = checker.process_id
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)  # the check holds still (a bundle on a slow network drive)

    def stop_button() -> QPushButton | None:
        return next((b for b in window.statusBar().findChildren(QPushButton)
                     if b.accessibleName() == "Stop checking" and b.isVisible()), None)

    qtbot.waitUntil(lambda: stop_button() is not None, timeout=WAIT_MS)
    with qtbot.waitSignal(checker.finished, timeout=WAIT_MS):
        qtbot.mouseClick(stop_button(), Qt.MouseButton.LeftButton)  # type: ignore[arg-type]
    assert "stopped" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: _gone(pid), timeout=WAIT_MS)  # killed (and waited for), though it was stopped
    qtbot.waitUntil(lambda: not window.workers.busy and window.workers.pool.activeThreadCount() == 0, timeout=WAIT_MS)
    assert checker.problems is None and not window.page.notice_banner.isVisible()  # type: ignore[union-attr]


def test_a_check_process_that_dies_is_said_in_plain_words(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dies = "import sys; sys.stderr.write('out of memory'); sys.exit(3)"
    monkeypatch.setattr(bundle_check, "worker_command", lambda: [sys.executable, "-c", dies])
    window = _opened(qtbot, make_window, bundle_dir, data_dir)
    text = window.page.notice_text.text()  # type: ignore[union-attr]
    assert "could not be checked again" in text and "exit status 3" in text and "out of memory" in text
    assert "Traceback" not in text and window.messages == []
    assert window.session is not None and window.session.current_id == "T-0001"  # rating goes on


def test_a_stray_line_from_the_check_process_is_not_taken_for_its_answer(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chatty = ("import sys; sys.stdout.write('a library says hello\\n[1, 2]\\n'); sys.stdout.flush(); "
              "from wmcdp_desktop.rater.bundle_check import serve; raise SystemExit(serve(sys.stdin.buffer, sys.stdout.buffer))")
    monkeypatch.setattr(bundle_check, "worker_command", lambda: [sys.executable, "-c", chatty])
    window = _opened(qtbot, make_window, bundle_dir, data_dir)
    checker = window.rating.checker  # type: ignore[union-attr]
    assert checker.problems == [] and "every file is intact" in window.statusBar().currentMessage()


def test_without_a_process_the_bundle_is_checked_on_a_thread_of_the_app(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path,
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    monkeypatch.setattr(bundle_check, "worker_command", lambda: [str(tmp_path / "no-such-program")])
    task = bundle_dir / "tasks" / "T-0003.json"
    task.write_bytes(task.read_bytes().replace(b"Sam", b"Tom"))
    window = _opened(qtbot, make_window, bundle_dir, data_dir)
    checker = window.rating.checker  # type: ignore[union-attr]
    assert checker.process_id is None and checker.problems is not None and len(checker.problems) == 1
    assert "T-0003.json" in window.page.notice_text.text()  # type: ignore[union-attr]


def test_the_standalone_entry_script_checks_a_bundle_before_importing_qt(bundle_dir: Path) -> None:
    """What the frozen program runs for ``--check-bundle-files``: the check, with no window and no Qt."""
    sha = open_bundle(bundle_dir).manifest_sha256
    code = (
        "import runpy, sys; sys.argv = ['wmcdp-desktop', '--check-bundle-files']; "
        f"runpy.run_path({str(REPO / 'packaging' / 'launch_desktop.py')!r}, run_name='__main__')"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    request = json.dumps({"path": str(bundle_dir), "manifest_sha256": sha}) + "\n"
    with subprocess.Popen([sys.executable, "-X", "importtime", "-c", code], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as proc:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        proc.stdin.write(request.encode())
        proc.stdin.flush()  # kept open, as the app keeps it: the process ends when it closes
        answers = [json.loads(proc.stdout.readline())]
        while "done" in answers[-1]:
            answers.append(json.loads(proc.stdout.readline()))
        proc.stdin.close()
        errors = proc.stderr.read().decode()
        proc.wait(timeout=120)
    assert proc.returncode == 0, errors[-2000:]
    assert answers[-1] == {"problems": [], "changed": False}
    assert answers[-2]["done"] == answers[-2]["total"] > 0
    assert "PySide6" not in errors  # -X importtime lists every module imported
