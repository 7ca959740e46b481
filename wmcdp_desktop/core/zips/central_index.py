"""The lean reader of plain zips: the central directory read in one piece and cut into columns.

A plain zip (no zip64, archive comment, prefix, encryption, data descriptor or other flags; ASCII names;
stored/deflated members in file order; no Unicode Path extra field) is checked against the rules of
:mod:`wmcdp_desktop.core.zips.rules` and its members read with one local-header check, one ``zlib`` call
and the CRC, without building a ``ZipInfo`` per entry (a 10,000-task bundle opens in milliseconds;
docs/PERFORMANCE.md). :class:`_CentralIndex` only ever says "fine" or "not sure" (``None``): whatever it
does not accept goes through :mod:`zipfile` and the checks of :mod:`wmcdp_desktop.core.zips.reader`, which
is the only module that uses it.
"""

from __future__ import annotations

import io
import re
import stat
import struct
import sys
import zipfile
import zlib
from array import array
from itertools import repeat
from operator import add, gt, itemgetter, lt, mul, sub
from typing import TYPE_CHECKING

from wmcdp_desktop.core.zips.rules import ALLOWED_COMPRESSION, Limits, name_problem

if TYPE_CHECKING:
    from wmcdp_desktop.core.zips.reader import _DiskFile

# Record layouts of the zip format (APPNOTE 4.3.7, 4.3.12, 4.3.16), as zipfile reads them.
_END = struct.Struct("<IHHHHIIH")  # end of central directory: 22 bytes
_END_SIGNATURE = 0x06054B50
_ZIP64_LOCATOR = b"PK\x06\x07"
_CENTRAL = struct.Struct("<I2xHHH4xIIIHHH4xII")
"""A central directory header (46 bytes, then name, extra field, comment) without the fields nothing
checks (version made by, time, date, disk, internal attributes): fewer objects per entry."""
CENTRAL_HEADER_BYTES = _CENTRAL.size
"""The least a central directory entry takes (46 bytes and an empty name): bounds the entry count."""
_CENTRAL_SIGNATURE = 0x02014B50
_CENTRAL_SIGNATURE_BYTES = b"PK\x01\x02"
_CENTRAL_AFTER_SIGNATURE = struct.Struct("<2xHHH4xIIIHHH4xII")
""":data:`_CENTRAL` after its signature (42 bytes)."""
_HEAD = _CENTRAL_AFTER_SIGNATURE.size
_HEAD_OF = itemgetter(slice(0, _HEAD))
_NAME_AFTER_SIGNATURE = itemgetter(slice(_HEAD, None))
_COLUMNS = ((2, 2), (4, 2), (6, 2), (12, 4), (16, 4), (20, 4), (24, 2), (26, 2), (28, 2), (34, 4), (38, 4))
"""Where each field of :data:`_CENTRAL_AFTER_SIGNATURE` lies in the 42 bytes after the signature, and its
width: version needed, flags, method, CRC, compressed size, size, name/extra/comment lengths, external
attributes, local header offset."""
_U32 = next(code for code in "IL" if array(code).itemsize == 4)
_TYPECODES = tuple("H" if width == 2 else _U32 for _, width in _COLUMNS)
_LOCAL = struct.Struct("<IHHHHHIIIHH")  # local file header: 30 bytes + name, extra
_LOCAL_SIGNATURE = 0x04034B50
_EXTRA = struct.Struct("<HH")
_UNICODE_PATH_EXTRA = 0x7075
"""Info-ZIP Unicode Path extra field: zipfile (Python 3.12+) names a member by it instead of the stored name."""
_TAIL = 64 * 1024
"""Bytes read from the end of the zip at first: the end record, and the whole central directory of a
small zip."""
_MAX_EXTRACT_VERSION = 63
"""Highest "version needed to extract" zipfile reads (zipfile.MAX_EXTRACT_VERSION)."""
_FLAG_UTF8 = 0x800
_FLAGS_PLAIN = _FLAG_UTF8 | 0x6
"""Flag bits a zip the lean reader takes may have: UTF-8 names, deflate's speed/size hint. Encryption (bit
0), data descriptors (3), patches (5), strong encryption (6) and the rest go to zipfile."""
_S_IFLNK_TOP = stat.S_IFLNK >> 12
_PLAIN_NAME_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-/"


def _plain_names(joined: bytes) -> bool:
    """Whether every name of ``joined`` (names joined by newlines, none holding one) is a ``_PLAIN_NAME``:
    path parts of letters, digits, ``.``, ``_``, ``-``, none empty or starting with ``.``, one ``/`` at
    most at the end. Said with byte-string operations (C speed; the regular expression over 10,000 names
    took twice as long)."""
    return (
        bool(joined)
        and not joined.translate(None, _PLAIN_NAME_BYTES + b"\n")
        and not joined.startswith((b"/", b".", b"\n"))
        and not joined.endswith(b"\n")
        and all(part not in joined for part in (b"\n\n", b"\n/", b"\n.", b"//", b"/."))
    )
_DIR_AT_END = re.compile(r"/+(?=\n|\Z)")


def _column(heads: bytes, at: int, width: int) -> array[int]:
    """The little-endian field of ``width`` bytes at ``at`` in each 42-byte header of ``heads``."""
    count = len(heads) // _HEAD
    raw = bytearray(width * count)
    for byte in range(width):
        raw[byte::width] = heads[at + byte :: _HEAD]
    column = array("H" if width == 2 else _U32, raw)
    if sys.byteorder == "big":
        column.byteswap()
    return column


class _CentralIndex:
    """The file members of a plain zip, found by walking its central directory with ``struct``.

    :meth:`build` returns ``None`` unless the zip is plain and passes every check of
    :func:`_open_checked` (the lean reader may be stricter than zipfile, never laxer); :meth:`read`
    returns ``None`` unless the member reads cleanly (local header as the central directory says, the
    declared size and CRC). Columns are kept in arrays: a 10,000-member zip costs a dict and a few
    hundred KB, not 10,000 ``ZipInfo`` objects.
    """

    def __init__(
        self,
        index: dict[str, int],
        offsets: array[int],
        ends: array[int],
        compress_sizes: array[int],
        file_sizes: array[int],
        crcs: array[int],
        methods: array[int],
        flags: array[int],
    ) -> None:
        self.index = index
        """File member name -> its row in the columns (folders are not in it)."""
        self.offsets = offsets
        """Where each member's local header starts."""
        self.ends = ends
        """Where the next local header (or the central directory) starts: a member's data must end by then."""
        self.compress_sizes = compress_sizes
        self.file_sizes = file_sizes
        self.crcs = crcs
        self.methods = methods
        self.flags = flags

    def sizes(self) -> dict[str, int]:
        return dict(zip(self.index, map(self.file_sizes.__getitem__, self.index.values()), strict=True))

    @classmethod
    def build(cls, fp: io.BytesIO | _DiskFile, size: int, limits: Limits) -> _CentralIndex | None:
        """The index of the zip of ``size`` bytes in ``fp``, or ``None`` (not plain, or some check fails)."""
        if size < _END.size:
            return None
        fp.seek(max(0, size - _TAIL))
        tail = fp.read(_TAIL)
        if len(tail) != min(size, _TAIL):
            return None
        sig, disk, cd_disk, on_disk, total, cd_size, cd_offset, comment = _END.unpack_from(tail, len(tail) - _END.size)
        if sig != _END_SIGNATURE or comment or disk or cd_disk or on_disk != total or not total:
            return None
        if total > limits.max_entries or total == 0xFFFF or cd_offset + cd_size != size - _END.size:
            return None  # a prefix before the zip ("concat") or zip64 records in between
        if cd_size // CENTRAL_HEADER_BYTES > limits.max_entries:
            return None  # more entries than allowed, whatever the end record says (refused in _open_checked)
        if len(tail) >= _END.size + 20 and tail[-_END.size - 20 : -_END.size - 16] == _ZIP64_LOCATOR:
            return None
        if cd_size + _END.size <= len(tail):
            cd = tail[len(tail) - _END.size - cd_size : len(tail) - _END.size]
        else:
            fp.seek(cd_offset)
            cd = fp.read(cd_size)
            if len(cd) != cd_size:
                return None
        del tail

        walked = cls._split_walk(cd, total) or cls._walk(cd, total)
        del cd
        if walked is None:
            return None
        columns, raw_names = walked
        n = total
        extract, flag_bits, methods, crcs, csizes, fsizes, _nlen, _elen, _clen, external, offsets = columns
        del columns
        if max(extract) > _MAX_EXTRACT_VERSION:
            return None
        if any(f & ~_FLAGS_PLAIN for f in set(flag_bits)) or not set(methods) <= set(ALLOWED_COMPRESSION):
            return None
        if any(mode >> 28 == _S_IFLNK_TOP for mode in set(external)):
            return None

        # Names: plain ASCII (zipfile's cp437 and UTF-8 decoding agree on them), each acceptable, unique
        # also ignoring case (Unicode forms do not apply to ASCII).
        joined = b"\n".join(raw_names)
        del raw_names
        if not joined.isascii() or joined.count(b"\n") != n - 1:
            return None
        text = joined.decode("ascii")
        names = text.split("\n")
        if not _plain_names(joined) and any(map(name_problem, names)):
            return None
        has_dirs = "/\n" in text or text.endswith("/")
        folded = _DIR_AT_END.sub("", text.lower()) if has_dirs else text.lower()
        if len(set(names)) != n or len(set(folded.split("\n"))) != n:
            return None

        # Sizes, room and ratio, as _open_checked checks them (folders included: stricter, never laxer).
        if max(fsizes) > limits.max_member_bytes or sum(fsizes) > limits.max_total_bytes:
            return None
        ends = offsets[1:]
        ends.append(cd_offset)
        if not all(map(lt, offsets, ends)):  # members in file order, each before the next
            return None
        if any(map(gt, csizes, map(sub, ends, offsets))):  # more compressed bytes than room before the next
            return None
        # A member over the ratio floor expanding more than max_ratio times its compressed size (at least 1);
        # looked for one by one only if some member is over max_ratio times its compressed size as stored.
        floor, ratio = limits.ratio_floor_bytes, limits.max_ratio
        if any(map(gt, fsizes, map(mul, csizes, repeat(ratio)))) and any(
            f > floor and f > ratio * max(c, 1) for f, c in zip(fsizes, csizes, strict=True)
        ):
            return None
        if 0 in methods and any(m == 0 and c != f for m, c, f in zip(methods, csizes, fsizes, strict=True)):
            return None
        if has_dirs:
            if any(fsizes[i] for i, name in enumerate(names) if name.endswith("/")):
                return None
            index = {name: i for i, name in enumerate(names) if not name.endswith("/")}
        else:
            index = dict(zip(names, range(n), strict=True))
        return cls(index, offsets, ends, csizes, fsizes, crcs, methods, flag_bits)

    @staticmethod
    def _split_walk(cd: bytes, total: int) -> tuple[list[array[int]], list[bytes]] | None:
        """The central directory's columns (the fields of :data:`_CENTRAL` after the signature, as arrays)
        and raw names, when it splits at its ``PK\\x01\\x02`` signatures into exactly ``total`` headers
        without extra fields or comments, each as long as its name length says (then no split fell inside a
        name); else ``None``. The common case: the fixed 42 bytes of every header are joined and each field
        is cut out of them with strided slices, so no Python object is made per entry and field."""
        chunks = cd.split(_CENTRAL_SIGNATURE_BYTES)
        if len(chunks) != total + 1 or chunks[0]:
            return None
        del chunks[0]
        lengths = list(map(len, chunks))
        if min(lengths) < _HEAD:
            return None
        heads = b"".join(map(_HEAD_OF, chunks))
        columns = [_column(heads, at, width) for at, width in _COLUMNS]
        del heads
        name_lengths, extra_lengths, comment_lengths = columns[6:9]
        if extra_lengths.count(0) != total or comment_lengths.count(0) != total:
            return None
        if lengths != list(map(add, name_lengths, repeat(_HEAD))):
            return None
        return columns, list(map(_NAME_AFTER_SIGNATURE, chunks))

    @classmethod
    def _walk(cls, cd: bytes, total: int) -> tuple[list[array[int]], list[bytes]] | None:
        """The columns and raw names of :meth:`_split_walk`, header by header (extra fields and comments
        allowed; a zip64 or corrupt extra field gives ``None``, as does anything not adding up)."""
        unpack = _CENTRAL.unpack_from
        rows: list[tuple[int, ...]] = []
        raw_names: list[bytes] = []
        pos, end = 0, len(cd)
        while pos < end:
            if end - pos < _CENTRAL.size or len(rows) == total:
                return None
            row = unpack(cd, pos)
            if row[0] != _CENTRAL_SIGNATURE:
                return None
            name_end = pos + 46 + row[7]
            raw_names.append(cd[pos + 46 : name_end])
            if row[8] and cls._zip64_or_bad_extra(cd[name_end : name_end + row[8]]):
                return None
            rows.append(row[1:])
            pos = name_end + row[8] + row[9]
        if pos != end or len(rows) != total:
            return None
        return [array(code, column) for code, column in zip(_TYPECODES, zip(*rows, strict=True), strict=True)], raw_names

    @staticmethod
    def _zip64_or_bad_extra(extra: bytes) -> bool:
        """The extra field holds a zip64 block, an Info-ZIP Unicode Path block (from Python 3.12 zipfile
        names the member by it), or blocks that zipfile would call corrupt."""
        while len(extra) >= 4:
            kind, length = _EXTRA.unpack_from(extra)
            if kind in (0x0001, _UNICODE_PATH_EXTRA) or length + 4 > len(extra):
                return True
            extra = extra[length + 4 :]
        return False

    def read(self, fp: io.BytesIO | _DiskFile, name: str, limits: Limits) -> bytes | None:
        """The bytes of member ``name`` if it reads cleanly within ``limits``, else ``None``."""
        i = self.index[name]
        offset, csize, fsize = self.offsets[i], self.compress_sizes[i], self.file_sizes[i]
        if fsize > limits.max_member_bytes or fsize > max(limits.max_ratio * max(csize, 1), limits.ratio_floor_bytes):
            return None  # the limits in force when reading (SafeZip.limits) are counted as zipfile's read counts them
        raw_name = name.encode("ascii")
        fp.seek(offset)
        block = fp.read(_LOCAL.size + len(raw_name) + csize)
        if len(block) < _LOCAL.size:
            return None
        sig, _version, flags, _method, _time, _date, _crc, _csize, _fsize, name_len, extra_len = _LOCAL.unpack_from(block)
        if sig != _LOCAL_SIGNATURE or (flags ^ self.flags[i]) & _FLAG_UTF8:
            return None
        if name_len != len(raw_name) or block[_LOCAL.size : _LOCAL.size + name_len] != raw_name:
            return None
        start = _LOCAL.size + name_len + extra_len
        if offset + start + csize > self.ends[i]:  # data running into the next member (overlapping entries)
            return None
        data = block[start : start + csize]
        if len(data) != csize:
            fp.seek(offset + start)
            data = fp.read(csize)
            if len(data) != csize:
                return None
        del block
        if self.methods[i] == zipfile.ZIP_DEFLATED:
            inflate = zlib.decompressobj(-zlib.MAX_WBITS)
            try:
                out = inflate.decompress(data, fsize + 1)  # never more than one byte past the declared size
                if len(out) > fsize or inflate.flush():
                    return None
            except zlib.error:
                return None
        else:
            out = data
        if len(out) != fsize or zlib.crc32(out) != self.crcs[i]:
            return None
        return out
