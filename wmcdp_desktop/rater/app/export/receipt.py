"""After an export: what was written, and the receipt code to send the coordinator apart from the file.

The code (``7K3QD-M2XWA``, core/audit_chain.py) is derived from the end of the export's hash-chained audit
log: the coordinator checks it with ``wmcdp results validate --receipt`` to know the file they received is
exactly the one exported. It is shown in a read-only, selectable field with an accessible name, a Copy
button, and words saying where to send it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop.rater.app.text.plain_text import PlainLabel


class ReceiptDialog(QDialog):
    """Non-modal: the rater may copy the code, switch to their email, and come back."""

    def __init__(self, summary: str, receipt: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Results exported"))
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.summary = PlainLabel(summary)
        heading = QLabel(self.tr("Your receipt &code"))
        self.code = QLineEdit(receipt)
        self.code.setReadOnly(True)
        self.code.setAccessibleName(self.tr("Receipt code"))
        self.code.setAccessibleDescription(
            self.tr("Send this code to your study coordinator separately from the file.")
        )
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setPointSizeF(max(font.pointSizeF(), self.font().pointSizeF()) * 1.6)
        font.setWeight(QFont.Weight.Bold)
        font.setLetterSpacing(QFont.SpacingType.PercentageSpacing, 115)
        self.code.setFont(font)
        self.code.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.code.setMinimumWidth(self.code.fontMetrics().horizontalAdvance(receipt + "MMMM"))
        heading.setBuddy(self.code)
        self.copy = QPushButton(self.tr("C&opy code"))
        self.copy.setAccessibleName(self.tr("Copy the receipt code"))
        self.copy.clicked.connect(self._copy)
        self.copied = QLabel("")
        self.copied.setAccessibleName(self.tr("Copy status"))
        row = QHBoxLayout()
        row.addWidget(self.code, 1)
        row.addWidget(self.copy)
        explain = PlainLabel(
            self.tr(
                "Send this code to your study coordinator separately from the file: for example in the body of "
                "your email, in a text message, or read it out on the phone. It lets them check that the file "
                "they receive is exactly the one you exported. You get a new code each time you export."
            )
        )
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(heading)
        layout.addLayout(row)
        layout.addWidget(self.copied)
        layout.addWidget(explain)
        layout.addWidget(buttons)
        self.setMinimumWidth(max(520, self.fontMetrics().averageCharWidth() * 64))
        self.code.setFocus()
        self.code.selectAll()

    def _copy(self) -> None:
        QGuiApplication.clipboard().setText(self.code.text())
        self.copied.setText(self.tr("Copied: paste it into your message to the coordinator."))
