"""The main window: wiring only. Behaviour lives in core/rater/rating_session.py and the widget modules."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from wmcdp_desktop.core.bundle_reader import OpenedBundle, open_bundle
from wmcdp_desktop.core.errors import DocumentError, StorageError, WmcdpError
from wmcdp_desktop.core.rater.labels import task_title
from wmcdp_desktop.core.rater.rating_session import RaterIdentity, RatingSession
from wmcdp_desktop.core.rater.settings import MAX_FONT, MIN_FONT, Settings, save_settings, with_recent
from wmcdp_desktop.core.rater.storage import InstanceLock, RaterStore
from wmcdp_desktop.core.rater.timing import Clock
from wmcdp_desktop.core.resources import demo_bundle_path
from wmcdp_desktop.ui.plain_text import PlainLabel, PlainTextView, safe_line
from wmcdp_desktop.ui.rater_dialog import RaterDialog
from wmcdp_desktop.ui.rating_form import RatingForm
from wmcdp_desktop.ui.rubric_panel import anchors_text
from wmcdp_desktop.ui.task_list import TaskList
from wmcdp_desktop.ui.task_view import TaskView
from wmcdp_desktop.ui.theme import problem_color, rescale_fonts, set_fg
from wmcdp_desktop.ui.timer_widget import hms, local_time
from wmcdp_desktop.ui.welcome import WelcomeScreen

APP_TITLE = "WM-CDP Desktop"
PREFERRED_SIZE = (1440, 900)
FRAME_ALLOWANCE = (16, 48)
"""Room left for the window manager's frame and title bar when the screen is smaller than PREFERRED_SIZE."""
AUTOSAVE_DELAY_MS = 700
"""Autosave runs this long after the first unsaved change (well under the 1 s promise), even while typing."""
RETRY = "Retry saving"
INPUT_EVENTS = {
    QEvent.Type.KeyPress,
    QEvent.Type.MouseButtonPress,
    QEvent.Type.Wheel,
    QEvent.Type.MouseMove,
}


def fitted_size(widget: QWidget) -> tuple[int, int]:
    """PREFERRED_SIZE, shrunk to fit the screen's free area (a 1366x768 laptop: the whole window stays visible)."""
    screen = widget.screen() or QGuiApplication.primaryScreen()
    width, height = PREFERRED_SIZE
    if screen is None:
        return width, height
    free = screen.availableGeometry()
    return min(width, free.width() - FRAME_ALLOWANCE[0]), min(height, free.height() - FRAME_ALLOWANCE[1])


class _InputWatcher(QObject):
    """Tells the session about user input anywhere in the window (keeps the task timer counting)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._win = window

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        session = self._win.session
        if event.type() in INPUT_EVENTS and session is not None and isinstance(obj, QWidget) and obj.window() is self._win:
            session.user_input()
        return False


class RatingPage(QWidget):
    """Task list | scenario and response | rating form (+ rubric help)."""

    def __init__(self, session: RatingSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.save_banner = QFrame()
        self.save_banner.setFrameShape(QFrame.Shape.StyledPanel)
        self.save_text = PlainLabel("")
        self.retry_button = QPushButton(RETRY)
        self.retry_button.setAccessibleName(RETRY)
        sb = QHBoxLayout(self.save_banner)
        sb.addWidget(self.save_text, 1)
        sb.addWidget(self.retry_button)
        self.save_banner.hide()

        self.task_list = TaskList(session)
        self.task_view = TaskView()
        self.form = RatingForm(session, self.task_view.selected_span)
        self.help = PlainTextView("Rubric help")
        self._help_filled = False  # filled when its tab is first shown (not needed for the first paint)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.form, "Rating")
        self.tabs.addTab(self.help, "Rubric help")
        self.tabs.currentChanged.connect(self._tab_shown)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.task_list)
        self.splitter.addWidget(self.task_view)
        self.splitter.addWidget(self.tabs)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setStretchFactor(2, 3)
        self.splitter.setSizes([240, 600, 640])
        layout = QVBoxLayout(self)
        layout.addWidget(self.save_banner)
        layout.addWidget(self.splitter, 1)

    def _tab_shown(self, index: int) -> None:
        if self.tabs.widget(index) is self.help:
            self.fill_help()

    def fill_help(self) -> None:
        """Write the rubric help (once; also done when its tab is first shown)."""
        if self._help_filled:
            return
        self._help_filled = True
        r = self.session.rubric
        h = self.help
        h.append_heading(f"{r.title} (version {r.contract_version})")
        h.append_body(r.instructions)
        h.append_heading("Dimensions")
        for d in r.dimensions:
            h.append_heading(d.label)
            body = f"{d.description}\n{anchors_text(d.scale)}"
            if d.allow_na:
                body += f"\nN/A allowed: {d.na_guidance or 'when the dimension does not apply'}"
            h.append_body(body)
        h.append_heading("Failure modes")
        for fm in r.failure_modes:
            g = fm.severity_guidance
            h.append_heading(fm.label)
            h.append_body(
                f"{fm.description}\nminor: {g.minor}\nmoderate: {g.moderate}\nmajor: {g.major}\ncritical: {g.critical}"
            )
        h.append_heading("Confidence")
        h.append_body(anchors_text(r.confidence_scale))
        h.moveCursor(h.textCursor().MoveOperation.Start)

    def show_save_error(self, message: str | None) -> None:
        if message:
            set_fg(self.save_text, problem_color(self))
            self.save_text.setText(message)
            self.save_text.setAccessibleName(message)
            self.save_banner.show()
        else:
            self.save_banner.hide()


class MainWindow(QMainWindow):
    def __init__(
        self,
        data_dir: Path,
        settings: Settings,
        clock: Clock,
        lock: InstanceLock,
        *,
        idle_timeout: float | None = None,
    ) -> None:
        super().__init__()
        self.data_dir = data_dir
        self.settings = settings
        self.clock = clock
        self.lock = lock
        self.idle_timeout = float(idle_timeout or settings.idle_timeout_seconds)
        self.session: RatingSession | None = None
        self.page: RatingPage | None = None
        self.bundle: OpenedBundle | None = None
        self.messages: list[str] = []
        """Every message shown to the rater in a dialog (tests read it)."""
        self._closed = False
        self.setWindowTitle(APP_TITLE)
        self.setObjectName("main_window")
        self.resize(*fitted_size(self))

        self.stack = QStackedWidget()
        self.welcome = WelcomeScreen()
        self.stack.addWidget(self.welcome)
        self.setCentralWidget(self.stack)
        self.welcome.openRequested.connect(self.choose_bundle)
        self.welcome.demoRequested.connect(self.open_demo)
        self.welcome.recentChosen.connect(lambda p: self.open_bundle_path(Path(p)))
        self.welcome.raterRequested.connect(self.change_rater)
        self.welcome.show_rater(settings.rater_id, settings.rater_role_or_background)
        self.welcome.show_recent(settings.recent_bundles)

        self.session_label = QLabel("Session: 0:00:00")
        self.session_label.setObjectName("session_timer")
        self.save_label = QLabel("")
        self.save_label.setObjectName("save_status")
        self.statusBar().addPermanentWidget(self.save_label)
        self.statusBar().addPermanentWidget(self.session_label)

        self._build_menus()
        self.autosave = QTimer(self)
        self.autosave.setSingleShot(True)
        self.autosave.setInterval(AUTOSAVE_DELAY_MS)
        self.autosave.timeout.connect(self.save_now)
        self.ticker = QTimer(self)
        self.ticker.setInterval(1000)
        self.ticker.timeout.connect(self.tick)
        self.ticker.start()
        self.watcher = _InputWatcher(self)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self.watcher)
        if settings.font_point_size:
            self._apply_font(settings.font_point_size)
        rescale_fonts(self)
        self._update_actions()

    # ----- menus and shortcuts -------------------------------------------------------------------------
    def _action(self, menu_name: str, text: str, slot: object, shortcuts: list[str] | None = None) -> QAction:
        action = QAction(text, self)
        if shortcuts:
            action.setShortcuts([QKeySequence(s) for s in shortcuts])
        action.triggered.connect(slot)
        self.menus[menu_name].addAction(action)
        self.addAction(action)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.menus = {name: bar.addMenu(name) for name in ("&File", "&Task", "&View", "&Settings")}
        self.act_open = self._action("&File", "Open bundle…", self.choose_bundle, ["Ctrl+O"])
        self.act_demo = self._action("&File", "Open the demo bundle", self.open_demo)
        self.act_export = self._action("&File", "Export results…", self.choose_export, ["Ctrl+E"])
        self.act_close_bundle = self._action("&File", "Close bundle", self.close_bundle)
        self.menus["&File"].addSeparator()
        self._action("&File", "Quit", self.close, ["Ctrl+Q"])
        self.act_submit = self._action("&Task", "Submit rating", self.submit, ["Ctrl+Return", "Ctrl+Enter"])
        self.act_save = self._action("&Task", "Save draft now", self.save_draft_now, ["Ctrl+S"])
        self.act_next = self._action("&Task", "Next task", lambda: self.step(1), ["Ctrl+PgDown", "Alt+Right"])
        self.act_prev = self._action("&Task", "Previous task", lambda: self.step(-1), ["Ctrl+PgUp", "Alt+Left"])
        self.act_next_unfinished = self._action(
            "&Task", "Next unfinished task", self.next_unfinished, ["Ctrl+Shift+PgDown"]
        )
        self.act_find = self._action("&Task", "Find…", self.open_find, ["Ctrl+F"])
        self.act_bigger = self._action("&View", "Larger text", lambda: self.change_font(1), ["Ctrl+=", "Ctrl++"])
        self.act_smaller = self._action("&View", "Smaller text", lambda: self.change_font(-1), ["Ctrl+-"])
        self.act_help = self._action("&View", "Rubric help", self.show_help, ["F1"])
        self._action("&Settings", "Rater id…", self.change_rater)
        self._action("&Settings", "Idle timeout…", self.choose_idle_timeout)

    def _update_actions(self) -> None:
        has = self.session is not None
        for a in (self.act_export, self.act_close_bundle, self.act_submit, self.act_save, self.act_next,
                  self.act_prev, self.act_next_unfinished, self.act_find, self.act_help):
            a.setEnabled(has)

    # ----- messages ------------------------------------------------------------------------------------
    def tell(self, text: str, *, error: bool = False) -> None:
        """A non-blocking message box (and remembered in ``messages``)."""
        self.messages.append(text)
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Warning if error else QMessageBox.Icon.Information)
        box.setWindowTitle(APP_TITLE)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(text)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def status(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    def _save_settings(self) -> None:
        try:
            save_settings(self.data_dir, self.settings)
        except (StorageError, OSError) as exc:
            self.status(f"Settings could not be saved: {exc}")

    # ----- rater ---------------------------------------------------------------------------------------
    def set_rater(self, rater_id: str, role: str | None) -> None:
        self.settings = self.settings.model_copy(update={"rater_id": rater_id, "rater_role_or_background": role})
        self._save_settings()
        self.welcome.show_rater(rater_id, role)

    def change_rater(self) -> bool:
        if self.session is not None:
            self.tell("Close the bundle first (File > Close bundle), then change the rater id.")
            return False
        dialog = RaterDialog(self.settings.rater_id, self.settings.rater_role_or_background, self)
        if dialog.exec() != RaterDialog.DialogCode.Accepted:
            return False
        self.set_rater(dialog.rater_id(), dialog.role())
        return True

    def choose_idle_timeout(self) -> None:
        value, ok = QInputDialog.getInt(
            self,
            APP_TITLE,
            "Seconds without any input after which the task timer pauses:",
            int(self.idle_timeout),
            10,
            3600,
        )
        if ok:
            self.set_idle_timeout(value)

    def set_idle_timeout(self, seconds: int) -> None:
        self.idle_timeout = float(seconds)
        if self.session is not None:
            self.session.tracker.idle_timeout = float(seconds)
        self.settings = self.settings.model_copy(update={"idle_timeout_seconds": seconds})
        self._save_settings()
        self.status(f"The task timer now pauses after {seconds} s without input.")

    # ----- bundles -------------------------------------------------------------------------------------
    def choose_bundle(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open bundle",
            str(Path.home()),
            "WM-CDP bundle (*.wmcdp *.zip);;Bundle folder: choose its bundle.json (bundle.json)",
        )
        if path:
            p = Path(path)
            self.open_bundle_path(p.parent if p.name == "bundle.json" else p)

    def open_demo(self) -> bool:
        path = demo_bundle_path()
        if not path.exists():
            self.tell(f"The demo bundle is missing from this installation ({path}).", error=True)
            return False
        return self.open_bundle_path(path)

    def open_bundle_path(self, path: Path) -> bool:
        """Open a bundle (zip or folder) and show its first unfinished task. False (with a message) on failure."""
        if not self.settings.rater_id and not self.change_rater():
            return False
        assert self.settings.rater_id is not None
        try:
            bundle = open_bundle(path)
        except DocumentError as exc:
            lines = [str(p) for p in exc.problems[:15]]
            more = len(exc.problems) - len(lines)
            if more > 0:
                lines.append(f"… and {more} more problem(s).")
            self.tell(f"This bundle cannot be opened:\n{path}\n\n" + "\n".join(lines), error=True)
            return False
        except WmcdpError as exc:
            self.tell(f"This bundle cannot be opened:\n{path}\n\n{exc}", error=True)
            return False
        self.close_bundle()
        store = RaterStore(self.data_dir, bundle.manifest.bundle_id, self.settings.rater_id, self.clock)
        try:
            session = RatingSession(
                bundle,
                store,
                RaterIdentity(self.settings.rater_id, self.settings.rater_role_or_background),
                self.clock,
                idle_timeout=self.idle_timeout,
            )
        except WmcdpError as exc:
            self.tell(str(exc), error=True)
            return False
        self.bundle = bundle
        self.session = session
        session.on_change = self._changed
        self.page = RatingPage(session)
        self.stack.addWidget(self.page)
        rescale_fonts(self)
        self.stack.setCurrentWidget(self.page)
        p = self.page
        p.task_list.taskChosen.connect(self.go_to)
        p.form.submitRequested.connect(self.submit)
        p.form.reviseRequested.connect(self.revise)
        p.form.discardRequested.connect(self.discard_revision)
        p.retry_button.clicked.connect(self.save_now)
        self.settings = with_recent(self.settings, path)
        self._save_settings()
        self.welcome.show_recent(self.settings.recent_bundles)
        self.setWindowTitle(f"{safe_line(bundle.manifest.study_title)} — {APP_TITLE}")
        self._update_actions()
        if store.quarantined:
            self.tell(
                "Some saved drafts could not be read and were moved aside (nothing was deleted):\n"
                + "\n".join(str(q) for q in store.quarantined),
                error=True,
            )
        first = session.next_unfinished() or session.task_ids[0]
        self.go_to(first)
        return True

    def close_bundle(self) -> None:
        if self.session is None:
            return
        self.autosave.stop()
        self.session.close()
        self._show_save_state()
        if self.page is not None:
            self.stack.removeWidget(self.page)
            self.page.deleteLater()
        self.page = None
        self.session = None
        self.bundle = None
        self.stack.setCurrentWidget(self.welcome)
        self.setWindowTitle(APP_TITLE)
        self._update_actions()

    # ----- navigation ----------------------------------------------------------------------------------
    def go_to(self, task_id: str) -> bool:
        s, p = self.session, self.page
        if s is None or p is None:
            return False
        self.autosave.stop()
        previous = s.current_id
        try:
            task = s.open_task(task_id)
        except WmcdpError as exc:
            self.tell(f"Task {task_id} cannot be shown:\n{exc}", error=True)
            p.task_list.update_tasks(previous)
            return False
        pos = s.position() or 0
        focus = QApplication.focusWidget()  # before load(): disabling a focused control moves the focus
        in_form = focus is not None and p.form.isAncestorOf(focus)
        p.task_view.show_task(task, pos + 1, len(s.task_ids))
        p.form.load()
        p.task_list.set_title(task_id, task_title(task))
        p.task_list.update_tasks(previous, task_id)
        p.tabs.setCurrentWidget(p.form)
        if in_form:
            # Focus left in the form (e.g. on the confidence box after Ctrl+Enter) would let the next key
            # change the new task's rating out of sight: start the new task at its top instead.
            p.form.focus_start()
        else:
            p.form.scroll_area.verticalScrollBar().setValue(0)
        self._show_save_state()
        self.refresh_time()
        return True

    def step(self, delta: int) -> None:
        if self.session is None:
            return
        target = self.session.neighbour(delta)
        if target is not None:
            self.go_to(target)

    def next_unfinished(self) -> None:
        if self.session is None:
            return
        target = self.session.next_unfinished(self.session.current_id)
        if target is None:
            self.status("Every task is submitted. Use File > Export results… to send them.")
        elif target != self.session.current_id:
            self.go_to(target)

    def open_find(self) -> None:
        if self.page is not None:
            self.page.task_view.find_bar.open()

    def show_help(self) -> None:
        if self.page is not None:
            self.page.tabs.setCurrentWidget(self.page.help)

    # ----- saving --------------------------------------------------------------------------------------
    def _changed(self) -> None:
        self.save_label.setText("Unsaved changes…")
        if not self.autosave.isActive():  # not restarted on every key: at most AUTOSAVE_DELAY_MS behind
            self.autosave.start()
        if self.page is not None and self.session is not None:
            self.page.task_list.refresh_one(self.session.current_id)

    def save_now(self) -> bool:
        self.autosave.stop()
        if self.session is None:
            return True
        ok = self.session.save_draft()
        self._show_save_state()
        if self.page is not None:
            self.page.task_list.refresh_one(self.session.current_id)
        return ok

    def save_draft_now(self) -> None:
        if self.save_now():
            self.status("Draft saved.")

    def _show_save_state(self) -> None:
        s = self.session
        if s is None:
            self.save_label.setText("")
            return
        if self.page is not None:
            self.page.show_save_error(s.save_error)
        if s.save_error:
            self.save_label.setText("Not saved — see the message above")
        elif s.dirty:
            self.save_label.setText("Unsaved changes…")
        elif s.current is None:
            self.save_label.setText("Submitted")
        elif s.last_saved_at:
            self.save_label.setText(f"All changes saved ({local_time(s.last_saved_at)})")
        elif s.current.has_content():
            self.save_label.setText("All changes saved")  # a draft restored from disk, untouched so far
        else:
            self.save_label.setText("Nothing entered yet")
        self.save_label.setAccessibleName(self.save_label.text())

    # ----- time ----------------------------------------------------------------------------------------
    def tick(self) -> None:
        s = self.session
        if s is None:
            return
        s.tick()
        if s.needs_save() and not self.autosave.isActive():
            self.save_now()
        self.refresh_time()

    def refresh_time(self) -> None:
        s = self.session
        if s is None:
            return
        self.session_label.setText(f"Session: {hms(s.session_seconds)}")
        self.session_label.setAccessibleName(self.session_label.text())
        if self.page is not None:
            self.page.form.timer.show_time(s.task_seconds(), s.tracker.status())
            self.page.form.timer.set_paused(s.tracker.user_paused)

    def _window_active(self) -> bool:
        return self.isActiveWindow() and not self.isMinimized() and self.isVisible()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.ActivationChange, QEvent.Type.WindowStateChange) and self.session:
            self.session.set_window_active(self._window_active())
            self.refresh_time()

    def hideEvent(self, event: object) -> None:
        super().hideEvent(event)  # type: ignore[arg-type]
        if self.session is not None:
            self.session.set_window_active(False)

    # ----- submit / revise -----------------------------------------------------------------------------
    def submit(self) -> None:
        s, p = self.session, self.page
        if s is None or p is None:
            return
        if s.current is None:
            self.status("This task is already submitted. Choose “Revise this rating” to change it.")
            return
        self.autosave.stop()
        outcome = s.submit()
        if outcome.error:
            self._show_save_state()
            return
        if not outcome.ok:
            first = p.form.show_problems(outcome.problems)
            p.tabs.setCurrentWidget(p.form)
            if first is not None:
                first.setFocus(Qt.FocusReason.OtherFocusReason)
                p.form.reveal(first, p.form.first_problem)
            self.status(f"Not submitted: {len(outcome.problems)} thing(s) to fix, shown next to each control.")
            return
        assert outcome.record is not None
        env = outcome.record.envelope
        done, total = s.progress()
        msg = f"Submitted {env.task_id} (revision {env.revision}). {done} of {total} submitted."
        if outcome.calibration is not None:
            p.form.load()
            p.task_list.update_tasks(s.current_id)
            self._show_save_state()
            # The feedback sits at the top of the form: scroll to it and let the keyboard read it.
            p.form.scroll_area.verticalScrollBar().setValue(0)
            p.form.calibration.text.setFocus(Qt.FocusReason.OtherFocusReason)
            self.status(msg + " Calibration feedback is shown beside your rating; Ctrl+PgDown for the next task.")
            return
        if outcome.next_task_id is None:
            p.form.load()
            p.task_list.update_tasks(s.current_id)
            p.form.focus_start()
            self._show_save_state()
            self.status(msg + " Every task is submitted: use File > Export results… to send them.")
            self.tell(f"{msg}\nEvery task is submitted. Use File > Export results… to save the file for your coordinator.")
            return
        self.go_to(outcome.next_task_id)
        self.status(msg)

    def revise(self) -> None:
        self._change_revision_state(lambda session: session.revise())

    def discard_revision(self) -> None:
        self._change_revision_state(lambda session: session.discard_revision())

    def _change_revision_state(self, action: Callable[[RatingSession], object]) -> None:
        """Start or drop a revision of the current task, then show the form as the session now has it."""
        if self.session is None or self.page is None:
            return
        focus = QApplication.focusWidget()
        in_form = focus is None or self.page.form.isAncestorOf(focus)
        try:
            action(self.session)
        except WmcdpError as exc:
            self.tell(str(exc), error=True)
            return
        self.page.form.load()
        self.page.task_list.update_tasks(self.session.current_id)
        if in_form:
            self.page.form.focus_start()  # the pressed button is gone: start at the first score (or the form)
        self._show_save_state()

    # ----- export --------------------------------------------------------------------------------------
    def choose_export(self) -> None:
        s = self.session
        if s is None:
            return
        from wmcdp_desktop.core.rater.export import export_file_name  # on use: not needed for the first paint

        default = Path.home() / export_file_name(s.manifest.study_id, s.rater.rater_id, self.clock)
        path, _ = QFileDialog.getSaveFileName(self, "Export results", str(default), "Results (*.zip)")
        if path:
            self.export_to(Path(path))

    def export_to(self, path: Path) -> bool:
        s = self.session
        if s is None:
            return False
        self.save_now()
        try:
            manifest = s.export_results(path)
        except WmcdpError as exc:
            self.tell(f"The results could not be exported:\n{exc}\nNothing was written under that name.", error=True)
            return False
        c = manifest.counts
        note = ""
        if c.drafts_not_submitted:
            note += f"\nNot included: {c.drafts_not_submitted} task(s) started but not submitted yet."
        revising = sum(1 for tid in s.task_ids if s.has_revision_draft(tid))
        if revising:
            note += (
                f"\nNot included: {revising} revision(s) you have not submitted yet "
                "(the earlier submitted rating is included)."
            )
        self.tell(
            f"Exported {c.submitted} submitted rating(s) of {c.tasks_in_bundle} tasks (with every earlier "
            f"revision) to:\n{path}{note}\nSend this file to your study coordinator."
        )
        return True

    # ----- font ----------------------------------------------------------------------------------------
    def _apply_font(self, size: int) -> None:
        font = self.font()
        font.setPointSize(size)
        self.setFont(font)
        rescale_fonts(self)

    def change_font(self, delta: int) -> None:
        size = max(MIN_FONT, min(MAX_FONT, self.font().pointSize() + delta))
        self._apply_font(size)
        self.settings = self.settings.model_copy(update={"font_point_size": size})
        self._save_settings()
        self.status(f"Text size {size} pt")

    # ----- closing -------------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if self._closed:
            event.accept()
            return
        self.autosave.stop()
        if self.session is not None and not self.session.close():
            answer = QMessageBox.question(
                self,
                APP_TITLE,
                f"{self.session.save_error}\n\nClose anyway? Your last changes would be lost.",
            )
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Stop timers, release the data-folder lock (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self.ticker.stop()
        self.autosave.stop()
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self.watcher)
        with contextlib.suppress(Exception):
            self.lock.release()
