"""The data folder deleted while the window is open (issue 13 item 9): the window notices it within a
second (and at once on the next save or when it comes to the front), tells the rater plainly what happened
and what to do, shows the rating read-only, and never makes the folder again."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPlainTextEdit, QPushButton

from tests.rater.app.window_helpers import (
    by_name,
    rows,
    set_all_scores_by_keyboard,
    show_page,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.rater.app.text.accessible import is_read_only
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_deleting_the_data_folder_stops_saving_and_says_what_to_do(
    qtbot: Any, window: MainWindow, data_dir: Path
) -> None:
    set_all_scores_by_keyboard(qtbot, window, "4")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    assert window.page is not None and window.page.task_list.progress_text() == "1 of 3 submitted"
    shutil.rmtree(data_dir)
    qtbot.waitUntil(lambda: bool(window.messages), timeout=3000)  # the once-a-second check
    message = window.messages[-1]
    assert str(data_dir) in message and "deleted or moved while the app was open" in message
    assert "stopped saving" in message and "put the folder back" in message
    page = window.page
    assert page.save_banner.isVisible() and page.save_text.text() == message
    assert not page.retry_button.isVisible()  # nothing to retry: the folder is gone
    assert window.status_bar.save_label.text() == "Not saved: the data folder is gone"
    assert is_read_only(rows(window)[0].slider)  # read-only, not greyed out: it can still be read
    show_page(window, "Notes")
    rationale = by_name(window, QPlainTextEdit, "Brief rationale (required)")
    assert rationale.isReadOnly()
    # Whatever the rater does next, nothing is written and the folder is not made again.
    qtbot.keyClick(window.focusWidget() or window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(window.focusWidget() or window, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert window.rating is not None
    window.rating.go_to("T-0003")
    assert is_read_only(rows(window)[0].slider)  # another task: read-only too
    window.change_font(1)  # settings are not saved either (that would make the folder again)
    qtbot.wait(1200)
    assert not data_dir.exists()
    assert len([m for m in window.messages if "stopped saving" in m]) == 1  # told once, not every second


def test_the_window_notices_when_it_comes_back_to_the_front(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.rating is not None
    window.rating.ticker.stop()  # only the activation can notice it here
    shutil.move(data_dir, data_dir.parent / "moved")
    window.rating.set_window_active(True)
    assert window.messages and "deleted or moved" in window.messages[-1]
    assert not any(b.isVisible() for b in window.findChildren(QPushButton) if b.accessibleName() == "Retry saving")
