"""After every action that moves to a task (submit, next, go to, revise, cannot rate, reopen) the keyboard
focus is on the task's first score, so the next digit sets the score the rater sees first, never one out of
sight (it used to set "Overall clinical judgment", the last, after Ctrl+Enter)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QComboBox, QRadioButton

from tests.rater.app.window_helpers import (
    CTRL,
    blinding_question,
    bundle_with_blinding_labels,
    by_name,
    rows,
    set_all_scores_by_keyboard,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.rater.app.text.accessible import is_read_only
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def scores(window: MainWindow) -> dict[str, int | None]:
    return {row.dim.id: row.value() for row in rows(window)}


def digit_sets_the_first_score(qtbot: Any, window: MainWindow, digit: int = 2) -> None:
    """Press ``digit`` where the focus is: the first score, and only it, takes it."""
    first = rows(window)[0]
    focus = QApplication.focusWidget()
    assert focus is first.slider, f"focus on {focus!r} ({focus.accessibleName() if focus else ''})"
    before = scores(window)
    qtbot.keyClick(focus, getattr(Qt.Key, f"Key_{digit}"))
    after = scores(window)
    assert after[first.dim.id] == digit
    assert {k: v for k, v in after.items() if k != first.dim.id} == {k: v for k, v in before.items() if k != first.dim.id}


def rate_and_submit(qtbot: Any, window: MainWindow) -> None:
    set_all_scores_by_keyboard(qtbot, window, "3")  # the focus ends on the last score
    type_rationale(qtbot, window)
    rows(window)[-1].slider.setFocus()
    submit_by_keyboard(qtbot, window)


def test_focus_after_every_move_to_a_task(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.page is not None and window.session is not None and window.rating is not None
    ids = window.session.task_ids
    # on opening
    digit_sets_the_first_score(qtbot, window, 1)
    # submit (Ctrl+Enter on the last score): the next unfinished task opens
    rate_and_submit(qtbot, window)
    assert window.session.current_id != ids[0]
    digit_sets_the_first_score(qtbot, window, 2)
    # next (Ctrl+PgDown), from the response text (outside the form)
    window.page.task_view.response.setFocus()
    here = window.session.current_id
    qtbot.keyClick(window.page.task_view.response, Qt.Key.Key_PageDown, CTRL)
    assert window.session.current_id != here
    digit_sets_the_first_score(qtbot, window, 4)
    # go to (a click in the task list) the submitted first task: focus on its first score, read-only
    task_list = window.page.task_list.list
    index = task_list.model().index(0, 0)
    qtbot.mouseClick(task_list.viewport(), Qt.MouseButton.LeftButton, pos=task_list.visualRect(index).center())
    assert window.session.current_id == ids[0]
    first = rows(window)[0]
    assert QApplication.focusWidget() is first.slider
    qtbot.keyClick(first.slider, Qt.Key.Key_5)
    assert first.value() == 3  # submitted: read-only
    # revise (the button): the focus on the first score, which now takes the digit
    window.page.form.revise_button.click()
    digit_sets_the_first_score(qtbot, window, 5)
    # cannot rate: submitted, the next task opens at its first score
    window.rating.discard_revision()
    window.rating.go_to(ids[-1])
    window.page.form.cannot_button.click()
    reason = next(b for b in window.page.form.cannot_panel.reasons.values() if isinstance(b, QRadioButton))
    qtbot.mouseClick(reason, Qt.MouseButton.LeftButton, pos=QPoint(8, reason.height() // 2))
    submit_by_keyboard(qtbot, window)
    assert window.session.current_id != ids[-1]
    digit_sets_the_first_score(qtbot, window, 3)
    # reopen: the bundle opened again starts on the open task's first score
    window.close()
    again = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    digit_sets_the_first_score(qtbot, again, 4)


def test_focus_after_submit_through_the_blinding_question(
    qtbot: Any, make_window: Callable[..., MainWindow], tmp_path: Path, sample_docs: Any, data_dir: Path
) -> None:
    """The question's window closes after the next task opened: the focus must not go back to the score
    that had it before the question (the last one)."""
    bundle = bundle_with_blinding_labels(tmp_path / "bundle", sample_docs, ["System A", "System B"])
    window = make_window([str(bundle), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.session is not None
    for answer in ("skip", "cannot tell"):  # (the third task, the last, ends with "every task is submitted")
        here = window.session.current_id
        rate_and_submit(qtbot, window)
        question = blinding_question(qtbot, window)
        if answer == "skip":
            qtbot.keyClick(question.focusWidget() or question, Qt.Key.Key_Escape)
        else:
            qtbot.keyClick(question.cannot_tell, Qt.Key.Key_Space)  # "I can't tell", then OK
            qtbot.keyClick(question.cannot_tell, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: window.rating is not None and window.rating.question is None, timeout=5000)
        qtbot.waitUntil(window.isActiveWindow, timeout=5000)
        qtbot.wait(50)  # the window's focus comes back after the question closes
        if window.session.task(here).calibration_feedback is not None:  # stays for its feedback
            assert window.session.current_id == here
            window.rating.step(1)
        else:
            assert window.session.current_id != here
        digit_sets_the_first_score(qtbot, window, 2)


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
