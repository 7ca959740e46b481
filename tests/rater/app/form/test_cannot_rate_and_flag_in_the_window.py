"""A clinician marks a task "cannot rate" with a reason, and flags a task with a note for the coordinator,
through the real window by accessible names (issue 16): autosaved, checked on submit, written as records of
their kind, shown in the task list, revisable."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QPushButton, QRadioButton, QWidget

from tests.rater.app.window_helpers import (
    CTRL,
    by_name,
    export_and_wait,
    rows,
    set_all_scores_by_keyboard,
    show_page,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.rater.app.text.accessible import is_read_only
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def _click(qtbot: Any, window: MainWindow, cls: type[QWidget], name: str) -> None:
    widget = by_name(window, cls, name)
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


def _record(window: MainWindow, task_id: str, revision: int = 1) -> dict[str, Any]:
    assert window.session is not None
    loaded: dict[str, Any] = json.loads(window.session.store.record_path(task_id, revision).read_text(encoding="utf-8"))
    return loaded


def test_cannot_rate_with_a_reason_through_the_window(qtbot: Any, window: MainWindow) -> None:
    assert window.page is not None and window.session is not None
    form = window.page.form
    rows(window)[0].slider.setFocus()
    qtbot.keyClicks(rows(window)[0].slider, "2")  # started rating, then decided it cannot be rated
    _click(qtbot, window, QPushButton, "Cannot rate this task")
    assert form.stack.currentWidget() is form.cannot_page and not form.tabs.isVisible()
    assert by_name(window, QPushButton, "Submit “cannot rate”") is form.submit_button
    submit_by_keyboard(qtbot, window)
    assert form.cannot_panel.reason_problem.text() == "⚠ Choose why you cannot rate this task."
    assert window.focusWidget() is by_name(window, QRadioButton, "The content is broken or cut off")
    assert not window.session.store.record_path("T-0001", 1).exists()
    _click(qtbot, window, QRadioButton, "Other (say why below)")
    assert form.cannot_panel.reason_problem.isHidden()
    submit_by_keyboard(qtbot, window)
    assert form.cannot_panel.detail_problem.text() == "⚠ Say in a few words why you cannot rate this task."
    detail = by_name(window, QLineEdit, "Why you cannot rate it, in a few words")
    assert window.focusWidget() is detail
    qtbot.keyClicks(detail, "I supervised this family's therapist.")
    window.rating.save_now()  # type: ignore[union-attr]
    draft = json.loads(window.session.store.draft_path("T-0001").read_text(encoding="utf-8"))
    assert draft["cannot_rate"] == {"reason": "other", "detail": "I supervised this family's therapist."}
    assert draft["scores"] == {"WM-RUB-001": 2}  # kept in the draft, not sent
    submit_by_keyboard(qtbot, window)
    record = _record(window, "T-0001")
    assert record["record_kind"] == "cannot_rate" and "scoring" not in record
    assert record["cannot_rate"] == {"reason": "other", "detail": "I supervised this family's therapist."}
    assert window.session.current_id == "T-0002"  # on to the next task, as after a rating
    assert "Cannot rate" in window.page.task_list.row_text(0)
    assert "rating submitted" not in window.status_bar.currentMessage()
    assert "“cannot rate” submitted" in window.status_bar.currentMessage()
    # Back to it: read-only, saying what was sent; revising it can turn it into a rating.
    window.rating.go_to("T-0001")  # type: ignore[union-attr]
    assert "“Cannot rate” submitted (revision 1)" in form.banner_text.text()
    assert form.stack.currentWidget() is form.cannot_page
    assert all(is_read_only(r) for r in form.cannot_panel.reasons.values())  # read-only, still legible
    assert all("(submitted: read-only)" in r.accessibleDescription() for r in form.cannot_panel.reasons.values())
    _click(qtbot, window, QPushButton, "Revise this rating")
    _click(qtbot, window, QPushButton, "Rate it after all")
    assert form.stack.currentWidget() is form.tabs
    set_all_scores_by_keyboard(qtbot, window, "4")
    show_page(window, "Notes")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    second = _record(window, "T-0001", 2)
    assert "record_kind" not in second and second["envelope"]["supersedes_record_id"] == record["envelope"]["record_id"]
    assert "Cannot rate" not in window.page.task_list.row_text(0)


def test_a_flag_with_a_note_through_the_window_survives_a_restart(
    qtbot: Any, window: MainWindow, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    assert window.page is not None and window.session is not None
    form = window.page.form
    assert not form.flag_row.isVisible()
    _click(qtbot, window, QPushButton, "Flag for coordinator")
    note = by_name(window, QLineEdit, "Note for your coordinator")
    assert form.flag_row.isVisible() and window.focusWidget() is note
    set_all_scores_by_keyboard(qtbot, window, "3")
    show_page(window, "Notes")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    assert form.flag_row.problem.text() == "⚠ Write a note for your coordinator, or remove the flag."
    assert window.focusWidget() is note
    qtbot.keyClicks(note, "The response seems cut off after the second sentence.")
    assert "⚑ flagged" in window.page.task_list.row_text(0)
    window.rating.save_now()  # type: ignore[union-attr]
    window.shutdown()  # as a crash: nothing more is saved
    again = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    assert again.page is not None and again.session is not None
    assert by_name(again, QPushButton, "Flag for coordinator").isChecked()
    note = by_name(again, QLineEdit, "Note for your coordinator")
    assert note.text() == "The response seems cut off after the second sentence."
    note.setFocus()
    qtbot.keyClick(note, Qt.Key.Key_Return, CTRL)
    record = _record(again, "T-0001")
    assert record["coordinator_flag"] == {"note": "The response seems cut off after the second sentence."}
    assert "⚑ flagged" in again.page.task_list.row_text(0) and "Submitted" in again.page.task_list.row_text(0)


def test_the_new_controls_have_unique_names_and_are_reached_by_tab(qtbot: Any, window: MainWindow) -> None:
    assert window.page is not None
    form = window.page.form
    _click(qtbot, window, QPushButton, "Flag for coordinator")
    _click(qtbot, window, QPushButton, "Cannot rate this task")
    names = ["Flag for coordinator", "Cannot rate this task", "Note for your coordinator",
             "The content is broken or cut off", "It is outside my expertise", "I have a conflict of interest",
             "Other (say why below)", "Why you cannot rate it, in a few words", "Rate it after all",
             "Rubric help"]
    every = [w.accessibleName() for w in window.findChildren(QWidget) if w.isVisibleTo(window)]
    for name in names:
        assert every.count(name) == 1, name
    # Tab from the flag button reaches the cannot-rate button, then the note, the reasons, the detail, "back".
    reached = []
    widget: QWidget = by_name(window, QPushButton, "Flag for coordinator")
    widget.setFocus()
    for _ in range(12):
        qtbot.keyClick(widget, Qt.Key.Key_Tab)
        widget = window.focusWidget()
        reached.append(widget.accessibleName())
    for name in ("Cannot rate this task", "Note for your coordinator", "The content is broken or cut off",
                 "Why you cannot rate it, in a few words", "Rate it after all"):
        assert name in reached, (name, reached)
    assert form.submit_button.accessibleName() == "Submit “cannot rate”"


def test_the_export_says_plainly_that_a_flag_on_an_unsubmitted_task_is_not_in_it(
    qtbot: Any, window: MainWindow, tmp_path: Path
) -> None:
    """An export holds submitted records only: a flag (with its note) on a task not submitted yet is left out,
    and the export's summary says so in plain words (issue 25); a submitted task's flag is in the export."""
    assert window.page is not None and window.rating is not None and window.session is not None
    _click(qtbot, window, QPushButton, "Flag for coordinator")
    qtbot.keyClicks(by_name(window, QLineEdit, "Note for your coordinator"), "Submitted with its flag.")
    set_all_scores_by_keyboard(qtbot, window, "3")
    show_page(window, "Notes")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    assert window.session.state("T-0001") == "submitted"
    assert export_and_wait(qtbot, window, tmp_path / "results.zip")
    assert "flag" not in window.messages[-1]  # submitted: the flag is in the export
    window.rating.go_to("T-0002")
    _click(qtbot, window, QPushButton, "Flag for coordinator")
    qtbot.keyClicks(by_name(window, QLineEdit, "Note for your coordinator"), "Please check the age band.")
    assert window.rating.save_now()
    assert export_and_wait(qtbot, window, tmp_path / "results-2.zip")
    message = window.messages[-1]
    assert ("Not included: 1 flag for your coordinator on tasks not submitted yet. Submit a task to send its flag."
            in message), message
