"""The task list with each task's state, and the progress bar.

The list is a ``QListView`` over :class:`TaskListModel`, a model of the session's task ids: a row's text,
tooltip and id are made when the view asks for them (only the visible rows), so a 10,000-task bundle builds
no item per task. Relabelling a task is a ``dataChanged`` of its row.

Rows are named by their task's readable title ("OCD · reassurance seeking") once the task has been read.
The list reads the tasks of the rows it shows, :data:`TITLE_BATCH` at a time per turn of the event loop
(and no more than :data:`TITLE_BUDGET` seconds of reading), after it is shown, scrolled or resized: the window paints and takes input first, and a 10,000-task bundle is
never read whole just to name its rows. A task that cannot be read keeps its id (opening it says why).

The model is a ``QStringListModel`` holding one empty string per task only so that the row count is
answered in C++: laying the list out asks for it twice per row (``index()`` checks the row against it), and
20,000 calls into Python took about 50 ms of opening a 10,000-task bundle (benchmarks/). The strings are
never shown (:meth:`TaskListModel.data` answers every role) and rows cannot be edited, dragged or dropped.
"""

from __future__ import annotations

import time

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QStringListModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import QLabel, QListView, QProgressBar, QVBoxLayout, QWidget

from wmcdp_desktop.rater.app.text.accessible import name_scroll_bars, plain_name
from wmcdp_desktop.rater.app.text.i18n import QT_TRANSLATE_NOOP, number
from wmcdp_desktop.rater.app.text.plain_text import plain_tooltip, safe_line
from wmcdp_desktop.rater.labels import task_full_title, task_title
from wmcdp_desktop.rater.session import RatingSession

MARKS = {"not_started": "○", "draft": "◐", "submitted": "●"}
TASKS = QT_TRANSLATE_NOOP("TaskList", "&Tasks")
STATE_LABELS = {
    "not_started": QT_TRANSLATE_NOOP("TaskListModel", "Not started"),
    "draft": QT_TRANSLATE_NOOP("TaskListModel", "In progress"),
    "submitted": QT_TRANSLATE_NOOP("TaskListModel", "Submitted"),
}
TASK_ID_ROLE = Qt.ItemDataRole.UserRole
TITLE_BATCH = 4
"""At most this many tasks are read per turn of the event loop to name the rows shown (a 100 KB task takes
about a millisecond) ..."""
TITLE_BUDGET = 0.015
"""... and no more once a turn has spent this many seconds reading (a task holding a 5 MB response takes
50-70 ms): the window keeps answering input while the names fill in."""

_Index = QModelIndex | QPersistentModelIndex


class TaskListModel(QStringListModel):
    """One row per task of the session, in bundle order; the texts are computed on demand.

    ``rowCount`` is ``QStringListModel``'s (C++, over one empty placeholder string per task): do not override
    it in Python (see the module docstring)."""

    def __init__(self, session: RatingSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.task_ids: list[str] = list(session.task_ids)
        self.setStringList([""] * len(self.task_ids))
        self._row = {tid: i for i, tid in enumerate(self.task_ids)}
        self.full_titles: dict[str, str] = {}
        """Whole titles (every scenario type) of the tasks read so far: the rows' tooltips and accessible
        descriptions (a row shows as much of the short title as fits)."""
        self.titles: dict[str, str] = {}
        """Readable titles ("OCD · reassurance seeking") of the tasks read so far (opened, or shown in the list);
        the others show their id (tasks are read lazily: a 10,000-task bundle is not parsed up front)."""

    def flags(self, index: _Index) -> Qt.ItemFlag:
        """Selectable and enabled, as a plain list model's rows (not editable, draggable or a drop target)."""
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemNeverHasChildren

    def setData(self, index: _Index, value: object, role: int = Qt.ItemDataRole.EditRole) -> bool:
        return False  # the placeholder strings are never changed

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not 0 <= index.row() < len(self.task_ids):
            return None
        tid = self.task_ids[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(index.row())
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return self.spoken(index.row())
        if role == Qt.ItemDataRole.ToolTipRole:
            title = self.full_titles.get(tid) or self.titles.get(tid)
            if title is None:
                return None
            support = self.tr("Task id (for support): {task_id}").format(task_id=tid)
            return plain_tooltip(f"{title}\n{self.state_text(tid)}\n{support}")
        if role == Qt.ItemDataRole.AccessibleDescriptionRole:
            title = self.full_titles.get(tid) or self.titles.get(tid) or tid
            return f"{title}. {self.state_text(tid)}"
        if role == TASK_ID_ROLE:
            return tid
        return None

    def state_text(self, task_id: str) -> str:
        """The state in words: "Submitted", "Cannot rate", "In progress (revising)", "… · ⚑ flagged"."""
        session = self.session
        state = session.state(task_id)
        marks = session.marks(task_id)
        cannot = marks is not None and marks.cannot_rate
        if state == "submitted" and cannot and not session.has_revision_draft(task_id):
            label = self.tr("Cannot rate")
        else:
            label = self.tr(STATE_LABELS[state])
            if session.has_revision_draft(task_id):
                label = self.tr("{state} (revising)").format(state=label)
            if state == "draft" and cannot:
                label = self.tr("{state} (cannot rate)").format(state=label)
        if marks is not None and marks.flagged:
            label += "  ·  ⚑ " + self.tr("flagged")
        return label

    def text(self, row: int) -> str:
        """The two-line label of a row: number and title (or id), then the state mark and state."""
        tid = self.task_ids[row]
        state = self.session.state(tid)
        return f"{row + 1}. {self.titles.get(tid) or tid}\n     {MARKS[state]} {self.state_text(tid)}"

    def spoken(self, row: int) -> str:
        """The row as a screen reader says it: one line, single spaces, no state glyph ("1. OCD · reassurance
        seeking, Not started")."""
        tid = self.task_ids[row]
        state = self.state_text(tid).replace("⚑", "").replace("  ·  ", ", ")
        return " ".join(f"{row + 1}. {self.titles.get(tid) or tid}, {state}".split())

    def changed(self, task_id: str) -> None:
        """Tell the view that a task's label changed (state or title)."""
        row = self._row.get(task_id)
        if row is not None:
            index = self.index(row)
            self.dataChanged.emit(index, index)

    def changed_all(self) -> None:
        if self.task_ids:
            self.dataChanged.emit(self.index(0), self.index(len(self.task_ids) - 1))


class TaskList(QWidget):
    taskChosen = Signal(str)

    def __init__(self, session: RatingSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.model = TaskListModel(session, self)
        self.titles = self.model.titles
        self.title = QLabel(self.tr(TASKS))
        self.list = QListView()
        self.list.setAccessibleName(plain_name(self.tr(TASKS)))
        name_scroll_bars(self.list, plain_name(self.tr(TASKS)))
        self.list.setWordWrap(False)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)  # a long title keeps its number and domain
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setSpacing(1)
        # Every row is two lines of the same font: Qt then sizes one row instead of 10,000 when shown.
        self.list.setUniformItemSizes(True)
        self.list.setModel(self.model)
        self.title.setBuddy(self.list)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.setAccessibleName(self.tr("Progress"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.progress)
        self.list.installEventFilter(self)
        self.list.activated.connect(self._chosen)
        self.list.clicked.connect(self._chosen)
        self._unreadable: set[str] = set()
        """Tasks whose file could not be read to name their row: they keep their id."""
        self._naming = QTimer(self)
        self._naming.setSingleShot(True)
        self._naming.setInterval(0)
        self._naming.timeout.connect(self._name_shown_rows)
        self.list.verticalScrollBar().valueChanged.connect(self._naming.start)
        self._progress_value = 0
        self._progress_later = QTimer(self)
        self._progress_later.setSingleShot(True)
        self._progress_later.setInterval(0)
        self._progress_later.timeout.connect(lambda: self.progress.setValue(self._progress_value))
        self.refresh()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._naming.start()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._naming.start()

    def shown_rows(self) -> range:
        """The rows the list shows now (empty while it is hidden)."""
        count = self.model.rowCount()
        viewport = self.list.viewport()
        if count == 0 or not self.list.isVisible():
            return range(0)
        step = max(1, self.list.sizeHintForRow(0) // 2)
        rows = [i.row() for y in range(0, viewport.height(), step) if (i := self.list.indexAt(QPoint(4, y))).isValid()]
        return range(min(rows), max(rows) + 1) if rows else range(0)

    def _name_shown_rows(self) -> None:
        """Read the tasks of a few unnamed rows in view and name them; again on the next turn if more remain."""
        ids = self.model.task_ids
        todo = [tid for tid in (ids[row] for row in self.shown_rows()) if tid not in self.titles and tid not in self._unreadable]
        started = time.monotonic()
        done = 0
        for tid in todo[:TITLE_BATCH]:
            done += 1
            try:
                task = self.session.task(tid)
            except Exception:  # a name is a nicety: whatever the failure, the row keeps its id
                self._unreadable.add(tid)  # opening the task explains a problem with its file
                continue
            self.set_title(tid, task_title(task), task_full_title(task))
            self.session.load_marks(tid)  # "cannot rate" and flag of a submitted task: its record, read once
            self.model.changed(tid)
            if time.monotonic() - started > TITLE_BUDGET:
                break
        if len(todo) > done:
            self._naming.start()

    def set_title(self, task_id: str, title: str, full_title: str | None = None) -> None:
        """Name an opened task in the list by its readable title (relabelled by the next update)."""
        self.titles[task_id] = safe_line(title)
        self.model.full_titles[task_id] = safe_line(full_title or title)

    def _chosen(self, index: QModelIndex) -> None:
        tid = index.data(TASK_ID_ROLE)
        if tid is not None and tid != self.session.current_id:
            self.taskChosen.emit(tid)

    def row_text(self, row: int) -> str:
        """The label shown for a row (as the view and screen readers get it)."""
        return str(self.model.index(row).data(Qt.ItemDataRole.DisplayRole))

    def row_tooltip(self, row: int) -> str | None:
        tip = self.model.index(row).data(Qt.ItemDataRole.ToolTipRole)
        return None if tip is None else str(tip)

    def count(self) -> int:
        return self.model.rowCount()

    def refresh(self) -> None:
        """Relabel every task (at start), then progress and selection."""
        self.model.changed_all()
        self.update_tasks()

    def update_tasks(self, *task_ids: str | None) -> None:
        """Relabel ``task_ids`` (cheap even with 10,000 tasks), then progress and selection."""
        for tid in task_ids:
            self.refresh_one(tid)
        done, total = self.session.progress()
        self.progress.setRange(0, max(1, total))
        # The bar repaints itself at once when its value moves by a visible step (QProgressBar.setValue), 25 ms
        # at a submit: on the next turn of the event loop, the submit and the next task come first.
        self._progress_value = done
        self._progress_later.start()
        text = self.tr("{done} of {total} submitted").format(done=number(done), total=number(total))
        self.progress.setFormat(text)
        self.progress.setAccessibleDescription(text)
        pos = self.session.position()
        if pos is not None:
            blocked = self.list.blockSignals(True)
            self._show_open_row(self.model.index(pos))
            self.list.blockSignals(blocked)

    def _show_open_row(self, index: QModelIndex) -> None:
        """Select (highlight) the open task's row; it is also the list's current row while the list has the
        keyboard focus. Qt reports the current row to screen readers as focused whether or not the list has
        the focus: a second focused node beside the control that has it."""
        selection = self.list.selectionModel()
        selection.select(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        if self.list.hasFocus():
            selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.NoUpdate)
        else:
            selection.setCurrentIndex(QModelIndex(), QItemSelectionModel.SelectionFlag.NoUpdate)
        self.list.scrollTo(index)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.list:
            selection = self.list.selectionModel()
            if event.type() == QEvent.Type.FocusIn:
                rows = selection.selectedIndexes()
                if rows and not selection.currentIndex().isValid():
                    selection.setCurrentIndex(rows[0], QItemSelectionModel.SelectionFlag.NoUpdate)
            elif event.type() == QEvent.Type.FocusOut:
                selection.setCurrentIndex(QModelIndex(), QItemSelectionModel.SelectionFlag.NoUpdate)
        return False

    def open_row(self) -> int | None:
        """The row of the open task (highlighted in the list)."""
        rows = self.list.selectionModel().selectedIndexes()
        return rows[0].row() if rows else None

    def refresh_one(self, task_id: str | None) -> None:
        """Relabel one task (cheap: called on every edit)."""
        if task_id is not None:
            self.model.changed(task_id)

    def progress_text(self) -> str:
        return self.progress.format()
