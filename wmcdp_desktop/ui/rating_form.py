"""The right-hand rating form: status banner, timer, scores, failure modes, notes, submit, calibration."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QMessageBox,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop.core.errors import Problem, WmcdpError
from wmcdp_desktop.core.rater.rating_session import RatingSession, WorkingRating
from wmcdp_desktop.ui.accessible import announce, button, describe, plain_name
from wmcdp_desktop.ui.calibration_view import CalibrationView
from wmcdp_desktop.ui.failure_modes import FailureModesPanel
from wmcdp_desktop.ui.i18n import QT_TRANSLATE_NOOP, format_datetime
from wmcdp_desktop.ui.notes_panel import NotesPanel
from wmcdp_desktop.ui.plain_text import PlainLabel
from wmcdp_desktop.ui.problem_label import ProblemLabel
from wmcdp_desktop.ui.rubric_panel import RubricPanel
from wmcdp_desktop.ui.timer_widget import TimerWidget, hms

SUBMIT = QT_TRANSLATE_NOOP("RatingForm", "S&ubmit rating")
REVISE = QT_TRANSLATE_NOOP("RatingForm", "&Revise this rating")
DISCARD = QT_TRANSLATE_NOOP("RatingForm", "&Discard revision")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


class RatingForm(QWidget):
    submitRequested = Signal()
    reviseRequested = Signal()
    discardRequested = Signal()

    def __init__(
        self,
        session: RatingSession,
        selection: Callable[[], tuple[int, int] | None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self._selection = selection
        self._loading = False
        self.first_problem: ProblemLabel | None = None
        """The message of the first control with a problem after the last failed submit."""

        self.banner = QFrame()
        self.banner.setObjectName("status_banner")
        self.banner.setFrameShape(QFrame.Shape.StyledPanel)
        self.banner_text = PlainLabel("")
        self.revise_button = button(self.tr(REVISE))
        self.revise_button.setToolTip(self.tr("Change this submitted rating: a new revision is written (Ctrl+Shift+R)"))
        self.discard_button = button(self.tr(DISCARD))
        bl = QHBoxLayout(self.banner)
        bl.addWidget(self.banner_text, 1)
        bl.addWidget(self.revise_button)
        bl.addWidget(self.discard_button)

        self.timer = TimerWidget()
        self.calibration = CalibrationView()
        self.rubric = RubricPanel(session.rubric)
        self.failure_modes = FailureModesPanel(session.rubric)
        self.notes = NotesPanel(session.rubric.confidence_scale)
        self.summary = ProblemLabel()
        self.summary.setObjectName("problem_summary")
        self.submit_button = button(self.tr(SUBMIT))
        self.submit_button.setToolTip(self.tr("Check and submit this rating (Ctrl+Enter)"))
        self.submit_button.setDefault(False)

        inner = QWidget()
        il = QVBoxLayout(inner)
        il.addWidget(self.banner)
        il.addWidget(self.timer)
        il.addWidget(self.calibration)
        il.addWidget(self.rubric)
        il.addWidget(self.failure_modes)
        il.addWidget(self.notes)
        il.addStretch(1)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setWidget(inner)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Not a tab stop of its own: Tab goes from control to control (the form scrolls to the one in focus).
        self.scroll_area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.scroll_area.setAccessibleName(self.tr("Rating form"))
        # The footer stays in view: the summary of problems and the submit button are never scrolled away.
        self.footer = QWidget()
        fl = QHBoxLayout(self.footer)
        fl.setContentsMargins(6, 4, 6, 4)
        fl.addWidget(self.summary, 1)
        fl.addWidget(self.submit_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scroll_area, 1)
        layout.addWidget(self.footer)

        self.rubric.scoreChanged.connect(self._score)
        self.failure_modes.changed.connect(self._fm)
        self.failure_modes.useSelection.connect(self._use_selection)
        self.failure_modes.clearSpans.connect(self._clear_spans)
        self.notes.noteChanged.connect(self._note)
        self.notes.confidenceChanged.connect(self._confidence)
        self.submit_button.clicked.connect(self.submitRequested)
        self.revise_button.clicked.connect(self.reviseRequested)
        self.discard_button.clicked.connect(self.discardRequested)
        self.timer.pauseToggled.connect(self.session.set_paused)

    # ----- loading ---------------------------------------------------------------------------------------
    def load(self) -> None:
        """Show the session's open task: the editable rating, or the submitted record read-only."""
        s = self.session
        self._loading = True
        try:
            self.clear_problems()
            rating: WorkingRating | None = s.current
            editable = rating is not None
            if rating is None and s.viewing_record is not None:
                rating = WorkingRating.from_record(s.viewing_record, s.rubric)
            if rating is None:
                return
            for dim_id, row in self.rubric.rows.items():
                row.set_value(rating.scores.get(dim_id))
            for fm_id, fm_row in self.failure_modes.rows.items():
                fm_row.load(rating.failure_modes.get(fm_id))
            self.notes.load(rating.notes, rating.confidence)
            self.rubric.set_editable(editable)
            self.failure_modes.set_read_only(not editable)
            self.notes.set_read_only(not editable)
            self.submit_button.setVisible(editable)
            self.timer.setVisible(editable)
            self._banner(rating, editable)
            rows = s.calibration_view()
            self.calibration.setVisible(rows is not None)
            if rows is not None:
                self.calibration.show_rows(rows)
        finally:
            self._loading = False

    def _banner(self, rating: WorkingRating, editable: bool) -> None:
        s = self.session
        if not editable and s.viewing_record is not None:
            env = s.viewing_record.envelope
            text = self.tr(
                "Submitted (revision {revision}) on {when}; active time {time}. The rating below is read-only. "
                "To change it, choose “{revise}”: a new revision is written and this one is kept."
            ).format(
                revision=env.revision,
                when=format_datetime(env.submitted_at),
                time=hms(s.viewing_record.time_spent_scoring_seconds or 0),
                revise=plain_name(self.tr(REVISE)),
            )
            self.banner_text.setText(text)
            self.revise_button.show()
            self.discard_button.hide()
            self.banner.show()
        elif rating.base_revision is not None:
            self.banner_text.setText(
                self.tr(
                    "Revising your submitted rating (revision {base}). Submitting writes revision {next}; "
                    "revision {base} is kept."
                ).format(base=rating.base_revision, next=rating.base_revision + 1)
            )
            self.revise_button.hide()
            self.discard_button.show()
            self.banner.show()
        else:
            self.banner.hide()
        self.banner_text.setAccessibleName(self.banner_text.text())

    # ----- edits -> session ------------------------------------------------------------------------------
    def _guard(self, action: Callable[[], object]) -> None:
        if self._loading or self.session.current is None:
            return
        try:
            action()
        except WmcdpError as exc:
            box = QMessageBox(QMessageBox.Icon.Warning, self.tr("WM-CDP Desktop"), "", parent=self)
            box.setTextFormat(Qt.TextFormat.PlainText)
            box.setText(str(exc))
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.open()

    def _score(self, dim_id: str, value: object) -> None:
        self._guard(lambda: self.session.set_score(dim_id, value))  # type: ignore[arg-type]
        row = self.rubric.rows[dim_id]
        if value is not None:
            self._fixed(row.problem)
            describe(row.slider, clear_problem=True)

    def _fm(self, fm_id: str, checked: object, severity: object, note: object) -> None:
        self._guard(
            lambda: self.session.set_failure_mode(fm_id, checked=checked, severity=severity, note=note)  # type: ignore[arg-type]
        )
        if severity not in ("keep", None) or checked is False:
            fm_row = self.failure_modes.rows[fm_id]
            self._fixed(fm_row.problem)
            describe(fm_row.severity, clear_problem=True)

    def _note(self, name: str, text: str) -> None:
        self._guard(lambda: self.session.set_note(name, text))
        if text.strip():
            self._fixed(self.notes.problems[f"clinician_notes.{name}"])
            describe(self.notes.edits[name], clear_problem=True)

    def _confidence(self, value: object) -> None:
        self._guard(lambda: self.session.set_confidence(value))  # type: ignore[arg-type]
        if value is not None:
            self._fixed(self.notes.problems["clinician_notes.confidence_rating"])
            describe(self.notes.confidence, clear_problem=True)

    def _problem_labels(self) -> list[ProblemLabel]:
        return [
            *(row.problem for row in self.rubric.rows.values()),
            *(fm_row.problem for fm_row in self.failure_modes.rows.values()),
            *self.notes.problems.values(),
        ]

    def _fixed(self, label: ProblemLabel) -> None:
        """A control's problem was dealt with: hide its message, and the summary once none is left."""
        if label.isHidden():
            return
        label.clear_problem()
        left = sum(1 for other in self._problem_labels() if not other.isHidden())
        if left == 0:
            self.summary.clear_problem()
        else:
            self.summary.show_problem(
                self.tr("Not submitted yet: %n thing(s) left to fix, shown next to each control.", "", left)
            )

    def _use_selection(self, fm_id: str) -> None:
        span = self._selection()
        row = self.failure_modes.rows[fm_id]
        if span is None:
            row.problem.show_problem(self.tr("Select some words in the response you are rating first."))
            return
        row.problem.clear_problem()
        self._guard(lambda: self.session.add_evidence_span(fm_id, *span))
        if self.session.current is not None:
            row.show_spans(self.session.current.fm(fm_id).spans)

    def use_selection_shortcut(self) -> str | None:
        """Ctrl+Shift+E: quote the selected response text as evidence for the failure mode in question;
        what to tell the rater when that failure mode is not clear (None when done)."""
        if self.session.current is None:
            return self.tr("This rating is submitted: choose “Revise this rating” to change it.")
        row = self.failure_modes.evidence_target()
        if row is None:
            return self.tr("Tick a failure mode first (or move to the one the quote is for), then press Ctrl+Shift+E.")
        self._use_selection(row.fm.id)
        return None

    def _clear_spans(self, fm_id: str) -> None:
        current = self.session.current
        if current is None:
            return
        for _ in range(len(current.fm(fm_id).spans)):
            self._guard(lambda: self.session.remove_evidence_span(fm_id, 0))
        self.failure_modes.rows[fm_id].show_spans(current.fm(fm_id).spans)

    # ----- problems ----------------------------------------------------------------------------------------
    def clear_problems(self) -> None:
        self.summary.clear_problem()
        for label in self._problem_labels():
            label.clear_problem()
        for control in self._problem_controls():
            describe(control, clear_problem=True)

    def _problem_controls(self) -> list[QWidget]:
        """The controls that a problem after submit can be about (their descriptions carry it)."""
        return [
            *(row.slider for row in self.rubric.rows.values()),
            *(fm_row.severity for fm_row in self.failure_modes.rows.values()),
            *self.notes.edits.values(),
            self.notes.confidence,
        ]

    def toggle_pause(self) -> None:
        self.timer.toggle()

    def set_read_only(self) -> None:
        """No control can change the rating any more (the text stays selectable and copyable)."""
        self.rubric.set_editable(False)
        self.failure_modes.set_read_only(True)
        self.notes.set_read_only(True)
        self.submit_button.setEnabled(False)
        self.timer.setEnabled(False)

    # ----- time --------------------------------------------------------------------------------------------
    def show_time(self, seconds: float, status: str, paused: bool) -> None:
        self.timer.show_time(seconds, status)
        self.timer.set_paused(paused)

    # ----- focus ---------------------------------------------------------------------------------------------
    def scroll_to_top(self) -> None:
        self.scroll_area.verticalScrollBar().setValue(0)

    def show_feedback(self) -> None:
        """Scroll to the calibration feedback (at the top of the form) and give it the keyboard focus."""
        self.scroll_to_top()
        self.calibration.focus_text()

    def focus_start(self) -> None:
        """Scroll to the top and put the keyboard focus where this task's work starts: the first score (of an
        editable rating, or of a submitted one, read-only: no key press can change it); the first control
        that takes the focus when that score is N/A; the status banner's button when the form is empty."""
        self.scroll_to_top()
        first: QWidget | None = next((row.slider for row in self.rubric.rows.values() if row.slider.isEnabled()), None)
        if first is None:
            first = self.revise_button if self.revise_button.isVisible() else self.submit_button
        first.setFocus(Qt.FocusReason.OtherFocusReason)

    def reveal(self, control: QWidget, message: QWidget | None = None) -> None:
        """Scroll so that ``control`` and its problem ``message`` (just shown, laid out on the next pass) are both
        in view, the control winning when they cannot both fit."""
        self.scroll_area.ensureWidgetVisible(control)

        def later() -> None:
            if message is not None and not message.isHidden():
                self.scroll_area.ensureWidgetVisible(message)
            self.scroll_area.ensureWidgetVisible(control)

        QTimer.singleShot(0, later)

    def show_problems(self, problems: list[Problem]) -> QWidget | None:
        """Show every problem next to its control; returns the first control to focus."""
        self.clear_problems()
        first: QWidget | None = None
        unplaced: list[str] = []
        by_label: dict[ProblemLabel, list[str]] = {}
        control_of: dict[ProblemLabel, QWidget] = {}
        for p in problems:
            label: ProblemLabel | None = None
            focus: QWidget | None = None
            if p.path.startswith("scoring."):
                row = self.rubric.row_for_field(p.path.removeprefix("scoring."))
                if row is not None:
                    label, focus = row.problem, row.slider
                    if row.value() is None:  # the app's own words (translated), not the core's
                        message = self.tr("Not set yet. Choose a score or tick N/A.") if row.na is not None else self.tr(
                            "Not set yet. Choose a score."
                        )
                    else:
                        message = _cap(p.message.removeprefix(f"{row.dim.label}: "))
                    p = Problem(p.file, p.path, message)
            elif p.path.startswith(("failure_mode_annotations.", "failure_mode_evidence")):
                fm_id = p.path.split(".", 1)[1].split("[", 1)[0]
                fm_row = self.failure_modes.rows.get(fm_id)
                if fm_row is not None:
                    label, focus = fm_row.problem, fm_row.severity
                    if fm_row.check.isChecked() and fm_row.severity.currentIndex() < 0:
                        message = self.tr("Choose a severity.")
                    else:
                        message = _cap(p.message.removeprefix(f"{fm_row.fm.label}: "))
                    p = Problem(p.file, p.path, message)
            elif p.path in self.notes.problems:
                label = self.notes.problems[p.path]
                name = p.path.removeprefix("clinician_notes.")
                focus = self.notes.edits.get(name) or self.notes.confidence
                if name == "brief_rationale" and not self.notes.edits[name].toPlainText().strip():
                    p = Problem(p.file, p.path, self.tr("A brief rationale is required."))
            if label is None:
                unplaced.append(p.message)
                continue
            by_label.setdefault(label, []).append(p.message)
            if focus is not None:
                control_of.setdefault(label, focus)
            if first is None:
                first = focus
        for label, messages in by_label.items():
            label.show_problem(" ".join(messages))
            if label in control_of:  # a screen reader reads the problem with the control
                describe(control_of[label], problem=label.text())
        self.first_problem = next(iter(by_label), None)
        n = len(problems)
        summary = self.tr("Not submitted: %n thing(s) to fix, shown next to each control.", "", n)
        if unplaced:
            summary += "\n" + "\n".join(unplaced)
        self.summary.show_problem(summary)
        announce(self.summary, self.summary.text())
        return first

    def show_problems_and_focus(self, problems: list[Problem]) -> None:
        """:meth:`show_problems`, then the focus on the first control with a problem, scrolled into view."""
        first = self.show_problems(problems)
        if first is not None:
            if self.first_problem is not None:  # read with the control too: not every screen reader speaks
                # announcements (Orca 43 does not), but every one reads the focused control's description
                describe(first, problem=f"{self.first_problem.text()}\n{self.summary.text()}")
            first.setFocus(Qt.FocusReason.OtherFocusReason)
            self.reveal(first, self.first_problem)
