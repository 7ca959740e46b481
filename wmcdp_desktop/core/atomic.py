"""Atomic file writes: temp file in the same folder, write, flush, fsync, replace, fsync the folder.

A reader (or a crash at any moment) sees either the old file or the complete new one, never a partial
file under the final name. A failed write leaves the previous file intact and removes its temp file.
``os.replace`` is retried a few times on ``PermissionError`` (a file briefly held open by a virus
scanner or indexer on Windows behaves like that).

Permissions: a new file gets ``0o666`` less the user's umask, as any program's files do (under
``umask 077`` nobody else can read a rating); a file that must stay private whatever the umask (the
coordinator's unblinding key and unblinded results) is written with ``mode=OWNER_ONLY`` (0600): it is
created so, never readable by others even for a moment.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from wmcdp_desktop.core.errors import StorageError

NEW_FILE_MODE = 0o666
"""Mode asked for a new file; the operating system takes the user's umask off it."""
OWNER_ONLY = 0o600
"""Mode of files only their owner may read, whatever the umask (keys, unblinded results)."""
TEMP_PREFIX = ".tmp-"
"""Temp files start with this; :func:`orphan_temp_files` finds ones left by a crash."""
REPLACE_RETRIES = 5
REPLACE_RETRY_DELAY = 0.05

STEPS = ("written", "fsynced", "before_replace", "replaced")
"""The steps of :func:`atomic_writer`, in order, as :attr:`OsCalls.step` is told of them."""


def _no_step(step: str) -> None:
    """The default :attr:`OsCalls.step`: nothing happens between steps."""


@dataclass(frozen=True)
class OsCalls:
    """The operating-system calls every atomic write goes through, and a hook called at each step.

    The fault-injection seam: :func:`using_os_calls` swaps some of them for a block, to see what a full disk
    (``write`` raising ``ENOSPC``), a file held locked (``replace`` raising ``PermissionError``), a failing
    ``fsync`` or a kill at a step (``step`` ending the process at ``"fsynced"``, say) leaves behind. The
    reliability drills, the benchmarks (counting fsyncs) and the tests use it; the app never changes it.
    """

    write: Callable[[int, bytes], int] = os.write
    fsync: Callable[[int], None] = os.fsync
    replace: Callable[[str | os.PathLike[str], str | os.PathLike[str]], None] = os.replace
    step: Callable[[str], None] = _no_step
    """Called with each of :data:`STEPS` as the write reaches it."""


_calls = OsCalls()


def os_calls() -> OsCalls:
    """The calls atomic writes make now (the real ones unless a block of :func:`using_os_calls` is running)."""
    return _calls


def install_os_calls(calls: OsCalls) -> OsCalls:
    """Make atomic writes use ``calls`` from now on; returns the ones used before (to put back). For a process
    that is killed before it could put them back (a kill drill); elsewhere :func:`using_os_calls`."""
    global _calls
    before, _calls = _calls, calls
    return before


@contextlib.contextmanager
def using_os_calls(
    *,
    write: Callable[[int, bytes], int] | None = None,
    fsync: Callable[[int], None] | None = None,
    replace: Callable[[str | os.PathLike[str], str | os.PathLike[str]], None] | None = None,
    step: Callable[[str], None] | None = None,
) -> Iterator[OsCalls]:
    """Within the block, atomic writes use the given calls in place of the current ones (the others kept)::

        def disk_full(fd: int, data: bytes) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

        with using_os_calls(write=disk_full):
            atomic_write_bytes(path, b"...")   # StorageError: the disk is full; the old file kept

    The calls in force before are back when the block ends, however it ends."""
    now = os_calls()
    before = install_os_calls(OsCalls(
        write=now.write if write is None else write,
        fsync=now.fsync if fsync is None else fsync,
        replace=now.replace if replace is None else replace,
        step=now.step if step is None else step,
    ))
    try:
        yield os_calls()
    finally:
        install_os_calls(before)


def plain_os_error(exc: OSError) -> str:
    """Why a read or write failed, in the user's words rather than the system's."""
    import errno

    if exc.errno == errno.ELOOP:  # opened with O_NOFOLLOW: the name is a symbolic link
        return "it is a symbolic link, which the app does not follow there (put the file itself in its place)"
    if exc.errno == errno.ENOSPC:
        return "the disk is full"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "the folder is read-only or the file is locked"
    if exc.errno == errno.ENOENT:
        return "the folder does not exist (was it removed or unplugged?)"
    return exc.strerror or str(exc)


def save_error(path: Path, exc: OSError) -> StorageError:
    """Why ``path`` could not be saved, in plain words, and what is left under its name."""
    kept = " The previous version is kept." if os.path.lexists(path) else " Nothing was written under that name."
    return StorageError(f"Could not save {path.name} in {path.parent}: {plain_os_error(exc)}.{kept}")


def fsync_dir(directory: Path) -> None:
    """Make a rename or a new entry in ``directory`` durable (POSIX; a no-op elsewhere; best effort)."""
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        _calls.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class AtomicFile:
    """A file written piece by piece that appears under its name only when complete (:func:`atomic_writer`).

    ``write`` takes bytes; ``tell`` says how many were written (enough of a file object for ``csv`` through
    :class:`io.TextIOWrapper` and for pyarrow's Parquet writer). Given the ``path`` it is written for, a failed
    write raises :class:`StorageError` naming that file (a caller may have several open at once: the error
    must name the one that failed, not the last one opened); without it, the ``OSError`` as it came. With
    ``sha256``, :meth:`sha256` gives the SHA-256 of everything written."""

    def __init__(self, fd: int, path: Path | None = None, *, sha256: bool = False) -> None:
        self._fd = fd
        self._path = path
        self._digest = hashlib.sha256() if sha256 else None
        self._written = 0
        self.closed = False

    def write(self, data: bytes | bytearray | memoryview) -> int:
        view = memoryview(data).cast("B")
        size = len(view)
        if self._digest is not None:
            self._digest.update(view)
        try:
            while view:
                written = _calls.write(self._fd, view[:1 << 20].tobytes() if len(view) > 1 << 20 else bytes(view))
                view = view[written:]
        except OSError as exc:
            if self._path is None:
                raise
            raise save_error(self._path, exc) from exc
        self._written += size
        return size

    def sha256(self) -> str:
        """The SHA-256 (hex) of what was written (asked for when the file was opened)."""
        if self._digest is None:
            raise ValueError("this file was not opened with sha256=True")
        return self._digest.hexdigest()

    def tell(self) -> int:
        return self._written

    def flush(self) -> None:
        """Nothing is buffered here (each ``write`` reaches the operating system)."""

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def seekable(self) -> bool:
        return False


@contextlib.contextmanager
def atomic_writer(path: Path, *, mode: int | None = None, sync_dir: bool = True,
                  sha256: bool = False) -> Iterator[AtomicFile]:
    """Write ``path`` atomically and durably, in as many pieces as needed::

        with atomic_writer(path, mode=OWNER_ONLY) as out:
            out.write(b"...")

    The pieces go to a temp file beside ``path``; when the block ends without an error the temp file is
    fsync'd and replaces ``path``. Any error (or a kill) leaves the previous file as it was and no temp file
    behind (after a kill: one :func:`orphan_temp_files` finds). Raises :class:`StorageError` in plain words.

    ``mode``: None (a new file's usual permissions: ``0o666`` less the umask), or exact permission bits
    such as :data:`OWNER_ONLY`, set whatever the umask. ``sync_dir=False`` skips the fsync of the folder after
    the replace: the rename itself may then be lost by a power cut (the name keeps its previous complete
    content), which is right for a file that is rewritten every few seconds anyway (a draft). ``sha256``: the
    file keeps the SHA-256 of what is written (:meth:`AtomicFile.sha256`).
    """
    directory = path.parent
    tmp = directory / f"{TEMP_PREFIX}{path.name}.{os.getpid()}.{time.monotonic_ns()}"
    try:
        fd = os.open(
            tmp,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0),
            NEW_FILE_MODE if mode is None else mode,
        )
    except OSError as exc:
        raise StorageError(f"Could not save {path.name} in {directory}: {plain_os_error(exc)}.") from exc
    try:
        out = AtomicFile(fd, path, sha256=sha256)
        try:
            yield out
            _calls.step("written")
            _calls.fsync(fd)
            _calls.step("fsynced")
        finally:
            out.closed = True
            os.close(fd)
        if mode is not None and os.name == "posix":
            os.chmod(tmp, mode)
        _calls.step("before_replace")
        for attempt in range(REPLACE_RETRIES):
            try:
                _calls.replace(tmp, path)
                break
            except PermissionError:
                if attempt == REPLACE_RETRIES - 1:
                    raise
                time.sleep(REPLACE_RETRY_DELAY * (attempt + 1))
        _calls.step("replaced")
        if sync_dir:
            fsync_dir(directory)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise save_error(path, exc) from exc
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None, sync_dir: bool = True) -> None:
    """Write ``data`` to ``path`` atomically and durably (:func:`atomic_writer`, in one piece). Raises
    :class:`StorageError` in plain words."""
    with atomic_writer(path, mode=mode, sync_dir=sync_dir) as out:
        out.write(data)


def atomic_write_text(path: Path, text: str, *, mode: int | None = None, sync_dir: bool = True) -> None:
    """UTF-8 text version of :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode, sync_dir=sync_dir)


def orphan_temp_files(directory: Path) -> list[Path]:
    """Temp files a crash left behind in ``directory`` (never under a final name)."""
    try:
        return sorted(p for p in directory.iterdir() if p.name.startswith(TEMP_PREFIX))
    except OSError:
        return []
