"""The visible task timer with its pause button."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from wmcdp_desktop.rater.app.text.accessible import button, set_button_text
from wmcdp_desktop.rater.app.text.i18n import QT_TRANSLATE_NOOP, format_datetime

PAUSE = QT_TRANSLATE_NOOP("TimerWidget", "&Pause timer")
RESUME = QT_TRANSLATE_NOOP("TimerWidget", "&Resume timer")
STATUS_WORDS = {
    "counting": QT_TRANSLATE_NOOP("TimerWidget", "counting"),
    "paused": QT_TRANSLATE_NOOP("TimerWidget", "paused"),
    "idle": QT_TRANSLATE_NOOP("TimerWidget", "paused: no activity"),
    "inactive": QT_TRANSLATE_NOOP("TimerWidget", "paused: window in background"),
    "stopped": QT_TRANSLATE_NOOP("TimerWidget", "not counting"),
}


def local_time(utc_iso: str) -> str:
    """``2026-11-29T23:45:40Z`` -> "23:45:40" in the computer's own time zone, as its locale writes a time."""
    return format_datetime(utc_iso, seconds=True, date=False)


def hms(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


class TimerWidget(QWidget):
    pauseToggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(self.tr("Time on this task: {time}").format(time=hms(0)))
        self.label.setObjectName("task_timer")
        self.button = button(self.tr(PAUSE))
        self.button.setToolTip(self.tr("Pause or resume the task timer (Ctrl+Shift+P)"))
        self.button.setCheckable(True)
        self.button.toggled.connect(self._toggled)
        self._two_lines_for: tuple[str, int] = ("", 0)
        self.row = layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.button)
        layout.addStretch(1)

    def sizeHint(self) -> QSize:
        """As wide as the timer's words on at most two lines (for its usual statuses) and the button: the form's
        strip keeps one line when that fits beside the flag and "cannot rate" buttons, and the same arrangement
        while the time counts."""
        hint = super().sizeHint()
        margins = self.row.contentsMargins()
        width = (self._two_lines() + self.row.spacing() + self.button.sizeHint().width()
                 + margins.left() + margins.right())
        return QSize(width, hint.height())

    def _two_lines(self) -> int:
        """The narrowest width (pixels) at which the timer's text takes at most two lines, whatever the usual
        status (counting, paused, not counting); remembered per font."""
        key = self.label.font().key() + self.tr("Time on this task: {time} ({status})")
        if self._two_lines_for[0] != key:
            fm = self.label.fontMetrics()
            flags = int(Qt.TextFlag.TextWordWrap)
            widest = 0
            for status in ("counting", "paused", "stopped"):
                text = self.tr("Time on this task: {time} ({status})").format(
                    time=hms(0), status=self.tr(STATUS_WORDS[status])
                )
                low, high = 1, fm.horizontalAdvance(text) + 4
                while low < high:  # the narrowest width that keeps the text on two lines
                    mid = (low + high) // 2
                    lines = fm.boundingRect(QRect(0, 0, mid, 100_000), flags, text).height() // max(1, fm.lineSpacing())
                    low, high = (low, mid) if lines <= 2 else (mid + 1, high)
                widest = max(widest, low + 4)
            self._two_lines_for = (key, widest)
        return self._two_lines_for[1]

    def _toggled(self, paused: bool) -> None:
        set_button_text(self.button, self.tr(RESUME if paused else PAUSE))
        self.pauseToggled.emit(paused)

    def show_time(self, seconds: float, status: str) -> None:
        words = self.tr(STATUS_WORDS[status]) if status in STATUS_WORDS else status
        text = self.tr("Time on this task: {time} ({status})").format(time=hms(seconds), status=words)
        self.label.setText(text)
        self.label.setAccessibleName(text)

    def toggle(self) -> None:
        """Pause or resume, as a click on the button does."""
        self.button.click()

    def set_paused(self, paused: bool) -> None:
        blocked = self.button.blockSignals(True)
        self.button.setChecked(paused)
        set_button_text(self.button, self.tr(RESUME if paused else PAUSE))
        self.button.blockSignals(blocked)
