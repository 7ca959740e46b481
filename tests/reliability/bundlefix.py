"""A small valid bundle built from the shipped default rubric, and a raw zip writer for forged zips."""

from __future__ import annotations

import hashlib
import struct
import zlib
from dataclasses import dataclass
from typing import Any

from wmcdp_desktop.core.strict_json import dumps_canonical
from wmcdp_desktop.core.zips.writer import deterministic_zip

from .helpers import REPO

RUBRIC_BYTES = (REPO / "resources" / "rubric" / "wmcdp-rubric.json").read_bytes()


def task_obj(task_id: str, text: str = "A calm, validating reply.") -> dict[str, Any]:
    return {
        "document_type": "wmcdp_task",
        "task_id": task_id,
        "benchmark_item_id": "ITEM-X",
        "clinical_domain_id": "WM-DOM-OCD",
        "scenario_type_ids": ["WM-SCN-REASSURANCE"],
        "scenario": {
            "context": {
                "age_band": "8-10",
                "setting": "parent coaching chat",
                "speakers": ["parent", "assistant"],
                "summary": "A child asks for reassurance many times a day.",
            },
            "turns": [{"role": "parent", "text": "My child keeps asking if the door is locked."}],
        },
        "candidate_response_id": f"cr-{task_id}",
        "candidate_response_text": text,
    }


def with_manifest(files: dict[str, bytes], order: list[str], bundle_id: str = "B-REL") -> dict[str, bytes]:
    manifest: dict[str, Any] = {
        "document_type": "wmcdp_bundle",
        "format_version": "1.0.0",
        "bundle_id": bundle_id,
        "study_id": "STUDY-REL",
        "study_title": "Reliability study",
        "created_at": "2026-11-29T10:00:00Z",
        "task_order": order,
        "files": [
            {"path": name, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
            for name, data in sorted(files.items())
            if name != "bundle.json"
        ],
    }
    out = {k: v for k, v in files.items() if k != "bundle.json"}
    out["bundle.json"] = dumps_canonical(manifest).encode()
    return out


def bundle_files(n_tasks: int = 3, texts: dict[str, str] | None = None) -> dict[str, bytes]:
    """name -> bytes of a valid bundle (unassigned: any rater may open it)."""
    texts = texts or {}
    files: dict[str, bytes] = {"rubric.json": RUBRIC_BYTES}
    order = [f"t{i:04d}" for i in range(n_tasks)]
    for task_id in order:
        files[f"tasks/{task_id}.json"] = dumps_canonical(
            task_obj(task_id, texts.get(task_id, "A calm, validating reply."))
        ).encode()
    return with_manifest(files, order)


def bundle_zip(n_tasks: int = 3, texts: dict[str, str] | None = None) -> bytes:
    return deterministic_zip(bundle_files(n_tasks, texts))


# ----- raw zip writing (forged headers) -----------------------------------------------------------
@dataclass
class Entry:
    name: bytes
    data: bytes  # the bytes stored in the file (already compressed if method != 0)
    method: int = 0
    crc: int | None = None  # default: crc of ``plain``
    plain: bytes | None = None  # the uncompressed content (for crc/size defaults)
    file_size: int | None = None  # declared uncompressed size (default: len(plain))
    flags: int = 0
    external_attr: int = 0o100644 << 16
    create_system: int = 3
    reuse_offset_of: int | None = None  # central entry points at the local header of entry i


def deflate(data: bytes) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def stored(name: str, data: bytes) -> Entry:
    return Entry(name.encode("utf-8"), data, plain=data)


def deflated(name: str, data: bytes) -> Entry:
    return Entry(name.encode("utf-8"), deflate(data), method=8, plain=data)


def raw_zip(entries: list[Entry], *, declared_entries: int | None = None, zip64_entries: int | None = None) -> bytes:
    """A zip written byte by byte, so headers can say anything."""
    out = bytearray()
    central = bytearray()
    offsets: list[int] = []
    for e in entries:
        plain = e.plain if e.plain is not None else e.data
        if not e.name.isascii():
            e.flags |= 0x800  # names are UTF-8
        crc = zlib.crc32(plain) if e.crc is None else e.crc
        usize = len(plain) if e.file_size is None else e.file_size
        if e.reuse_offset_of is None:
            offset = len(out)
            out += struct.pack(
                "<IHHHHHIIIHH", 0x04034B50, 20, e.flags, e.method, 0, 0x21, crc, len(e.data), usize, len(e.name), 0
            )
            out += e.name + e.data
        else:
            offset = offsets[e.reuse_offset_of]
        offsets.append(offset)
        central += struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50,
            (e.create_system << 8) | 20,
            20,
            e.flags,
            e.method,
            0,
            0x21,
            crc,
            len(e.data),
            usize,
            len(e.name),
            0,
            0,
            0,
            0,
            e.external_attr,
            offset,
        )
        central += e.name
    start = len(out)
    count = len(entries) if declared_entries is None else declared_entries
    out += central
    if zip64_entries is not None:  # a zip64 end record (may claim any entry count) and its locator
        z64 = len(out)
        out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, zip64_entries, zip64_entries, len(central), start)
        out += struct.pack("<IIQI", 0x07064B50, 0, z64, 1)
        count = 0xFFFF
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(count, 0xFFFF), min(count, 0xFFFF), len(central), start, 0)
    return bytes(out)
