"""Checking every file of the open bundle in the background, while the rater already works.

Opening reads only the bundle's manifest and rubric; each task is checked (SHA-256, schema) when it is
shown. Right after a bundle opens, :class:`BundleChecker` checks all of them (``OpenedBundle.verify``, the
same check as ``wmcdp bundle verify``), so a damaged or changed task is reported at once rather than when
the rater reaches it. A bundle of up to :data:`PROCESS_FROM_FILES` files is checked on a worker thread, on the
session's own bundle object (its reads are locked; a few hundred files take a few tens of milliseconds);
a bigger one in a process of its own (rater/bundle_check.py), which opens the bundle again there and
checks it is still the bundle.json the app opened: a check on a thread of the app holds the interpreter
lock, and a 10,000-task check made the window's thread wait for it while the first task was painted
(docs/PERFORMANCE.md, "Start-up and stalls"). The check process of an encrypted bundle is given the key that
decrypted it (over its standard input, a pipe) and decrypts the file again in its own memory; nothing plain is
written. The status bar shows
the progress and a "Stop checking" button; closing the bundle stops it. What it finds is shown in a
banner on the rating page (``problemsFound``), never in a dialog: a finding must not take the keyboard
from a rater who is typing.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, Signal

from wmcdp_desktop.core.bundle_reader import OpenedBundle
from wmcdp_desktop.core.errors import Problem
from wmcdp_desktop.rater import bundle_check
from wmcdp_desktop.rater.app.bundle.opening import Plurals
from wmcdp_desktop.rater.app.jobs import Job, Progress, Workers

MAX_PROBLEMS_SHOWN = 8
PROCESS_FROM_FILES = 500
"""A bundle of more files than this is checked in a process of its own (starting one costs about half a
second of the other processor's time; 500 files are checked on a thread in about 80 ms)."""


def _changed_problem(bundle: OpenedBundle) -> Problem:
    changed = QCoreApplication.translate("BundleChecker", "changed on disk since it was opened: close it and open it again")
    return Problem(str(bundle.path), "", changed)


def check_bundle(bundle: OpenedBundle, progress: Progress) -> list[Problem]:
    """Every problem of the open ``bundle``; it must still be the bundle opened (same bundle.json).

    After each file the check lets go of the interpreter lock for a moment (``time.sleep(0)``): a task file is
    a few kilobytes, which hashlib, zlib and the JSON parser work on without releasing the lock, so without it
    the window's thread waited up to Python's switch interval (5 ms) every time it came back from Qt, and a
    repaint that comes back often stalled for hundreds of milliseconds (docs/PERFORMANCE.md)."""
    progress(0, 0)
    if not bundle.manifest_unchanged():
        return [_changed_problem(bundle)]

    def each_file(done: int, total: int) -> None:
        time.sleep(0)  # the GUI thread, if it waits for the lock, takes it now
        progress(done, total)

    return bundle.verify(each_file).problems


def check_bundle_elsewhere(bundle: OpenedBundle, progress: Progress, started: Callable[[int], None]) -> list[Problem]:
    """:func:`check_bundle` in a process of its own (``started(pid)`` once it runs); on the worker thread
    instead when no process can be started."""
    progress(0, 0)
    try:
        found = bundle_check.check_in_process(bundle.path, bundle.manifest_sha256, progress, started=started,
                                              bundle_key=bundle.bundle_key)
    except OSError:
        return check_bundle(bundle, progress)
    return [_changed_problem(bundle)] if found.changed else found.problems


def problems_text(problems: list[Problem]) -> str:
    lines = [str(p) for p in problems[:MAX_PROBLEMS_SHOWN]]
    if len(problems) > len(lines):
        lines.append(Plurals().more_problems(len(problems) - len(lines)))
    return (  # QCoreApplication.translate written out: lupdate does not see an alias of it
        QCoreApplication.translate("BundleChecker", "Checking every file of this bundle found problems:")
        + "\n"
        + "\n".join(lines)
        + "\n"
        + QCoreApplication.translate(
            "BundleChecker",
            "A task whose file is damaged or changed is refused when you open it; the other tasks can be rated "
            "as usual. Ask your study coordinator for a fresh copy of the bundle.",
        )
    )


class BundleChecker(QObject):
    problemsFound = Signal(str)
    """What the check found, in plain words."""
    status = Signal(str)
    finished = Signal()

    def __init__(self, workers: Workers, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._workers = workers
        self._job: Job | None = None
        self.problems: list[Problem] | None = None
        """What the last finished check found (None until one finished)."""
        self._process: list[int] = []
        """The check process's id, once it runs (set by the worker thread: a list, appended to once)."""

    @property
    def process_id(self) -> int | None:
        """The process checking (or that checked) the bundle; None when it is checked on a worker thread of
        the app (a bundle of at most PROCESS_FROM_FILES files), or before the process runs."""
        return self._process[-1] if self._process else None

    @property
    def busy(self) -> bool:
        return self._job is not None

    def check(self, bundle: OpenedBundle) -> None:
        started: list[int] = []
        self._process = started
        big = len(bundle.digests) > PROCESS_FROM_FILES
        self._job = self._workers.run(
            self.tr("Checking the bundle's files"),
            (lambda progress: check_bundle_elsewhere(bundle, progress, started.append))
            if big
            else (lambda progress: check_bundle(bundle, progress)),
            cancel_label=self.tr("Stop checking"),
        )
        self._job.succeeded.connect(self._checked)
        self._job.failed.connect(self._failed)
        self._job.cancelled.connect(self._stopped)

    def stop(self) -> None:
        if self._job is not None:
            self._job.cancel()

    def _checked(self, problems: list[Problem]) -> None:
        self._job = None
        self.problems = problems
        if problems:
            self.problemsFound.emit(problems_text(problems))
        else:
            self.status.emit(self.tr("Bundle checked: every file is intact."))
        self.finished.emit()

    def _failed(self, message: str) -> None:
        self._job = None
        if message:
            self.problemsFound.emit(self.tr("The bundle could not be checked again:") + f"\n{message}")
        self.finished.emit()

    def _stopped(self) -> None:
        self._job = None
        self.status.emit(self.tr("Checking the bundle was stopped; each task is still checked when it is shown."))
        self.finished.emit()
