"""The right-hand rating form: status banner, timer, flag and "cannot rate", the rating in pages, submit.

The rating is split into pages so that each fits a laptop screen without scrolling: **Scores** (the eight
dimensions), **Failure modes**, **Notes**, and after a calibration task its **Calibration feedback**. Tab
moves on from the last control of a page to the first of the next, so the keyboard walks the whole form.
While the task is marked "cannot rate", the pages give way to the reason to choose; a flag for the
coordinator adds a note line under the timer. The footer (problems summary and submit) never scrolls away.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QMessageBox,
    QScrollArea,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop.core.errors import Problem, WmcdpError
from wmcdp_desktop.rater.app.form.calibration_view import CalibrationView
from wmcdp_desktop.rater.app.form.cannot_rate import CannotRatePanel, FlagRow
from wmcdp_desktop.rater.app.form.failure_modes import FailureModesPanel
from wmcdp_desktop.rater.app.form.notes import NotesPanel
from wmcdp_desktop.rater.app.form.sliders import RubricPanel
from wmcdp_desktop.rater.app.form.timer import TimerWidget, hms
from wmcdp_desktop.rater.app.text.accessible import (
    announce,
    button,
    describe,
    install_accessibility,
    plain_name,
    set_button_text,
)
from wmcdp_desktop.rater.app.text.i18n import QT_TRANSLATE_NOOP, format_datetime, number
from wmcdp_desktop.rater.app.text.plain_text import PlainLabel
from wmcdp_desktop.rater.app.widgets import ProblemLabel, WrapRow, scroll_when_too_small
from wmcdp_desktop.rater.session import RatingSession
from wmcdp_desktop.rater.working_rating import WorkingRating

SUBMIT = QT_TRANSLATE_NOOP("RatingForm", "S&ubmit rating")
SUBMIT_CANNOT_RATE = QT_TRANSLATE_NOOP("RatingForm", "S&ubmit “cannot rate”")
REVISE = QT_TRANSLATE_NOOP("RatingForm", "&Revise this rating")
DISCARD = QT_TRANSLATE_NOOP("RatingForm", "&Discard revision")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _page(content: QWidget, name: str) -> QScrollArea:
    """A page of the form: ``content`` in a scroll area (it scrolls only on a screen too small for it, and
    never sideways: the scores reflow to its width instead)."""
    area = scroll_when_too_small(content, name)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return area


class _WidthWatcher(QObject):
    """Calls ``fit(width)`` whenever ``widget`` changes width (the scores reflow to the form's width)."""

    def __init__(self, widget: QWidget, fit: Callable[[int], None]) -> None:
        super().__init__(widget)
        self._fit = fit
        widget.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and isinstance(obj, QWidget):
            self._fit(obj.width())
        return False


def _tabbable(widget: QWidget) -> bool:
    return bool(
        widget.isVisible() and widget.isEnabled() and widget.focusPolicy() & Qt.FocusPolicy.TabFocus
    )


class RatingForm(QWidget):
    submitRequested = Signal()
    reviseRequested = Signal()
    discardRequested = Signal()
    topicFocused = Signal(str)
    """A dimension id or failure-mode id whose control got the keyboard focus (the rubric help follows it)."""

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
        self._switching_page = False
        self.first_problem: ProblemLabel | None = None
        """The message of the first control with a problem after the last failed submit."""

        self._build_banner()
        self._build_strip()
        self._build_pages(session)
        self._build_footer()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.banner)
        layout.addWidget(self.strip)
        layout.addWidget(self.flag_row)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.footer)
        self._connect()

    def _build_banner(self) -> None:
        """The banner over a submitted rating: what it is, Revise and Discard."""
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

    def _build_strip(self) -> None:
        """The timer, and the flag and cannot-rate buttons beside it (their row under it on a narrow form)."""
        self.timer = TimerWidget()
        self.timer.label.setWordWrap(True)  # on a form narrower than the timer's line (very large text)
        self.flag_button = button(self.tr("Fla&g for coordinator"))
        self.flag_button.setCheckable(True)
        self.flag_button.setToolTip(self.tr("Add a note for your study coordinator; it is sent with this task."))
        self.cannot_button = button(self.tr("Cannot rate this tas&k"))
        self.cannot_button.setCheckable(True)
        self.cannot_button.setToolTip(
            self.tr("Send this task back without scores, with the reason (broken content, outside your "
                    "expertise, a conflict of interest, or another).")
        )
        answers = QWidget()
        answers_row = WrapRow(answers)  # side by side, or one under the other on a very narrow form
        answers_row.addWidget(self.flag_button)
        answers_row.addWidget(self.cannot_button)
        self.strip = QWidget()
        self.strip_layout = WrapRow(self.strip)  # one line on a wide form; the two buttons under the timer if not
        self.strip_layout.addWidget(self.timer)
        self.strip_layout.addWidget(answers)
        self.flag_row = FlagRow()
        self.flag_row.hide()

    def _build_pages(self, session: RatingSession) -> None:
        """The pages (scores, failure modes, notes, calibration feedback) as tabs, and the cannot-rate page."""
        self.calibration = CalibrationView()
        self.rubric = RubricPanel(session.rubric)
        self.failure_modes = FailureModesPanel(session.rubric)
        self.notes = NotesPanel(session.rubric.confidence_scale)
        self.cannot_panel = CannotRatePanel()
        for panel in (self.rubric, self.failure_modes, self.notes, self.calibration):
            panel.setTitle("")  # the page's tab names it (the panel keeps its accessible name)
        self.scroll_area = _page(self.rubric, self.tr("Scores page"))
        self._fit = _WidthWatcher(self.scroll_area.viewport(), self.rubric.fit_width)
        self.fm_page = _page(self.failure_modes, self.tr("Failure modes page"))
        self.notes_page = _page(self.notes, self.tr("Notes page"))
        self.calibration_page = _page(self.calibration, self.tr("Calibration feedback page"))
        self.cannot_page = _page(self.cannot_panel, self.tr("Cannot rate page"))
        install_accessibility()  # the tabs' interface: the current tab is focused only while the tab bar is
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName(self.tr("Rating pages"))
        self.tabs.setDocumentMode(True)
        self.tabs.setUsesScrollButtons(False)  # a narrow form shortens the tabs' words (no scroll buttons to tab to)
        self.tabs.setElideMode(Qt.TextElideMode.ElideRight)
        self.tabs.tabBar().setAccessibleName(self.tr("Rating pages"))
        self.tabs.addTab(self.scroll_area, self.tr("Scores"))
        self.tabs.addTab(self.fm_page, self.tr("Failure modes"))
        self.tabs.addTab(self.notes_page, self.tr("Notes"))
        # The calibration feedback page is a tab only while there is feedback: a hidden tab is still reported to
        # screen readers as showing (a fourth tab heard on every task).
        self.tabs.addTab(self.calibration_page, self.tr("Calibration feedback"))  # its place in the Tab order
        self.tabs.removeTab(self.tabs.indexOf(self.calibration_page))  # kept, hidden, in the tabs' stack
        self.pages: list[QScrollArea] = [self.scroll_area, self.fm_page, self.notes_page, self.calibration_page]
        self.stack = QStackedWidget()
        self.stack.addWidget(self.tabs)
        self.stack.addWidget(self.cannot_page)

    def _build_footer(self) -> None:
        """The problem summary over the buttons, Submit at the far end."""
        self.summary = ProblemLabel()
        self.summary.setObjectName("problem_summary")
        self.submit_button = button(self.tr(SUBMIT))
        self.submit_button.setToolTip(self.tr("Check and submit this rating (Ctrl+Enter)"))
        self.submit_button.setDefault(False)
        self.footer = QWidget()
        fl = QVBoxLayout(self.footer)
        fl.setContentsMargins(6, 4, 6, 4)
        fl.setSpacing(2)
        fl.addWidget(self.summary)  # over the buttons (shown after a failed submit): never squeezed between them
        self.footer_start = QWidget()
        """Where the buttons beside Submit go (the rating page puts "Rubric help" there)."""
        self.footer_start_layout = QHBoxLayout(self.footer_start)
        self.footer_start_layout.setContentsMargins(0, 0, 0, 0)
        self.footer_start_layout.addStretch(1)  # the buttons keep their own width
        buttons = QWidget()
        row = WrapRow(buttons)  # Submit at the far end; under the others on a very narrow form
        row.addWidget(self.footer_start)
        row.addWidget(self.submit_button)
        fl.addWidget(buttons)

    def _connect(self) -> None:
        self.rubric.scoreChanged.connect(self._score)
        self.rubric.dimensionFocused.connect(self.topicFocused)
        self.failure_modes.changed.connect(self._fm)
        self.failure_modes.useSelection.connect(self._use_selection)
        self.failure_modes.clearSpans.connect(self._clear_spans)
        self.failure_modes.focused.connect(self.topicFocused)
        self.notes.noteChanged.connect(self._note)
        self.notes.confidenceChanged.connect(self._confidence)
        self.cannot_button.toggled.connect(self._mark_cannot_rate)
        self.cannot_panel.backToRating.connect(lambda: self.cannot_button.setChecked(False))
        self.cannot_panel.reasonChosen.connect(self._reason)
        self.cannot_panel.detailEdited.connect(self._detail)
        self.flag_button.toggled.connect(self._flag)
        self.flag_row.noteEdited.connect(self._flag_note)
        self.submit_button.clicked.connect(self.submitRequested)
        self.revise_button.clicked.connect(self.reviseRequested)
        self.discard_button.clicked.connect(self.discardRequested)
        self.timer.pauseToggled.connect(self.session.set_paused)
        self.tabs.installEventFilter(self)  # the tabs' titles fit the width they have (_title_tabs)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.tabs and event.type() in (QEvent.Type.Resize, QEvent.Type.Show, QEvent.Type.FontChange):
            self._title_tabs()
        return super().eventFilter(watched, event)

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
            self.cannot_panel.load(rating.cannot_rate)
            self.flag_row.load(rating.flag)
            for button, on in ((self.cannot_button, rating.cannot_rate is not None), (self.flag_button, rating.flag is not None)):
                blocked = button.blockSignals(True)
                button.setChecked(on)
                button.blockSignals(blocked)
                button.setVisible(editable)
            self.rubric.set_editable(editable)
            for panel in (self.failure_modes, self.notes, self.cannot_panel, self.flag_row):
                panel.set_read_only(not editable)
            self.submit_button.setVisible(editable)
            self.timer.setVisible(editable)
            self._show_kind()
            self._fm_count()
            self._banner(rating, editable)
            rows = s.calibration_view()
            calibration = self.tabs.indexOf(self.calibration_page)
            if rows is not None:
                if calibration < 0:
                    self.tabs.addTab(self.calibration_page, self.tr("Calibration feedback"))
                self.calibration.show_rows(rows)
            elif calibration >= 0:
                if self.tabs.currentIndex() == calibration:
                    self.tabs.setCurrentIndex(0)
                self.tabs.removeTab(calibration)  # the page itself is kept (hidden) for the next calibration task
        finally:
            self._loading = False

    def _show_kind(self) -> None:
        """The pages of a rating, or the reason of a "cannot rate"; the submit button says which is sent."""
        cannot = self.cannot_button.isChecked()
        self.stack.setCurrentWidget(self.cannot_page if cannot else self.tabs)
        set_button_text(self.submit_button, self.tr(SUBMIT_CANNOT_RATE) if cannot else self.tr(SUBMIT))

    def _fm_count(self) -> None:
        self._title_tabs()

    def _title_tabs(self) -> None:
        """Each page's tab: its name, how many failure modes are ticked, how many of its controls have a
        problem ("Failure modes (2 ticked) – 1 to fix"). When the titles do not all fit the form's width (a
        narrow form: the rubric help open on a laptop, a longer language, larger text), they get shorter rather
        than cut with "…": first without the ticked count, then with the problems as "⚠ 1". A screen reader
        always hears the whole title (the tab's accessible name), and the tooltip shows it."""
        ticked = sum(1 for row in self.failure_modes.rows.values() if row.check.isChecked())
        titles: list[tuple[int, list[str]]] = []
        for page, name in ((self.scroll_area, self.tr("Scores")), (self.fm_page, self.tr("Failure modes")),
                           (self.notes_page, self.tr("Notes"))):
            full = name
            if page is self.fm_page and ticked:
                full = self.tr("Failure modes (%Ln ticked)", "", ticked)
            n = sum(1 for label in self._problem_labels() if not label.isHidden() and page.isAncestorOf(label))
            fix = " – " + self.tr("%Ln to fix", "", n) if n else ""
            titles.append((self.tabs.indexOf(page), [full + fix, name + fix, f"{name} ⚠ {number(n)}" if n else name]))
        bar = self.tabs.tabBar()

        def show(form: int) -> int:
            for index, texts in titles:
                bar.setTabText(index, texts[form])
                bar.setTabToolTip(index, texts[0] if form else "")
                bar.setAccessibleTabName(index, texts[0])
            return sum(bar.tabSizeHint(i).width() for i in range(bar.count()) if bar.isTabVisible(i))

        self.tabs.setMinimumWidth(show(2))  # the form is never too narrow for the shortest titles
        for form in range(3):
            if show(form) <= self.tabs.width() or not self.tabs.isVisible():
                break

    def _banner(self, rating: WorkingRating, editable: bool) -> None:
        s = self.session
        if not editable and s.viewing_record is not None:
            env = s.viewing_record.envelope
            if rating.cannot_rate is not None:
                text = self.tr(
                    "“Cannot rate” submitted (revision {revision}) on {when}; active time {time}. It is read-only. "
                    "To change it, choose “{revise}”: a new revision is written and this one is kept."
                )
            else:
                text = self.tr(
                    "Submitted (revision {revision}) on {when}; active time {time}. The rating below is read-only. "
                    "To change it, choose “{revise}”: a new revision is written and this one is kept."
                )
            text = text.format(
                revision=number(env.revision),
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
                ).format(base=number(rating.base_revision), next=number(rating.base_revision + 1))
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
        self._fm_count()

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

    def _mark_cannot_rate(self, marked: bool) -> None:
        self._guard(lambda: self.session.mark_cannot_rate(marked))
        if self._loading:
            return
        self._show_kind()
        if marked:
            checked = [b for b in self.cannot_panel.reasons.values() if b.isChecked()]
            (checked or [self.cannot_panel.first_reason()])[0].setFocus(Qt.FocusReason.OtherFocusReason)
        for label in (self.cannot_panel.reason_problem, self.cannot_panel.detail_problem):
            self._fixed(label)
        if not marked:
            self.clear_problems()

    def _reason(self, reason: str) -> None:
        self._guard(lambda: self.session.set_cannot_rate(reason=reason))  # type: ignore[arg-type]
        self._fixed(self.cannot_panel.reason_problem)
        if reason != "other":
            self._fixed(self.cannot_panel.detail_problem)

    def _detail(self, text: str) -> None:
        self._guard(lambda: self.session.set_cannot_rate(detail=text))
        if text.strip():
            self._fixed(self.cannot_panel.detail_problem)

    def _flag(self, flagged: bool) -> None:
        self._guard(lambda: self.session.set_flag(flagged))
        if self._loading:
            return
        self.flag_row.setVisible(flagged)
        if flagged:
            self.flag_row.note.setFocus(Qt.FocusReason.OtherFocusReason)
        else:
            self._fixed(self.flag_row.problem)

    def _flag_note(self, text: str) -> None:
        self._guard(lambda: self.session.set_flag_note(text))
        if text.strip():
            self._fixed(self.flag_row.problem)

    def _problem_labels(self) -> list[ProblemLabel]:
        return [
            *(row.problem for row in self.rubric.rows.values()),
            *(fm_row.problem for fm_row in self.failure_modes.rows.values()),
            *self.notes.problems.values(),
            self.cannot_panel.reason_problem,
            self.cannot_panel.detail_problem,
            self.flag_row.problem,
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
                self.tr("Not submitted yet: %Ln thing(s) left to fix, shown next to each control.", "", left)
            )
        self._mark_pages()

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
        self._mark_pages()

    def _problem_controls(self) -> list[QWidget]:
        """The controls that a problem after submit can be about (their descriptions carry it)."""
        return [
            *(row.slider for row in self.rubric.rows.values()),
            *(fm_row.severity for fm_row in self.failure_modes.rows.values()),
            *self.notes.edits.values(),
            self.notes.confidence,
            self.cannot_panel.first_reason(),
            self.cannot_panel.detail,
            self.flag_row.note,
        ]

    def toggle_pause(self) -> None:
        self.timer.toggle()

    def set_read_only(self) -> None:
        """No control can change the rating any more (the text stays selectable and copyable)."""
        self.rubric.set_editable(False)
        for panel in (self.failure_modes, self.notes, self.cannot_panel, self.flag_row):
            panel.set_read_only(True)
        for b in (self.submit_button, self.flag_button, self.cannot_button):
            b.setEnabled(False)
        self.timer.setEnabled(False)

    def _mark_pages(self) -> None:
        """Each page's tab says how many of its controls have a problem."""
        self._title_tabs()

    # ----- time --------------------------------------------------------------------------------------------
    def show_time(self, seconds: float, status: str, paused: bool) -> None:
        self.timer.show_time(seconds, status)
        self.timer.set_paused(paused)

    # ----- pages and focus -----------------------------------------------------------------------------------
    def page_of(self, widget: QWidget) -> QScrollArea | None:
        return next((page for page in (*self.pages, self.cannot_page) if page.isAncestorOf(widget)), None)

    def scroll_to_top(self) -> None:
        for page in (*self.pages, self.cannot_page):
            page.verticalScrollBar().setValue(0)
        self.tabs.setCurrentIndex(0)

    def show_feedback(self) -> None:
        """Show the calibration feedback page and give its text the keyboard focus (every page at its top)."""
        self.tabs.setCurrentWidget(self.calibration_page)
        self.calibration.focus_text()
        for page in (*self.pages, self.cannot_page):
            page.verticalScrollBar().setValue(0)

    def focus_start(self) -> None:
        """Go to the first page and put the keyboard focus where this task's work starts: the first score (of an
        editable rating, or of a submitted one, read-only: no key press can change it), or the reason of a
        "cannot rate"; the first control that takes the focus when that score is N/A; the status banner's
        button when the form is empty."""
        self.scroll_to_top()
        if self.cannot_button.isChecked():
            checked = [b for b in self.cannot_panel.reasons.values() if b.isChecked()]
            (checked or [self.cannot_panel.first_reason()])[0].setFocus(Qt.FocusReason.OtherFocusReason)
            return
        first: QWidget | None = next((row.slider for row in self.rubric.rows.values() if row.slider.isEnabled()), None)
        if first is None:
            first = self.revise_button if self.revise_button.isVisible() else self.submit_button
        first.setFocus(Qt.FocusReason.OtherFocusReason)

    def reveal(self, control: QWidget, message: QWidget | None = None) -> None:
        """Show the page of ``control`` and scroll so that it and its problem ``message`` (just shown, laid out
        on the next pass) are both in view, the control winning when they cannot both fit."""
        page = self.page_of(control)
        if page is None:
            return
        if page is not self.cannot_page:
            self.tabs.setCurrentWidget(page)
        page.ensureWidgetVisible(control)

        def later() -> None:
            if message is not None and not message.isHidden():
                page.ensureWidgetVisible(message)
            page.ensureWidgetVisible(control)

        QTimer.singleShot(0, later)

    def _chain(self, start: QWidget, forward: bool) -> QWidget | None:
        """The next widget Tab (or Shift+Tab) would go to from ``start``."""
        widget: QWidget | None = start
        for _ in range(2000):
            assert widget is not None
            widget = widget.nextInFocusChain() if forward else widget.previousInFocusChain()
            if widget is None or widget is start:
                return None
            if widget.window() is self.window() and _tabbable(widget):
                return widget
        return None

    def _edge(self, page: QWidget, first: bool) -> QWidget | None:
        """The first (or last) control of ``page`` that Tab reaches."""
        found = [w for w in page.findChildren(QWidget) if _tabbable(w)]
        if not found:
            return None
        order: list[QWidget] = []
        widget: QWidget | None = page
        for _ in range(2000):
            widget = widget.nextInFocusChain() if widget is not None else None
            if widget is None or widget is page:
                break
            if widget in found and widget not in order:
                order.append(widget)
            if len(order) == len(found):
                break
        order = order or found
        return order[0] if first else order[-1]

    def focusNextPrevChild(self, next: bool) -> bool:
        """Tab from the last control of a page goes on to the first of the next page (Shift+Tab back), so the
        keyboard reaches every control of the form."""
        if self._switching_page:
            return True  # hiding the page that had the focus asks for the next one: the switch below sets it
        focus = QApplication.focusWidget()
        if focus is not None and self.stack.currentWidget() is self.tabs and not self.tabs.isAncestorOf(focus):
            # Coming into the pages from the controls around them: Tab starts at the first page, Shift+Tab
            # at the last, so one round of Tab (or Shift+Tab) through the window reaches every control.
            target = self._chain(focus, next)
            if target is not None and self.tabs.isAncestorOf(target):
                visible = [i for i in range(self.tabs.count()) if self.tabs.isTabVisible(i)]
                if visible:
                    self._switching_page = True
                    try:
                        self.tabs.setCurrentIndex(visible[0] if next else visible[-1])
                    finally:
                        self._switching_page = False
        current = self.tabs.currentWidget()
        if (
            focus is not None
            and self.stack.currentWidget() is self.tabs
            and current is not None
            and current.isAncestorOf(focus)
        ):
            target = self._chain(focus, next)
            if target is None or not current.isAncestorOf(target):
                index = self.tabs.currentIndex() + (1 if next else -1)
                while 0 <= index < self.tabs.count() and not self.tabs.isTabVisible(index):
                    index += 1 if next else -1
                if 0 <= index < self.tabs.count():
                    self._switching_page = True
                    try:
                        self.tabs.setCurrentIndex(index)
                    finally:
                        self._switching_page = False
                    page = self.tabs.widget(index)
                    edge = self._edge(page, first=next) if page is not None else None
                    if edge is not None:
                        edge.setFocus(Qt.FocusReason.TabFocusReason if next else Qt.FocusReason.BacktabFocusReason)
                        if isinstance(page, QScrollArea):
                            page.ensureWidgetVisible(edge)
                        return True
        return super().focusNextPrevChild(next)

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
            elif p.path == "cannot_rate.reason":  # the app's own words (translated), not the core's
                label, focus = self.cannot_panel.reason_problem, self.cannot_panel.first_reason()
                p = Problem(p.file, p.path, self.tr("Choose why you cannot rate this task."))
            elif p.path == "cannot_rate.detail":
                label, focus = self.cannot_panel.detail_problem, self.cannot_panel.detail
                p = Problem(p.file, p.path, self.tr("Say in a few words why you cannot rate this task."))
            elif p.path == "coordinator_flag.note":
                label, focus = self.flag_row.problem, self.flag_row.note
                p = Problem(p.file, p.path, self.tr("Write a note for your coordinator, or remove the flag."))
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
        summary = self.tr("Not submitted: %Ln thing(s) to fix, shown next to each control.", "", n)
        if unplaced:
            summary += "\n" + "\n".join(unplaced)
        self.summary.show_problem(summary)
        announce(self.summary, self.summary.text())
        self._mark_pages()
        return first

    def show_problems_and_focus(self, problems: list[Problem]) -> None:
        """:meth:`show_problems`, then the focus on the first control with a problem, its page shown and the
        control scrolled into view."""
        first = self.show_problems(problems)
        if first is not None:
            if self.first_problem is not None:  # read with the control too: not every screen reader speaks
                # announcements (Orca 43 does not), but every one reads the focused control's description
                describe(first, problem=f"{self.first_problem.text()}\n{self.summary.text()}")
            page = self.page_of(first)
            if page is not None and page is not self.cannot_page:
                self.tabs.setCurrentWidget(page)
            first.setFocus(Qt.FocusReason.OtherFocusReason)
            self.reveal(first, self.first_problem)
