"""A zip's central directory found and its entries counted with ``struct``, before :mod:`zipfile` reads it.

zipfile builds a ``ZipInfo`` for every header of the central directory, whatever the end record says the
entry count is, so a zip with millions of tiny entries would fill memory before any limit could be
checked, and zipfile's public interface gives no count before it has read them all. This module finds the
central directory where zipfile finds it (APPNOTE.TXT 4.3.12-4.3.16), with the entry count its end record
declares, and counts the headers zipfile would read (stopping after a given number);
:mod:`wmcdp_desktop.core.zips.reader` refuses a zip with too many entries before zipfile reads it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Protocol

END = struct.Struct("<4s4H2LH")
"""End of central directory record (22 bytes): signature, disk, disk of the directory, entries on this
disk, entries, directory size, directory offset, comment length."""
END_SIGNATURE = b"PK\x05\x06"
ZIP64_LOCATOR = struct.Struct("<4sLQL")
"""Zip64 end of central directory locator (20 bytes, just before the end record)."""
ZIP64_LOCATOR_SIGNATURE = b"PK\x06\x07"
ZIP64_END = struct.Struct("<4sQ2H2L4Q")
"""Zip64 end of central directory record (56 bytes, just before the locator): signature, record size,
versions, disks, entries on this disk, entries, directory size, directory offset."""
ZIP64_END_SIGNATURE = b"PK\x06\x06"
CENTRAL_HEADER_BYTES = 46
"""A central directory header without its name, extra field and comment."""
CENTRAL_SIGNATURE = b"PK\x01\x02"
_LENGTHS_AT = 28
_LENGTHS = struct.Struct("<3H")
"""Name, extra field and comment lengths, at byte 28 of a central directory header."""
_MAX_COMMENT = 0xFFFF
_CHUNK = 1 << 20


class Readable(Protocol):
    def seek(self, offset: int, whence: int = 0) -> int: ...
    def read(self, n: int = -1) -> bytes: ...


@dataclass(frozen=True)
class CentralDirectory:
    """Where a zip's central directory lies, what the end record says, and the headers walked."""

    start: int
    """Where the central directory starts in the file."""
    size: int
    """Its size in bytes, as the end record says."""
    declared_entries: int
    """The entry count of the end record (the zip64 one when there is one)."""

    def most_entries(self) -> int:
        """The most entries zipfile can read from it: a header takes at least 46 bytes."""
        return self.size // CENTRAL_HEADER_BYTES


def _end_record(fp: Readable, file_size: int) -> tuple[int, tuple[int, ...]] | None:
    """Where the end record starts and its fields, found as zipfile finds it: the last 22 bytes when they
    are an end record without a comment, else the last end-record signature in the file's final 64 KB."""
    if file_size < END.size:
        return None
    fp.seek(file_size - END.size)
    tail = fp.read(END.size)
    if tail[:4] == END_SIGNATURE and tail[-2:] == b"\0\0":
        return file_size - END.size, END.unpack(tail)
    search_from = max(file_size - _MAX_COMMENT - END.size, 0)
    fp.seek(search_from)
    tail = fp.read(file_size - search_from)
    at = tail.rfind(END_SIGNATURE)
    if at < 0 or at + END.size > len(tail):
        return None
    return search_from + at, END.unpack_from(tail, at)


def _zip64_end(fp: Readable, end_at: int) -> tuple[int, int, int] | None:
    """``(entries, directory size, where the zip64 end record starts)`` when a zip64 locator lies just
    before the end record and a zip64 end record just before it (as zipfile reads them), else ``None``."""
    at = end_at - ZIP64_LOCATOR.size - ZIP64_END.size
    if at < 0:
        return None
    fp.seek(at)
    data = fp.read(ZIP64_END.size + ZIP64_LOCATOR.size)
    if len(data) != ZIP64_END.size + ZIP64_LOCATOR.size:
        return None
    if ZIP64_LOCATOR.unpack_from(data, ZIP64_END.size)[0] != ZIP64_LOCATOR_SIGNATURE:
        return None
    sig, _, _, _, _, _, _, entries, size, _ = ZIP64_END.unpack_from(data)
    if sig != ZIP64_END_SIGNATURE:
        return None
    return entries, size, at


def find_central_directory(fp: Readable, file_size: int) -> CentralDirectory | None:
    """The central directory of the zip of ``file_size`` bytes in ``fp``; ``None`` when no end record is
    found or the directory would start before the file."""
    found = _end_record(fp, file_size)
    if found is None:
        return None
    end_at, fields = found
    declared, size = fields[4], fields[5]
    directory_end = end_at
    zip64 = _zip64_end(fp, end_at)
    if zip64 is not None:
        declared, size, directory_end = zip64
    start = directory_end - size  # zipfile reads it from there, whatever the offset field says
    if start < 0:
        return None
    return CentralDirectory(start, size, declared)


def count_entries(fp: Readable, directory: CentralDirectory, limit: int) -> int:
    """The headers of ``directory`` zipfile would read, counted as zipfile steps through them (each header's
    own lengths), stopping after ``limit + 1`` or at the first damaged header (zipfile then refuses the zip
    and says why). Read in chunks of 1 MB: the directory's size is the zip's word, and the count may stop
    long before its end."""
    start, size = directory.start, directory.size
    count = 0
    buf, buf_at = b"", 0

    def span(pos: int, n: int) -> bytes:
        nonlocal buf, buf_at
        if pos < buf_at or pos + n > buf_at + len(buf):
            fp.seek(start + pos)
            buf, buf_at = fp.read(min(max(n, _CHUNK), size - pos)), pos
        return buf[pos - buf_at : pos - buf_at + n]

    pos = 0
    while pos < size and count <= limit:
        header = span(pos, CENTRAL_HEADER_BYTES)
        if len(header) != CENTRAL_HEADER_BYTES or header[:4] != CENTRAL_SIGNATURE:
            break
        count += 1
        name_len, extra_len, comment_len = _LENGTHS.unpack_from(header, _LENGTHS_AT)
        pos += CENTRAL_HEADER_BYTES + name_len + extra_len + comment_len
    return count
