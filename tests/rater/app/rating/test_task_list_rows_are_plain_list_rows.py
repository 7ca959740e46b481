"""The task list's row count is answered in C++ (QStringListModel), so laying out 10,000 rows does not call
into Python twice per row; the placeholder strings behind it never show, and rows stay plain list rows
(not editable, draggable or drop targets)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QStringListModel, Qt

from wmcdp_desktop.rater.app.rating.task_list import TASK_ID_ROLE, TaskListModel
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_row_count_is_not_a_python_override(window: MainWindow) -> None:
    assert TaskListModel.rowCount is QStringListModel.rowCount
    assert window.page is not None
    model = window.page.task_list.model
    assert model.rowCount() == len(window.session.task_ids) == model.rowCount(QModelIndex())
    assert model.rowCount(model.index(0)) == 0  # a list: no children


def test_rows_show_labels_not_the_placeholders_and_cannot_be_edited(qtbot: Any, window: MainWindow) -> None:
    assert window.page is not None
    tasks = window.page.task_list
    model = tasks.model
    ids = window.session.task_ids
    for row, tid in enumerate(ids):
        index = model.index(row)
        assert index.data(TASK_ID_ROLE) == tid
        assert index.data(Qt.ItemDataRole.DisplayRole) == tasks.row_text(row)
        assert index.data(Qt.ItemDataRole.DisplayRole).startswith(f"{row + 1}. ")
        assert index.data(Qt.ItemDataRole.EditRole) is None
        assert model.flags(index) == (
            Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemNeverHasChildren
        )
    assert model.flags(QModelIndex()) == Qt.ItemFlag.NoItemFlags
    assert not model.setData(model.index(0), "x")
    assert model.index(0).data(TASK_ID_ROLE) == ids[0]
    # a click chooses the task; a double click or F2 opens no editor on the row
    rect = tasks.list.visualRect(model.index(1))
    qtbot.mouseClick(tasks.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.session.current_id == ids[1]
    qtbot.mouseDClick(tasks.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    tasks.list.setFocus()
    qtbot.keyClick(tasks.list, Qt.Key.Key_F2)
    assert tasks.list.state() != tasks.list.State.EditingState
    assert tasks.row_text(1).startswith("2. ")
