"""Bundles that come to the window from outside it: a file dropped on it, macOS's "open this file" event (a
double-click in the Finder), and a later start that hands its bundle over (rater/app/single_instance.py).
Each ends in :meth:`MainWindow.open_from_outside` or, for a drop, File > Open's own path: the same checks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QCoreApplication, QEvent, QMimeData, QObject
from PySide6.QtGui import QFileOpenEvent


class OpensBundles(Protocol):
    """The main window, as far as this module needs it."""

    def open_from_outside(self, paths: list[Path]) -> None: ...

BUNDLE_SUFFIX = ".wmcdp"


def dropped_bundle(mime: QMimeData) -> tuple[Path | None, str]:
    """The one bundle file a drop carries, or why the drop is refused (in the app's language)."""
    urls = mime.urls() if mime.hasUrls() else []
    local = [Path(u.toLocalFile()) for u in urls if u.isLocalFile()]
    if len(urls) == 1 and len(local) == 1 and local[0].suffix.lower() == BUNDLE_SUFFIX and not local[0].is_dir():
        return local[0], ""
    what = (
        QCoreApplication.translate("DropTarget", "several files") if len(urls) > 1
        else QCoreApplication.translate("DropTarget", "something that is not a file on this computer") if not local
        else QCoreApplication.translate("DropTarget", "a folder") if local[0].is_dir()
        else QCoreApplication.translate("DropTarget", "a file that is not a bundle ({name})").format(name=local[0].name)
    )
    return None, QCoreApplication.translate(
        "DropTarget",
        "Nothing was opened: the window takes one bundle file ending in .wmcdp, and this was {what}. "
        "To open a bundle folder, use File > Open and choose its bundle.json.",
    ).format(what=what)


class FileOpenEvents(QObject):
    """macOS tells the app which file to open with an event (also the one double-clicked to start it):
    hand it to the window, which opens it once it is built."""

    def __init__(self, window: OpensBundles, app: QCoreApplication, parent: QObject) -> None:
        super().__init__(parent)
        self._window = window
        app.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.FileOpen and isinstance(event, QFileOpenEvent) and event.file():
            self._window.open_from_outside([Path(event.file())])
            return True
        return False
