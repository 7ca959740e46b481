"""Reading zip files that may be hostile: checks first, then members read in memory, never extracted.

Every zip the project reads (rater bundles, results exports) goes through :func:`open_zip_file` /
:func:`open_zip_bytes`, which check it and then read it with the standard library's :mod:`zipfile`.
Nothing is ever written to disk from a zip (no ``extractall``). Refused, with a message naming the member
(at most :data:`~wmcdp_desktop.core.errors.MAX_PROBLEMS_PER_DOCUMENT` problems listed); the limits are
those of :mod:`wmcdp_desktop.core.zips.rules`:

- a path that is not a regular file (a FIFO, a device), a file that is not a zip, or is truncated;
- more than ``MAX_ENTRIES`` entries (100,000 are accepted), counted on the central directory before
  zipfile reads it; an end record whose entry count is not the number of entries; a central directory
  larger than ``DIRECTORY_BYTES_PER_ENTRY`` (1 KB) per entry allowed;
- member names that are absolute (``/x``), contain ``..`` or ``.`` parts or empty parts, backslashes,
  a drive letter (``C:``), NUL or other control characters; a member with a second, different name
  in an Info-ZIP Unicode Path extra field (zipfile from Python 3.12 would use that one);
- duplicate names, also after Unicode NFC normalisation and case folding (``Task.json`` vs ``task.json``
  would be one file on Windows and macOS);
- symbolic links (Unix mode ``S_IFLNK`` in the external attributes);
- encrypted members (general purpose flag bits 0 and 6) and compressed patch data (bit 5);
- compression other than stored or deflated;
- a member over ``MAX_MEMBER_BYTES`` or a total over ``MAX_TOTAL_BYTES`` uncompressed;
- a compression ratio over ``MAX_RATIO`` (for members over ``RATIO_FLOOR_BYTES``);
- two entries on one local header, a header outside the data part of the zip, a header claiming more
  compressed bytes than the file has room for before the next member, and (when the member is read) a
  local header whose name and extra field push the data into the next member.

Headers can lie, so the limits are checked twice: on the declared sizes when the zip is opened, and on
the bytes actually produced while a member is read (in chunks; reading stops as soon as a limit is
passed; zipfile itself never inflates more than the declared size). CRC errors and corrupt deflate
streams are reported as damaged members.
"""

from __future__ import annotations

import io
import os
import stat
import struct
import zipfile
import zlib
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from pathlib import Path
from typing import TypeAlias

from wmcdp_desktop.core.errors import DocumentError, Problem, capped
from wmcdp_desktop.core.files import NotRegularFileError, describe_bytes, open_regular
from wmcdp_desktop.core.zips.directory import count_entries, find_central_directory
from wmcdp_desktop.core.zips.rules import (
    ALLOWED_COMPRESSION,
    DEFAULT_LIMITS,
    DIRECTORY_BYTES_PER_ENTRY,
    Limits,
    fold_name,
    name_problem,
)

CHUNK = 64 * 1024
READ_AHEAD = 64 * 1024
"""Bytes read ahead when a zip file's member is read from disk (see ``_DiskFile``)."""
MAX_FILE_SLACK = 64 * 1024 * 1024
"""How much larger than ``MAX_TOTAL_BYTES`` a zip file may be (headers, incompressible members)."""

_LOCAL = struct.Struct("<4s22xHH")
"""A local file header (30 bytes): its signature, then its name and extra field lengths."""
_LOCAL_SIGNATURE = b"PK\x03\x04"
_EXTRA_BLOCK = struct.Struct("<HH")
_UNICODE_PATH = 0x7075
"""Info-ZIP Unicode Path extra field: version (1 byte), CRC-32 of the stored name, the name in UTF-8."""
_FLAG_ENCRYPTED = 0x1
_FLAG_PATCHED = 0x20
_FLAG_STRONG_ENCRYPTION = 0x40

Source: TypeAlias = "io.BytesIO | _DiskFile"
"""What a zip is read from: bytes in memory, or a file on disk."""


def _member(name: str) -> str:
    return f"member {name!r}"


_FIELDS = 6
"""Per member in :attr:`SafeZip._table`: local header offset, compressed size, size, CRC, method, flags."""


class SafeZip:
    """A zip that passed the checks; members are read in memory with :meth:`read`.

    Holds the :class:`zipfile.ZipFile` (members are read through its ``open``), the file object it reads
    from, each file member's entry as six numbers, and the start of every local header (where a member's
    data must end). zipfile's own ``ZipInfo`` objects are let go once checked: 10,000 of them take about
    4.5 MB, most of what a 10,000-task bundle costs the app; a member's ``ZipInfo`` is made again, from
    its six numbers, when it is read.
    """

    def __init__(self, zf: zipfile.ZipFile, fp: Source, label: str, limits: Limits, ends: array[int]) -> None:
        members = [info for info in zf.infolist() if not info.is_dir()]
        self._row = {info.filename: i for i, info in enumerate(members)}
        """File member name -> its row in :attr:`_table`."""
        self._table = array("q", [
            value
            for info in members
            for value in (info.header_offset, info.compress_size, info.file_size, info.CRC, info.compress_type,
                          info.flag_bits)
        ])
        del members
        zf.filelist.clear()  # the checked entries now live in _row and _table
        zf.NameToInfo.clear()
        self._zf = zf
        self._fp = fp
        self.label = label
        self.limits = limits
        self._ends = ends
        """Every local header's start and the central directory's, sorted: a member's data ends by the next."""

    def _info(self, name: str) -> zipfile.ZipInfo | None:
        """The checked entry of file member ``name`` as a ``ZipInfo`` for ``ZipFile.open``, or ``None``."""
        row = self._row.get(name)
        if row is None:
            return None
        info = zipfile.ZipInfo(name)
        (info.header_offset, info.compress_size, info.file_size, info.CRC, info.compress_type,
         info.flag_bits) = self._table[row * _FIELDS : (row + 1) * _FIELDS]
        return info

    def names(self) -> list[str]:
        """Names of the file members (folders left out), sorted."""
        return sorted(self._row)

    def sizes(self) -> dict[str, int]:
        """Declared uncompressed size of every file member (folders left out)."""
        table = self._table
        return {name: table[row * _FIELDS + 2] for name, row in self._row.items()}

    def __contains__(self, name: object) -> bool:
        return name in self._row

    def size(self, name: str) -> int:
        """Declared uncompressed size of ``name``."""
        return self._table[self._row[name] * _FIELDS + 2]

    def read(self, name: str) -> bytes:
        """The bytes of ``name``, counted while reading; raises :class:`DocumentError` naming it."""
        info = self._info(name)
        if info is None:
            raise DocumentError.single(self.label, f"{_member(name)} is missing")
        self._check_local_header(info)
        limits = self.limits
        allowed = min(info.file_size, limits.max_member_bytes)
        ratio_cap = max(limits.max_ratio * max(info.compress_size, 1), limits.ratio_floor_bytes)
        out = io.BytesIO()
        count = 0
        try:
            with self._zf.open(info) as fh:
                while chunk := fh.read(CHUNK):
                    count += len(chunk)
                    if count > limits.max_member_bytes:
                        raise self._error(name, f"is larger than {describe_bytes(limits.max_member_bytes)} uncompressed")
                    if count > allowed:
                        raise self._error(name, "holds more data than its header says (damaged or forged)")
                    if count > ratio_cap:
                        raise self._error(name, f"expands more than {limits.max_ratio} times (a zip bomb?)")
                    out.write(chunk)
        except DocumentError:
            raise
        except (zipfile.BadZipFile, EOFError, zlib.error, OSError, ValueError, NotImplementedError, RuntimeError) as exc:
            reason = str(exc) or type(exc).__name__
            if "CRC" in reason:
                reason = "its checksum (CRC) does not match: the file is damaged"
            raise self._error(name, f"cannot be read: {reason}") from None
        if count != info.file_size:
            raise self._error(name, "is shorter than its header says (damaged or truncated)")
        return out.getvalue()

    def _check_local_header(self, info: zipfile.ZipInfo) -> None:
        """The member's data, after its local header (whose name and extra field may be longer than the
        central directory's), ends before the next local header or the central directory."""
        self._fp.seek(info.header_offset)
        head = self._fp.read(_LOCAL.size)
        if len(head) != _LOCAL.size or head[:4] != _LOCAL_SIGNATURE:
            raise self._error(info.filename, "cannot be read: its local header is missing (damaged or forged)")
        _, name_len, extra_len = _LOCAL.unpack(head)
        data_end = info.header_offset + _LOCAL.size + name_len + extra_len + info.compress_size
        ends = self._ends
        if data_end > ends[bisect_right(ends, info.header_offset)]:
            raise self._error(info.filename, "runs into the next member (overlapping entries: damaged or forged)")

    def _error(self, name: str, message: str) -> DocumentError:
        return DocumentError.single(self.label, f"{_member(name)} {message}")

    def read_all(self) -> dict[str, bytes]:
        """Every file member read with :meth:`read`."""
        return {name: self.read(name) for name in self.names()}


def open_zip_bytes(data: bytes, label: str, limits: Limits = DEFAULT_LIMITS) -> SafeZip:
    """Check the zip held in ``data``; return a :class:`SafeZip` or raise :class:`DocumentError`.

    All problems of the central directory are reported at once.
    """
    return _open_checked(io.BytesIO(data), data[:2], len(data), label, limits)


def _open_checked(fp: Source, head: bytes, size: int, label: str, limits: Limits) -> SafeZip:
    """The checks of :func:`open_zip_bytes` on a zip of ``size`` bytes starting with ``head``, read from ``fp``."""
    if not head.startswith(b"PK"):
        if not size:
            raise DocumentError.single(label, "is empty, not a zip file")
        raise DocumentError.single(label, "is not a zip file")
    directory = find_central_directory(fp, size)
    if directory is None:
        raise DocumentError.single(label, "is not a readable zip file or is truncated (its end record is missing)")
    most = limits.max_entries
    if directory.declared_entries > most:
        raise DocumentError.single(label, f"has {directory.declared_entries} entries; at most {most} are allowed")
    if directory.size > most * DIRECTORY_BYTES_PER_ENTRY:
        raise DocumentError.single(
            label, f"has a central directory of {directory.size} bytes, more than {most} entries can need"
        )
    # The end record may under-declare: count the headers zipfile would read, unless there is no room for more.
    if directory.most_entries() > most and count_entries(fp, directory, most) > most:
        raise DocumentError.single(label, f"has more than {most} entries; at most {most} are allowed")
    try:
        zf = zipfile.ZipFile(fp)
    except DocumentError:
        raise
    except UnicodeDecodeError:
        raise DocumentError.single(label, "has a member name marked as UTF-8 that is not valid UTF-8 (damaged or forged)") from None
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError, RuntimeError) as exc:
        raise DocumentError.single(label, f"is not a readable zip file or is truncated ({exc})") from None
    infos = zf.infolist()
    if len(infos) != directory.declared_entries:
        zf.close()
        raise DocumentError.single(
            label,
            f"says it has {directory.declared_entries} entr{'y' if directory.declared_entries == 1 else 'ies'} but its "
            f"central directory holds {len(infos)} (damaged or forged)",
        )
    problems = capped(_entry_problems(infos, directory.start, label, limits))
    if problems:
        zf.close()
        raise DocumentError(problems)
    ends = array("q", sorted({info.header_offset for info in infos} | {directory.start}))
    del infos
    return SafeZip(zf, fp, label, limits, ends)


def _entry_problems(infos: list[zipfile.ZipInfo], start: int, label: str, limits: Limits) -> Iterator[Problem]:
    """Every problem of the central directory's entries (``start``: where the directory starts)."""
    offsets = sorted({info.header_offset for info in infos} | {start})
    seen_exact: set[str] = set()
    seen_folded: dict[str, str] = {}
    seen_offsets: dict[int, str] = {}
    total = 0
    for info in infos:
        raw = info.orig_filename  # the name as stored (filename is cut at a NUL, or from a Unicode Path field)
        problem = _entry_problem(info, raw, start, offsets, limits)
        if problem is None:
            if raw in seen_exact:
                problem = "appears more than once"
            elif (folded := fold_name(raw.rstrip("/"))) in seen_folded:
                problem = f"clashes with {seen_folded[folded]!r} (same name ignoring case/Unicode form)"
            elif info.header_offset in seen_offsets:
                problem = (f"shares its local header with {seen_offsets[info.header_offset]!r} "
                           "(overlapping entries: damaged or forged)")
            else:
                seen_exact.add(raw)
                seen_folded[folded] = raw
                seen_offsets[info.header_offset] = raw
                total += info.file_size
        if problem is not None:
            yield Problem(label, "", f"{_member(raw)} {problem}")
    if total > limits.max_total_bytes:
        yield Problem(label, "", f"holds more than {describe_bytes(limits.max_total_bytes)} uncompressed in total "
                                 f"({total} bytes)")


def _entry_problem(info: zipfile.ZipInfo, raw: str, start: int, offsets: list[int], limits: Limits) -> str | None:
    """What is wrong with one entry on its own (stored name ``raw``), or ``None``."""
    reason = name_problem(raw)
    if reason:
        return reason
    if info.filename != raw:  # zipfile cut the name at a NUL, or took a Unicode Path extra field's
        return f"has a second, different name in an extra field ({info.filename!r})"
    unicode_name = _unicode_path_name(info.extra)
    if unicode_name is not None and unicode_name != raw:
        return f"has a second, different name in an extra field ({unicode_name!r})"
    if stat.S_ISLNK((info.external_attr >> 16) & 0xFFFF):
        return "is a symbolic link"
    if info.flag_bits & (_FLAG_ENCRYPTED | _FLAG_STRONG_ENCRYPTION):
        return "is encrypted"
    if info.flag_bits & _FLAG_PATCHED:
        return "holds compressed patch data (not supported)"
    if info.compress_type not in ALLOWED_COMPRESSION:
        return f"uses an unsupported compression method ({info.compress_type}); only stored or deflated"
    if info.is_dir():
        return "is a folder entry with content" if info.file_size else None
    if info.file_size > limits.max_member_bytes:
        return f"is larger than {describe_bytes(limits.max_member_bytes)} uncompressed ({info.file_size} bytes)"
    if not 0 <= info.header_offset <= start - _LOCAL.size:
        return "has its local header outside the zip's data (damaged or forged)"
    room = offsets[bisect_right(offsets, info.header_offset)] - info.header_offset
    if info.compress_size > room:
        return "claims more compressed data than the zip file holds (damaged or forged header)"
    if info.file_size > limits.ratio_floor_bytes and info.file_size > limits.max_ratio * max(info.compress_size, 1):
        return f"expands more than {limits.max_ratio} times (a zip bomb?)"
    if info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
        return "is stored uncompressed but its sizes differ (damaged or forged header)"
    return None


def _unicode_path_name(extra: bytes) -> str | None:
    """The name an Info-ZIP Unicode Path extra field gives (``"\\ufffd"`` for a damaged one), or ``None``."""
    while len(extra) >= _EXTRA_BLOCK.size:
        kind, length = _EXTRA_BLOCK.unpack_from(extra)
        body = extra[_EXTRA_BLOCK.size : _EXTRA_BLOCK.size + length]
        if kind == _UNICODE_PATH:
            if len(body) < 5:
                return "\ufffd"
            return body[5:].decode("utf-8", errors="replace")
        extra = extra[_EXTRA_BLOCK.size + length :]
    return None


class _DiskFile:
    """A read-only, seekable file object over ``path`` that opens the file for each read.

    No handle stays open (the rater can still move or delete the file on Windows), and the whole file is
    not held in memory (a 10,000-task bundle is about 17 MB). Every read first compares the open file's
    size, modification time and file id with those seen when it was opened, and refuses to read a file
    that changed meanwhile (a member's bytes are also checked against bundle.json's SHA-256 on every read),
    or that is no longer a regular file. Each read from the file reads ahead up to :data:`READ_AHEAD`
    bytes, kept until the next read from the file: the small reads zipfile makes for one member then
    open the file once, not five times.
    """

    def __init__(self, path: Path, label: str) -> None:
        self._path = path
        self._label = label
        self._pos = 0
        self._block: tuple[int, bytes] = (0, b"")
        """The last bytes read from the file (at most :data:`READ_AHEAD`) and where they start."""
        fd, st = open_regular(path)
        try:
            self.head = os.read(fd, 2)
        finally:
            os.close(fd)
        self._stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
        self.size = st.st_size

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self._pos, 2: self.size}[whence]
        self._pos = max(0, base + offset)  # as io.BytesIO, so zipfile sees the same as for open_zip_bytes
        return self._pos

    def read(self, n: int | None = -1) -> bytes:
        if n is not None and n >= 0:
            start, block = self._block
            offset = self._pos - start
            if offset >= 0 and offset + n <= len(block):  # zipfile reads a member in several small reads
                self._pos += n
                return block[offset : offset + n]
        want = self.size - self._pos if n is None or n < 0 else max(n, READ_AHEAD)
        try:
            fd, st = open_regular(self._path)
            try:
                if (st.st_size, st.st_mtime_ns, st.st_ino) != self._stamp:
                    raise DocumentError.single(
                        self._label, "was changed on disk after it was opened; close it and open it again"
                    )
                block = os.pread(fd, max(want, 0), self._pos) if hasattr(os, "pread") else _read_at(fd, want, self._pos)
            finally:
                os.close(fd)
        except NotRegularFileError:
            raise DocumentError.single(
                self._label, "was changed on disk after it was opened; close it and open it again"
            ) from None
        except OSError as exc:
            raise DocumentError.single(self._label, f"cannot be read ({exc.strerror or exc})") from None
        data = block if n is None or n < 0 else block[:n]
        if n is not None and 0 <= n <= READ_AHEAD:  # a large read (the central directory) is not kept
            self._block = (self._pos, block)
        self._pos += len(data)
        return data

    def close(self) -> None:
        """Nothing stays open."""


def _read_at(fd: int, n: int, pos: int) -> bytes:
    """``n`` bytes (fewer at the end of the file) from ``pos`` (where ``os.pread`` is missing: Windows)."""
    os.lseek(fd, pos, os.SEEK_SET)
    parts: list[bytes] = []
    while n > 0 and (chunk := os.read(fd, n)):
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def open_zip_file(path: Path, label: str | None = None, limits: Limits = DEFAULT_LIMITS) -> SafeZip:
    """Check the zip file ``path`` with the checks of :func:`open_zip_bytes`.

    Members are read from the file when asked for, through a file object that opens the file for each
    read and refuses a file changed on disk since (size, modification time or file id differ), so no
    handle stays open and the file is not held in memory. A path that is not a regular file (a folder,
    a FIFO, a device) is refused without waiting on it.
    """
    name = label or path.name
    try:
        fp = _DiskFile(path, name)
    except FileNotFoundError:
        raise DocumentError.single(name, "file not found") from None
    except NotRegularFileError as exc:
        if exc.is_folder:
            raise DocumentError.single(name, "is a folder, not a zip file") from None
        raise DocumentError.single(name, f"{exc.strerror}; give the zip file itself") from None
    except IsADirectoryError:
        raise DocumentError.single(name, "is a folder, not a zip file") from None
    except OSError as exc:
        raise DocumentError.single(name, f"cannot be read ({exc.strerror or exc})") from None
    if fp.size > limits.max_total_bytes + MAX_FILE_SLACK:
        raise DocumentError.single(
            name, f"is larger than {describe_bytes(limits.max_total_bytes)}; not a bundle or export"
        )
    return _open_checked(fp, fp.head, fp.size, name, limits)
