"""``manifest.json`` of a results export zip (what a rater sends back)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from wmcdp_desktop.core.models.base import Document
from wmcdp_desktop.core.models.common import (
    ByteSize,
    Count,
    DateTime,
    Identifier,
    NonBlankStr,
    Revision,
    SemVer,
    Sha256,
)

RESULTS_FORMAT_VERSION = "1.1.0"
"""1.1.0 added :class:`AuditRef` (the hash-chained audit log and its head); 1.0.0 exports have none."""
MANIFEST_NAME = "manifest.json"
"""The export's manifest, at the top of the zip (a bundle has ``bundle.json`` there instead)."""
AUDIT_NAME = "audit.jsonl"


class ExportedFile(Document):
    """One record file in the export."""

    path: Annotated[str, Field(pattern=r"^records/[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.json$")]
    """Path inside the zip: ``records/<task_id>.r<revision>.json``."""
    sha256: Sha256
    """SHA-256 of the file's bytes."""
    size: ByteSize
    """Size in bytes."""
    task_id: Identifier
    """Task the record rates."""
    revision: Revision
    """Revision number of the record."""
    latest: bool
    """True for the latest revision of its task (the one that counts)."""


class ExportCounts(Document):
    """Counts for a quick check by the coordinator."""

    tasks_in_bundle: Count
    """Tasks in the bundle."""
    submitted: Count
    """Tasks with a submitted record."""
    record_files: Count
    """Record files in the export (all revisions)."""
    drafts_not_submitted: Count
    """Tasks with an unsubmitted draft (not exported)."""


class AuditRef(Document):
    """The rater's audit log, carried in the export as a hash chain ending in this export's seal."""

    path: Literal["audit.jsonl"]
    """Path inside the zip."""
    sha256: Sha256
    """SHA-256 of the file's bytes."""
    size: ByteSize
    """Size in bytes."""
    head: Sha256
    """SHA-256 of its last line, the ``export_sealed`` event: the receipt code is derived from it."""
    export_id: Annotated[str, Field(pattern=r"^[0-9a-f]{32}$")]
    """Unique id of this export (also in the seal)."""


class ResultsManifest(Document):
    """What a results export holds and where it came from."""

    document_type: Literal["wmcdp_results"]
    """Always ``wmcdp_results``."""
    format_version: SemVer
    """Results format version (``1.0.0``)."""
    bundle_id: Identifier
    """The bundle that was rated."""
    bundle_sha256: Sha256
    """SHA-256 of that bundle's ``bundle.json``."""
    study_id: Identifier
    """The study."""
    rater_id: Identifier
    """Who rated."""
    app_version: NonBlankStr
    """App version that exported."""
    exported_at: DateTime
    """When the export was written."""
    counts: ExportCounts
    """Counts."""
    files: list[ExportedFile]
    """Every record file with its digest."""
    audit: AuditRef | None = None
    """The audit chain (absent only when it was removed: collect and validate say so)."""

