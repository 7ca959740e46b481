"""The main window: wiring only — menus, shortcuts, the status bar, and which page shows.

The rating itself is presented by :class:`~wmcdp_desktop.ui.rating_controller.RatingController` (one per
open bundle) over the core's rating session; a bundle is opened by
:class:`~wmcdp_desktop.ui.bundle_opening.BundleOpener`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QHideEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QFileDialog, QMainWindow, QMessageBox, QStackedWidget

from wmcdp_desktop.core.rater.rating_session import RaterIdentity, RatingSession
from wmcdp_desktop.core.rater.settings import Settings
from wmcdp_desktop.core.rater.storage import InstanceLock
from wmcdp_desktop.core.rater.timing import Clock
from wmcdp_desktop.core.resources import demo_bundle_path
from wmcdp_desktop.ui.about_dialog import add_about_action
from wmcdp_desktop.ui.bundle_opening import BundleOpener, SessionRequest, StartedSession
from wmcdp_desktop.ui.i18n import QT_TRANSLATE_NOOP
from wmcdp_desktop.ui.jobs import Workers
from wmcdp_desktop.ui.language_menu import LanguageMenu
from wmcdp_desktop.ui.message_box import open_message
from wmcdp_desktop.ui.plain_text import safe_line
from wmcdp_desktop.ui.preferences import Preferences
from wmcdp_desktop.ui.rating_controller import RatingController
from wmcdp_desktop.ui.rating_page import RatingPage
from wmcdp_desktop.ui.status_bar import StatusBar
from wmcdp_desktop.ui.theme import rescale_fonts, set_text_size
from wmcdp_desktop.ui.welcome import WelcomeScreen
from wmcdp_desktop.ui.window_size import fitted_size

if TYPE_CHECKING:  # shown after an export, imported then
    from wmcdp_desktop.ui.export_receipt import ReceiptDialog

APP_TITLE = QT_TRANSLATE_NOOP("MainWindow", "WM-CDP Desktop")
DEMO_RATER_ID = "demo"
"""The rater id of someone trying the demo before any rater id is set (never remembered)."""


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):
        return False


BUNDLE_FILTER = QT_TRANSLATE_NOOP(
    "MainWindow", "WM-CDP bundle (*.wmcdp *.zip);;Bundle folder: choose its bundle.json (bundle.json)"
)



class MainWindow(QMainWindow):
    openingDone = Signal()
    """A bundle asked for is on screen, or was refused, or its opening cancelled (see :attr:`opening`)."""

    def __init__(
        self, data_dir: Path, settings: Settings, clock: Clock, lock: InstanceLock, *, idle_timeout: float | None = None
    ) -> None:
        super().__init__()
        self.data_dir, self.clock, self.lock = data_dir, clock, lock
        self.rating: RatingController | None = None
        """The open bundle's controller (None on the welcome screen)."""
        self.messages: list[str] = []
        self.receipt_dialog: ReceiptDialog | None = None
        """The receipt of the last export while it is shown."""
        """Every message shown to the rater in a dialog (tests read it)."""
        self._closed = False
        self._showing = False
        """True while an opened bundle's page is being put on screen (over a few turns of the event loop)."""
        self.setWindowTitle(self.tr(APP_TITLE))
        self.setObjectName("main_window")
        self.resize(*fitted_size(self))
        self.status_bar = StatusBar()
        self.setStatusBar(self.status_bar)
        self.prefs = Preferences(data_dir, settings, idle_timeout, lock, self)
        self.prefs.status.connect(self.status_bar.say)
        self.prefs.idleTimeoutChanged.connect(lambda seconds: self._rated(lambda r: r.set_idle_timeout(seconds))())
        self.prefs.fontSizeChanged.connect(self._apply_font)
        self.welcome = WelcomeScreen()
        self.welcome.openRequested.connect(self.choose_bundle)
        self.welcome.demoRequested.connect(self.open_demo)
        self.welcome.recentChosen.connect(lambda p: self.open_bundle_path(Path(p)))
        self.welcome.raterRequested.connect(self.change_rater)
        self.prefs.raterChanged.connect(self.welcome.show_rater)
        self.welcome.show_rater(settings.rater_id, settings.rater_role_or_background)
        self.welcome.show_recent(settings.recent_bundles)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.welcome)
        self.setCentralWidget(self.stack)
        self.workers = Workers(self)
        self.workers.jobStarted.connect(self.status_bar.show_job)
        self.opener = BundleOpener(self.workers, self.close_bundle, self)
        self.opener.opened.connect(self._show_opened)
        self.opener.failed.connect(lambda text: self.tell(text, error=True))
        self.opener.busyChanged.connect(self._opening)
        self.opener.finished.connect(lambda: None if self._showing else self.openingDone.emit())
        self._build_menus()
        if settings.font_point_size:
            self._apply_font(settings.font_point_size)
        rescale_fonts(self)
        self._update_actions()

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
        return self.opener.busy or self._showing

    # ----- menus and shortcuts -------------------------------------------------------------------------
    def _action(self, menu: str, text: str, slot: Callable[[], object], keys: tuple[str, ...] = (), *, rating: bool = False) -> QAction:
        """A menu entry (its shortcuts work anywhere in the window); ``rating``: enabled while a bundle is open."""
        action = QAction(text, self)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.triggered.connect(slot)
        self.menus[menu].addAction(action)
        self.addAction(action)
        if rating:
            self._rating_actions.append(action)
        return action

    def _rated(self, call: Callable[[RatingController], object]) -> Callable[[], None]:
        """A slot that calls ``call`` with the open bundle's controller (nothing on the welcome screen)."""

        def slot() -> None:
            if self.rating is not None:
                call(self.rating)

        return slot

    def _build_menus(self) -> None:
        bar, act, on = self.menuBar(), self._action, self._rated
        titles = {"&File": self.tr("&File"), "&Task": self.tr("&Task"), "&View": self.tr("&View"), "&Settings": self.tr("&Settings")}
        self.menus = {key: bar.addMenu(title) for key, title in titles.items()}
        self._rating_actions: list[QAction] = []
        self.act_open = act("&File", self.tr("&Open bundle…"), self.choose_bundle, ("Ctrl+O",))
        self.act_demo = act("&File", self.tr("Open the &demo bundle"), self.open_demo)
        self.act_export = act("&File", self.tr("&Export results…"), on(lambda r: r.choose_export(self)), ("Ctrl+E",), rating=True)
        self.act_close_bundle = act("&File", self.tr("&Close bundle"), self.close_bundle, rating=True)
        self.menus["&File"].addSeparator()
        act("&File", self.tr("&Quit"), self.close, ("Ctrl+Q",))
        self.act_submit = act("&Task", self.tr("&Submit rating"), on(lambda r: r.submit()), ("Ctrl+Return", "Ctrl+Enter"), rating=True)
        self.act_save = act("&Task", self.tr("Save &draft now"), on(lambda r: r.save_draft_now()), ("Ctrl+S",), rating=True)
        self.act_next = act("&Task", self.tr("&Next task"), on(lambda r: r.step(1)), ("Ctrl+PgDown", "Alt+Right"), rating=True)
        self.act_prev = act("&Task", self.tr("&Previous task"), on(lambda r: r.step(-1)), ("Ctrl+PgUp", "Alt+Left"), rating=True)
        self.act_next_unfinished = act(
            "&Task", self.tr("Next &unfinished task"), on(lambda r: r.next_unfinished()), ("Ctrl+Shift+PgDown",), rating=True
        )
        self.act_evidence = act(
            "&Task", self.tr("Use selected text as &evidence"), on(lambda r: r.use_selection()), ("Ctrl+Shift+E",), rating=True
        )
        self.act_pause = act(
            "&Task", self.tr("&Pause or resume the timer"), on(lambda r: r.toggle_pause()), ("Ctrl+Shift+P",), rating=True
        )
        self.act_revise = act(
            "&Task", self.tr("&Revise this rating"), on(lambda r: r.revise_submitted()), ("Ctrl+Shift+R",), rating=True
        )
        self.act_find = act("&Task", self.tr("&Find…"), on(lambda r: r.page.open_find()), ("Ctrl+F",), rating=True)
        self.act_bigger = act("&View", self.tr("&Larger text"), lambda: self.change_font(1), ("Ctrl+=", "Ctrl++"))
        self.act_smaller = act("&View", self.tr("&Smaller text"), lambda: self.change_font(-1), ("Ctrl+-",))
        self.act_help = act("&View", self.tr("Rubric &help"), on(lambda r: r.page.toggle_help()), ("F1",), rating=True)
        act("&Settings", self.tr("&Rater id…"), self.change_rater)
        act("&Settings", self.tr("&Idle timeout…"), lambda: self.prefs.ask_idle_timeout(self, self.tr(APP_TITLE)))
        self.language_menu = LanguageMenu(self.prefs, self)
        self.language_menu.told.connect(self.tell)
        self.menus["&Settings"].addMenu(self.language_menu)
        self.act_about = add_about_action(self)

    def _update_actions(self) -> None:
        for action in self._rating_actions:
            action.setEnabled(self.rating is not None)

    def _opening(self, busy: bool) -> None:
        self.welcome.set_busy(busy)
        for action in (self.act_open, self.act_demo):
            action.setEnabled(not busy)

    def tell(self, text: str, *, error: bool = False) -> None:
        """A non-blocking message box (and remembered in ``messages``)."""
        self.messages.append(text)
        open_message(self, self.tr(APP_TITLE), text, error=error)

    def show_receipt(self, summary: str, receipt: str) -> None:
        """After an export: what it holds and its receipt code, in a window of its own (non-modal)."""
        from wmcdp_desktop.ui.export_receipt import ReceiptDialog  # on use: not needed for the first paint

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
        if self.opening:
            return
        if (demo or _same_file(path, demo_bundle_path())) and not self.settings.rater_id:
            rater = RaterIdentity(DEMO_RATER_ID)
        else:
            if not self.settings.rater_id and not self.change_rater():
                return
            assert self.settings.rater_id is not None
            rater = RaterIdentity(self.settings.rater_id, self.settings.rater_role_or_background)
        self.opener.open(SessionRequest(path, self.data_dir, rater, self.clock, self.prefs.idle_timeout, self.lock))

    def _show_opened(self, started: StartedSession) -> None:
        """Put the opened bundle on screen over three turns of the event loop (the page is built, shown, then
        the recent bundles saved), so that the window answers input in between."""
        self._showing = True
        rating = RatingController(started.session, self.workers, self)
        rating.told.connect(lambda text, error: self.tell(text, error=error))
        rating.exporter.exported.connect(self.show_receipt)
        rating.status.connect(self.status_bar.say)
        rating.saveStateChanged.connect(self.status_bar.show_save_state)
        rating.sessionTimeChanged.connect(self.status_bar.show_session_time)
        QTimer.singleShot(0, rating, lambda: self._show_page(rating, started))

    def _show_page(self, rating: RatingController, started: StartedSession) -> None:
        self.rating = rating
        self.stack.addWidget(rating.page)
        rescale_fonts(self)
        self.stack.setCurrentWidget(rating.page)
        self.setWindowTitle(f"{safe_line(started.session.manifest.study_title)} — {self.tr(APP_TITLE)}")
        if started.session.rater.rater_id == DEMO_RATER_ID and not self.settings.rater_id:
            rating.page.show_notice(
                self.tr(
                    "Demo: you are rating as the demo rater “demo”. Nothing here goes to a study. When your "
                    "coordinator sends you a bundle, the app asks once for the rater id they gave you."
                ),
                problem=False,
            )
        self._update_actions()
        rating.start(started.bundle, started.first_task_error)
        QTimer.singleShot(0, self, lambda: self._opened(started))

    def _opened(self, started: StartedSession) -> None:
        self.welcome.show_recent(self.prefs.remember_bundle(started.path))
        self._showing = False
        self.openingDone.emit()

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
        self.setWindowTitle(self.tr(APP_TITLE))
        self._update_actions()

    # ----- window state and closing ----------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.ActivationChange, QEvent.Type.WindowStateChange):
            active = self.isActiveWindow() and not self.isMinimized() and self.isVisible()
            self._rated(lambda r: r.set_window_active(active))()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self._rated(lambda r: r.set_window_active(False))()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._closed and self.rating is not None:
            if not self.rating.save_now() and self.rating.session.save_error:  # (a vanished folder: already told)
                question = (self.rating.session.save_error or "") + "\n\n" + self.tr("Close anyway? Your last changes would be lost.")
                if QMessageBox.question(self, self.tr(APP_TITLE), question) != QMessageBox.StandardButton.Yes:
                    event.ignore()
                    return
            self.rating.close()
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Stop the timers and release the data-folder lock, saving nothing more (idempotent; what the OS does
        for a process that dies: tests use it as a crash)."""
        if self._closed:
            return
        self._closed = True
        if self.rating is not None:
            self.rating.stop()
        self.workers.shutdown()
        with contextlib.suppress(Exception):
            self.lock.release()
