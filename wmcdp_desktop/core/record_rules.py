"""Validation of a task's record against a rubric and a task (beyond the record's own shape).

A rating is checked against the rubric (scales, N/A, the failure-mode catalogue, spans, notes); a "cannot
rate" record has nothing the rubric governs. Both must match their task and have plausible times.

Used by the app before anything is written, and by every command that reads records (``wmcdp results
validate``, ``results collect``, ``report``). Each problem's ``path`` is the record field it concerns, so
the UI can show it beside its control.

Times (issue 13, item 11): the model itself refuses ``submitted_at`` before ``started_at``. Here both must
also be plausible: not before :data:`EARLIEST` (2020-01-01, before any WM-CDP study) and not more than
:data:`FUTURE_SLACK` (one day, for time zones and clocks a little ahead) after the checking machine's
clock. The app does not apply this range to the ratings it writes itself (``check_times=False``): the
times come from that same clock, and a rater must never be kept from submitting by a wrong clock; the
coordinator's commands report such a record instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from wmcdp_desktop.core.digests import text_sha256
from wmcdp_desktop.core.errors import Problem
from wmcdp_desktop.core.models.common import parse_datetime
from wmcdp_desktop.core.models.rating_record import NA, BlindingGuess, RatingRecord
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.task import Task
from wmcdp_desktop.core.models.task_record import TaskRecord


class TaskFacts(NamedTuple):
    """What a record must agree with about its task, from the unblinding key, which holds the response text's
    SHA-256 instead of the text (``results collect``)."""

    task_id: str
    benchmark_item_id: str
    clinical_domain_id: str
    scenario_type_ids: list[str]
    candidate_response_id: str
    response_sha256: str
    """SHA-256 of the response text as UTF-8."""



EARLIEST = datetime(2020, 1, 1, tzinfo=UTC)
"""No rating can be older than this."""
FUTURE_SLACK = timedelta(days=1)
"""How far after the checking machine's clock a time may be."""


def utc_now() -> datetime:
    """The checking machine's clock (one place, so tests can pin it)."""
    return datetime.now(UTC)


def time_problems(
    times: list[tuple[str, str]], source: str, now: datetime | None = None
) -> list[Problem]:
    """``(json path, date-time)`` pairs outside the plausible range (see the module's docstring)."""
    latest = (now or utc_now()) + FUTURE_SLACK
    problems = []
    for path, text in times:
        try:
            when = parse_datetime(text)
        except ValueError:
            continue  # the model reports a date that is not real
        if when < EARLIEST:
            problems.append(Problem(source, path, f"{text} is before {EARLIEST:%Y-%m-%d}: the computer's clock was wrong, or the file was changed"))
        elif when > latest:
            problems.append(Problem(
                source, path,
                f"{text} is in the future (more than a day after this computer's clock): the rater's clock was wrong, "
                "or the file was changed",
            ))
    return problems


class RubricRules:
    """The parts of a rubric every record is checked against, looked up once (not once per record).

    ``wmcdp report`` checks tens of thousands of records against one rubric: building the failure-mode
    catalogue and the dimension scales per record was most of the cost of :func:`record_problems`.
    The rubric is read when the object is made; make a new one if the rubric changes.
    """

    def __init__(self, rubric: Rubric, *, now: datetime | None = None) -> None:
        self.rubric = rubric
        self.now = now or utc_now()
        """The clock times are checked against (taken once, when the rules are made)."""
        self.dimensions = [
            (dim.field, dim.label, dim.allow_na, dim.scale.min, dim.scale.max) for dim in rubric.dimensions
        ]
        self.catalogue = [fm.id for fm in rubric.failure_modes]
        self.catalogue_set = frozenset(self.catalogue)
        self.confidence_min = rubric.confidence_scale.min
        self.confidence_max = rubric.confidence_scale.max

    def problems(
        self, record: TaskRecord, task: Task | TaskFacts | None, source: str = "record", *, check_times: bool = True
    ) -> list[Problem]:
        """Every way ``record`` breaks the rules of the rubric and ``task`` (empty list = valid)."""
        return record_problems(record, self.rubric, task, source, rules=self, check_times=check_times)


def own_problems(
    record: TaskRecord, source: str = "record", *, now: datetime | None = None, check_times: bool = True
) -> list[Problem]:
    """The rules a record keeps whatever its rubric and task: a rating's evidence spans inside the response
    text with quotes that match it and its rationale, and (``check_times``) plausible times. Every command
    that reads records applies these to each record it reads (coordinator/results/reader.py); the
    rubric's and the task's rules are applied where the rubric and the task are known (:func:`record_problems`)."""
    problems: list[Problem] = []

    def add(path: str, message: str) -> None:
        problems.append(Problem(source, path, message))

    if isinstance(record, RatingRecord):
        text = record.candidate_response_text
        for fm_id, spans in (record.failure_mode_evidence_spans or {}).items():
            for i, span in enumerate(spans):
                path = f"failure_mode_evidence_spans.{fm_id}[{i}]"
                if span.source != "candidate_response":
                    add(path, "evidence spans must point into the candidate response")
                elif span.end > len(text):
                    add(path, f"span end {span.end} is past the end of the response")
                elif span.quote is not None and text[span.start : span.end] != span.quote:
                    add(path, "quote does not match the response text at these offsets")
        if not record.clinician_notes.brief_rationale.strip():
            add("clinician_notes.brief_rationale", "a brief rationale is required")
    if record.time_spent_scoring_seconds is not None and record.time_spent_scoring_seconds < 0:
        add("time_spent_scoring_seconds", "must not be negative")
    if check_times:
        env = record.envelope
        problems.extend(time_problems(
            [("envelope.started_at", env.started_at), ("envelope.submitted_at", env.submitted_at)], source, now
        ))
    return problems


def record_problems(
    record: TaskRecord, rubric: Rubric, task: Task | TaskFacts | None, source: str = "record",
    *, rules: RubricRules | None = None, check_times: bool = True,
    blinding_labels: Sequence[str] | None = None, check_blinding: bool = False,
) -> list[Problem]:
    """Every way ``record`` (a rating or a "cannot rate") breaks the rules of ``rubric`` and ``task`` (empty
    list = valid), its :func:`own_problems` included. ``task``: the bundle's task, or the facts the
    unblinding key keeps of it (:class:`TaskFacts`).

    ``rules``: :class:`RubricRules` of ``rubric`` made beforehand, to check many records quickly.
    ``check_times``: whether ``started_at`` and ``submitted_at`` must lie in the plausible range (the app
    skips it for what it writes itself; see the module's docstring).
    ``check_blinding``: also check ``blinding_guess`` against the bundle's ``blinding_labels`` (None = the
    bundle asks no blinding question, so a record must not answer it).
    """
    if rules is None:
        rules = RubricRules(rubric)
    problems = _rating_problems(record, rules, source) if isinstance(record, RatingRecord) else []

    def add(path: str, message: str) -> None:
        problems.append(Problem(source, path, message))

    problems.extend(own_problems(record, source, now=rules.now, check_times=check_times))

    if check_blinding and isinstance(record, RatingRecord):
        problems.extend(blinding_problems(record.blinding_guess, blinding_labels, source))

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
        if record.scenario_type_ids != list(task.scenario_type_ids):
            add("scenario_type_ids", "do not match the task")
        same_text = (
            record.candidate_response_text == task.candidate_response_text
            if isinstance(task, Task) else text_sha256(record.candidate_response_text) == task.response_sha256
        )
        if not same_text:
            add("candidate_response_text", "does not match the task's response text")
    return problems


def blinding_problems(guess: BlindingGuess | None, blinding_labels: Sequence[str] | None, source: str) -> list[Problem]:
    """What is wrong with a rating's answer to the blinding check of a bundle whose labels are
    ``blinding_labels`` (None: the bundle asks no blinding question, so a record must not answer it)."""
    if guess is None:
        return []
    if blinding_labels is None:
        return [Problem(source, "blinding_guess", "the bundle asks no blinding question, so a record cannot answer it")]
    if guess.label is not None and guess.label not in blinding_labels:
        return [Problem(source, "blinding_guess.label", f"{guess.label!r} is not one of the bundle's blinding-check labels")]
    return []


def _rating_problems(record: RatingRecord, rules: RubricRules, source: str) -> list[Problem]:
    """What a rating's scores, failure modes and notes break of the rubric."""
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

    notes = record.clinician_notes
    if notes.confidence_rating is not None:
        lo, hi = rules.confidence_min, rules.confidence_max
        if not lo <= notes.confidence_rating <= hi:
            add(
                "clinician_notes.confidence_rating",
                f"{notes.confidence_rating} is outside the confidence scale {lo}-{hi}",
            )
    return problems
