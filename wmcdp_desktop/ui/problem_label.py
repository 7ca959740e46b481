"""The small message shown next to a control when submitting found a problem with it."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from wmcdp_desktop.ui.plain_text import PlainLabel
from wmcdp_desktop.ui.theme import problem_color, set_fg


class ProblemLabel(PlainLabel):
    """Hidden until :meth:`show_problem`; accessible name = the visible message."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.setObjectName("problem")
        self.hide()

    def show_problem(self, message: str) -> None:
        set_fg(self, problem_color(self))
        text = f"⚠ {message}"
        self.setText(text)
        self.setAccessibleName(text)
        self.show()

    def clear_problem(self) -> None:
        self.setText("")
        self.setAccessibleName("")
        self.hide()
