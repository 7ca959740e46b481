"""The lean central-directory reader of core/zips/reader.py (``_CentralIndex``) against the zipfile-based path.

Whatever the lean reader takes must come out exactly as through zipfile: the same names and sizes, the same
bytes, and for a member it does not read cleanly the same message (it hands that member to zipfile). A zip
it does not take goes through zipfile entirely. Hypothesis builds plain and unusual zips byte by byte, then
damages some of them; both paths must give the same outcome for every one.
"""

from __future__ import annotations

import io
import os
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.core.zipkit import assert_same, took_lean
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.zips import central_index as zip_index
from wmcdp_desktop.core.zips import rules as zip_rules
from wmcdp_desktop.core.zips.reader import Limits, deterministic_zip, open_zip_bytes, open_zip_file


# ----- a zip writer whose headers can say anything -------------------------------------------------------
@dataclass
class Member:
    name: bytes
    plain: bytes
    method: int = 8
    flags: int = 0
    extra: bytes = b""
    local_extra: bytes = b""
    comment: bytes = b""
    mode: int = 0o100644
    data_descriptor: bool = False
    crc: int | None = None
    file_size: int | None = None
    packed: bytes = field(default=b"", init=False)

    def pack(self) -> bytes:
        if self.method == 8:
            c = zlib.compressobj(6, zlib.DEFLATED, -15)
            self.packed = c.compress(self.plain) + c.flush()
        else:
            self.packed = self.plain
        return self.packed


def write_zip(members: list[Member], *, central_order: list[int] | None = None, prefix: bytes = b"",
              archive_comment: bytes = b"", version_needed: int = 20) -> bytes:
    out = bytearray(prefix)
    offsets = []
    for m in members:
        packed = m.pack()
        crc = zlib.crc32(m.plain) if m.crc is None else m.crc
        size = len(m.plain) if m.file_size is None else m.file_size
        flags = m.flags | (0x8 if m.data_descriptor else 0)
        offsets.append(len(out) - len(prefix))
        local_crc, local_c, local_u = (0, 0, 0) if m.data_descriptor else (crc, len(packed), size)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, version_needed, flags, m.method, 0, 0x21, local_crc, local_c,
                           local_u, len(m.name), len(m.local_extra))
        out += m.name + m.local_extra + packed
        if m.data_descriptor:
            out += struct.pack("<IIII", 0x08074B50, crc, len(packed), size)
    start = len(out) - len(prefix)
    central = bytearray()
    for i in central_order if central_order is not None else range(len(members)):
        m = members[i]
        crc = zlib.crc32(m.plain) if m.crc is None else m.crc
        size = len(m.plain) if m.file_size is None else m.file_size
        flags = m.flags | (0x8 if m.data_descriptor else 0)
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, (3 << 8) | 20, version_needed, flags, m.method, 0,
                               0x21, crc, len(m.packed), size, len(m.name), len(m.extra), len(m.comment), 0, 0,
                               m.mode << 16, offsets[i])
        central += m.name + m.extra + m.comment
    out += central
    count = len(central_order) if central_order is not None else len(members)
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, len(central), start, len(archive_comment))
    return bytes(out + archive_comment)


NAMES = ["bundle.json", "rubric.json", "tasks/a.json", "tasks/B.json", "tasks/b.json", "tasks/", "x:y.json",
         "tasks/caf\u00e9.json", "../up.json", "a\\b.json", "d/e/f.txt", ".hidden", "tasks/t-1.json"]
EXTRAS = [b"", struct.pack("<HH", 0x5455, 5) + b"\x01\x00\x00\x00\x00",  # Info-ZIP time (common)
          struct.pack("<HH", 0x7875, 11) + b"\x01\x04\xe8\x03\x00\x00\x04\xe8\x03\x00\x00",  # Unix uid/gid
          struct.pack("<HH", 0x0001, 8) + struct.pack("<Q", 5),  # zip64
          struct.pack("<HH", 0x5455, 40) + b"\x01",  # corrupt: says 40 bytes, has 1
          b"\x00\x00"]  # a stray short tail (zipfile ignores it)


GOOD_NAMES = ["bundle.json", "rubric.json", "tasks/a.json", "tasks/T0001:x.json", "tasks/", "d/e/f.txt", ".hidden",
              "tasks/t-1.json", "tasks/A.json"]
BODIES = st.one_of(
    st.binary(max_size=300),
    st.binary(min_size=1, max_size=800).map(lambda b: b.hex().encode()),
    st.integers(0, 3000).map(lambda n: b"ab" * n),
)


@st.composite
def members(draw: st.DrawFn, plain: bool) -> list[Member]:
    if plain:  # what the lean reader should take (some with lying sizes or CRCs)
        names = draw(st.lists(st.sampled_from(GOOD_NAMES), min_size=1, max_size=6, unique=True))
    else:
        names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=6))
    out = []
    for name in names:
        body = draw(BODIES)
        m = Member(name.encode("utf-8"), b"" if name.endswith("/") else body, method=draw(st.sampled_from([0, 8])))
        if not name.isascii() or draw(st.booleans()):
            m.flags |= 0x800 if not name.isascii() or draw(st.integers(0, 3)) == 0 else 0
        if plain:
            m.flags |= draw(st.sampled_from([0, 0, 0x2, 0x4]))
            m.extra = draw(st.sampled_from(EXTRAS[:3]))
            m.mode = 0o40755 if name.endswith("/") else 0o100644
        else:
            m.flags |= draw(st.sampled_from([0, 0, 0, 0x2, 0x4, 0x1, 0x20, 0x40, 0x10]))
            m.extra = draw(st.sampled_from(EXTRAS))
            m.mode = draw(st.sampled_from([0o100644, 0o100644, 0o40755, 0o120777]))
            m.data_descriptor = draw(st.integers(0, 9)) == 0
            m.comment = draw(st.sampled_from([b"", b"", b"hi"]))
        m.local_extra = draw(st.sampled_from([b"", EXTRAS[1]]))
        if draw(st.integers(0, 9)) == 0:
            m.crc = draw(st.integers(0, 2**32 - 1))
        if draw(st.integers(0, 9)) == 0:
            m.file_size = draw(st.integers(0, 20_000))
        out.append(m)
    return out


@st.composite
def zips(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["plain", "plain", "damaged", "damaged", "wild"]))
    ms = draw(members(plain=kind != "wild"))
    order = None
    prefix, comment, version = b"", b"", 20
    if kind == "wild":
        if draw(st.integers(0, 3)) == 0:
            order = draw(st.permutations(range(len(ms))))
        elif draw(st.integers(0, 5)) == 0:  # an entry listed twice / pointing at the same local header
            order = [*range(len(ms)), draw(st.integers(0, len(ms) - 1))]
        prefix = draw(st.sampled_from([b"", b"", b"#!/bin/sh\n", b"PK\x03\x04 prefix"]))
        comment = draw(st.sampled_from([b"", b"", b"comment"]))
        version = draw(st.sampled_from([20, 20, 45, 63, 64]))
    data = write_zip(ms, central_order=order, prefix=prefix, archive_comment=comment, version_needed=version)
    if kind != "plain":  # damage: byte edits anywhere, and in the central directory and end record
        edits = draw(st.lists(st.tuples(st.integers(0, len(data) - 1), st.integers(0, 255)), max_size=3))
        directory = len(data) - data.rfind(b"PK\x01\x02") + 46 * len(ms)
        tail = draw(st.lists(st.tuples(st.integers(1, min(len(data), directory)), st.integers(0, 255)), max_size=3))
        buf = bytearray(data)
        for pos, value in edits:
            buf[pos] = value
        for back, value in tail:
            buf[-back] = value
        data = bytes(buf)
        if draw(st.integers(0, 7)) == 0:
            data = data[: draw(st.integers(0, len(data)))]
    return data


LIMITS = st.sampled_from([
    Limits(),
    Limits(max_ratio=100_000),
    Limits(max_entries=3, max_member_bytes=4000, max_total_bytes=9000, max_ratio=20, ratio_floor_bytes=100),
])


@settings(max_examples=300, deadline=None)
@given(data=zips(), limits=LIMITS)
def test_lean_reader_and_zipfile_give_the_same_outcome(data: bytes, limits: Limits) -> None:
    assert_same(data, limits)


_PLAIN_BASE = deterministic_zip({"bundle.json": b'{"a": 1}', "rubric.json": os.urandom(700),
                                 "tasks/t1.json": b"x" * 3000, "tasks/t2.json": b"hello" * 50})


@settings(max_examples=300, deadline=None)
@given(edits=st.lists(st.tuples(st.integers(0, len(_PLAIN_BASE) - 1), st.integers(0, 255)), min_size=1, max_size=3),
       limits=LIMITS)
def test_damaged_plain_zips_same_outcome(edits: list[tuple[int, int]], limits: Limits) -> None:
    buf = bytearray(_PLAIN_BASE)
    for pos, value in edits:
        buf[pos] = value
    data = bytes(buf)
    assert_same(data, limits)


# ----- which zips the lean reader takes ------------------------------------------------------------------
def test_bundles_written_by_the_app_take_the_lean_reader() -> None:
    files = {"bundle.json": b"{}", "rubric.json": os.urandom(900).hex().encode(), **{f"tasks/T{i:04d}:x.json": os.urandom(i) for i in range(50)}}
    data = deterministic_zip(files)
    assert took_lean(data)
    sz = open_zip_bytes(data, "b.wmcdp")
    assert sz.read_all() == files
    assert sz.sizes() == {name: len(body) for name, body in files.items()}


def test_zips_of_other_tools_take_the_lean_reader_when_plain() -> None:
    # Info-ZIP's time and uid/gid extra fields, folder entries, UTF-8 flag on ASCII names, stored members.
    ms = [Member(b"tasks/", b"", method=0, mode=0o40755, extra=EXTRAS[1]),
          Member(b"tasks/a.json", b"{}" * 600, extra=EXTRAS[1] + EXTRAS[2], local_extra=EXTRAS[1]),
          Member(b"bundle.json", b"{}", method=0, flags=0x800)]
    data = write_zip(ms)
    assert took_lean(data)
    assert open_zip_bytes(data, "z.zip").read_all() == {"tasks/a.json": b"{}" * 600, "bundle.json": b"{}"}


@pytest.mark.parametrize(
    "unusual",
    [
        {"prefix": b"PK-but-a-prefix"},
        {"archive_comment": b"made by hand"},
        {"data_descriptor": True},
        {"extra": EXTRAS[3]},
        {"name": "tasks/caf\u00e9.json"},
        {"central_order": [1, 0]},
    ],
)
def test_unusual_zips_go_through_zipfile_and_still_open(unusual: dict[str, object]) -> None:
    first = Member(str(unusual.get("name", "a.json")).encode(), b"{}" * 700,
                   data_descriptor=bool(unusual.get("data_descriptor")), extra=bytes(unusual.get("extra", b"")))  # type: ignore[arg-type]
    if not first.name.isascii():
        first.flags |= 0x800
    data = write_zip([first, Member(b"b.json", b"[]")],
                     central_order=unusual.get("central_order"),  # type: ignore[arg-type]
                     prefix=bytes(unusual.get("prefix", b"")), archive_comment=bytes(unusual.get("archive_comment", b"")))  # type: ignore[arg-type]
    assert not took_lean(data)
    assert open_zip_bytes(data, "z.zip").read_all() == {first.name.decode(): b"{}" * 700, "b.json": b"[]"}


def test_a_member_that_does_not_read_cleanly_gets_zipfiles_message() -> None:
    data = deterministic_zip({"a.json": b"hello " * 400, "b.json": b"{}"})
    pos = data.index(b"PK\x01\x02")  # first central header: a.json; break its CRC
    broken = bytearray(data)
    struct.pack_into("<I", broken, pos + 16, 0xDEADBEEF)
    sz = open_zip_bytes(bytes(broken), "z.zip")
    assert sz._central is not None  # the directory is plain; the member's bytes are what is wrong
    with pytest.raises(DocumentError, match=r"member 'a.json' cannot be read: its checksum \(CRC\) does not match"):
        sz.read("a.json")
    assert sz.read("b.json") == b"{}"
    assert_same(bytes(broken), Limits())


def test_from_a_file_the_same_as_from_bytes(tmp_path: Path) -> None:
    files = {f"tasks/t{i}.json": os.urandom(i * 37) for i in range(40)}
    path = tmp_path / "b.wmcdp"
    path.write_bytes(deterministic_zip(files))
    sz = open_zip_file(path)
    assert sz._central is not None
    assert sz.read_all() == files
    # stdlib view of the same file agrees on every name and size
    with zipfile.ZipFile(path) as zf:
        assert sz.sizes() == {i.filename: i.file_size for i in zf.infolist()}


def test_a_central_directory_larger_than_the_first_read(tmp_path: Path) -> None:
    # More than 64 KB of central directory: read in a second piece.
    files = {f"tasks/{'x' * 60}{i:05d}.json": b"{}" for i in range(1200)}
    data = deterministic_zip(files)
    assert data.rindex(b"PK\x05\x06") - data.index(b"PK\x01\x02") > 64 * 1024
    assert took_lean(data)
    assert open_zip_bytes(data, "z").read_all() == files
    path = tmp_path / "big.zip"
    path.write_bytes(data)
    assert open_zip_file(path).read_all() == files


ONE = os.urandom(2500).hex().encode()


def test_io_bytes_and_zipfile_agree_on_a_zip_written_by_zipfile() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("one.json", ONE)
        zf.writestr("two/", b"")
        zf.writestr("two/three.json", b"3")
    assert took_lean(buf.getvalue())
    assert open_zip_bytes(buf.getvalue(), "z").read_all() == {"one.json": ONE, "two/three.json": b"3"}


def test_a_central_signature_inside_an_extra_field_or_comment_is_walked_header_by_header() -> None:
    # Splitting the directory at its signatures would cut inside these: the header-by-header walk reads them.
    sneaky = struct.pack("<HH", 0x5455, 9) + b"\x01PK\x01\x02PK\x01\x02"[:9]
    ms = [Member(b"a.json", b"{}" * 300, extra=sneaky), Member(b"b.json", b"[]", comment=b"PK\x01\x02 and more")]
    data = write_zip(ms)
    assert data.count(b"PK\x01\x02") > 2 + 1
    assert took_lean(data)
    assert open_zip_bytes(data, "z").read_all() == {"a.json": b"{}" * 300, "b.json": b"[]"}
    named = write_zip([Member(b"a\x01PK\x01\x02.json", b"{}"), Member(b"b.json", b"[]")])
    assert not took_lean(named)
    with pytest.raises(DocumentError, match="control character"):
        open_zip_bytes(named, "z")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("aZ9_-./\\: é\x00")), max_size=8), min_size=1, max_size=5))
def test_names_checked_joined_as_each_by_the_plain_name_pattern(names: list[str]) -> None:
    joined = "\n".join(names).encode("utf-8")
    assert zip_index._plain_names(joined) == all(zip_rules._PLAIN_NAME.fullmatch(n) is not None for n in names)


@pytest.mark.parametrize(
    ("names", "plain"),
    [
        (["tasks/", "tasks/a.json"], True),
        (["a"], True),
        ([""], False),
        (["a", ""], False),
        (["", "a"], False),
        (["a/", "/b"], False),
        (["a", ".b"], False),
        (["a/.b"], False),
        (["a//b"], False),
        (["a//"], False),
        (["-x/y_z.json"], True),
        (["x:y"], False),
    ],
)
def test_plain_names_examples(names: list[str], plain: bool) -> None:
    assert zip_index._plain_names("\n".join(names).encode()) is plain


@pytest.mark.parametrize("width", [2, 4])
def test_column_byte_swap_branch_gives_the_values_on_a_big_endian_machine(
    width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`_column` turns little-endian header fields into native integers; on a big-endian machine the array
    reads them swapped and `byteswap` puts them right. Simulated here: fields stored in this machine's
    opposite order, with `sys.byteorder` saying "big", must come out as the true values."""
    import sys as _sys

    values = [0, 1, 0x1234, 0xFFFF] if width == 2 else [0, 1, 0x12345678, 0xFFFFFFFF]
    at = 10
    swapped_order = "big" if _sys.byteorder == "little" else "little"
    heads = b"".join(
        bytes(at) + v.to_bytes(width, swapped_order) + bytes(zip_index._HEAD - at - width) for v in values
    )
    assert list(zip_index._column(heads, at, width)) != values  # read natively: swapped
    monkeypatch.setattr(zip_index.sys, "byteorder", swapped_order)
    assert list(zip_index._column(heads, at, width)) == values
