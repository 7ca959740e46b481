"""After a calibration task is submitted: the rater's answers beside the adjudicated feedback."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QVBoxLayout, QWidget

from wmcdp_desktop.core.rater.rating_session import CalibrationRow
from wmcdp_desktop.ui.plain_text import PlainLabel, PlainTextView

AGREES = {True: "✓ agrees", False: "✗ differs", None: "see explanation"}


class CalibrationView(QGroupBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Calibration feedback", parent)
        self.setAccessibleName("Calibration feedback")
        self.intro = PlainLabel(
            "This was a calibration task: here is the adjudicated answer beside your rating. "
            "Your submitted rating is kept as it is."
        )
        self.text = PlainTextView("Calibration feedback details")
        self.text.setMinimumHeight(260)
        self.rows: list[CalibrationRow] = []
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.text)

    def focus_text(self) -> None:
        self.text.setFocus(Qt.FocusReason.OtherFocusReason)

    @staticmethod
    def line(row: CalibrationRow) -> str:
        return f"yours: {row.yours}   ·   adjudicated: {row.expected}   ·   {AGREES[row.agrees]}"

    def show_rows(self, rows: list[CalibrationRow]) -> None:
        self.rows = rows
        self.text.clear_text()
        for row in rows:
            self.text.append_heading(row.label)
            self.text.append_body(self.line(row))
            if row.explanation:
                self.text.append_body(row.explanation)
        self.text.moveCursor(self.text.textCursor().MoveOperation.Start)
