"""Colours that follow the system palette (light or dark): nothing is hard-coded against one of them."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette
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


FONT_SCALE = "wmcdp_font_scale"
"""Dynamic property: this widget's text is that many times the window's text size (see rescale_fonts)."""


def relative_font(widget: QWidget, scale: float = 1.0, *, bold: bool = False, italic: bool = False) -> None:
    """Bold/italic/larger text that still follows the window's text size (View > Larger text).

    Only the attributes set here are fixed on the widget (a fresh QFont records just those), so the size keeps
    coming from the window; a ``scale`` other than 1 is applied by :func:`rescale_fonts`.
    """
    font = QFont()
    font.setBold(bold)
    font.setItalic(italic)
    if scale != 1.0:
        widget.setProperty(FONT_SCALE, scale)
        font.setPointSizeF(_base_size() * scale)
    widget.setFont(font)


def _base_size() -> float:
    size = QApplication.font().pointSizeF()  # until rescale_fonts() gives the window's size
    return size if size > 0 else 9.0


def rescale_fonts(root: QWidget) -> None:
    """Give every scaled widget under ``root`` its size from ``root``'s text size (after a font change)."""
    base = root.font().pointSizeF()
    if base <= 0:
        return
    for widget in root.findChildren(QWidget):
        scale = widget.property(FONT_SCALE)
        if isinstance(scale, float) and scale > 0:
            font = QFont()
            font.setBold(widget.font().bold())
            font.setItalic(widget.font().italic())
            font.setPointSizeF(base * scale)
            widget.setFont(font)
