"""The passphrase of an encrypted bundle, asked for in a plain dialog (once per bundle and session: the opener
keeps the keys it gives, never the passphrase).

Shown with ``open()`` (modal to the window, never blocking the event loop); OK with an empty field says what to do
instead of closing. A passphrase that does not open the bundle comes back here with the reason in
:attr:`problem`, the field emptied, to be typed again.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop.rater.app.text.accessible import plain_name
from wmcdp_desktop.rater.app.text.i18n import QT_TRANSLATE_NOOP
from wmcdp_desktop.rater.app.text.plain_text import PlainLabel, safe_line
from wmcdp_desktop.rater.app.widgets import ProblemLabel

PASSPHRASE = QT_TRANSLATE_NOOP("PassphraseDialog", "&Passphrase")
SHOW = QT_TRANSLATE_NOOP("PassphraseDialog", "&Show characters")


class PassphraseDialog(QDialog):
    def __init__(self, bundle_name: str, problem: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("passphrase_dialog")
        self.setWindowTitle(self.tr("Passphrase of {name}").format(name=safe_line(bundle_name)))
        intro = PlainLabel(
            self.tr(
                "The bundle {name} is encrypted. Type the passphrase your study coordinator gave you for it (words "
                "separated by spaces or dashes; capitals do not matter). You type it once while the app is open."
            ).format(name=safe_line(bundle_name))
        )
        self.edit = QLineEdit()
        self.edit.setObjectName("passphrase")
        self.edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.edit.setAccessibleName(plain_name(self.tr(PASSPHRASE)))
        self.edit.setAccessibleDescription(self.tr("The passphrase your study coordinator gave you for this bundle."))
        label = QLabel(self.tr(PASSPHRASE))
        label.setBuddy(self.edit)
        self.show_box = QCheckBox(self.tr(SHOW))
        self.show_box.setObjectName("show_passphrase")
        self.show_box.setAccessibleName(plain_name(self.tr(SHOW)))
        self.show_box.toggled.connect(self._show_characters)
        self.problem = ProblemLabel()
        forgotten = PlainLabel(
            self.tr(
                "Forgotten it? Ask your study coordinator: they can tell you the same passphrase again. Nothing you "
                "have already exported is lost."
            )
        )
        form = QFormLayout()
        form.addRow(label, self.edit)
        form.addRow("", self.show_box)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText(self.tr("&Open"))
        ok.setAccessibleName(plain_name(self.tr("&Open")))
        cancel = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        cancel.setAccessibleName(plain_name(cancel.text()))
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(forgotten)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(max(480, self.fontMetrics().averageCharWidth() * 60))
        if problem:
            self.problem.show_problem(problem)
        self.edit.setFocus()

    def passphrase(self) -> str:
        return self.edit.text()

    def _show_characters(self, shown: bool) -> None:
        self.edit.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)

    def _accept(self) -> None:
        if not self.edit.text().strip():
            self.problem.show_problem(self.tr("Type the passphrase, or choose Cancel."))
            self.adjustSize()
            self.edit.setFocus()
            return
        self.accept()

    def done(self, result: int) -> None:
        super().done(result)
        if result != QDialog.DialogCode.Accepted:
            self.edit.clear()  # the passphrase is not kept in a closed dialog
