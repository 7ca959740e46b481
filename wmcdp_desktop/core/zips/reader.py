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

Two ways through the same rules (:mod:`wmcdp_desktop.core.zips.rules`): a plain zip is checked and read by
the lean reader of :mod:`wmcdp_desktop.core.zips.central_index` (the central directory read in one piece and cut into
columns, members inflated with one ``zlib`` call, sizes and CRC compared), which keeps opening a
10,000-task bundle from building 10,000 ``ZipInfo`` objects (benchmarks/, docs/PERFORMANCE.md). The lean
reader only ever says "fine" or "not sure": whatever it does not accept, the zip or a member read, goes
through :mod:`zipfile` and the checks below, so every message is the one that path gives.
"""

from __future__ import annotations

import io
import os
import stat
import zipfile
import zlib
from pathlib import Path

from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.zips.central_index import CENTRAL_HEADER_BYTES, _CentralIndex
from wmcdp_desktop.core.zips.rules import (
    ALLOWED_COMPRESSION,
    DEFAULT_LIMITS,
    MAX_ENTRIES,
    MAX_MEMBER_BYTES,
    MAX_RATIO,
    MAX_TOTAL_BYTES,
    RATIO_FLOOR_BYTES,
    Limits,
    fold_name,
    name_problem,
)

__all__ = [
    "ALLOWED_COMPRESSION",
    "DEFAULT_LIMITS",
    "MAX_ENTRIES",
    "MAX_MEMBER_BYTES",
    "MAX_RATIO",
    "MAX_TOTAL_BYTES",
    "RATIO_FLOOR_BYTES",
    "Limits",
    "SafeZip",
    "deterministic_zip",
    "fold_name",
    "name_problem",
    "open_zip_bytes",
    "open_zip_file",
]

CHUNK = 64 * 1024
READ_AHEAD = 64 * 1024
"""Bytes read ahead when a zip file's member is read from disk (see ``_DiskFile``)."""

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
        if cd_size // CENTRAL_HEADER_BYTES > limits.max_entries:
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
