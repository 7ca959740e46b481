"""Opening files to read: regular files only, and never more than a stated number of bytes.

A named pipe (FIFO) opened for reading waits for a writer that may never come, and a device such as
``/dev/zero`` never ends: every path the project reads from (a bundle, a results export, a record, the
unblinding key, a draft...) is opened without waiting (``O_NONBLOCK``, where the OS has it) and refused
unless it is a regular file, and every read stops at a cap given by the caller.
"""

from __future__ import annotations

import errno
import os
import stat

MAX_DOCUMENT_BYTES = 50 * 1024 * 1024
"""Largest JSON document file read (as a zip member may be at most): a record, a draft, a study file."""
MAX_LARGE_DOCUMENT_BYTES = 1024 * 1024 * 1024
"""Largest of the coordinator's own large documents read: the unblinding key written by ``bundle build``
(about 600 bytes per task: a study of 333,333 tasks, a million ratings at overlap 3, writes about 200 MB)
and an entry of ``collect``'s cache (about 2.5 KB per record of the export)."""
MAX_JSONL_BYTES = 1024 * 1024 * 1024
"""Largest JSON Lines or log file read (``ratings.jsonl``, ``responses/*.jsonl``, the audit log; as a zip's
whole content)."""

_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
CHUNK = 1 << 20


class NotRegularFileError(OSError):
    """The path is a pipe, a device, a socket or a folder, not a file."""

    def __init__(self, path: str | os.PathLike[str], mode: int) -> None:
        if stat.S_ISDIR(mode):
            kind = "a folder"
        elif stat.S_ISFIFO(mode):
            kind = "a named pipe (FIFO)"
        elif stat.S_ISSOCK(mode):
            kind = "a socket"
        elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            kind = "a device"
        else:
            kind = "something other than a file"
        super().__init__(errno.EINVAL, f"is {kind}, not a regular file", os.fspath(path))
        self.is_folder = stat.S_ISDIR(mode)


class FileTooLargeError(OSError):
    """The file holds more than the caller allows."""

    def __init__(self, path: str | os.PathLike[str], max_bytes: int) -> None:
        super().__init__(errno.EFBIG, f"is larger than {describe_bytes(max_bytes)}", os.fspath(path))
        self.max_bytes = max_bytes


def describe_bytes(n: int) -> str:
    """``50 MB``, ``1 GB``, ``300 bytes``, ``64 TB``: a limit or a size in words, in plain digits (never
    ``6.87195e+10 MB``)."""
    if n >= 1024**4:
        return f"{_plain(n / 1024**4)} TB"
    if n >= 1024**3 and n % 1024**3 == 0:
        return f"{n // 1024**3} GB"
    if n >= 1024**2:
        return f"{_plain(n / 1024**2)} MB"
    if n >= 1024:
        return f"{_plain(n / 1024)} KB"
    return "1 byte" if n == 1 else f"{n} bytes"


def _plain(value: float) -> str:
    """``1.5``, ``300``, ``1,048,575.9``: up to six significant digits below 1,000, one decimal above, no
    exponent."""
    return f"{value:g}" if value < 1000 else f"{value:,.1f}".removesuffix(".0")


def open_regular(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """A file descriptor open for reading on the regular file ``path`` and its ``fstat``; the caller closes it.

    Raises :class:`NotRegularFileError` for anything else (checked on the open file, so a path swapped
    after a check cannot slip through), and ``OSError`` as ``os.open`` does.
    """
    fd = os.open(path, _FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(path, st.st_mode)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_regular(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes`` of them.

    Raises :class:`NotRegularFileError`, :class:`FileTooLargeError` (also for a file that grows past
    the cap while it is read) or ``OSError``.
    """
    fd, st = open_regular(path)
    try:
        if st.st_size > max_bytes:
            raise FileTooLargeError(path, max_bytes)
        parts: list[bytes] = []
        total = 0
        while chunk := os.read(fd, min(CHUNK, max_bytes + 1 - total)):
            parts.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise FileTooLargeError(path, max_bytes)
    finally:
        os.close(fd)
    return parts[0] if len(parts) == 1 else b"".join(parts)
