"""Rater app entry point (placeholder until the rater-app issue lands)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from PySide6.QtWidgets import QApplication, QLabel, QMainWindow


def create_main_window(argv: list[str]) -> QMainWindow:
    """Build the main window without entering the event loop."""
    window = QMainWindow()
    window.setWindowTitle("WM-CDP Desktop")
    window.setCentralWidget(QLabel("WM-CDP Desktop"))
    return window


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    app = QApplication.instance() or QApplication([sys.argv[0], *args])
    window = create_main_window(args)
    window.show()
    return int(app.exec())
