"""Rater app entry point: ``wmcdp-desktop [BUNDLE] [--data-dir DIR] [--rater ID] [--demo]``.

:func:`create_main_window` builds the real window without entering the event loop (tests use it);
:func:`main` adds the QApplication, the event loop and plain error messages. :func:`start` is what
``main`` does before its event loop: the bare window is shown first, and :func:`setup_window` (the settings,
the language, the data folder's lock, the window's content, the bundle asked for) runs in the event loop
after its first paint. This module imports Qt and a few small modules only: pydantic, the models and the
pages are imported by ``setup_window`` (docs/PERFORMANCE.md, "Start-up").

A second start on a data folder an app already holds hands its bundle to that app and exits 0
(rater/app/single_instance.py); ``--register-file-type`` makes double-clicking a ``.wmcdp`` file open it
(rater/file_type.py).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow, QMessageBox, QWidget

from wmcdp_desktop import __version__
from wmcdp_desktop.core.errors import AlreadyRunningError, WmcdpError
from wmcdp_desktop.core.ids import rater_id_problem
from wmcdp_desktop.rater.app.qt_guard import protect_none
from wmcdp_desktop.rater.app.screen_fit import PREFERRED_SIZE
from wmcdp_desktop.rater.app.single_instance import HANDOVER_WAIT_S, hand_over, maybe_running
from wmcdp_desktop.rater.app.system_check import missing_message, missing_xcb_packages
from wmcdp_desktop.rater.app.text.i18n import app_title, install_translators
from wmcdp_desktop.rater.app.text.theme import apply_accessible_palette
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.data_folder import default_data_dir
from wmcdp_desktop.rater.timing import MAX_IDLE, MIN_IDLE, Clock, SystemClock

GIL_SWITCH_S = 0.001
"""How long a worker thread (opening a bundle, saving) may keep the interpreter while the window's thread waits
for it: 1 ms instead of Python's 5 (the window's thread asks for the lock at every event it handles in Python, and
each wait was up to a whole interval; docs/PERFORMANCE.md, "Start-up and stalls")."""
FIRST_PAINT_WAIT_MS = 500
"""The most the window's content waits for the bare window's first paint."""
FILE_OPEN_EVENTS = sys.platform == "darwin"
"""Whether the app listens for the system's "open this file" events (``QFileOpenEvent``): only macOS sends
them (a double-click in the Finder). Listening is an application-wide event filter written in Python: every
event of every widget goes through it, and before the first paint that alone cost 20-50 ms (PySide6 makes
each event's and each object's Python class, with its enumerations, the first time one is handed to Python;
docs/PERFORMANCE.md, "Start-up and stalls"). Linux and Windows hand a double-clicked file over on the command
line (a second start hands it to the running app: rater/app/single_instance.py)."""


class _ArgError(WmcdpError):
    pass


class InvalidOptionError(WmcdpError):
    """An option whose value the app refuses (a rater id it cannot use, an idle time out of range): invalid
    input, exit status 1, said in one line without the usage text (a usage mistake is exit status 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _ArgError(f"{message}\n\n{self.format_usage()}")


def _checked(args: argparse.Namespace) -> argparse.Namespace:
    """The values argparse cannot judge: ``--rater`` by the one rater-id rule (rater/settings.py), the
    idle time by its bounds; raises :class:`InvalidOptionError`."""
    if args.rater is not None:
        problem = rater_id_problem(args.rater)
        if problem is not None:
            raise InvalidOptionError(f'--rater "{args.rater}": {problem}')
    if args.idle_timeout is not None:
        try:
            value = int(args.idle_timeout)
        except ValueError:
            raise InvalidOptionError(f'--idle-timeout "{args.idle_timeout}" is not a whole number of seconds') from None
        if not MIN_IDLE <= value <= MAX_IDLE:
            raise InvalidOptionError(f"--idle-timeout {value} is not between {MIN_IDLE} and {MAX_IDLE} seconds")
        args.idle_timeout = value
    return args


def parse_arguments(argv: Sequence[str]) -> argparse.Namespace:
    """The command line, parsed and checked (raises ``_ArgError`` for a usage mistake, InvalidOptionError)."""
    return _checked(build_parser().parse_args(list(argv)))


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="wmcdp-desktop", description="Rate blinded AI responses for the WM-CDP benchmark.")
    p.add_argument("bundle", nargs="?", type=Path, help="a .wmcdp bundle file or a bundle folder to open")
    p.add_argument("--data-dir", type=Path, help="keep drafts, records and settings here instead of the usual folder")
    p.add_argument("--rater", help="your rater id (remembered): letters, digits, '-', '_' and '.'")
    p.add_argument("--role", help="your role or background (optional; remembered)")
    p.add_argument("--demo", action="store_true", help="open the demo bundle shipped with the app")
    p.add_argument(
        "--idle-timeout", metavar="SECONDS",
        help=f"seconds without input before the task timer pauses ({MIN_IDLE}-{MAX_IDLE}; default 120)",
    )
    p.add_argument(
        "--self-test",
        action="store_true",
        help="check this installation and quit: open the built-in demo (or BUNDLE), rate the first task, export "
        "the results, print each step; exit 0 if it all worked (a temporary data folder unless --data-dir)",
    )
    p.add_argument(
        "--register-file-type",
        action="store_true",
        help="make double-clicking a .wmcdp file open it in this app (for you only, no administrator rights) and "
        "quit",
    )
    p.add_argument("--version", action="version", version=f"wmcdp-desktop {__version__}")
    return p


def data_dir_of(args: argparse.Namespace) -> Path:
    return Path(args.data_dir or default_data_dir()).expanduser().resolve()


def setup_window(window: MainWindow, args: argparse.Namespace, *, clock: Clock | None = None) -> None:
    """Everything after the bare window: the settings, the language, the data folder's lock, the window's
    content, the link for later starts, then the bundle asked for (raises AlreadyRunningError if another
    app holds the data folder, WmcdpError for what else stops it)."""
    from wmcdp_desktop.rater.app.single_instance import InstanceServer
    from wmcdp_desktop.rater.settings import load_settings
    from wmcdp_desktop.rater.storage import InstanceLock

    data_dir = data_dir_of(args)
    settings, warning = load_settings(data_dir)
    install_translators(settings.language)  # before the window's content: its words, Qt's, the layout direction
    lock = InstanceLock(data_dir)
    lock.acquire()
    try:
        window.setup(data_dir, settings, clock or SystemClock(), lock, idle_timeout=args.idle_timeout)
        if args.rater is not None:
            window.prefs.set_rater(args.rater, args.role or settings.rater_role_or_background)
        if warning:
            window.welcome.show_message(warning)
        window.server = InstanceServer(data_dir, window)
        window.server.pathsReceived.connect(window.open_from_outside)
    except BaseException:
        lock.release()
        raise
    if args.bundle is not None:
        window.open_bundle_path(args.bundle)
    elif args.demo:
        window.open_demo()
    window.open_pending()


def _bare_window(argv: list[str]) -> tuple[MainWindow, argparse.Namespace]:
    """What both ways of starting share: the process made safe and fair to the window's thread, the arguments
    read, the palette set, the bare window made (not shown)."""
    protect_none()
    sys.setswitchinterval(GIL_SWITCH_S)
    args = parse_arguments(argv)
    apply_accessible_palette()
    return MainWindow(), args


def create_main_window(argv: list[str], *, clock: Clock | None = None) -> QMainWindow:
    """Build the main window from command-line arguments (raises AlreadyRunningError if the data folder is in use)."""
    window, args = _bare_window(argv)
    try:
        setup_window(window, args, clock=clock)
    except BaseException:
        window.deleteLater()
        raise
    return window


def start(argv: list[str]) -> MainWindow:
    """Show the bare window at once and build the rest in the event loop (:func:`setup_window`); what
    :func:`main` does before entering its event loop. A start that cannot go on (another app holds the data
    folder and takes the bundle, or a plain refusal) ends the event loop with its exit status."""
    window, args = _bare_window(argv)
    app = QApplication.instance()
    if app is not None and FILE_OPEN_EVENTS:
        from wmcdp_desktop.rater.app.window.outside import FileOpenEvents

        FileOpenEvents(window, app, window)  # macOS gives a double-clicked file as an event, from the start
    if window.width() < PREFERRED_SIZE[0] or window.height() < PREFERRED_SIZE[1]:
        window.showMaximized()  # a small laptop screen: use all of it (the window already fits)
    else:
        window.show()
    AfterFirstPaint(window, lambda: _finish_start(window, args))
    return window


class AfterFirstPaint(QObject):
    """Calls ``then`` once the window has painted (a turn of the event loop after its first paint event), or
    after FIRST_PAINT_WAIT_MS if no paint comes (a window started minimised is never painted)."""

    def __init__(self, window: QWidget, then: Callable[[], None]) -> None:
        super().__init__(window)
        self._window, self._then = window, then
        self._done = False
        window.installEventFilter(self)
        QTimer.singleShot(FIRST_PAINT_WAIT_MS, self, self._go)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._window and event.type() == QEvent.Type.Paint and not self._done:
            QTimer.singleShot(0, self, self._go)  # after this paint reaches the screen
        return False

    def _go(self) -> None:
        if not self._done:
            self._done = True
            self._window.removeEventFilter(self)
            self._then()


def _finish_start(window: MainWindow, args: argparse.Namespace) -> None:
    try:
        setup_window(window, args)
    except AlreadyRunningError as exc:
        # another app holds the folder but did not answer at first (starting, or an older version): hand the
        # bundle over if it answers now, else say so
        paths = [] if args.bundle is None else [Path(args.bundle)]
        if hand_over(data_dir_of(args), paths, wait_s=HANDOVER_WAIT_S):
            window.close()
            QCoreApplication.exit(0)
            return
        _refuse(window, str(exc))
    except WmcdpError as exc:
        _refuse(window, str(exc))


def _refuse(window: MainWindow, text: str) -> None:
    """A start that cannot go on: the bare window goes, the reason is shown, the event loop ends with 1."""
    window.close()
    window.deleteLater()
    show_fatal(text)
    QCoreApplication.exit(1)


def show_fatal(text: str) -> None:
    """A blocking, plain-text error box (used before or outside the main window)."""
    box = QMessageBox(QMessageBox.Icon.Critical, app_title(), "")
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(text)
    box.exec()


def _excepthook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    """Unexpected errors: a plain message, details in a new log file in the user's own log folder
    (core/crash_log.py; never a traceback in the rater's face)."""
    import traceback

    from PySide6 import __version__ as pyside_version
    from PySide6.QtCore import qVersion

    from wmcdp_desktop.core.crash_log import log_dir, write_crash_log

    path = write_crash_log("wmcdp-desktop", kind, exc, tb, {"Qt": f"{qVersion()} (PySide6 {pyside_version})"})
    if path:
        where = QCoreApplication.translate("app", "Details were written to {path}.").format(path=path)
    else:
        where = QCoreApplication.translate("app", "Details could not be written to a log file in {folder}.").format(
            folder=log_dir()
        )
    if sys.stderr is not None:  # a windowed program on Windows has no console
        sys.stderr.write("".join(traceback.format_exception(kind, exc, tb)))
    if QApplication.instance() is not None:
        show_fatal(
            QCoreApplication.translate(
                "app",
                "Something unexpected went wrong. Your saved drafts and ratings are safe on disk.\n"
                "{where} Please send that file to your study coordinator.",
            ).format(where=where)
        )


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        options = parse_arguments(args)  # --help / --version / usage errors / refused values before any window
    except _ArgError as exc:
        print(f"wmcdp-desktop: error: {exc}", file=sys.stderr)
        return 2
    except InvalidOptionError as exc:
        print(f"wmcdp-desktop: {exc}", file=sys.stderr)
        return 1
    if QApplication.instance() is None:
        missing = missing_xcb_packages()
        if missing:  # Qt would abort with a message naming only one of them
            print(missing_message(missing), file=sys.stderr)
            return 1
    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("WM-CDP Desktop")
    app.setApplicationVersion(__version__)
    if options.self_test:
        from wmcdp_desktop.rater.app import self_test

        if options.bundle is None and not options.demo:
            args.append("--demo")  # ``--self-test`` alone checks the installation on the built-in demo
        return self_test.run(app, args, create_main_window)
    if options.register_file_type:
        from wmcdp_desktop.rater.file_type import register_file_type

        try:
            print("\n".join(register_file_type()))
        except WmcdpError as exc:
            print(f"wmcdp-desktop: {exc}", file=sys.stderr)
            return 1
        return 0
    sys.excepthook = _excepthook
    data_dir = data_dir_of(options)
    if maybe_running(data_dir):  # an app holds this data folder: give it the bundle and let it show itself
        paths = [] if options.bundle is None else [Path(options.bundle)]
        if hand_over(data_dir, paths):
            return 0
    window = start(args)
    code = int(app.exec())
    if window.ready and window.workers.stuck:
        # A worker still hangs (a read from a network drive that never returns): Qt would wait for it for
        # ever while tearing down, keeping the process and its data-folder lock alive. Files are written
        # atomically and the lock is released: leave now.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code
