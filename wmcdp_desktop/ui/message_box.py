"""The app's message box: plain text (never interpreted), not blocking, deleted when closed."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget


def open_message(parent: QWidget, title: str, text: str, *, error: bool = False) -> QMessageBox:
    """Show ``text`` in a window-modal message box that does not block the caller."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning if error else QMessageBox.Icon.Information)
    box.setWindowTitle(title)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(text)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box
