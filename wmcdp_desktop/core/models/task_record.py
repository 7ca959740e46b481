"""A task's submitted record: a rating or a "cannot rate", told apart by ``record_kind``.

Record files hold either kind (``records/<task_id>.r<revision>.json``); a record without ``record_kind``
is a rating (every record written before the kinds existed). Readers pick the model with
:func:`record_model`, so a bad rating is reported against the rating schema and a bad "cannot rate"
against its own.
"""

from __future__ import annotations

from typing import Any, Literal

from wmcdp_desktop.core.models.cannot_rate_record import CannotRateRecord
from wmcdp_desktop.core.models.rating_record import RatingRecord

RecordKind = Literal["rating", "cannot_rate"]
RECORD_KINDS: tuple[RecordKind, ...] = ("rating", "cannot_rate")
TaskRecord = RatingRecord | CannotRateRecord
"""Any submitted record of a task."""


def record_model(obj: Any) -> type[RatingRecord] | type[CannotRateRecord]:
    """The model a parsed record object is validated with: by its ``record_kind`` (a rating when absent;
    an unknown kind is validated as a rating, whose schema then names the field)."""
    if isinstance(obj, dict) and obj.get("record_kind") == "cannot_rate":
        return CannotRateRecord
    return RatingRecord


def validate_record(obj: Any) -> TaskRecord:
    """``obj`` as the record of its kind (raises pydantic's ValidationError)."""
    return record_model(obj).model_validate(obj)


def record_kind(record: TaskRecord) -> RecordKind:
    return "cannot_rate" if isinstance(record, CannotRateRecord) else "rating"
