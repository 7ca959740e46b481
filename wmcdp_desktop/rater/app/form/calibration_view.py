"""After a calibration task is submitted: the rater's answers beside the adjudicated feedback."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QGroupBox, QVBoxLayout, QWidget

from wmcdp_desktop.rater.app.text.i18n import QT_TRANSLATE_NOOP
from wmcdp_desktop.rater.app.text.plain_text import PlainLabel, PlainTextView
from wmcdp_desktop.rater.session import CalibrationRow

AGREES = {
    True: QT_TRANSLATE_NOOP("CalibrationView", "✓ agrees"),
    False: QT_TRANSLATE_NOOP("CalibrationView", "✗ differs"),
    None: QT_TRANSLATE_NOOP("CalibrationView", "see explanation"),
}


class CalibrationView(QGroupBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(QCoreApplication.translate("CalibrationView", "Calibration feedback"), parent)
        self.setAccessibleName(self.title())
        self.intro = PlainLabel(
            self.tr(
                "This was a calibration task: here is the adjudicated answer beside your rating. "
                "Your submitted rating is kept as it is."
            )
        )
        self.text = PlainTextView(self.tr("Calibration feedback details"))
        self.text.setMinimumHeight(260)
        self.rows: list[CalibrationRow] = []
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.text)

    def focus_text(self) -> None:
        self.text.setFocus(Qt.FocusReason.OtherFocusReason)

    @staticmethod
    def line(row: CalibrationRow) -> str:
        return QCoreApplication.translate(
            "CalibrationView", "yours: {yours}   ·   adjudicated: {expected}   ·   {agrees}"
        ).format(yours=row.yours, expected=row.expected, agrees=QCoreApplication.translate("CalibrationView", AGREES[row.agrees]))

    def show_rows(self, rows: list[CalibrationRow]) -> None:
        self.rows = rows
        self.text.clear_text()
        for row in rows:
            self.text.append_heading(row.label)
            self.text.append_body(self.line(row))
            if row.explanation:
                self.text.append_body(row.explanation)
        self.text.moveCursor(self.text.textCursor().MoveOperation.Start)
