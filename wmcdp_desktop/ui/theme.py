"""Colours that follow the system palette (light or dark): nothing is hard-coded against one of them."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QWidget


def is_dark(widget: QWidget | None = None) -> bool:
    palette = widget.palette() if widget is not None else QApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def problem_color(widget: QWidget | None = None) -> QColor:
    """A red readable on the current window background."""
    return QColor("#ff8a80") if is_dark(widget) else QColor("#b3261e")


def ok_color(widget: QWidget | None = None) -> QColor:
    return QColor("#81c995") if is_dark(widget) else QColor("#1e6b34")


def set_fg(widget: QWidget, color: QColor) -> None:
    palette = widget.palette()
    palette.setColor(QPalette.ColorRole.WindowText, color)
    palette.setColor(QPalette.ColorRole.Text, color)
    widget.setPalette(palette)
