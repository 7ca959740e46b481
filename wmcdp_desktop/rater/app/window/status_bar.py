"""The window's status bar: short messages, the save state, the session time, and a progress line with a
cancel button for each job running off the GUI thread (all read by screen readers)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QSizePolicy, QStatusBar, QWidget

from wmcdp_desktop.rater.app.jobs import Job
from wmcdp_desktop.rater.app.text.i18n import number

MESSAGE_MS = 8000
SHOW_AFTER_MS = 250
"""A job's progress line appears once the job has run this long (a quick one never flickers one in)."""


class ShrinkingLabel(QLabel):
    """A line of the status bar that gives up width before the window would grow past the screen: cut with
    "…" when the bar is short of room (the whole text in its tooltip and for screen readers)."""

    MIN_CHARS = 10

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.full_text = text
        self.setToolTip(text)
        self.setAccessibleName(text)
        self._fit()

    def sizeHint(self) -> QSize:
        return QSize(self.fontMetrics().horizontalAdvance(self.full_text) + 2, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(self.fontMetrics().averageCharWidth() * self.MIN_CHARS, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        self.setText(self.fontMetrics().elidedText(self.full_text, Qt.TextElideMode.ElideRight, max(1, self.width())))


class JobProgress(QWidget):
    """"Opening bundle.wmcdp [=====     ] [Cancel opening]": shown while its job runs."""

    def __init__(self, job: Job, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("job_progress")
        self.label = ShrinkingLabel(job.title + "…")
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)  # busy until the job says how much there is
        self.bar.setMaximumWidth(220)
        self.bar.setMinimumWidth(60)  # (two jobs at once on a 1366x768 laptop at 150% pushed the window wider)
        self.bar.setAccessibleName(job.title)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        self.cancel_button: QPushButton | None = None
        if job.cancel_label:
            self.cancel_button = QPushButton(job.cancel_label)
            self.cancel_button.setAccessibleName(job.cancel_label)
            self.cancel_button.clicked.connect(job.cancel)
            layout.addWidget(self.cancel_button)
        job.progressed.connect(self.show_progress)

    def show_progress(self, done: int, total: int) -> None:
        if total > 0:
            self.bar.setRange(0, total)
            self.bar.setValue(done)
            self.bar.setAccessibleDescription(self.tr("{done} of {total}").format(done=number(done), total=number(total)))


class StatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.save_label = QLabel("")
        self.save_label.setObjectName("save_status")
        self.session_label = QLabel(self.tr("Session: {time}").format(time="0:00:00"))
        self.session_label.setObjectName("session_timer")
        self.addPermanentWidget(self.save_label)
        self.addPermanentWidget(self.session_label)

    def say(self, text: str) -> None:
        self.showMessage(text, MESSAGE_MS)

    def show_save_state(self, text: str) -> None:
        self.save_label.setText(text)
        self.save_label.setAccessibleName(text)

    def show_session_time(self, text: str) -> None:
        self.session_label.setText(text)
        self.session_label.setAccessibleName(text)

    def show_job(self, job: Job) -> None:
        """A progress line for ``job`` until it finishes."""
        line = JobProgress(job)
        self.insertPermanentWidget(0, line)
        line.hide()
        QTimer.singleShot(SHOW_AFTER_MS, line, line.show)
        job.finished.connect(line.deleteLater)
