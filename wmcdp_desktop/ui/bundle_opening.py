"""Opening a bundle for rating: read it, check it is this rater's, build the store and the session, open
the first unfinished task.

:class:`BundleOpener` reports the outcome with signals (``opened`` with a :class:`StartedSession`, or
``failed`` with a plain message); the window decides what to show. ``release_current`` is called once the
new bundle is known to be good, just before its session starts: the bundle on screen (possibly the same
one, whose files the new session reads) is closed and saved first, and stays open when the new one fails.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, Signal

from wmcdp_desktop.core.bundle_reader import OpenedBundle, open_bundle
from wmcdp_desktop.core.errors import DocumentError, WmcdpError
from wmcdp_desktop.core.rater.rating_session import RaterIdentity, RatingSession, assignment_problem
from wmcdp_desktop.core.rater.storage import RaterStore
from wmcdp_desktop.core.rater.timing import Clock

MAX_PROBLEMS_SHOWN = 15


@dataclass(frozen=True)
class SessionRequest:
    """Everything needed to start rating a bundle (plain values: safe to hand to another thread)."""

    path: Path
    data_dir: Path
    rater: RaterIdentity
    clock: Clock
    idle_timeout: float


@dataclass
class StartedSession:
    """A session ready to show: its first task is open unless ``first_task_error`` says why not."""

    path: Path
    session: RatingSession
    first_task_error: str | None = None


def refusal_text(path: Path, exc: WmcdpError) -> str:
    """Why a bundle cannot be opened, in plain words (at most MAX_PROBLEMS_SHOWN problems, then a count)."""
    if isinstance(exc, DocumentError):
        lines = [str(p) for p in exc.problems[:MAX_PROBLEMS_SHOWN]]
        more = len(exc.problems) - len(lines)
        if more > 0:
            lines.append(_Words().more_problems(more))
        detail = "\n".join(lines)
    else:
        detail = str(exc)
    return QCoreApplication.translate("BundleOpener", "This bundle cannot be opened:") + f"\n{path}\n\n{detail}"


class _Words(QObject):
    """Plural words (a class: Qt's catalogue tool finds plural forms in ``self.tr``)."""

    def more_problems(self, n: int) -> str:
        return self.tr("… and %n more problem(s).", "", n)


def read_bundle(request: SessionRequest) -> OpenedBundle:
    """Open the bundle and check it is meant for this rater (raises WmcdpError in plain words)."""
    try:
        bundle = open_bundle(request.path)
    except WmcdpError as exc:
        raise WmcdpError(refusal_text(request.path, exc)) from None
    refusal = assignment_problem(bundle.manifest, request.rater.rater_id)
    if refusal:
        raise WmcdpError(refusal)
    return bundle


def start_session(request: SessionRequest, bundle: OpenedBundle) -> StartedSession:
    """The rater's store and session for ``bundle``, with the first unfinished task opened."""
    r = request
    store = RaterStore(r.data_dir, bundle.manifest.bundle_id, r.rater.rater_id, r.clock)
    session = RatingSession(bundle, store, r.rater, r.clock, idle_timeout=r.idle_timeout)
    first = session.next_unfinished() or (session.task_ids[0] if session.task_ids else None)
    started = StartedSession(r.path, session)
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
    """After ``opened`` or ``failed``."""

    def __init__(self, release_current: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._release_current = release_current
        self.busy = False

    def open(self, request: SessionRequest) -> None:
        self.busy = True
        try:
            bundle = read_bundle(request)
            self._release_current()
            started = start_session(request, bundle)
        except WmcdpError as exc:
            self.busy = False
            self.failed.emit(str(exc))
        else:
            self.busy = False
            self.opened.emit(started)
        self.finished.emit()
