"""Work that may take more than a moment (opening a bundle, checking it, exporting) runs off the GUI
thread, so the window paints and answers input all the while.

A :class:`Job` runs one function on a thread of the window's :class:`Workers` pool (``QThreadPool``).
The function gets a ``progress(done, total)`` callback: each call reports progress to the window and is
where a cancelled job stops (the callback raises :class:`Cancelled`, which unwinds the core code that
called it; the core writes its files atomically, so nothing half-done is left). Everything the job
reports arrives on the GUI thread as signals.

Thread rules: the function works on plain values and core objects made for it (never a widget, never an
object the GUI thread also uses); its result is handed over once, by the ``succeeded`` signal.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal

from wmcdp_desktop.core.errors import WmcdpError

Progress = Callable[[int, int], None]
"""``progress(done, total)``; ``total`` 0 = not known yet."""
PROGRESS_EVERY = 0.05
"""Seconds between two progress reports (the window repaints its bar no faster than that)."""
MAX_THREADS = 4
SHUTDOWN_WAIT_MS = 5000


class Cancelled(Exception):
    """Raised by the progress callback of a cancelled job (never escapes the job)."""


class _Runner(QRunnable):
    def __init__(self, job: Job, work: Callable[[Progress], object]) -> None:
        super().__init__()
        self.setAutoDelete(False)  # the job keeps it until the end
        self._job = job
        self._work = work
        self._cancel = job.cancel_event
        self._last = 0.0
        self._total = -1

    def _progress(self, done: int, total: int) -> None:
        if self._cancel.is_set():
            raise Cancelled
        now = time.monotonic()
        if now - self._last >= PROGRESS_EVERY or done == total or total != self._total:
            self._last, self._total = now, total  # a new total is always reported: the bar stops being "busy"
            self._report("progress", (done, total))

    def _report(self, kind: str, payload: object) -> None:
        with contextlib.suppress(RuntimeError):  # the window is gone (shut down while this ran): nobody listens
            self._job.report.emit(kind, payload)

    def run(self) -> None:
        try:
            result = self._work(self._progress)
        except Cancelled:
            self._report("cancelled", None)
        except WmcdpError as exc:
            self._report("failed", str(exc))
        except BaseException as exc:  # a bug or MemoryError: reported on the GUI thread, never lost
            self._report("crashed", exc)
        else:
            self._report("succeeded", result)


class Job(QObject):
    """One function run on a worker thread. Signals (on the GUI thread): ``progressed(done, total)``, then
    exactly one of ``succeeded(result)``, ``failed(message)``, ``cancelled()``, then ``finished()``."""

    progressed = Signal(int, int)
    succeeded = Signal(object)
    failed = Signal(str)
    """A plain message (a :class:`WmcdpError`); empty after an unexpected error, which the app's error
    handler has already reported."""
    cancelled = Signal()
    finished = Signal()
    report = Signal(str, object)
    """From the worker thread (queued to this object's thread); not for listeners."""

    def __init__(self, title: str, work: Callable[[Progress], object], cancel_label: str | None, parent: QObject) -> None:
        super().__init__(parent)
        self.title = title
        """What the job does, for the status bar ("Opening bundle.wmcdp")."""
        self.cancel_label = cancel_label
        """The cancel button's words, or None when the job cannot be cancelled."""
        self.cancel_event = threading.Event()
        self.done = False
        """True once the outcome was signalled (a cancelled job may still run on; its result is dropped)."""
        self._runner = _Runner(self, work)
        self.report.connect(self._on_report, Qt.ConnectionType.QueuedConnection)

    def start(self, pool: QThreadPool) -> None:
        pool.start(self._runner)

    def cancel(self) -> None:
        """Stop at the next progress report; the window hears ``cancelled`` at once."""
        if self.done:
            return
        self.cancel_event.set()
        self._finish("cancelled", None)

    def _on_report(self, kind: str, payload: object) -> None:
        if kind == "progress":
            if not self.done and isinstance(payload, tuple):
                self.progressed.emit(int(payload[0]), int(payload[1]))
            return
        self.deleteLater()  # the worker's last word: nothing more will come from it
        self._finish(kind, payload)

    def _finish(self, kind: str, payload: object) -> None:
        if self.done:
            return
        self.done = True
        if kind == "succeeded":
            self.succeeded.emit(payload)
        elif kind == "failed":
            self.failed.emit(str(payload))
        elif kind == "crashed":
            assert isinstance(payload, BaseException)
            sys.excepthook(type(payload), payload, payload.__traceback__)
            self.failed.emit("")
        else:
            self.cancelled.emit()
        self.finished.emit()


class Workers(QObject):
    """The window's worker threads and the jobs running on them."""

    jobStarted = Signal(object)
    """A :class:`Job` (the status bar shows it until it finishes)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(MAX_THREADS)
        self._jobs: set[Job] = set()
        self.stuck = False
        """True when a worker was still running after :meth:`shutdown` waited for it."""

    def run(self, title: str, work: Callable[[Progress], object], *, cancel_label: str | None = None) -> Job:
        """Start ``work(progress)`` on a worker thread; connect to the returned job's signals at once (they
        come through the event loop, never before this returns)."""
        job = Job(title, work, cancel_label, self)
        self._jobs.add(job)
        job.finished.connect(lambda: self._jobs.discard(job))
        job.start(self.pool)
        self.jobStarted.emit(job)
        return job

    @property
    def busy(self) -> bool:
        return bool(self._jobs)

    def shutdown(self) -> bool:
        """Cancel every job and wait (at most SHUTDOWN_WAIT_MS) for the threads to finish; True when they did.

        A job that never reaches its next progress report (a read from a network drive that hangs) is not
        waited for longer: the app then leaves without tearing its threads down (``app.main``), which is safe
        (files are written atomically) and keeps a hung read from keeping the app, and its lock, alive."""
        for job in list(self._jobs):
            job.cancel()
        self.stuck = not self.pool.waitForDone(SHUTDOWN_WAIT_MS)
        return not self.stuck
