"""The blinding question after Submit is part of rating the task: while it is open the task timer goes on
(it used to pause as if the window were in the background)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from tests.rater.app.window_helpers import (
    blinding_question,
    bundle_with_blinding_labels,
    set_all_scores_by_keyboard,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.timing import FakeClock


def test_the_timer_counts_while_the_question_is_open(
    qtbot: Any, make_window: Callable[..., MainWindow], tmp_path: Path, sample_docs: Any, data_dir: Path,
    clock: FakeClock,
) -> None:
    bundle = bundle_with_blinding_labels(tmp_path / "bundle", sample_docs, ["System A", "System B"])
    window = make_window([str(bundle), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.session is not None
    set_all_scores_by_keyboard(qtbot, window, "3")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    question = blinding_question(qtbot, window)
    assert question.isActiveWindow() and not window.isActiveWindow()
    tracker = window.session.tracker
    assert tracker.window_active and tracker.running and tracker.status() == "counting"
    tracker.tick()
    clock.advance(20)
    assert tracker.tick() == 20  # the 20 s with the question open are counted
    qtbot.keyClick(question.focusWidget() or question, Qt.Key.Key_Tab)  # the rater at work in the question
    assert tracker.running
