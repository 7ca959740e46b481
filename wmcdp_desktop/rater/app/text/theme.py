"""Colours that follow the system palette (light or dark): nothing is hard-coded against one of them."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QToolTip, QWidget

TEXT_CONTRAST = 4.5
"""WCAG AA: normal text against its background."""
LARGE_CONTRAST = 3.0
"""WCAG AA: large text (18 pt, or 14 pt bold) and graphics."""


def luminance(color: QColor) -> float:
    """WCAG relative luminance of an opaque colour."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.red()) + 0.7152 * channel(color.green()) + 0.0722 * channel(color.blue())


def blend(color: QColor, background: QColor) -> QColor:
    """``color`` as drawn over an opaque ``background`` (its alpha applied)."""
    a = color.alphaF()
    return QColor.fromRgbF(
        color.redF() * a + background.redF() * (1 - a),
        color.greenF() * a + background.greenF() * (1 - a),
        color.blueF() * a + background.blueF() * (1 - a),
    )


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of colour ``a`` drawn on colour ``b`` (1 to 21; ``a``'s alpha applied over ``b``)."""
    a = blend(a, b)
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def readable_on(color: QColor, background: QColor, minimum: float = TEXT_CONTRAST) -> QColor:
    """``color``, darkened (on a light background) or lightened (on a dark one) just enough to reach
    ``minimum`` contrast with ``background``; its hue is kept."""
    out = blend(color, background)
    dark_bg = luminance(background) < 0.18
    for _ in range(100):
        if contrast(out, background) >= minimum:
            return out
        out = out.lighter(106) if dark_bg else out.darker(106)
        if dark_bg and out.lightness() >= 250:
            return QColor("white")
    return QColor("white") if dark_bg else QColor("black")


def accessible_palette(palette: QPalette) -> QPalette:
    """``palette`` with every pair of colours that the app draws text in reaching WCAG AA: the selection
    (a selected task row: white on Fusion's #308cc6 was 3.69:1), placeholder text, links and tooltips;
    background colours keep their hue (only the selection is darkened/lightened, the text stays)."""
    out = QPalette(palette)
    groups = (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive)
    role = QPalette.ColorRole
    for group in groups:
        text = out.color(group, role.HighlightedText)
        highlight = out.color(group, role.Highlight)
        if contrast(text, highlight) < TEXT_CONTRAST:
            # the selection colour moves away from its text colour (a darker blue under white text)
            out.setColor(group, role.Highlight, readable_on(highlight, text))
        base, window = out.color(group, role.Base), out.color(group, role.Window)
        for fg_role in (role.PlaceholderText, role.Link, role.LinkVisited):
            fg = out.color(group, fg_role)
            fixed = readable_on(readable_on(blend(fg, base), base), window)
            out.setColor(group, fg_role, fixed)
        tip = out.color(group, role.ToolTipText)
        out.setColor(group, role.ToolTipText, readable_on(tip, out.color(group, role.ToolTipBase)))
    return out


def apply_accessible_palette() -> None:
    """Make the application's palette :func:`accessible_palette` (at start and when the system's changes)."""
    app = QApplication.instance()
    if isinstance(app, QApplication):
        fixed = accessible_palette(app.palette())
        QApplication.setPalette(fixed)
        QToolTip.setPalette(fixed)


def set_text_size(points: int) -> None:
    """The application's text size: every window, menu, dialog, message box and tooltip follows it."""
    font = QApplication.font()
    font.setPointSize(points)
    QApplication.setFont(font)  # dialogs, message boxes and menus made from now on
    QToolTip.setFont(font)
    for window in QApplication.topLevelWidgets():  # and those that exist (Qt tells them only once running)
        window.setFont(font)


def is_dark(widget: QWidget | None = None) -> bool:
    palette = widget.palette() if widget is not None else QApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def problem_color(widget: QWidget | None = None) -> QColor:
    """A red readable on the current window background."""
    return QColor("#ff8a80") if is_dark(widget) else QColor("#b3261e")


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
