"""The active time of a task in the window, with a fake clock: idle, minimised, paused and resumed; the idle
timeout is configurable and remembered."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QPushButton,
)

from tests.rater.app.window_helpers import (
    by_name,
)
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.timing import FakeClock


def test_time_with_a_fake_clock_idle_minimise_pause_resume(
    qtbot: Any, window: MainWindow, clock: FakeClock
) -> None:
    assert window.page is not None and window.session is not None
    view = window.page.task_view.scenario

    def work(seconds: int, *, typing: bool = True) -> None:
        for _ in range(seconds):
            clock.advance(1)
            if typing:
                qtbot.keyClick(view, Qt.Key.Key_Down)
            window.rating.tick()

    work(10)
    assert window.session.task_seconds() == 10
    work(200, typing=False)  # reading without touching anything: stops after the idle timeout
    assert window.session.task_seconds() == 130
    assert "no activity" in window.page.form.timer.label.text()
    work(5)  # the first second after the idle pause is not counted: input restarts the clock
    assert window.session.task_seconds() == 134
    window.showMinimized()
    qtbot.waitUntil(lambda: window.session is not None and window.session.tracker.status() == "inactive")
    work(50)
    assert window.session.task_seconds() == 134
    window.showNormal()
    window.activateWindow()
    qtbot.waitUntil(lambda: window.session is not None and window.session.tracker.status() == "counting")
    work(5)
    assert window.session.task_seconds() == 139
    pause = by_name(window, QPushButton, "Pause timer")
    qtbot.mouseClick(pause, Qt.MouseButton.LeftButton)
    work(20)
    assert window.session.task_seconds() == 139 and "paused" in window.page.form.timer.label.text()
    qtbot.mouseClick(by_name(window, QPushButton, "Resume timer"), Qt.MouseButton.LeftButton)
    work(3)
    assert window.session.task_seconds() == 142
    clock.sleep_system(3600)  # the laptop sleeps: nothing counted
    window.rating.tick()
    work(2)
    assert window.session.task_seconds() == 143
    assert window.status_bar.session_label.text() == "Session: 0:02:23"


def test_idle_timeout_is_configurable_and_remembered(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path,
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from PySide6.QtWidgets import QInputDialog

    argv = [str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"]
    window = make_window(argv)
    monkeypatch.setattr(QInputDialog, "getInt", staticmethod(lambda *a, **k: (30, True)))
    action = next(a for a in window.menu.menus["&Settings"].actions() if a.text() == "&Idle timeout…")
    action.trigger()
    assert window.session is not None
    for _ in range(100):  # no input
        clock.advance(1)
        window.rating.tick()
    assert window.session.task_seconds() == 30
    window.close()
    again = make_window(argv)
    assert again.session is not None and again.session.tracker.idle_timeout == 30
