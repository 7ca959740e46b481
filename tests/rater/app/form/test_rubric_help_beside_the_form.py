"""The rubric help opens beside the form, not instead of it, stays open while rating, and follows the
dimension or failure mode in focus (issue 16). It is written when first opened (not for the first paint)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QPushButton

from tests.rater.app.window_helpers import by_name, rows, show_page
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def _first_line_shown(window: MainWindow) -> str:
    assert window.page is not None
    view = window.page.help
    return view.cursorForPosition(QPoint(4, 4)).block().text()


def _lines_shown(window: MainWindow) -> list[str]:
    """The paragraphs of the help in view (the last ones can only scroll up to the end of the text)."""
    assert window.page is not None
    view = window.page.help
    block = view.cursorForPosition(QPoint(4, 4)).block()
    last = view.cursorForPosition(QPoint(4, view.viewport().height() - 4)).block().blockNumber()
    out = []
    while block.isValid() and block.blockNumber() <= last:
        out.append(block.text())
        block = block.next()
    return out


def test_help_opens_beside_the_form_and_follows_the_focus(qtbot: Any, window: MainWindow) -> None:
    page = window.page
    assert page is not None
    window.resize(1424, 852)  # the app's window on a 1440x900 screen
    assert page.help.toPlainText() == "" and not page.help_open()  # not written for the first paint
    rows(window)[0].slider.setFocus()
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_F1)
    assert page.help_open() and page.help.isVisible()
    assert page.form.isVisible() and page.form.width() > 300  # beside the form, not instead of it
    assert page.help_panel.width() >= 240
    # named apart from the "Rubric help" button; no buddy label (Orca reads a text's label instead of its name)
    assert page.help.accessibleName() == "Rubric help text" and page.help_panel.title.buddy() is None
    assert _first_line_shown(window) == rows(window)[0].dim.label
    for row in rows(window)[3:6]:
        row.slider.setFocus()  # rating goes on with the help open
        qtbot.keyClicks(row.slider, "4")
        assert _first_line_shown(window) == row.dim.label
        assert page.help_open()
    show_page(window, "Failure modes")
    fm_row = list(page.form.failure_modes.rows.values())[2]
    fm_row.check.setFocus()
    assert fm_row.fm.label in _lines_shown(window)
    assert rows(window)[5].dim.label not in _lines_shown(window)
    text = page.help.toPlainText()
    assert "leave the others unticked" in text and "“none”" not in text  # one wording with the form
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_F1)
    assert not page.help_open()
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_F1)
    assert page.help.toPlainText() == text  # written once
    qtbot.mouseClick(by_name(window, QPushButton, "Close rubric help"), Qt.MouseButton.LeftButton)
    assert not page.help_open()
    button = by_name(window, QPushButton, "Rubric help")
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert page.help_open() and button.isChecked()
