"""One open bundle on screen: the core :class:`RatingSession` and the :class:`RatingPage` that shows it.

The controller is the presentation of the rater's work: going to a task, autosaving (at most
:data:`AUTOSAVE_DELAY_MS` behind the first unsaved change), the timers, submit / revise / discard and
what the rater is told about each. It decides nothing about ratings itself (the session does) and shows
nothing itself (the page does); the window only connects its signals to the status bar and message boxes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QApplication, QWidget

from wmcdp_desktop.core.bundle_reader import OpenedBundle
from wmcdp_desktop.core.errors import Problem, WmcdpError
from wmcdp_desktop.core.models.rating_record import BlindingGuess
from wmcdp_desktop.core.models.task_record import record_kind
from wmcdp_desktop.rater.app.bundle.checking import BundleChecker
from wmcdp_desktop.rater.app.export.exporter import ResultsExporter
from wmcdp_desktop.rater.app.form.timer import hms, local_time
from wmcdp_desktop.rater.app.jobs import Workers
from wmcdp_desktop.rater.app.rating.blinding_question import BlindingQuestion, ask_blinding_question
from wmcdp_desktop.rater.app.rating.page import RatingPage
from wmcdp_desktop.rater.app.text.i18n import number
from wmcdp_desktop.rater.session import RatingSession, SubmitOutcome

AUTOSAVE_DELAY_MS = 700
"""Autosave runs this long after the first unsaved change (well under the 1 s promise), even while typing."""
TICK_MS = 1000
INPUT_EVENTS = {
    QEvent.Type.KeyPress,
    QEvent.Type.MouseButtonPress,
    QEvent.Type.Wheel,
    QEvent.Type.MouseMove,
}


class _InputWatcher(QObject):
    """Tells the session about user input anywhere in the page's window (keeps the task timer counting)."""

    def __init__(self, controller: RatingController) -> None:
        super().__init__(controller)
        self._controller = controller

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() in INPUT_EVENTS and isinstance(obj, QWidget) and obj.window() is self._controller.page.window():
            self._controller.session.user_input()
        return False


class RatingController(QObject):
    told = Signal(str, bool)
    """A message for a dialog: text, and whether it is an error."""
    status = Signal(str)
    """A short message for the status bar."""
    saveStateChanged = Signal(str)
    """The save state in words ("All changes saved (10:42:13)")."""
    sessionTimeChanged = Signal(str)

    def __init__(self, session: RatingSession, workers: Workers, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.page = RatingPage(session)
        session.on_change = self._changed
        self.autosave = QTimer(self)
        self.autosave.setSingleShot(True)
        self.autosave.setInterval(AUTOSAVE_DELAY_MS)
        self.autosave.timeout.connect(self.save_now)
        self.ticker = QTimer(self)
        self.ticker.setInterval(TICK_MS)
        self.ticker.timeout.connect(self.tick)
        self.ticker.start()
        self._stopped = False
        """True once the data folder was found gone: nothing more is saved, the form is read-only."""
        self._watcher = _InputWatcher(self)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self._watcher)
        p = self.page
        p.taskChosen.connect(self.go_to)
        p.submitRequested.connect(self.submit)
        p.reviseRequested.connect(self.revise)
        p.discardRequested.connect(self.discard_revision)
        p.retryRequested.connect(self.save_now)
        self.question: BlindingQuestion | None = None
        """The blinding question while it is open (docs/RATER_GUIDE.md)."""
        self.exporter = ResultsExporter(session, workers, self)
        self.exporter.told.connect(self.told)
        self.exporter.status.connect(self.status)
        self.checker = BundleChecker(workers, self)
        self.checker.problemsFound.connect(self.page.show_notice)
        self.checker.status.connect(self.status)

    # ----- showing tasks -----------------------------------------------------------------------------------
    def start(self, bundle: OpenedBundle, first_task_error: str | None = None, *, demo: bool = False) -> None:
        """Show the task the session opened, tell what the rater must know about the bundle's files (and, for
        the ``demo`` rater, what the demo is), and start checking every file of the session's ``bundle`` in the
        background."""
        if demo:
            self.page.show_notice(
                self.tr(
                    "Demo: you are rating as the demo rater “demo”. Nothing here goes to a study. When your "
                    "coordinator sends you a bundle, the app asks once for the rater id they gave you."
                ),
                problem=False,
            )
        self.show_open_task()
        self.checker.check(bundle)
        quarantined = self.session.store.quarantined
        if quarantined:
            moved = "\n".join(str(q) for q in quarantined)
            self.told.emit(
                self.tr("Some saved drafts could not be read and were moved aside (nothing was deleted):") + "\n" + moved,
                True,
            )
        if first_task_error:
            self.told.emit(first_task_error, True)

    def show_open_task(self, previous_id: str | None = None) -> None:
        """Show the task the session has open (after :meth:`go_to`, or one opened before the page existed)."""
        s = self.session
        if s.current_id is None:
            self.page.task_list.update_tasks(previous_id)
            return
        # Every move to a task (open, submit, next, go to, cannot rate) starts on its first score: a key pressed
        # next sets the score in view at the top of the form, never one out of sight.
        self.page.show_task(s.task(), previous_id, start_in_form=True)
        problem = s.data_folder_problem() if self._stopped else None
        if problem is not None:
            self.page.stop_editing(problem)  # nothing can be saved: every task is read-only
        self._show_save_state()
        self.refresh_time()

    def go_to(self, task_id: str) -> bool:
        """Open ``task_id`` (saving the one open); False with a plain message when it cannot be read."""
        s = self.session
        self.autosave.stop()
        previous = s.current_id
        try:
            s.open_task(task_id)
        except WmcdpError as exc:
            self.told.emit(self.tr("Task {id} cannot be shown:").format(id=task_id) + f"\n{exc}", True)
            self.page.refresh_task(previous)
            return False
        self.show_open_task(previous)
        return True

    def step(self, delta: int) -> None:
        target = self.session.neighbour(delta)
        if target is not None:
            self.go_to(target)

    def next_unfinished(self) -> None:
        target = self.session.next_unfinished(self.session.current_id)
        if target is None:
            self.status.emit(self.tr("Every task is submitted. Use File > Export results… to send them."))
        elif target != self.session.current_id:
            self.go_to(target)

    # ----- saving ------------------------------------------------------------------------------------------
    def _changed(self) -> None:
        self.saveStateChanged.emit(self.tr("Unsaved changes…"))
        if not self.autosave.isActive():  # not restarted on every key: at most AUTOSAVE_DELAY_MS behind
            self.autosave.start()
        self.page.refresh_task(self.session.current_id)

    def save_now(self) -> bool:
        """Save the open rating now; False when it could not be (the page says why)."""
        self.autosave.stop()
        if not self.check_data_folder():
            return False
        ok = self.session.save_draft()
        self._show_save_state()
        self.page.refresh_task(self.session.current_id)
        return ok

    def save_draft_now(self) -> None:
        if self.save_now():
            self.status.emit(self.tr("Draft saved."))

    def save_state_text(self) -> str:
        s = self.session
        if s.save_error:
            return self.tr("Not saved — see the message above")
        if s.dirty:
            return self.tr("Unsaved changes…")
        if s.current is None:
            return self.tr("Submitted")
        if s.last_saved_at:
            return self.tr("All changes saved ({time})").format(time=local_time(s.last_saved_at))
        if s.current.has_content():
            return self.tr("All changes saved")  # a draft restored from disk, untouched so far
        return self.tr("Nothing entered yet")

    def _show_save_state(self) -> None:
        if not self.check_data_folder():
            return
        self.page.show_save_error(self.session.save_error)
        self.saveStateChanged.emit(self.save_state_text())

    # ----- time --------------------------------------------------------------------------------------------
    def tick(self) -> None:
        s = self.session
        s.tick()
        if self.check_data_folder() and s.needs_save() and not self.autosave.isActive():
            self.save_now()
        self.refresh_time()

    def check_data_folder(self) -> bool:
        """True while the data folder is in place; the first time it is not, stop and say so plainly."""
        problem = self.session.data_folder_problem()
        if problem is None:
            return True
        if not self._stopped:
            self._stopped = True
            self.autosave.stop()
            self.page.stop_editing(problem)
            self.saveStateChanged.emit(self.tr("Not saved: the data folder is gone"))
            self.told.emit(problem, True)
        return False

    def refresh_time(self) -> None:
        s = self.session
        self.sessionTimeChanged.emit(self.tr("Session: {time}").format(time=hms(s.session_seconds)))
        self.page.show_time(s.task_seconds(), s.tracker.status(), s.tracker.user_paused)

    def set_window_active(self, active: bool) -> None:
        self.session.set_window_active(active)
        if active:
            self.check_data_folder()
        self.refresh_time()

    def set_idle_timeout(self, seconds: float) -> None:
        self.session.tracker.idle_timeout = float(seconds)

    # ----- submit / revise ---------------------------------------------------------------------------------
    def submit(self) -> None:
        s = self.session
        if s.current is None:
            self.status.emit(self.tr("This task is already submitted. Choose “Revise this rating” to change it."))
            return
        if self.question is not None:
            return  # the blinding question is open: it submits when answered
        self.autosave.stop()
        if s.asks_blinding_question():
            problems = s.check()
            if problems:
                self._not_submitted(problems)
                return
            labels = s.blinding_labels or []
            self.status.emit(self.tr("Your rating passed its checks: one question before it is saved."))
            self.question = ask_blinding_question(labels, self.page, self._submit_answered)
            return
        self._submit_with(None)

    def _submit_answered(self, guess: BlindingGuess | None) -> None:
        """The blinding question was answered (or skipped: None): submit the rating with the answer."""
        self.question = None
        if self.session.current is not None:
            self._submit_with(guess)

    def _not_submitted(self, problems: list[Problem]) -> None:
        self.page.show_problems(problems)
        self.status.emit(self.tr("Not submitted: %Ln thing(s) to fix, shown next to each control.", "", len(problems)))

    def _submit_with(self, guess: BlindingGuess | None) -> None:
        s = self.session
        outcome = s.submit(guess)
        if outcome.error:
            self._show_save_state()
        elif not outcome.ok:
            self._not_submitted(outcome.problems)
        else:
            self._submitted(outcome)

    def _submitted(self, outcome: SubmitOutcome) -> None:
        s = self.session
        assert outcome.record is not None
        env = outcome.record.envelope
        done, total = s.progress()
        position = s.task_ids.index(env.task_id) + 1  # the opaque task id is for support, not for the rater
        if record_kind(outcome.record) == "cannot_rate":
            text = self.tr("Task {position}: “cannot rate” submitted (revision {revision}). {done} of {total} submitted.")
        else:
            text = self.tr("Task {position}: rating submitted (revision {revision}). {done} of {total} submitted.")
        msg = text.format(position=number(position), revision=number(env.revision), done=number(done), total=number(total))
        if outcome.calibration is not None:
            self.page.show_calibration_feedback()
            self._show_save_state()
            self.status.emit(
                msg + " " + self.tr("Calibration feedback is shown beside your rating; Ctrl+PgDown for the next task.")
            )
        elif outcome.next_task_id is None:
            self.page.show_rating(focus_start=True)
            self._show_save_state()
            self.status.emit(msg + " " + self.tr("Every task is submitted: use File > Export results… to send them."))
            self.told.emit(
                msg
                + "\n"
                + self.tr("Every task is submitted. Use File > Export results… to save the file for your coordinator."),
                False,
            )
        else:
            self.go_to(outcome.next_task_id)
            self.status.emit(msg)

    def revise_submitted(self) -> None:
        """Ctrl+Shift+R: revise the rating on screen when it is a submitted one (else say why not)."""
        if self.session.viewing_record is None:
            self.status.emit(self.tr("Only a submitted rating can be revised."))
        else:
            self.revise()

    def toggle_pause(self) -> None:
        """Ctrl+Shift+P: pause or resume the task timer (while the rating can be edited)."""
        if self.session.current is not None:
            self.page.toggle_pause()

    def use_selection(self) -> None:
        """Ctrl+Shift+E: quote the selected response text as evidence (or say what to do first)."""
        problem = self.page.use_selection()
        if problem:
            self.status.emit(problem)

    def revise(self) -> None:
        self._change_revision_state(lambda session: session.revise())

    def discard_revision(self) -> None:
        self._change_revision_state(lambda session: session.discard_revision())

    def _change_revision_state(self, action: Callable[[RatingSession], object]) -> None:
        """Start or drop a revision of the open task, then show the form as the session now has it."""
        try:
            action(self.session)
        except WmcdpError as exc:
            self.told.emit(str(exc), True)
            return
        # The pressed button is gone: start at the first score (or the read-only form).
        self.page.show_rating(focus_start=True)
        self._show_save_state()

    # ----- export ------------------------------------------------------------------------------------------
    def choose_export(self, parent: QWidget) -> None:
        self.save_now()
        self.exporter.choose(parent)

    def export_to(self, path: Path) -> bool:
        """Save the open rating, then start the export (``exporter.finished`` says how it went)."""
        self.save_now()
        return self.exporter.export_to(path)

    # ----- closing -----------------------------------------------------------------------------------------
    def stop(self) -> None:
        """Stop the timers, the input watching and the bundle check (nothing is saved)."""
        self.checker.blockSignals(True)  # closing is not news
        self.checker.stop()
        self.autosave.stop()
        self.ticker.stop()
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self._watcher)

    def close(self) -> bool:
        """Leave the open task (saving it) and stop; True when everything is saved."""
        self.stop()
        return self.session.close()
