"""Render the README screenshots: ``python tools/screenshots.py docs/screenshots`` (or ``python -m
tools.screenshots docs/screenshots`` from the repository).

Uses the shipped demo bundle, a throw-away data folder and a fake clock, and drives the real window as a
rater would (keys, clicks, controls found by their accessible names): the welcome screen, a task being
rated (sized as the app opens on a 1440x900 screen; the first task whose response is markdown with headings,
a list and a table, shown rendered), the same task on a 1366x768 laptop at 150% scaling (``--small``: run in
a process of its own with ``QT_SCALE_FACTOR=1.5``, as the default run does itself), the rubric help open beside the form, the problems
shown after an incomplete submit, (when the demo has one) the blinding question after Submit and the
feedback after a calibration task, and a task marked "cannot rate" and flagged for the coordinator. Not
part of the installed app.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QSlider,
    QTabWidget,
    QTextEdit,
    QWidget,
)

from wmcdp_desktop.rater.app.main import create_main_window
from wmcdp_desktop.rater.app.screen_fit import FRAME_ALLOWANCE
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.timing import FakeClock

SIZE = (1440 - FRAME_ALLOWANCE[0], 900 - FRAME_ALLOWANCE[1])
"""The window the app opens on a 1440x900 screen (main_window.fitted_size)."""
SMALL = (round(1366 / 1.5) - FRAME_ALLOWANCE[0], round(768 / 1.5) - FRAME_ALLOWANCE[1])
"""The window on a 1366x768 laptop at 150% scaling, in logical pixels (the image is 1.5 times that)."""
SHOWN_RECENT = "~/Downloads/demo-bundle.wmcdp"
"""The recent bundle the welcome screenshot lists: a neutral path, never one of the machine that made it."""
W = TypeVar("W", bound=QWidget)
CTRL = Qt.KeyboardModifier.ControlModifier


def _settle(app: QApplication, seconds: float = 0.5) -> None:
    """Let the window finish what a user would see it finish (layouts, the task list naming its rows)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()


def _wait(app: QApplication, done: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not done():
        if time.monotonic() > end:
            raise SystemExit(f"screenshots: gave up waiting for {what}")
        app.processEvents()


def _named(root: QWidget, cls: type[W], name: str) -> W:
    """The first visible control of ``cls`` under ``root`` named ``name`` (its accessible name)."""
    for w in root.findChildren(cls):
        if w.accessibleName() == name and w.isVisibleTo(root):
            return w
    raise SystemExit(f"screenshots: no visible {cls.__name__} named {name!r}")


def _type(widget: QWidget, text: str) -> None:
    widget.setFocus(Qt.FocusReason.TabFocusReason)
    QTest.keyClicks(widget, text)


def _score_all(window: MainWindow, digits: str, how_many: int | None = None) -> list[QSlider]:
    sliders = [s for s in window.findChildren(QSlider) if s.isVisibleTo(window) and s.isEnabled()]
    for slider, digit in zip(sliders[:how_many], digits * len(sliders), strict=False):
        slider.setFocus(Qt.FocusReason.TabFocusReason)
        QTest.keyClick(slider, Qt.Key(ord(digit)))
    return sliders


def _page(window: MainWindow, title: str) -> None:
    """Show the rating form's page whose tab starts with ``title`` (as a click on its tab)."""
    tabs = _named(window, QTabWidget, "Rating pages")
    for i in range(tabs.count()):
        if tabs.tabText(i).startswith(title):
            tabs.setCurrentIndex(i)
            return
    raise SystemExit(f"screenshots: no page {title!r}")


def _rate_partly(app: QApplication, window: MainWindow, clock: FakeClock) -> list[QSlider]:
    """Some scores, one failure mode with a quote and a note, the rationale, 95 s of work, saved."""
    session = window.session
    assert session is not None
    sliders = _score_all(window, "43423", 5)
    _page(window, "Failure modes")
    fm_label = session.rubric.failure_modes[0].label
    check = _named(window, QCheckBox, fm_label)
    check.setFocus(Qt.FocusReason.TabFocusReason)
    QTest.keyClick(check, Qt.Key.Key_Space)
    severity = _named(window, QComboBox, f"Severity: {fm_label}")
    severity.setFocus()
    QTest.keyClick(severity, Qt.Key.Key_Down)
    QTest.keyClick(severity, Qt.Key.Key_Down)
    response = _named(window, QTextEdit, "The response you are rating")
    response.setFocus()
    QTest.keyClick(response, Qt.Key.Key_Home, CTRL)
    for _ in range(5):
        QTest.keyClick(response, Qt.Key.Key_Right, CTRL | Qt.KeyboardModifier.ShiftModifier)
    QTest.mouseClick(_named(window, QPushButton, f"Use selected text as evidence: {fm_label}"), Qt.MouseButton.LeftButton)
    _type(_named(window, QLineEdit, f"Evidence note: {fm_label}"), "Offers the answer the child is seeking")
    _page(window, "Notes")
    _type(
        _named(window, QPlainTextEdit, "Brief rationale (required)"),
        "Warm and validating, but partly answers the reassurance question.",
    )
    _page(window, "Scores")
    for _ in range(95):
        clock.advance(1)
        session.user_input()
    QTest.keyClick(window, Qt.Key.Key_S, CTRL)  # Save draft now
    _settle(app)
    return sliders


def _markdown_task(window: MainWindow) -> None:
    """Go to the first task whose response a chatbot wrote in markdown: headings, a list and a table."""
    session, rating = window.session, window.rating
    assert session is not None and rating is not None
    for tid in session.task_ids:
        text = session.task(tid).candidate_response_text
        if "\n## " in f"\n{text}" and "\n- " in text and "|---" in text:
            rating.go_to(tid)
            return
    raise SystemExit("screenshots: the demo has no response in markdown with a table")


def _calibration(app: QApplication, window: MainWindow, clock: FakeClock) -> bool:
    """Rate the demo's calibration task, if it has one, and leave its feedback on screen."""
    session, rating = window.session, window.rating
    assert session is not None and rating is not None
    for tid in session.task_ids:
        if session.task(tid).calibration_feedback is not None:
            rating.go_to(tid)
            _score_all(window, "4")
            _page(window, "Notes")
            _type(_named(window, QPlainTextEdit, "Brief rationale (required)"), "Solid next move.")
            for _ in range(140):  # 2 min 20 s of reading and rating: the feedback shows real active time
                clock.advance(1)
                session.user_input()
            QTest.keyClick(window.focusWidget(), Qt.Key.Key_Return, CTRL)
            return True
    return False


def _cannot_rate(window: MainWindow) -> None:
    """The next unfinished task marked "cannot rate" (other, with the rater's words) and flagged."""
    rating = window.rating
    assert rating is not None
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    rating.next_unfinished()
    QTest.mouseClick(_named(window, QPushButton, "Cannot rate this task"), Qt.MouseButton.LeftButton)
    _settle(app, 0.2)  # the reasons are laid out before they are clicked
    QTest.mouseClick(_named(window, QRadioButton, "Other (say why below)"), Qt.MouseButton.LeftButton)
    _type(_named(window, QLineEdit, "Why you cannot rate it, in a few words"), "I know this family from my clinic.")
    QTest.mouseClick(_named(window, QPushButton, "Flag for coordinator"), Qt.MouseButton.LeftButton)
    _type(_named(window, QLineEdit, "Note for your coordinator"), "The age band says 6-8 but the child sounds older.")


def render(out: Path, *, small: bool = False) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        clock = FakeClock()
        argv = ["--data-dir", str(Path(tmp) / "data"), "--rater", "R07", "--role", "child psychologist"]
        window = create_main_window(argv, clock=clock)
        assert isinstance(window, MainWindow)
        window.resize(*(SMALL if small else SIZE))
        window.show()
        window.welcome.show_recent([SHOWN_RECENT])

        def shot(name: str, dialog: QWidget | None = None) -> None:
            _settle(app)
            path = out / name
            image = window.grab()
            if dialog is not None:  # a dialog is a window of its own: paint it, framed, where it stands
                painter = QPainter(image)
                at = window.mapFromGlobal(dialog.mapToGlobal(QPoint(0, 0)))
                painter.fillRect(at.x() - 2, at.y() - 2, dialog.width() + 4, dialog.height() + 4, QColor("#5a5a5a"))
                painter.drawPixmap(at, dialog.grab())
                painter.end()
            image.save(str(path))
            written.append(path)

        try:
            if not small:
                shot("welcome.png")
            window.open_demo()
            _wait(app, lambda: window.session is not None or bool(window.messages), "the demo bundle to open")
            if window.session is None:
                raise SystemExit(f"screenshots: the demo bundle did not open: {window.messages[-1]}")
            _markdown_task(window)
            if small:
                window.resize(*SMALL)  # (the window grew to its page's wish when the bundle opened)
                _settle(app, 1.5)  # the task list names its rows
                response = _named(window, QTextEdit, "The response you are rating")
                cursor = response.document().find("Ideas to choose from")  # scrolled on to a heading and the table
                if cursor is not None and not cursor.isNull():
                    top = response.document().documentLayout().blockBoundingRect(cursor.block()).top()
                    response.verticalScrollBar().setValue(int(top))
                shot("rating-small-screen.png")
                return written
            sliders = _rate_partly(app, window, clock)
            sliders[5].setFocus(Qt.FocusReason.TabFocusReason)  # its anchors show while it has the focus
            shot("rating.png")
            QTest.keyClick(window.focusWidget(), Qt.Key.Key_F1)  # the rubric help, beside the form
            sliders[3].setFocus(Qt.FocusReason.TabFocusReason)  # the help follows the dimension in focus
            shot("help.png")
            QTest.keyClick(window.focusWidget(), Qt.Key.Key_F1)
            QTest.keyClick(window.focusWidget(), Qt.Key.Key_Return, CTRL)  # submit with scores still unset
            shot("validation.png")
            if _calibration(app, window, clock):
                question = window.rating.question if window.rating is not None else None
                if question is not None:  # the demo's blinding check, asked after Submit
                    question.options[2].setChecked(True)
                    question.options[2].setFocus()
                    shot("blinding-question.png", question)
                    question.cannot_tell.click()
                    question.save.click()
                    _settle(app)
                shot("calibration.png")
            _cannot_rate(window)
            shot("cannot-rate.png")
        finally:
            window.close()
            window.shutdown()
            window.deleteLater()
            _settle(app)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    small = "--small" in args
    args = [a for a in args if a != "--small"]
    out = Path(args[0]) if args else Path("docs/screenshots")
    for path in render(out, small=small):
        print(path)
    if not small:  # the laptop at 150%: Qt's scaling is set before it starts, so in a process of its own
        env = {**os.environ, "QT_SCALE_FACTOR": "1.5"}
        done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--small", str(out)], env=env, check=False)
        if done.returncode != 0:
            return done.returncode
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
