"""The hostile bundles of the suite: (case name, how to build it). Shared by the zip and UI tests."""

from __future__ import annotations

import functools
import stat
import struct
from collections.abc import Callable

from tests.kit.bundles import Entry, bundle_files, bundle_zip, deflate, deflated, raw_zip, stored

EVIL = "wmcdp-rel-evil.txt"
"""Every path-escape case tries to create a file of this name; the sentinel check looks for it."""


def _valid_entries() -> list[Entry]:
    return [deflated(name, data) for name, data in sorted(bundle_files(2).items())]


def _plus(*extra: Entry) -> bytes:
    return raw_zip([*_valid_entries(), *extra])


def _named(name: str) -> Callable[[], bytes]:
    return lambda: _plus(stored(name, b"owned\n"))


def _nul_name() -> bytes:
    entry = stored("tasks/t0000.json", b"owned\n")
    entry.name = b"tasks/evil\x00.json"
    return _plus(entry)


def _replace_member(name: str, entry: Entry) -> bytes:
    entries = [e for e in _valid_entries() if e.name != name.encode()]
    return raw_zip([*entries, entry])


@functools.cache
def _zeros_deflated(n: int) -> bytes:
    return deflate(b"\0" * n)


def _ratio_bomb() -> bytes:
    n = 5_000_000
    return _replace_member("tasks/t0000.json", Entry(b"tasks/t0000.json", _zeros_deflated(n), method=8, plain=b"\0" * n))


def _lying_size_bomb() -> bytes:
    # The header says 2,000 bytes (an innocent ratio); the data inflates to 60 MB.
    n = 60_000_000
    data = _zeros_deflated(n)
    return _replace_member("bundle.json", Entry(b"bundle.json", data, method=8, plain=b"", file_size=2000, crc=0))


def _total_bomb() -> bytes:
    # 27 members each declaring 40 MB from 400 KB (ratio exactly 100, allowed): 1.08 GB in total.
    chunk = b"\x01" * 400_000
    extra = [Entry(f"pad/{i:02d}.bin".encode(), chunk, method=8, plain=b"", crc=0, file_size=40_000_000) for i in range(27)]
    return _plus(*extra)


def _entry_count_declared() -> bytes:
    return raw_zip(_valid_entries(), zip64_entries=5_000_000)


@functools.cache
def _entry_count_real() -> bytes:
    return raw_zip([*_valid_entries(), *(stored(f"pad/{i}", b"") for i in range(100_001))])


def _overlapping_same_offset() -> bytes:
    # Two central-directory entries, one local header and its data.
    entries = _valid_entries()
    tasks = [i for i, e in enumerate(entries) if e.name.startswith(b"tasks/")]
    twin = Entry(b"tasks/t9999.json", entries[tasks[0]].data, method=8, plain=entries[tasks[0]].plain, reuse_offset_of=tasks[0])
    return raw_zip([*entries, twin])


def _overlapping_data() -> bytes:
    # Member 2's data claims to run on through the next member's header (the "better zip bomb" shape).
    a = stored("pad/a.bin", b"A" * 1000)
    b = stored("pad/b.bin", b"B" * 1000)
    data = raw_zip([*_valid_entries(), a, b])
    # declare a's compressed (= stored) size as 2000: it then overlaps b's local header and data
    return _declare_size(data, b"pad/a.bin", 2000)


def _declare_size(data: bytes, name: bytes, size: int) -> bytes:
    out = bytearray(data)
    pos = 0
    while True:
        pos = out.find(b"PK\x01\x02", pos)
        if pos < 0:
            break
        nlen = struct.unpack_from("<H", out, pos + 28)[0]
        if bytes(out[pos + 46 : pos + 46 + nlen]) == name:
            struct.pack_into("<II", out, pos + 20, size, size)
        pos += 4
    return bytes(out)


def _symlink() -> bytes:
    link = stored("tasks/t0000.json", b"/etc/passwd")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    return _replace_member("tasks/t0000.json", link)


def _duplicate_exact() -> bytes:
    return _plus(stored("bundle.json", b"{}"))


def _duplicate_case() -> bytes:
    return _plus(stored("tasks/T0000.json", b"{}"))


def _duplicate_nfc() -> bytes:
    return raw_zip([*_valid_entries(), stored("pad/caf\u00e9.txt", b"1"), stored("pad/cafe\u0301.txt", b"2")])


def _encrypted() -> bytes:
    e = deflated("tasks/t0000.json", bundle_files(2)["tasks/t0000.json"])
    e.flags = 0x1
    return _replace_member("tasks/t0000.json", e)


def _method(method: int) -> Callable[[], bytes]:
    def build() -> bytes:
        e = stored("tasks/t0000.json", bundle_files(2)["tasks/t0000.json"])
        e.method = method
        return _replace_member("tasks/t0000.json", e)

    return build


def _crc_broken(member: str) -> Callable[[], bytes]:
    def build() -> bytes:
        e = deflated(member, bundle_files(2)[member])
        e.crc = 0x12345678
        return _replace_member(member, e)

    return build


def _truncated(fraction: float) -> Callable[[], bytes]:
    return lambda: bundle_zip(2)[: int(len(bundle_zip(2)) * fraction)]


def _no_end_record() -> bytes:
    return bundle_zip(2)[:-22]


def _flipped_deflate() -> bytes:
    data = bytearray(raw_zip(_valid_entries()))
    # damage the deflate stream of the first member (bundle.json) in the middle
    start = 30 + len(b"bundle.json")
    for i in range(start + 10, start + 40):
        data[i] ^= 0xFF
    return bytes(data)


CASES: dict[str, Callable[[], bytes]] = {
    "traversal ../": _named(f"../{EVIL}"),
    "traversal tasks/../../": _named(f"tasks/../../{EVIL}"),
    "absolute path": _named(f"/tmp/{EVIL}"),
    "drive path C:/": _named(f"C:/{EVIL}"),
    "drive-relative C:": _named(f"C:{EVIL}"),
    "backslash traversal": _named(f"tasks\\..\\..\\{EVIL}"),
    "NUL in name": _nul_name,
    "control character in name": _named("tasks/\x1b[2J.json"),
    "dot part": _named(f"./{EVIL}"),
    "bomb: compression ratio": _ratio_bomb,
    "bomb: size header lies": _lying_size_bomb,
    "bomb: total size": _total_bomb,
    "bomb: entry count (declared)": _entry_count_declared,
    "bomb: entry count (real 100,001)": _entry_count_real,
    "overlapping entries (same local header)": _overlapping_same_offset,
    "overlapping entries (data runs into next)": _overlapping_data,
    "symlink member": _symlink,
    "duplicate name": _duplicate_exact,
    "duplicate after case folding": _duplicate_case,
    "duplicate after NFC normalisation": _duplicate_nfc,
    "encrypted member": _encrypted,
    "unknown method (bzip2)": _method(12),
    "unknown method (LZMA)": _method(14),
    "unknown method (AES, 99)": _method(99),
    "CRC broken (bundle.json)": _crc_broken("bundle.json"),
    "CRC broken (task)": _crc_broken("tasks/t0001.json"),
    "corrupt deflate stream": _flipped_deflate,
    "truncated at 50%": _truncated(0.5),
    "truncated at 95%": _truncated(0.95),
    "end record cut off": _no_end_record,
    "empty file": lambda: b"",
    "not a zip (PDF)": lambda: b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n",
    "not a zip (JSON renamed)": lambda: bundle_files(1)["bundle.json"],
    "not a zip (random bytes)": lambda: bytes((i * 7919 + 13) % 256 for i in range(4096)),
    "PK header only": lambda: b"PK\x03\x04" + b"\0" * 26,
}


def _json_member(member: str, payload: bytes) -> Callable[[], bytes]:
    """A valid bundle whose ``member`` is the hostile JSON ``payload`` (hashes recomputed, so the JSON
    reader is reached rather than the hash check)."""

    def build() -> bytes:
        from tests.kit.bundles import with_manifest

        files = bundle_files(2)
        order = ["t0000", "t0001"]
        if member == "bundle.json":
            files["bundle.json"] = payload
            return raw_zip([deflated(n, d) for n, d in sorted(files.items())])
        files[member] = payload
        return raw_zip([deflated(n, d) for n, d in sorted(with_manifest(files, order).items())])

    return build


def json_cases() -> dict[str, Callable[[], bytes]]:
    from .hostile_json_cases import HOSTILE_JSON

    out: dict[str, Callable[[], bytes]] = {}
    for member in ("bundle.json", "rubric.json", "tasks/t0000.json"):
        for name, payload in HOSTILE_JSON.items():
            out[f"{member}: {name}"] = _json_member(member, payload)
    return out
