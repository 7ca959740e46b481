"""The blinded task (``tasks/<task_id>.json`` inside a bundle): what one rater rates once."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from wmcdp_desktop.core.models.base import Document
from wmcdp_desktop.core.models.case import Scenario
from wmcdp_desktop.core.models.common import (
    AcceptableDecision,
    CriterionVerdict,
    Identifier,
    ScaleLevel,
    Severity,
)


class CriterionFeedback(Document):
    """Adjudicated verdict on one criterion, shown after a calibration task is submitted."""

    criterion_id: Identifier
    """Rubric dimension or failure-mode id."""
    applicability: Literal["applies", "does_not_apply", "uncertain"]
    """Whether the criterion applies."""
    acceptable_verdicts: Annotated[list[CriterionVerdict], Field(min_length=1)]
    """Verdicts counted as correct."""
    severity: Severity
    """Adjudicated severity."""
    explanation: str
    """Why (the gold standard's criterion notes)."""
    expected_scores: Annotated[list[ScaleLevel], Field(max_length=101)] | None = None
    """For a rubric dimension: the scores consistent with the acceptable verdicts."""


class CalibrationFeedback(Document):
    """What a rater may see after submitting a calibration task (no adjudication notes)."""

    ambiguity_status: Literal["clear", "reasonable_disagreement", "rubric_ambiguous", "insufficient_evidence"]
    """How clear-cut the item is."""
    criteria: list[CriterionFeedback]
    """Per-criterion feedback."""
    acceptable_decisions: list[AcceptableDecision]
    """Acceptable operational decisions."""
    valid_alternative_notes: list[str] | None = None
    """Other acceptable moves."""


class Task(Document):
    """One (benchmark item, candidate response) for one rater, with no model identity."""

    document_type: Literal["wmcdp_task"]
    """Always ``wmcdp_task``."""
    task_id: Identifier
    """Task id, unique in the study and the same for every rater who gets it."""
    benchmark_item_id: Identifier
    """The benchmark item."""
    clinical_domain_id: Identifier
    """Clinical domain of the scenario."""
    scenario_type_ids: Annotated[list[Identifier], Field(min_length=1)]
    """Scenario types."""
    scenario: Scenario
    """Context and conversation so far."""
    candidate_response_id: Identifier
    """Opaque id of the response (nothing about the model can be read from it)."""
    candidate_response_text: str
    """The response to rate."""
    calibration_feedback: CalibrationFeedback | None = None
    """Only on calibration tasks: shown after submitting, never before."""
