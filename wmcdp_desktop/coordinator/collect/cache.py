"""Incremental collecting: what ``wmcdp results collect`` learnt from each export, kept in the output folder.

Exports arrive over weeks. Each export ``collect`` reads is recorded by the SHA-256 of its zip in
``DIR/collected-exports/<sha256>.json``: its manifest, its problems, its audit chain's summary and its valid
records (as JSON). A later ``collect`` into the same ``DIR`` reads only the zips it has not seen (a zip whose
SHA-256 is already recorded is recognised and not counted twice) and merges them with the recorded ones,
all in one canonical order (by file name, then SHA-256), so adding exports one by one gives byte for byte
the outputs of collecting them all at once. Each entry is written as soon as its export is read, with each
record file's own bytes; the records are validated again against their model when they are loaded, one
entry at a time (a damaged entry is reported, never trusted); the cache is written owner-only like every
output.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from wmcdp_desktop.coordinator.results.provenance import ChainSummary
from wmcdp_desktop.coordinator.results.reader import ExportRead, ReadRecord
from wmcdp_desktop.core.atomic import OWNER_ONLY, atomic_write_bytes, plain_os_error
from wmcdp_desktop.core.documents import read_file_bytes
from wmcdp_desktop.core.errors import DocumentError, Problem, StorageError
from wmcdp_desktop.core.files import MAX_LARGE_DOCUMENT_BYTES
from wmcdp_desktop.core.models.results_manifest import ResultsManifest
from wmcdp_desktop.core.models.task_record import validate_record
from wmcdp_desktop.core.paths import child_path

CACHE_DIR = "collected-exports"
_SHA_NAME = re.compile(r"[0-9a-f]{64}\.json")
CACHE_FORMAT = 1


@dataclass
class KnownExport:
    """An export and where it came from: ``file`` as the command line named it, ``sha256`` of its zip."""

    file: str
    sha256: str
    export: ExportRead
    cached: bool
    """Loaded from the collection's cache (not read from its zip in this run)."""


def _record_piece(rr: ReadRecord) -> bytes:
    """One record of a cache entry: the record file's own bytes (strict JSON, checked when read) inside."""
    head = json.dumps({"export": rr.export, "sha256": rr.sha256, "source": rr.source}, ensure_ascii=False,
                      sort_keys=True, separators=(",", ":"))
    return head[:-1].encode("utf-8") + b',"record":' + rr.data + b"}"


def cache_bytes(known: KnownExport) -> bytes:
    export = known.export
    obj = {
        "format": CACHE_FORMAT,
        "file": known.file,
        "sha256": known.sha256,
        "label": export.label,
        "manifest": export.manifest.to_json_obj() if export.manifest is not None else None,
        "problems": [asdict(p) for p in export.problems],
        "chain": None if export.chain is None else {k: v for k, v in asdict(export.chain).items() if k != "_receipt"},
    }
    head = json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return head[:-1] + b',"records":[' + b",".join(_record_piece(rr) for rr in export.records) + b"]}"


def write_entry(out_dir: Path, known: KnownExport) -> None:
    """Record an export read in this run (owner-only, like the outputs: a later run merges it unread)."""
    folder = child_path(out_dir, CACHE_DIR)
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # it holds the raters' records: owner-only too
        folder.chmod(0o700)
    except OSError as exc:
        raise StorageError(f"Could not save in {folder}: {plain_os_error(exc)}.") from exc
    atomic_write_bytes(child_path(folder, f"{known.sha256}.json"), cache_bytes(known), mode=OWNER_ONLY)


UNUSABLE = (DocumentError, ValueError, KeyError, TypeError)
"""What :func:`load_entry` raises for an entry it cannot use."""


def load_entry(path: Path) -> KnownExport:
    """One recorded export, its records validated again (raises one of :data:`UNUSABLE`)."""
    obj = json.loads(read_file_bytes(path, str(path), max_bytes=MAX_LARGE_DOCUMENT_BYTES))
    if obj.get("format") != CACHE_FORMAT:
        raise ValueError(f"cache format {obj.get('format')!r} is not {CACHE_FORMAT}")
    label = str(obj["label"])
    manifest = ResultsManifest.model_validate(obj["manifest"]) if obj["manifest"] is not None else None
    records = [ReadRecord(validate_record(r["record"]), str(r["source"]), str(r["sha256"]),
                          None if r["export"] is None else str(r["export"])) for r in obj["records"]]
    chain = ChainSummary(**obj["chain"]) if obj["chain"] is not None else None
    export = ExportRead(Path(obj["file"]), label, manifest, records, [Problem(**p) for p in obj["problems"]], chain)
    if path.stem != obj["sha256"]:
        raise ValueError("its name is not the SHA-256 it records")
    return KnownExport(str(obj["file"]), str(obj["sha256"]), export, cached=True)


def unusable_problem(path: Path, exc: BaseException) -> Problem:
    return Problem(str(path), "", f"cannot be used ({str(exc)[:200]}): give that export again, or collect into a "
                   "new folder")


def load_cache(out_dir: Path | None) -> tuple[dict[str, Path], list[Problem]]:
    """The exports an earlier ``collect`` into ``out_dir`` recorded (SHA-256 -> entry; each is loaded and
    checked when it is merged, :func:`load_entry`), and the files there that collect did not write."""
    if out_dir is None:
        return {}, []
    folder = out_dir / CACHE_DIR
    if not folder.is_dir():
        return {}, []
    found: dict[str, Path] = {}
    problems: list[Problem] = []
    for path in sorted(folder.glob("*.json")):
        if not _SHA_NAME.fullmatch(path.name):
            if not path.name.startswith("."):
                problems.append(Problem(str(path), "", f"was not written by collect (its entries are named by the "
                                        f"SHA-256 of an export zip): move it out of {CACHE_DIR}/"))
            continue
        found[path.stem] = path
    return found, problems


def canonical_key(file: str, sha256: str) -> tuple[str, str]:
    """One order for any way the same exports arrived: by file name, then SHA-256."""
    return (Path(file).name, sha256)
