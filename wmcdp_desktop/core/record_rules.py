"""Validation of a rating record against a rubric and a task (beyond the record's own shape).

Used by the app before anything is written, and by ``wmcdp results validate --bundle``. Each problem's
``path`` is the record field it concerns, so the UI can show it beside its control.
"""

from __future__ import annotations

from wmcdp_desktop.core.errors import Problem
from wmcdp_desktop.core.models.rating_record import NA, RatingRecord
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.task import Task


class RubricRules:
    """The parts of a rubric every record is checked against, looked up once (not once per record).

    ``wmcdp report`` checks tens of thousands of records against one rubric: building the failure-mode
    catalogue and the dimension scales per record was most of the cost of :func:`record_problems`.
    The rubric is read when the object is made; make a new one if the rubric changes.
    """

    def __init__(self, rubric: Rubric) -> None:
        self.rubric = rubric
        self.dimensions = [
            (dim.field, dim.label, dim.allow_na, dim.scale.min, dim.scale.max) for dim in rubric.dimensions
        ]
        self.catalogue = [fm.id for fm in rubric.failure_modes]
        self.catalogue_set = frozenset(self.catalogue)
        self.confidence_min = rubric.confidence_scale.min
        self.confidence_max = rubric.confidence_scale.max

    def problems(self, record: RatingRecord, task: Task | None, source: str = "record") -> list[Problem]:
        """Every way ``record`` breaks the rules of the rubric and ``task`` (empty list = valid)."""
        return record_problems(record, self.rubric, task, source, rules=self)


def record_problems(
    record: RatingRecord, rubric: Rubric, task: Task | None, source: str = "record",
    *, rules: RubricRules | None = None,
) -> list[Problem]:
    """Every way ``record`` breaks the rules of ``rubric`` and ``task`` (empty list = valid).

    ``rules``: :class:`RubricRules` of ``rubric`` made beforehand, to check many records quickly.
    """
    if rules is None:
        rules = RubricRules(rubric)
    problems: list[Problem] = []

    def add(path: str, message: str) -> None:
        problems.append(Problem(source, path, message))

    scoring = record.scoring
    for name, label, allow_na, lo, hi in rules.dimensions:
        value = getattr(scoring, name)
        if value == NA:
            if not allow_na:
                add(f"scoring.{name}", f"{label}: N/A is not allowed for this dimension; choose a score")
        elif isinstance(value, int):
            if not lo <= value <= hi:
                add(f"scoring.{name}", f"{label}: {value} is outside the scale {lo}-{hi}")
        else:
            add(f"scoring.{name}", f"{label}: {value!r} is not a score")

    catalogue = rules.catalogue_set
    annotated = record.failure_mode_annotations
    if annotated.keys() != catalogue:  # the usual case (exactly the catalogue) costs one comparison
        for fm_id in rules.catalogue:
            if fm_id not in annotated:
                add(f"failure_mode_annotations.{fm_id}",
                    "missing: every failure mode needs a severity (none if absent)")
        for fm_id in annotated:
            if fm_id not in catalogue:
                add(f"failure_mode_annotations.{fm_id}", "is not a failure mode of this rubric")
    for field, mapping in (
        ("failure_mode_evidence_notes", record.failure_mode_evidence_notes or {}),
        ("failure_mode_evidence_spans", record.failure_mode_evidence_spans or {}),
    ):
        for fm_id in mapping:
            if fm_id not in catalogue:
                add(f"{field}.{fm_id}", "is not a failure mode of this rubric")

    for fm_id, spans in (record.failure_mode_evidence_spans or {}).items():
        for i, span in enumerate(spans):
            path = f"failure_mode_evidence_spans.{fm_id}[{i}]"
            if span.source != "candidate_response":
                add(path, "evidence spans must point into the candidate response")
            elif span.end > len(record.candidate_response_text):
                add(path, f"span end {span.end} is past the end of the response")
            elif span.quote is not None and record.candidate_response_text[span.start : span.end] != span.quote:
                add(path, "quote does not match the response text at these offsets")

    notes = record.clinician_notes
    if not notes.brief_rationale.strip():
        add("clinician_notes.brief_rationale", "a brief rationale is required")
    if notes.confidence_rating is not None:
        lo, hi = rules.confidence_min, rules.confidence_max
        if not lo <= notes.confidence_rating <= hi:
            add(
                "clinician_notes.confidence_rating",
                f"{notes.confidence_rating} is outside the confidence scale {lo}-{hi}",
            )
    if record.time_spent_scoring_seconds is not None and record.time_spent_scoring_seconds < 0:
        add("time_spent_scoring_seconds", "must not be negative")

    if task is not None:
        pairs = (
            ("envelope.task_id", record.envelope.task_id, task.task_id),
            ("benchmark_item_id", record.benchmark_item_id, task.benchmark_item_id),
            ("clinical_domain_id", record.clinical_domain_id, task.clinical_domain_id),
            ("candidate_response_id", record.candidate_response_id, task.candidate_response_id),
        )
        for path, got, want in pairs:
            if got != want:
                add(path, f"{got!r} does not match the task ({want!r})")
        if record.scenario_type_ids != task.scenario_type_ids:
            add("scenario_type_ids", "do not match the task")
        if record.candidate_response_text != task.candidate_response_text:
            add("candidate_response_text", "does not match the task's response text")
    return problems
