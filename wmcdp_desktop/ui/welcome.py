"""The welcome screen: open a bundle, recent bundles, the demo bundle."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop.ui.plain_text import PlainLabel, plain_tooltip
from wmcdp_desktop.ui.theme import relative_font

OPEN = "Open bundle…"
DEMO = "Try the demo bundle"
RECENT = "Recent bundles"


class WelcomeScreen(QWidget):
    openRequested = Signal()
    demoRequested = Signal()
    recentChosen = Signal(str)
    raterRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        title = QLabel("WM-CDP Desktop")
        relative_font(title, 1.8, bold=True)
        intro = PlainLabel(
            "Rate blinded AI responses for the WholeMind Clinical Decision Benchmark.\n"
            "Open the bundle your study coordinator sent you. Everything stays on this computer: "
            "your work is saved as you go, and you send the results back with Export results…"
        )
        self.rater_label = PlainLabel("", wrap=False)
        self.rater_button = QPushButton("Change rater id…")
        self.rater_button.setAccessibleName("Change rater id…")
        self.open_button = QPushButton(OPEN)
        self.open_button.setAccessibleName(OPEN)
        self.demo_button = QPushButton(DEMO)
        self.demo_button.setAccessibleName(DEMO)
        self.recent_title = QLabel(RECENT)
        self.recent = QListWidget()
        self.recent.setAccessibleName(RECENT)
        self.recent.setMaximumHeight(260)
        self.recent_title.setBuddy(self.recent)
        self.recent_empty = PlainLabel("No bundles opened yet.")
        self.recent.setToolTip("Double-click (or press Enter on) a bundle to open it again")
        self.message = PlainLabel("")
        self.message.hide()

        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.demo_button)
        buttons.addStretch(1)
        rater = QHBoxLayout()
        rater.addWidget(self.rater_label)
        rater.addWidget(self.rater_button)
        rater.addStretch(1)
        column = QVBoxLayout()
        column.addWidget(title)
        column.addWidget(intro)
        column.addSpacing(12)
        column.addLayout(rater)
        column.addSpacing(12)
        column.addLayout(buttons)
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
            text = f"Rating as: {rater_id}" + (f" ({role})" if role else "")
        else:
            text = "Rater id not set yet: you will be asked for it when you open a bundle."
        self.rater_label.setText(text)
        self.rater_label.setAccessibleName(text)

    def show_recent(self, paths: list[str]) -> None:
        self.recent.clear()
        for p in paths:
            item = QListWidgetItem(f"{Path(p).name}    —    {p}")
            item.setData(Qt.ItemDataRole.UserRole, p)
            item.setToolTip(plain_tooltip(p))
            self.recent.addItem(item)
        self.recent.setVisible(bool(paths))
        self.recent_empty.setVisible(not paths)

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setAccessibleName(text)
        self.message.setVisible(bool(text))
