"""The rating page: task list | scenario and response | rating form | rubric help (a side panel that stays
open while rating, following the dimension or failure mode in focus), under banners for a save problem and
for what the rater should know (the demo rater, damaged task files).

The page presents; it does not decide. :class:`~wmcdp_desktop.rater.app.rating.controller.RatingController`
tells it what to show (a task, the rating, problems, the time) and listens to its signals (a task chosen,
submit, revise, discard, retry).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QAccessible, QAccessibleEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop.core.errors import Problem
from wmcdp_desktop.core.models.task import Task
from wmcdp_desktop.rater.app.form.failure_modes import FAILURE_MODES_HINT, SEVERITY_NAMES
from wmcdp_desktop.rater.app.form.form import RatingForm
from wmcdp_desktop.rater.app.form.sliders import anchors_text
from wmcdp_desktop.rater.app.rating.rubric_language import rubric_language_notice
from wmcdp_desktop.rater.app.rating.task_list import TaskList
from wmcdp_desktop.rater.app.rating.task_view import TaskView
from wmcdp_desktop.rater.app.text.accessible import announce, button
from wmcdp_desktop.rater.app.text.i18n import QT_TRANSLATE_NOOP
from wmcdp_desktop.rater.app.text.plain_text import PlainLabel, PlainTextView
from wmcdp_desktop.rater.app.text.theme import problem_color, set_fg
from wmcdp_desktop.rater.app.widgets import WrapRow
from wmcdp_desktop.rater.labels import task_full_title, task_title
from wmcdp_desktop.rater.session import RatingSession

RETRY = QT_TRANSLATE_NOOP("RatingPage", "Retr&y saving")
HELP = QT_TRANSLATE_NOOP("RatingPage", "Rubric help")
HELP_TEXT = QT_TRANSLATE_NOOP("RatingPage", "Rubric help text")
"""The help's text, named apart from the "Rubric help" button beside Submit (a screen reader tells them apart)."""
DISMISS = QT_TRANSLATE_NOOP("RatingPage", "&Dismiss this message")
HELP_WIDTH = 340
"""Width the rubric help takes when it opens (from the scenario column)."""


def write_rubric_help(view: PlainTextView, session: RatingSession) -> dict[str, int]:
    """The rubric as reading text: instructions, every dimension with its anchors, failure modes, confidence.
    Returns where each dimension's and failure mode's heading starts (by id), to scroll to it."""
    r = session.rubric
    places: dict[str, int] = {}

    def heading(text: str, key: str | None = None) -> None:
        view.append_heading(text)
        if key is not None:
            places[key] = view.document().lastBlock().position()

    heading(
        QCoreApplication.translate("RatingPage", "{title} (version {version})").format(
            title=r.title, version=r.contract_version
        )
    )
    notice = rubric_language_notice(session.rubric_view)
    if notice:
        view.append_body(notice)
    view.append_body(r.instructions)
    heading(QCoreApplication.translate("RatingPage", "Dimensions"))
    for d in r.dimensions:
        heading(d.label, d.id)
        body = f"{d.description}\n{anchors_text(d.scale)}"
        if d.allow_na:
            guidance = d.na_guidance or QCoreApplication.translate("RatingPage", "when the dimension does not apply")
            body += "\n" + QCoreApplication.translate("RatingPage", "N/A allowed: {guidance}").format(guidance=guidance)
        view.append_body(body)
    heading(QCoreApplication.translate("RatingPage", "Failure modes"))
    view.append_body(QCoreApplication.translate("FailureModesPanel", FAILURE_MODES_HINT))  # the form's words
    for fm in r.failure_modes:
        g = fm.severity_guidance
        heading(fm.label, fm.id)
        levels = {"minor": g.minor, "moderate": g.moderate, "major": g.major, "critical": g.critical}
        lines = [QCoreApplication.translate("FailureModeRow", SEVERITY_NAMES[k]) + f": {v}" for k, v in levels.items()]
        view.append_body("\n".join([fm.description, *lines]))
    heading(QCoreApplication.translate("RatingPage", "Confidence"))
    view.append_body(anchors_text(r.confidence_scale))
    view.moveCursor(view.textCursor().MoveOperation.Start)
    return places


class HelpPanel(QWidget):
    """The rubric help beside the form: a title with a close button over the text."""

    closeRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel(QCoreApplication.translate("RatingPage", HELP))
        self.close_button = button(self.tr("Close ru&bric help"))
        self.close_button.setToolTip(self.tr("F1 opens and closes the rubric help"))
        self.view = PlainTextView(QCoreApplication.translate("RatingPage", HELP_TEXT))
        # No buddy: Orca reads a text's labelling widget instead of its name, and "Rubric help" would then be
        # read for the text as for the button beside Submit; the text's own name says which it is.
        top = QWidget()
        title_row = WrapRow(top)  # the close button beside the title, or under it on a narrow panel
        title_row.addWidget(self.title)
        title_row.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(top)
        layout.addWidget(self.view, 1)
        self.close_button.clicked.connect(self.closeRequested)

    def scroll_to(self, position: int) -> None:
        """Scroll so that the text at ``position`` is the first line shown (or as near as the end allows)."""
        block = self.view.document().findBlock(position)
        if block.isValid():
            self.view.verticalScrollBar().setValue(block.firstLineNumber())


class RatingPage(QWidget):
    taskChosen = Signal(str)
    submitRequested = Signal()
    reviseRequested = Signal()
    discardRequested = Signal()
    retryRequested = Signal()

    def __init__(self, session: RatingSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.save_banner = QFrame()
        self.save_banner.setFrameShape(QFrame.Shape.StyledPanel)
        self.save_text = PlainLabel("")
        self.retry_button = button(self.tr(RETRY))
        sb = QHBoxLayout(self.save_banner)
        sb.addWidget(self.save_text, 1)
        sb.addWidget(self.retry_button)
        self.save_banner.hide()
        self.notice_banner, self.notice_text = self._banner(self.tr(DISMISS))
        self.language_banner, self.language_text = self._banner(self.tr("Dismiss the language note"))
        """Which language the rubric is shown in, when the rater should know (its own banner: the other
        notices do not replace it)."""
        language = rubric_language_notice(session.rubric_view)
        if language:
            self.language_text.setText(language)
            self.language_text.setAccessibleName(language)
            self.language_banner.show()

        self.task_list = TaskList(session)
        self.task_view = TaskView()
        self.form = RatingForm(session, self.task_view.selected_span)
        self.help_panel = HelpPanel()
        self.help = self.help_panel.view
        self.help_places: dict[str, int] = {}
        self._help_filled = False  # filled when first opened (not needed for the first paint)
        self._topic: str | None = None
        """The dimension or failure mode last in focus (the help shows it when it opens)."""
        self.help_panel.hide()
        self.help_button = button(self.tr("Rubr&ic help"))
        self.help_button.setCheckable(True)
        self.help_button.setToolTip(self.tr("The rubric beside the form, at the dimension in focus (F1)"))
        self.form.footer_start_layout.insertWidget(0, self.help_button)  # beside Submit: in reach on every page
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.task_list)
        self.splitter.addWidget(self.task_view)
        self.splitter.addWidget(self.form)
        self.splitter.addWidget(self.help_panel)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setStretchFactor(2, 3)
        self.splitter.setStretchFactor(3, 2)
        self.splitter.setSizes([240, 600, 640, 0])
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice_banner)
        layout.addWidget(self.language_banner)
        layout.addWidget(self.save_banner)
        layout.addWidget(self.splitter, 1)

        self.task_list.taskChosen.connect(self.taskChosen)
        self.form.submitRequested.connect(self.submitRequested)
        self.form.reviseRequested.connect(self.reviseRequested)
        self.form.discardRequested.connect(self.discardRequested)
        self.retry_button.clicked.connect(self.retryRequested)
        self.help_button.toggled.connect(self._help_toggled)
        self.help_panel.closeRequested.connect(lambda: self.help_button.setChecked(False))
        self.form.topicFocused.connect(self._topic_focused)

    def _banner(self, button_text: str) -> tuple[QFrame, PlainLabel]:
        """A hidden frame with a text and a button that hides it."""
        frame = QFrame()
        frame.setFrameShape(QFrame.Shape.StyledPanel)
        text = PlainLabel("")
        dismiss = button(button_text)
        dismiss.clicked.connect(frame.hide)
        row = QHBoxLayout(frame)
        row.addWidget(text, 1)
        row.addWidget(dismiss, 0, Qt.AlignmentFlag.AlignTop)
        frame.hide()
        return frame, text

    # ----- help and find ---------------------------------------------------------------------------------
    def fill_help(self) -> None:
        """Write the rubric help (once; also done when it is first opened)."""
        if not self._help_filled:
            self._help_filled = True
            self.help_places = write_rubric_help(self.help, self.session)

    def help_open(self) -> bool:
        return not self.help_panel.isHidden()

    def toggle_help(self) -> None:
        """F1: open the rubric help, or close it."""
        self.help_button.setChecked(not self.help_button.isChecked())

    def _help_toggled(self, on: bool) -> None:
        if on == self.help_open():
            return
        if on:
            self.fill_help()
            sizes = self.splitter.sizes()
            take = min(HELP_WIDTH, max(0, sizes[1] - 320))
            self.help_panel.show()
            self.splitter.setSizes([sizes[0], sizes[1] - take, sizes[2], max(take, 240)])
            if self._topic is not None:
                self._scroll_help(self._topic)
        else:
            self.help_panel.hide()

    def _topic_focused(self, key: str) -> None:
        self._topic = key
        if self.help_open():
            self._scroll_help(key)

    def _scroll_help(self, key: str) -> None:
        position = self.help_places.get(key)
        if position is not None:
            self.help_panel.scroll_to(position)

    def open_find(self) -> None:
        self.task_view.find_bar.open()

    # ----- what the controller shows ---------------------------------------------------------------------
    def show_task(self, task: Task, previous_id: str | None, *, start_in_form: bool) -> None:
        """Show the session's open task: scenario, response and its rating, at the top of the form.

        ``start_in_form``: put the focus on the form's first control (the focus was in the form: a key press
        must not change the new task's rating out of sight)."""
        s = self.session
        tid = s.current_id
        assert tid is not None
        self.task_view.show_task(task, (s.position() or 0) + 1, len(s.task_ids))
        self.form.load()
        self.task_list.set_title(tid, task_title(task), task_full_title(task))
        self.task_list.update_tasks(previous_id, tid)
        if start_in_form:
            self.form.focus_start()
        else:
            self.form.scroll_to_top()
        heading = self.task_view.heading.text()
        announce(self, heading)  # a screen reader says which task opened (the focus may stay on the same control)
        focus = QApplication.focusWidget()
        if focus is not None and self.isAncestorOf(focus) and QAccessible.isActive():
            QAccessible.updateAccessibility(QAccessibleEvent(focus, QAccessible.Event.Focus))  # read it again

    def show_rating(self, *, focus_start: bool) -> None:
        """Show the open task's rating again (after a revise, a discard, or a submit that stays on the task)."""
        self.form.load()
        self.task_list.update_tasks(self.session.current_id)
        if focus_start:
            self.form.focus_start()

    def show_calibration_feedback(self) -> None:
        """After a calibration task is submitted: the feedback, at the top of the form, read by the keyboard."""
        self.show_rating(focus_start=False)
        self.form.show_feedback()

    def show_problems(self, problems: list[Problem]) -> None:
        """Each problem next to its control; the focus on the first such control, its page shown, scrolled into view."""
        self.form.show_problems_and_focus(problems)

    def refresh_task(self, task_id: str | None) -> None:
        """Relabel one task in the list (its state changed)."""
        self.task_list.refresh_one(task_id)

    def toggle_pause(self) -> None:
        self.form.toggle_pause()

    def use_selection(self) -> str | None:
        """Quote the selected response text for the failure mode in question; what to tell the rater if not."""
        return self.form.use_selection_shortcut()

    def show_time(self, seconds: float, status: str, paused: bool) -> None:
        self.form.show_time(seconds, status, paused)

    def stop_editing(self, message: str) -> None:
        """Nothing more can be saved (``message`` says why and what to do): the rating is shown read-only
        under the message; the rater can still read and copy everything."""
        self.show_save_error(message, can_retry=False)
        self.form.set_read_only()

    def show_notice(self, message: str, *, problem: bool = True) -> None:
        """Something the rater should know that needs no answer now (a banner above the page, until dismissed);
        ``problem``: in the problem colour (a plain note, such as the demo rater's, is not)."""
        set_fg(self.notice_text, problem_color(self) if problem else self.palette().color(self.foregroundRole()))
        self.notice_text.setText(message)
        self.notice_text.setAccessibleName(message)
        self.notice_banner.show()

    def show_save_error(self, message: str | None, *, can_retry: bool = True) -> None:
        if message:
            set_fg(self.save_text, problem_color(self))
            self.save_text.setText(message)
            self.save_text.setAccessibleName(message)
            self.retry_button.setVisible(can_retry)
            self.save_banner.show()
        else:
            self.save_banner.hide()
