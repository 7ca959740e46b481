"""The rater's data folder: single-instance lock, drafts, submitted records with revisions, audit log.

Layout (INTERFACES.md)::

    <data>/settings.json                      rater id, recent bundles, font size (rater/settings.py)
    <data>/instance.lock, instance.json       the single-instance lock and who holds it
    <data>/bundles/<bundle_id>/<rater_id>/
        drafts/<task_id>.json                 the draft being written (core/models/draft.py)
        records/<task_id>.r<revision>.json    submitted records; never overwritten (a revision is r2, r3...)
        audit.jsonl                           append-only, hash-chained: opened, draft saved, submitted, revised,
                                              export sealed, exported (core/audit_chain.py)
        quarantine/                           unreadable drafts moved aside (never silently dropped, never
                                              overwritten: <file>.<UTC time>.<n>)

Every path is made from ids by :func:`wmcdp_desktop.core.paths.child_path` after the ids are checked
(:func:`~wmcdp_desktop.core.paths.check_id`): a rater, bundle or task id can never name a file outside
its folder, on any system.

Drafts and records are written with :mod:`wmcdp_desktop.core.atomic` (temp file, fsync, replace). A
record's folder is fsync'd after the replace too, so a submitted record survives a power cut; a draft's
folder is not (after a power cut the draft is an earlier or the new complete one). The audit log is
appended one whole line per ``write()``; lines are fsync'd except ``draft_saved`` (informational) and
``submitted``/``revised`` (rebuilt from the record files by :meth:`RaterStore.recover_unaudited_records`
if a power cut loses them). A crash can at worst leave a partial last line, which :func:`read_audit`
skips; a crash or kill of the app alone loses no line. Every line carries the SHA-256 of the line
before it (``prev``; :mod:`wmcdp_desktop.core.audit_chain`), so an export can carry a log whose every
byte is bound to its last line.

**An encrypted bundle's folder** (the store is given a :class:`~wmcdp_desktop.core.encryption.data_cipher.DataCipher`
made from the key derived from the rater's passphrase) holds nothing readable: the same layout, but every name that
would hold an id is opaque (``DataCipher.opaque_name``, keyed: ``bundles/<opaque>/<opaque>/``,
``drafts/<opaque>.sealed``, ``records/<opaque>.r<revision>.sealed``), every draft and record is sealed whole
(authenticated encryption; the file's logical name, e.g. ``records/T-1.r2.json``, is the associated data, so a file
moved under another name does not open), and the audit log ``audit.sealed`` is one sealed line per event, base64, so
it stays append-only and read from its end. The hash chain is over the plain lines (what an export carries, as for a
plain bundle); a torn or damaged sealed line is left out of the plain log (a damaged one breaks the chain there, as a
changed plain line does). Digests in the audit log and in exports are of the plain bytes.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import os
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filelock import FileLock, Timeout

from wmcdp_desktop.core import audit_chain
from wmcdp_desktop.core.atomic import (
    NEW_FILE_MODE,
    atomic_write_bytes,
    atomic_write_text,
    fsync_dir,
    orphan_temp_files,
    plain_os_error,
)
from wmcdp_desktop.core.digests import sha256_hex
from wmcdp_desktop.core.documents import load_bytes, load_record_bytes
from wmcdp_desktop.core.errors import AlreadyRunningError, DocumentError, StorageError, WmcdpError
from wmcdp_desktop.core.files import (
    MAX_DOCUMENT_BYTES,
    MAX_JSONL_BYTES,
    FileTooLargeError,
    NotRegularFileError,
    read_regular,
)
from wmcdp_desktop.core.models.draft import Draft
from wmcdp_desktop.core.models.task_record import TaskRecord
from wmcdp_desktop.core.paths import check_id, check_no_link_leaving, child_path
from wmcdp_desktop.core.strict_json import dumps_canonical
from wmcdp_desktop.rater.data_folder import APP_DIR_NAME, default_data_dir, instance_info_path  # noqa: F401
from wmcdp_desktop.rater.timing import Clock, SystemClock, utc_iso

if TYPE_CHECKING:
    from wmcdp_desktop.core.encryption.data_cipher import DataCipher

RECORD_NAME = re.compile(r"^(?P<task>[A-Za-z0-9][A-Za-z0-9._-]{0,127})\.r(?P<rev>[1-9][0-9]{0,8})\.json$")
SEALED_RECORD_NAME = re.compile(r"^(?P<task>[A-Za-z0-9]{1,128})\.r(?P<rev>[1-9][0-9]{0,8})\.sealed$")
"""A record file of an encrypted bundle's folder: the task's opaque name, the revision."""
SEALED_SUFFIX = ".sealed"
PLAIN_AUDIT_NAME = "audit.jsonl"
SEALED_AUDIT_NAME = "audit.sealed"
MAX_REVISION = 999_999_999
"""Highest revision number a record file name holds (:data:`RECORD_NAME`)."""


def record_file_name(task_id: str, revision: int) -> str:
    """``<task_id>.r<revision>.json`` (the task id is checked; raises UnsafeNameError)."""
    check_id(task_id, "task id")
    if isinstance(revision, bool) or not isinstance(revision, int) or not 1 <= revision <= MAX_REVISION:
        raise StorageError(f"A record revision must be a whole number from 1 to {MAX_REVISION:,}, not {revision!r}.")
    return f"{task_id}.r{revision}.json"


def make_folder(path: Path) -> None:
    """Create ``path`` and its missing parents; each new folder's entry is fsync'd into its parent (once),
    so a record written into a new folder does not vanish with the folder after a power cut."""
    missing: list[Path] = []
    probe = path
    try:
        # os.path.isdir: False (not a raw PermissionError as Path.is_dir on 3.11) for a folder that cannot
        # be entered; mkdir below then fails with the reason.
        while not os.path.isdir(probe):
            missing.append(probe)
            if probe.parent == probe:
                break
            probe = probe.parent
        for folder in reversed(missing):
            try:
                folder.mkdir()
            except FileExistsError:
                if not os.path.isdir(folder):
                    raise  # a file or a dangling link in the way: not a folder we can use
            fsync_dir(folder.parent)
    except OSError as exc:
        raise StorageError(f"Could not create the folder {path}: {exc.strerror or exc}.") from exc


class DataFolderGoneError(StorageError):
    """The data folder (or part of it) was deleted, moved or replaced while the app ran: nothing more is
    written there by this store (see :meth:`RaterStore.folder_problem`)."""


def _file_identity(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


# --------------------------------------------------------------------------------------------------
# Single-instance lock
# --------------------------------------------------------------------------------------------------
_HELD: set[str] = set()
_HELD_GUARD = threading.Lock()


class InstanceLock:
    """Refuses a second app instance on the same data folder (another process or another window).

    The OS lock (``filelock``) is released by the OS when the holding process dies, so a lock left by a
    crash or ``kill -9`` is recovered automatically. ``filelock`` locks are re-entrant within one
    process, so this class also keeps its own per-process set of held folders: a second window in the
    same process is refused too.
    """

    def __init__(self, data_dir: Path, clock: Clock | None = None) -> None:
        self.data_dir = data_dir
        self.path = data_dir / "instance.lock"
        self.info_path = instance_info_path(data_dir)
        self._clock = clock or SystemClock()
        self._lock: FileLock | None = None
        self._identity: tuple[int, int] | None = None
        """Device and inode of the lock file this lock holds (taken just after locking it)."""
        self._key = str(data_dir.resolve())

    @property
    def held(self) -> bool:
        return self._lock is not None

    def _holder_words(self) -> str:
        try:
            info = json.loads(read_regular(self.info_path, 64 * 1024).decode("utf-8"))
            return f" (process {int(info['pid'])} on {str(info['host'])[:60]}, since {str(info['since'])[:25]})"
        except (OSError, ValueError, KeyError, TypeError):
            return ""

    def _refuse(self) -> AlreadyRunningError:
        return AlreadyRunningError(
            "WM-CDP Desktop is already open on this data folder"
            f"{self._holder_words()}.\nData folder: {self.data_dir}\n"
            "Switch to the open window, or close it first. Two windows on the same ratings could "
            "overwrite each other's work."
        )

    def acquire(self) -> None:
        make_folder(self.data_dir)
        with _HELD_GUARD:
            if self._key in _HELD:
                raise self._refuse()
            lock = FileLock(str(self.path), timeout=0, thread_local=False)
            try:
                lock.acquire()
            except Timeout:
                raise self._refuse() from None
            except OSError as exc:
                raise StorageError(f"Could not lock the data folder {self.data_dir}: {plain_os_error(exc)}.") from exc
            _HELD.add(self._key)
            self._lock = lock
            with contextlib.suppress(OSError):
                self._identity = _file_identity(self.path)
        info = {"pid": os.getpid(), "host": socket.gethostname(), "since": utc_iso(self._clock)}
        with contextlib.suppress(StorageError):
            atomic_write_text(self.info_path, dumps_canonical(info))

    def problem(self) -> str | None:
        """None while the lock file this lock holds is where it was; otherwise why not, in plain words.

        The OS lock is on the file this process opened. When the data folder is deleted or moved while the
        app runs, that file goes with it, and a second app started now would lock a new file at the same
        name: this is how the app notices that it no longer holds the folder it writes to."""
        if self._lock is None or self._identity is None:
            return None
        try:
            now = _file_identity(self.path)
        except FileNotFoundError:
            return f"The data folder {self.data_dir} was deleted or moved while the app was open."
        except OSError as exc:
            return f"The data folder {self.data_dir} cannot be reached any more ({exc.strerror or exc})."
        if now != self._identity:
            return f"The data folder {self.data_dir} was deleted or moved, and made again, while the app was open."
        return None

    def release(self) -> None:
        with _HELD_GUARD:
            if self._lock is None:
                return
            with contextlib.suppress(OSError):
                self.info_path.unlink()
            self._lock.release()
            self._lock = None
            _HELD.discard(self._key)

    def __enter__(self) -> InstanceLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


_AUDIT_LOCKS: dict[str, threading.Lock] = {}
_AUDIT_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)


def _audit_lock(path: Path) -> threading.Lock:
    """The one lock of this process for appending to the audit log at ``path``."""
    with _HELD_GUARD:
        return _AUDIT_LOCKS.setdefault(str(path), threading.Lock())


# --------------------------------------------------------------------------------------------------
# Per bundle + rater store
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RecordFile:
    task_id: str
    revision: int
    path: Path

    @property
    def name(self) -> str:
        """The record's file name as an export and the audit log name it (``<task>.r<revision>.json``); the file
        itself has this name too, except in an encrypted bundle's folder."""
        return f"{self.task_id}.r{self.revision}.json"


@dataclass(frozen=True)
class SavedRecord:
    """A record just written: where, and the sha256 of its bytes."""

    path: Path
    sha256: str


class RaterStore:
    """Drafts, records and the audit log of one rater for one bundle."""

    AUDIT_DRAFT_EVERY = 60.0
    """Autosaves happen every second while typing; the audit log notes one per task per minute."""

    def __init__(
        self, data_dir: Path, bundle_id: str, rater_id: str, clock: Clock | None = None, lock: InstanceLock | None = None,
        cipher: DataCipher | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.lock = lock
        """The app's lock on the data folder (None for tools that hold none): checked before every write."""
        self.cipher = cipher
        """Seals everything this store writes (an encrypted bundle's), or None (a plain bundle's: plain JSON)."""
        check_id(bundle_id, "bundle id")
        check_id(rater_id, "rater id")
        if cipher is None:
            self.root = child_path(data_dir, "bundles", bundle_id, rater_id)
        else:
            self.root = child_path(
                data_dir, "bundles", cipher.opaque_name(f"bundle {bundle_id}"), cipher.opaque_name(f"rater {rater_id}")
            )
        self.bundle_id = bundle_id
        self.rater_id = rater_id
        self.clock = clock or SystemClock()
        self.drafts_dir = self.root / "drafts"
        self.records_dir = self.root / "records"
        self.quarantine_dir = self.root / "quarantine"
        self.audit_path = self.root / (PLAIN_AUDIT_NAME if cipher is None else SEALED_AUDIT_NAME)
        self._task_of_name: dict[str, str] = {}
        """Opaque file name stem -> task id (an encrypted bundle's folder; :meth:`know_tasks`)."""
        self._last_draft_audit: dict[str, float] = {}
        self._chained: bool | None = None
        """Whether the audit log already holds a chain (None: not looked yet)."""
        self.quarantined: list[Path] = []
        """Drafts found unreadable and moved aside during this session."""
        self._made: set[Path] = set()
        """The store's folders known to exist (made or written to): from then on never made again."""
        self._gone: str | None = None

    def twin(self) -> RaterStore:
        """A new store object on the same folder, for work on another thread (objects are never shared)."""
        other = RaterStore(self.data_dir, self.bundle_id, self.rater_id, self.clock, self.lock, self.cipher)
        other._made, other._gone = set(self._made), self._gone
        other._task_of_name = self._task_of_name  # never changed after know_tasks: safe to share
        return other

    def know_tasks(self, task_ids: list[str]) -> None:
        """The bundle's task ids: an encrypted bundle's folder names a task's files by an opaque name only, which
        is found again from the task id (a keyed hash), never the other way round. A plain folder needs nothing."""
        if self.cipher is not None:
            self._task_of_name = {self._stem(t): t for t in task_ids}

    def _stem(self, task_id: str) -> str:
        """The task's part of its files' names: its id, or its opaque name in an encrypted bundle's folder."""
        check_id(task_id, "task id")
        return task_id if self.cipher is None else self.cipher.opaque_name(f"task {task_id}")

    def _seal(self, logical: str, plain: bytes) -> bytes:
        return plain if self.cipher is None else self.cipher.seal(logical, plain)

    def _open(self, logical: str, data: bytes) -> bytes:
        """The plain bytes of a file this store wrote (raises a WmcdpError in plain words when a sealed file does
        not open: damaged, changed, or moved from another name)."""
        return data if self.cipher is None else self.cipher.open(logical, data)

    def ensure(self) -> None:
        """Create the folders (raises :class:`StorageError` in plain words)."""
        self._check_folder()
        for folder in (self.drafts_dir, self.records_dir):
            make_folder(folder)
        self._made |= {self.root, self.drafts_dir, self.records_dir}

    # ----- the data folder still there ------------------------------------------------------------------
    def folder_problem(self) -> str | None:
        """Why nothing more may be written here, in plain words, with what to do; None while all is well.

        The data folder was deleted, moved or replaced while the app ran when the lock file the app holds
        is gone or is another file, or when one of this store's folders, once made, is missing. Making the
        folders again would save ratings where nobody looks for them and beside a second app window that
        could now open on the new folder; so once found, the answer stays, and every write is refused."""
        if self._gone is None:
            lost = self.lock.problem() if self.lock is not None else None
            missing = sorted(f for f in self._made if not os.path.lexists(f))
            if lost is None and missing:
                lost = f"Part of the data folder was deleted or moved while the app was open: {missing[0]} is missing."
            if lost is not None:
                self._gone = (
                    f"{lost}\nThe app has stopped saving: nothing more is written, not even the rating on screen. "
                    "If you can, put the folder back (from the Recycle Bin or Trash, or from where it was moved), "
                    "then close the app and start it again: your ratings come back with it. Ratings in a folder "
                    "that is gone for good are gone with it."
                )
        return self._gone

    def _check_folder(self) -> None:
        problem = self.folder_problem()
        if problem is not None:
            raise DataFolderGoneError(problem)
        # No folder the store writes in may be a link (or junction) to outside the data folder: bundles/, the
        # bundle's and the rater's folders, drafts/, records/ and quarantine/ (raises LinkOutsideError, a
        # StorageError, naming the link). audit.jsonl and the lock are opened without following any link.
        check_no_link_leaving(self.data_dir, self.drafts_dir, self.records_dir, self.quarantine_dir)

    # ----- audit --------------------------------------------------------------------------------------
    def audit(self, event: str, *, durable: bool = True, **fields: Any) -> str:
        """Append one event line (``at``, ``event``, fields, and ``prev``: the SHA-256 of the line before).
        Returns the SHA-256 of the line written (the chain's new head). Raises :class:`StorageError`.

        ``durable=False`` skips the fsync: for lines a power cut may lose because they are informational
        (``draft_saved``) or rebuilt from the records on the next open (``submitted``/``revised``: see
        :meth:`recover_unaudited_records`). A crash or kill of the app loses no line either way. The first
        line written to a log without a chain (a new log, or one whose first line a crash tore) starts the
        chain: it carries ``chain_start``, the SHA-256 of everything before it.
        """
        obj: dict[str, Any] = {"at": utc_iso(self.clock), "event": event, **fields}
        self._check_folder()
        # Reading the chain's head and appending the next link is one step for every store object on this
        # log in the process (the app exports on a worker thread while the rater's drafts are saved): two
        # links made from the same head would fork the chain.
        with _audit_lock(self.audit_path):
            return self._append_audit(obj, durable)

    def audit_and_read(self, event: str, **fields: Any) -> tuple[str, bytes]:
        """:meth:`audit` (durably), then the log's bytes up to and including that line, in one step: no
        other line (an autosave's, on another thread) can come between them (an export seals the chain)."""
        self._check_folder()
        obj: dict[str, Any] = {"at": utc_iso(self.clock), "event": event, **fields}
        with _audit_lock(self.audit_path):
            head = self._append_audit(obj, True)
            return head, self.audit_bytes()

    def _append_audit(self, obj: dict[str, Any], durable: bool) -> str:
        try:
            try:
                fd = os.open(self.audit_path, _AUDIT_FLAGS, NEW_FILE_MODE)
            except FileNotFoundError:
                self._missing_folder(self.root)
                make_folder(self.root)
                fd = os.open(self.audit_path, _AUDIT_FLAGS, NEW_FILE_MODE)
            self._made.add(self.root)
            try:
                end = os.lseek(fd, 0, os.SEEK_END)
                # A crash mid-append leaves a torn last line; start on a new line so this event is not
                # glued onto it (and lost with it). The torn line stays, as a link of the chain.
                torn = end > 0 and _pread(fd, 1, end - 1) != b"\n"
                prefix = b"\n" if torn else b""
                if self.cipher is None:
                    last: bytes | None = _last_line(fd, end) if end else None
                    if self._chained is None:
                        self._chained = _holds_chain(fd, end)
                    before = _read_all(fd, end) + prefix if not self._chained else b""
                else:
                    # The plain log is the lines that open: a torn or damaged sealed line is not in it.
                    last = _last_opened_line(fd, end, self._open_audit_line)
                    self._chained = last is not None
                    before = b""
                obj[audit_chain.CHAIN_FIELD] = audit_chain.GENESIS if last is None else audit_chain.line_sha256(last)
                if not self._chained:
                    obj[audit_chain.START_FIELD] = sha256_hex(before)
                line = audit_chain.encode_event(obj)
                os.write(fd, prefix + self._sealed_line(line) + b"\n")
                self._chained = True
                if durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise StorageError(f"Could not write the audit log {self.audit_path}: {plain_os_error(exc)}.") from exc
        return audit_chain.line_sha256(line)

    def _sealed_line(self, line: bytes) -> bytes:
        """What is written for one plain line: itself, or (encrypted) the line sealed, in base64 (no newline)."""
        if self.cipher is None:
            return line
        return base64.b64encode(self.cipher.seal(PLAIN_AUDIT_NAME, line))

    def _open_audit_line(self, stored: bytes) -> bytes | None:
        """The plain line of one sealed line; None for a line that does not open (torn by a crash, or damaged)."""
        assert self.cipher is not None
        try:
            return self.cipher.open(PLAIN_AUDIT_NAME, base64.b64decode(stored, validate=True))
        except (WmcdpError, binascii.Error, ValueError):
            return None

    def audit_bytes(self) -> bytes:
        """The audit log's plain bytes (empty when there is none yet): an encrypted bundle's log opened line by line,
        without the lines that do not open (a torn last line; a damaged one, whose loss breaks the chain)."""
        stored = self._stored_audit_bytes()
        if self.cipher is None:
            return stored
        out = []
        for piece in stored.split(b"\n")[:-1]:  # the last piece has no newline: empty, or torn
            plain = self._open_audit_line(piece)
            if plain is not None:
                out.append(plain + b"\n")
        return b"".join(out)

    def _stored_audit_bytes(self) -> bytes:
        try:
            fd = os.open(self.audit_path, os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            return b""
        except OSError as exc:
            raise StorageError(f"Could not read the audit log {self.audit_path}: {plain_os_error(exc)}.") from exc
        try:
            return _read_all(fd, os.fstat(fd).st_size)
        finally:
            os.close(fd)

    def read_audit(self) -> list[dict[str, Any]]:
        """Every complete event line (a torn last line after a crash is skipped)."""
        try:
            data = read_regular(self.audit_path, MAX_JSONL_BYTES)
        except FileNotFoundError:
            return []
        if self.cipher is not None:
            data = self.audit_bytes()
        text = data.decode("utf-8", errors="replace")
        out = []
        for line in text.split("\n"):  # not splitlines: U+2028, U+0085 ... may be inside a line's strings
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict):
                out.append(obj)
        return out

    # ----- drafts -------------------------------------------------------------------------------------
    def draft_path(self, task_id: str) -> Path:
        return child_path(self.drafts_dir, self._stem(task_id) + (".json" if self.cipher is None else SEALED_SUFFIX))

    def draft_task_ids(self) -> set[str]:
        """The tasks with a saved draft (in an encrypted bundle's folder, those of the tasks :meth:`know_tasks` named)."""
        suffix = ".json" if self.cipher is None else SEALED_SUFFIX
        try:
            stems = {p.stem for p in self.drafts_dir.glob("*" + suffix) if not p.name.startswith(".")}
        except OSError:
            return set()
        if self.cipher is None:
            return stems
        return {self._task_of_name[stem] for stem in stems if stem in self._task_of_name}

    def load_draft(self, task_id: str) -> Draft | None:
        """The saved draft, or None. An unreadable draft is moved to ``quarantine/`` (and audited)."""
        path = self.draft_path(task_id)
        try:
            data = read_regular(path, MAX_DOCUMENT_BYTES)
        except FileNotFoundError:
            return None
        except (FileTooLargeError, NotRegularFileError) as exc:
            if isinstance(exc, NotRegularFileError) and path.is_dir():
                raise StorageError(f"Could not read the draft {path}: {exc.strerror}.") from exc
            # Never a draft the app wrote (a few KB): damaged like any other, set aside without being read
            # (a 4 GB file, a pipe), so the bundle still opens.
            self._quarantine(path, f"{path}: {exc.strerror}")
            return None
        except OSError as exc:
            raise StorageError(f"Could not read the draft {path}: {plain_os_error(exc)}.") from exc
        try:
            data = self._open(f"drafts/{task_id}.json", data)
        except WmcdpError as exc:
            self._quarantine(path, f"{path}: {exc}")
            return None
        try:
            draft = load_bytes(Draft, data, str(path))
            if draft.task_id != task_id:
                raise DocumentError.single(str(path), f"belongs to task {draft.task_id!r}", "task_id")
            return draft
        except DocumentError as exc:
            self._quarantine(path, str(exc))
            return None

    def set_aside_record(self, path: Path, reason: str) -> None:
        """Move a file of ``records/`` that cannot be a record this app wrote (larger than any document, a
        pipe or a device) to ``quarantine/``, audited, so that it blocks no export; its revision is then
        reported missing by the coordinator's checks, as it should be."""
        self._quarantine(path, reason, what="record")

    def _quarantine(self, path: Path, reason: str, what: str = "draft") -> None:
        self._check_folder()
        make_folder(self.quarantine_dir)
        try:
            target = _reserve_unique(self.quarantine_dir, path.name, self.clock)
            try:
                os.replace(path, target)  # replaces only the empty placeholder this store just created
            except OSError:
                with contextlib.suppress(OSError):
                    target.unlink()
                raise
        except OSError as exc:
            raise StorageError(f"Could not move the unreadable {what} {path} aside: {plain_os_error(exc)}.") from exc
        self.quarantined.append(target)
        with contextlib.suppress(StorageError):
            self.audit(f"{what}_quarantined", file=path.name, moved_to=target.name, reason=reason[:500])

    def _write(self, path: Path, text: str, *, sync_dir: bool, logical: str) -> bytes:
        """Atomic write into one of the store's folders (made on the first save; a folder that vanished
        after that is never made again: see :meth:`folder_problem`), sealed under the name ``logical`` in an
        encrypted bundle's folder. Returns the plain bytes."""
        self._check_folder()
        plain = text.encode("utf-8")
        data = self._seal(logical, plain)
        try:
            atomic_write_bytes(path, data, sync_dir=sync_dir)
        except StorageError as exc:
            if not isinstance(exc.__cause__, FileNotFoundError):
                raise
            self._missing_folder(path.parent)
            self.ensure()
            atomic_write_bytes(path, data, sync_dir=sync_dir)
        self._made |= {self.root, path.parent}
        return plain

    def _missing_folder(self, folder: Path) -> None:
        """``folder`` of the store is missing: fine before it was first made, the data folder gone after."""
        if folder in self._made:
            self._check_folder()  # finds what is missing (a check just before may have raced the deletion)
            self._gone = f"A folder inside the data folder {self.data_dir} vanished while the app was open."
            raise DataFolderGoneError(self._gone)

    def save_draft(self, draft: Draft) -> str:
        """Write the draft atomically; returns its sha256.

        The draft's bytes are fsync'd before it replaces the previous draft, but its folder is not: after a
        power cut the draft is an earlier or the new complete one (or none, for a first save the file
        system had not committed; autosave rewrites it every few seconds while the rater works). This
        keeps an autosave to one fsync on a laptop's disk."""
        data = self._write(self.draft_path(draft.task_id), dumps_canonical(draft.to_json_obj()), sync_dir=False,
                           logical=f"drafts/{draft.task_id}.json")
        digest = sha256_hex(data)
        now = self.clock.monotonic()
        last = self._last_draft_audit.get(draft.task_id)
        if last is None or now - last >= self.AUDIT_DRAFT_EVERY:
            self._last_draft_audit[draft.task_id] = now
            with contextlib.suppress(StorageError):
                self.audit("draft_saved", durable=False, task_id=draft.task_id, sha256=digest)
        return digest

    def delete_draft(self, task_id: str) -> None:
        self._check_folder()
        try:
            self.draft_path(task_id).unlink(missing_ok=True)
        except OSError as exc:
            raise StorageError(f"Could not remove the draft of {task_id}: {exc.strerror or exc}.") from exc

    # ----- records ------------------------------------------------------------------------------------
    def record_files(self) -> list[RecordFile]:
        """Every submitted record file, sorted by task id then revision (names only; nothing parsed)."""
        out = []
        try:
            entries = list(self.records_dir.iterdir())
        except OSError:
            return []
        pattern = RECORD_NAME if self.cipher is None else SEALED_RECORD_NAME
        for path in entries:
            match = pattern.match(path.name)
            if match:
                task_id = match["task"] if self.cipher is None else self._task_of_name.get(match["task"])
                if task_id is not None:
                    out.append(RecordFile(task_id, int(match["rev"]), path))
        return sorted(out, key=lambda r: (r.task_id, r.revision))

    def remove_orphan_temp_files(self) -> list[str]:
        """Remove temp files a crash left in ``drafts/`` and ``records/`` (never the only copy of anything:
        the final name always holds the old or the new complete file); audited. Returns their names.

        Call only while holding the instance lock (no other writer can be mid-save)."""
        removed: list[str] = []
        for folder in (self.drafts_dir, self.records_dir):
            for path in orphan_temp_files(folder):
                with contextlib.suppress(OSError):
                    path.unlink()
                    removed.append(f"{folder.name}/{path.name}")
        if removed:
            with contextlib.suppress(StorageError):
                self.audit("temp_files_removed", files=removed)
        return removed

    def recover_unaudited_records(self) -> list[RecordFile]:
        """Note in the audit log every record file it does not mention (a crash between writing a record
        and appending its audit line), with the file's sha256; returns those records."""
        mentioned = {str(e.get("file")) for e in self.read_audit() if "file" in e}
        missing = [rf for rf in self.record_files() if rf.name not in mentioned]
        for rf in missing:
            try:
                digest = sha256_hex(self.record_bytes(rf))
            except (OSError, WmcdpError):
                continue
            self.audit("record_recovered", task_id=rf.task_id, revision=rf.revision, file=rf.name, sha256=digest)
        return missing

    def latest_revisions(self) -> dict[str, int]:
        """Task id -> latest submitted revision."""
        latest: dict[str, int] = {}
        for rf in self.record_files():
            latest[rf.task_id] = max(rf.revision, latest.get(rf.task_id, 0))
        return latest

    def record_path(self, task_id: str, revision: int) -> Path:
        name = record_file_name(task_id, revision)
        if self.cipher is not None:
            name = f"{self._stem(task_id)}.r{revision}{SEALED_SUFFIX}"
        return child_path(self.records_dir, name)

    def record_bytes(self, rf: RecordFile) -> bytes:
        """A record file's plain bytes (what an export carries and its digest is of). Raises OSError as
        :func:`~wmcdp_desktop.core.files.read_regular` does, and a WmcdpError for a sealed file that does not open."""
        data = read_regular(rf.path, MAX_DOCUMENT_BYTES)
        return self._open(f"records/{rf.name}", data)

    def load_record(self, task_id: str, revision: int) -> TaskRecord:
        path = self.record_path(task_id, revision)
        try:
            data = self.record_bytes(RecordFile(task_id, revision, path))
        except OSError as exc:
            raise StorageError(f"Could not read the record {path}: {exc.strerror or exc}.") from exc
        except WmcdpError as exc:
            raise StorageError(f"Could not read the record {path}: {exc}") from exc
        return load_record_bytes(data, str(path))

    def save_record(self, record: TaskRecord) -> SavedRecord:
        """Write a submitted record under ``records/<task>.r<rev>.json`` (never overwriting one); its path and the
        sha256 of the bytes written. The record's bytes and the folder entry are both fsync'd before this
        returns: a submitted record survives a power cut."""
        env = record.envelope
        path = self.record_path(env.task_id, env.revision)
        if path.exists():
            raise StorageError(f"A record {path.name} already exists; it is never overwritten.")
        data = self._write(path, dumps_canonical(record.to_json_obj()), sync_dir=True,
                           logical=f"records/{record_file_name(env.task_id, env.revision)}")
        return SavedRecord(path, sha256_hex(data))


# --------------------------------------------------------------------------------------------------
# Helpers of the audit log and the quarantine
# --------------------------------------------------------------------------------------------------
def _pread(fd: int, size: int, offset: int) -> bytes:
    """Up to ``size`` bytes at ``offset`` (os.pread is POSIX only; appends go to the end either way)."""
    os.lseek(fd, offset, os.SEEK_SET)
    parts = []
    while size > 0:
        chunk = os.read(fd, size)
        if not chunk:
            break
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def _read_all(fd: int, end: int) -> bytes:
    return _pread(fd, end, 0)


def _last_line(fd: int, end: int) -> bytes:
    """The log's last line (a torn one included), without its newline: read backwards in blocks."""
    stop = end - 1 if end > 0 and _pread(fd, 1, end - 1) == b"\n" else end
    start = stop
    block = 8192
    while start > 0:
        begin = max(0, start - block)
        chunk = _pread(fd, start - begin, begin)
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            start = begin + newline + 1
            break
        start = begin
    return _pread(fd, stop - start, start) if stop > start else b""


def _last_opened_line(fd: int, end: int, open_line: Callable[[bytes], bytes | None]) -> bytes | None:
    """The plain line of the last complete line of the log that opens (read backwards in blocks); None if none."""
    stop = end
    while stop > 0:
        complete = _pread(fd, 1, stop - 1) == b"\n"
        line = _last_line(fd, stop)
        start = (stop - 1 if complete else stop) - len(line)
        if complete:
            plain = open_line(line)
            if plain is not None:
                return plain
        stop = start
    return None


def _holds_chain(fd: int, end: int) -> bool:
    """Whether the log already holds a chained line (one with ``chain_start``)."""
    marker = b'"' + audit_chain.START_FIELD.encode() + b'": "'
    return marker in _read_all(fd, end)


def _reserve_unique(folder: Path, name: str, clock: Clock) -> Path:
    """A new, empty file ``<name>.<UTC time>.<n>`` in ``folder`` that did not exist before (O_EXCL):
    a name nothing else holds, so what is moved onto it never replaces anything."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(clock.wall()))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    for counter in range(1, 10_000):
        target = child_path(folder, f"{name}.{stamp}.{counter}")
        try:
            os.close(os.open(target, flags, NEW_FILE_MODE))
        except FileExistsError:
            continue
        return target
    raise FileExistsError(f"no free quarantine name for {name} in {folder}")
