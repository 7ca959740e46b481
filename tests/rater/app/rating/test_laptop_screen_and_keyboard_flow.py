"""Fixes from a hands-on QA pass in a real window (1366x768 laptop screen, keyboard only, larger text)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QLocale, QPoint, Qt
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QPlainTextEdit, QScrollArea, QWidget

from tests.rater.app.window_helpers import (
    CTRL,
    by_name,
    export_and_wait,
    open_and_wait,
    rows,
    set_all_scores_by_keyboard,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.rater.app.form.timer import local_time
from wmcdp_desktop.rater.app.text.accessible import is_read_only
from wmcdp_desktop.rater.app.text.i18n import format_datetime
from wmcdp_desktop.rater.app.widgets import fitted_size
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def in_view(area: QScrollArea, widget: QWidget) -> bool:
    """True when all of ``widget`` is inside the scroll area's visible part."""
    inner = area.widget()
    top = widget.mapTo(inner, QPoint(0, 0)).y() - area.verticalScrollBar().value()
    return widget.isVisible() and top >= 0 and top + widget.height() <= area.viewport().height()


def test_window_fits_the_screen_and_a_1366x768_laptop(window: MainWindow) -> None:
    free = window.screen().availableGeometry()
    assert fitted_size(window) == (min(1440, free.width() - 16), min(900, free.height() - 48))
    assert window.width() <= free.width() and window.height() <= free.height()
    hint = window.minimumSizeHint()  # the window can shrink to a laptop screen with a title bar
    assert hint.width() <= 1366 - 16 and hint.height() <= 768 - 48


def test_after_submit_the_next_task_starts_at_its_first_score(qtbot: Any, window: MainWindow) -> None:
    """Ctrl+Enter from the confidence box: the next task must not keep the focus on its (unseen) confidence box."""
    assert window.page is not None and window.session is not None
    set_all_scores_by_keyboard(qtbot, window, "3")
    type_rationale(qtbot, window)
    confidence = by_name(window, QComboBox, "Confidence in this rating")
    confidence.setFocus()
    qtbot.keyClick(confidence, Qt.Key.Key_Down)
    window.page.form.scroll_area.verticalScrollBar().setValue(window.page.form.scroll_area.verticalScrollBar().maximum())
    qtbot.keyClick(confidence, Qt.Key.Key_Return, CTRL)
    assert window.session.current_id == "T-0002"
    first = rows(window)[0].slider
    assert window.focusWidget() is first
    assert window.page.form.scroll_area.verticalScrollBar().value() == 0
    qtbot.keyClick(first, Qt.Key.Key_Down)  # lands on the visible first score, not the confidence box
    assert window.session.current is not None and window.session.current.confidence is None
    assert rows(window)[0].value() is not None


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


def test_text_size_reaches_headings_and_score_texts(qtbot: Any, window: MainWindow, bundle_dir: Path) -> None:
    """Larger/smaller text (Ctrl+= / Ctrl+-) also resizes headings (kept larger) and the score texts (not pinned)."""
    assert window.page is not None
    row = rows(window)[0]
    row.slider.setFocus()
    qtbot.keyClick(row.slider, Qt.Key.Key_3)  # the value text is restyled (a solid frame) at the current size
    for delta in (4, -6):
        window.change_font(delta)
        base = QApplication.font().pointSizeF()
        view = window.page.task_view
        assert view.heading.font().pointSizeF() == pytest.approx(base * 1.15) and view.heading.font().bold()
        assert view.response_title.font().pointSizeF() == pytest.approx(base * 1.1)
        assert row.value_label.font().pointSizeF() == pytest.approx(base) and row.value_label.font().bold()
        unset = rows(window)[1].value_label  # "Not set": bold in a dashed frame, never a faint italic
        assert unset.font().pointSizeF() == pytest.approx(base) and unset.font().bold() and unset.unset
        assert row.label.font().pointSizeF() == pytest.approx(base) and row.label.font().bold()
        title = next(w for w in window.welcome.findChildren(QLabel) if w.text() == "WM-CDP Desktop")
        assert title.font().pointSizeF() == pytest.approx(base * 1.8)
    # a bundle opened after the change (or with a remembered size) gets the same proportions
    window.close_bundle()
    assert open_and_wait(qtbot, window, bundle_dir) and window.page is not None
    base = QApplication.font().pointSizeF()
    assert window.page.task_view.heading.font().pointSizeF() == pytest.approx(base * 1.15)
    assert rows(window)[0].value_label.font().pointSizeF() == pytest.approx(base)


def test_tasks_are_named_by_domain_and_scenario(qtbot: Any, window: MainWindow) -> None:
    """Tasks read "1. OCD · reassurance" in the list (not only an opaque id): the opened one at once, the
    others in view a moment after the list shows (tests/rater/app/rating/test_task_list_titles.py: rows out of view)."""
    assert window.page is not None
    tasks = window.page.task_list
    assert tasks.row_text(0).startswith("1. OCD · reassurance\n")
    assert "T-0001" in (tasks.row_tooltip(0) or "")
    qtbot.waitUntil(lambda: tasks.row_text(1).startswith("2. OCD · reassurance\n"), timeout=3000)
    assert "T-0002" in (tasks.row_tooltip(1) or "")
    assert set(window.page.task_list.titles) == {"T-0001", "T-0002", "T-0003"}
    assert tasks.list.textElideMode() == Qt.TextElideMode.ElideRight  # a narrow list keeps number and domain
    meta = window.page.task_view.meta
    assert meta.text() == "Clinical domain: OCD    Scenario types: Reassurance"
    assert "WM-DOM-OCD" in meta.toolTip()
    window.rating.go_to("T-0002")
    assert tasks.row_text(1).startswith("2. OCD · reassurance\n")
    assert tasks.row_text(0).startswith("1. OCD · reassurance\n")


def test_save_status_after_restoring_a_draft_and_times_in_local_time(
    qtbot: Any, make_window: Any, bundle_dir: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = [str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"]
    first = make_window(argv)
    assert first.status_bar.save_label.text() == "Nothing entered yet"
    set_all_scores_by_keyboard(qtbot, first, "3", skip=rows(first)[1].dim.id)
    assert first.rating.save_now()
    first.close()
    again = make_window(argv)
    assert again.session is not None and again.session.current is not None and again.session.current.scores
    assert again.status_bar.save_label.text() == "All changes saved"  # the restored draft is safe (not "nothing to save")
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    try:
        assert local_time("2026-11-29T23:45:40Z") == "00:45:40"
        for locale, date_time, clock_time in (
            ("en_US", "11/30/26 12:45\u202fAM", "12:45:40\u202fAM"),
            ("en_GB", "30/11/2026 00:45", "00:45:40"),
            ("es_ES", "30/11/26 0:45", "0:45:40"),
        ):  # as the app's locale writes them (the conftest puts the default locale back)
            QLocale.setDefault(QLocale(locale))
            assert (format_datetime("2026-11-29T23:45:40Z"), local_time("2026-11-29T23:45:40Z")) == (date_time, clock_time)
        assert local_time("not a time") == "not a time"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_export_message_names_what_is_left_out(qtbot: Any, window: MainWindow, tmp_path: Path) -> None:
    """A started task and a revision in progress are not exported: the message says so in plain words."""
    assert window.session is not None
    set_all_scores_by_keyboard(qtbot, window, "4")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    window.rating.go_to("T-0001")
    window.rating.revise()
    rows(window)[0].slider.setFocus()
    qtbot.keyClick(rows(window)[0].slider, Qt.Key.Key_2)
    window.rating.go_to("T-0003")
    rows(window)[0].slider.setFocus()
    qtbot.keyClick(rows(window)[0].slider, Qt.Key.Key_5)
    assert export_and_wait(qtbot, window, tmp_path / "results.zip")
    message = window.messages[-1]
    assert message.startswith("Exported 1 submitted rating of 3 tasks (with every earlier revision) to:")
    assert "Not included: 1 task started but not submitted yet." in message
    assert "Not included: 1 revision you have not submitted yet (the earlier submitted rating is included)." in message


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


def test_revise_and_discard_leave_the_focus_at_the_start_of_the_form(qtbot: Any, window: MainWindow) -> None:
    assert window.page is not None and window.session is not None
    form = window.page.form
    set_all_scores_by_keyboard(qtbot, window, "3")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    window.rating.go_to("T-0001")
    form.revise_button.setFocus()
    qtbot.keyClick(form.revise_button, Qt.Key.Key_Space)
    assert window.session.current is not None and window.session.current.base_revision == 1
    assert window.focusWidget() is rows(window)[0].slider  # not the pause button
    form.discard_button.setFocus()
    qtbot.keyClick(form.discard_button, Qt.Key.Key_Space)
    assert window.session.current is None
    slider = rows(window)[0].slider
    assert window.focusWidget() is slider and is_read_only(slider)  # read-only: nothing a key could change
    qtbot.keyClick(slider, Qt.Key.Key_5)
    assert rows(window)[0].value() == 3 and window.session.current is None


def test_moving_from_the_form_to_a_submitted_task_keeps_the_focus_in_the_form(qtbot: Any, window: MainWindow) -> None:
    """Ctrl+PgUp from a score onto a submitted (read-only) task: the focus goes to the form, not elsewhere."""
    assert window.page is not None and window.session is not None
    set_all_scores_by_keyboard(qtbot, window, "3")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)  # T-0001 submitted, T-0002 open with the focus on its first score
    first = rows(window)[0].slider
    assert window.focusWidget() is first
    qtbot.keyClick(first, Qt.Key.Key_PageUp, CTRL)
    assert window.session.current_id == "T-0001" and window.session.current is None
    assert window.focusWidget() is rows(window)[0].slider and is_read_only(rows(window)[0].slider)
