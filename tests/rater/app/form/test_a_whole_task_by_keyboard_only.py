"""A clinician who uses only the keyboard rates a task, flags it with a note, and marks the next one "cannot
rate" with a reason: key presses to whatever has the focus (Tab, Shift+Tab, digits, Space, arrows, typing,
Ctrl+Enter), no mouse and no focus set by the test. Tab must reach every control on every page in turn."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QWidget,
)

from tests.rater.app.window_helpers import (
    CTRL,
    record_files,
    rows,
)
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def _focus() -> QWidget:
    widget = QApplication.focusWidget()
    assert widget is not None
    return widget


def _press(qtbot: Any, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(_focus(), key, modifier)


def _tab_to(qtbot: Any, found: Callable[[QWidget], bool], *, back: bool = False, limit: int = 80) -> QWidget:
    """Press Tab (or Shift+Tab) until the focus is on a widget ``found`` accepts, as a keyboard user does."""
    for _ in range(limit):
        if found(_focus()):
            return _focus()
        if back:
            _press(qtbot, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
        else:
            _press(qtbot, Qt.Key.Key_Tab)
    raise AssertionError(f"Tab never reached it; the focus is on {_focus().accessibleName()!r}")


def _named(name: str) -> Callable[[QWidget], bool]:
    return lambda w: w.accessibleName() == name


def test_rate_flag_and_cannot_rate_by_keyboard_only(qtbot: Any, window: MainWindow) -> None:
    assert window.page is not None and window.session is not None
    form = window.page.form
    session = window.session
    # Task 1: every score by its digit, Tab from one to the next (past the N/A box where there is one).
    for row in form.rubric.rows.values():
        _tab_to(qtbot, lambda w, s=row.slider: w is s)
        qtbot.keyClicks(_focus(), "4")
    # Tab goes on from the last score to the Failure modes page, then to the Notes page.
    first_fm = next(iter(form.failure_modes.rows.values()))
    _tab_to(qtbot, lambda w: w is first_fm.check)
    assert form.tabs.currentWidget() is form.fm_page
    _press(qtbot, Qt.Key.Key_Space)
    _tab_to(qtbot, lambda w: w is first_fm.severity)
    _press(qtbot, Qt.Key.Key_Down)  # its first severity
    rationale = form.notes.edits["brief_rationale"]
    _tab_to(qtbot, lambda w: w is rationale)
    assert form.tabs.currentWidget() is form.notes_page
    qtbot.keyClicks(_focus(), "Warm, but it gives the reassurance asked for.")
    # Back up to the flag (Shift+Tab), Space: the note for the coordinator takes the focus.
    _tab_to(qtbot, _named("Flag for coordinator"), back=True)
    _press(qtbot, Qt.Key.Key_Space)
    assert _focus() is form.flag_row.note
    qtbot.keyClicks(_focus(), "The father's age band looks wrong.")
    _press(qtbot, Qt.Key.Key_Return, CTRL)
    record = json.loads(session.store.record_path("T-0001", 1).read_text(encoding="utf-8"))
    assert record["coordinator_flag"] == {"note": "The father's age band looks wrong."}
    assert record["scoring"]["emotional_attunement_validation_score"] == 4
    assert [fm for fm, severity in record["failure_mode_annotations"].items() if severity != "none"] == [first_fm.fm.id]
    # Task 2: "cannot rate" from the keyboard: the button, then a reason chosen with the arrows and Space.
    assert session.current_id == "T-0002"
    _tab_to(qtbot, _named("Cannot rate this task"), back=True)
    _press(qtbot, Qt.Key.Key_Space)
    assert _focus() is form.cannot_panel.first_reason()
    _press(qtbot, Qt.Key.Key_Down)  # the arrows move between the reasons (as in any radio group)
    assert _focus() is form.cannot_panel.reasons["outside_expertise"]
    _press(qtbot, Qt.Key.Key_Space)  # and Space chooses one
    _press(qtbot, Qt.Key.Key_Return, CTRL)
    unable = json.loads(session.store.record_path("T-0002", 1).read_text(encoding="utf-8"))
    assert unable["record_kind"] == "cannot_rate" and unable["cannot_rate"]["reason"] == "outside_expertise"
    assert session.current_id == "T-0003"


def test_whole_rating_by_keyboard_only(qtbot: Any, window: MainWindow, data_dir: Path) -> None:
    """Tab through the screen from the task list and rate with keys only; Ctrl+Enter submits."""
    assert window.page is not None
    window.page.task_list.list.setFocus()

    def tab_to(target: QWidget) -> None:
        for _ in range(300):
            if window.focusWidget() is target:
                return
            qtbot.keyClick(window.focusWidget(), Qt.Key.Key_Tab)
        pytest.fail(f"Tab never reached {target.accessibleName()!r}")

    for i, row in enumerate(rows(window)):
        tab_to(row.slider)
        qtbot.keyClick(row.slider, Qt.Key.Key_1 + i % 5)  # type: ignore[operator]
    fm_row = window.page.form.failure_modes.rows["WM-FM-MISSED-RISK"]
    tab_to(fm_row.check)
    qtbot.keyClick(fm_row.check, Qt.Key.Key_Space)
    tab_to(fm_row.severity)
    qtbot.keyClick(fm_row.severity, Qt.Key.Key_Down)
    tab_to(fm_row.note)
    qtbot.keyClicks(fm_row.note, "no safety check")
    rationale = window.page.form.notes.edits["brief_rationale"]  # on the Notes page: Tab opens it
    tab_to(rationale)
    qtbot.keyClicks(rationale, "keyboard only")
    qtbot.keyClick(rationale, Qt.Key.Key_Return, CTRL)
    files = record_files(data_dir)
    assert [f.name for f in files] == ["T-0001.r1.json"]
    record = json.loads(files[0].read_text(encoding="utf-8"))
    assert [record["scoring"][r.dim.field] for r in rows(window)] == [1, 2, 3, 4, 5, 1, 2, 3]
    assert record["failure_mode_annotations"]["WM-FM-MISSED-RISK"] == "minor"
    assert record["failure_mode_evidence_notes"] == {"WM-FM-MISSED-RISK": "no safety check"}
