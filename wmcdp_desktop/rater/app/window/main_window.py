"""The main window: wiring only — menus, shortcuts, the status bar, and which page shows.

It is made in two steps so that it paints at once: ``MainWindow()`` is the bare window (title, size,
colours; this module imports Qt and little else), shown before pydantic, the models and the pages are
imported; :meth:`MainWindow.setup` then builds everything else in the event loop (rater/app/main.py).

The rating itself is presented by :class:`~wmcdp_desktop.rater.app.rating.controller.RatingController` (one per
open bundle) over the core's rating session; a bundle is opened by
:class:`~wmcdp_desktop.rater.app.bundle.opening.BundleOpener`.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDragMoveEvent, QDropEvent, QHideEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QMainWindow, QMessageBox, QStackedWidget, QWidget

from wmcdp_desktop.core.resources import demo_bundle_path
from wmcdp_desktop.rater.app.screen_fit import fitted_size
from wmcdp_desktop.rater.app.text.i18n import QT_TRANSLATE_NOOP, app_language_tag, app_title, format_datetime
from wmcdp_desktop.rater.app.text.theme import rescale_fonts, set_text_size
from wmcdp_desktop.rater.timing import Clock

if TYPE_CHECKING:  # built by setup(), after the first paint (their modules import pydantic and the models)
    from wmcdp_desktop.rater.app.bundle.opening import StartedSession
    from wmcdp_desktop.rater.app.export.receipt import ReceiptDialog
    from wmcdp_desktop.rater.app.rating.controller import RatingController
    from wmcdp_desktop.rater.app.rating.page import RatingPage
    from wmcdp_desktop.rater.app.single_instance import InstanceServer
    from wmcdp_desktop.rater.clock_check import ClockProblem
    from wmcdp_desktop.rater.session import RatingSession
    from wmcdp_desktop.rater.settings import Settings
    from wmcdp_desktop.rater.storage import InstanceLock

PAGE_MODULES = (
    "wmcdp_desktop.rater.app.text.markdown",
    "wmcdp_desktop.rater.app.form.sliders",
    "wmcdp_desktop.rater.app.form.failure_modes",
    "wmcdp_desktop.rater.app.form.form",
    "wmcdp_desktop.rater.app.rating.task_list",
    "wmcdp_desktop.rater.app.rating.task_view",
    "wmcdp_desktop.rater.app.rating.page",
    "wmcdp_desktop.rater.app.rating.controller",
)
"""The rating page's modules, imported one a turn of the event loop once the window is built (while the
bundle opens, or the rater reads the welcome screen): imported when the page is first built, they made that
turn 50-70 ms longer (docs/PERFORMANCE.md, "Start-up and stalls")."""
NEXT_TURN_MS = 1
"""The delay of a step put off to a later turn of the event loop. Not 0: a zero timer set while Qt delivers
posted events (a worker's signal, a paint) runs in the same delivery, before timers and input are seen."""

BUNDLE_FILTER = QT_TRANSLATE_NOOP(
    "MainWindow", "WM-CDP bundle (*.wmcdp *.zip);;Bundle folder: choose its bundle.json (bundle.json)"
)


class MainWindow(QMainWindow):
    openingDone = Signal()
    """A bundle asked for is on screen, or was refused, or its opening cancelled (see :attr:`opening`)."""

    def __init__(self) -> None:
        """The window as it first paints: its title, size and colours, nothing else (what it shows needs the
        rater's settings, their language and the models: :meth:`setup`, run after the first paint)."""
        super().__init__()
        self.ready = False
        """True once :meth:`setup` has built the window's content."""
        self.rating: RatingController | None = None
        """The open bundle's controller (None on the welcome screen)."""
        self.messages: list[str] = []
        """Every message shown to the rater in a dialog (tests read it)."""
        self.receipt_dialog: ReceiptDialog | None = None
        """The receipt of the last export while it is shown."""
        self._closed = False
        self._showing = False
        """True while an opened bundle's page is being put on screen (over a few turns of the event loop)."""
        self.setWindowTitle(app_title())
        self.setObjectName("main_window")
        self.resize(*fitted_size(self))
        self.stack = QStackedWidget()
        self.stack.addWidget(QWidget())  # the blank page of the first paint
        self.setCentralWidget(self.stack)
        self.server: InstanceServer | None = None
        """Where later starts on the same data folder hand their bundle over (set by the launcher)."""
        self._pending: list[Path] = []
        """Bundles that came from outside before the window was built (opened by :meth:`open_pending`)."""
        self._question: QMessageBox | None = None
        self.setAcceptDrops(True)  # a bundle file dropped on the window opens (dropEvent)

    def setup(
        self, data_dir: Path, settings: Settings, clock: Clock, lock: InstanceLock, *, idle_timeout: float | None = None
    ) -> None:
        """Build what the window shows: menus, the welcome screen, the status bar, the opener (once; the app's
        translators are installed by then)."""
        from wmcdp_desktop.rater.app.bundle.opening import BundleOpener
        from wmcdp_desktop.rater.app.jobs import Workers
        from wmcdp_desktop.rater.app.widgets import scroll_when_too_small
        from wmcdp_desktop.rater.app.window.menus import WindowMenus
        from wmcdp_desktop.rater.app.window.preferences import Preferences
        from wmcdp_desktop.rater.app.window.status_bar import StatusBar
        from wmcdp_desktop.rater.app.window.welcome import WelcomeScreen

        self.data_dir, self.clock, self.lock = data_dir, clock, lock
        self.setWindowTitle(app_title())  # in the rater's language now
        self.status_bar = StatusBar()
        self.setStatusBar(self.status_bar)
        self.prefs = Preferences(data_dir, settings, idle_timeout, lock, self)
        self.prefs.status.connect(self.status_bar.say)
        self.prefs.idleTimeoutChanged.connect(lambda seconds: self.rated(lambda r: r.set_idle_timeout(seconds))())
        self.prefs.fontSizeChanged.connect(self._apply_font)
        self.welcome = WelcomeScreen()
        self.welcome.openRequested.connect(self.choose_bundle)
        self.welcome.demoRequested.connect(self.open_demo)
        self.welcome.recentChosen.connect(lambda p: self.open_bundle_path(Path(p)))
        self.welcome.raterRequested.connect(self.change_rater)
        self.prefs.raterChanged.connect(self.welcome.show_rater)
        self.welcome.show_rater(settings.rater_id, settings.rater_role_or_background)
        self.welcome.show_recent(settings.recent_bundles)
        if self.centralWidget() is self.stack:  # the page scrolls as a whole on a screen too small for it
            self.takeCentralWidget()
            self.setCentralWidget(scroll_when_too_small(self.stack, self.tr("Window content")))
        blank = self.stack.currentWidget()
        self.stack.addWidget(self.welcome)
        self.stack.setCurrentWidget(self.welcome)
        if blank is not None:
            self.stack.removeWidget(blank)
            blank.deleteLater()
        self.workers = Workers(self)
        self.workers.jobStarted.connect(self.status_bar.show_job)
        self.opener = BundleOpener(self.workers, self.close_bundle, self)
        self.opener.opened.connect(self._show_opened)
        self.opener.failed.connect(lambda text: self.tell(text, error=True))
        self.opener.busyChanged.connect(self._opening)
        self.opener.finished.connect(self._open_finished)
        self.menu = WindowMenus(self, self)
        """The menus and their shortcuts (``menu.act_open`` …)."""
        if settings.font_point_size:
            self._apply_font(settings.font_point_size)
        rescale_fonts(self)
        self.ready = True
        self._update_actions()
        QTimer.singleShot(NEXT_TURN_MS, self, lambda: self._import_page_modules(PAGE_MODULES))

    def _import_page_modules(self, names: tuple[str, ...]) -> None:
        """Import ``names`` one a turn of the event loop (see :data:`PAGE_MODULES`)."""
        if names and not self._closed:
            importlib.import_module(names[0])
            QTimer.singleShot(NEXT_TURN_MS, self, lambda: self._import_page_modules(names[1:]))

    @property
    def session(self) -> RatingSession | None:
        return None if self.rating is None else self.rating.session

    @property
    def page(self) -> RatingPage | None:
        return None if self.rating is None else self.rating.page

    @property
    def settings(self) -> Settings:
        return self.prefs.settings

    @property
    def opening(self) -> bool:
        """True from a bundle asked for until ``openingDone``."""
        return self.ready and (self.opener.busy or self._showing)

    def rated(self, call: Callable[[RatingController], object]) -> Callable[[], None]:
        """A slot that calls ``call`` with the open bundle's controller (nothing on the welcome screen)."""

        def slot() -> None:
            if self.rating is not None:
                call(self.rating)

        return slot

    def _update_actions(self) -> None:
        self.menu.update(rating=self.rating is not None, opening=self.opener.busy)

    def _opening(self, busy: bool) -> None:
        self.welcome.set_busy(busy)
        self._update_actions()

    def tell(self, text: str, *, error: bool = False) -> None:
        """A non-blocking message box (and remembered in ``messages``)."""
        from wmcdp_desktop.rater.app.widgets import open_message  # (not needed for the first paint)

        self.messages.append(text)
        open_message(self, app_title(), text, error=error)

    def show_receipt(self, summary: str, receipt: str) -> None:
        """After an export: what it holds and its receipt code, in a window of its own (non-modal)."""
        from wmcdp_desktop.rater.app.export.receipt import (
            ReceiptDialog,  # on use: not needed for the first paint
        )

        label = self.tr("Receipt code")
        self.messages.append(f"{summary}\n{label}: {receipt}")
        dialog = self.receipt_dialog = ReceiptDialog(summary, receipt, self)
        dialog.destroyed.connect(self._receipt_closed)
        dialog.open()

    def _receipt_closed(self) -> None:
        self.receipt_dialog = None

    # ----- settings ------------------------------------------------------------------------------------
    def change_rater(self) -> bool:
        if self.rating is not None:
            self.tell(self.tr("Close the bundle first (File > Close bundle), then change the rater id."))
            return False
        return self.prefs.ask_rater(self)

    def change_font(self, delta: int) -> None:
        self.prefs.change_font_size(QApplication.font().pointSize(), delta)

    def _apply_font(self, size: int) -> None:
        """The application's text size: the window, its menus, dialogs, message boxes and tooltips."""
        set_text_size(size)
        rescale_fonts(self)

    # ----- bundles -------------------------------------------------------------------------------------
    def choose_bundle(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open bundle"), str(Path.home()), self.tr(BUNDLE_FILTER))
        if path:
            p = Path(path)
            self.open_bundle_path(p.parent if p.name == "bundle.json" else p)

    def open_demo(self) -> None:
        """Open the demo bundle: as the rater set up here, or, before a rater id is set, as the demo rater
        (nothing is asked: someone trying the demo has no rater id yet; the page says so)."""
        path = demo_bundle_path()
        if path.exists():
            self.open_bundle_path(path, demo=True)
        else:
            self.tell(self.tr("The demo bundle is missing from this installation ({path}).").format(path=path), error=True)

    def open_bundle_path(self, path: Path, *, demo: bool = False) -> None:
        """Open a bundle (zip or folder); ``opener`` reports how it went (and the window shows it). ``demo``
        (also the demo bundle chosen from the recent list): no rater id is asked for (see :meth:`open_demo`)."""
        from wmcdp_desktop.rater.app.bundle.opening import SessionRequest

        rater = None if self.opening else self.prefs.rater_for(path, self, demo=demo)
        if rater is None:
            return
        self.opener.open(SessionRequest(
            path, self.data_dir, rater, self.clock, self.prefs.idle_timeout, self.lock, language=app_language_tag()
        ))

    # ----- bundles from outside the window: a drop, a double-click while it runs, macOS's open event ------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()  # judged on the drop, where a refusal can be said in words

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        """One ``.wmcdp`` file opens as File > Open opens it; anything else is refused in plain words."""
        from wmcdp_desktop.rater.app.window.outside import dropped_bundle

        path, refusal = dropped_bundle(event.mimeData())
        event.acceptProposedAction()
        if path is None:
            self.tell(refusal, error=True)
        elif self.ready:
            self.open_bundle_path(path)
        else:
            self._pending = [path]

    def open_from_outside(self, paths: list[Path]) -> None:
        """A bundle given to the running app (a second start, macOS's open event): shown in front, the bundle
        opened as File > Open opens it; with another bundle open, the rater is asked first (its work is saved
        either way). No path: just come to the front."""
        self._to_front()
        if not paths:
            return
        path = paths[0]
        if not self.ready or self.opening:
            self._pending = [path]
            return
        current = getattr(self.session.bundle, "path", None) if self.session is not None else None
        if current is not None and Path(current).resolve() == path.resolve():
            return  # already open
        if self.rating is None:
            self.open_bundle_path(path)
            return
        self._ask_to_switch(path)

    def open_pending(self) -> None:
        """Open the bundle that came from outside while the window was being built or busy opening."""
        if self._pending and self.ready and not self.opening:
            path = self._pending.pop()
            self._pending.clear()
            self.open_from_outside([path])

    def _to_front(self) -> None:
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()

    def _ask_to_switch(self, path: Path) -> None:
        from wmcdp_desktop.rater.app.text.plain_text import safe_line

        if self._question is not None:
            self._question.close()
        box = self._question = QMessageBox(QMessageBox.Icon.Question, app_title(), "", parent=self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(self.tr(
            "Open the bundle {name}?\n{path}\n\nThe bundle you are rating is saved and closed; you can come back "
            "to it from the list of recent bundles."
        ).format(name=safe_line(path.name), path=safe_line(str(path))))
        box.setStandardButtons(QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)  # a key typed into the form never switches
        box.finished.connect(lambda answer: self._switch_answered(path, answer))
        self.messages.append(box.text())
        box.open()

    def _switch_answered(self, path: Path, answer: int) -> None:
        self._question = None
        if answer == QMessageBox.StandardButton.Open:
            self.open_bundle_path(path)

    def _show_opened(self, started: StartedSession) -> None:
        """Put the opened bundle on screen over three turns of the event loop (the page is built, shown, then
        the recent bundles saved), so that the window answers input in between."""
        from wmcdp_desktop.rater.app.rating.controller import RatingController

        self._showing = True
        rating = RatingController(started.session, self.workers, self)
        rating.told.connect(lambda text, error: self.tell(text, error=error))
        rating.exporter.exported.connect(self.show_receipt)
        rating.status.connect(self.status_bar.say)
        rating.saveStateChanged.connect(self.status_bar.show_save_state)
        rating.sessionTimeChanged.connect(self.status_bar.show_session_time)
        QTimer.singleShot(NEXT_TURN_MS, rating, lambda: self._show_page(rating, started))

    def _show_page(self, rating: RatingController, started: StartedSession) -> None:
        from wmcdp_desktop.rater.app.text.plain_text import safe_line

        self.rating = rating
        view = rating.page.task_view
        view.set_rendering(
            allowed=started.session.manifest.render_markdown is not False, plain=bool(self.settings.show_plain_text)
        )
        view.plainTextToggled.connect(self.prefs.set_plain_text)
        view.set_split(self.settings.scenario_response_split)
        view.splitMoved.connect(self.prefs.set_scenario_response_split)
        self.stack.addWidget(rating.page)
        rescale_fonts(self)
        self.stack.setCurrentWidget(rating.page)
        self.setWindowTitle(f"{safe_line(started.session.manifest.study_title)} — {app_title()}")
        self._update_actions()
        from wmcdp_desktop.rater.app.window.preferences import DEMO_RATER_ID

        demo = started.session.rater.rater_id == DEMO_RATER_ID and not self.settings.rater_id
        rating.start(started.bundle, started.first_task_error, demo=demo)
        if started.session.clock_problem is not None:  # before the rater rates
            self.tell(self.clock_text(started.session.clock_problem), error=True)
        QTimer.singleShot(NEXT_TURN_MS, self, lambda: self._opened(started))

    def clock_text(self, problem: ClockProblem) -> str:
        """The plain words for a computer clock that cannot be right (rater/clock_check.py)."""
        now = format_datetime(problem.now.strftime("%Y-%m-%dT%H:%M:%SZ"))
        then = format_datetime(problem.reference.strftime("%Y-%m-%dT%H:%M:%SZ"))
        if problem.kind == "before_bundle":
            first = self.tr("Your computer's clock says {now}, which is before this bundle was made ({then}).")
        elif problem.kind == "behind_saved_work":
            first = self.tr("Your computer's clock says {now}, which is earlier than work already saved here ({then}).")
        else:
            first = self.tr("Your computer's clock says {now}, more than a year after this bundle was made ({then}).")
        return first.format(now=now, then=then) + "\n" + self.tr(
            "Every rating is saved with the date and time, so please set your computer's date and time correctly "
            "before you rate, then open the bundle again. Your ratings are kept either way, and your coordinator "
            "will see that the clock was wrong."
        )

    def _open_finished(self) -> None:
        if not self._showing:  # refused or cancelled (an opened bundle is done in _opened)
            self.openingDone.emit()
            self.open_pending()

    def _opened(self, started: StartedSession) -> None:
        self.welcome.show_recent(self.prefs.remember_bundle(started.path))
        self._showing = False
        self.openingDone.emit()
        self.open_pending()

    def close_bundle(self) -> None:
        rating, self.rating = self.rating, None
        if rating is None:
            return
        rating.close()
        self.stack.removeWidget(rating.page)
        rating.page.deleteLater()
        rating.deleteLater()
        self.status_bar.show_save_state("")
        self.stack.setCurrentWidget(self.welcome)
        self.setWindowTitle(app_title())
        self._update_actions()

    # ----- window state and closing ----------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.ActivationChange, QEvent.Type.WindowStateChange):
            active = (self.isActiveWindow() or self._own_window_active()) and not self.isMinimized() and self.isVisible()
            self.rated(lambda r: r.set_window_active(active))()

    def _own_window_active(self) -> bool:
        """True while one of the window's own dialogs is the active window (the blinding question, a message):
        the rater is still at work on the task, and its timer goes on."""
        active = QApplication.activeWindow()
        while active is not None and active is not self:
            active = active.parentWidget()
        return active is self and QApplication.activeWindow() is not self

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.rated(lambda r: r.set_window_active(False))()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.ready:  # closed before it was built: nothing to save
            self._closed = True
            event.accept()
            return
        if not self._closed and self.rating is not None:
            if not self.rating.save_now() and self.rating.session.save_error:  # (a vanished folder: already told)
                question = (self.rating.session.save_error or "") + "\n\n" + self.tr("Close anyway? Your last changes would be lost.")
                if QMessageBox.question(self, app_title(), question) != QMessageBox.StandardButton.Yes:
                    event.ignore()
                    return
            self.rating.close()
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Stop the timers and release the data-folder lock, saving nothing more (idempotent; what the OS does
        for a process that dies: tests use it as a crash)."""
        if self._closed or not self.ready:
            self._closed = True
            return
        self._closed = True
        if self.server is not None:
            self.server.close()
        if self.rating is not None:
            self.rating.stop()
        self.workers.shutdown()
        with contextlib.suppress(Exception):
            self.lock.release()
