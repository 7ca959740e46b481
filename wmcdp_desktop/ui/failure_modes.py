"""The failure-mode catalogue: a check box each; checking enables severity, evidence note and spans."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop.core.models.common import SpanRef
from wmcdp_desktop.core.models.rubric import FailureMode, Rubric
from wmcdp_desktop.core.rater.rating_session import FAULT_SEVERITIES, FailureModeEntry
from wmcdp_desktop.ui.combo import ChoiceBox
from wmcdp_desktop.ui.plain_text import PlainLabel, plain_tooltip, safe_line
from wmcdp_desktop.ui.problem_label import ProblemLabel

USE_SELECTION = "Use selected text as evidence"
CLEAR_SPANS = "Clear evidence quotes"


class FailureModeRow(QWidget):
    changed = Signal(str, object, object, object)  # fm id, checked|None, severity|"keep", note|None
    useSelection = Signal(str)
    clearSpans = Signal(str)

    def __init__(self, fm: FailureMode, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fm = fm
        self.setObjectName(fm.id)
        g = fm.severity_guidance
        guidance = {"minor": g.minor, "moderate": g.moderate, "major": g.major, "critical": g.critical}
        self.check = QCheckBox(safe_line(fm.label))
        self.check.setAccessibleName(safe_line(fm.label))
        self.check.setToolTip(plain_tooltip(fm.description + "\n\n" + "\n".join(f"{k}: {v}" for k, v in guidance.items())))
        self.details = QWidget()
        self.severity_label = QLabel("Severity")
        self.severity = ChoiceBox()
        self.severity.setAccessibleName("Severity")
        self.severity.setPlaceholderText("Choose severity…")
        for sev in FAULT_SEVERITIES:
            self.severity.addItem(sev, sev)
            self.severity.setItemData(self.severity.count() - 1, plain_tooltip(guidance[sev]), Qt.ItemDataRole.ToolTipRole)
        self.severity.setCurrentIndex(-1)
        self.severity_label.setBuddy(self.severity)
        self.note_label = QLabel("Evidence note")
        self.note = QLineEdit()
        self.note.setAccessibleName("Evidence note")
        self.note_label.setBuddy(self.note)
        self.use_selection = QPushButton(USE_SELECTION)
        self.use_selection.setAccessibleName(USE_SELECTION)
        self.use_selection.setToolTip("Select words in the response you are rating, then press this.")
        self.clear_spans = QPushButton(CLEAR_SPANS)
        self.clear_spans.setAccessibleName(CLEAR_SPANS)
        self.spans_label = PlainLabel("")
        self.problem = ProblemLabel()

        row1 = QHBoxLayout()
        row1.setContentsMargins(0, 0, 0, 0)
        row1.addWidget(self.severity_label)
        row1.addWidget(self.severity)
        row1.addWidget(self.note_label)
        row1.addWidget(self.note, 1)
        row2 = QHBoxLayout()
        row2.setContentsMargins(0, 0, 0, 0)
        row2.addWidget(self.use_selection)
        row2.addWidget(self.clear_spans)
        row2.addStretch(1)
        dl = QVBoxLayout(self.details)
        dl.setContentsMargins(24, 0, 0, 0)
        dl.setSpacing(2)
        dl.addLayout(row1)
        dl.addLayout(row2)
        dl.addWidget(self.spans_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.setSpacing(2)
        layout.addWidget(self.check)
        layout.addWidget(self.details)
        layout.addWidget(self.problem)

        self.check.toggled.connect(self._on_check)
        self.severity.activated.connect(self._on_severity)
        self.note.textEdited.connect(lambda text: self.changed.emit(self.fm.id, None, "keep", text))
        self.use_selection.clicked.connect(lambda: self.useSelection.emit(self.fm.id))
        self.clear_spans.clicked.connect(lambda: self.clearSpans.emit(self.fm.id))
        self._sync_enabled()
        self.show_spans([])

    def _sync_enabled(self) -> None:
        on = self.check.isChecked()
        self.details.setEnabled(on)
        self.details.setVisible(on)

    def _on_check(self, checked: bool) -> None:
        self._sync_enabled()
        self.changed.emit(self.fm.id, checked, "keep", None)

    def _on_severity(self, index: int) -> None:
        self.changed.emit(self.fm.id, None, self.severity.itemData(index), None)

    def show_spans(self, spans: list[SpanRef]) -> None:
        if spans:
            self.spans_label.setText("\n".join(f"“{s.quote or ''}” (characters {s.start}–{s.end})" for s in spans))
        else:
            self.spans_label.setText("No evidence quotes yet.")
        self.clear_spans.setEnabled(bool(spans))

    def load(self, entry: FailureModeEntry | None) -> None:
        entry = entry or FailureModeEntry()
        for w in (self.check, self.severity, self.note):
            w.blockSignals(True)
        self.check.setChecked(entry.checked)
        self.severity.setCurrentIndex(-1 if entry.severity is None else self.severity.findData(entry.severity))
        self.note.setText(entry.note)
        for w in (self.check, self.severity, self.note):
            w.blockSignals(False)
        self._sync_enabled()
        self.show_spans(entry.spans)


class FailureModesPanel(QGroupBox):
    changed = Signal(str, object, object, object)
    useSelection = Signal(str)
    clearSpans = Signal(str)

    def __init__(self, rubric: Rubric, parent: QWidget | None = None) -> None:
        super().__init__("Failure modes", parent)
        self.setAccessibleName("Failure modes")
        layout = QVBoxLayout(self)
        hint = PlainLabel("Tick each failure you see in the response; leave the others unticked (absent).")
        layout.addWidget(hint)
        self.rows: dict[str, FailureModeRow] = {}
        for fm in rubric.failure_modes:
            row = FailureModeRow(fm)
            row.changed.connect(self.changed)
            row.useSelection.connect(self.useSelection)
            row.clearSpans.connect(self.clearSpans)
            layout.addWidget(row)
            self.rows[fm.id] = row
