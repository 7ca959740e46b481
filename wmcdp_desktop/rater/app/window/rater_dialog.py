"""Asked once: the rater's id (and optional role/background)."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from wmcdp_desktop.core.ids import MAX_ID_LENGTH, IdIssue, id_issue
from wmcdp_desktop.rater.app.text.accessible import plain_name
from wmcdp_desktop.rater.app.text.i18n import QT_TRANSLATE_NOOP, number
from wmcdp_desktop.rater.app.text.plain_text import PlainLabel
from wmcdp_desktop.rater.app.widgets import ProblemLabel

RATER_ID = QT_TRANSLATE_NOOP("RaterDialog", "Rater &id")
ROLE = QT_TRANSLATE_NOOP("RaterDialog", "&Role or background (optional)")


class RaterDialog(QDialog):
    def __init__(self, rater_id: str | None, role: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Who is rating?"))
        intro = PlainLabel(
            self.tr(
                "Enter the rater id your study coordinator gave you (letters, digits, - _ and . without spaces). "
                "It goes into every rating you submit, names the folder your ratings are kept in, and is "
                "remembered on this computer."
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
        issue = id_issue(self.rater_id())
        if issue is not None:
            self.problem.show_problem(self.issue_text(issue))
            self.adjustSize()  # grow to fit the message instead of squeezing the text above it
            self.id_edit.setFocus()
            return
        self.accept()

    def issue_text(self, issue: IdIssue) -> str:
        """Why the id cannot be used, in the rater's language (the one id rule: core/models/common.py)."""
        rule = self.tr(
            "A rater id may hold only letters A-Z, digits, - _ and . (at most {max} characters, starting with a "
            "letter or digit)."
        ).format(max=number(MAX_ID_LENGTH))
        char = issue.char
        if issue.kind == "empty":
            return self.tr("Enter your rater id.")
        if issue.kind == "too_long":
            return self.tr("This rater id has {n} characters; it may have at most {max}.").format(
                n=number(issue.length), max=number(MAX_ID_LENGTH)
            )
        if issue.kind == "reserved":
            return self.tr(
                "{name} is a reserved name on Windows (CON, PRN, AUX, NUL, COM1-9 and LPT1-9) and cannot name "
                "your folder; choose another rater id."
            ).format(name=char)
        if issue.kind == "space":
            if issue.suggestion:
                return self.tr("A rater id cannot contain spaces: use for example {suggestion}").format(
                    suggestion=issue.suggestion
                )
            return self.tr("A rater id cannot contain spaces. {rule}").format(rule=rule)
        if issue.kind == "trailing_dot":
            return self.tr("A rater id cannot end with a dot.")
        if issue.kind == "start":
            return self.tr("A rater id must start with a letter or digit, not {char}. {rule}").format(char=char, rule=rule)
        if issue.kind == "invisible":
            return self.tr("The rater id holds an invisible character (U+{code}). {rule}").format(
                code=f"{ord(char):04X}", rule=rule
            )
        return self.tr("A rater id cannot contain {char}. {rule}").format(char=char, rule=rule)
