"""Checking every file of the open bundle in the background, while the rater already works.

Opening reads only the bundle's manifest and rubric; each task is checked (SHA-256, schema) when it is
shown. Right after a bundle opens, :class:`BundleChecker` checks all of them on a worker thread
(``OpenedBundle.verify``, the same check as ``wmcdp bundle verify``), on the session's own bundle object (its
reads are locked; opening the bundle a second time for the check cost a 10,000-task bundle about 10 MB of
peak memory), so a damaged or changed task is reported at once rather than when the rater reaches it. The status bar shows
the progress and a "Stop checking" button; closing the bundle stops it. What it finds is shown in a
banner on the rating page (``problemsFound``), never in a dialog: a finding must not take the keyboard
from a rater who is typing.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication, QObject, Signal

from wmcdp_desktop.core.bundle_reader import OpenedBundle
from wmcdp_desktop.core.errors import Problem
from wmcdp_desktop.rater.app.bundle.opening import Plurals
from wmcdp_desktop.rater.app.jobs import Job, Progress, Workers

MAX_PROBLEMS_SHOWN = 8


def check_bundle(bundle: OpenedBundle, progress: Progress) -> list[Problem]:
    """Every problem of the open ``bundle``; it must still be the bundle opened (same bundle.json).

    After each file the check lets go of the interpreter lock for a moment (``time.sleep(0)``): a task file is
    a few kilobytes, which hashlib, zlib and the JSON parser work on without releasing the lock, so without it
    the window's thread waited up to Python's switch interval (5 ms) every time it came back from Qt, and a
    repaint that comes back often stalled for hundreds of milliseconds (docs/PERFORMANCE.md)."""
    progress(0, 0)
    if not bundle.manifest_unchanged():
        changed = QCoreApplication.translate("BundleChecker", "changed on disk since it was opened: close it and open it again")
        return [Problem(str(bundle.path), "", changed)]

    def each_file(done: int, total: int) -> None:
        time.sleep(0)  # the GUI thread, if it waits for the lock, takes it now
        progress(done, total)

    return bundle.verify(each_file).problems


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

    @property
    def busy(self) -> bool:
        return self._job is not None

    def check(self, bundle: OpenedBundle) -> None:
        self._job = self._workers.run(
            self.tr("Checking the bundle's files"),
            lambda progress: check_bundle(bundle, progress),
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
