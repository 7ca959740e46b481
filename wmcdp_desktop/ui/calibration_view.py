"""After a calibration task is submitted: the rater's answers beside the adjudicated feedback."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop.core.rating_session import CalibrationRow
from wmcdp_desktop.ui.plain_text import PlainLabel, safe_line

HEADERS = ["Criterion", "Your rating", "Adjudicated", "Agrees", "Why"]


class CalibrationView(QGroupBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Calibration feedback", parent)
        self.setAccessibleName("Calibration feedback")
        self.intro = PlainLabel(
            "This was a calibration task: here is the adjudicated answer beside your rating. "
            "Your submitted rating is kept as it is."
        )
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setAccessibleName("Calibration feedback table")
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(HEADERS) - 1, QHeaderView.ResizeMode.Stretch)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.table)

    def show_rows(self, rows: list[CalibrationRow]) -> None:
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            agrees = {True: "yes", False: "no", None: "—"}[row.agrees]
            for c, text in enumerate([row.label, row.yours, row.expected, agrees, row.explanation]):
                item = QTableWidgetItem(safe_line(text))  # items are plain text
                item.setToolTip(safe_line(text))
                self.table.setItem(r, c, item)
        self.table.resizeRowsToContents()
        self.table.setMinimumHeight(min(400, 40 + sum(self.table.rowHeight(i) for i in range(len(rows)))))
