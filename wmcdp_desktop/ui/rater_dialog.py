"""Asked once: the rater's id (and optional role/background)."""

from __future__ import annotations

import re

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from wmcdp_desktop.core.models.common import IDENTIFIER_PATTERN
from wmcdp_desktop.ui.accessible import plain_name
from wmcdp_desktop.ui.i18n import QT_TRANSLATE_NOOP
from wmcdp_desktop.ui.plain_text import PlainLabel
from wmcdp_desktop.ui.problem_label import ProblemLabel

RATER_ID = QT_TRANSLATE_NOOP("RaterDialog", "Rater &id")
ROLE = QT_TRANSLATE_NOOP("RaterDialog", "&Role or background (optional)")


class RaterDialog(QDialog):
    def __init__(self, rater_id: str | None, role: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Who is rating?"))
        intro = PlainLabel(
            self.tr(
                "Enter the rater id your study coordinator gave you (letters, digits and . _ : -). It goes into "
                "every rating you submit and is remembered on this computer."
            )
        )
        self.id_edit = QLineEdit(rater_id or "")
        self.id_edit.setAccessibleName(plain_name(self.tr(RATER_ID)))
        self.role_edit = QLineEdit(role or "")
        self.role_edit.setAccessibleName(plain_name(self.tr(ROLE)))
        self.role_edit.setPlaceholderText(self.tr("e.g. child psychologist"))
        self.problem = ProblemLabel()
        form = QFormLayout()
        id_label = QLabel(self.tr(RATER_ID))
        id_label.setBuddy(self.id_edit)
        role_label = QLabel(self.tr(ROLE))
        role_label.setBuddy(self.role_edit)
        form.addRow(id_label, self.id_edit)
        form.addRow(role_label, self.role_edit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.setMinimumWidth(max(480, self.fontMetrics().averageCharWidth() * 60))

    def rater_id(self) -> str:
        return self.id_edit.text().strip()

    def role(self) -> str | None:
        return self.role_edit.text().strip() or None

    def _accept(self) -> None:
        rater_id = self.rater_id()
        if not re.fullmatch(IDENTIFIER_PATTERN.strip("^$"), rater_id):
            suggestion = re.sub(r"\s+", "_", rater_id)
            if rater_id and re.search(r"\s", rater_id) and re.fullmatch(IDENTIFIER_PATTERN.strip("^$"), suggestion):
                message = self.tr("A rater id cannot contain spaces: use for example {suggestion}").format(
                    suggestion=suggestion
                )
            else:
                message = self.tr(
                    "Enter a rater id of 1-128 letters, digits and . _ : - (starting with a letter or digit)."
                )
            self.problem.show_problem(message)
            self.adjustSize()  # grow to fit the message instead of squeezing the text above it
            self.id_edit.setFocus()
            return
        self.accept()
