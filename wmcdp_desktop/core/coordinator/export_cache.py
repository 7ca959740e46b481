"""Incremental collecting: what ``wmcdp results collect`` learnt from each export, kept in the output folder.

Exports arrive over weeks. Each export ``collect`` reads is recorded by the SHA-256 of its zip in
``DIR/collected-exports/<sha256>.json``: its manifest, its problems, its audit chain's summary and its valid
records (as JSON). A later ``collect`` into the same ``DIR`` reads only the zips it has not seen (a zip whose
SHA-256 is already recorded is recognised and not counted twice) and merges them with the recorded ones,
all in one canonical order (by file name, then SHA-256), so adding exports one by one gives byte for byte
the outputs of collecting them all at once. The records are validated again against their model when they
are loaded (a damaged cache file is reported, never trusted); the cache is written owner-only like every
output.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from wmcdp_desktop.core.atomic import OWNER_ONLY, atomic_write_bytes
from wmcdp_desktop.core.coordinator.export_checks import ChainSummary
from wmcdp_desktop.core.coordinator.results_reader import ExportRead, ReadRecord
from wmcdp_desktop.core.documents import read_file_bytes
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.models.results_manifest import ResultsManifest
from wmcdp_desktop.core.models.task_record import validate_record
from wmcdp_desktop.core.paths import child_path

CACHE_DIR = "collected-exports"
_SHA_NAME = re.compile(r"[0-9a-f]{64}\.json")
CACHE_FORMAT = 1
HASH_CHUNK = 1 << 20


@dataclass
class KnownExport:
    """An export and where it came from: ``file`` as the command line named it, ``sha256`` of its zip."""

    file: str
    sha256: str
    export: ExportRead
    cached: bool
    """Loaded from the collection's cache (not read from its zip in this run)."""


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _record_obj(rr: ReadRecord) -> dict[str, Any]:
    return {"source": rr.source, "sha256": rr.sha256, "export": rr.export, "record": rr.record.to_json_obj()}


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
        "records": [_record_obj(rr) for rr in export.records],
    }
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def write_cache(out_dir: Path, exports: list[KnownExport]) -> None:
    """Record the exports read in this run (the cached ones are there already)."""
    folder = child_path(out_dir, CACHE_DIR)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # it holds unblinded records: owner-only too
    folder.chmod(0o700)
    for known in exports:
        if not known.cached:
            atomic_write_bytes(child_path(folder, f"{known.sha256}.json"), cache_bytes(known), mode=OWNER_ONLY)


def _load_one(path: Path) -> KnownExport:
    obj = json.loads(read_file_bytes(path, str(path)))
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


def load_cache(out_dir: Path | None) -> tuple[dict[str, KnownExport], list[Problem]]:
    """The exports an earlier ``collect`` into ``out_dir`` recorded, by SHA-256, and the cache files that could
    not be used (each a problem; that export must be given again)."""
    if out_dir is None:
        return {}, []
    folder = out_dir / CACHE_DIR
    if not folder.is_dir():
        return {}, []
    found: dict[str, KnownExport] = {}
    problems: list[Problem] = []
    for path in sorted(folder.glob("*.json")):
        if not _SHA_NAME.fullmatch(path.name):
            if not path.name.startswith("."):
                problems.append(Problem(str(path), "", f"was not written by collect (its entries are named by the "
                                        f"SHA-256 of an export zip): move it out of {CACHE_DIR}/"))
            continue
        try:
            known = _load_one(path)
        except (DocumentError, ValueError, KeyError, TypeError) as exc:
            problems.append(Problem(str(path), "", f"cannot be used ({str(exc)[:200]}): give that export again, or "
                                    "collect into a new folder"))
            continue
        found[known.sha256] = known
    return found, problems


def canonical_order(exports: list[KnownExport]) -> list[KnownExport]:
    """One order for any way the same exports arrived: by file name, then SHA-256."""
    return sorted(exports, key=lambda k: (Path(k.file).name, k.sha256))
