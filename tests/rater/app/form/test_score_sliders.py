"""The score sliders: unset until the rater sets one (and submit blocked until then), unset again on request, N/A
only where the rubric allows it, the anchors in view on focus, the mouse wheel never changes a score; N/A hides the handle and unticking it
brings the score back; a digit off the scale is explained, not silently ignored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import (
    QApplication,
)

from tests.rater.app.window_helpers import (
    click_check,
    record_files,
    rows,
    set_all_scores_by_keyboard,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.rater.app.form.sliders import NOT_SET, ScoreSlider
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_submit_is_blocked_while_a_slider_is_unset(qtbot: Any, window: MainWindow, data_dir: Path) -> None:
    set_all_scores_by_keyboard(qtbot, window, "4", skip="WM-RUB-006")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    assert record_files(data_dir) == []
    assert window.page is not None
    row = window.page.form.rubric.rows["WM-RUB-006"]
    assert row.problem.isVisible() and "not set" in row.problem.text().lower()
    assert all(not r.problem.isVisible() for r in rows(window) if r is not row)
    assert window.focusWidget() is row.slider
    assert window.page.form.summary.isVisible()
    qtbot.keyClick(row.slider, Qt.Key.Key_5)
    assert not row.problem.isVisible()
    submit_by_keyboard(qtbot, window)
    assert len(record_files(data_dir)) == 1


def test_unset_slider_looks_different_and_can_be_unset_again(qtbot: Any, window: MainWindow) -> None:
    row = rows(window)[0]
    unset = row.slider.grab().toImage()
    qtbot.keyClick(row.slider, Qt.Key.Key_1) if row.slider.setFocus() is None else None
    assert row.value() == 1 and row.value_label.text().startswith("1 · ")
    set_at_min = row.slider.grab().toImage()
    assert unset != set_at_min  # the handle is drawn only once a value is set
    qtbot.keyClick(row.slider, Qt.Key.Key_Delete)
    assert row.value() is None and row.value_label.text() == NOT_SET
    assert window.session is not None and window.session.current is not None
    assert row.dim.id not in window.session.current.scores


def test_na_only_where_the_rubric_allows_it(qtbot: Any, window: MainWindow) -> None:
    assert window.session is not None
    with_na = {r.dim.id for r in rows(window) if r.na is not None}
    assert with_na == {d.id for d in window.session.rubric.dimensions if d.allow_na} == {"WM-RUB-005"}
    row = window.page.form.rubric.rows["WM-RUB-005"]  # type: ignore[union-attr]
    click_check(qtbot, row.na)  # type: ignore[arg-type]
    assert window.session.current is not None and window.session.current.scores["WM-RUB-005"] == "N/A"
    click_check(qtbot, row.na)  # type: ignore[arg-type]
    assert "WM-RUB-005" not in window.session.current.scores


def test_slider_class_reports_no_value_until_set(qtbot: Any, window: MainWindow) -> None:
    slider = rows(window)[2].slider
    assert isinstance(slider, ScoreSlider) and slider.score() is None
    slider.setFocus()
    qtbot.keyClick(slider, Qt.Key.Key_9)  # outside the scale: ignored
    assert slider.score() is None
    qtbot.keyClick(slider, Qt.Key.Key_Left)  # unset + Left = the highest level
    assert slider.score() == 5


def test_anchors_in_view_whole_on_focus_all_on_hover(qtbot: Any, window: MainWindow) -> None:
    row = rows(window)[0]
    assert window.page is not None
    window.page.task_view.response.setFocus()  # (a task opens with the focus on its first score)
    qtbot.waitUntil(lambda: not row.anchors.expanded)
    assert row.anchors.isVisible() and not row.anchors.expanded  # always in view, one line
    row.slider.setFocus()
    qtbot.waitUntil(lambda: row.anchors.expanded)  # whole while the row has the focus
    assert "1 – " in row.slider.toolTip() and "5 – " in row.slider.toolTip()  # every anchor on hover
    assert row.dim.description in row.slider.toolTip() and row.dim.scale.anchors[0].text in row.label.toolTip()
    rows(window)[1].slider.setFocus()
    qtbot.waitUntil(lambda: not row.anchors.expanded)


def test_scrolling_the_form_with_the_wheel_never_changes_a_score(qtbot: Any, window: MainWindow) -> None:
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QWheelEvent

    assert window.page is not None
    row = rows(window)[0]
    confidence = window.page.form.notes.confidence
    for target in (row.slider, confidence):
        pos = QPointF(target.width() / 2, target.height() / 2)
        event = QWheelEvent(
            pos, target.mapToGlobal(pos), QPoint(0, 0), QPoint(0, -120),
            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False,
        )
        QApplication.sendEvent(target, event)
        assert not event.isAccepted()  # left to the scroll area, which scrolls the page
    assert row.value() is None and confidence.currentIndex() == -1
    assert window.session is not None and window.session.current is not None
    assert window.session.current.scores == {} and window.session.current.confidence is None


def test_na_hides_the_slider_handle_and_unticking_brings_the_score_back(qtbot: Any, window: MainWindow) -> None:
    """With N/A ticked, an earlier score must not look recorded: the slider is drawn like an unset one."""
    row = next(r for r in rows(window) if r.na is not None)
    assert row.na is not None
    row.slider.setFocus()
    qtbot.keyClick(row.slider, Qt.Key.Key_3)
    assert window.page is not None
    window.page.task_list.list.setFocus()  # compare pictures without a focus frame
    with_score = row.slider.grab().toImage()
    row.na.setChecked(True)
    assert row.value() == "N/A" and not row.slider.isEnabled()
    na_image = row.slider.grab().toImage()
    row.na.setChecked(False)
    assert row.value() == 3 and row.slider.grab().toImage() == with_score
    row.slider.set_score(None)
    row.slider.setEnabled(False)
    assert na_image == row.slider.grab().toImage()  # exactly like an unset (disabled) slider: no handle
    assert na_image != with_score


def test_a_digit_off_the_scale_is_explained_not_silently_ignored(qtbot: Any, window: MainWindow) -> None:
    row = rows(window)[0]
    lo, hi = row.dim.scale.min, row.dim.scale.max
    assert hi < 9
    row.slider.setFocus()
    qtbot.keyClick(row.slider, Qt.Key.Key_9)
    assert row.value() is None
    assert not row.problem.isHidden() and f"9 is not on this scale: type {lo} to {hi}." in row.problem.text()
    qtbot.keyClick(row.slider, Qt.Key.Key_0 + hi)  # type: ignore[operator]
    assert row.value() == hi and row.problem.isHidden()
