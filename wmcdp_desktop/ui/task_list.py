"""The task list with each task's state, and the progress bar."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QProgressBar, QVBoxLayout, QWidget

from wmcdp_desktop.core.rating_session import STATE_LABELS, RatingSession
from wmcdp_desktop.ui.plain_text import plain_tooltip, safe_line

MARKS = {"not_started": "○", "draft": "◐", "submitted": "●"}
TASKS = "Tasks"


class TaskList(QWidget):
    taskChosen = Signal(str)

    def __init__(self, session: RatingSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.titles: dict[str, str] = {}
        """Readable titles ("OCD · reassurance seeking") of the tasks opened so far; the others show their id
        (tasks are read lazily, so a 10,000-task bundle is not parsed up front to name them)."""
        self.title = QLabel(TASKS)
        self.list = QListWidget()
        self.list.setAccessibleName(TASKS)
        self.list.setWordWrap(False)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)  # a long title keeps its number and domain
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setSpacing(1)
        # Every row is two lines of the same font: Qt then sizes one row instead of 10,000 when shown.
        self.list.setUniformItemSizes(True)
        self.title.setBuddy(self.list)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.setAccessibleName("Progress")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.progress)
        for tid in session.task_ids:
            item = QListWidgetItem()
            item.setData(Qt.ItemDataRole.UserRole, tid)
            self.list.addItem(item)
        # (labelled once, by refresh() below)
        self.list.itemActivated.connect(self._chosen)
        self.list.itemClicked.connect(self._chosen)
        self.refresh()

    def _label(self, item: QListWidgetItem, n: int, tid: str) -> None:
        state = self.session.state(tid)
        label = STATE_LABELS[state] + (" (revising)" if self.session.has_revision_draft(tid) else "")
        title = self.titles.get(tid)
        text = f"{n}. {title or tid}\n     {MARKS[state]} {label}"
        item.setText(text)
        if title is not None:
            item.setToolTip(plain_tooltip(f"{title}\nTask {tid}"))

    def set_title(self, task_id: str, title: str) -> None:
        """Name an opened task in the list by its readable title (relabelled by the next update)."""
        self.titles[task_id] = safe_line(title)

    def _chosen(self, item: QListWidgetItem) -> None:
        tid = item.data(Qt.ItemDataRole.UserRole)
        if tid != self.session.current_id:
            self.taskChosen.emit(tid)

    def refresh(self) -> None:
        """Relabel every task (at start), then progress and selection."""
        for i in range(self.list.count()):
            item = self.list.item(i)
            self._label(item, i + 1, item.data(Qt.ItemDataRole.UserRole))
        self.update_tasks()

    def update_tasks(self, *task_ids: str | None) -> None:
        """Relabel ``task_ids`` (cheap even with 10,000 tasks), then progress and selection."""
        for tid in task_ids:
            self.refresh_one(tid)
        done, total = self.session.progress()
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(done)
        text = f"{done} of {total} submitted"
        self.progress.setFormat(text)
        self.progress.setAccessibleDescription(text)
        pos = self.session.position()
        if pos is not None:
            blocked = self.list.blockSignals(True)
            self.list.setCurrentRow(pos)
            self.list.blockSignals(blocked)

    def refresh_one(self, task_id: str | None) -> None:
        """Relabel one task (cheap: called on every edit)."""
        if task_id is None:
            return
        i = self._pos(task_id)
        item = self.list.item(i)
        if item is not None:
            self._label(item, i + 1, task_id)

    def _pos(self, task_id: str) -> int:
        pos = self.session.position()
        return pos if pos is not None and self.session.task_ids[pos] == task_id else self.session.task_ids.index(task_id)

    def progress_text(self) -> str:
        return self.progress.format()
