"""The results export: one zip the rater sends back to the coordinator (INTERFACES.md).

``manifest.json`` (:class:`~wmcdp_desktop.core.models.results_manifest.ResultsManifest`) and
``records/<task_id>.r<revision>.json``: every revision of every submitted record, byte for byte as
stored, each with its sha256; ``latest: true`` marks the revision that counts. Drafts are never
exported (the manifest counts them). The zip is built in memory and written atomically: a partial zip
never appears under the final name.
"""

from __future__ import annotations

import contextlib
import io
import zipfile
from pathlib import Path

from wmcdp_desktop import __version__
from wmcdp_desktop.core.atomic import atomic_write_bytes
from wmcdp_desktop.core.errors import StorageError
from wmcdp_desktop.core.models.results_manifest import RESULTS_FORMAT_VERSION, ResultsManifest
from wmcdp_desktop.core.paths import check_id, name_problem
from wmcdp_desktop.core.rater.storage import RaterStore, sha256_hex
from wmcdp_desktop.core.rater.timing import Clock, utc_iso
from wmcdp_desktop.core.strict_json import dumps_canonical

_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def export_file_name(study_id: str, rater_id: str, clock: Clock) -> str:
    """``wmcdp-results-<study>-<rater>-<YYYYmmddTHHMMSSZ>.zip`` (ids checked; raises UnsafeNameError)."""
    check_id(study_id, "study id")
    check_id(rater_id, "rater id")
    stamp = utc_iso(clock).replace("-", "").replace(":", "")
    name = f"wmcdp-results-{study_id}-{rater_id}-{stamp}.zip"
    if name_problem(name) is not None:  # too long for a file name: keep the ids' starts
        name = f"wmcdp-results-{study_id[:60]}-{rater_id[:60]}-{stamp}.zip"
    return name


def _zip_add(zf: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    zf.writestr(info, data)


def build_export(
    store: RaterStore,
    *,
    bundle_id: str,
    bundle_sha256: str,
    study_id: str,
    task_ids: list[str],
    drafts_not_submitted: int,
    clock: Clock,
    app_version: str = __version__,
) -> tuple[bytes, ResultsManifest]:
    """The zip's bytes and its manifest."""
    wanted = set(task_ids)
    files = [rf for rf in store.record_files() if rf.task_id in wanted]
    latest: dict[str, int] = {}
    for rf in files:
        latest[rf.task_id] = max(latest.get(rf.task_id, 0), rf.revision)
    entries = []
    payload: list[tuple[str, bytes]] = []
    for rf in files:
        try:
            data = rf.path.read_bytes()
        except OSError as exc:
            raise StorageError(f"Could not read the record {rf.path}: {exc.strerror or exc}.") from exc
        name = f"records/{rf.path.name}"
        payload.append((name, data))
        entries.append(
            {
                "path": name,
                "sha256": sha256_hex(data),
                "size": len(data),
                "task_id": rf.task_id,
                "revision": rf.revision,
                "latest": rf.revision == latest[rf.task_id],
            }
        )
    manifest = ResultsManifest.model_validate(
        {
            "document_type": "wmcdp_results",
            "format_version": RESULTS_FORMAT_VERSION,
            "bundle_id": bundle_id,
            "bundle_sha256": bundle_sha256,
            "study_id": study_id,
            "rater_id": store.rater_id,
            "app_version": app_version,
            "exported_at": utc_iso(clock),
            "counts": {
                "tasks_in_bundle": len(task_ids),
                "submitted": len(latest),
                "record_files": len(entries),
                "drafts_not_submitted": drafts_not_submitted,
            },
            "files": entries,
        }
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        _zip_add(zf, "manifest.json", dumps_canonical(manifest.to_json_obj()).encode("utf-8"))
        for name, data in payload:
            _zip_add(zf, name, data)
    return buf.getvalue(), manifest


def export_results(
    store: RaterStore,
    destination: Path,
    *,
    bundle_id: str,
    bundle_sha256: str,
    study_id: str,
    task_ids: list[str],
    drafts_not_submitted: int,
    clock: Clock,
    app_version: str = __version__,
) -> ResultsManifest:
    """Write the export zip atomically to ``destination`` and note it in the audit log."""
    data, manifest = build_export(
        store,
        bundle_id=bundle_id,
        bundle_sha256=bundle_sha256,
        study_id=study_id,
        task_ids=task_ids,
        drafts_not_submitted=drafts_not_submitted,
        clock=clock,
        app_version=app_version,
    )
    atomic_write_bytes(destination, data)
    # The export itself is complete; a missing audit line must not hide that.
    with contextlib.suppress(StorageError):
        store.audit(
            "exported",
            file=str(destination),
            sha256=sha256_hex(data),
            record_files=manifest.counts.record_files,
            submitted=manifest.counts.submitted,
        )
    return manifest
