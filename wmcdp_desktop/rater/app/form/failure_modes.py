"""The failure-mode catalogue: a check box each; checking enables severity, evidence note and spans."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, Signal
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
from wmcdp_desktop.rater.app.text.accessible import set_read_only
from wmcdp_desktop.rater.app.text.i18n import QT_TRANSLATE_NOOP, number
from wmcdp_desktop.rater.app.text.plain_text import (
    PlainLabel,
    keep_controls_visible,
    literal_ampersands,
    plain_tooltip,
    safe_line,
    set_plain_tooltip,
)
from wmcdp_desktop.rater.app.widgets import ChoiceBox, ProblemLabel
from wmcdp_desktop.rater.working_rating import FAULT_SEVERITIES, FailureModeEntry

USE_SELECTION = QT_TRANSLATE_NOOP("FailureModeRow", "Use selected text as evidence")
CLEAR_SPANS = QT_TRANSLATE_NOOP("FailureModeRow", "Clear evidence quotes")
FAILURE_MODES_HINT = QT_TRANSLATE_NOOP(
    "FailureModesPanel",
    "Tick each failure mode you see in the response and choose its severity; leave the others unticked (they "
    "are recorded as absent).",
)
"""One wording for failure modes in the form, the rubric help and the default rubric's instructions."""
SEVERITY_NAMES = {
    "minor": QT_TRANSLATE_NOOP("FailureModeRow", "minor"),
    "moderate": QT_TRANSLATE_NOOP("FailureModeRow", "moderate"),
    "major": QT_TRANSLATE_NOOP("FailureModeRow", "major"),
    "critical": QT_TRANSLATE_NOOP("FailureModeRow", "critical"),
}


class FailureModeRow(QWidget):
    changed = Signal(str, object, object, object)  # fm id, checked|None, severity|"keep", note|None
    useSelection = Signal(str)
    clearSpans = Signal(str)
    focused = Signal()

    def __init__(self, fm: FailureMode, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fm = fm
        self.setObjectName(fm.id)
        g = fm.severity_guidance
        guidance = {"minor": g.minor, "moderate": g.moderate, "major": g.major, "critical": g.critical}
        name = safe_line(fm.label)
        self.check = QCheckBox(literal_ampersands(name))  # the rubric's "&" is shown, not an Alt key
        self.check.setAccessibleName(name)
        lines = "\n".join(f"{self.tr(SEVERITY_NAMES[k])}: {v}" for k, v in guidance.items())
        set_plain_tooltip(self.check, fm.description + "\n\n" + lines)
        self.details = QWidget()
        self.severity_label = QLabel(self.tr("Severity"))
        self.severity = ChoiceBox()
        self.severity.setAccessibleName(self.tr("Severity: {failure_mode}").format(failure_mode=name))
        self.severity.setPlaceholderText(self.tr("Choose severity…"))
        for sev in FAULT_SEVERITIES:
            self.severity.addItem(self.tr(SEVERITY_NAMES[sev]), sev)
            self.severity.setItemData(self.severity.count() - 1, plain_tooltip(guidance[sev]), Qt.ItemDataRole.ToolTipRole)
        self.severity.setCurrentIndex(-1)
        self.severity_label.setBuddy(self.severity)
        self.note_label = QLabel(self.tr("Evidence note"))
        self.note = QLineEdit()
        self.note.setAccessibleName(self.tr("Evidence note: {failure_mode}").format(failure_mode=name))
        self.note_label.setBuddy(self.note)
        self.use_selection = QPushButton(self.tr(USE_SELECTION))
        self.use_selection.setAccessibleName(
            self.tr("Use selected text as evidence: {failure_mode}").format(failure_mode=name)
        )
        self.use_selection.setToolTip(
            self.tr("Select words in the response you are rating, then press this (Ctrl+Shift+E).")
        )
        self.clear_spans = QPushButton(self.tr(CLEAR_SPANS))
        self.clear_spans.setAccessibleName(self.tr("Clear evidence quotes: {failure_mode}").format(failure_mode=name))
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
        keep_controls_visible(self.note)
        self.use_selection.clicked.connect(lambda: self.useSelection.emit(self.fm.id))
        self.clear_spans.clicked.connect(lambda: self.clearSpans.emit(self.fm.id))
        self._sync_enabled()
        self.show_spans([])
        for w in (self.check, self.severity, self.note, self.use_selection, self.clear_spans):
            w.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.FocusIn:
            self.focused.emit()
        return False

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
            self.spans_label.setText(
                "\n".join(
                    self.tr("“{quote}” (characters {start}–{end})").format(quote=s.quote or "", start=number(s.start), end=number(s.end))
                    for s in spans
                )
            )
        else:
            self.spans_label.setText(self.tr("No evidence quotes yet."))
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

    def set_read_only(self, read_only: bool) -> None:
        """A submitted rating: legible and reachable, changing nothing (never greyed out)."""
        for w in (self.check, self.severity):
            set_read_only(w, read_only)
        self.note.setReadOnly(read_only)
        self.use_selection.setVisible(not read_only)
        self.clear_spans.setVisible(not read_only)


class FailureModesPanel(QGroupBox):
    changed = Signal(str, object, object, object)
    useSelection = Signal(str)
    clearSpans = Signal(str)
    focused = Signal(str)
    """A failure mode's controls got the keyboard focus (its id: the rubric help follows it)."""

    def __init__(self, rubric: Rubric, parent: QWidget | None = None) -> None:
        super().__init__(QCoreApplication.translate("FailureModesPanel", "Failure modes"), parent)
        self.setAccessibleName(self.title())
        layout = QVBoxLayout(self)
        hint = PlainLabel(self.tr(FAILURE_MODES_HINT))
        layout.addWidget(hint)
        self.rows: dict[str, FailureModeRow] = {}
        self.last_row: FailureModeRow | None = None
        """The failure mode whose controls last had the keyboard focus (where Ctrl+Shift+E puts a quote)."""
        for fm in rubric.failure_modes:
            row = FailureModeRow(fm)
            row.focused.connect(lambda r=row: self._row_focused(r))
            row.changed.connect(self.changed)
            row.useSelection.connect(self.useSelection)
            row.clearSpans.connect(self.clearSpans)
            layout.addWidget(row)
            self.rows[fm.id] = row

    def _row_focused(self, row: FailureModeRow) -> None:
        self.last_row = row
        self.focused.emit(row.fm.id)

    def set_read_only(self, read_only: bool) -> None:
        for row in self.rows.values():
            row.set_read_only(read_only)

    def evidence_target(self) -> FailureModeRow | None:
        """Where "Use selected text as evidence" (Ctrl+Shift+E) quotes: the ticked failure mode last in focus,
        else the only ticked one; None when that is not clear."""
        ticked = [row for row in self.rows.values() if row.check.isChecked()]
        if self.last_row is not None and self.last_row in ticked:
            return self.last_row
        return ticked[0] if len(ticked) == 1 else None
