"""Security review of the lean zip reader (``zipsafe._CentralIndex``): hostile zips built byte by byte.

Each attack is opened twice, through the lean reader and through zipfile + the old checks (the lean reader
switched off), and every member is read: both ways must give the same verdict, names, sizes, bytes and
messages. Where the lean reader is meant to take the zip (so the attack really reaches it) that is asserted
too. Attacks that show a defect are marked ``xfail(strict=True, reason="DEFECT: ...")``.
"""

from __future__ import annotations

import functools
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tracemalloc
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.core.zipkit import assert_same, outcome, took_lean
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.zips import reader as zipsafe
from wmcdp_desktop.core.zips.reader import Limits, name_problem, open_zip_bytes, open_zip_file

MAIN = Path(__file__).resolve().parents[2]


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


ATTACKS: list[tuple[str, bytes, bool | None]] = [
    # (id, zip, the lean reader takes it: True / False / None = not asserted)
    ("plain-control", two(M(b"a.json", BODY)), True),
    ("sig-in-name-total-forged", _sig_in_name(), False),
    ("sig-in-name", _sig_in_name_plain_total(), False),
    ("sig-in-extra-and-comment", two(M(b"a.json", BODY, extra=struct.pack("<HH", 0x5455, 8) + b"PK\x01\x02PK\x01\x02",
                                         comment=b"PK\x01\x02" + b"\x00" * 42)), True),
    ("nul-in-name", two(M(b"a\x00.json", b"{}")), False),
    ("nul-hides-suffix", write([M(b"b.json\x00.evil", b"{}"), M(b"c.json", b"[]")]), False),
    ("newline-in-name", two(M(b"a\nb.json", b"{}")), False),
    ("empty-name", two(M(b"", b"{}")), False),
    ("slash-only", two(M(b"/", b"", method=0)), False),
    ("absolute", two(M(b"/etc/x", b"{}")), False),
    ("dotdot", two(M(b"tasks/../../x.json", b"{}")), False),
    ("dot-part", two(M(b"./a.json", b"{}")), False),
    ("backslash", two(M(b"a\\..\\b.json", b"{}")), False),
    ("drive", two(M(b"C:x.json", b"{}")), False),
    ("drive-slash", two(M(b"c:/x.json", b"{}")), False),
    ("colon-later-ok", two(M(b"tasks/T1:x.json", b"{}")), True),
    ("trailing-dot-and-space", write([M(b"a.", b"1"), M(b"a ", b"2"), M(b"a", b"3")]), True),
    ("case-clash", write([M(b"Task.json", b"{}"), M(b"task.json", b"[]")]), False),
    ("dir-vs-file-case-clash", write([M(b"A/", b"", method=0), M(b"a", b"[]")]), False),
    ("dir-double-slash-vs-file", write([M(b"a//", b"", method=0), M(b"a", b"[]")]), False),
    ("duplicate", write([M(b"a.json", b"{}"), M(b"a.json", b"[]")]), False),
    ("cp437-high-byte", two(M(b"caf\x82.json", b"{}")), False),
    ("utf8-invalid-bytes", two(M(b"\xff.json", b"{}", flags=0x800)), False),
    ("sharp-s-vs-SS", write([M(b"STRASSE", b"{}"), M("stra\u00dfe".encode(), b"[]", flags=0x800)]), False),
    ("kelvin-sign-vs-K", write([M("\u212a.json".encode(), b"{}", flags=0x800), M(b"k.json", b"[]")]), False),
    ("turkish-dotless-i", write([M("\u0131.json".encode(), b"{}", flags=0x800), M(b"I.json", b"[]")]), False),
    ("nfd-vs-nfc", write([M("e\u0301.json".encode(), b"{}", flags=0x800), M("\u00e9.json".encode(), b"[]", flags=0x800)]), False),
    ("utf8-flag-on-ascii-central-only", two(M(b"a.json", b"{}", flags=0x800, local_flags=0)), True),
    ("utf8-flag-local-only", two(M(b"a.json", b"{}", local_flags=0x800)), True),
    ("encrypt-flag-local-only", two(M(b"a.json", b"{}", local_flags=0x1)), True),
    ("local-name-differs", two(M(b"a.json", b"{}", local_name=b"b.json")), True),
    ("local-name-longer-nonempty", two(M(b"a.json", BODY, local_name_len=8)), True),
    ("local-name-shorter", two(M(b"a.json", BODY, local_name_len=5)), True),
    ("local-sizes-and-crc-lie", _local_sizes_lie(), True),
    ("local-extra-huge", two(M(b"a.json", BODY, local_extra=struct.pack("<HH", 0x5455, 300) + b"\x01" * 300)), True),
    ("local-extra-runs-into-next", _local_extra_runs_into_next(), True),
    ("two-entries-one-header", write([M(b"a.json", BODY), M(b"b.json", b"[]")], order=[0, 1, 0]), False),
    ("central-order-reversed", write([M(b"a.json", BODY), M(b"b.json", b"[]")], order=[1, 0]), False),
    ("offset-into-central-directory", _offset_into_directory(), False),
    ("offset-ffffffff", write([M(b"a.json", b"{}"), M(b"b.json", b"[]")], offsets=[0, 0xFFFFFFFF]), False),
    ("csize-ffffffff", two(M(b"a.json", b"{}", csize=0xFFFFFFFF)), False),
    ("size-ffffffff", two(M(b"a.json", b"{}", file_size=0xFFFFFFFF)), False),
    ("zip64-extra-in-plain-zip", two(M(b"a.json", b"{}", extra=struct.pack("<HHQ", 1, 8, 2))), False),
    ("zip64-locator-before-end", _zip64_locator_before_end(), False),
    ("entry-count-ffff", write([M(b"a.json", b"{}"), M(b"b.json", b"[]")], total=0xFFFF), False),
    ("extra-length-lies", two(M(b"a.json", b"{}", extra=struct.pack("<HH", 0x5455, 40) + b"\x01")), False),
    ("extra-short-tail", two(M(b"a.json", b"{}", extra=b"\x00\x00")), True),
    ("size-0-with-data", two(M(b"a.json", BODY, file_size=0)), True),
    ("stored-sizes-differ", two(M(b"a.json", b"{}", method=0, file_size=1)), False),
    ("stored-csize-short", two(M(b"a.json", b"{}", method=0, csize=1)), False),
    ("crc-mismatch", two(M(b"a.json", BODY, crc=1)), True),
    ("crc-mismatch-empty", two(M(b"a.json", b"", method=0, crc=1)), True),
    ("deflate-trailing-garbage", two(M(b"a.json", BODY, packed=deflate(BODY) + b"GARBAGE")), True),
    ("deflate-two-streams", two(M(b"a.json", BODY, packed=deflate(BODY) + deflate(b"SECOND"))), True),
    ("deflate-without-final-block", _deflate_without_final_block(), True),
    ("deflate-cut-short", two(M(b"a.json", BODY, packed=deflate(BODY)[:-40])), True),
    ("deflate-corrupt", two(M(b"a.json", BODY, packed=b"\xff" * 40)), True),
    ("deflate-more-than-declared", two(M(b"a.json", BODY, file_size=len(BODY) - 1)), True),
    ("deflate-less-than-declared", two(M(b"a.json", BODY, file_size=len(BODY) + 1)), True),
    ("deflate-empty-csize-0", two(M(b"a.json", b"", packed=b"")), True),
    ("end-comment-with-fake-end-record", _fake_end_record_in_comment(), False),
    ("entry-count-low", write([M(b"a.json", b"{}"), M(b"b.json", b"[]")], total=1), False),
    ("entry-count-high", write([M(b"a.json", b"{}"), M(b"b.json", b"[]")], total=3), False),
    ("prefix-starting-with-PK", _prefix_starting_with_pk(), False),
    ("gap-between-members", two(M(b"a.json", BODY, gap=b"\x00" * 64)), True),
    ("symlink", two(M(b"a.json", b"/etc/passwd", mode=0o120777)), False),
    ("encrypted", two(M(b"a.json", b"{}", flags=1)), False),
    ("data-descriptor-flag", two(M(b"a.json", b"{}", flags=0x8)), False),
    ("version-needed-64", two(M(b"a.json", b"{}", version=64)), False),
    ("method-lzma", two(M(b"a.json", b"{}", method=14, packed=b"xx")), False),
    ("folder-with-content", two(M(b"d/", b"abc", method=0)), False),
    ("ratio-bomb", two(M(b"a.json", b"\x00" * 300_000)), False),
    ("ratio-bomb-size-lies", two(M(b"a.json", b"\x00" * 300_000, file_size=1000)), True),
]


@pytest.mark.parametrize(("data", "lean"), [pytest.param(d, lean, id=name) for name, d, lean in ATTACKS])
def test_attack_gives_the_same_outcome_both_ways(data: bytes, lean: bool | None) -> None:
    assert_same(data)
    if lean is not None:
        assert took_lean(data) is lean


@pytest.mark.parametrize(("data", "lean"), [pytest.param(d, lean, id=name) for name, d, lean in ATTACKS[:12]])
def test_attack_from_a_file_the_same_as_from_bytes(data: bytes, lean: bool | None, tmp_path: Path) -> None:
    path = tmp_path / "z.wmcdp"
    path.write_bytes(data)
    try:
        sz = open_zip_file(path, "z.wmcdp")
        from_file: object = ("opened", sz.names(), {n: _read_or_message(sz, n) for n in sz.names()})
    except DocumentError as exc:
        from_file = ("rejected", [str(p) for p in exc.problems])
    new = outcome(data, lean=True)
    if new[0] == "opened":  # type: ignore[index]
        assert from_file == ("opened", new[1], new[5])  # type: ignore[index]
    else:
        assert from_file == new


def _read_or_message(sz: zipsafe.SafeZip, name: str) -> object:
    try:
        return sz.read(name)
    except DocumentError as exc:
        return [str(p) for p in exc.problems]


@pytest.mark.parametrize("limits", [Limits(), Limits(max_ratio=10**6),
                                    Limits(max_entries=2, max_member_bytes=3000, max_total_bytes=3500, max_ratio=3,
                                           ratio_floor_bytes=10)])
@pytest.mark.parametrize(("data", "lean"), [pytest.param(d, lean, id=name) for name, d, lean in ATTACKS
                                            if name.startswith(("deflate", "ratio", "size", "crc", "plain"))])
def test_attack_same_outcome_under_other_limits(data: bytes, lean: bool | None, limits: Limits) -> None:
    assert_same(data, limits)


def test_names_handed_out_by_the_lean_reader_all_pass_the_name_check() -> None:
    for name, data, lean in ATTACKS:
        if lean:
            sz = open_zip_bytes(data, "z")
            assert all(name_problem(n) is None for n in sz.names()), name


def test_a_deflate_bomb_lying_about_its_size_is_cut_off_early_without_memory() -> None:
    # 40 MB of zeros declared as 1,000 bytes; the ratio limit lifted so only the read can stop it.
    bomb = b"\x00" * 40_000_000
    data = two(M(b"a.json", bomb, packed=deflate(bomb), file_size=1000))
    limits = Limits(max_ratio=10**9)
    sz = open_zip_bytes(data, "z", limits)
    assert sz._central is not None
    del bomb
    tracemalloc.start()
    try:
        with pytest.raises(DocumentError, match=r"checksum \(CRC\) does not match"):
            sz.read("a.json")  # zipfile stops at the declared 1,000 bytes: their CRC is not the header's
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000
    assert_same(data, limits)


def test_a_deflate_stream_longer_than_declared_with_the_crc_of_its_start_reads_the_same_both_ways() -> None:
    # zipfile stops at the declared size and checks the CRC of what it read; the lean reader sees one byte
    # too many and hands the member to zipfile: both give the first 1,000 bytes.
    long = os.urandom(600).hex().encode() * 4
    data = two(M(b"a.json", long, file_size=1000, crc=zlib.crc32(long[:1000])))
    assert took_lean(data)
    assert assert_same(data)[5]["a.json"] == long[:1000]  # type: ignore[index]


def test_a_stored_member_declared_huge_is_not_read_into_memory() -> None:
    data = two(M(b"a.json", b"{}", method=0, file_size=0xFFFFFF, csize=0xFFFFFF))
    assert not took_lean(data)
    assert outcome(data, lean=True)[0] == "rejected"  # type: ignore[index]
    assert_same(data)


# ----- defects found by the review (fixed) ---------------------------------------------------------------
def test_empty_member_whose_local_name_length_is_longer_than_its_name() -> None:
    data = two(M(b"a.json", b"", method=0, local_name_len=10, gap=b"JUNK"))
    assert took_lean(data)
    old = outcome(data, lean=False)
    assert old[0] == "opened" and isinstance(old[5]["a.json"], list)  # type: ignore[index]
    assert_same(data)


def test_a_nonempty_member_whose_local_name_length_is_longer_is_refused_both_ways() -> None:
    data = two(M(b"a.json", b"{}", method=0, local_name_len=10, gap=b"JUNK"))
    new = assert_same(data)
    assert isinstance(new[5]["a.json"], list)  # type: ignore[index]


# ----- Python 3.12+: zipfile reads the Info-ZIP Unicode Path extra field (0x7075) --------------------------
def _unicode_path_extra(raw: bytes, unicode_name: bytes) -> bytes:
    body = struct.pack("<BL", 1, zlib.crc32(raw)) + unicode_name
    return struct.pack("<HH", 0x7075, len(body)) + body


UNICODE_PATH_ATTACKS = {
    "unicode-path-traversal": two(M(b"a.json", b"{}", extra=_unicode_path_extra(b"a.json", b"../../evil.json"))),
    "unicode-path-bad-utf8": two(M(b"a.json", b"{}", extra=_unicode_path_extra(b"a.json", b"\xff\xfe"))),
    "unicode-path-short": two(M(b"a.json", b"{}", extra=struct.pack("<HH", 0x7075, 2) + b"\x01\x00")),
}

_PROBE = r"""
import json
import sys
from wmcdp_desktop.core.zips import reader as zipsafe
from wmcdp_desktop.core.errors import DocumentError
data = sys.stdin.buffer.read()
def outcome(lean):
    saved = zipsafe._CentralIndex.build
    if not lean:
        zipsafe._CentralIndex.build = classmethod(lambda cls, fp, size, limits: None)
    try:
        try:
            sz = zipsafe.open_zip_bytes(data, "z.wmcdp")
        except DocumentError as exc:
            return ("rejected", [str(p) for p in exc.problems])
        return ("opened", sz.names(), [zipsafe.name_problem(n) for n in sz.names()])
    finally:
        zipsafe._CentralIndex.build = saved
print(json.dumps([outcome(True), outcome(False)]))
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


def _both_ways_on_312(data: bytes) -> tuple[object, object]:
    exe = _python_312()
    if exe is None:
        pytest.skip("no Python 3.12+ interpreter on this machine")
    env = {**os.environ, "PYTHONPATH": str(MAIN), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([exe, "-c", _PROBE], input=data, capture_output=True, timeout=60, env=env, check=True)
    new, old = json.loads(done.stdout)
    return new, old


def test_unicode_path_extra_is_ignored_the_same_way_on_this_python() -> None:
    if sys.version_info >= (3, 12):
        pytest.skip("zipfile reads 0x7075 here: see the 3.12+ tests below")
    for name, data in UNICODE_PATH_ATTACKS.items():
        assert not took_lean(data), name  # the lean reader leaves a 0x7075 field to zipfile and the old checks
        new = assert_same(data)
        assert new[1] == ["a.json", "b.json"], name  # type: ignore[index]


@pytest.mark.parametrize("attack", sorted(UNICODE_PATH_ATTACKS))
def test_unicode_path_extra_same_outcome_on_python_312(attack: str) -> None:
    new, old = _both_ways_on_312(UNICODE_PATH_ATTACKS[attack])
    assert new == old


def test_zipfile_way_hands_out_only_checked_names_on_python_312() -> None:
    data = two(M(b"a.json", b"{}", extra=_unicode_path_extra(b"a.json", b"../../evil.json")), comment=b"not plain")
    new, old = _both_ways_on_312(data)
    for result in (new, old):
        # Refused: the name zipfile would hand out is not the stored name the checks saw.
        assert result[0] == "rejected", result  # type: ignore[index]
        assert any("second, different name" in p and "evil" in p for p in result[1]), result  # type: ignore[index]


# ----- entry-count bombs whose end record under-declares the entries --------------------------------------
def _many_entries(n: int, declared: int) -> bytes:
    """``n`` central-directory entries (unique names, all on one empty local header), ``declared`` in the end
    record."""
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, 0, 0, 0, 1, 0) + b"a"
    cd = bytearray()
    for i in range(n):
        name = b"n%07d" % i
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0, 0, 0, 0,
                          0o100644 << 16, 0) + name
    return local + bytes(cd) + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, declared, declared, len(cd), len(local), 0)


def test_an_entry_count_bomb_is_refused_both_ways() -> None:
    data = _many_entries(3000, 1)
    limits = Limits(max_entries=10)
    new = assert_same(data, limits)
    assert new == ("rejected", [
        "z.wmcdp: has a central directory of 162000 bytes, room for more than 10 entries; at most 10 are allowed"
    ])


def test_an_under_declared_entry_count_bomb_is_refused_before_parsing_every_entry() -> None:
    data = _many_entries(8_000, 1)
    limits = Limits(max_entries=10)
    tracemalloc.start()
    try:
        with pytest.raises(DocumentError, match="entries"):
            open_zip_bytes(data, "z.wmcdp", limits)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * len(data) + 1_000_000
