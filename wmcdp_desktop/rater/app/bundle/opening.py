"""Opening a bundle for rating, off the GUI thread: read it and check it is this rater's (a job that can
be cancelled), then build the store and the session and open the first unfinished task (a second, short
job).

:class:`BundleOpener` reports the outcome with signals (``opened`` with a :class:`StartedSession`, or
``failed`` with a plain message); the window decides what to show. Between the two jobs, on the GUI
thread, ``release_current`` closes the bundle on screen (saving it): it may be the same bundle, whose files
the new session reads. A bundle that cannot be opened, or an opening cancelled, leaves the one on screen
open. The bundle read by the first job is handed to the second and the session back to the window, each
once: no object is used by two threads.

An **encrypted bundle** (recognised by its first bytes, whichever way it came: File > Open, the command line, a
second start, a drop, the recent bundles) is read into memory by the first job, which then asks, on the GUI thread,
for its passphrase (:class:`~wmcdp_desktop.rater.app.bundle.passphrase_dialog.PassphraseDialog`). The key
derivation (scrypt, about half a second) and the decryption run on a worker job, so the window keeps painting;
a wrong passphrase brings the dialog back with the reason, and nothing is written until the bundle is open. The
decrypted bundle stays in memory. The keys (never the passphrase) are kept by the opener for the rest of the
session, by the bundle's header: opening the same bundle again (after switching away, or from the recent list)
does not ask again. The session's store seals everything it writes with the data folder's key
(rater/storage.py), and its exports are sealed to the coordinator's key from the bundle's manifest.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import QWidget

from wmcdp_desktop.core.bundle_reader import (
    OpenedBundle,
    open_bundle,
    open_encrypted_bundle,
    read_encrypted_bundle,
)
from wmcdp_desktop.core.errors import DocumentError, WmcdpError
from wmcdp_desktop.rater.app.jobs import Job, Progress, Workers
from wmcdp_desktop.rater.session import RaterIdentity, RatingSession, check_assignment
from wmcdp_desktop.rater.storage import InstanceLock, RaterStore
from wmcdp_desktop.rater.timing import Clock

if TYPE_CHECKING:
    from wmcdp_desktop.core.encryption.bundle_envelope import SessionKeys
    from wmcdp_desktop.rater.app.bundle.passphrase_dialog import PassphraseDialog

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


@dataclass(frozen=True)
class ReadBundle:
    """A bundle read and checked as this rater's; ``keys`` when it was encrypted."""

    bundle: OpenedBundle
    keys: SessionKeys | None = None


@dataclass(frozen=True)
class LockedBundle:
    """An encrypted bundle's bytes, read into memory, waiting for its passphrase."""

    path: Path
    data: bytes
    header_bytes: bytes
    """The header's bytes: which keys open it (the opener's keys of this session are kept by them)."""


@dataclass(frozen=True)
class NotOpened:
    """The passphrase does not open the bundle (a wrong passphrase, or a changed file): asked for again."""

    locked: LockedBundle
    message: str


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


def read_bundle(request: SessionRequest, progress: Progress) -> ReadBundle | LockedBundle:
    """Open the bundle and check it is meant for this rater (raises WmcdpError in plain words); an encrypted
    bundle is only read into memory and its header checked (its passphrase is asked for next)."""
    progress(0, 0)
    try:
        data = read_encrypted_bundle(request.path)
        if data is not None:
            from wmcdp_desktop.core.encryption.bundle_envelope import read_header

            header = read_header(data, request.path.name)  # a damaged or hostile header: refused before asking
            return LockedBundle(request.path, data, header.encoded)
        bundle = open_bundle(request.path)
    except WmcdpError as exc:
        raise WmcdpError(refusal_text(request.path, exc)) from None
    check_assignment(bundle.manifest, request.rater)  # before the bundle on screen is closed
    progress(1, 1)
    return ReadBundle(bundle)


def unlock_bundle(request: SessionRequest, locked: LockedBundle, keys: SessionKeys | str,
                  progress: Progress) -> ReadBundle | NotOpened:
    """The encrypted bundle opened with ``keys`` (or the keys a typed passphrase gives: about half a second of
    scrypt, on a worker) and checked as :func:`read_bundle` checks a plain one; :class:`NotOpened` when they do not
    open it. Nothing is written."""
    from wmcdp_desktop.core.encryption.bundle_envelope import WrongPassphraseError, derive_keys, read_header

    progress(0, 0)
    try:
        if isinstance(keys, str):
            keys = derive_keys(keys, read_header(locked.data, locked.path.name))
        progress(0, 0)  # a cancel during the derivation stops here
        bundle = open_encrypted_bundle(locked.data, keys, locked.path)
        keys = dataclasses.replace(keys, export_public_key=bundle.manifest.export_public_key_bytes)
    except WrongPassphraseError as exc:
        return NotOpened(locked, str(exc))
    except WmcdpError as exc:
        raise WmcdpError(refusal_text(request.path, exc)) from None
    check_assignment(bundle.manifest, request.rater)
    progress(1, 1)
    return ReadBundle(bundle, keys)


def start_session(request: SessionRequest, read: ReadBundle, progress: Progress) -> StartedSession:
    """The rater's store and session for the bundle read, with the first unfinished task opened."""
    r, bundle, keys = request, read.bundle, read.keys
    cipher = None
    if keys is not None:
        from wmcdp_desktop.core.encryption.data_cipher import DataCipher

        cipher = DataCipher(keys.data_key)
    store = RaterStore(r.data_dir, bundle.manifest.bundle_id, r.rater.rater_id, r.clock, r.lock, cipher)
    session = RatingSession(bundle, store, r.rater, r.clock, idle_timeout=r.idle_timeout, language=r.language,
                            export_public_key=None if keys is None else keys.export_public_key)
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
    passphraseAsked = Signal(object)
    """The :class:`PassphraseDialog` just shown (an encrypted bundle's passphrase is being asked for)."""

    def __init__(self, workers: Workers, release_current: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._workers = workers
        self._release_current = release_current
        self._request: SessionRequest | None = None
        self._job: Job | None = None
        self.dialog: PassphraseDialog | None = None
        """The passphrase dialog while it is shown."""
        self._keys: dict[bytes, SessionKeys] = {}
        """The keys of the encrypted bundles opened in this session, by their header's bytes (never a passphrase)."""

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
        if self.dialog is not None:
            self.dialog.reject()
        elif self._job is not None and self._job.cancel_label is not None:
            self._job.cancel()

    def _listen(self, job: Job) -> None:
        job.failed.connect(self._failed)
        job.cancelled.connect(self._end)

    def _read(self, read: ReadBundle | LockedBundle | NotOpened) -> None:
        request = self._request
        assert request is not None
        if isinstance(read, LockedBundle):
            keys = self._keys.get(read.header_bytes)
            if keys is None:
                self._ask(read, "")
            else:
                self._unlock(request, read, keys)
            return
        if isinstance(read, NotOpened):
            self._keys.pop(read.locked.header_bytes, None)
            self._ask(read.locked, read.message)
            return
        self._release_current()
        self._job = self._workers.run(
            self.tr("Opening {name}").format(name=request.path.name),
            lambda progress: start_session(request, read, progress),
        )
        self._job.succeeded.connect(self._started)
        self._listen(self._job)

    def _ask(self, locked: LockedBundle, problem: str) -> None:
        """Ask for the passphrase (on the GUI thread; the event loop runs on while the dialog is open)."""
        from wmcdp_desktop.rater.app.bundle.passphrase_dialog import PassphraseDialog

        parent = self.parent()
        dialog = self.dialog = PassphraseDialog(locked.path.name, problem, parent if isinstance(parent, QWidget) else None)
        dialog.accepted.connect(lambda: self._answered(locked, dialog, dialog.passphrase()))
        dialog.rejected.connect(lambda: self._answered(locked, dialog, None))
        dialog.open()
        self.passphraseAsked.emit(dialog)

    def _answered(self, locked: LockedBundle, dialog: PassphraseDialog, passphrase: str | None) -> None:
        dialog.edit.clear()
        dialog.deleteLater()
        self.dialog = None
        parent = self.parent()
        if isinstance(parent, QWidget):
            parent.activateWindow()  # the keyboard goes back to the window (the rater types on at once)
        request = self._request
        if passphrase is None or request is None:
            self._end()  # cancelled: nothing opened, nothing written
            return
        self._unlock(request, locked, passphrase)

    def _unlock(self, request: SessionRequest, locked: LockedBundle, keys: SessionKeys | str) -> None:
        self._job = self._workers.run(
            self.tr("Opening {name}").format(name=request.path.name),
            lambda progress: unlock_bundle(request, locked, keys, progress),
            cancel_label=self.tr("Cancel opening"),
        )
        self._job.succeeded.connect(lambda read: self._unlocked(locked, read))
        self._listen(self._job)

    def _unlocked(self, locked: LockedBundle, read: ReadBundle | NotOpened) -> None:
        if isinstance(read, ReadBundle) and read.keys is not None:
            self._keys[locked.header_bytes] = read.keys
        self._read(read)

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
