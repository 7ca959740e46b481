"""The results export: one zip the rater sends back to the coordinator (INTERFACES.md).

``manifest.json`` (:class:`~wmcdp_desktop.core.models.results_manifest.ResultsManifest`),
``records/<task_id>.r<revision>.json``: every revision of every submitted record, byte for byte as
stored, each with its sha256 (``latest: true`` marks the revision that counts), and ``audit.jsonl``: the
rater's hash-chained audit log, ending in this export's ``export_sealed`` event, which names the bundle
(id and SHA-256), the rater, the study and a digest of the record files (:mod:`wmcdp_desktop.core.audit_chain`).
The SHA-256 of that last line is the chain's head; the receipt code the app shows after exporting is
derived from it (:func:`export_receipt`). Drafts are never exported (the manifest counts them). The zip
is built in memory and written atomically: a partial zip never appears under the final name.

The export of an **encrypted bundle** is the same zip, sealed in memory to the coordinator's public key (the
bundle manifest's ``export_public_key``: :func:`~wmcdp_desktop.core.encryption.sealed_box.seal_to`) before it is
written; only the coordinator's private key opens it, so the rater's computer never holds what opens another
rater's work. Its file name holds no study id (:func:`sealed_export_file_name`). The receipt code is the plain
chain's, as for a plain export.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import time
import uuid
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from wmcdp_desktop import __version__
from wmcdp_desktop.core import audit_chain
from wmcdp_desktop.core.atomic import TEMP_PREFIX, atomic_write_bytes
from wmcdp_desktop.core.digests import sha256_hex
from wmcdp_desktop.core.errors import StorageError, WmcdpError
from wmcdp_desktop.core.files import FileTooLargeError, NotRegularFileError, read_regular
from wmcdp_desktop.core.models.results_manifest import (
    AUDIT_NAME,
    MANIFEST_NAME,
    RESULTS_FORMAT_VERSION,
    ResultsManifest,
)
from wmcdp_desktop.core.paths import check_id, name_problem
from wmcdp_desktop.core.strict_json import dumps_canonical
from wmcdp_desktop.rater.storage import DataFolderGoneError, RaterStore, RecordFile
from wmcdp_desktop.rater.timing import Clock, utc_iso

_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
Progress = Callable[[int, int], None]
"""``progress(done, total)`` after each record file read; it may raise to stop the export (nothing is
written then)."""


SEALED_EXPORT_SUFFIX = ".wmcdp-sealed"
"""The file name ending of a sealed export (the coordinator's commands recognise it by its first bytes too)."""


def sealed_export_file_name(rater_id: str, clock: Clock) -> str:
    """``wmcdp-results-<rater>-<YYYYmmddTHHMMSSZ>.wmcdp-sealed``: no study id (the rater's id is the one the rater
    typed and the coordinator sent; it says whose file it is, nothing of the study)."""
    check_id(rater_id, "rater id")
    stamp = utc_iso(clock).replace("-", "").replace(":", "")
    name = f"wmcdp-results-{rater_id}-{stamp}{SEALED_EXPORT_SUFFIX}"
    if name_problem(name) is not None:
        name = f"wmcdp-results-{rater_id[:60]}-{stamp}{SEALED_EXPORT_SUFFIX}"
    return name


def export_file_name(study_id: str, rater_id: str, clock: Clock) -> str:
    """``wmcdp-results-<study>-<rater>-<YYYYmmddTHHMMSSZ>.zip`` (ids checked; raises UnsafeNameError)."""
    check_id(study_id, "study id")
    check_id(rater_id, "rater id")
    stamp = utc_iso(clock).replace("-", "").replace(":", "")
    name = f"wmcdp-results-{study_id}-{rater_id}-{stamp}.zip"
    if name_problem(name) is not None:  # too long for a file name: keep the ids' starts
        name = f"wmcdp-results-{study_id[:60]}-{rater_id[:60]}-{stamp}.zip"
    return name


PENDING_NAME = "export-in-progress.txt"
"""In the rater's folder while an export is being written: the folder the export goes to. An export killed before
it finished leaves it (and its temporary zip, which holds the ratings); the next start or export removes both."""
_EXPORT_TEMP = re.compile(rf"^{re.escape(TEMP_PREFIX)}.+\.(?:zip|wmcdp-sealed)\.(?P<pid>[0-9]+)\.[0-9]+$")
STALE_TEMP_SECONDS = 3600
"""Where a process cannot be asked whether it still runs (Windows), a temporary export this old is a leftover."""


def _process_alive(pid: int) -> bool | None:
    """Whether the process ``pid`` runs (None: this system cannot tell without more)."""
    if os.name != "posix":
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return None
    return True


def leftover_export_files(folder: Path) -> list[Path]:
    """The temporary zips of exports killed before they finished in ``folder`` (``.tmp-<name>.zip.<pid>.<n>``,
    written by no process that still runs; none of this process's own)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    found = []
    for entry in entries:
        match = _EXPORT_TEMP.match(entry.name)
        if match is None or not entry.is_file(follow_symlinks=False):
            continue
        pid = int(match["pid"])
        if pid == os.getpid():
            continue
        alive = _process_alive(pid)
        if alive is None:
            with contextlib.suppress(OSError):
                alive = time.time() - entry.stat(follow_symlinks=False).st_mtime < STALE_TEMP_SECONDS
        if alive is False:
            found.append(Path(entry.path))
    return sorted(found)


def _note_pending(pending: Path, folder: Path) -> None:
    """Write the note of an export in progress: a plain write (a torn note only misses a clean-up), never
    through a link; a failure is ignored (only tidiness after a kill depends on it)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    with contextlib.suppress(OSError):
        fd = os.open(pending, flags, 0o600)
        try:
            os.write(fd, str(folder.absolute()).encode("utf-8"))
        finally:
            os.close(fd)


def remove_leftover_exports(store: RaterStore, folder: Path | None = None) -> list[str]:
    """Remove the temporary zips a killed export left (in ``folder``, and where the note of an unfinished export
    of ``store`` points), audited; the note goes too. Returns the paths removed."""
    pending = store.root / PENDING_NAME
    folders = [] if folder is None else [folder]
    with contextlib.suppress(OSError, UnicodeDecodeError, ValueError):
        folders.append(Path(read_regular(pending, 64 * 1024).decode("utf-8").strip()))
    removed: list[str] = []
    for where in dict.fromkeys(folders):
        for path in leftover_export_files(where):
            with contextlib.suppress(OSError):
                path.unlink()
                removed.append(str(path))
    if folder is None:
        with contextlib.suppress(OSError):
            pending.unlink()
    if removed:
        with contextlib.suppress(StorageError):
            store.audit("export_leftovers_removed", files=removed)
    return removed


def export_receipt(manifest: ResultsManifest) -> str:
    """The receipt code of an export (``7K3QD-M2XWA``): the rater sends it to the coordinator apart from the
    file; ``wmcdp results validate --receipt`` and ``results collect --receipts`` check it."""
    if manifest.audit is None:
        raise StorageError("This export has no audit chain, so it has no receipt code.")
    return audit_chain.receipt_code(manifest.audit.head)


def _zip_add(zf: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    zf.writestr(info, data)


def _read_records(store: RaterStore, files: list[RecordFile],
                  progress: Progress | None) -> tuple[list[dict[str, object]], list[tuple[str, bytes]]]:
    """The manifest entry and the bytes of every record file to export. A file the app cannot have written
    (too large, not a regular file) is set aside in quarantine, never exported and never blocking the export."""
    read: list[tuple[RecordFile, bytes]] = []
    for done, rf in enumerate(files):
        if progress is not None:
            progress(done, len(files))
        try:
            read.append((rf, store.record_bytes(rf)))
        except (FileTooLargeError, NotRegularFileError) as exc:
            if rf.path.is_dir():
                raise StorageError(f"Could not read the record {rf.path}: {exc.strerror}.") from exc
            store.set_aside_record(rf.path, f"{rf.path}: {exc.strerror}")  # never a record the app wrote
        except WmcdpError as exc:  # a sealed record that does not open: damaged or changed, never one the app wrote
            store.set_aside_record(rf.path, f"{rf.path}: {exc}")
        except OSError as exc:
            raise StorageError(f"Could not read the record {rf.path}: {exc.strerror or exc}.") from exc
    latest: dict[str, int] = {}
    for rf, _ in read:
        latest[rf.task_id] = max(latest.get(rf.task_id, 0), rf.revision)
    entries: list[dict[str, object]] = []
    payload: list[tuple[str, bytes]] = []
    for rf, data in read:
        name = f"records/{rf.name}"
        payload.append((name, data))
        entries.append({"path": name, "sha256": sha256_hex(data), "size": len(data), "task_id": rf.task_id,
                        "revision": rf.revision, "latest": rf.revision == latest[rf.task_id]})
    if progress is not None:
        progress(len(files), len(files))  # the last chance to stop: nothing is sealed or written yet
    return entries, payload


def _zip(manifest: ResultsManifest, payload: list[tuple[str, bytes]], log: bytes) -> bytes:
    """The export zip: the manifest, the record files, the audit log up to the seal."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        _zip_add(zf, MANIFEST_NAME, dumps_canonical(manifest.to_json_obj()).encode("utf-8"))
        for name, data in payload:
            _zip_add(zf, name, data)
        _zip_add(zf, AUDIT_NAME, log)
    return buf.getvalue()


@dataclass(frozen=True)
class ExportPlan:
    """One rater's results export, its inputs taken at one moment (``RatingSession.export_plan``): plain values
    and a store object of its own, so it can run on another thread while the rater works on."""

    store: RaterStore
    bundle_id: str
    bundle_sha256: str
    study_id: str
    task_ids: Sequence[str]
    drafts_not_submitted: int
    clock: Clock
    app_version: str = __version__
    sealed_to: bytes | None = None
    """The coordinator's public key the written file is sealed to (an encrypted bundle's export), or None."""

    def build(self, progress: Progress | None = None) -> tuple[bytes, ResultsManifest]:
        """The zip's bytes and its manifest. Seals the audit chain: appends the ``export_sealed`` event
        (durably) to the rater's audit log, whose bytes up to that line go into the zip."""
        store = self.store
        # A record written just before a crash may have no audit line yet: tie it into the chain first.
        store.recover_unaudited_records()
        wanted = set(self.task_ids)
        files = [rf for rf in store.record_files() if rf.task_id in wanted]
        entries, payload = _read_records(store, files, progress)
        digests = [(str(e["path"]), str(e["sha256"])) for e in entries]
        exported_at = utc_iso(self.clock)
        export_id = uuid.uuid4().hex
        head, log = store.audit_and_read(
            audit_chain.SEAL_EVENT,
            export_id=export_id,
            bundle_id=self.bundle_id,
            bundle_sha256=self.bundle_sha256,
            rater_id=store.rater_id,
            study_id=self.study_id,
            record_files=len(entries),
            records_sha256=audit_chain.records_digest(digests),
            exported_at=exported_at,
        )
        lines = audit_chain.split_lines(log)
        if not lines or not log.endswith(b"\n") or audit_chain.line_sha256(lines[-1]) != head:
            raise StorageError(f"The audit log {store.audit_path} changed while the export was being sealed; export again.")
        manifest = ResultsManifest.model_validate(
            {
                "document_type": "wmcdp_results",
                "format_version": RESULTS_FORMAT_VERSION,
                "bundle_id": self.bundle_id,
                "bundle_sha256": self.bundle_sha256,
                "study_id": self.study_id,
                "rater_id": store.rater_id,
                "app_version": self.app_version,
                "exported_at": exported_at,
                "counts": {
                    "tasks_in_bundle": len(self.task_ids),
                    "submitted": len({e["task_id"] for e in entries}),
                    "record_files": len(entries),
                    "drafts_not_submitted": self.drafts_not_submitted,
                },
                "files": entries,
                "audit": {"path": AUDIT_NAME, "sha256": sha256_hex(log), "size": len(log), "head": head, "export_id": export_id},
            }
        )
        return _zip(manifest, payload, log), manifest

    def run(self, destination: Path, progress: Progress | None = None) -> ResultsManifest:
        """Write the export zip atomically to ``destination`` and note it in the audit log."""
        gone = self.store.folder_problem()
        if gone is not None:  # an export of a vanished folder would say "0 ratings" as if that were all
            raise DataFolderGoneError(gone)
        if self.store.cipher is not None and self.sealed_to is None:
            raise StorageError(
                "This bundle is encrypted but holds no key of your coordinator to seal the results to, so they cannot "
                "be exported without showing the ratings in the clear. Ask your coordinator for a new bundle."
            )
        data, manifest = self.build(progress)
        if self.sealed_to is not None:
            from wmcdp_desktop.core.encryption.sealed_box import seal_to

            data = seal_to(self.sealed_to, data)
        remove_leftover_exports(self.store, destination.parent)
        pending = self.store.root / PENDING_NAME
        _note_pending(pending, destination.parent)
        try:
            atomic_write_bytes(destination, data)
        finally:  # a kill skips this: the note stays for the next start to find the temporary zip by
            with contextlib.suppress(OSError):
                pending.unlink()
        # The export itself is complete; a missing audit line must not hide that.
        with contextlib.suppress(StorageError):
            self.store.audit(
                "exported",
                file=str(destination),
                sha256=sha256_hex(data),
                record_files=manifest.counts.record_files,
                submitted=manifest.counts.submitted,
                export_id=manifest.audit.export_id if manifest.audit else "",
            )
        return manifest
