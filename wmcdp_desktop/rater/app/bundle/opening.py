"""Opening a bundle for rating, off the GUI thread: read it and check it is this rater's (a job that can
be cancelled), then build the store and the session and open the first unfinished task (a second, short
job).

:class:`BundleOpener` reports the outcome with signals (``opened`` with a :class:`StartedSession`, or
``failed`` with a plain message); the window decides what to show. Between the two jobs, on the GUI
thread, ``release_current`` closes the bundle on screen (saving it): it may be the same bundle, whose files
the new session reads. A bundle that cannot be opened, or an opening cancelled, leaves the one on screen
open. The bundle read by the first job is handed to the second and the session back to the window, each
once: no object is used by two threads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, Signal

from wmcdp_desktop.core.bundle_reader import OpenedBundle, open_bundle
from wmcdp_desktop.core.errors import DocumentError, WmcdpError
from wmcdp_desktop.rater.app.jobs import Job, Progress, Workers
from wmcdp_desktop.rater.session import RaterIdentity, RatingSession, check_assignment
from wmcdp_desktop.rater.storage import InstanceLock, RaterStore
from wmcdp_desktop.rater.timing import Clock

MAX_PROBLEMS_SHOWN = 15


@dataclass(frozen=True)
class SessionRequest:
    """Everything needed to start rating a bundle (plain values: safe to hand to another thread)."""

    path: Path
    data_dir: Path
    rater: RaterIdentity
    clock: Clock
    idle_timeout: float
    lock: InstanceLock | None = None
    """The window's lock on the data folder: the store checks it is still held before every write (its
    check only reads the file system, so the worker may use it)."""
    language: str | None = None
    """The rater's language (a BCP 47 tag): the rubric is shown in it when the bundle has it."""


@dataclass
class StartedSession:
    """A session ready to show: its first task is open unless ``first_task_error`` says why not."""

    path: Path
    session: RatingSession
    bundle: OpenedBundle
    """The session's bundle (the background check reads its files through it)."""
    first_task_error: str | None = None


def refusal_text(path: Path, exc: WmcdpError) -> str:
    """Why a bundle cannot be opened, in plain words (at most MAX_PROBLEMS_SHOWN problems, then a count)."""
    if isinstance(exc, DocumentError):
        lines = [str(p) for p in exc.problems[:MAX_PROBLEMS_SHOWN]]
        more = len(exc.problems) - len(lines)
        if more > 0:
            lines.append(Plurals().more_problems(more))
        detail = "\n".join(lines)
    else:
        detail = str(exc)
    return QCoreApplication.translate("BundleOpener", "This bundle cannot be opened:") + f"\n{path}\n\n{detail}"


class Plurals(QObject):
    """Plural words (a class: Qt's catalogue tool finds plural forms in ``self.tr``)."""

    def more_problems(self, n: int) -> str:
        return self.tr("… and %Ln more problem(s).", "", n)


def read_bundle(request: SessionRequest, progress: Progress) -> OpenedBundle:
    """Open the bundle and check it is meant for this rater (raises WmcdpError in plain words)."""
    progress(0, 0)
    try:
        bundle = open_bundle(request.path)
    except WmcdpError as exc:
        raise WmcdpError(refusal_text(request.path, exc)) from None
    check_assignment(bundle.manifest, request.rater)  # before the bundle on screen is closed
    progress(1, 1)
    return bundle


def start_session(request: SessionRequest, bundle: OpenedBundle, progress: Progress) -> StartedSession:
    """The rater's store and session for ``bundle``, with the first unfinished task opened."""
    r = request
    store = RaterStore(r.data_dir, bundle.manifest.bundle_id, r.rater.rater_id, r.clock, r.lock)
    session = RatingSession(bundle, store, r.rater, r.clock, idle_timeout=r.idle_timeout, language=r.language)
    first = session.next_unfinished() or (session.task_ids[0] if session.task_ids else None)
    started = StartedSession(r.path, session, bundle)
    if first is not None:
        try:
            session.open_task(first)
        except WmcdpError as exc:
            started.first_task_error = (
                QCoreApplication.translate("RatingController", "Task {id} cannot be shown:").format(id=first) + f"\n{exc}"
            )
    return started


class BundleOpener(QObject):
    opened = Signal(object)
    """A :class:`StartedSession`."""
    failed = Signal(str)
    """Why the bundle was not opened, in plain words."""
    finished = Signal()
    """After ``opened``, ``failed`` or a cancel."""
    busyChanged = Signal(bool)

    def __init__(self, workers: Workers, release_current: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._workers = workers
        self._release_current = release_current
        self._request: SessionRequest | None = None
        self._job: Job | None = None

    @property
    def busy(self) -> bool:
        """True from :meth:`open` until ``finished``."""
        return self._request is not None

    def open(self, request: SessionRequest) -> bool:
        """Start opening ``request.path``; False (nothing started) while another bundle is being opened."""
        if self.busy:
            return False
        self._request = request
        self.busyChanged.emit(True)
        self._job = self._workers.run(
            self.tr("Opening {name}").format(name=request.path.name),
            lambda progress: read_bundle(request, progress),
            cancel_label=self.tr("Cancel opening"),
        )
        self._job.succeeded.connect(self._read)
        self._listen(self._job)
        return True

    def cancel(self) -> None:
        """Stop reading the bundle (the bundle on screen stays open); too late once its session is starting."""
        if self._job is not None and self._job.cancel_label is not None:
            self._job.cancel()

    def _listen(self, job: Job) -> None:
        job.failed.connect(self._failed)
        job.cancelled.connect(self._end)

    def _read(self, bundle: OpenedBundle) -> None:
        request = self._request
        assert request is not None
        self._release_current()
        self._job = self._workers.run(
            self.tr("Opening {name}").format(name=request.path.name),
            lambda progress: start_session(request, bundle, progress),
        )
        self._job.succeeded.connect(self._started)
        self._listen(self._job)

    def _started(self, started: StartedSession) -> None:
        self._end(started)

    def _failed(self, message: str) -> None:
        self._end(None, message)

    def _end(self, started: StartedSession | None = None, message: str = "") -> None:
        self._request = self._job = None
        self.busyChanged.emit(False)
        if started is not None:
            self.opened.emit(started)
        elif message:
            self.failed.emit(message)
        self.finished.emit()
