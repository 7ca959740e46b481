"""``wmcdp-desktop --self-test``: the app checks itself the way a clinician uses it, then quits.

It opens the demo bundle (or the bundle named on the command line) in the real window, rates the first
task as a rater would (a digit key on every score slider, typed notes, a confidence chosen with the
arrow keys, a click on *Submit rating*, "I can't tell" when the bundle asks which system wrote the
response), exports the results and prints what it did, one line per step.
Nothing waits for a person: no dialog is shown, a watchdog ends a stuck run, and a bundle the app refuses
ends the run with the app's own message. Without ``--data-dir`` it works in a temporary folder that is
deleted afterwards; without ``--rater`` it rates as ``SELF-TEST``.

Exit codes: 0 passed (the last line is ``self-test: passed``), 1 a step failed or the bundle was refused
(the message says which), 2 a usage error. The packaging test runs it on the built app; a coordinator or
IT can run it on a fresh install.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QMainWindow,
    QPlainTextEdit,
    QPushButton,
    QSlider,
    QTabWidget,
    QWidget,
)

from wmcdp_desktop.core.errors import WmcdpError
from wmcdp_desktop.rater.app.form.form import SUBMIT
from wmcdp_desktop.rater.app.text.accessible import plain_name
from wmcdp_desktop.rater.app.window.main_window import MainWindow

WATCHDOG_SECONDS = 120
RATIONALE = "Self-test: validates the parent, then coaches a next step."
EXPORT_NAME = "self-test-results.zip"


class SelfTestFailed(Exception):
    """A step of the self-test did not do what a rater would see it do."""


def _console() -> TextIO | None:
    """Standard output; for the windowed program on Windows, the console of the terminal that started it."""
    if sys.stdout is None and sys.platform == "win32":
        import ctypes

        if ctypes.windll.kernel32.AttachConsole(-1):  # -1: the parent process's console
            sys.stdout = open("CONOUT$", "w", encoding="utf-8")  # noqa: SIM115 (kept for the whole run)
    return sys.stdout


def _say(text: str) -> None:
    stream = _console()
    if stream is not None:
        stream.write(f"self-test: {text}\n")
        stream.flush()


def _settle(app: QCoreApplication, seconds: float = 0.2) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()


def _wait(app: QCoreApplication, done: Callable[[], bool], what: str, seconds: float = 60) -> None:
    """Let the event loop run until ``done()`` (work the window may do off the GUI thread), or fail."""
    end = time.monotonic() + seconds
    while not done():
        if time.monotonic() > end:
            raise SelfTestFailed(f"{what} did not finish within {seconds:.0f} s")
        app.processEvents()
        time.sleep(0.005)


def _key(widget: QWidget, key: Qt.Key, text: str = "") -> None:
    for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
        QApplication.sendEvent(widget, QKeyEvent(kind, key, Qt.KeyboardModifier.NoModifier, text))


def _type(widget: QWidget, text: str) -> None:
    widget.setFocus(Qt.FocusReason.TabFocusReason)
    for ch in text:
        key = Qt.Key(ord(ch.upper())) if ch.isascii() and ch.isalnum() else Qt.Key.Key_unknown
        _key(widget, key, ch)


def _visible(root: QWidget, kind: type[QWidget]) -> list[QWidget]:
    return [w for w in root.findChildren(kind) if w.isVisibleTo(root) and w.isEnabled()]


def rate_first_task(app: QCoreApplication, window: MainWindow) -> str:
    """Rate the task on screen through its widgets; return its id (raises SelfTestFailed)."""
    session, page = window.session, window.page
    if session is None or page is None:
        raise SelfTestFailed("no bundle is open")
    task_id = str(session.current_id)
    done_before, total = session.progress()
    sliders = [w for w in _visible(page, QSlider) if isinstance(w, QSlider)]
    if not sliders:
        raise SelfTestFailed("the task shows no score sliders")
    for slider in sliders:
        slider.setFocus(Qt.FocusReason.TabFocusReason)
        top = str(slider.maximum())
        _key(slider, Qt.Key(ord(top)), top)
    typed = 0
    pages: list[QTabWidget | None] = [t for t in page.findChildren(QTabWidget) if t.accessibleName() == "Rating pages"]
    for tabs in pages or [None]:
        for index in range(tabs.count() if tabs is not None else 1):  # each page of the form, as a tab click
            if tabs is not None:
                if not tabs.isTabVisible(index):
                    continue
                tabs.setCurrentIndex(index)
                _settle(app, 0.05)
            notes = [w for w in _visible(page, QPlainTextEdit) if isinstance(w, QPlainTextEdit) and not w.isReadOnly()]
            for edit in notes:
                typed += 1
                if not edit.toPlainText():
                    _type(edit, RATIONALE)
            for combo in _visible(page, QComboBox):
                if isinstance(combo, QComboBox) and combo.currentIndex() < 0 and combo.count():
                    combo.setFocus(Qt.FocusReason.TabFocusReason)
                    _key(combo, Qt.Key.Key_Down)
    if not typed:
        raise SelfTestFailed("the task has no note to type in")
    _settle(app)
    submit = plain_name(QCoreApplication.translate("RatingForm", SUBMIT))  # in the app's language
    buttons = [b for b in _visible(page, QPushButton) if isinstance(b, QPushButton) and b.accessibleName() == submit]
    if len(buttons) != 1:
        raise SelfTestFailed(f"expected one {submit!r} button, found {len(buttons)}")
    buttons[0].click()
    _settle(app)
    question = window.rating.question if window.rating is not None else None
    answered = ""
    if question is not None:  # the bundle's blinding check: answer "I can't tell" as a rater may
        question.cannot_tell.click()
        question.save.click()
        _settle(app)
        answered = "; blinding question answered: I can't tell"
    done_after, _ = session.progress()
    if done_after != done_before + 1:
        problems = "; ".join(str(p) for p in session.check()[:5])
        raise SelfTestFailed(f"task {task_id} was not submitted: {problems or 'no reason shown'}")
    _say(f"rated and submitted task {task_id} ({done_after} of {total} submitted{answered})")
    return task_id


def _give_up() -> None:
    _say(f"FAILED: not finished after {WATCHDOG_SECONDS} s")
    os._exit(1)  # a stuck step cannot be unwound; the rater's files are written atomically


def run(app: QCoreApplication, argv: list[str], make_window: Callable[[list[str]], QMainWindow]) -> int:
    """Run the self-test with the app's own command-line arguments (``--self-test`` among them)."""
    watchdog = QTimer()
    watchdog.setSingleShot(True)
    watchdog.timeout.connect(_give_up)
    watchdog.start(WATCHDOG_SECONDS * 1000)
    with tempfile.TemporaryDirectory(prefix="wmcdp-self-test-") as tmp:
        args = [a for a in argv if a != "--self-test"]
        if not any(a == "--data-dir" or a.startswith("--data-dir=") for a in args):
            args += ["--data-dir", str(Path(tmp) / "data")]
        if not any(a == "--rater" or a.startswith("--rater=") for a in args):
            args += ["--rater", "SELF-TEST"]
        try:
            window = make_window(args)
        except WmcdpError as exc:
            _say(f"FAILED: {exc}")
            return 1
        try:
            if not isinstance(window, MainWindow):
                raise SelfTestFailed(f"the app made a {type(window).__name__}, not its main window")
            return _check(app, window)
        except (SelfTestFailed, WmcdpError) as exc:
            _say(f"FAILED: {exc}")
            return 1
        finally:
            if isinstance(window, MainWindow):
                window.shutdown()
            window.close()
            window.deleteLater()
            watchdog.stop()


def _check(app: QCoreApplication, window: MainWindow) -> int:
    window.show()
    _wait(app, lambda: not window.opening, "opening the bundle")
    _settle(app)
    if window.session is None or window.rating is None:
        reason = "\n".join(window.messages) or "no bundle was opened (give a bundle or --demo)"
        _say(f"FAILED: the bundle was refused:\n{reason}")
        return 1
    if window.session.current_id is None:  # the bundle opened but none of its tasks could be read
        reason = "\n".join(window.messages) or "no task of the bundle could be opened"
        raise SelfTestFailed(f"the bundle was opened but its tasks were refused:\n{reason}")
    _say(f"window ready with task {window.session.current_id}")
    rate_first_task(app, window)
    export = window.data_dir / EXPORT_NAME
    written: list[bool] = []
    window.rating.exporter.finished.connect(written.append)
    window.rating.export_to(export)
    _wait(app, lambda: bool(written), "exporting the results")
    if not written[0] or not export.is_file():
        reason = window.messages[-1] if window.messages else "no file was written"
        raise SelfTestFailed(f"the results could not be exported: {reason}")
    _say(f"exported {export}")
    _say("passed")
    return 0
