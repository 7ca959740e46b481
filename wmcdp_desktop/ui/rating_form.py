"""The right-hand rating form: status banner, timer, scores, failure modes, notes, submit, calibration."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop.core.errors import Problem, WmcdpError
from wmcdp_desktop.core.rater.rating_session import RatingSession, WorkingRating
from wmcdp_desktop.ui.calibration_view import CalibrationView
from wmcdp_desktop.ui.failure_modes import FailureModesPanel
from wmcdp_desktop.ui.notes_panel import NotesPanel
from wmcdp_desktop.ui.plain_text import PlainLabel
from wmcdp_desktop.ui.problem_label import ProblemLabel
from wmcdp_desktop.ui.rubric_panel import RubricPanel
from wmcdp_desktop.ui.timer_widget import TimerWidget, hms, local_time

SUBMIT = "Submit rating"
REVISE = "Revise this rating"
DISCARD = "Discard revision"


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
        self.revise_button = QPushButton(REVISE)
        self.revise_button.setAccessibleName(REVISE)
        self.discard_button = QPushButton(DISCARD)
        self.discard_button.setAccessibleName(DISCARD)
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
        self.submit_button = QPushButton(SUBMIT)
        self.submit_button.setAccessibleName(SUBMIT)
        self.submit_button.setToolTip("Check and submit this rating (Ctrl+Enter)")
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
            self.failure_modes.setEnabled(editable)
            self.notes.setEnabled(editable)
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
            text = (
                f"Submitted (revision {env.revision}) on {local_time(env.submitted_at, '%Y-%m-%d at %H:%M')}; "
                "active time "
                f"{hms(s.viewing_record.time_spent_scoring_seconds or 0)}. To change it, choose “{REVISE}”: "
                "a new revision is written and this one is kept."
            )
            self.banner_text.setText(text)
            self.revise_button.show()
            self.discard_button.hide()
            self.banner.show()
        elif rating.base_revision is not None:
            self.banner_text.setText(
                f"Revising your submitted rating (revision {rating.base_revision}). Submitting writes revision "
                f"{rating.base_revision + 1}; revision {rating.base_revision} is kept."
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
            box = QMessageBox(QMessageBox.Icon.Warning, "WM-CDP Desktop", "", parent=self)
            box.setTextFormat(Qt.TextFormat.PlainText)
            box.setText(str(exc))
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.open()

    def _score(self, dim_id: str, value: object) -> None:
        self._guard(lambda: self.session.set_score(dim_id, value))  # type: ignore[arg-type]
        row = self.rubric.rows[dim_id]
        if value is not None:
            self._fixed(row.problem)

    def _fm(self, fm_id: str, checked: object, severity: object, note: object) -> None:
        self._guard(
            lambda: self.session.set_failure_mode(fm_id, checked=checked, severity=severity, note=note)  # type: ignore[arg-type]
        )
        if severity not in ("keep", None) or checked is False:
            self._fixed(self.failure_modes.rows[fm_id].problem)

    def _note(self, name: str, text: str) -> None:
        self._guard(lambda: self.session.set_note(name, text))
        if text.strip():
            self._fixed(self.notes.problems[f"clinician_notes.{name}"])

    def _confidence(self, value: object) -> None:
        self._guard(lambda: self.session.set_confidence(value))  # type: ignore[arg-type]
        if value is not None:
            self._fixed(self.notes.problems["clinician_notes.confidence_rating"])

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
            self.summary.show_problem(f"Not submitted yet: {left} thing{'s' if left != 1 else ''} left to fix, shown next to each control.")

    def _use_selection(self, fm_id: str) -> None:
        span = self._selection()
        row = self.failure_modes.rows[fm_id]
        if span is None:
            row.problem.show_problem("Select some words in the response you are rating first.")
            return
        row.problem.clear_problem()
        self._guard(lambda: self.session.add_evidence_span(fm_id, *span))
        if self.session.current is not None:
            row.show_spans(self.session.current.fm(fm_id).spans)

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
        """Scroll to the top and put the keyboard focus where this task's work starts: the first score of an
        editable rating; otherwise the (read-only) form itself, so no key press can change anything unseen."""
        self.scroll_to_top()
        first = next(iter(self.rubric.rows.values()), None)
        if self.session.current is not None and first is not None and first.slider.isEnabled():
            first.slider.setFocus(Qt.FocusReason.OtherFocusReason)
        else:
            self.scroll_area.setFocus(Qt.FocusReason.OtherFocusReason)

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
        for p in problems:
            label: ProblemLabel | None = None
            focus: QWidget | None = None
            if p.path.startswith("scoring."):
                row = self.rubric.row_for_field(p.path.removeprefix("scoring."))
                if row is not None:
                    label, focus = row.problem, row.slider
                    p = Problem(p.file, p.path, _cap(p.message.removeprefix(f"{row.dim.label}: ")))
            elif p.path.startswith(("failure_mode_annotations.", "failure_mode_evidence")):
                fm_id = p.path.split(".", 1)[1].split("[", 1)[0]
                fm_row = self.failure_modes.rows.get(fm_id)
                if fm_row is not None:
                    label, focus = fm_row.problem, fm_row.severity
                    p = Problem(p.file, p.path, _cap(p.message.removeprefix(f"{fm_row.fm.label}: ")))
            elif p.path in self.notes.problems:
                label = self.notes.problems[p.path]
                name = p.path.removeprefix("clinician_notes.")
                focus = self.notes.edits.get(name) or self.notes.confidence
            if label is None:
                unplaced.append(p.message)
                continue
            by_label.setdefault(label, []).append(p.message)
            if first is None:
                first = focus
        for label, messages in by_label.items():
            label.show_problem(" ".join(messages))
        self.first_problem = next(iter(by_label), None)
        n = len(problems)
        summary = f"Not submitted: {n} thing{'s' if n != 1 else ''} to fix, shown next to each control."
        if unplaced:
            summary += "\n" + "\n".join(unplaced)
        self.summary.show_problem(summary)
        return first

    def show_problems_and_focus(self, problems: list[Problem]) -> None:
        """:meth:`show_problems`, then the focus on the first control with a problem, scrolled into view."""
        first = self.show_problems(problems)
        if first is not None:
            first.setFocus(Qt.FocusReason.OtherFocusReason)
            self.reveal(first, self.first_problem)
