"""The visible task timer with its pause button."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

PAUSE = "Pause timer"
RESUME = "Resume timer"
STATUS_WORDS = {
    "counting": "counting",
    "paused": "paused",
    "idle": "paused: no activity",
    "inactive": "paused: window in background",
    "stopped": "not counting",
}


def local_time(utc_iso: str, fmt: str = "%H:%M:%S") -> str:
    """``2026-11-29T23:45:40Z`` -> "23:45:40" in the computer's own time zone (what the rater's clock shows)."""
    try:
        return datetime.fromisoformat(utc_iso.replace("Z", "+00:00")).astimezone().strftime(fmt)
    except ValueError:
        return utc_iso


def hms(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


class TimerWidget(QWidget):
    pauseToggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel("Time on this task: 0:00:00")
        self.label.setObjectName("task_timer")
        self.button = QPushButton(PAUSE)
        self.button.setAccessibleName(PAUSE)
        self.button.setCheckable(True)
        self.button.toggled.connect(self._toggled)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.button)
        layout.addStretch(1)

    def _toggled(self, paused: bool) -> None:
        text = RESUME if paused else PAUSE
        self.button.setText(text)
        self.button.setAccessibleName(text)
        self.pauseToggled.emit(paused)

    def show_time(self, seconds: float, status: str) -> None:
        text = f"Time on this task: {hms(seconds)} ({STATUS_WORDS.get(status, status)})"
        self.label.setText(text)
        self.label.setAccessibleName(text)

    def set_paused(self, paused: bool) -> None:
        blocked = self.button.blockSignals(True)
        self.button.setChecked(paused)
        self.button.setText(RESUME if paused else PAUSE)
        self.button.setAccessibleName(self.button.text())
        self.button.blockSignals(blocked)
