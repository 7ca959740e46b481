"""Hostile zips built byte by byte (headers that lie, names that hide, entries that overlap, bombs) against
the one zip reader (core/zips/reader.py).

Each attack has its expected outcome: refused when opened, with a message naming what is wrong; or opened
with one member refused when it is read; or opened and read. Whatever is read is compared with what the
standard library's zipfile reads from the same bytes, and every name handed out passes the name rules.
"""

from __future__ import annotations

import functools
import glob
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tracemalloc
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest

from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.zips.reader import SafeZip, open_zip_bytes, open_zip_file
from wmcdp_desktop.core.zips.rules import DEFAULT_LIMITS, Limits, name_problem

MAIN = Path(__file__).resolve().parents[3]


# ----- a zip writer whose headers can say anything -------------------------------------------------------
@dataclass
class M:
    name: bytes
    plain: bytes
    method: int = 8
    flags: int = 0
    local_flags: int | None = None
    extra: bytes = b""
    local_extra: bytes = b""
    comment: bytes = b""
    mode: int = 0o100644
    crc: int | None = None
    file_size: int | None = None
    packed: bytes | None = None
    """Compressed bytes as stored (default: deflate or the plain bytes)."""
    csize: int | None = None
    """Declared compressed size in both headers (default: len(packed))."""
    local_name: bytes | None = None
    local_name_len: int | None = None
    gap: bytes = b""
    """Bytes after the member's data, before the next header."""
    version: int = 20


def deflate(data: bytes) -> bytes:
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def write(ms: list[M], *, prefix: bytes = b"", comment: bytes = b"", order: list[int] | None = None,
          total: int | None = None, offsets: list[int] | None = None) -> bytes:
    out = bytearray(prefix)
    offs: list[int] = []
    for m in ms:
        if m.packed is None:
            m.packed = deflate(m.plain) if m.method == 8 else m.plain
        crc = zlib.crc32(m.plain) if m.crc is None else m.crc
        size = len(m.plain) if m.file_size is None else m.file_size
        cs = len(m.packed) if m.csize is None else m.csize
        offs.append(len(out) - len(prefix))
        local_name = m.name if m.local_name is None else m.local_name
        name_len = len(local_name) if m.local_name_len is None else m.local_name_len
        flags = m.flags if m.local_flags is None else m.local_flags
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, m.version, flags, m.method, 0, 0x21, crc, cs, size,
                           name_len, len(m.local_extra))
        out += local_name + m.local_extra + m.packed + m.gap
    if offsets is not None:
        offs = offsets
    start = len(out) - len(prefix)
    cd = bytearray()
    for i in order if order is not None else range(len(ms)):
        m = ms[i]
        assert m.packed is not None
        crc = zlib.crc32(m.plain) if m.crc is None else m.crc
        size = len(m.plain) if m.file_size is None else m.file_size
        cs = len(m.packed) if m.csize is None else m.csize
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, (3 << 8) | 20, m.version, m.flags, m.method, 0, 0x21,
                          crc, cs, size, len(m.name), len(m.extra), len(m.comment), 0, 0, m.mode << 16, offs[i])
        cd += m.name + m.extra + m.comment
    n = (len(order) if order is not None else len(ms)) if total is None else total
    out += cd
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(cd), start, len(comment))
    return bytes(out + comment)


BODY = b'{"k": "' + os.urandom(1500).hex().encode() + b'"}'  # compresses about 2:1 (under every ratio limit)


def two(first: M, **kw: object) -> bytes:
    return write([first, M(b"b.json", b"[]")], **kw)  # type: ignore[arg-type]


def _sig_in_name() -> bytes:
    # A name holding the central-directory signature and a whole fake header after it; the end record's
    # entry count forged to match the number of pieces the directory splits into.
    fake = struct.pack("<2xHHH4xIIIHHH4xII", 20, 0, 0, 0, 0, 0, 1, 0, 0, 0o100644 << 16, 0)
    return write([M(b"aPK\x01\x02" + fake + b"z", b"{}"), M(b"c.json", b"[]")], total=3)


def _sig_in_name_plain_total() -> bytes:
    fake = struct.pack("<2xHHH4xIIIHHH4xII", 20, 0, 0, 0, 0, 0, 1, 0, 0, 0o100644 << 16, 0)
    return write([M(b"aPK\x01\x02" + fake + b"z", b"{}"), M(b"c.json", b"[]")])


def _offset_into_directory() -> bytes:
    probe = two(M(b"a.json", b"{}"))
    return write([M(b"a.json", b"{}"), M(b"b.json", b"[]")], offsets=[0, probe.index(b"PK\x01\x02") - 2])


def _local_sizes_lie() -> bytes:
    data = bytearray(two(M(b"a.json", BODY)))
    struct.pack_into("<III", data, 14, 0xDEADBEEF, 1, 999_999)  # local CRC, compressed size, size
    return bytes(data)


def _local_extra_runs_into_next() -> bytes:
    data = bytearray(two(M(b"a.json", BODY)))
    struct.pack_into("<H", data, 28, 40)  # local extra length: data start moved into the next header
    return bytes(data)


def _deflate_without_final_block() -> bytes:
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return two(M(b"a.json", BODY, packed=c.compress(BODY) + c.flush(zlib.Z_SYNC_FLUSH)))


def _fake_end_record_in_comment() -> bytes:
    fake = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, 46 + 6, 0, 0)
    return two(M(b"a.json", b"{}"), comment=fake)


def _zip64_locator_before_end() -> bytes:
    data = two(M(b"a.json", b"{}"))
    end = data.rindex(b"PK\x05\x06")
    locator = b"PK\x06\x07" + struct.pack("<IQI", 0, 0, 1)
    # the locator squeezed in: the central directory offset still adds up for zipfile's view (concat)
    return data[:end] + locator + data[end:]


def _prefix_starting_with_pk() -> bytes:
    return two(M(b"a.json", b"{}"), prefix=b"PK prefix bytes before the first local header")


# What each attack gives: ("refused", words in the message) when opened; ("unreadable", member, words) when
# that member is read (the others read as zipfile reads them); ("reads",) every member as zipfile reads it.
Outcome = tuple[str, ...]
CRC = "checksum (CRC) does not match"
DAMAGED = "(damaged or forged)"

ATTACKS: dict[str, tuple[bytes, Outcome]] = {
    "plain-control": (two(M(b"a.json", BODY)), ("reads",)),
    "sig-in-name-total-forged": (_sig_in_name(), ("refused", "says it has 3 entries but its central directory holds 2")),
    "sig-in-name": (_sig_in_name_plain_total(), ("refused", "has a control character (U+0001) in its name")),
    "sig-in-extra-and-comment": (two(M(b"a.json", BODY, extra=struct.pack("<HH", 0x5455, 8) + b"PK\x01\x02PK\x01\x02",
                                       comment=b"PK\x01\x02" + b"\x00" * 42)), ("reads",)),
    "nul-in-name": (two(M(b"a\x00.json", b"{}")), ("refused", "'a\\x00.json' has a NUL character in its name")),
    "nul-hides-suffix": (write([M(b"b.json\x00.evil", b"{}"), M(b"c.json", b"[]")]), ("refused", "NUL character")),
    "newline-in-name": (two(M(b"a\nb.json", b"{}")), ("refused", "control character (U+000A)")),
    "empty-name": (two(M(b"", b"{}")), ("refused", "has an empty name")),
    "slash-only": (two(M(b"/", b"", method=0)), ("refused", "'/' is an absolute path")),
    "absolute": (two(M(b"/etc/x", b"{}")), ("refused", "'/etc/x' is an absolute path")),
    "dotdot": (two(M(b"tasks/../../x.json", b"{}")), ("refused", "contains '..'")),
    "dot-part": (two(M(b"./a.json", b"{}")), ("refused", "empty or '.' path part")),
    "backslash": (two(M(b"a\\..\\b.json", b"{}")), ("refused", "has a backslash")),
    "drive": (two(M(b"C:x.json", b"{}")), ("refused", "starts with a drive letter")),
    "drive-slash": (two(M(b"c:/x.json", b"{}")), ("refused", "starts with a drive letter")),
    "colon-later-ok": (two(M(b"tasks/T1:x.json", b"{}")), ("reads",)),
    "trailing-dot-and-space": (write([M(b"a.", b"1"), M(b"a ", b"2"), M(b"a", b"3")]), ("reads",)),
    "case-clash": (write([M(b"Task.json", b"{}"), M(b"task.json", b"[]")]), ("refused", "'task.json' clashes with 'Task.json'")),
    "dir-vs-file-case-clash": (write([M(b"A/", b"", method=0), M(b"a", b"[]")]), ("refused", "'a' clashes with 'A/'")),
    "dir-double-slash-vs-file": (write([M(b"a//", b"", method=0), M(b"a", b"[]")]), ("refused", "clashes with 'a//'")),
    "duplicate": (write([M(b"a.json", b"{}"), M(b"a.json", b"[]")]), ("refused", "'a.json' appears more than once")),
    "cp437-high-byte": (two(M(b"caf\x82.json", b"{}")), ("reads",)),
    "utf8-invalid-bytes": (two(M(b"\xff.json", b"{}", flags=0x800)), ("refused", "not valid UTF-8")),
    "sharp-s-vs-SS": (write([M(b"STRASSE", b"{}"), M("stra\u00dfe".encode(), b"[]", flags=0x800)]), ("refused", "clashes with 'STRASSE'")),
    "kelvin-sign-vs-K": (write([M("\u212a.json".encode(), b"{}", flags=0x800), M(b"k.json", b"[]")]), ("refused", "clashes with")),
    "turkish-dotless-i": (write([M("\u0131.json".encode(), b"{}", flags=0x800), M(b"I.json", b"[]")]), ("reads",)),
    "nfd-vs-nfc": (write([M("e\u0301.json".encode(), b"{}", flags=0x800), M("\u00e9.json".encode(), b"[]", flags=0x800)]),
                   ("refused", "same name ignoring case/Unicode form")),
    "utf8-flag-on-ascii-central-only": (two(M(b"a.json", b"{}", flags=0x800, local_flags=0)), ("reads",)),
    "utf8-flag-local-only": (two(M(b"a.json", b"{}", local_flags=0x800)), ("reads",)),
    "encrypt-flag-local-only": (two(M(b"a.json", b"{}", local_flags=0x1)), ("reads",)),
    "local-name-differs": (two(M(b"a.json", b"{}", local_name=b"b.json")), ("unreadable", "a.json", "differ")),
    "local-name-longer-nonempty": (two(M(b"a.json", BODY, local_name_len=8)),
                                   ("unreadable", "a.json", "runs into the next member")),
    "local-name-shorter": (two(M(b"a.json", BODY, local_name_len=5)), ("unreadable", "a.json", "differ")),
    "local-sizes-and-crc-lie": (_local_sizes_lie(), ("reads",)),  # the central directory's sizes and CRC count
    "local-extra-huge": (two(M(b"a.json", BODY, local_extra=struct.pack("<HH", 0x5455, 300) + b"\x01" * 300)), ("reads",)),
    "local-extra-runs-into-next": (_local_extra_runs_into_next(), ("unreadable", "a.json", "runs into the next member")),
    "two-entries-one-header": (write([M(b"a.json", BODY), M(b"b.json", b"[]")], order=[0, 1, 0]),
                               ("refused", "appears more than once")),
    "two-names-one-header": (write([M(b"a.json", BODY), M(b"b.json", b"[]")], offsets=[0, 0]),
                             ("refused", "'b.json' shares its local header with 'a.json'")),
    "central-order-reversed": (write([M(b"a.json", BODY), M(b"b.json", b"[]")], order=[1, 0]), ("reads",)),
    "offset-into-central-directory": (_offset_into_directory(), ("refused", "local header outside the zip's data")),
    "offset-ffffffff": (write([M(b"a.json", b"{}"), M(b"b.json", b"[]")], offsets=[0, 0xFFFFFFFF]),
                        ("refused", "local header outside the zip's data")),
    "csize-ffffffff": (two(M(b"a.json", b"{}", csize=0xFFFFFFFF)), ("refused", "claims more compressed data")),
    "size-ffffffff": (two(M(b"a.json", b"{}", file_size=0xFFFFFFFF)), ("refused", "larger than 50 MB uncompressed")),
    "zip64-extra-in-plain-zip": (two(M(b"a.json", b"{}", extra=struct.pack("<HHQ", 1, 8, 2))), ("reads",)),
    "zip64-locator-before-end": (_zip64_locator_before_end(), ("refused", "not a readable zip file")),
    "entry-count-ffff": (write([M(b"a.json", b"{}"), M(b"b.json", b"[]")], total=0xFFFF),
                         ("refused", "says it has 65535 entries but its central directory holds 2")),
    "extra-length-lies": (two(M(b"a.json", b"{}", extra=struct.pack("<HH", 0x5455, 40) + b"\x01")),
                          ("refused", "Corrupt extra field")),
    "extra-short-tail": (two(M(b"a.json", b"{}", extra=b"\x00\x00")), ("reads",)),
    "size-0-with-data": (two(M(b"a.json", BODY, file_size=0)), ("unreadable", "a.json", CRC)),
    "stored-sizes-differ": (two(M(b"a.json", b"{}", method=0, file_size=1)), ("refused", "sizes differ")),
    "stored-csize-short": (two(M(b"a.json", b"{}", method=0, csize=1)), ("refused", "sizes differ")),
    "crc-mismatch": (two(M(b"a.json", BODY, crc=1)), ("unreadable", "a.json", CRC)),
    "crc-mismatch-empty": (two(M(b"a.json", b"", method=0, crc=1)), ("unreadable", "a.json", CRC)),
    "deflate-trailing-garbage": (two(M(b"a.json", BODY, packed=deflate(BODY) + b"GARBAGE")), ("reads",)),
    "deflate-two-streams": (two(M(b"a.json", BODY, packed=deflate(BODY) + deflate(b"SECOND"))), ("reads",)),
    "deflate-without-final-block": (_deflate_without_final_block(), ("reads",)),
    "deflate-cut-short": (two(M(b"a.json", BODY, packed=deflate(BODY)[:-40])), ("unreadable", "a.json", CRC)),
    "deflate-corrupt": (two(M(b"a.json", BODY, packed=b"\xff" * 40)), ("unreadable", "a.json", "invalid block type")),
    "deflate-more-than-declared": (two(M(b"a.json", BODY, file_size=len(BODY) - 1)), ("unreadable", "a.json", CRC)),
    "deflate-less-than-declared": (two(M(b"a.json", BODY, file_size=len(BODY) + 1)),
                                   ("unreadable", "a.json", "shorter than its header says")),
    "deflate-empty-csize-0": (two(M(b"a.json", b"", packed=b"")), ("reads",)),
    "end-comment-with-fake-end-record": (_fake_end_record_in_comment(), ("refused", "not a readable zip file")),
    "entry-count-low": (write([M(b"a.json", b"{}"), M(b"b.json", b"[]")], total=1),
                        ("refused", "says it has 1 entry but its central directory holds 2")),
    "entry-count-high": (write([M(b"a.json", b"{}"), M(b"b.json", b"[]")], total=3),
                         ("refused", "says it has 3 entries but its central directory holds 2")),
    "prefix-starting-with-PK": (_prefix_starting_with_pk(), ("reads",)),
    "gap-between-members": (two(M(b"a.json", BODY, gap=b"\x00" * 64)), ("reads",)),
    "symlink": (two(M(b"a.json", b"/etc/passwd", mode=0o120777)), ("refused", "'a.json' is a symbolic link")),
    "encrypted": (two(M(b"a.json", b"{}", flags=1)), ("refused", "'a.json' is encrypted")),
    "strong-encryption": (two(M(b"a.json", b"{}", flags=0x40)), ("refused", "'a.json' is encrypted")),
    "patch-data": (two(M(b"a.json", b"{}", flags=0x20)), ("refused", "compressed patch data")),
    "data-descriptor-flag": (two(M(b"a.json", b"{}", flags=0x8)), ("reads",)),
    "version-needed-64": (two(M(b"a.json", b"{}", version=64)), ("refused", "zip file version 6.4")),
    "method-lzma": (two(M(b"a.json", b"{}", method=14, packed=b"xx")), ("refused", "unsupported compression method (14)")),
    "folder-with-content": (two(M(b"d/", b"abc", method=0)), ("refused", "'d/' is a folder entry with content")),
    "ratio-bomb": (two(M(b"a.json", b"\x00" * 300_000)), ("refused", "expands more than 100 times (a zip bomb?)")),
    "ratio-bomb-size-lies": (two(M(b"a.json", b"\x00" * 300_000, file_size=1000)), ("unreadable", "a.json", CRC)),
}


def _stdlib_reads(data: bytes) -> dict[str, bytes]:
    """What the standard library reads from the zip: every file member's bytes."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {info.filename: zf.read(info) for info in zf.infolist() if not info.is_dir()}


def _reads(sz: SafeZip) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for name in sz.names():
        try:
            out[name] = sz.read(name)
        except DocumentError as exc:
            assert len(exc.problems) == 1 and exc.problems[0].file == sz.label
            out[name] = exc.problems[0].message
    return out


def check_outcome(sz_or_error: SafeZip | DocumentError, data: bytes, outcome: Outcome) -> None:
    if outcome[0] == "refused":
        assert isinstance(sz_or_error, DocumentError), "hostile zip opened"
        text = str(sz_or_error)
        assert outcome[1] in text, text
        assert all(p.file == "z.wmcdp" for p in sz_or_error.problems)
        return
    assert isinstance(sz_or_error, SafeZip), str(sz_or_error)
    reads = _reads(sz_or_error)
    assert all(name_problem(name) is None for name in reads)
    expected: dict[str, bytes | str] = dict(_stdlib_reads(data)) if outcome[0] == "reads" else {}
    if outcome[0] == "unreadable":
        member, words = outcome[1], outcome[2]
        message = reads.pop(member)
        assert isinstance(message, str) and message.startswith(f"member {member!r} ") and words in message, message
        with zipfile.ZipFile(io.BytesIO(data)) as zf:  # the others read as the standard library reads them
            expected = {n: zf.read(n) for n in reads}
    assert reads == expected


def _open(data: bytes, limits: Limits = DEFAULT_LIMITS) -> SafeZip | DocumentError:
    try:
        return open_zip_bytes(data, "z.wmcdp", limits)
    except DocumentError as exc:
        return exc


PARAMS = [pytest.param(data, outcome, id=name) for name, (data, outcome) in ATTACKS.items()]


@pytest.mark.parametrize(("data", "outcome"), PARAMS)
def test_attack_is_refused_or_read_safely(data: bytes, outcome: Outcome) -> None:
    check_outcome(_open(data), data, outcome)


@pytest.mark.parametrize(("data", "outcome"), PARAMS)
def test_attack_from_a_file_is_checked_as_from_memory(data: bytes, outcome: Outcome, tmp_path: Path) -> None:
    path = tmp_path / "z.wmcdp"
    path.write_bytes(data)
    try:
        check_outcome(open_zip_file(path, "z.wmcdp"), data, outcome)
    except DocumentError as exc:  # a zip refused when opened
        check_outcome(exc, data, outcome)


@pytest.mark.parametrize("limits", [Limits(max_ratio=10**6),
                                    Limits(max_entries=2, max_member_bytes=3000, max_total_bytes=3500, max_ratio=3,
                                           ratio_floor_bytes=10)])
@pytest.mark.parametrize(("data", "outcome"), [p for p in PARAMS if str(p.id).startswith(("deflate", "ratio", "size",
                                                                                            "crc", "plain"))])
def test_attack_under_other_limits_never_gives_more_than_they_allow(data: bytes, outcome: Outcome,
                                                                    limits: Limits) -> None:
    opened = _open(data, limits)
    if isinstance(opened, DocumentError):
        return
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for name, body in _reads(opened).items():
            if isinstance(body, bytes):
                assert len(body) <= limits.max_member_bytes and body == zf.read(name)


def test_a_deflate_bomb_lying_about_its_size_is_cut_off_early_without_memory() -> None:
    # 40 MB of zeros declared as 1,000 bytes; the ratio limit lifted so only the read can stop it.
    bomb = b"\x00" * 40_000_000
    data = two(M(b"a.json", bomb, packed=deflate(bomb), file_size=1000))
    del bomb
    sz = open_zip_bytes(data, "z", Limits(max_ratio=10**9))
    tracemalloc.start()
    try:
        with pytest.raises(DocumentError, match=r"checksum \(CRC\) does not match"):
            sz.read("a.json")  # zipfile stops at the declared 1,000 bytes: their CRC is not the header's
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000


def test_a_deflate_stream_longer_than_declared_with_the_crc_of_its_start_reads_its_declared_bytes() -> None:
    # The declared size and the CRC of the first 1,000 bytes: read as zipfile reads it, and no further.
    long = os.urandom(600).hex().encode() * 4
    data = two(M(b"a.json", long, file_size=1000, crc=zlib.crc32(long[:1000])))
    assert open_zip_bytes(data, "z").read("a.json") == long[:1000] == _stdlib_reads(data)["a.json"]


def test_a_stored_member_declared_huge_is_refused_without_reading_it() -> None:
    data = two(M(b"a.json", b"{}", method=0, file_size=0xFFFFFF, csize=0xFFFFFF))
    tracemalloc.start()
    try:
        with pytest.raises(DocumentError, match="claims more compressed data than the zip file holds"):
            open_zip_bytes(data, "z")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000


def test_an_empty_member_whose_local_name_length_is_longer_than_its_name_is_refused_when_read() -> None:
    data = two(M(b"a.json", b"", method=0, local_name_len=10, gap=b"JUNK"))
    with pytest.raises(DocumentError, match=r"'a\.json' cannot be read"):
        open_zip_bytes(data, "z").read("a.json")


# ----- the Info-ZIP Unicode Path extra field (0x7075): zipfile names a member by it from Python 3.12 -------
def _unicode_path_extra(raw: bytes, unicode_name: bytes) -> bytes:
    body = struct.pack("<BL", 1, zlib.crc32(raw)) + unicode_name
    return struct.pack("<HH", 0x7075, len(body)) + body


UNICODE_PATH_ATTACKS = {
    "unicode-path-traversal": two(M(b"a.json", b"{}", extra=_unicode_path_extra(b"a.json", b"../../evil.json"))),
    "unicode-path-other-name": two(M(b"a.json", b"{}", extra=_unicode_path_extra(b"a.json", b"b.json"))),
    "unicode-path-bad-utf8": two(M(b"a.json", b"{}", extra=_unicode_path_extra(b"a.json", b"\xff\xfe"))),
    "unicode-path-short": two(M(b"a.json", b"{}", extra=struct.pack("<HH", 0x7075, 2) + b"\x01\x00")),
}


@pytest.mark.parametrize("attack", sorted(UNICODE_PATH_ATTACKS))
def test_a_second_name_in_a_unicode_path_field_is_refused_on_this_python(attack: str) -> None:
    with pytest.raises(DocumentError) as info:
        open_zip_bytes(UNICODE_PATH_ATTACKS[attack], "z.wmcdp")
    assert "'a.json'" in str(info.value) or "unicode path" in str(info.value).lower()


def test_a_unicode_path_field_giving_the_stored_name_is_harmless() -> None:
    data = two(M(b"a.json", b"{}", extra=_unicode_path_extra(b"a.json", b"a.json")))
    assert open_zip_bytes(data, "z").read_all() == {"a.json": b"{}", "b.json": b"[]"}


_PROBE = r"""
import json
import sys
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.zips.reader import open_zip_bytes
try:
    sz = open_zip_bytes(sys.stdin.buffer.read(), "z.wmcdp")
    print(json.dumps(["opened", sz.names()]))
except DocumentError as exc:
    print(json.dumps(["refused", [str(p) for p in exc.problems]]))
"""


@functools.cache
def _python_312() -> str | None:
    """An interpreter of Python 3.12 or later on this machine (zipfile there reads 0x7075)."""
    if sys.version_info >= (3, 12):
        return sys.executable
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python3")))
    found += [p for p in (shutil.which("python3.13"), shutil.which("python3.12")) if p]
    for exe in found:
        try:
            ok = subprocess.run([exe, "-c", "import sys; assert sys.version_info >= (3, 12)"], capture_output=True,
                                timeout=20).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            continue
        if ok:
            return exe
    return None


@pytest.mark.parametrize("attack", sorted(UNICODE_PATH_ATTACKS))
def test_a_second_name_in_a_unicode_path_field_is_refused_on_python_312(attack: str) -> None:
    exe = _python_312()
    if exe is None:
        pytest.skip("no Python 3.12+ interpreter on this machine")
    env = {**os.environ, "PYTHONPATH": str(MAIN), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([exe, "-c", _PROBE], input=UNICODE_PATH_ATTACKS[attack], capture_output=True, timeout=60,
                          env=env, check=True)
    verdict, detail = json.loads(done.stdout)
    assert verdict == "refused", detail
    assert all(p.startswith("z.wmcdp: ") for p in detail)


# ----- entry counts: exactly MAX_ENTRIES accepted, one more refused; under-declared counts walked -----------
def _many_entries(n: int, declared: int | None = None) -> bytes:
    """``n`` empty stored members, each with its own local header; the end records (zip64 beyond 65,534
    entries) declare ``declared`` (default ``n``)."""
    declared = n if declared is None else declared
    local, cd = bytearray(), bytearray()
    for i in range(n):
        name = b"n%07d" % i
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0, 0, 0, 0,
                          0o100644 << 16, len(local)) + name
        local += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0) + name
    start = len(local)
    out = local + cd
    if declared >= 0xFFFF:
        out += struct.pack("<4sQ2H2I4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, declared, declared, len(cd), start)
        out += struct.pack("<4sIQI", b"PK\x06\x07", 0, start + len(cd), 1)
        return bytes(out + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0))
    return bytes(out + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, declared, declared, len(cd), start, 0))


def test_exactly_100000_entries_are_accepted_and_100001_refused(tmp_path: Path) -> None:
    assert Limits().max_entries == 100_000
    path = tmp_path / "many.zip"
    path.write_bytes(_many_entries(100_000))
    sz = open_zip_file(path)
    assert len(sz.names()) == 100_000 and sz.read("n0099999") == b""
    path.write_bytes(_many_entries(100_001))
    with pytest.raises(DocumentError, match="has 100001 entries; at most 100000 are allowed"):
        open_zip_file(path)


def test_an_under_declared_entry_count_is_walked_and_refused_before_zipfile_reads_the_entries() -> None:
    data = _many_entries(8_000, declared=1)
    tracemalloc.start()
    try:
        with pytest.raises(DocumentError, match="has more than 1000 entries; at most 1000 are allowed"):
            open_zip_bytes(data, "z.wmcdp", Limits(max_entries=1000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < len(data) + 1_000_000
    with pytest.raises(DocumentError, match="says it has 1 entry but its central directory holds 8000"):
        open_zip_bytes(data, "z.wmcdp")


def test_a_central_directory_larger_than_the_entries_allowed_can_need_is_refused_before_it_is_read() -> None:
    # 2 entries allowed: 2 KB of directory at most; one entry with a 3 KB extra field (a block zipfile skips).
    data = two(M(b"a.json", b"{}", extra=struct.pack("<HH", 0x9999, 3000) + b"\x00" * 3000))
    assert open_zip_bytes(data, "z").read_all() == {"a.json": b"{}", "b.json": b"[]"}  # fine at the default
    with pytest.raises(DocumentError, match=r"has a central directory of 3\d{3} bytes, more than 2 entries can need"):
        open_zip_bytes(data, "z", Limits(max_entries=2))


def test_the_limit_counts_folder_entries_and_is_exact_at_small_limits() -> None:
    data = write([M(b"d/", b"", method=0), M(b"d/a.json", b"{}"), M(b"b.json", b"[]")])
    assert open_zip_bytes(data, "z", Limits(max_entries=3)).names() == ["b.json", "d/a.json"]
    with pytest.raises(DocumentError, match="has 3 entries; at most 2 are allowed"):
        open_zip_bytes(data, "z", Limits(max_entries=2))
