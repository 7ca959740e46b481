"""The window's keyboard shortcuts: moving between tasks, saving, finding, the text size."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QLineEdit,
)

from tests.rater.app.window_helpers import (
    CTRL,
    by_name,
    rows,
)
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_keyboard_shortcuts_navigation_save_find_and_font(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    argv = [str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"]
    window = make_window(argv)
    assert window.page is not None and window.session is not None
    focus = window.page.task_view.scenario
    focus.setFocus()
    qtbot.keyClick(focus, Qt.Key.Key_PageDown, CTRL)
    assert window.session.current_id == "T-0002"
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_PageUp, CTRL)
    assert window.session.current_id == "T-0001"
    rows(window)[0].slider.setFocus()
    qtbot.keyClick(rows(window)[0].slider, Qt.Key.Key_3)
    qtbot.keyClick(rows(window)[0].slider, Qt.Key.Key_S, CTRL)
    assert (data_dir / "bundles/B-test/R01/drafts/T-0001.json").exists()  # saved at once
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_F, CTRL)
    find = by_name(window, QLineEdit, "Find in scenario and response")
    assert window.focusWidget() is find
    qtbot.keyClicks(find, "door")
    qtbot.keyClick(find, Qt.Key.Key_Return)
    selected = [v.textCursor().selectedText() for v in (window.page.task_view.scenario, window.page.task_view.response)]
    assert "door" in selected
    size = QApplication.font().pointSize()
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_Equal, CTRL)
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_Equal, CTRL)
    assert QApplication.font().pointSize() == size + 2
    assert window.page.task_view.response.font().pointSize() == size + 2
    window.close()
    again = make_window(argv)
    assert again.font().pointSize() == size + 2  # remembered
