"""Down on a severity box chooses the next severity in place: the list does not open (on some desktops it
did, and the evidence note typed next went into the open list and was lost); Alt+Down, F4 or a click open
it (not tried here: the offscreen platform cannot grab the keyboard for a popup)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, Qt

from tests.rater.app.window_helpers import show_page
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_down_then_tab_then_typing_keeps_the_note(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.page is not None and window.session is not None
    show_page(window, "Failure modes")
    row = next(iter(window.page.form.failure_modes.rows.values()))
    qtbot.mouseClick(row.check, Qt.MouseButton.LeftButton, pos=QPoint(10, row.check.height() // 2))
    row.severity.setFocus()
    qtbot.keyClick(row.severity, Qt.Key.Key_Down)
    assert not row.severity.view().isVisible()
    first = row.severity.currentIndex()
    assert first == 0
    qtbot.keyClick(row.severity, Qt.Key.Key_Down)
    qtbot.keyClick(row.severity, Qt.Key.Key_Down)
    qtbot.keyClick(row.severity, Qt.Key.Key_Up)
    assert row.severity.currentIndex() == 1 and not row.severity.view().isVisible()
    assert window.session.current is not None
    severity = window.session.current.fm(row.fm.id).severity
    assert severity == row.severity.itemData(1)
    row.note.setFocus()
    qtbot.keyClicks(row.note, "offers the reassurance")
    assert window.session.current.fm(row.fm.id).note == "offers the reassurance"
