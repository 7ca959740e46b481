"""Qt helpers of the suite (imported only by the UI tests and the UI fixtures in conftest.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox


def guard(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The window tests' guard (:func:`tests.rater.app.window_helpers.guard_the_machine`), resources included;
    the reliability drills answer the rater dialog themselves."""
    from tests.rater.app.window_helpers import guard_the_machine

    guard_the_machine(monkeypatch, tmp_path, rater_dialog=False, resources=True)


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
