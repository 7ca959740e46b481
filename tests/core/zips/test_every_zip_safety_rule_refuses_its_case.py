"""Every zip safety rule of core/zips/reader.py, with crafted (and byte-edited, lying) zips."""

from __future__ import annotations

import io
import os
import stat
import struct
import warnings
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.zips.reader import open_zip_bytes, open_zip_file
from wmcdp_desktop.core.zips.rules import Limits, name_problem
from wmcdp_desktop.core.zips.writer import deterministic_zip

PAYLOAD = os.urandom(5000)


def make_zip(members: list[tuple[str | zipfile.ZipInfo, bytes]], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns on duplicate names; we want them in the file
        with zipfile.ZipFile(buf, "w", compression=compression) as zf:
            for name, data in members:
                zf.writestr(name, data)
    return buf.getvalue()


def central_offset(data: bytes, name: bytes) -> int:
    pos = 0
    while True:
        pos = data.index(b"PK\x01\x02", pos)
        (name_len,) = struct.unpack_from("<H", data, pos + 28)
        if data[pos + 46 : pos + 46 + name_len] == name:
            return pos
        pos += 4


def patch_central(data: bytes, name: bytes, *, method: int | None = None, flags: int | None = None,
                  compress_size: int | None = None, file_size: int | None = None) -> bytes:
    """Edit the central directory header of ``name`` (what zipfile trusts): make the header lie."""
    out = bytearray(data)
    pos = central_offset(data, name)
    if flags is not None:
        struct.pack_into("<H", out, pos + 8, flags)
    if method is not None:
        struct.pack_into("<H", out, pos + 10, method)
    if compress_size is not None:
        struct.pack_into("<I", out, pos + 20, compress_size)
    if file_size is not None:
        struct.pack_into("<I", out, pos + 24, file_size)
    return bytes(out)


def rejected(data: bytes, limits: Limits | None = None) -> str:
    with pytest.raises(DocumentError) as info:
        sz = open_zip_bytes(data, "x.zip", limits or Limits())
        sz.read_all()
    return str(info.value)


def test_valid_zip_reads_members_in_memory() -> None:
    data = make_zip([("bundle.json", b"{}"), ("tasks/a.json", PAYLOAD)])
    sz = open_zip_bytes(data, "ok.zip")
    assert sz.names() == ["bundle.json", "tasks/a.json"]
    assert sz.read("tasks/a.json") == PAYLOAD
    assert sz.size("bundle.json") == 2


def test_folder_entries_are_allowed_but_not_files() -> None:
    data = make_zip([("tasks/", b""), ("tasks/a.json", b"{}")])
    assert open_zip_bytes(data, "ok.zip").names() == ["tasks/a.json"]


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("/etc/passwd", "absolute"),
        ("../evil.json", ".."),
        ("tasks/../../evil.json", ".."),
        ("tasks\\a.json", "backslash"),
        ("C:/Windows/x.json", "drive letter"),
        ("c:x.json", "drive letter"),
        ("a\x01b.json", "control character"),
        ("a\x1fb.json", "control character"),
        ("tasks//a.json", "empty"),
        ("./a.json", "'.'"),
    ],
)
def test_bad_member_names_are_rejected_naming_the_member(name: str, words: str) -> None:
    message = rejected(make_zip([(name, b"{}")]))
    assert words in message
    assert repr(name) in message


def test_nul_in_member_name_is_rejected() -> None:
    # zipfile cuts names at NUL when reading, so the NUL is put into the raw headers by editing bytes.
    data = make_zip([("aXb.json", b"{}")]).replace(b"aXb.json", b"a\x00b.json")
    message = rejected(data)
    assert "NUL" in message
    assert "a\\x00b.json" in message


@pytest.mark.parametrize(
    "names",
    [
        ["tasks/a.json", "tasks/a.json"],
        ["tasks/Task.json", "tasks/task.json"],
        ["tasks/caf\u00e9.json", "tasks/cafe\u0301.json"],  # NFC vs NFD
        ["STRASSE.json", "stra\u00dfe.json"],  # casefold: ß -> ss
    ],
)
def test_duplicate_names_are_rejected(names: list[str]) -> None:
    message = rejected(make_zip([(n, b"{}") for n in names]))
    assert repr(names[1]) in message


def test_symlink_member_is_rejected() -> None:
    info = zipfile.ZipInfo("tasks/link.json")
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    message = rejected(make_zip([(info, b"/etc/passwd")]))
    assert "symbolic link" in message and "tasks/link.json" in message


def test_encrypted_member_is_rejected() -> None:
    data = patch_central(make_zip([("secret.json", b"{}")]), b"secret.json", flags=0x1)
    message = rejected(data)
    assert "encrypted" in message and "secret.json" in message


@pytest.mark.parametrize("method", [zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_other_compression_methods_are_rejected(method: int) -> None:
    message = rejected(make_zip([("a.json", b"{}" * 10)], compression=method))
    assert "compression" in message and "a.json" in message


def test_unknown_compression_number_is_rejected() -> None:
    data = patch_central(make_zip([("a.json", b"{}")]), b"a.json", method=99)
    assert "compression method (99)" in rejected(data)


def test_too_many_entries(monkeypatch: pytest.MonkeyPatch) -> None:
    data = make_zip([(f"f{i}.json", b"") for i in range(6)], compression=zipfile.ZIP_STORED)
    assert "6 entries" in rejected(data, Limits(max_entries=5))
    open_zip_bytes(data, "ok.zip", Limits(max_entries=6))


def test_more_than_100000_entries_is_rejected_with_default_limits() -> None:
    # Real-size case: 100,001 empty stored members (about 10 MB), built fast with raw headers.
    n = 100_001
    local = bytearray()
    central = bytearray()
    for i in range(n):
        name = f"{i}".encode()
        offset = len(local)
        local += struct.pack("<4s5H3I2H", b"PK\x03\x04", 20, 0, 0, 0, 33, 0, 0, 0, len(name), 0) + name
        central += struct.pack(
            "<4s6H3I5H2I", b"PK\x01\x02", 20, 20, 0, 0, 0, 33, 0, 0, 0, len(name), 0, 0, 0, 0, 0, offset
        ) + name
    # zip64 end records are needed for more than 65,535 entries.
    cd_offset = len(local)
    zip64_end = struct.pack("<4sQ2H2I4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, n, n, len(central), cd_offset)
    locator = struct.pack("<4sIQI", b"PK\x06\x07", 0, cd_offset + len(central), 1)
    end = struct.pack("<4s4H2IH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    data = bytes(local + central + zip64_end + locator + end)
    message = rejected(data)
    assert "100001 entries" in message


def test_member_over_50_mb_declared_is_rejected() -> None:
    data = make_zip([("big.json", b"x" * 2000)], compression=zipfile.ZIP_STORED)
    data = patch_central(data, b"big.json", file_size=60 * 1024 * 1024, compress_size=60 * 1024 * 1024)
    message = rejected(data)
    assert "50 MB" in message and "big.json" in message


def test_member_over_limit_small_limits() -> None:
    data = make_zip([("a.json", os.urandom(3000))], compression=zipfile.ZIP_STORED)
    assert "larger than" in rejected(data, Limits(max_member_bytes=2000))


def test_total_over_limit_is_rejected() -> None:
    data = make_zip([(f"f{i}.json", os.urandom(2000)) for i in range(3)], compression=zipfile.ZIP_STORED)
    message = rejected(data, Limits(max_total_bytes=5000))
    assert "in total" in message


def test_high_compression_ratio_is_rejected() -> None:
    data = make_zip([("bomb.json", b"\0" * 2_000_000)])
    message = rejected(data)
    assert "100 times" in message and "bomb.json" in message


def test_lying_uncompressed_size_is_caught_while_reading() -> None:
    # 2 MB of zeros deflate to ~2 KB. The header claims 20 KB uncompressed (ratio ~10: passes the
    # header check); the real data expands far beyond: reading stops and the member is named.
    data = make_zip([("bomb.json", b"\0" * 2_000_000)])
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo("bomb.json")
    data = patch_central(data, b"bomb.json", file_size=info.compress_size * 10)
    message = rejected(data)
    assert "bomb.json" in message


def test_lying_compressed_size_beyond_the_file_is_rejected() -> None:
    data = make_zip([("a.json", b"{}" * 100), ("b.json", b"{}")])
    data = patch_central(data, b"a.json", compress_size=10_000_000)
    message = rejected(data)
    assert "a.json" in message and "compressed data" in message


def test_ratio_is_counted_on_bytes_read_when_compressed_size_lies(monkeypatch: pytest.MonkeyPatch) -> None:
    # Even with the header checks passed, the bytes produced while reading are counted against the ratio.
    data = make_zip([("z.json", b"\0" * 300_000)])
    sz = open_zip_bytes(data, "x.zip", Limits(max_ratio=100_000))
    sz.limits = Limits(max_ratio=10)
    with pytest.raises(DocumentError, match="expands more than 10 times"):
        sz.read("z.json")


def test_crc_error_is_reported_naming_the_member() -> None:
    payload = b"ABCDEFGHIJ" * 10
    data = bytearray(make_zip([("a.json", payload)], compression=zipfile.ZIP_STORED))
    pos = data.index(payload)
    data[pos + 3] ^= 0xFF
    message = rejected(bytes(data))
    assert "a.json" in message and "CRC" in message


def test_stored_member_with_differing_sizes_is_rejected() -> None:
    data = make_zip([("a.json", b"x" * 100)], compression=zipfile.ZIP_STORED)
    data = patch_central(data, b"a.json", file_size=50)
    assert "a.json" in rejected(data)


@pytest.mark.parametrize(
    "data",
    [b"", b"hello world, not a zip", b"PK\x03\x04" + b"\0" * 40],
)
def test_not_a_zip(data: bytes) -> None:
    message = rejected(data)
    assert "zip" in message


def test_truncated_zip_is_rejected() -> None:
    data = make_zip([("a.json", os.urandom(5000)), ("b.json", b"{}")])
    assert "zip" in rejected(data[: len(data) // 2])
    assert "zip" in rejected(data[:-10])


def test_open_zip_file_errors(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="file not found"):
        open_zip_file(tmp_path / "missing.zip")
    with pytest.raises(DocumentError, match="folder"):
        open_zip_file(tmp_path)
    path = tmp_path / "ok.zip"
    path.write_bytes(make_zip([("a.json", b"{}")]))
    assert open_zip_file(path).read("a.json") == b"{}"


def test_all_name_problems_are_reported_at_once() -> None:
    message = rejected(make_zip([("/abs.json", b""), ("../up.json", b""), ("ok.json", b"")]))
    assert "/abs.json" in message and "../up.json" in message


def test_name_problem_accepts_normal_names() -> None:
    for name in ["bundle.json", "tasks/t-0001.json", "records/a:b.r1.json"]:
        assert name_problem(name) is None


def test_deterministic_zip_is_byte_identical_and_safe() -> None:
    files = {"b.json": b"2", "a.json": b"1", "tasks/c.json": PAYLOAD}
    one = deterministic_zip(files)
    assert one == deterministic_zip(dict(reversed(list(files.items()))))
    sz = open_zip_bytes(one, "d.zip")
    assert sz.read_all() == files
    assert [i.filename for i in zipfile.ZipFile(io.BytesIO(one)).infolist()] == sorted(files)
    with pytest.raises(ValueError):
        deterministic_zip({"../x": b""})


_FUZZ_BASE = make_zip([("bundle.json", b'{"a": 1}'), ("tasks/t1.json", os.urandom(300)), ("tasks/t2.json", b"x" * 900)])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(_FUZZ_BASE) - 1), st.integers(0, 255)), min_size=1, max_size=8),
       st.integers(0, len(_FUZZ_BASE)))
def test_damaged_zips_only_ever_raise_document_error(edits: list[tuple[int, int]], cut: int) -> None:
    data = bytearray(_FUZZ_BASE)
    for pos, value in edits:
        data[pos] = value
    blob = bytes(data[: max(cut, 1)] if cut < len(data) // 4 else data)
    try:
        sz = open_zip_bytes(blob, "fuzz.zip")
        for name in sz.names():
            assert len(sz.read(name)) <= 2000
    except DocumentError as exc:
        assert exc.problems and all(p.file == "fuzz.zip" for p in exc.problems)
