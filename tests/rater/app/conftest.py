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
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from tests.kit.bundles import make_bundle
from tests.rater.app.window_helpers import wait_opened
from wmcdp_desktop.rater.app import main as app_module
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.app.window.rater_dialog import RaterDialog
from wmcdp_desktop.rater.timing import FakeClock

W = TypeVar("W", bound=QWidget)


@pytest.fixture(autouse=True)
def _no_escape(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def never_open(url: QUrl) -> bool:
        pytest.fail(f"QDesktopServices.openUrl was called with {url.toString()!r}")

    def no_dialog(*args: Any, **kwargs: Any) -> Any:
        pytest.fail("a blocking dialog was opened in a test")

    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(never_open))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(no_dialog))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(no_dialog))
    monkeypatch.setattr(QMessageBox, "question", staticmethod(no_dialog))  # modal: would wait for a click forever
    monkeypatch.setattr(RaterDialog, "exec", lambda self: pytest.fail("the rater dialog was opened in a test"))
    monkeypatch.setattr(app_module, "default_data_dir", lambda: tmp_path / "default-data")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def bundle_dir(tmp_path: Path, sample_docs: Any) -> Path:
    return make_bundle(tmp_path / "bundle", sample_docs)


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
def window(make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path) -> MainWindow:
    return make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
