"""The Qt side of the benchmarks, run in a fresh process per measurement (``QT_QPA_PLATFORM=offscreen``).

``python -m benchmarks.qt_probe MODE ...`` prints one JSON line. Times are ``time.monotonic()`` values
(one clock for every process on the machine), so the parent can measure from the moment it started
the process. Modes:

- ``bare``: a bare QMainWindow (a QPlainTextEdit inside) shown and painted once: the floor of start-up
  time and memory.
- ``paint BUNDLE DATA_DIR RATER``: the rater app started on BUNDLE as ``wmcdp-desktop`` starts it
  (``main.start``) until its window has first painted and the event loop runs (the window's content is
  built and the bundle opens after that).
- ``app BUNDLE DATA_DIR RATER MARKER``: the rater app started the same way opening BUNDLE until the
  widget showing MARKER (text of the first task's response) has painted and the event loop runs.
- ``stall-open BUNDLE DATA_DIR RATER MARKER``: the longest stall of the event loop (how late a 10 ms
  timer fires) from the window shown until the first task is painted and the background check of every
  file of the bundle is over.
- ``stall-rate BUNDLE DATA_DIR RATER TASKS``: the same while rating TASKS tasks by keyboard (a digit on
  every score, the rationale typed, Ctrl+Enter), the next task opening after each submit.
- ``stall-idle SECONDS``: the same timer in a bare window doing nothing (the machine's own jitter).
- ``next BUNDLE DATA_DIR RATER STEPS``: in the app, "next task" STEPS times, each timed from the click to
  the new task painted; interleaved with the floor, ``setPlainText`` of the same text into a bare
  QPlainTextEdit of the same size.
- ``huge BUNDLE DATA_DIR RATER MARKER`` / ``huge-floor TEXT_FILE``: show a task whose response is one
  huge line and scroll through it, in the app / in a bare QPlainTextEdit.
"""

from __future__ import annotations

import json
import os
import re
import resource
import sys
import time
from pathlib import Path
from typing import Any

T_IMPORT = time.monotonic()
APP_MODES = ("app", "next", "huge", "paint", "stall-open", "stall-rate")
if sys.argv[1:2] and sys.argv[1] in APP_MODES:
    # As the launchers do (``wmcdp-desktop`` and ``python -m wmcdp_desktop`` import the app module first,
    # then create the QApplication): the app's own import order is part of what is measured.
    import wmcdp_desktop.rater.app.main  # noqa: F401
T_APP_IMPORTED = time.monotonic()

from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, QObject, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
    QAbstractButton,
    QAbstractScrollArea,
    QApplication,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

WINDOW_SIZE = (1280, 860)
TIMEOUT = 60.0


def rss_mb() -> float:
    """Peak resident memory of this process in MB.

    On Linux from ``VmHWM`` (the peak of this program's memory): ``ru_maxrss`` survives ``exec`` and so
    reports at least the parent's size at ``fork`` — the runner's, once it has grown.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 if sys.platform != "darwin" else peak / (1024 * 1024)


def emit(obj: dict[str, Any]) -> None:
    print(json.dumps(obj), flush=True)


class PaintSpy(QObject):
    """Counts paint events of a widget (its viewport for scroll areas)."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__()
        self.target = widget.viewport() if isinstance(widget, QAbstractScrollArea) else widget
        self.count = 0
        self.target.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def app() -> QApplication:
    inst = QApplication.instance()
    return inst if isinstance(inst, QApplication) else QApplication([sys.argv[0]])


def spin_until(cond: Any, what: str, timeout: float = TIMEOUT) -> None:
    """Run the event loop until ``cond()``. It waits for events (a 1 ms timer guarantees one) instead of
    polling: a polling loop would hold the interpreter lock the app's worker threads need."""
    end = time.monotonic() + timeout
    tick = QTimer()
    tick.setInterval(1)
    tick.start()
    try:
        while not cond():
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
            if time.monotonic() > end:
                raise TimeoutError(f"timed out waiting for {what}")
    finally:
        tick.stop()


def paint_now(widget: QWidget) -> None:
    """Ask for a repaint and wait until it happened."""
    spy = PaintSpy(widget)
    spy.target.update()  # the viewport of a scroll area: updating the area itself repaints only its frame
    spin_until(lambda: spy.count > 0, "a paint event")
    spy.target.removeEventFilter(spy)


def run_loop_once() -> float:
    """Enter the event loop and leave it on its first turn: proves the window is interactive."""
    stamp: list[float] = []

    def done() -> None:
        stamp.append(time.monotonic())
        app().quit()

    QTimer.singleShot(0, done)
    app().exec()
    return stamp[0]


class WindowPaintSpy(QObject):
    """Counts paint events of a window and the widgets in it when the spy is made; ``painted`` is the time of
    the first turn of the event loop after the first one (the paint done, the loop running: a key press would
    be read now). Taken in the loop itself, before whatever else the app queued after its first paint.

    It filters those widgets, not the application: an application filter written in Python hands every event
    of the process to Python, and PySide6 makes each event's and each object's Python class (with its
    enumerations) the first time it does, about 20-50 ms of work the app itself does not do (and the bare
    window's floor, filtering one widget, does not either; docs/PERFORMANCE.md, "Start-up and stalls")."""

    def __init__(self, window: QWidget) -> None:
        super().__init__()
        self.window = window
        self.count = 0
        self.painted: float | None = None
        self.cpu: float | None = None
        """The process's CPU time (``time.process_time()``) when ``painted`` was taken."""
        # installed after the app's own filters, so run before them (Qt calls the last installed first)
        for widget in (window, *window.findChildren(QWidget)):
            widget.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
            if self.count == 1:
                QTimer.singleShot(0, self._stamp)
        return False

    def _stamp(self) -> None:
        if self.painted is None:
            self.painted = time.monotonic()
            self.cpu = time.process_time()


class Lateness(QObject):
    """A timer meant to fire every INTERVAL_MS: how late each firing is, i.e. how long the event loop
    could not run (a key press would have waited as long)."""

    INTERVAL_MS = 10

    def __init__(self) -> None:
        super().__init__()
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(self.INTERVAL_MS)
        self.timer.timeout.connect(self._fired)
        self.late: list[float] = []
        self.busy: list[float] = []
        """CPU time of the GUI thread itself within each late gap: the app's own work, as opposed to waiting
        for the processor or for the interpreter lock (a busy machine, the app's worker threads)."""
        self._last = 0.0
        self._last_cpu = 0.0

    def start(self) -> None:
        self._last, self._last_cpu = time.perf_counter(), time.thread_time()
        self.timer.start()

    def _fired(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        self.late.append(max(0.0, now - self._last - self.INTERVAL_MS / 1000))
        self.busy.append(cpu - self._last_cpu)
        self._last, self._last_cpu = now, cpu

    def stop(self) -> dict[str, Any]:
        self.timer.stop()
        self._fired()  # a stall at the very end counts too
        xs = sorted(self.late)
        worst = max(range(len(self.late)), key=self.late.__getitem__)
        return {"longest_ms": xs[-1] * 1000, "p99_ms": xs[int(0.99 * (len(xs) - 1))] * 1000, "ticks": len(xs),
                "longest_cpu_ms": self.busy[worst] * 1000, "most_cpu_ms": max(self.busy) * 1000}


def text_of(widget: QWidget) -> str | None:
    if isinstance(widget, QPlainTextEdit | QTextEdit):
        return widget.document().toPlainText()
    if isinstance(widget, QLabel):
        return widget.text()
    return None


def find_text_widget(root: QWidget, marker: str) -> QWidget | None:
    """The visible widget whose text contains ``marker`` (the response view), if any."""
    for cls in (QPlainTextEdit, QTextEdit, QLabel):
        for widget in root.findChildren(cls):
            if not widget.isVisible():
                continue
            if isinstance(widget, QPlainTextEdit | QTextEdit):
                if not widget.document().find(marker).isNull():
                    return widget
            elif isinstance(widget, QLabel) and marker in widget.text():
                return widget
    return None


def marker_of(text: str) -> str:
    """A piece of ``text`` a QTextDocument search can find: from its first non-blank line (a search never
    matches across a paragraph break) the longest run without characters outside the BMP (PySide6's
    ``QTextDocument.find`` misses strings with an emoji followed by more text), at most 60 characters."""
    line = next((ln for ln in text.split("\n") if ln.strip()), text)
    runs = re.split("[\U00010000-\U0010ffff]", line)
    return max(runs, key=len).strip()[:60]


def wait_for_text(root: QWidget, marker: str, timeout: float = TIMEOUT) -> QWidget:
    found: list[QWidget] = []

    def look() -> bool:
        widget = find_text_widget(root, marker)
        if widget is not None:
            found.append(widget)
            return True
        return False

    spin_until(look, f"the text {marker[:30]!r} to be shown", timeout)
    return found[0]


def scroll_area_of(widget: QWidget) -> QAbstractScrollArea | None:
    w: QWidget | None = widget
    while w is not None:
        if isinstance(w, QAbstractScrollArea):
            return w
        w = w.parentWidget()
    return None


# --------------------------------------------------------------------------------------------------


def mode_bare() -> None:
    t0 = time.monotonic()
    a = app()
    win = QMainWindow()
    win.setWindowTitle("bare")
    edit = QPlainTextEdit()
    edit.setReadOnly(True)
    win.setCentralWidget(edit)
    win.resize(*WINDOW_SIZE)
    win.show()
    paint_now(edit)
    ready = run_loop_once()
    emit({"t_start": T_IMPORT, "t_open": t0, "ready": ready, "cpu_s": time.process_time(), "rss_mb": rss_mb()})
    del a


def open_app(bundle: str, data_dir: str, rater: str) -> tuple[QMainWindow, float]:
    app()
    from wmcdp_desktop.rater.app.main import create_main_window

    t_open = time.monotonic()
    win = create_main_window([bundle, "--data-dir", data_dir, "--rater", rater])
    win.resize(*WINDOW_SIZE)
    win.show()
    return win, t_open


def launch_app(bundle: str, data_dir: str, rater: str) -> tuple[QMainWindow, float]:
    """The app started as ``wmcdp-desktop`` starts it (``main.start``: the bare window shown at once, the rest
    built in the event loop), at the probe's window size."""
    app()
    from wmcdp_desktop.rater.app.main import start

    t_open = time.monotonic()
    win = start([bundle, "--data-dir", data_dir, "--rater", rater])
    win.resize(*WINDOW_SIZE)
    return win, t_open


def mode_app(bundle: str, data_dir: str, rater: str, marker: str) -> None:
    win, t_open = launch_app(bundle, data_dir, rater)
    widget = wait_for_text(win, marker)
    paint_now(widget)
    ready = run_loop_once()
    emit({"t_start": T_IMPORT, "t_app_imported": T_APP_IMPORTED, "t_open": t_open, "ready": ready,
          "rss_mb": rss_mb()})


def mode_paint(bundle: str, data_dir: str, rater: str) -> None:
    a = app()
    win, t_open = launch_app(bundle, data_dir, rater)
    spy = WindowPaintSpy(win)
    spin_until(lambda: spy.painted is not None, "the window's first paint")
    ready = spy.painted
    assert ready is not None
    emit({"t_start": T_IMPORT, "t_app_imported": T_APP_IMPORTED, "t_open": t_open, "ready": ready,
          "cpu_s": spy.cpu, "rss_mb": rss_mb()})
    del a


def mode_stall_open(bundle: str, data_dir: str, rater: str, marker: str) -> None:
    app()
    from wmcdp_desktop.rater.app.main import create_main_window

    probe = Lateness()
    t0 = time.monotonic()
    win = create_main_window([bundle, "--data-dir", data_dir, "--rater", rater])
    win.resize(*WINDOW_SIZE)
    win.show()
    probe.start()
    paint_now(wait_for_text(win, marker))
    shown = time.monotonic()
    rating = getattr(win, "rating", None)
    checker = getattr(rating, "checker", None)
    spin_until(lambda: checker is None or not checker.busy, "the bundle check", timeout=300)
    checked = time.monotonic()
    emit({**probe.stop(), "shown_s": shown - t0, "checked_s": checked - t0})


def mode_stall_rate(bundle: str, data_dir: str, rater: str, tasks: int) -> None:
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QSlider

    from wmcdp_desktop.core.bundle_reader import open_bundle

    opened = open_bundle(Path(bundle))
    win, _ = open_app(bundle, data_dir, rater)
    paint_now(wait_for_text(win, marker_of(opened.task(opened.task_ids[0]).candidate_response_text)))
    probe = Lateness()
    probe.start()
    ctrl = Qt.KeyboardModifier.ControlModifier
    for k in range(min(tasks, len(opened.task_ids) - 1)):
        for slider in [s for s in win.findChildren(QSlider) if s.isVisible() and s.isEnabled()]:
            slider.setFocus()
            QTest.keyClick(slider, Qt.Key.Key_3)
            QCoreApplication.processEvents()
        notes = [w for w in win.findChildren(QPlainTextEdit) if w.accessibleName() == "Brief rationale (required)"]
        notes[0].setFocus()
        for ch in "Validates the worry, then coaches the parent.":
            QTest.keyClicks(notes[0], ch)
            QCoreApplication.processEvents()
        pause_end = time.monotonic() + 0.8  # a pause, as a rater takes one: the autosave runs
        spin_until(lambda end=pause_end: time.monotonic() > end, "a pause")
        QTest.keyClick(notes[0], Qt.Key.Key_Return, ctrl)
        nxt = opened.task(opened.task_ids[k + 1])
        paint_now(wait_for_text(win, marker_of(nxt.candidate_response_text)))
    emit({**probe.stop(), "tasks": tasks})


def mode_stall_idle(seconds: float) -> None:
    a = app()
    win = QMainWindow()
    edit = QPlainTextEdit()
    win.setCentralWidget(edit)
    win.resize(*WINDOW_SIZE)
    win.show()
    paint_now(edit)
    probe = Lateness()
    probe.start()
    end = time.monotonic() + seconds
    spin_until(lambda: time.monotonic() > end, "the idle period")
    emit(probe.stop())
    del a


def next_trigger(win: QMainWindow) -> Any:
    """The "next task" control of the app: its method when exposed, else a button or action named Next."""
    step = getattr(win, "step", None)  # MainWindow.step(delta), behind the "Next task" action
    if callable(step):
        return lambda: step(1)
    for button in win.findChildren(QAbstractButton):
        label = button.text().replace("&", "").strip().lower()
        if label.startswith("next") and button.isVisible() and button.isEnabled():
            return button.click
    from PySide6.QtGui import QAction

    for action in win.findChildren(QAction):
        label = action.text().replace("&", "").strip().lower()
        if label.startswith("next") and action.isEnabled():
            return action.trigger
    raise LookupError("no 'Next' control found in the main window")


def mode_next(bundle: str, data_dir: str, rater: str, steps: int) -> None:
    from wmcdp_desktop.core.bundle_reader import open_bundle

    opened = open_bundle(Path(bundle))
    order = opened.task_ids
    win, _ = open_app(bundle, data_dir, rater)
    first = opened.task(order[0])
    paint_now(wait_for_text(win, marker_of(first.candidate_response_text)))

    floor_win = QMainWindow()
    floor_edit = QPlainTextEdit()
    floor_edit.setReadOnly(True)
    floor_win.setCentralWidget(floor_edit)
    floor_win.resize(*WINDOW_SIZE)
    floor_win.show()
    paint_now(floor_edit)

    fig: list[float] = []
    floor: list[float] = []
    go = next_trigger(win)
    for k in range(1, min(steps, len(order) - 1) + 1):
        task = opened.task(order[k])
        text = "\n\n".join(t.text for t in task.scenario.turns) + "\n\n" + task.candidate_response_text
        # Floor: the same text into a bare QPlainTextEdit, painted.
        t0 = time.perf_counter()
        floor_edit.setPlainText(text)
        paint_now(floor_edit)
        floor.append(time.perf_counter() - t0)
        # Figure: the app's next-task, until the new response is shown and painted.
        t0 = time.perf_counter()
        go()
        widget = wait_for_text(win, marker_of(task.candidate_response_text))
        paint_now(widget)
        fig.append(time.perf_counter() - t0)
        go = next_trigger(win)
    emit({"figure": fig, "floor": floor, "chars": len(text)})


def scroll_through(area: QAbstractScrollArea, steps: int = 20) -> tuple[float, float]:
    """Scroll from top to bottom in ``steps`` jumps, painting each; (total seconds, longest step)."""
    bar = area.verticalScrollBar()
    hbar = area.horizontalScrollBar()
    longest = 0.0
    t0 = time.perf_counter()
    for i in range(1, steps + 1):
        s0 = time.perf_counter()
        bar.setValue(bar.minimum() + (bar.maximum() - bar.minimum()) * i // steps)
        if hbar.maximum() > 0:
            hbar.setValue(hbar.maximum() * i // steps)
        paint_now(area)
        longest = max(longest, time.perf_counter() - s0)
    return time.perf_counter() - t0, longest


def mode_huge(bundle: str, data_dir: str, rater: str, marker: str) -> None:
    win, t_open = open_app(bundle, data_dir, rater)
    widget = wait_for_text(win, marker)
    paint_now(widget)
    shown = time.monotonic()
    area = scroll_area_of(widget)
    if area is None:
        raise LookupError("the response is not inside a scroll area")
    total, longest = scroll_through(area)
    emit({"show": shown - t_open, "scroll": total, "longest_step": longest, "rss_mb": rss_mb()})


def mode_huge_floor(text_file: str) -> None:
    text = Path(text_file).read_text(encoding="utf-8")
    app()
    win = QMainWindow()
    edit = QPlainTextEdit()
    edit.setReadOnly(True)
    win.setCentralWidget(edit)
    win.resize(*WINDOW_SIZE)
    win.show()
    paint_now(edit)
    t0 = time.monotonic()
    edit.setPlainText(text)
    paint_now(edit)
    shown = time.monotonic()
    total, longest = scroll_through(edit)
    emit({"show": shown - t0, "scroll": total, "longest_step": longest, "rss_mb": rss_mb()})


def main(argv: list[str]) -> int:
    mode, rest = argv[0], argv[1:]
    try:
        if mode == "bare":
            mode_bare()
        elif mode == "app":
            mode_app(*rest[:4])
        elif mode == "next":
            mode_next(rest[0], rest[1], rest[2], int(rest[3]))
        elif mode == "huge":
            mode_huge(*rest[:4])
        elif mode == "huge-floor":
            mode_huge_floor(rest[0])
        elif mode == "paint":
            mode_paint(*rest[:3])
        elif mode == "stall-open":
            mode_stall_open(*rest[:4])
        elif mode == "stall-rate":
            mode_stall_rate(rest[0], rest[1], rest[2], int(rest[3]))
        elif mode == "stall-idle":
            mode_stall_idle(float(rest[0]))
        else:
            emit({"error": f"unknown mode {mode}"})
            return 2
    except Exception as exc:  # reported to the runner as a failed measurement
        emit({"error": f"{type(exc).__name__}: {exc}"})
        return 1
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    # The measurement is written: leave without tearing the app down (its worker threads may still be
    # checking a bundle; waiting for them would only slow the run).
    os._exit(code)
