"""Qt helpers of the suite (imported only by the UI tests and the UI fixtures in conftest.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QTextDocument
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox


def guard(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Fail the test if a URL is opened, a resource loaded (Python-level), or a blocking dialog shown;
    point the default data folder into the test's tmp folder."""
    from wmcdp_desktop.rater.app import main as app_module

    def never_open(url: QUrl) -> bool:
        pytest.fail(f"QDesktopServices.openUrl was called with {url.toString()!r}")

    def never_load(self: Any, kind: int, url: QUrl) -> Any:
        pytest.fail(f"a resource was loaded: {url.toString()!r}")

    def no_dialog(*args: Any, **kwargs: Any) -> Any:
        pytest.fail("a blocking dialog was opened in a test")

    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(never_open))
    monkeypatch.setattr(QTextDocument, "loadResource", never_load)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(no_dialog))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(no_dialog))
    monkeypatch.setattr(QMessageBox, "question", staticmethod(no_dialog))  # modal: would wait for a click forever
    monkeypatch.setattr(app_module, "default_data_dir", lambda: tmp_path / "default-data")


def close_message_boxes() -> None:
    for w in QApplication.topLevelWidgets():
        if isinstance(w, QMessageBox):
            w.close()


def spin_until(done: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    """Run the event loop until ``done()`` (the window works off the GUI thread: opening, exporting)."""
    end = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < end, f"gave up waiting for {what}"
        QApplication.processEvents()
        time.sleep(0.001)


def wait_opened(window: Any) -> None:
    """Wait until the window is not opening a bundle any more (opened, refused or cancelled), and for the
    background check of the bundle's files (its message, if any, is in)."""
    spin_until(lambda: not window.opening, "the bundle to open")
    spin_until(lambda: window.rating is None or not window.rating.checker.busy, "the bundle check")


def open_and_wait(window: Any, path: Path) -> bool:
    """Open ``path`` as File > Open does; True when a bundle is open afterwards."""
    window.open_bundle_path(path)
    wait_opened(window)
    return window.session is not None


def export_and_wait(window: Any, path: Path) -> bool:
    """Export the results to ``path`` and wait for the outcome; True when the file was written."""
    outcome: list[bool] = []
    exporter = window.rating.exporter
    exporter.finished.connect(outcome.append)
    try:
        window.rating.export_to(path)
        spin_until(lambda: bool(outcome), "the export to finish")
    finally:
        exporter.finished.disconnect(outcome.append)
    return outcome[0]
