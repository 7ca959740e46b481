"""The window's status bar: short messages, the save state and the session time (read by screen readers)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

MESSAGE_MS = 8000


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
