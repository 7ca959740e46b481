"""Fixtures for the rater app UI tests (pytest-qt, offscreen): a small folder bundle, a fake clock,
and windows built through the real ``create_main_window``.

Nothing here may block or leave the test machine: file dialogs, modal dialogs and link opening fail the
test if reached; the default data folder points into the test's tmp folder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from PySide6.QtWidgets import QWidget

from tests.rater.app.window_helpers import guard_the_machine, wait_opened
from wmcdp_desktop.rater.app import main as app_module
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.timing import FakeClock

W = TypeVar("W", bound=QWidget)


@pytest.fixture(autouse=True)
def _no_escape(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    guard_the_machine(monkeypatch, tmp_path)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def make_window(qtbot: Any, clock: FakeClock) -> Iterator[Callable[..., MainWindow]]:
    made: list[MainWindow] = []

    def make(argv: list[str], *, show: bool = True) -> MainWindow:
        window = app_module.create_main_window(argv, clock=clock)
        assert isinstance(window, MainWindow)
        qtbot.addWidget(window)
        made.append(window)
        wait_opened(qtbot, window)
        if show:
            window.show()
            qtbot.waitExposed(window)
            window.activateWindow()
            qtbot.waitUntil(window.isActiveWindow, timeout=2000)
        return window

    yield make
    for w in made:
        w.shutdown()


@pytest.fixture
def start_app(qtbot: Any) -> Iterator[Callable[[list[str]], MainWindow]]:
    """Start the app as ``wmcdp-desktop`` does (``main.start``: the bare window shown at once, the rest built in
    the event loop); the windows are shut down after the test (their data folders' locks released)."""
    started: list[MainWindow] = []

    def start(argv: list[str]) -> MainWindow:
        window = app_module.start(argv)
        qtbot.addWidget(window)
        started.append(window)
        return window

    yield start
    for window in started:
        window.shutdown()


@pytest.fixture
def window(make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path) -> MainWindow:
    return make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
