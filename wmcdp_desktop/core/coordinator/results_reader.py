"""Reading rating records back: one record file, a folder of them, or a rater's results export zip.

An export zip (written by ``core/rater/export.py``) holds ``manifest.json`` (:class:`ResultsManifest`) and
``records/<task_id>.r<revision>.json``. It is opened with the zip safety checks of ``core/zips/reader.py``
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
from operator import itemgetter
from pathlib import Path
from typing import NamedTuple

from wmcdp_desktop.core import parallel
from wmcdp_desktop.core.documents import load_bytes, read_file_bytes
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.gc_pause import gc_paused
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.core.models.results_manifest import ResultsManifest
from wmcdp_desktop.core.zips.reader import open_zip_file

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


class RecordSummary(NamedTuple):
    """What ``results validate`` needs of a valid record when it is not checked against a bundle."""

    source: str
    sha256: str
    rater_id: str
    task_id: str
    bundle_id: str
    export: str | None = None


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
    summaries: list[RecordSummary] = field(default_factory=list)
    """One per valid record (loose and in exports), in reading order (that of :attr:`records` when kept)."""


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
    return [Path(source) for source in _record_sources(folder, problems)]


def _record_sources(folder: Path, problems: list[Problem]) -> list[str]:
    """The record files under ``folder`` as the strings ``str(folder / ... / name)``, in path order."""
    # os.scandir: the file type comes with the listing (no stat per entry); 100,000 record files spent
    # 15 % of `results validate` in a Path-based walk. Paths are built as strings (a Path per file cost
    # another 0.5 s per 100,000) and each is sorted by the tuple of names pathlib would compare.
    posix = os.name == "posix"
    found: list[tuple[tuple[str, ...], str]] = []
    stack: list[tuple[str, tuple[str, ...]]] = [(str(folder), _path_key(folder))]
    while stack:
        current, key = stack.pop()
        prefix = str(Path(current) / "x")[:-1]  # what pathlib puts before a child's name
        try:
            with os.scandir(current) as listing:
                entries = sorted(listing, key=lambda e: e.name if posix else e.name.lower())
        except OSError as exc:
            problems.append(Problem(current, "", f"cannot be read ({exc.strerror or exc})"))
            continue
        for entry in entries:
            name = entry.name
            path = prefix + name
            if entry.is_symlink():
                problems.append(Problem(path, "", "is a symbolic link (skipped)"))
            elif entry.is_dir():
                if name not in SKIPPED_FOLDERS and not name.startswith("."):
                    stack.append((path, (*key, name if posix else name.lower())))
            elif name.endswith(".json") and not name.startswith("."):
                found.append(((*key, name if posix else name.lower()), path))
    found.sort(key=itemgetter(0))
    return [path for _, path in found]


PARALLEL_MIN_FILES = 2_000
"""With ``jobs=None`` (automatic), folders of at least this many record files are read by a process pool
(five times as many where workers are not forked: :func:`~wmcdp_desktop.core.parallel.workers_for`)."""
MAX_CHUNK = 2_000
MIN_CHUNK = 250


_Outcome = tuple[str, RatingRecord | None, str, str, str] | list[Problem]
"""One record file read: ``(sha256, record or None, rater_id, task_id, bundle_id)``, or its problems."""


def _read_record_file(source: str, keep_record: bool) -> _Outcome:
    try:
        data = read_file_bytes(source)
        record = load_bytes(RatingRecord, data, source)
    except DocumentError as exc:
        return exc.problems
    env = record.envelope
    return (_sha(data), record if keep_record else None, record.rater_id, env.task_id, env.bundle_id)


def _read_record_chunk(sources: list[str], keep_records: bool) -> list[_Outcome]:
    """Run in a worker process: only path strings come in, plain data and models go back."""
    return [_read_record_file(source, keep_records) for source in sources]


def _chunk_size(n_files: int, workers: int) -> int:
    return max(MIN_CHUNK, min(MAX_CHUNK, -(-n_files // (workers * 8))))


def read_records(
    paths: list[Path],
    progress: Callable[[int, int], None] | None = None,
    *,
    jobs: int | None = 1,
    keep_records: bool = True,
    chunk_size: int | None = None,
    start_method: str | None = None,
) -> ReadResult:
    """Read record files, folders of them and export zips; collect valid records and every problem.

    ``jobs``: worker processes for loose record files; ``1`` reads everything in this process, ``None``
    chooses (a pool of up to :data:`~wmcdp_desktop.core.parallel.MAX_AUTO_WORKERS` when there are at
    least :data:`PARALLEL_MIN_FILES` files, five times that where workers are not forked, and more than one CPU). The result is the same either way:
    records, problems and their order, counts. ``progress(done, total)`` counts files and exports read.
    ``keep_records=False``: :attr:`ReadResult.records` stays empty (only :attr:`ReadResult.summaries`),
    which spares sending every record back from the workers.
    ``chunk_size`` (files per task) and ``start_method`` (multiprocessing) are for tests.
    """
    result = ReadResult()
    targets: list[tuple[str, Path | str]] = []
    """``("record", str(path))`` or ``("export", path)``, in reading order."""
    for path in paths:
        path = Path(path)
        if path.is_dir():
            sources = _record_sources(path, result.problems)
            if not sources:
                result.problems.append(Problem(str(path), "", "holds no record files (*.json)"))
            targets.extend(("record", source) for source in sources)
        elif not path.exists():
            result.problems.append(Problem(str(path), "", "file not found"))
        elif is_zip_path(path):
            targets.append(("export", path))
        else:
            targets.append(("record", str(path)))
    n_files = sum(1 for kind, _ in targets if kind == "record")
    workers = parallel.workers_for(jobs, n_files, PARALLEL_MIN_FILES)
    if workers > 1 and n_files:
        _read_parallel(targets, result, progress, workers, keep_records, chunk_size, start_method)
        return result
    with gc_paused():
        for done, (kind, target) in enumerate(targets, start=1):
            if kind == "export":
                _add_export(result, read_export(Path(target)), keep_records)
            else:
                source = str(target)
                _add_record(result, source, _read_record_file(source, keep_records))
            if progress is not None:
                progress(done, len(targets))
    return result


def _add_export(result: ReadResult, export: ExportRead, keep_records: bool) -> None:
    result.exports.append(export)
    if keep_records:
        result.records.extend(export.records)
    result.summaries.extend(
        RecordSummary(rr.source, rr.sha256, rr.record.rater_id, rr.record.envelope.task_id, rr.record.envelope.bundle_id, rr.export)
        for rr in export.records
    )
    result.problems.extend(export.problems)
    result.files_read += len(export.manifest.files) if export.manifest else 0


def _add_record(result: ReadResult, source: str, outcome: _Outcome) -> None:
    result.files_read += 1
    if isinstance(outcome, list):
        result.problems.extend(outcome)
        return
    sha, record, rater_id, task_id, bundle_id = outcome
    if record is not None:
        result.records.append(ReadRecord(record, source, sha))
    result.summaries.append(RecordSummary(source, sha, rater_id, task_id, bundle_id))


def _read_parallel(
    targets: list[tuple[str, Path | str]],
    result: ReadResult,
    progress: Callable[[int, int], None] | None,
    workers: int,
    keep_records: bool,
    chunk_size: int | None,
    start_method: str | None,
) -> None:
    """Loose record files in chunks on a process pool, exports here meanwhile; merged in target order."""
    sources = [str(target) if kind == "record" else "" for kind, target in targets]
    record_indices = [i for i, (kind, _) in enumerate(targets) if kind == "record"]
    size = chunk_size or _chunk_size(len(record_indices), workers)
    chunks = [record_indices[i : i + size] for i in range(0, len(record_indices), size)]
    outcomes: list[_Outcome | None] = [None] * len(targets)
    exports: dict[int, ExportRead] = {}
    total = len(targets)
    done = 0
    pool: parallel.ChunkPool[str, list[_Outcome]] = parallel.ChunkPool(
        _read_record_chunk,
        [[sources[i] for i in chunk] for chunk in chunks],
        workers=workers,
        extra=(keep_records,),
        start_method=start_method,
    )
    # The workers start (are forked) when the pool is entered, so they keep the collector as it was.
    with pool, gc_paused():
        for i, (kind, target) in enumerate(targets):
            if kind == "export":
                exports[i] = read_export(Path(target))
                done += 1
                if progress is not None:
                    progress(done, total)
        try:
            for index, values in pool.completed():
                chunk = chunks[index]
                for i, value in zip(chunk, values, strict=True):
                    outcomes[i] = value
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
        except parallel.WorkerError as exc:
            chunk = chunks[exc.chunk]
            where = sources[chunk[0]] if len(chunk) == 1 else f"{sources[chunk[0]]} ... {sources[chunk[-1]]}"
            raise parallel.WorkerError(
                exc.chunk, f"{exc.cause} (while reading {len(chunk)} record file(s): {where})"
            ) from None
    with gc_paused():
        for i, (kind, _) in enumerate(targets):
            if kind == "export":
                _add_export(result, exports[i], keep_records)
            else:
                outcome = outcomes[i]
                assert outcome is not None  # every chunk completed, or we raised above
                _add_record(result, sources[i], outcome)
