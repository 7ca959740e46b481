"""Bundles for the suite: folders and bytes with correct SHA-256s, and forged zips.

Two families, one builder (:func:`bundle_files_of`):

- :func:`bundle_files` / :func:`write_bundle`: a small bundle of ``n_tasks`` tasks ``t0000``... on the shipped
  default rubric (unassigned unless ``rater_id``: any rater may open it). :data:`ASSIGNED_TO_R1` makes it the
  coordinator tests' bundle (their test rubric, for rater ``R1``).
- :func:`bundle_docs` / :func:`write_bundle_folder` / :func:`make_bundle`: the rater tests' bundle made from
  the root conftest's sample documents (test rubric: 8 dimensions, N/A only on WM-RUB-005, 3 failure modes).
  Tasks: T-0001 (plain), T-0002 (calibration), T-0003 (HTML, a link, bidi and zero-width characters in the
  response). :data:`MODEL_NAMES` never appear in the bundle; tests check they never appear in the window
  or in written files either.
"""

from __future__ import annotations

import copy
import hashlib
import json
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.kit.studies import case_obj, rubric_obj
from wmcdp_desktop.core.resources import default_rubric_path
from wmcdp_desktop.core.strict_json import dumps_canonical
from wmcdp_desktop.core.zips.writer import deterministic_zip

RUBRIC_BYTES = default_rubric_path().read_bytes()
"""The shipped default rubric, as the small bundles carry it."""
TEST_RUBRIC_BYTES = dumps_canonical(rubric_obj()).encode()
"""The coordinator tests' rubric (:func:`tests.kit.studies.rubric_obj`)."""
ASSIGNED_TO_R1: dict[str, Any] = {
    "rubric": TEST_RUBRIC_BYTES, "rater_id": "R1", "bundle_id": "B-TEST", "study_id": "STUDY-T1",
    "study_title": "Test study", "created_at": "2026-11-01T09:00:00Z",
}
"""Options of :func:`bundle_files` for the coordinator tests' bundle: their rubric, rater ``R1``."""

MODEL_NAMES = ["model-x", "gpt-4o", "claude-3-opus", "SecretModel"]
HOSTILE_RESPONSE = (
    "<b>Bold?</b> <a href=\"https://example.invalid/x\">click me</a> <img src=\"file:///etc/passwd\">\n"
    "Keep calm \u202eesrever\u202c and \u200bhidden\u2066text\u2069 end."
)


def _bytes(doc: dict[str, Any] | bytes) -> bytes:
    return doc if isinstance(doc, bytes) else dumps_canonical(doc).encode("utf-8")


def file_entries(files: dict[str, bytes]) -> list[dict[str, Any]]:
    """The manifest's ``files`` list for ``files`` (every member but bundle.json), sorted by name."""
    return [
        {"path": name, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
        for name, data in sorted(files.items())
        if name != "bundle.json"
    ]


def with_manifest(files: dict[str, bytes], order: list[str], bundle_id: str = "B-REL", *,
                  rater_id: str | None = None, study_id: str = "STUDY-REL", study_title: str = "Reliability study",
                  created_at: str = "2026-11-29T10:00:00Z", export_public_key: str | None = None) -> dict[str, bytes]:
    """``files`` with a fresh, correct bundle.json listing them (``order``: the task order; ``export_public_key``:
    an encrypted bundle's coordinator key, in base64)."""
    manifest: dict[str, Any] = {
        "document_type": "wmcdp_bundle",
        "format_version": "1.0.0" if export_public_key is None else "1.3.0",
        "bundle_id": bundle_id,
        "study_id": study_id,
        "study_title": study_title,
        "created_at": created_at,
        "task_order": order,
        "files": file_entries(files),
    }
    if rater_id:
        manifest["rater_id"] = rater_id
    if export_public_key is not None:
        manifest["export_public_key"] = export_public_key
    out = {k: v for k, v in files.items() if k != "bundle.json"}
    out["bundle.json"] = dumps_canonical(manifest).encode()
    return out


def rehash(files: dict[str, bytes]) -> dict[str, bytes]:
    """Recompute bundle.json's file list after a test changed a file (the rest of the manifest kept)."""
    manifest = json.loads(files["bundle.json"])
    manifest["files"] = file_entries(files)
    out = dict(files)
    out["bundle.json"] = dumps_canonical(manifest).encode()
    return out


def task_obj(task_id: str, text: str = "A calm, validating reply.") -> dict[str, Any]:
    """A valid task (item ITEM-X, case CASE-X) whose response is ``text``."""
    case = case_obj("CASE-X")
    return {
        "document_type": "wmcdp_task",
        "task_id": task_id,
        "benchmark_item_id": "ITEM-X",
        "clinical_domain_id": case["clinical_domain_id"],
        "scenario_type_ids": case["scenario_type_ids"],
        "scenario": case["scenario"],
        "candidate_response_id": f"cr-{task_id}",
        "candidate_response_text": text,
    }


def bundle_files_of(rubric: dict[str, Any] | bytes, tasks: list[dict[str, Any]], **manifest: Any) -> dict[str, bytes]:
    """name -> bytes of a bundle holding ``rubric`` and ``tasks`` (in that order), with a correct manifest
    (options: those of :func:`with_manifest`)."""
    files: dict[str, bytes] = {"rubric.json": _bytes(rubric)}
    for task in tasks:
        files[f"tasks/{task['task_id']}.json"] = _bytes(task)
    return with_manifest(files, [t["task_id"] for t in tasks], **manifest)


def bundle_files(n_tasks: int = 3, texts: dict[str, str] | None = None, *, rubric: dict[str, Any] | bytes = RUBRIC_BYTES,
                 **manifest: Any) -> dict[str, bytes]:
    """name -> bytes of a valid bundle of tasks ``t0000``... (``texts``: task id -> its response)."""
    texts = texts or {}
    tasks = [task_obj(f"t{i:04d}", texts.get(f"t{i:04d}", "A calm, validating reply.")) for i in range(n_tasks)]
    return bundle_files_of(rubric, tasks, **manifest)


def bundle_zip(n_tasks: int = 3, texts: dict[str, str] | None = None, **options: Any) -> bytes:
    """:func:`bundle_files` as a ``.wmcdp`` zip."""
    return deterministic_zip(bundle_files(n_tasks, texts, **options))


def write_files(root: Path, files: dict[str, bytes]) -> Path:
    """Write every ``name -> bytes`` under ``root`` (folders made); returns ``root``."""
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def write_bundle(root: Path, n_tasks: int = 3, texts: dict[str, str] | None = None, **options: Any) -> Path:
    """:func:`bundle_files` as a folder bundle under ``root``; returns ``root``."""
    return write_files(root, bundle_files(n_tasks, texts, **options))


# ----- the rater tests' bundle, from the root conftest's sample documents ------------------------------
def bundle_docs(sample_docs: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(rubric, tasks) for a small bundle."""
    rubric = sample_docs("Rubric")
    t1 = sample_docs("Task")
    t2 = sample_docs("CalibrationTask")
    t2["candidate_response_id"] = "cr-5d0e42"  # every task its own response: the bundle verifies clean
    t3 = copy.deepcopy(t1)
    t3["task_id"] = "T-0003"
    t3["candidate_response_id"] = "cr-77b2e0"
    t3["candidate_response_text"] = HOSTILE_RESPONSE
    t3["scenario"]["turns"].append({"role": "child", "speaker_label": "Sam (age 9)", "text": "<i>Is it locked?</i>"})
    return rubric, [t1, t2, t3]


def write_bundle_folder(
    root: Path,
    rubric: dict[str, Any],
    tasks: list[dict[str, Any]],
    *,
    rater_id: str | None = None,
    bundle_id: str = "B-test",
) -> Path:
    """Write ``bundle.json`` + ``rubric.json`` + ``tasks/*.json`` with correct sha256s; returns ``root``."""
    return write_files(root, sample_bundle_files(rubric, tasks, rater_id=rater_id, bundle_id=bundle_id))


def sample_bundle_files(rubric: dict[str, Any], tasks: list[dict[str, Any]], *, rater_id: str | None = None,
                        bundle_id: str = "B-test", export_public_key: str | None = None) -> dict[str, bytes]:
    """name -> bytes of the rater tests' bundle (study ``S-test``) holding ``rubric`` and ``tasks``."""
    return bundle_files_of(rubric, tasks, bundle_id=bundle_id, rater_id=rater_id, study_id="S-test",
                           study_title="Test study", created_at="2026-11-01T09:00:00Z",
                           export_public_key=export_public_key)


def make_bundle(root: Path, sample_docs: Any, *, rater_id: str | None = None) -> Path:
    """The sample-document bundle (:func:`bundle_docs`) under ``root``."""
    rubric, tasks = bundle_docs(sample_docs)
    return write_bundle_folder(root, rubric, tasks, rater_id=rater_id)


def tree_text(root: Path) -> str:
    """All text of every file under ``root`` (to search for model names)."""
    out = []
    for path in sorted(root.rglob("*")):
        if path.is_file():
            out.append(path.read_bytes().decode("utf-8", errors="replace"))
    return "\n".join(out)


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


def write_zip(path: Path, files: dict[str, bytes]) -> Path:
    """Every ``name -> bytes`` as a deterministic zip at ``path``; returns ``path``."""
    path.write_bytes(deterministic_zip(files))
    return path
