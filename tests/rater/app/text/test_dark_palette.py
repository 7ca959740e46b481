"""The form's problems stay readable in a dark palette."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QApplication,
)

from tests.rater.app.window_helpers import (
    rows,
)
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_problems_stay_readable_in_a_dark_palette(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    from PySide6.QtGui import QColor, QPalette

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    old = app.palette()
    dark = QPalette(old)
    dark.setColor(QPalette.ColorRole.Window, QColor("#202124"))
    dark.setColor(QPalette.ColorRole.WindowText, QColor("#e8eaed"))
    app.setPalette(dark)
    try:
        window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
        window.rating.submit()
        row = rows(window)[0]
        assert row.problem.isVisible()
        assert row.problem.palette().color(QPalette.ColorRole.WindowText).lightness() > 150
    finally:
        app.setPalette(old)
