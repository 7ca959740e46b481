"""A "cannot rate" record: the rater's answer for a task they cannot score, instead of a rating.

Stored, revised, exported and collected exactly like a :class:`~wmcdp_desktop.core.models.rating_record.
RatingRecord` (same file names, same envelope, same task fields, so a later revision may turn it into a
rating or back), told apart by ``record_kind: "cannot_rate"``. It carries no scores, failure modes or
notes: only the reason (:data:`CANNOT_RATE_REASONS`), a detail in the rater's words (required for
``other``), an optional flag for the coordinator and the time spent.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from wmcdp_desktop.core.models._base import Document
from wmcdp_desktop.core.models.common import NonBlankStr, Seconds
from wmcdp_desktop.core.models.rating_record import CoordinatorFlag, Envelope

CannotRateReason = Literal["content_broken_or_truncated", "outside_expertise", "conflict_of_interest", "other"]
CANNOT_RATE_REASONS: tuple[CannotRateReason, ...] = (
    "content_broken_or_truncated",
    "outside_expertise",
    "conflict_of_interest",
    "other",
)
"""The reasons a rater may give, in the order the app lists them."""
MAX_DETAIL = 5_000
"""Longest detail text (characters)."""


class CannotRate(Document):
    """Why the rater cannot rate the task."""

    reason: CannotRateReason
    """``content_broken_or_truncated`` (the scenario or response is broken, cut off or unreadable),
    ``outside_expertise``, ``conflict_of_interest`` or ``other`` (then ``detail`` says why)."""
    detail: Annotated[NonBlankStr, Field(max_length=MAX_DETAIL)] | None = None
    """The rater's words (required for ``other``, optional otherwise)."""

    @model_validator(mode="after")
    def _other_says_why(self) -> CannotRate:
        if self.reason == "other" and self.detail is None:
            raise ValueError("reason 'other' needs a detail saying why")
        return self


class CannotRateRecord(Document):
    """A rater's "cannot rate" for one task (instead of a rating)."""

    envelope: Envelope
    """Provenance: schema, ids, app version, timestamps, revision (as for a rating)."""
    record_kind: Literal["cannot_rate"]
    """Always ``cannot_rate``."""
    benchmark_item_id: NonBlankStr
    """WM-FLD-001 Benchmark item ID."""
    clinical_domain_id: NonBlankStr
    """WM-FLD-002 Clinical domain ID."""
    scenario_type_ids: list[str]
    """WM-FLD-003 Scenario type IDs."""
    candidate_response_id: NonBlankStr
    """WM-FLD-004 Candidate response ID (opaque)."""
    candidate_response_text: str
    """WM-FLD-005 Candidate response text, exactly as shown (the coordinator sees what the rater saw)."""
    model_source: str | None = None
    """WM-FLD-006 Model source: absent on the rater's machine; filled in by unblinding."""
    rater_id: NonBlankStr
    """WM-FLD-007 Rater ID."""
    rater_role_or_background: str | None = None
    """WM-FLD-008 Rater role or background."""
    cannot_rate: CannotRate
    """Why the task could not be rated."""
    coordinator_flag: CoordinatorFlag | None = None
    """Set when the rater also flagged the task for the coordinator, with their note."""
    time_spent_scoring_seconds: Seconds | None = None
    """WM-FLD-024 Active time on the task in whole seconds (idle and hidden time excluded)."""
