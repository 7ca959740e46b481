"""Drafts in the window: autosaved at most a second behind the typing, restored exactly by a new window and after a
kill (the instance lock recovered), and a failed write says so plainly, keeps the rating, and Retry saves; the save status after a restore and the times
are in local time."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import (
    QPlainTextEdit,
    QPushButton,
)

from tests.kit.faults import Faults
from tests.rater.app.window_helpers import (
    CTRL,
    by_name,
    click_check,
    rows,
    set_all_scores_by_keyboard,
    show_page,
    type_rationale,
)
from wmcdp_desktop.core import atomic
from wmcdp_desktop.core.errors import AlreadyRunningError
from wmcdp_desktop.rater.app import main as app_module
from wmcdp_desktop.rater.app.form.timer import local_time
from wmcdp_desktop.rater.app.text.i18n import format_datetime
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.timing import FakeClock


def test_autosave_then_a_new_window_restores_the_draft_exactly(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path, clock: FakeClock
) -> None:
    argv = [str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"]
    window = make_window(argv)
    assert window.page is not None and window.session is not None
    rows(window)[1].slider.setFocus()
    qtbot.keyClick(rows(window)[1].slider, Qt.Key.Key_2)
    for _ in range(30):  # 30 s of active work
        clock.advance(1)
        qtbot.keyClick(window.page.task_view.scenario, Qt.Key.Key_Down)
    fm_row = window.page.form.failure_modes.rows["WM-FM-SHAMING"]
    click_check(qtbot, fm_row.check)
    type_rationale(qtbot, window, "half done")
    draft = data_dir / "bundles/B-test/R01/drafts/T-0001.json"
    qtbot.waitUntil(lambda: draft.exists() and "half done" in draft.read_text(encoding="utf-8"), timeout=1500)
    assert window.status_bar.save_label.text().startswith("All changes saved")
    saved = json.loads(draft.read_text(encoding="utf-8"))
    assert saved["active_seconds"] == 30
    # crash: no orderly close (the OS releases the lock); a new window restores everything
    window.shutdown()
    again = make_window(argv)
    assert again.session is not None and again.session.current_id == "T-0001"
    assert again.session.state("T-0001") == "draft"
    assert rows(again)[1].value() == 2 and all(r.value() is None for i, r in enumerate(rows(again)) if i != 1)
    assert again.page is not None
    assert again.page.form.failure_modes.rows["WM-FM-SHAMING"].check.isChecked()
    show_page(again, "Notes")
    assert by_name(again, QPlainTextEdit, "Brief rationale (required)").toPlainText() == "half done"
    assert again.session.task_seconds() == 30
    assert "0:00:30" in again.page.form.timer.label.text()


def test_autosave_is_at_most_a_second_behind_even_while_typing(
    qtbot: Any, window: MainWindow, data_dir: Path
) -> None:
    import time

    draft = data_dir / "bundles/B-test/R01/drafts/T-0001.json"
    show_page(window, "Notes")
    edit = by_name(window, QPlainTextEdit, "Brief rationale (required)")
    edit.setFocus()
    started = time.monotonic()
    saved_after: float | None = None
    for ch in "steady typing":  # a key every 150 ms, never pausing long enough for a plain debounce
        qtbot.keyClicks(edit, ch)
        qtbot.wait(150)
        if saved_after is None and draft.exists():
            saved_after = time.monotonic() - started
    assert saved_after is not None and saved_after <= 1.6  # typing went on for about 2 s
    qtbot.waitUntil(lambda: "steady typing" in draft.read_text(encoding="utf-8"), timeout=1500)


def test_failed_write_shows_a_plain_message_keeps_the_rating_and_retry_works(
    qtbot: Any, window: MainWindow, monkeypatch: pytest.MonkeyPatch, faults: Faults, data_dir: Path
) -> None:
    assert window.page is not None and window.session is not None

    def read_only(src: Any, dst: Any) -> None:
        raise PermissionError(13, "Permission denied")

    faults.inject(replace=read_only)
    monkeypatch.setattr(atomic, "REPLACE_RETRY_DELAY", 0.0)
    type_rationale(qtbot, window, "kept in memory")
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_S, CTRL)
    banner = window.page.save_banner
    assert banner.isVisible() and "read-only or the file is locked" in window.page.save_text.text()
    assert "Retry" in window.page.save_text.text()
    assert not (data_dir / "bundles/B-test/R01/drafts/T-0001.json").exists()
    assert window.session.current is not None and window.session.current.notes["brief_rationale"] == "kept in memory"
    faults.clear()
    qtbot.mouseClick(by_name(window, QPushButton, "Retry saving"), Qt.MouseButton.LeftButton)
    assert not banner.isVisible()
    assert "kept in memory" in (data_dir / "bundles/B-test/R01/drafts/T-0001.json").read_text(encoding="utf-8")


CRASHER = """
import sys
from PySide6.QtWidgets import QApplication
from wmcdp_desktop.rater.app.main import create_main_window
app = QApplication([])
w = create_main_window([sys.argv[1], "--data-dir", sys.argv[2], "--rater", "R01"])
w.show()
while w.opening:
    app.processEvents()
w.session.set_score("WM-RUB-003", 4)
w.session.set_note("brief_rationale", "typed before the crash")
w.rating.save_now()
print("saved", flush=True)
sys.stdin.readline()
"""


def test_after_a_kill_the_lock_is_recovered_and_the_draft_restored(
    make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    import os
    import signal
    import subprocess
    import sys

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    with subprocess.Popen(
        [sys.executable, "-c", CRASHER, str(bundle_dir), str(data_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    ) as proc:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "saved"
        with pytest.raises(AlreadyRunningError):  # while it runs: refused
            app_module.create_main_window(["--data-dir", str(data_dir)])
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.session is not None and window.session.state("T-0001") == "draft"
    assert window.page is not None and window.page.form.rubric.rows["WM-RUB-003"].value() == 4
    show_page(window, "Notes")
    assert by_name(window, QPlainTextEdit, "Brief rationale (required)").toPlainText() == "typed before the crash"


def test_save_status_after_restoring_a_draft_and_times_in_local_time(
    qtbot: Any, make_window: Any, bundle_dir: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = [str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"]
    first = make_window(argv)
    assert first.status_bar.save_label.text() == "Nothing entered yet"
    set_all_scores_by_keyboard(qtbot, first, "3", skip=rows(first)[1].dim.id)
    assert first.rating.save_now()
    first.close()
    again = make_window(argv)
    assert again.session is not None and again.session.current is not None and again.session.current.scores
    assert again.status_bar.save_label.text() == "All changes saved"  # the restored draft is safe (not "nothing to save")
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    try:
        assert local_time("2026-11-29T23:45:40Z") == "00:45:40"
        for locale, date_time, clock_time in (
            ("en_US", "11/30/26 12:45\u202fAM", "12:45:40\u202fAM"),
            ("en_GB", "30/11/2026 00:45", "00:45:40"),
            ("es_ES", "30/11/26 0:45", "0:45:40"),
        ):  # as the app's locale writes them (the conftest puts the default locale back)
            QLocale.setDefault(QLocale(locale))
            assert (format_datetime("2026-11-29T23:45:40Z"), local_time("2026-11-29T23:45:40Z")) == (date_time, clock_time)
        assert local_time("not a time") == "not a time"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
