"""Reading zip files that may be hostile: checks first, then members read in memory, never extracted.

Every zip the project reads (rater bundles, results exports) goes through :func:`open_zip_file` /
:func:`open_zip_bytes`. Nothing is ever written to disk from a zip (no ``extractall``). Rejected, with a
message naming the member:

- a file that is not a zip, or is truncated;
- more than :data:`MAX_ENTRIES` entries;
- member names that are absolute (``/x``), contain ``..`` or ``.`` parts or empty parts, backslashes,
  a drive letter (``C:``), NUL or other control characters;
- duplicate names, also after Unicode NFC normalisation and case folding (``Task.json`` vs ``task.json``
  would be one file on Windows and macOS);
- symbolic links (Unix mode ``S_IFLNK`` in the external attributes);
- encrypted members (general purpose flag bit 0);
- compression other than stored or deflated;
- a member over :data:`MAX_MEMBER_BYTES` or a total over :data:`MAX_TOTAL_BYTES` uncompressed;
- a compression ratio over :data:`MAX_RATIO` (for members over :data:`RATIO_FLOOR_BYTES`);
- a header claiming more compressed bytes than the file has room for.

Headers can lie, so the limits are checked twice: on the declared sizes when the zip is opened, and on
the bytes actually produced while a member is read (in chunks; reading stops as soon as a limit is
passed). CRC errors and corrupt deflate streams are reported as damaged members.

Two ways through the same rules: a plain zip (no zip64, comment, prefix, encryption, data descriptor or
other flags, ASCII names, stored/deflated members in file order) is checked and read by the lean reader
(:class:`_CentralIndex`: the central directory read in one piece and walked with ``struct``, members
inflated with one ``zlib`` call, sizes and CRC compared), which keeps opening a 10,000-task bundle from
building 10,000 ``ZipInfo`` objects (benchmarks/, docs/PERFORMANCE.md). The lean reader only ever says
"fine" or "not sure": whatever it does not accept, the zip or a member read, goes through :mod:`zipfile`
and the checks below, so every message is the one that path gives.
"""

from __future__ import annotations

import io
import os
import re
import stat
import struct
import sys
import unicodedata
import zipfile
import zlib
from array import array
from dataclasses import dataclass
from itertools import repeat
from operator import add, gt, itemgetter, lt, mul, sub
from pathlib import Path

from wmcdp_desktop.core.errors import DocumentError, Problem

MAX_ENTRIES = 100_000
"""Most entries a zip may have."""
MAX_MEMBER_BYTES = 50 * 1024 * 1024
"""Largest uncompressed member (50 MB)."""
MAX_TOTAL_BYTES = 1024 * 1024 * 1024
"""Largest total uncompressed size (1 GB)."""
MAX_RATIO = 100
"""Largest compression ratio (uncompressed / compressed) of a member."""
RATIO_FLOOR_BYTES = 1024
"""Members up to this many uncompressed bytes are not ratio-checked (a tiny file of repeated spaces
compresses to a handful of bytes; it cannot hurt)."""
CHUNK = 64 * 1024
READ_AHEAD = 64 * 1024
"""Bytes read ahead when a zip file's member is read from disk (see ``_DiskFile``)."""
ALLOWED_COMPRESSION = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}


@dataclass(frozen=True)
class Limits:
    """The limits in force (tests shrink them to keep fixtures small)."""

    max_entries: int = MAX_ENTRIES
    max_member_bytes: int = MAX_MEMBER_BYTES
    max_total_bytes: int = MAX_TOTAL_BYTES
    max_ratio: int = MAX_RATIO
    ratio_floor_bytes: int = RATIO_FLOOR_BYTES


DEFAULT_LIMITS = Limits()


# Names made only of path parts that start with a letter, digit, ``_`` or ``-`` and go on with those and
# ``.`` pass every check below; matching them in one regular expression keeps opening a 10,000-task
# bundle from spending a third of a second in the character loop (benchmarks/). Anything else (a colon,
# non-ASCII, ...) takes the full checks.
_PLAIN_NAME = re.compile(r"(?:[A-Za-z0-9_-][A-Za-z0-9._-]*/)*[A-Za-z0-9_-][A-Za-z0-9._-]*/?")


def name_problem(name: str) -> str | None:
    """Why ``name`` is not an acceptable member/relative path (``None`` when it is fine).

    Used for zip members and for files of a folder bundle.
    """
    if _PLAIN_NAME.fullmatch(name):
        return None
    if name == "":
        return "has an empty name"
    for ch in name:
        code = ord(ch)
        if code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0:
            what = "a NUL character" if code == 0 else f"a control character (U+{code:04X})"
            return f"has {what} in its name"
    if "\\" in name:
        return "has a backslash in its name (only / separates folders in a zip)"
    if name.startswith("/"):
        return "is an absolute path"
    if len(name) >= 2 and name[1] == ":" and name[0].isascii() and name[0].isalpha():
        return "starts with a drive letter"
    parts = name.rstrip("/").split("/")
    if any(part == ".." for part in parts):
        return "contains '..' (it would point outside the bundle)"
    if any(part in ("", ".") for part in parts):
        return "has an empty or '.' path part"
    return None


def fold_name(name: str) -> str:
    """The form two names are compared in for duplicates: NFC, then case folded."""
    return unicodedata.normalize("NFC", name).casefold()


def _member(name: str) -> str:
    return f"member {name!r}"


def _raw_name(info: zipfile.ZipInfo) -> str:
    # zipfile cuts a name at its first NUL and turns os.sep into "/"; orig_filename is the stored name.
    return getattr(info, "orig_filename", info.filename)


class SafeZip:
    """A zip that passed the checks; members are read in memory with :meth:`read`.

    Made from a :class:`zipfile.ZipFile` (``zf``), or from the lean reader's :class:`_CentralIndex`
    (``central``, with the file object ``fp`` it was read from); a member the lean reader does not
    read cleanly is read again through :mod:`zipfile` (opened then), so its message is that path's.
    """

    def __init__(
        self,
        zf: zipfile.ZipFile | None,
        label: str,
        limits: Limits,
        central: _CentralIndex | None = None,
        fp: io.BytesIO | _DiskFile | None = None,
    ) -> None:
        self._zf = zf
        self.label = label
        self.limits = limits
        self._central = central
        self._fp = fp
        self._infos: dict[str, zipfile.ZipInfo] | None = None
        if zf is not None:
            self._set_zipfile(zf)

    def _set_zipfile(self, zf: zipfile.ZipFile) -> None:
        self._zf = zf
        self._infos = {info.filename: info for info in zf.infolist() if not info.is_dir()}

    def names(self) -> list[str]:
        """Names of the file members (folders left out), sorted."""
        if self._central is not None:
            return sorted(self._central.index)
        assert self._infos is not None
        return sorted(self._infos)

    def sizes(self) -> dict[str, int]:
        """Declared uncompressed size of every file member (folders left out)."""
        if self._central is not None:
            return self._central.sizes()
        assert self._infos is not None
        return {name: info.file_size for name, info in self._infos.items()}

    def __contains__(self, name: object) -> bool:
        if self._central is not None:
            return name in self._central.index
        assert self._infos is not None
        return name in self._infos

    def size(self, name: str) -> int:
        """Declared uncompressed size of ``name``."""
        if self._central is not None:
            return self._central.file_sizes[self._central.index[name]]
        assert self._infos is not None
        return self._infos[name].file_size

    def read(self, name: str) -> bytes:
        """The bytes of ``name``, counted while reading; raises :class:`DocumentError` naming it."""
        if self._central is not None:
            if name not in self._central.index:
                raise DocumentError.single(self.label, f"{_member(name)} is missing")
            assert self._fp is not None
            data = self._central.read(self._fp, name, self.limits)
            if data is not None:
                return data
            if self._zf is None:  # not read cleanly: zipfile reads it and words what is wrong
                try:
                    zf = zipfile.ZipFile(self._fp)
                except DocumentError:
                    raise
                except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError, RuntimeError) as exc:
                    raise DocumentError.single(
                        self.label, f"{_member(name)} cannot be read: {str(exc) or type(exc).__name__}"
                    ) from None
                self._set_zipfile(zf)
        return self._read_zipfile(name)

    def _read_zipfile(self, name: str) -> bytes:
        assert self._zf is not None and self._infos is not None
        info = self._infos.get(name)
        if info is None:
            raise DocumentError.single(self.label, f"{_member(name)} is missing")
        limits = self.limits
        allowed = min(info.file_size, limits.max_member_bytes)
        ratio_cap = max(limits.max_ratio * max(info.compress_size, 1), limits.ratio_floor_bytes)
        out = io.BytesIO()
        count = 0
        try:
            with self._zf.open(info) as fh:
                while True:
                    chunk = fh.read(CHUNK)
                    if not chunk:
                        break
                    count += len(chunk)
                    if count > allowed:
                        if count > limits.max_member_bytes:
                            raise DocumentError.single(
                                self.label,
                                f"{_member(name)} is larger than {_mb(limits.max_member_bytes)} uncompressed",
                            )
                        raise DocumentError.single(
                            self.label, f"{_member(name)} holds more data than its header says (damaged or forged)"
                        )
                    if count > ratio_cap:
                        raise DocumentError.single(
                            self.label,
                            f"{_member(name)} expands more than {limits.max_ratio} times (a zip bomb?)",
                        )
                    out.write(chunk)
        except DocumentError:
            raise
        except (zipfile.BadZipFile, EOFError, zlib.error, OSError, ValueError, NotImplementedError, RuntimeError) as exc:
            reason = str(exc) or type(exc).__name__
            if "CRC" in reason:
                reason = "its checksum (CRC) does not match: the file is damaged"
            raise DocumentError.single(self.label, f"{_member(name)} cannot be read: {reason}") from None
        if count != info.file_size:
            raise DocumentError.single(
                self.label, f"{_member(name)} is shorter than its header says (damaged or truncated)"
            )
        return out.getvalue()

    def read_all(self) -> dict[str, bytes]:
        """Every file member read with :meth:`read`."""
        return {name: self.read(name) for name in self.names()}


# ----- the lean reader ----------------------------------------------------------------------------------
# Record layouts of the zip format (APPNOTE 4.3.7, 4.3.12, 4.3.16), as zipfile reads them.
_END = struct.Struct("<IHHHHIIH")  # end of central directory: 22 bytes
_END_SIGNATURE = 0x06054B50
_ZIP64_LOCATOR = b"PK\x06\x07"
_CENTRAL = struct.Struct("<I2xHHH4xIIIHHH4xII")
"""A central directory header (46 bytes, then name, extra field, comment) without the fields nothing
checks (version made by, time, date, disk, internal attributes): fewer objects per entry."""
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
        if cd_size // _CENTRAL.size > limits.max_entries:
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


def _mb(n: int) -> str:
    if n >= 1024**3 and n % 1024**3 == 0:
        return f"{n // 1024**3} GB"
    if n >= 1024**2:
        return f"{n / 1024**2:g} MB"
    return f"{n} bytes"


def _declared_entry_count(fp: io.BytesIO | _DiskFile) -> tuple[int, int] | None:
    """Entry count and central-directory size from the end-of-central-directory record, read before
    zipfile parses every entry."""
    try:
        end = zipfile._EndRecData(fp)  # type: ignore[attr-defined]
    except DocumentError:
        raise
    except Exception:
        return None
    if not end:
        return None
    try:
        return int(end[zipfile._ECD_ENTRIES_TOTAL]), int(end[zipfile._ECD_SIZE])  # type: ignore[attr-defined]
    except Exception:
        return None


def open_zip_bytes(data: bytes, label: str, limits: Limits = DEFAULT_LIMITS) -> SafeZip:
    """Check the zip held in ``data``; return a :class:`SafeZip` or raise :class:`DocumentError`.

    All problems of the central directory are reported at once.
    """
    return _open_checked(io.BytesIO(data), data[:2], len(data), label, limits)


def _open_checked(fp: io.BytesIO | _DiskFile, head: bytes, size: int, label: str, limits: Limits) -> SafeZip:
    """The checks of :func:`open_zip_bytes` on a zip of ``size`` bytes starting with ``head``, read from ``fp``."""
    if not head.startswith(b"PK"):
        if not size:
            raise DocumentError.single(label, "is empty, not a zip file")
        raise DocumentError.single(label, "is not a zip file")
    central = _CentralIndex.build(fp, size, limits)
    if central is not None:
        return SafeZip(None, label, limits, central=central, fp=fp)
    declared = _declared_entry_count(fp)
    if declared is not None:
        entries, cd_size = declared
        if entries > limits.max_entries:
            raise DocumentError.single(label, f"has {entries} entries; at most {limits.max_entries} are allowed")
        # An end record may under-declare the entries: bound them by the central directory's size (46 bytes
        # at least per entry) before zipfile builds an object for every one of them.
        if cd_size // _CENTRAL.size > limits.max_entries:
            raise DocumentError.single(
                label,
                f"has a central directory of {cd_size} bytes, room for more than {limits.max_entries} entries; "
                f"at most {limits.max_entries} are allowed",
            )
    try:
        zf = zipfile.ZipFile(fp)
    except zipfile.BadZipFile as exc:
        raise DocumentError.single(label, f"is not a readable zip file or is truncated ({exc})") from None
    except (OSError, EOFError, ValueError, NotImplementedError, RuntimeError, zipfile.LargeZipFile) as exc:
        raise DocumentError.single(label, f"is not a readable zip file or is truncated ({exc})") from None
    infos = zf.infolist()
    if len(infos) > limits.max_entries:
        raise DocumentError.single(label, f"has {len(infos)} entries; at most {limits.max_entries} are allowed")

    problems: list[Problem] = []

    def bad(name: str, message: str) -> None:
        problems.append(Problem(label, "", f"{_member(name)} {message}"))

    # Room each member's data can really occupy: up to the next local header or the central directory.
    start_dir = getattr(zf, "start_dir", size)
    offsets = sorted({info.header_offset for info in infos} | {start_dir})
    next_offset = {off: offsets[i + 1] if i + 1 < len(offsets) else start_dir for i, off in enumerate(offsets)}

    seen_exact: dict[str, str] = {}
    seen_folded: dict[str, str] = {}
    total = 0
    for info in infos:
        raw = _raw_name(info)
        reason = name_problem(raw)
        if reason:
            bad(raw, reason)
            continue
        if info.filename != raw:  # Python 3.12+ names a member by an Info-ZIP Unicode Path extra field
            bad(raw, f"has a second, different name in an extra field ({info.filename!r})")
            continue
        if raw in seen_exact:
            bad(raw, "appears more than once")
            continue
        seen_exact[raw] = raw
        folded = fold_name(raw.rstrip("/"))
        if folded in seen_folded:
            bad(raw, f"clashes with {seen_folded[folded]!r} (same name ignoring case/Unicode form)")
            continue
        seen_folded[folded] = raw
        mode = (info.external_attr >> 16) & 0xFFFF
        if stat.S_ISLNK(mode):
            bad(raw, "is a symbolic link")
            continue
        if info.flag_bits & 0x1:
            bad(raw, "is encrypted")
            continue
        if info.compress_type not in ALLOWED_COMPRESSION:
            bad(raw, f"uses an unsupported compression method ({info.compress_type}); only stored or deflated")
            continue
        if info.is_dir():
            if info.file_size:
                bad(raw, "is a folder entry with content")
            continue
        if info.file_size > limits.max_member_bytes:
            bad(raw, f"is larger than {_mb(limits.max_member_bytes)} uncompressed ({info.file_size} bytes)")
            continue
        room = next_offset.get(info.header_offset, start_dir) - info.header_offset
        if info.compress_size > room or info.header_offset + info.compress_size > size:
            bad(raw, "claims more compressed data than the zip file holds (damaged or forged header)")
            continue
        if (
            info.file_size > limits.ratio_floor_bytes
            and info.file_size > limits.max_ratio * max(info.compress_size, 1)
        ):
            bad(raw, f"expands more than {limits.max_ratio} times (a zip bomb?)")
            continue
        if info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
            bad(raw, "is stored uncompressed but its sizes differ (damaged or forged header)")
            continue
        total += info.file_size
    if total > limits.max_total_bytes:
        problems.append(
            Problem(label, "", f"holds more than {_mb(limits.max_total_bytes)} uncompressed in total ({total} bytes)")
        )
    if problems:
        zf.close()
        raise DocumentError(problems)
    return SafeZip(zf, label, limits)


class _DiskFile:
    """A read-only, seekable file object over ``path`` that opens the file for each read.

    No handle stays open (the rater can still move or delete the file on Windows), and the whole file is
    not held in memory (a 10,000-task bundle is about 17 MB). Every read first compares the open file's
    size, modification time and file id with those seen when it was opened, and refuses to read a file
    that changed meanwhile (a member's bytes are also checked against bundle.json's SHA-256 on every read).
    Each read from the file reads ahead up to :data:`READ_AHEAD` bytes, kept until the next read from the
    file: the small reads zipfile makes for one member then open the file once, not five times.
    """

    def __init__(self, path: Path, label: str) -> None:
        self._path = path
        self._label = label
        self._pos = 0
        self._block: tuple[int, bytes] = (0, b"")
        """The last bytes read from the file (at most :data:`READ_AHEAD`) and where they start."""
        with path.open("rb") as fh:
            st = os.fstat(fh.fileno())
            self.head = fh.read(2)
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
        try:
            with self._path.open("rb") as fh:
                st = os.fstat(fh.fileno())
                if (st.st_size, st.st_mtime_ns, st.st_ino) != self._stamp:
                    raise DocumentError.single(
                        self._label, "was changed on disk after it was opened; close it and open it again"
                    )
                fh.seek(self._pos)
                if n is None or n < 0:
                    data = fh.read()
                else:
                    block = fh.read(max(n, READ_AHEAD))
                    self._block = (self._pos, block)
                    data = block[:n]
        except OSError as exc:
            raise DocumentError.single(self._label, f"cannot be read ({exc.strerror or exc})") from None
        self._pos += len(data)
        return data

    def close(self) -> None:
        """Nothing stays open."""


def open_zip_file(path: Path, label: str | None = None, limits: Limits = DEFAULT_LIMITS) -> SafeZip:
    """Check the zip file ``path`` with the checks of :func:`open_zip_bytes`.

    Members are read from the file when asked for, through a file object that opens the file for each
    read and refuses a file changed on disk since (size, modification time or file id differ), so no
    handle stays open and the file is not held in memory.
    """
    name = label or path.name
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise DocumentError.single(name, "file not found") from None
    except OSError as exc:
        raise DocumentError.single(name, f"cannot be read ({exc.strerror or exc})") from None
    if size > limits.max_total_bytes + 64 * 1024 * 1024:
        raise DocumentError.single(name, f"is larger than {_mb(limits.max_total_bytes)}; not a bundle or export")
    if path.is_dir():
        raise DocumentError.single(name, "is a folder, not a zip file")
    try:
        fp = _DiskFile(path, name)
    except IsADirectoryError:
        raise DocumentError.single(name, "is a folder, not a zip file") from None
    except OSError as exc:
        raise DocumentError.single(name, f"cannot be read ({exc.strerror or exc})") from None
    return _open_checked(fp, fp.head, fp.size, name, limits)


def deterministic_zip(files: dict[str, bytes]) -> bytes:
    """A zip of ``files`` that is byte-identical for the same input: sorted names, fixed timestamps,
    fixed permissions (0644), deflated."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name in sorted(files):
            reason = name_problem(name)
            if reason:
                raise ValueError(f"{name!r} {reason}")
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            zf.writestr(info, files[name], compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    return buf.getvalue()
