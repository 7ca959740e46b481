"""The system's "open this file" event (``QFileOpenEvent``, a double-click in macOS's Finder) opens the bundle
it names; the app listens for it only on macOS, the one system that sends it, because listening is an
application-wide event filter that hands every event of the process to Python (20-50 ms before the first
paint: docs/PERFORMANCE.md, "Start-up and stalls")."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QFileOpenEvent
from PySide6.QtWidgets import QApplication

from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.app.window.outside import FileOpenEvents

WAIT_MS = 20_000


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS sends file open events")
def test_elsewhere_no_application_wide_filter_is_installed(
    qtbot: Any, data_dir: Path, start_app: Callable[[list[str]], MainWindow]
) -> None:
    window = start_app(["--data-dir", str(data_dir), "--rater", "R01"])
    qtbot.waitUntil(lambda: window.ready, timeout=WAIT_MS)
    assert window.findChildren(FileOpenEvents) == []


def test_the_listener_opens_the_bundle_a_file_open_event_names(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    """What macOS does on a double-click, sent here by hand: the event reaches the application, the
    listener hands the file to the window, and the bundle opens as File > Open opens it."""
    window = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    assert window.page is None
    app = QApplication.instance()
    assert app is not None
    listener = FileOpenEvents(window, app, window)
    QApplication.sendEvent(app, QFileOpenEvent(str(bundle_dir)))
    qtbot.waitUntil(lambda: window.page is not None, timeout=WAIT_MS)
    assert window.session is not None and Path(window.session.bundle.path).resolve() == bundle_dir.resolve()
    listener.deleteLater()
