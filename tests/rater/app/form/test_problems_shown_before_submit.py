"""A submit the form refuses shows its first problem in view, and the summary of problems follows the fixes."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QPlainTextEdit, QScrollArea, QWidget

from tests.rater.app.window_helpers import (
    by_name,
    rows,
    set_all_scores_by_keyboard,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def in_view(area: QScrollArea, widget: QWidget) -> bool:
    """True when all of ``widget`` is inside the scroll area's visible part."""
    inner = area.widget()
    top = widget.mapTo(inner, QPoint(0, 0)).y() - area.verticalScrollBar().value()
    return widget.isVisible() and top >= 0 and top + widget.height() <= area.viewport().height()


def test_a_failed_submit_shows_the_first_message_in_view(qtbot: Any, window: MainWindow) -> None:
    """Only the rationale is missing: its box gets the focus and its message (below it) is scrolled into view."""
    assert window.page is not None
    form = window.page.form
    set_all_scores_by_keyboard(qtbot, window, "3")
    form.scroll_area.verticalScrollBar().setValue(0)
    submit_by_keyboard(qtbot, window)
    rationale = by_name(window, QPlainTextEdit, "Brief rationale (required)")
    message = form.notes.problems["clinician_notes.brief_rationale"]
    assert window.focusWidget() is rationale
    assert "rationale" in message.text().lower()
    assert form.tabs.currentWidget() is form.notes_page  # its page is shown
    qtbot.waitUntil(lambda: in_view(form.notes_page, message) and in_view(form.notes_page, rationale), timeout=2000)


def test_the_problem_summary_follows_the_fixes(qtbot: Any, window: MainWindow) -> None:
    assert window.page is not None
    form = window.page.form
    set_all_scores_by_keyboard(qtbot, window, "3", skip=rows(window)[0].dim.id)
    submit_by_keyboard(qtbot, window)
    assert "2 things to fix" in form.summary.text()  # the first score and the rationale
    first = rows(window)[0]
    first.slider.setFocus()
    qtbot.keyClick(first.slider, Qt.Key.Key_4)
    assert first.problem.isHidden()
    assert "1 thing left to fix" in form.summary.text() and not form.summary.isHidden()
    type_rationale(qtbot, window)
    assert form.summary.isHidden() and form.summary.text() == ""
