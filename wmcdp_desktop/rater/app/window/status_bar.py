"""The window's status bar: short messages, the save state, the session time, and a progress line with a
cancel button for each job running off the GUI thread (all read by screen readers)."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QStatusBar, QWidget

from wmcdp_desktop.rater.app.jobs import Job
from wmcdp_desktop.rater.app.text.i18n import number

MESSAGE_MS = 8000
SHOW_AFTER_MS = 250
"""A job's progress line appears once the job has run this long (a quick one never flickers one in)."""


class JobProgress(QWidget):
    """"Opening bundle.wmcdp [=====     ] [Cancel opening]": shown while its job runs."""

    def __init__(self, job: Job, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("job_progress")
        self.label = QLabel(job.title + "…")
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)  # busy until the job says how much there is
        self.bar.setMaximumWidth(220)
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
