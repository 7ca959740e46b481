"""Reading rating records back: one record file, a folder of them, or a rater's results export zip.

An export zip (written by ``core/export.py``) holds ``manifest.json`` (:class:`ResultsManifest`) and
``records/<task_id>.r<revision>.json``. It is opened with the zip safety checks of ``core/zipsafe.py``
and checked against its manifest: every listed file present with its size and SHA-256, nothing unlisted,
file names matching task id and revision, each record valid and consistent with the manifest (rater,
bundle, task, revision), ``latest`` set on exactly the newest revision of each task, counts right.

Folders are searched recursively for ``*.json``; ``drafts/`` and ``quarantine/`` folders of a rater's data
folder are skipped (drafts are not submitted records), as are symbolic links (reported).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wmcdp_desktop.core.documents import load_bytes, read_file_bytes
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.core.models.results_manifest import ResultsManifest
from wmcdp_desktop.core.zipsafe import open_zip_file

MANIFEST_NAME = "manifest.json"
SKIPPED_FOLDERS = {"drafts", "quarantine"}
SUPPORTED_FORMAT_MAJOR = "1"


@dataclass(frozen=True)
class ReadRecord:
    """One valid record and where it came from."""

    record: RatingRecord
    source: str
    """``file`` or ``export.zip!records/x.r1.json``."""
    sha256: str
    export: str | None = None
    """The export zip it came from (``None`` for loose files)."""


@dataclass
class ExportRead:
    """One export zip: its manifest (if readable), its valid records and its problems."""

    path: Path
    label: str
    manifest: ResultsManifest | None
    records: list[ReadRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


@dataclass
class ReadResult:
    records: list[ReadRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    exports: list[ExportRead] = field(default_factory=list)
    files_read: int = 0
    """Record files looked at (valid or not)."""


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def is_zip_path(path: Path) -> bool:
    if path.suffix.lower() in (".zip", ".wmcdpr"):
        return True
    try:
        with path.open("rb") as fh:
            return fh.read(2) == b"PK"
    except OSError:
        return False


def read_export(path: Path) -> ExportRead:
    """Open and check one results export zip. Never raises for bad content: problems are collected."""
    label = path.name
    try:
        zf = open_zip_file(path, label)
    except DocumentError as exc:
        return ExportRead(path, label, None, problems=list(exc.problems))
    names = set(zf.names())
    mdisp = f"{label}!{MANIFEST_NAME}"
    if MANIFEST_NAME not in names:
        return ExportRead(
            path, label, None, problems=[Problem(label, "", "is not a WM-CDP results export: manifest.json is missing")]
        )
    try:
        manifest = load_bytes(ResultsManifest, zf.read(MANIFEST_NAME), mdisp)
    except DocumentError as exc:
        return ExportRead(path, label, None, problems=list(exc.problems))
    result = ExportRead(path, label, manifest)
    problems = result.problems
    if manifest.format_version.split(".", 1)[0] != SUPPORTED_FORMAT_MAJOR:
        problems.append(
            Problem(mdisp, "format_version", f"results format {manifest.format_version} is not supported; update wmcdp")
        )
        return result
    listed: set[str] = set()
    latest_flags: dict[str, list[tuple[int, bool]]] = {}
    for i, entry in enumerate(manifest.files):
        where = f"files[{i}]"
        if entry.path in listed:
            problems.append(Problem(mdisp, f"{where}.path", f"{entry.path} is listed twice"))
            continue
        listed.add(entry.path)
        latest_flags.setdefault(entry.task_id, []).append((entry.revision, entry.latest))
        expected_name = f"records/{entry.task_id}.r{entry.revision}.json"
        if entry.path != expected_name:
            problems.append(Problem(mdisp, f"{where}.path", f"{entry.path} should be {expected_name} (task id and revision)"))
        if entry.path not in names:
            problems.append(Problem(mdisp, f"{where}.path", f"{entry.path} is listed but not in the zip"))
            continue
        disp = f"{label}!{entry.path}"
        try:
            data = zf.read(entry.path)
        except DocumentError as exc:
            problems.extend(exc.problems)
            continue
        if len(data) != entry.size or _sha(data) != entry.sha256:
            problems.append(Problem(disp, "", "does not match the SHA-256/size in manifest.json: changed or damaged"))
            continue
        try:
            record = load_bytes(RatingRecord, data, disp)
        except DocumentError as exc:
            problems.extend(exc.problems)
            continue
        env = record.envelope
        checks = (
            ("envelope.task_id", env.task_id, entry.task_id),
            ("envelope.revision", env.revision, entry.revision),
            ("rater_id", record.rater_id, manifest.rater_id),
            ("envelope.bundle_id", env.bundle_id, manifest.bundle_id),
            ("envelope.bundle_sha256", env.bundle_sha256, manifest.bundle_sha256),
        )
        bad = False
        for json_path, got, want in checks:
            if got != want:
                problems.append(Problem(disp, json_path, f"{got!r} does not match manifest.json ({want!r})"))
                bad = True
        if not bad:
            result.records.append(ReadRecord(record, disp, _sha(data), export=label))
    for name in sorted(names - listed - {MANIFEST_NAME}):
        problems.append(Problem(f"{label}!{name}", "", "is not listed in manifest.json (unexpected file)"))
    for task_id, flags in sorted(latest_flags.items()):
        newest = max(rev for rev, _ in flags)
        marked = sorted(rev for rev, latest in flags if latest)
        if marked != [newest]:
            problems.append(
                Problem(mdisp, "files", f"task {task_id}: latest should be set on revision {newest} only (set on {marked or 'none'})")
            )
    counts = manifest.counts
    if counts.record_files != len(manifest.files):
        problems.append(Problem(mdisp, "counts.record_files", f"says {counts.record_files}, the manifest lists {len(manifest.files)}"))
    if counts.submitted != len(latest_flags):
        problems.append(Problem(mdisp, "counts.submitted", f"says {counts.submitted}, the manifest has {len(latest_flags)} tasks"))
    return result


def _path_key(path: Path) -> tuple[str, ...]:
    """The order ``sorted()`` gives paths (pathlib compares parts; case-insensitively on Windows)."""
    return path.parts if os.name == "posix" else tuple(part.lower() for part in path.parts)


def _record_files(folder: Path, problems: list[Problem]) -> list[Path]:
    # os.scandir: the file type comes with the listing (no stat per entry), and sorting by a key is
    # cheaper than comparing Path objects; 100,000 record files spent 15 % of `results validate` here.
    found: list[Path] = []
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as listing:
                entries = sorted(listing, key=lambda e: e.name if os.name == "posix" else e.name.lower())
        except OSError as exc:
            problems.append(Problem(str(current), "", f"cannot be read ({exc.strerror or exc})"))
            continue
        for entry in entries:
            path = current / entry.name
            if entry.is_symlink():
                problems.append(Problem(str(path), "", "is a symbolic link (skipped)"))
            elif entry.is_dir():
                if entry.name not in SKIPPED_FOLDERS and not entry.name.startswith("."):
                    stack.append(path)
            elif entry.name.endswith(".json") and not entry.name.startswith("."):
                found.append(path)
    return sorted(found, key=_path_key)


def read_records(paths: list[Path], progress: Callable[[int, int], None] | None = None) -> ReadResult:
    """Read record files, folders of them and export zips; collect valid records and every problem."""
    result = ReadResult()
    targets: list[tuple[str, Path]] = []
    for path in paths:
        path = Path(path)
        if path.is_dir():
            files = _record_files(path, result.problems)
            if not files:
                result.problems.append(Problem(str(path), "", "holds no record files (*.json)"))
            targets.extend(("record", f) for f in files)
        elif not path.exists():
            result.problems.append(Problem(str(path), "", "file not found"))
        elif is_zip_path(path):
            targets.append(("export", path))
        else:
            targets.append(("record", path))
    for done, (kind, path) in enumerate(targets, start=1):
        if kind == "export":
            export = read_export(path)
            result.exports.append(export)
            result.records.extend(export.records)
            result.problems.extend(export.problems)
            result.files_read += len(export.manifest.files) if export.manifest else 0
        else:
            result.files_read += 1
            source = str(path)
            try:
                data = read_file_bytes(path, source)
                record = load_bytes(RatingRecord, data, source)
            except DocumentError as exc:
                result.problems.extend(exc.problems)
            else:
                result.records.append(ReadRecord(record, source, _sha(data)))
        if progress is not None:
            progress(done, len(targets))
    return result
