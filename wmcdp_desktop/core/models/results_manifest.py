"""``manifest.json`` of a results export zip (what a rater sends back)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from wmcdp_desktop.core.models._base import Document
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

RESULTS_FORMAT_VERSION = "1.0.0"


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
    rater_id: NonBlankStr
    """Who rated."""
    app_version: NonBlankStr
    """App version that exported."""
    exported_at: DateTime
    """When the export was written."""
    counts: ExportCounts
    """Counts."""
    files: list[ExportedFile]
    """Every record file with its digest."""

