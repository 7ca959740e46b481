"""A draft rating (``drafts/<task_id>.json`` in the rater's data folder): a record still being written.

Unlike a :class:`~wmcdp_desktop.core.models.rating_record.RatingRecord`, anything may still be unset:
a dimension without a score is simply absent from ``scores`` (no default value is ever recorded),
confidence is absent until chosen. A draft also carries the active time spent so far, so a restart or
a crash loses neither the rating nor the time.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from wmcdp_desktop.core.models.base import Document
from wmcdp_desktop.core.models.cannot_rate_record import CannotRateReason
from wmcdp_desktop.core.models.common import (
    MAX_SECONDS,
    DateTime,
    Identifier,
    Revision,
    ScaleLevel,
    Severity,
    SpanRef,
)
from wmcdp_desktop.core.models.rating_record import FailureModeKey, Score

DRAFT_FORMAT_VERSION = "1.0.0"

DimensionId = Annotated[str, Field(pattern=r"^WM-RUB-00[1-8]$")]


class FailureModeDraft(Document):
    """The rater's entry for one failure mode of the catalogue."""

    checked: bool
    """Whether the rater says the failure is present."""
    severity: Severity | None = None
    """Chosen severity while checked (``minor``..``critical``); unset until chosen."""
    note: str = ""
    """Evidence note."""
    spans: list[SpanRef] = Field(default_factory=list)
    """Evidence spans selected in the candidate response."""


class NotesDraft(Document):
    """The clinician's notes as typed so far."""

    brief_rationale: str = ""
    """Required before submitting."""
    best_aspect: str = ""
    """Optional."""
    main_concern: str = ""
    """Optional."""
    suggested_better_clinical_move: str = ""
    """Optional."""
    confidence_rating: ScaleLevel | None = None
    """Unset until chosen."""


class CannotRateDraft(Document):
    """The rater's "cannot rate" as entered so far (the reason may still be unchosen)."""

    reason: CannotRateReason | None = None
    """The reason chosen; absent until chosen."""
    detail: str = ""
    """The rater's words (required before submitting when the reason is ``other``)."""


class FlagDraft(Document):
    """The rater's flag for the coordinator as entered so far."""

    note: str = ""
    """The note (required before submitting a flagged task)."""


class Draft(Document):
    """A partial rating of one task, autosaved while the rater works."""

    document_type: Literal["wmcdp_draft"]
    """Always ``wmcdp_draft``."""
    format_version: Literal["1.0.0"]
    """Draft format version."""
    task_id: Identifier
    """The task being rated."""
    bundle_id: Identifier
    """The bundle the task belongs to."""
    rater_id: Identifier
    """Who is rating."""
    scores: dict[DimensionId, Score] = Field(default_factory=dict)
    """Dimension id -> score or ``"N/A"``; a dimension not yet set is absent."""
    failure_modes: dict[FailureModeKey, FailureModeDraft] = Field(default_factory=dict)
    """Failure mode id -> the rater's entry; absent = not touched (counts as unchecked)."""
    notes: NotesDraft = Field(default_factory=NotesDraft)
    """Notes typed so far."""
    active_seconds: Annotated[float, Field(ge=0, le=MAX_SECONDS)] = 0.0
    """Active time spent on the task so far (all visits)."""
    started_at: DateTime
    """When the rater first opened the task."""
    updated_at: DateTime
    """When the draft was last saved."""
    base_revision: Revision | None = None
    """When revising a submitted rating: the revision this draft will supersede."""
    base_record_id: Annotated[str, Field(pattern=r"^[0-9a-f]{32}$")] | None = None
    """When revising: the record id this draft will supersede."""
    cannot_rate: CannotRateDraft | None = None
    """Set while the rater marks the task "cannot rate" (submitted as a "cannot rate" record instead of the
    rating; the scores entered so far are kept here in case they change their mind)."""
    coordinator_flag: FlagDraft | None = None
    """Set while the task is flagged for the coordinator."""
