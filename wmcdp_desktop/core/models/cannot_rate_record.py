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

from wmcdp_desktop.core.models.base import Document
from wmcdp_desktop.core.models.common import NonBlankStr
from wmcdp_desktop.core.models.rating_record import BaseRecord

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


class CannotRateRecord(BaseRecord):
    """A rater's "cannot rate" for one task (instead of a rating)."""

    record_kind: Literal["cannot_rate"]
    """Always ``cannot_rate``."""
    cannot_rate: CannotRate
    """Why the task could not be rated."""
