"""The rater's answers other than a rating: "cannot rate this task" (a reason from a short list) and a flag
with a note for the study coordinator. Both are saved in the draft and submitted like a rating
(``core/models/cannot_rate_record.py``)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop.core.models.cannot_rate_record import CANNOT_RATE_REASONS, MAX_DETAIL
from wmcdp_desktop.core.models.rating_record import MAX_FLAG_NOTE
from wmcdp_desktop.rater.app.text.accessible import button, describe, set_read_only
from wmcdp_desktop.rater.app.text.plain_text import PlainLabel, keep_controls_visible
from wmcdp_desktop.rater.app.widgets import ProblemLabel, WrapRow
from wmcdp_desktop.rater.working_rating import CannotRateEntry


class CannotRatePanel(QGroupBox):
    """Shown instead of the scores while the task is marked "cannot rate": why (one reason) and, for "other"
    (or if the rater wants), a few words."""

    reasonChosen = Signal(str)
    detailEdited = Signal(str)
    backToRating = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Cannot rate: your reason"))
        self.setAccessibleName(self.tr("Cannot rate: your reason"))
        self.hint = PlainLabel(
            self.tr(
                "This task will be sent to your coordinator as “cannot rate”, with your reason, instead of a "
                "rating. What you entered in the rating is kept here, not sent: choose “Rate it after all” to "
                "go back to it."
            )
        )
        labels = {
            "content_broken_or_truncated": self.tr("The content is broken or cut off"),
            "outside_expertise": self.tr("It is outside my expertise"),
            "conflict_of_interest": self.tr("I have a conflict of interest"),
            "other": self.tr("Other (say why below)"),
        }
        self.reason_label = QLabel(self.tr("Why can you not rate it?"))
        self.group = QButtonGroup(self)
        self.reasons: dict[str, QRadioButton] = {}
        box = QVBoxLayout()
        box.setSpacing(2)
        for reason in CANNOT_RATE_REASONS:
            radio = QRadioButton(labels[reason])
            radio.setAccessibleName(labels[reason])
            self.group.addButton(radio)
            self.reasons[reason] = radio
            radio.toggled.connect(lambda on, r=reason: self._chosen(on, r))
            box.addWidget(radio, 0, Qt.AlignmentFlag.AlignLeft)  # as wide as its words: a click there picks it
        self.reason_problem = ProblemLabel()
        self.detail_label = QLabel(self.tr("In a few words (required for Other)"))
        self.detail = QLineEdit()
        self.detail.setAccessibleName(self.tr("Why you cannot rate it, in a few words"))
        self.detail.setMaxLength(MAX_DETAIL)
        self.detail_label.setBuddy(self.detail)
        self.detail.textEdited.connect(self.detailEdited)
        keep_controls_visible(self.detail)
        self.detail_problem = ProblemLabel()
        self.back = button(self.tr("Rate it &after all"))
        self.back.clicked.connect(self.backToRating)
        layout = QVBoxLayout(self)
        layout.addWidget(self.hint)
        layout.addWidget(self.reason_label)
        layout.addLayout(box)
        layout.addWidget(self.reason_problem)
        layout.addWidget(self.detail_label)
        layout.addWidget(self.detail)
        layout.addWidget(self.detail_problem)
        row = QHBoxLayout()
        row.addWidget(self.back)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addStretch(1)

    def _chosen(self, on: bool, reason: str) -> None:
        if on:
            self.reasonChosen.emit(reason)

    def load(self, entry: CannotRateEntry | None) -> None:
        """Show ``entry`` without emitting changes."""
        blocked = [b.blockSignals(True) for b in (*self.reasons.values(), self.detail)]
        self.group.setExclusive(False)
        for reason, radio in self.reasons.items():
            radio.setChecked(entry is not None and entry.reason == reason)
        self.group.setExclusive(True)
        if self.detail.text() != (entry.detail if entry else ""):
            self.detail.setText(entry.detail if entry else "")
        for b, was in zip((*self.reasons.values(), self.detail), blocked, strict=True):
            b.blockSignals(was)

    def first_reason(self) -> QRadioButton:
        return next(iter(self.reasons.values()))

    def set_read_only(self, read_only: bool) -> None:
        """A submitted "cannot rate": legible and reachable, changing nothing."""
        for reason in self.reasons.values():
            set_read_only(reason, read_only)
            describe(reason, problem=self.tr("(submitted: read-only)") if read_only else "", clear_problem=not read_only)
        self.detail.setReadOnly(read_only)
        self.back.setVisible(not read_only)


class FlagRow(QWidget):
    """The note for the coordinator, shown while the task is flagged."""

    noteEdited = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(self.tr("Note for your coordinator"))
        self.note = QLineEdit()
        self.note.setAccessibleName(self.tr("Note for your coordinator"))
        self.note.setPlaceholderText(self.tr("What should your coordinator look at?"))
        self.note.setMaxLength(MAX_FLAG_NOTE)
        self.label.setBuddy(self.note)
        self.note.textEdited.connect(self.noteEdited)
        keep_controls_visible(self.note)
        self.problem = ProblemLabel()
        self.note.setMinimumWidth(self.note.fontMetrics().averageCharWidth() * 16)
        line = QWidget()
        wrap = WrapRow(line, fill=True)  # the note beside its label, or under it on a narrow form
        wrap.addWidget(self.label)
        wrap.addWidget(self.note)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(line)
        layout.addWidget(self.problem)

    def set_read_only(self, read_only: bool) -> None:
        self.note.setReadOnly(read_only)

    def load(self, note: str | None) -> None:
        blocked = self.note.blockSignals(True)
        if self.note.text() != (note or ""):
            self.note.setText(note or "")
        self.note.blockSignals(blocked)
        self.setVisible(note is not None)
