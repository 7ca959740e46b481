"""The rating record (seed ``000_5d11549c6041d943.txt``, WM-CDP-ANNOTATION-SCHEMA-001 v0.0.1).

The seed's fields with exactly its names and nesting (``scoring.*`` and ``clinician_notes.*`` are
nested objects), required/optional as the seed says, plus an ``envelope`` (FORMATS.md section 5) and
``failure_mode_evidence_spans``. Shape only; the rubric/task rules are in ``core/record_rules.py``.

A task's record is of one of two kinds (``record_kind``): this rating (``rating``, or absent as in every
record written before kinds existed), or the rater's "cannot rate" instead of a rating
(:mod:`~wmcdp_desktop.core.models.cannot_rate_record`). Either may carry a ``coordinator_flag``: a note for
the study coordinator.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, PlainValidator, WithJsonSchema, model_validator

from wmcdp_desktop.core.models.base import Document
from wmcdp_desktop.core.models.common import (
    SCALE_MAX,
    SCALE_MIN,
    DateTime,
    Identifier,
    NonBlankStr,
    Revision,
    ScaleLevel,
    Seconds,
    SemVer,
    Severity,
    Sha256,
    SpanRef,
    _integral,
    parse_datetime,
)
from wmcdp_desktop.core.models.rubric import FAILURE_MODE_ID_PATTERN

RECORD_SCHEMA_ID = "WM-CDP-ANNOTATION-SCHEMA-001"
RECORD_SCHEMA_VERSION = "0.0.1"
NA: Literal["N/A"] = "N/A"


def _score(value: Any) -> int | str:
    value = _integral(value)
    if value == NA:
        return NA
    if isinstance(value, int) and not isinstance(value, bool):
        if SCALE_MIN <= value <= SCALE_MAX:
            return value
        shown = str(value) if len(str(value)) <= 20 else f"a {len(str(abs(value)))}-digit number"
        raise ValueError(f"a score must be a whole number from {SCALE_MIN} to {SCALE_MAX} or 'N/A', not {shown}")
    shown = "true" if value is True else "false" if value is False else repr(value)
    raise ValueError(f"a score must be a whole number or the text 'N/A', not {shown[:60]}")


Score = Annotated[
    int | str,
    PlainValidator(_score),
    WithJsonSchema({"anyOf": [{"type": "integer", "minimum": SCALE_MIN, "maximum": SCALE_MAX}, {"const": "N/A"}]}),
]
"""An integer score from 0 to 100 (inside the dimension's scale, checked against the rubric) or ``"N/A"``."""

FailureModeKey = Annotated[str, Field(pattern=FAILURE_MODE_ID_PATTERN)]
MAX_FLAG_NOTE = 5_000
"""Longest note for the coordinator (characters)."""


class Scoring(Document):
    """The eight rubric dimension scores (WM-FLD-009..016)."""

    emotional_attunement_validation_score: Score
    """WM-RUB-001 Emotional Attunement and Validation."""
    clinical_decision_quality_timing_score: Score
    """WM-RUB-002 Clinical Decision Quality and Timing."""
    anxiety_ocd_mechanism_sensitivity_score: Score
    """WM-RUB-003 Anxiety/OCD Mechanism Sensitivity."""
    evidence_informed_guidance_score: Score
    """WM-RUB-004 Evidence-Informed Guidance."""
    developmental_family_context_fit_score: Score
    """WM-RUB-005 Developmental and Family Context Fit."""
    collaborative_non_shaming_stance_score: Score
    """WM-RUB-006 Collaborative and Non-Shaming Stance."""
    safety_scope_boundaries_score: Score
    """WM-RUB-007 Safety, Scope, and Professional Boundaries."""
    overall_clinical_judgment_score: Score
    """WM-RUB-008 Overall Clinical Judgment."""


class ClinicianNotes(Document):
    """The clinician's explanation (WM-FLD-019..023)."""

    brief_rationale: NonBlankStr
    """Why the scores were given (required, not blank)."""
    best_aspect: str | None = None
    """What the response did best."""
    main_concern: str | None = None
    """The main clinical concern."""
    suggested_better_clinical_move: str | None = None
    """What a better next move would have been."""
    confidence_rating: ScaleLevel | None = None
    """Confidence in this rating, on the rubric's confidence scale (default 1-5)."""


class CoordinatorFlag(Document):
    """The rater flagged the task for the study coordinator (on a rating or a "cannot rate")."""

    note: Annotated[NonBlankStr, Field(max_length=MAX_FLAG_NOTE)]
    """What the coordinator should know or look at, in the rater's words."""


class Envelope(Document):
    """Provenance of the record (FORMATS.md section 5, decided details)."""

    schema_id: Literal["WM-CDP-ANNOTATION-SCHEMA-001"]
    """The seed's schema id."""
    schema_version: SemVer
    """Version of the record schema (``0.0.1``)."""
    record_id: Annotated[str, Field(pattern=r"^[0-9a-f]{32}$")]
    """Unique id of this record revision (a UUID4 as 32 hex digits)."""
    task_id: Identifier
    """The bundle task that was rated."""
    bundle_id: Identifier
    """The bundle the task came from."""
    bundle_sha256: Sha256
    """SHA-256 of the bundle's ``bundle.json``."""
    app_version: NonBlankStr
    """Version of the app that wrote the record."""
    started_at: DateTime
    """When the rater first opened the task."""
    submitted_at: DateTime
    """When this revision was submitted."""
    revision: Revision
    """1 for the first submission, then 2, 3, ... for each revision."""
    supersedes_record_id: Annotated[str, Field(pattern=r"^[0-9a-f]{32}$")] | None = None
    """For revisions: the record id this revision replaces."""

    @model_validator(mode="after")
    def _submitted_after_started(self) -> Envelope:
        # A model-only rule (JSON Schema cannot compare two fields). The plausible range of both times
        # (not before 2020, not far in the future) depends on the checking machine's clock: record_rules.
        if parse_datetime(self.submitted_at) < parse_datetime(self.started_at):
            raise ValueError(
                f"submitted_at ({self.submitted_at}) is before started_at ({self.started_at}): a rating cannot "
                "be submitted before it was started"
            )
        return self


class BlindingGuess(Document):
    """The rater's answer to "Do you think you know which system wrote this response?" (the blinding check)."""

    model_config = ConfigDict(
        json_schema_extra={
            "if": {"properties": {"answer": {"const": "label"}}},
            "then": {"required": ["label"]},
            "else": {"not": {"required": ["label"]}},
        }
    )

    answer: Literal["cannot_tell", "label"]
    """``cannot_tell`` ("I can't tell") or ``label`` (one of the bundle's labels, in ``label``)."""
    label: Annotated[NonBlankStr, Field(max_length=80)] | None = None
    """The label chosen, exactly as the bundle's ``blinding_check_labels`` gives it (only with ``label``)."""

    @model_validator(mode="after")
    def _label_with_answer(self) -> BlindingGuess:
        if (self.answer == "label") != (self.label is not None):
            raise ValueError("label must be given exactly when answer is 'label'")
        return self


class BaseRecord(Document):
    """What a task's record holds whatever its kind: provenance, the task rated, the rater, the time spent and
    the rater's flag. A rating (:class:`RatingRecord`) or a "cannot rate"
    (:class:`~wmcdp_desktop.core.models.cannot_rate_record.CannotRateRecord`) adds its own fields."""

    envelope: Envelope
    """Provenance: schema, ids, app version, timestamps, revision."""
    record_kind: Literal["rating", "cannot_rate"] | None = None
    """Which kind of record this is (each kind states its own)."""
    benchmark_item_id: NonBlankStr
    """WM-FLD-001 Benchmark item ID."""
    clinical_domain_id: NonBlankStr
    """WM-FLD-002 Clinical domain ID."""
    scenario_type_ids: list[str]
    """WM-FLD-003 Scenario type IDs."""
    candidate_response_id: NonBlankStr
    """WM-FLD-004 Candidate response ID (opaque)."""
    candidate_response_text: str
    """WM-FLD-005 Candidate response text, exactly as shown."""
    model_source: str | None = None
    """WM-FLD-006 Model source: absent on the rater's machine; filled in by unblinding."""
    rater_id: Identifier
    """WM-FLD-007 Rater ID."""
    rater_role_or_background: str | None = None
    """WM-FLD-008 Rater role or background."""
    coordinator_flag: CoordinatorFlag | None = None
    """Set when the rater flagged the task for the coordinator, with their note."""
    time_spent_scoring_seconds: Seconds | None = None
    """WM-FLD-024 Active time on the task in whole seconds (idle and hidden time excluded)."""


class RatingRecord(BaseRecord):
    """One submitted rating of one candidate response by one clinician."""

    record_kind: Literal["rating"] | None = None
    """``rating`` or absent: this record scores the response (a ``cannot_rate`` record has its own schema)."""
    scoring: Scoring
    """WM-FG-004 The eight rubric scores."""
    failure_mode_annotations: dict[FailureModeKey, Severity]
    """WM-FLD-017 Every catalogue failure mode -> severity (``none`` = checked and absent)."""
    failure_mode_evidence_notes: dict[FailureModeKey, str] | None = None
    """WM-FLD-018 Failure mode -> evidence note."""
    failure_mode_evidence_spans: dict[FailureModeKey, list[SpanRef]] | None = None
    """Failure mode -> evidence spans in the candidate response (extension of WM-FLD-018)."""
    clinician_notes: ClinicianNotes
    """WM-FG-006 The clinician's explanation."""
    blinding_guess: BlindingGuess | None = None
    """Only when the bundle has a blinding check and the rater answered it (never shown to other raters)."""
