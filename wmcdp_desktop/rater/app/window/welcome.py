"""The welcome screen: open a bundle, recent bundles, the demo bundle."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop.rater.app.text.accessible import (
    button,
    items_hidden_with_view,
    name_scroll_bars,
    plain_name,
)
from wmcdp_desktop.rater.app.text.i18n import QT_TRANSLATE_NOOP
from wmcdp_desktop.rater.app.text.plain_text import PlainLabel, plain_tooltip, safe_line
from wmcdp_desktop.rater.app.text.theme import relative_font
from wmcdp_desktop.rater.app.widgets import WrapRow

OPEN = QT_TRANSLATE_NOOP("WelcomeScreen", "&Open bundle…")
DEMO = QT_TRANSLATE_NOOP("WelcomeScreen", "Try the d&emo bundle")
RECENT = QT_TRANSLATE_NOOP("WelcomeScreen", "&Recent bundles")
CHANGE_RATER = QT_TRANSLATE_NOOP("WelcomeScreen", "&Change rater id…")


class WelcomeScreen(QWidget):
    openRequested = Signal()
    demoRequested = Signal()
    recentChosen = Signal(str)
    raterRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        title = QLabel(self.tr("WM-CDP Desktop"))
        relative_font(title, 1.8, bold=True)
        intro = PlainLabel(
            self.tr(
                "Rate blinded AI responses for the WholeMind Clinical Decision Benchmark.\n"
                "Open the bundle your study coordinator sent you. Everything stays on this computer: "
                "your work is saved as you go, and you send the results back with File > Export results…"
            )
        )
        self.rater_label = PlainLabel("", wrap=False)
        self.rater_button = button(self.tr(CHANGE_RATER))
        self.open_button = button(self.tr(OPEN))
        self.demo_button = button(self.tr(DEMO))
        self.recent_title = QLabel(self.tr(RECENT))
        self.recent = QListWidget()
        self.recent.setAccessibleName(plain_name(self.tr(RECENT)))
        name_scroll_bars(self.recent, plain_name(self.tr(RECENT)))
        items_hidden_with_view(self.recent)  # (the welcome page hidden under an open bundle)
        self.recent.setMaximumHeight(260)
        self.recent_title.setBuddy(self.recent)
        self.recent_empty = PlainLabel(self.tr("No bundles opened yet."))
        self.recent.setToolTip(self.tr("Double-click (or press Enter on) a bundle to open it again"))
        self.message = PlainLabel("")
        self.message.hide()

        # Side by side, or one under the other where long words and large text leave no room for both.
        buttons = QWidget()
        buttons_row = WrapRow(buttons)
        buttons_row.addWidget(self.open_button)
        buttons_row.addWidget(self.demo_button)
        rater = QWidget()
        rater_row = WrapRow(rater)
        rater_row.addWidget(self.rater_label)
        rater_row.addWidget(self.rater_button)
        column = QVBoxLayout()
        column.addWidget(title)
        column.addWidget(intro)
        column.addSpacing(12)
        column.addWidget(rater)
        column.addSpacing(12)
        column.addWidget(buttons)
        column.addWidget(self.message)
        column.addSpacing(12)
        column.addWidget(self.recent_title)
        column.addWidget(self.recent_empty)
        column.addWidget(self.recent)
        column.addStretch(1)
        box = QWidget()
        box.setLayout(column)
        box.setMaximumWidth(760)
        outer = QHBoxLayout(self)
        outer.addStretch(1)
        outer.addWidget(box, 4)
        outer.addStretch(1)

        self.open_button.clicked.connect(self.openRequested)
        self.demo_button.clicked.connect(self.demoRequested)
        self.rater_button.clicked.connect(self.raterRequested)
        self.recent.itemActivated.connect(lambda item: self.recentChosen.emit(item.data(Qt.ItemDataRole.UserRole)))

    def show_rater(self, rater_id: str | None, role: str | None) -> None:
        if rater_id:
            if role:
                text = self.tr("Rating as: {rater} ({role})").format(rater=rater_id, role=role)
            else:
                text = self.tr("Rating as: {rater}").format(rater=rater_id)
        else:
            text = self.tr("Rater id not set yet: you will be asked for it when you open a bundle.")
        self.rater_label.setText(text)
        self.rater_label.setAccessibleName(text)

    def show_recent(self, paths: list[str]) -> None:
        self.recent.clear()
        for p in paths:
            item = QListWidgetItem(f"{Path(p).name}    —    {p}")
            item.setData(Qt.ItemDataRole.UserRole, p)
            item.setToolTip(plain_tooltip(p))
            item.setData(Qt.ItemDataRole.AccessibleTextRole, safe_line(Path(p).name))  # the folder is in the tooltip
            self.recent.addItem(item)
        self.recent.setVisible(bool(paths))
        self.recent_empty.setVisible(not paths)

    def set_busy(self, busy: bool) -> None:
        """While a bundle is being opened, nothing here starts another (the status bar shows the progress)."""
        for control in (self.open_button, self.demo_button, self.recent, self.rater_button):
            control.setEnabled(not busy)

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setAccessibleName(text)
        self.message.setVisible(bool(text))
