"""Help > About WM-CDP Desktop: version, licence, and the notices of everything the app ships."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop import __version__
from wmcdp_desktop.core.resources import legal_text, licenses_folder

LICENCE_NAME = "Apache-2.0"


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("about_dialog")
        self.setWindowTitle(self.tr("About WM-CDP Desktop"))
        self.resize(760, 620)
        layout = QVBoxLayout(self)
        heading = QLabel(self.tr("WM-CDP Desktop {version}").format(version=__version__))
        heading.setObjectName("about_heading")
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        heading.setFont(font)
        summary = self.tr(
            "The offline rating tool of the WholeMind Clinical Decision Benchmark.\n"
            "Licensed under the Apache License, Version 2.0 ({licence}). It ships Qt and PySide6 under the "
            "GNU LGPL version 3: you may replace those libraries with your own build (see below)."
        ).format(licence=LICENCE_NAME)
        folder = licenses_folder()
        if folder is not None:
            summary += "\n" + self.tr("Full licence texts: {folder}").format(folder=folder)
        self.summary = QLabel(summary)
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notices = QPlainTextEdit()
        self.notices.setObjectName("about_notices")
        self.notices.setReadOnly(True)
        self.notices.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByKeyboard | Qt.TextInteractionFlag.TextSelectableByMouse
        )
        self.notices.setAccessibleName(self.tr("Licence and third-party notices"))
        try:
            self.notices.setPlainText(legal_text())
        except (OSError, UnicodeDecodeError) as exc:
            self.notices.setPlainText(
                self.tr("The licence and notices could not be read: {error}").format(error=exc)
            )
        notices_label = QLabel(self.tr("&Licence and third-party notices"))
        notices_label.setBuddy(self.notices)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(heading)
        layout.addWidget(self.summary)
        layout.addWidget(notices_label)
        layout.addWidget(self.notices, 1)
        layout.addWidget(buttons)
        self.notices.setFocus()


def add_about_action(window: QMainWindow) -> QAction:
    """Add Help > About WM-CDP Desktop to ``window``'s menu bar (the app menu on macOS)."""
    menu = window.menuBar().addMenu(QCoreApplication.translate("MainWindow", "&Help"))
    action = menu.addAction(QCoreApplication.translate("MainWindow", "About WM-CDP Desktop"))
    action.setObjectName("action_about")
    action.setMenuRole(QAction.MenuRole.AboutRole)
    action.triggered.connect(lambda: show_about(window))
    return action


def show_about(parent: QWidget) -> AboutDialog:
    """Open the About dialog (window-modal, not blocking the caller)."""
    dialog = AboutDialog(parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog
