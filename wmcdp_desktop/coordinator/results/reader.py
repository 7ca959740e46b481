"""Reading rating records back: one record file, a folder of them, or a rater's results export zip.

An export zip (written by ``rater/export.py``) holds ``manifest.json`` (:class:`ResultsManifest`),
``records/<task_id>.r<revision>.json`` and ``audit.jsonl``, the rater's hash-chained audit
log sealed by the export. It is opened with the zip safety checks of ``core/zips/reader.py`` and checked
against its manifest: every listed file present with its size and SHA-256, nothing unlisted, file names
matching task id and revision, each record valid and consistent with the manifest (rater, bundle, task,
revision), ``latest`` set on exactly the newest revision of each task, counts right, and the audit chain
(``coordinator/results/provenance.py``: every link, the seal, every record tied in, no revision missing).

Every record read, loose or in an export, must also keep the rules a record keeps whatever its rubric
(``record_rules.own_problems``: evidence spans, rationale); a record that does not is reported and not
counted as valid. Times a wrong clock can explain (before 2020, days in the future) never make a record
invalid: they are listed apart (``clock_suspect``: :func:`clock_suspects`), and the record counts. The rubric's and the task's rules are applied where they are known
(``results validate --bundle``, ``results collect`` with the key).

Folders are searched recursively for ``*.json``; ``drafts/`` and ``quarantine/`` folders of a rater's data
folder are skipped (drafts are not submitted records), as are symbolic links (reported).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from wmcdp_desktop.coordinator.results.provenance import ChainSummary, check_export_audit
from wmcdp_desktop.core.counts import count
from wmcdp_desktop.core.digests import sha256_hex
from wmcdp_desktop.core.documents import json_values_at_most, load_record_bytes, read_file_bytes, validate_obj
from wmcdp_desktop.core.encryption.sealed_box import (
    MAX_PRIVATE_KEY_FILE_BYTES,
    SEALED_HEADER_SIZE,
    is_sealed,
    load_private_key,
    open_sealed,
)
from wmcdp_desktop.core.errors import DocumentError, Problem, capped
from wmcdp_desktop.core.files import open_regular
from wmcdp_desktop.core.models.results_manifest import AUDIT_NAME, MANIFEST_NAME, ResultsManifest
from wmcdp_desktop.core.models.task_record import TaskRecord
from wmcdp_desktop.core.record_rules import own_problems, time_problems
from wmcdp_desktop.core.strict_json import parse_json_bytes
from wmcdp_desktop.core.zips.reader import MAX_FILE_SLACK, SafeZip, open_zip_bytes, open_zip_file
from wmcdp_desktop.core.zips.rules import MAX_TOTAL_BYTES

SKIPPED_FOLDERS = {"drafts", "quarantine"}
SUPPORTED_FORMAT_MAJOR = "1"
SEALED_SUFFIX = ".wmcdp-sealed"
"""How the app names an export sealed to the coordinator's key (recognised by its first bytes too)."""
MAX_SEALED_FILE_BYTES = MAX_TOTAL_BYTES + MAX_FILE_SLACK + SEALED_HEADER_SIZE
"""The largest sealed export read: a plain export's cap and the sealed header."""
NO_KEY_HINT = "give --key keys/coordinator.key (written by bundle build, beside the unblinding key)"


@dataclass(frozen=True)
class CoordinatorKey:
    """The coordinator's private key (``keys/coordinator.key`` of an encrypted build), read and checked once."""

    pem: bytes = field(repr=False)
    source: str
    """The key file, as named in messages."""


def read_coordinator_key(path: Path) -> CoordinatorKey:
    """The coordinator key file ``path``; :class:`DocumentError` naming it when it cannot be read or is not one."""
    pem = read_file_bytes(path, str(path), MAX_PRIVATE_KEY_FILE_BYTES)
    load_private_key(pem, str(path))
    return CoordinatorKey(pem, str(path))


def is_sealed_file(path: Path) -> bool:
    """Whether the regular file ``path`` begins as an export sealed to the coordinator's key."""
    try:
        fd, _ = open_regular(path)
    except OSError:
        return False
    try:
        return is_sealed(os.read(fd, 64))
    except OSError:
        return False
    finally:
        os.close(fd)


@dataclass(frozen=True)
class ReadRecord:
    """One valid record and where it came from."""

    record: TaskRecord
    """A rating or a "cannot rate" (``core/models/task_record.py``)."""
    source: str
    """``file`` or ``export.zip!records/x.r1.json``."""
    sha256: str
    export: str | None = None
    """The export zip it came from (``None`` for loose files)."""
    data: bytes = b""
    """The record file's bytes, as read from an export (collect keeps them in its cache of the export)."""


class RecordSummary(NamedTuple):
    """What ``results validate`` needs of a valid record when it is not checked against a bundle."""

    source: str
    sha256: str
    rater_id: str
    task_id: str
    bundle_id: str
    export: str | None = None
    kind: str = "rating"
    """``rating`` or ``cannot_rate``."""
    flagged: bool = False
    """The rater flagged the task for the coordinator."""
    record_id: str = ""
    revision: int = 1
    supersedes: str | None = None
    """The record id this revision says it replaces."""


def summary_of(record: TaskRecord, source: str, sha256: str, export: str | None = None) -> RecordSummary:
    env = record.envelope
    return RecordSummary(
        source, sha256, record.rater_id, env.task_id, env.bundle_id, export,
        record.record_kind or "rating", record.coordinator_flag is not None,
        env.record_id, env.revision, env.supersedes_record_id,
    )


@dataclass
class ExportRead:
    """One export zip: its manifest (if readable), its valid records and its problems."""

    path: Path
    label: str
    manifest: ResultsManifest | None
    records: list[ReadRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    chain: ChainSummary | None = None
    """Its audit chain, when it holds (for the replay and receipt checks)."""
    clock: list[Problem] = field(default_factory=list)
    """Times of its manifest and records that a wrong clock on the rater's computer explains (kept, flagged)."""


@dataclass
class ReadResult:
    records: list[ReadRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    exports: list[ExportRead] = field(default_factory=list)
    files_read: int = 0
    """Record files looked at (valid or not)."""
    summaries: list[RecordSummary] = field(default_factory=list)
    """One per valid record (loose and in exports), in reading order (that of :attr:`records` when kept)."""
    clock: list[Problem] = field(default_factory=list)
    """Implausible times of valid records and exports (``clock_suspect``): the records count all the same."""


def is_zip_path(path: Path) -> bool:
    """Whether ``path`` is an export: a zip (``.zip``, ``.wmcdpr``, or beginning ``PK``) or a sealed export
    (``.wmcdp-sealed``, or beginning with its mark)."""
    if path.suffix.lower() in (".zip", ".wmcdpr", SEALED_SUFFIX):
        return True
    try:
        fd, _ = open_regular(path)  # a FIFO is not waited on
    except OSError:
        return False
    try:
        head = os.read(fd, 64)
        return head[:2] == b"PK" or is_sealed(head)
    except OSError:
        return False
    finally:
        os.close(fd)


MAX_RECORD_VALUES = 100_000
"""Most JSON values (objects, arrays, list items) a record file may hold; a rating record has a few hundred.
Checked before parsing: a file of a million empty objects would take gigabytes once parsed."""
MANIFEST_VALUES_PER_FILE = 32
"""JSON values ``manifest.json`` may hold per entry of its zip (a listed file takes 8), plus a few hundred."""


def read_record_bytes(data: bytes, source: str) -> TaskRecord:
    """A record file's bytes as a valid record of its kind, a rating or a "cannot rate" (strict JSON, the
    model; ``DocumentError``)."""
    if not json_values_at_most(data, MAX_RECORD_VALUES):
        raise DocumentError.single(
            source, f"holds more than {MAX_RECORD_VALUES:,} JSON values; a rating record has a few hundred (not read)"
        )
    return load_record_bytes(data, source)


def _open_export(path: Path, label: str, coordinator_key: CoordinatorKey | None, no_key_hint: str) -> SafeZip:
    """The export's zip: from the file, or (a sealed export) opened in memory with the coordinator's key."""
    if not is_sealed_file(path):
        return open_zip_file(path, label)
    if coordinator_key is None:
        raise DocumentError.single(label, f"is encrypted to the coordinator's key: {no_key_hint}")
    data = read_file_bytes(path, label, MAX_SEALED_FILE_BYTES)
    plain = open_sealed(coordinator_key.pem, data, label, coordinator_key.source)
    del data
    return open_zip_bytes(plain, label)


def read_export(path: Path, coordinator_key: CoordinatorKey | None = None, no_key_hint: str = NO_KEY_HINT, *,
                label: str | None = None) -> ExportRead:
    """Open and check one results export zip. Never raises for bad content: problems are collected, at most
    :data:`~wmcdp_desktop.core.errors.MAX_PROBLEMS_PER_DOCUMENT` per file of the export. A sealed export is
    opened in memory with ``coordinator_key`` (never written in the clear), then checked the same way; without
    the key it is refused with a problem saying what to give (``no_key_hint``). ``label``: how its problems and
    records name it (its file name unless given: collect tells apart two exports of one name)."""
    label = label or path.name
    try:
        zf = _open_export(path, label, coordinator_key, no_key_hint)
        names = set(zf.names())
        manifest = _read_manifest(zf, names, label)
    except DocumentError as exc:
        return ExportRead(path, label, None, problems=export_capped(capped(exc.problems), label))
    result = ExportRead(path, label, manifest)
    mdisp = f"{label}!{MANIFEST_NAME}"
    if manifest.format_version.split(".", 1)[0] != SUPPORTED_FORMAT_MAJOR:
        result.problems.append(
            Problem(mdisp, "format_version", f"results format {manifest.format_version} is not supported; update wmcdp")
        )
        return result
    listed = _read_listed_records(zf, names, result)
    problems = result.problems
    result.clock += time_problems([("exported_at", manifest.exported_at)], mdisp)
    result.clock += [p for rr in result.records for p in clock_suspects(rr.record, rr.source)]
    if manifest.audit is not None:
        listed.add(AUDIT_NAME)
    chain_problems, result.chain = check_export_audit(label, manifest, _audit_bytes(zf, names, manifest, label, problems))
    problems += chain_problems
    # A record the chain says was changed after it was submitted, or never submitted, is not used.
    untied = {p.file for p in chain_problems}
    result.records = [rr for rr in result.records if rr.source not in untied]
    for name in sorted(names - listed - {MANIFEST_NAME}):
        problems.append(Problem(f"{label}!{name}", "", "is not listed in manifest.json (unexpected file)"))
    problems += _latest_and_count_problems(manifest, mdisp)
    result.problems = export_capped(capped(problems), label)
    return result


MAX_PROBLEMS_PER_EXPORT = 200
"""Problems listed per export zip (a hostile zip of 99,999 unlisted members gave a 16 MB collect-report.json of
99,993 problems); one more line counts the rest (issue 25). Any problem is enough to quarantine the export."""


def export_capped(problems: list[Problem], label: str, limit: int = MAX_PROBLEMS_PER_EXPORT) -> list[Problem]:
    """The first ``limit`` of an export's ``problems`` and one line saying how many more it has."""
    if len(problems) <= limit:
        return problems
    return [*problems[:limit], Problem(label, "", f"and {len(problems) - limit:,} more problems in this export, not "
                                                  f"listed (at most {limit:,} are): it is quarantined whole")]


def _read_manifest(zf: SafeZip, names: set[str], label: str) -> ResultsManifest:
    """``manifest.json``, checked against the size of the zip before it is parsed and validated."""
    mdisp = f"{label}!{MANIFEST_NAME}"
    if MANIFEST_NAME not in names:
        raise DocumentError.single(label, "is not a WM-CDP results export: manifest.json is missing")
    data = zf.read(MANIFEST_NAME)
    record_files = len(names) - 1 - (AUDIT_NAME in names)
    if not json_values_at_most(data, MANIFEST_VALUES_PER_FILE * len(names) + 500):
        raise DocumentError.single(mdisp, f"is far larger than an export of {count(record_files, 'record file')} needs (not read)")
    obj = parse_json_bytes(data, mdisp)
    files = obj.get("files") if isinstance(obj, dict) else None
    if isinstance(files, list) and len(files) > record_files:
        raise DocumentError.single(
            mdisp, f"lists {len(files):,} record files but the zip holds {record_files:,} (not checked further)", "files"
        )
    return validate_obj(ResultsManifest, obj, mdisp)


def _audit_bytes(
    zf: SafeZip, names: set[str], manifest: ResultsManifest, label: str, problems: list[Problem]
) -> bytes | None:
    """``audit.jsonl`` when the manifest lists it and it matches its SHA-256 and size (else None, reported)."""
    ref = manifest.audit
    if ref is None:
        return None
    if ref.path not in names:
        problems.append(Problem(f"{label}!{MANIFEST_NAME}", "audit.path", f"{ref.path} is listed but not in the zip"))
        return None
    disp = f"{label}!{ref.path}"
    try:
        data = zf.read(ref.path)
    except DocumentError as exc:
        problems.extend(exc.problems)
        return None
    if len(data) != ref.size or sha256_hex(data) != ref.sha256:
        problems.append(Problem(disp, "", "does not match the SHA-256/size in manifest.json: changed or damaged"))
        return None
    return data


def _read_listed_records(zf: SafeZip, names: set[str], result: ExportRead) -> set[str]:
    """Each file the manifest lists: present, its size and SHA-256, a valid record that agrees with the
    manifest (kept in ``result.records``). Returns the paths listed."""
    manifest = result.manifest
    assert manifest is not None
    label, problems = result.label, result.problems
    mdisp = f"{label}!{MANIFEST_NAME}"
    listed: set[str] = set()
    for i, entry in enumerate(manifest.files):
        where = f"files[{i}]"
        if entry.path in listed:
            problems.append(Problem(mdisp, f"{where}.path", f"{entry.path} is listed twice"))
            continue
        listed.add(entry.path)
        expected_name = f"records/{entry.task_id}.r{entry.revision}.json"
        if entry.path != expected_name:
            problems.append(Problem(mdisp, f"{where}.path", f"{entry.path} should be {expected_name} (task id and revision)"))
        if entry.path not in names:
            problems.append(Problem(mdisp, f"{where}.path", f"{entry.path} is listed but not in the zip"))
            continue
        disp = f"{label}!{entry.path}"
        try:
            data = zf.read(entry.path)
            if len(data) != entry.size or sha256_hex(data) != entry.sha256:
                raise DocumentError.single(disp, "does not match the SHA-256/size in manifest.json: changed or damaged")
            record = read_record_bytes(data, disp)
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
        mismatches = [Problem(disp, json_path, f"{got!r} does not match manifest.json ({want!r})")
                      for json_path, got, want in checks if got != want]
        mismatches += own_problems(record, disp, check_times=False)
        problems.extend(mismatches)
        if not mismatches:
            result.records.append(ReadRecord(record, disp, sha256_hex(data), export=label, data=data))
    return listed


def _latest_and_count_problems(manifest: ResultsManifest, mdisp: str) -> list[Problem]:
    """``latest`` set on exactly the newest revision of each task; the counts agree with the list."""
    problems: list[Problem] = []
    latest_flags: dict[str, list[tuple[int, bool]]] = {}
    paths: set[str] = set()
    for entry in manifest.files:
        if entry.path not in paths:  # a path listed twice counts once
            paths.add(entry.path)
            latest_flags.setdefault(entry.task_id, []).append((entry.revision, entry.latest))
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
    return problems


def record_files(folder: Path, problems: list[Problem]) -> list[str]:
    """The record files under ``folder`` as the strings ``str(folder / ... / name)``, in the order
    ``sorted()`` gives their paths (names compared case-insensitively on Windows, as pathlib does).

    ``drafts/``, ``quarantine/`` and hidden folders and files are skipped; symbolic links are skipped and
    reported; a folder that cannot be listed is reported. In a rater's data folder (one holding
    ``settings.json`` and ``bundles/``, at any depth) only ``bundles/`` is searched. ``os.scandir`` gives each entry's type with the
    listing (no ``stat`` per file).
    """
    found: list[str] = []
    key = (lambda e: e.name) if os.name == "posix" else (lambda e: e.name.lower())

    def walk(current: str) -> None:
        try:
            with os.scandir(current) as listing:
                entries = sorted(listing, key=key)
            names = {e.name for e in entries}
            data_folder = all(marker in names for marker in DATA_FOLDER_MARKERS)
        except OSError as exc:
            problems.append(Problem(current, "", f"cannot be read ({exc.strerror or exc})"))
            return
        prefix = str(Path(current) / "x")[:-1]  # what pathlib puts before a child's name
        for entry in entries:  # depth first, in name order: the order of the sorted paths
            path = prefix + entry.name
            if entry.is_symlink():
                problems.append(Problem(path, "", "is a symbolic link (skipped)"))
            elif entry.is_dir():
                wanted = not data_folder or entry.name == DATA_FOLDER_RECORDS
                if wanted and entry.name not in SKIPPED_FOLDERS and not entry.name.startswith("."):
                    walk(path)
            elif entry.name.endswith(".json") and not entry.name.startswith(".") and not data_folder:
                found.append(path)

    walk(str(folder))
    return found


DATA_FOLDER_MARKERS = ("settings.json", "bundles")
DATA_FOLDER_RECORDS = "bundles"
"""A rater's data folder (``rater/storage.py``) holds ``settings.json`` and ``bundles/``: only
``bundles/`` is searched there (settings, the instance lock and logs are not records)."""


_Outcome = tuple[TaskRecord | None, RecordSummary, list[Problem]] | list[Problem]
"""One record file read: ``(record or None, its summary, its clock_suspect times)``, or its problems."""


def clock_suspects(record: TaskRecord, source: str) -> list[Problem]:
    """The record's times a wrong clock explains (before 2020, more than a day ahead of this computer): said,
    never a reason to leave the record out (``clock_suspect``)."""
    env = record.envelope
    return time_problems([("envelope.started_at", env.started_at), ("envelope.submitted_at", env.submitted_at)], source)


def _read_record_file(source: str, keep_record: bool) -> _Outcome:
    try:
        data = read_file_bytes(source)
        record = read_record_bytes(data, source)
    except DocumentError as exc:
        return exc.problems
    broken = own_problems(record, source, check_times=False)
    if broken:
        return broken
    return (record if keep_record else None, summary_of(record, source, sha256_hex(data)), clock_suspects(record, source))


def read_records(
    paths: list[Path],
    progress: Callable[[int, int], None] | None = None,
    *,
    keep_records: bool = True,
    coordinator_key: CoordinatorKey | None = None,
) -> ReadResult:
    """Read record files, folders of them and export zips; collect valid records and every problem.

    ``progress(done, total)`` counts files and exports read. ``keep_records=False``: only
    :attr:`ReadResult.summaries` is filled (:attr:`ReadResult.records` stays empty), so that 100,000 valid
    records are not all kept in memory when only their counts are reported.
    """
    result = ReadResult()
    targets: list[tuple[str, Path | str]] = []
    """``("record", str(path))`` or ``("export", path)``, in reading order."""
    for path in paths:
        path = Path(path)
        if path.is_dir():
            sources = record_files(path, result.problems)
            if not sources:
                result.problems.append(Problem(str(path), "", "holds no record files (*.json)"))
            targets.extend(("record", source) for source in sources)
        elif not path.exists():
            result.problems.append(Problem(str(path), "", "file not found"))
        elif is_zip_path(path):
            targets.append(("export", path))
        else:
            targets.append(("record", str(path)))
    for done, (kind, target) in enumerate(targets, start=1):
        if kind == "export":
            _add_export(result, read_export(Path(target), coordinator_key), keep_records)
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
    result.summaries.extend(summary_of(rr.record, rr.source, rr.sha256, rr.export) for rr in export.records)
    result.problems.extend(export.problems)
    result.clock.extend(export.clock)
    result.files_read += len(export.manifest.files) if export.manifest else 0


def _add_record(result: ReadResult, source: str, outcome: _Outcome) -> None:
    result.files_read += 1
    if isinstance(outcome, list):
        result.problems.extend(outcome)
        return
    record, summary, clock = outcome
    if record is not None:
        result.records.append(ReadRecord(record, source, summary.sha256))
    result.summaries.append(summary)
    result.clock.extend(clock)
