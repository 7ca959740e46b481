"""The window's size: as large as the rating page wants, never larger than the screen it opens on.

A module of its own, importing only Qt's screen: the bare window takes its size from it before its first
paint, when the app's widget modules are not imported yet (docs/PERFORMANCE.md, "Start-up and stalls").
"""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

PREFERRED_SIZE = (1440, 900)
FRAME_ALLOWANCE = (16, 48)
"""Room left for the window manager's frame and title bar when the screen is smaller than PREFERRED_SIZE."""


def fitted_size(widget: QWidget) -> tuple[int, int]:
    """PREFERRED_SIZE, shrunk to fit the screen's free area (a 1366x768 laptop: the whole window stays visible)."""
    screen = widget.screen() or QGuiApplication.primaryScreen()
    width, height = PREFERRED_SIZE
    if screen is None:
        return width, height
    free = screen.availableGeometry()
    return min(width, free.width() - FRAME_ALLOWANCE[0]), min(height, free.height() - FRAME_ALLOWANCE[1])
