"""The clinician's notes: brief rationale (required), best aspect, main concern, better move, confidence."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from wmcdp_desktop.core.models.rubric import Scale
from wmcdp_desktop.rater.app.text.accessible import name_scroll_bars, set_read_only
from wmcdp_desktop.rater.app.text.i18n import QT_TRANSLATE_NOOP
from wmcdp_desktop.rater.app.text.plain_text import keep_controls_visible, safe_line
from wmcdp_desktop.rater.app.widgets import ChoiceBox, ProblemLabel
from wmcdp_desktop.rater.working_rating import NOTE_FIELDS

NOTE_LABELS = {
    "brief_rationale": QT_TRANSLATE_NOOP("NotesPanel", "Brief rationale (required)"),
    "best_aspect": QT_TRANSLATE_NOOP("NotesPanel", "Best aspect"),
    "main_concern": QT_TRANSLATE_NOOP("NotesPanel", "Main concern"),
    "suggested_better_clinical_move": QT_TRANSLATE_NOOP("NotesPanel", "Suggested better clinical move"),
}
CONFIDENCE = QT_TRANSLATE_NOOP("NotesPanel", "Confidence in this rating")


class NoteEdit(QPlainTextEdit):
    """A short multi-line plain-text field; Tab moves on (it never inserts a tab)."""

    def __init__(self, name: str, lines: int) -> None:
        super().__init__()
        self.setTabChangesFocus(True)
        self.setAccessibleName(name)
        self.setObjectName(name)
        height = self.fontMetrics().lineSpacing() * lines + 14
        self.setMinimumHeight(height)
        self.setMaximumHeight(height + self.fontMetrics().lineSpacing() * 3)
        keep_controls_visible(self)
        name_scroll_bars(self, name)


class NotesPanel(QGroupBox):
    noteChanged = Signal(str, str)
    confidenceChanged = Signal(object)

    def __init__(self, confidence_scale: Scale, parent: QWidget | None = None) -> None:
        super().__init__(QCoreApplication.translate("NotesPanel", "Notes"), parent)
        self.setAccessibleName(self.title())
        form = QFormLayout()
        self.edits: dict[str, NoteEdit] = {}
        self.problems: dict[str, ProblemLabel] = {}
        outer = QVBoxLayout(self)
        outer.addLayout(form)
        for name in NOTE_FIELDS:
            label = QLabel(self.tr(NOTE_LABELS[name]))
            edit = NoteEdit(self.tr(NOTE_LABELS[name]), 3 if name == "brief_rationale" else 2)
            label.setBuddy(edit)
            edit.textChanged.connect(lambda n=name, e=edit: self.noteChanged.emit(n, e.toPlainText()))
            box = QVBoxLayout()
            box.setSpacing(2)
            box.addWidget(edit)
            problem = ProblemLabel()
            box.addWidget(problem)
            form.addRow(label, box)
            self.edits[name] = edit
            self.problems[f"clinician_notes.{name}"] = problem
        self.confidence_label = QLabel(self.tr(CONFIDENCE))
        self.confidence = ChoiceBox()
        self.confidence.setAccessibleName(self.tr(CONFIDENCE))
        self.confidence.setPlaceholderText(self.tr("Not set"))
        self.confidence.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.confidence.setMinimumContentsLength(24)
        for a in confidence_scale.anchors:
            self.confidence.addItem(safe_line(f"{a.level} – {a.text}"), a.level)
        self.confidence.setCurrentIndex(-1)
        self.confidence_label.setBuddy(self.confidence)
        self.confidence.activated.connect(lambda i: self.confidenceChanged.emit(self.confidence.itemData(i)))
        cbox = QVBoxLayout()
        cbox.addWidget(self.confidence)
        problem = ProblemLabel()
        cbox.addWidget(problem)
        self.problems["clinician_notes.confidence_rating"] = problem
        form.addRow(self.confidence_label, cbox)

    def load(self, notes: dict[str, str], confidence: int | None) -> None:
        for name, edit in self.edits.items():
            edit.blockSignals(True)
            if edit.toPlainText() != notes.get(name, ""):
                edit.setPlainText(notes.get(name, ""))
            edit.blockSignals(False)
        self.confidence.blockSignals(True)
        self.confidence.setCurrentIndex(-1 if confidence is None else self.confidence.findData(confidence))
        self.confidence.blockSignals(False)

    def set_read_only(self, read_only: bool) -> None:
        """A submitted rating: the notes can be read, selected and copied, not changed (never greyed out)."""
        for edit in self.edits.values():
            edit.setReadOnly(read_only)
            if read_only:  # still read by the keyboard: the caret moves, the text can be selected
                edit.setTextInteractionFlags(
                    Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
                )
            else:
                edit.setTextInteractionFlags(Qt.TextInteractionFlag.TextEditorInteraction)
        set_read_only(self.confidence, read_only)
