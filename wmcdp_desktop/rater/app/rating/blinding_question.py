"""The blinding check: "Do you think you know which system wrote this response?" (docs/RATER_GUIDE.md).

Shown after the rater presses Submit and the rating passes its checks, only when the bundle has the check
(``bundle.json`` ``blinding_check_labels``) and only at a task's first submission. The rater answers "I
can't tell" or one of the study's labels, or skips; the rating is then saved with the answer through the
core session (this module writes nothing). A window-modal dialog: the rating cannot change while it is
open. Every control is named and reachable by keyboard (Tab into the answers, arrow keys between them,
Enter saves, Escape skips); every string goes through Qt's translation.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop.core.models.rating_record import BlindingGuess
from wmcdp_desktop.rater.app.text.plain_text import DisplayText, PlainLabel

Answer = Callable[[BlindingGuess | None], None]


def button_text(label: str) -> str:
    """A label as a radio button shows it: invisible characters made visible, ``&`` not a shortcut key."""
    return DisplayText.of(label).display.replace("&", "&&")


class BlindingQuestion(QDialog):
    """Asks which system the rater thinks wrote the response; ``answer`` gets the guess (None = skipped)."""

    def __init__(self, labels: list[str], answer: Answer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._answer = answer
        self._labels = list(labels)
        self.setWindowTitle(self.tr("One more question"))
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setAccessibleName(self.tr("Blinding question"))
        question = self.tr("Do you think you know which system wrote this response?")
        heading = PlainLabel(question)
        font = heading.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        heading.setFont(font)
        explain = PlainLabel(self.tr(
            "Your rating passed its checks. Answer with your first impression before it is saved: the answer "
            "is saved with this rating, changes nothing in it, and helps the study check that the systems "
            "stayed hidden. \u201cI can\u2019t tell\u201d is a good answer; so is skipping."
        ))
        self.setAccessibleDescription(explain.text())
        self.group = QGroupBox()
        self.group.setAccessibleName(question)
        box = QVBoxLayout(self.group)
        self.choices = QButtonGroup(self)
        self.cannot_tell = QRadioButton(self.tr("I can\u2019t tell"))
        self.cannot_tell.setAccessibleName(self.tr("I can\u2019t tell"))
        self.options = [self.cannot_tell]
        for label in self._labels:
            option = QRadioButton(button_text(label))
            option.setAccessibleName(DisplayText.of(label).display)
            self.options.append(option)
        for i, option in enumerate(self.options):
            self.choices.addButton(option, i)
            box.addWidget(option)
        buttons = QDialogButtonBox()
        self.save = QPushButton(self.tr("Save my answer"))
        self.save.setAccessibleName(self.tr("Save my answer"))
        self.save.setEnabled(False)
        self.save.setDefault(True)
        self.skip = QPushButton(self.tr("Skip the question"))
        self.skip.setAccessibleName(self.tr("Skip the question"))
        self.skip.setAutoDefault(False)
        buttons.addButton(self.save, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.skip, QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.choices.idToggled.connect(self._chosen)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(explain)
        layout.addWidget(self.group)
        layout.addWidget(buttons)
        self.setMinimumWidth(max(440, self.fontMetrics().averageCharWidth() * 56))
        self.finished.connect(self._done)
        self.cannot_tell.setFocus(Qt.FocusReason.OtherFocusReason)

    def _chosen(self, _id: int, _checked: bool) -> None:
        self.save.setEnabled(self.choices.checkedId() >= 0)

    def guess(self) -> BlindingGuess | None:
        """The answer chosen so far (None: nothing chosen)."""
        chosen = self.choices.checkedId()
        if chosen < 0:
            return None
        if chosen == 0:
            return BlindingGuess(answer="cannot_tell")
        return BlindingGuess(answer="label", label=self._labels[chosen - 1])

    def _done(self, result: int) -> None:
        parent = self.parentWidget()
        if parent is not None:
            parent.window().activateWindow()  # the keyboard goes back to the rating window
        self._answer(self.guess() if result == QDialog.DialogCode.Accepted else None)


def ask_blinding_question(labels: list[str], parent: QWidget, answer: Answer) -> BlindingQuestion:
    """Open the question over ``parent`` (window-modal, not blocking); ``answer`` runs once it is closed."""
    dialog = BlindingQuestion(labels, answer, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    dialog.activateWindow()
    dialog.cannot_tell.setFocus(Qt.FocusReason.OtherFocusReason)
    return dialog
