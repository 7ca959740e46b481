"""A calibration task is not marked as one before submit; its feedback follows the submit, in view and focused."""

from __future__ import annotations

from typing import Any

from tests.rater.app.window_helpers import (
    all_text,
    set_all_scores_by_keyboard,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_calibration_is_not_marked_before_submit_and_feedback_follows(qtbot: Any, window: MainWindow) -> None:
    assert window.page is not None and window.session is not None
    window.rating.go_to("T-0002")
    assert "calibration" not in all_text(window, visible_only=True).lower()
    set_all_scores_by_keyboard(qtbot, window, "2")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    assert window.session.current_id == "T-0002"  # stays to show the feedback
    view = window.page.form.calibration
    assert view.isVisible()
    shown = view.text.toPlainText()
    assert "yours: 2   ·   adjudicated: 4–5   ·   ✗ differs" in shown
    assert "Validates the parent's fatigue." in shown


def test_after_a_calibration_submit_the_feedback_is_in_view_and_focused(qtbot: Any, window: MainWindow) -> None:
    assert window.page is not None and window.session is not None
    form = window.page.form
    window.rating.go_to("T-0002")
    set_all_scores_by_keyboard(qtbot, window, "2")
    type_rationale(qtbot, window)
    form.scroll_area.verticalScrollBar().setValue(form.scroll_area.verticalScrollBar().maximum())
    assert form.scroll_area.verticalScrollBar().value() > 0
    submit_by_keyboard(qtbot, window)
    assert window.session.current_id == "T-0002" and form.calibration.isVisible()
    assert form.scroll_area.verticalScrollBar().value() == 0
    assert window.focusWidget() is form.calibration.text
