"""The task list is a model over the session's task ids: no item per task, rows made when asked for."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import QListView

from wmcdp_desktop.rater.app.rating.task_list import TASK_ID_ROLE
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_list_is_a_view_over_the_session_ids(window: MainWindow) -> None:
    assert window.page is not None
    tasks = window.page.task_list
    assert type(tasks.list) is QListView
    ids = window.session.task_ids
    assert tasks.count() == len(ids)
    assert [tasks.model.index(i).data(TASK_ID_ROLE) for i in range(len(ids))] == ids
    spoken = tasks.model.index(0).data(Qt.ItemDataRole.AccessibleTextRole)  # one line: no break, glyph or run of spaces
    assert spoken == " ".join(tasks.row_text(0).replace("○", "").split()).replace(" Not started", ", Not started")
    assert tasks.model.index(len(ids)).data() is None  # out of range: nothing
    assert tasks.open_row() == window.session.position()


def test_click_and_enter_choose_a_task_and_state_is_relabelled(qtbot: Any, window: MainWindow) -> None:
    assert window.page is not None
    tasks = window.page.task_list
    second = window.session.task_ids[1]
    assert tasks.row_text(1).endswith("○ Not started")
    rect = tasks.list.visualRect(tasks.model.index(1))
    qtbot.mouseClick(tasks.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.session.current_id == second
    assert tasks.open_row() == 1
    # keyboard: move up and press Enter chooses the first task
    tasks.list.setFocus()
    tasks.list.selectionModel().setCurrentIndex(tasks.model.index(0), QItemSelectionModel.SelectionFlag.ClearAndSelect)
    qtbot.keyClick(tasks.list, Qt.Key.Key_Return)
    assert window.session.current_id == window.session.task_ids[0]
    # a title set for an opened task is shown at the next update of that row
    tasks.set_title(second, "Domain · kind")
    tasks.update_tasks(second)
    assert tasks.row_text(1).startswith("2. Domain · kind\n")
    assert "Task id (for support): " + second in (tasks.row_tooltip(1) or "")
