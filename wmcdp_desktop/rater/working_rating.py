"""The rating being written (no Qt): what the rater entered so far, as a draft and as the task's record.

:class:`WorkingRating` is mutable (the session changes it as the rater works); it is saved as a
:class:`~wmcdp_desktop.core.models.draft.Draft`, made from a submitted record to revise it, says in the
rater's words what keeps it from being submitted, and becomes the task's record (a rating, or a "cannot
rate"): built whole and checked once, then stamped with what only the moment of submitting decides.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from wmcdp_desktop.core.documents import validate_obj, with_fields
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.models.cannot_rate_record import CannotRateReason, CannotRateRecord
from wmcdp_desktop.core.models.common import SEVERITIES, Severity, SpanRef, parse_datetime
from wmcdp_desktop.core.models.draft import DRAFT_FORMAT_VERSION, Draft
from wmcdp_desktop.core.models.rating_record import (
    RECORD_SCHEMA_ID,
    RECORD_SCHEMA_VERSION,
    BlindingGuess,
    RatingRecord,
)
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.task import Task
from wmcdp_desktop.core.models.task_record import TaskRecord
from wmcdp_desktop.core.record_rules import blinding_problems

NOTE_FIELDS = ("brief_rationale", "best_aspect", "main_concern", "suggested_better_clinical_move")
FAULT_SEVERITIES: tuple[Severity, ...] = tuple(s for s in SEVERITIES if s != "none")
SOURCE = "rating"  # the ``file`` of a rating's problems before it is written


@dataclass
class FailureModeEntry:
    checked: bool = False
    severity: Severity | None = None
    note: str = ""
    spans: list[SpanRef] = field(default_factory=list)


@dataclass
class CannotRateEntry:
    """The rater's "cannot rate" as entered so far."""

    reason: CannotRateReason | None = None
    detail: str = ""


@dataclass(frozen=True)
class TaskMarks:
    """What the task list shows beside a task's state: its record kind and whether it is flagged."""

    cannot_rate: bool = False
    flagged: bool = False

    @classmethod
    def of(cls, record: TaskRecord) -> TaskMarks:
        return cls(isinstance(record, CannotRateRecord), record.coordinator_flag is not None)


@dataclass(frozen=True)
class RecordOrigin:
    """Where every record of one session comes from: the bundle, the app and the rater."""

    bundle_id: str
    bundle_sha256: str
    app_version: str
    rater_id: str
    rater_role_or_background: str | None = None


@dataclass(frozen=True)
class Stamp:
    """What only the moment of submitting decides about a record: its id, its revision and when."""

    record_id: str
    revision: int
    submitted_at: str


def _earlier(a: str, b: str) -> bool:
    """Whether the date-time ``a`` is before ``b`` (False when either cannot be read)."""
    try:
        return parse_datetime(a) < parse_datetime(b)
    except ValueError:
        return False


@dataclass
class WorkingRating:
    """The rating being written (mutable; saved as a Draft).

    ``cannot_rate`` set: the task is submitted as a "cannot rate" record instead (the scores entered so far
    stay in the draft, not in the record). ``flag`` not None: the task is flagged for the coordinator, with
    this note (sent with whichever record is submitted)."""

    task_id: str
    started_at: str
    scores: dict[str, int | str] = field(default_factory=dict)
    failure_modes: dict[str, FailureModeEntry] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=lambda: dict.fromkeys(NOTE_FIELDS, ""))
    confidence: int | None = None
    active_seconds: float = 0.0
    base_revision: int | None = None
    base_record_id: str | None = None
    cannot_rate: CannotRateEntry | None = None
    flag: str | None = None

    def has_content(self) -> bool:
        """True once the rater entered anything (or is revising a submitted rating)."""
        return bool(
            self.base_revision is not None
            or self.cannot_rate is not None
            or self.flag is not None
            or self.scores
            or self.confidence is not None
            or any(t.strip() for t in self.notes.values())
            or any(e.checked or e.note.strip() or e.spans for e in self.failure_modes.values())
        )

    def fm(self, fm_id: str) -> FailureModeEntry:
        return self.failure_modes.setdefault(fm_id, FailureModeEntry())

    @property
    def marks(self) -> TaskMarks:
        return TaskMarks(self.cannot_rate is not None, self.flag is not None)

    def entries(self) -> WorkingRating:
        """A copy of what the rater entered, without the time: equal for two ratings of the same task and
        revision holding the same entries. (Every mutable field is copied: a new one must be too.)"""
        return dataclasses.replace(
            self,
            scores=dict(self.scores),
            failure_modes={k: dataclasses.replace(e, spans=list(e.spans)) for k, e in self.failure_modes.items()},
            notes=dict(self.notes),
            active_seconds=0.0,
            cannot_rate=None if self.cannot_rate is None else dataclasses.replace(self.cannot_rate),
        )

    # ----- the draft -----------------------------------------------------------------------------------
    def to_draft(self, bundle_id: str, rater_id: str, updated_at: str) -> Draft:
        def fm_obj(v: FailureModeEntry) -> dict[str, object]:
            out: dict[str, object] = {"checked": v.checked, "note": v.note, "spans": [s.to_json_obj() for s in v.spans]}
            if v.severity is not None:
                out["severity"] = v.severity
            return out

        notes: dict[str, object] = dict(self.notes)
        if self.confidence is not None:
            notes["confidence_rating"] = self.confidence
        obj: dict[str, object] = {
            "document_type": "wmcdp_draft",
            "format_version": DRAFT_FORMAT_VERSION,
            "task_id": self.task_id,
            "bundle_id": bundle_id,
            "rater_id": rater_id,
            "scores": dict(self.scores),
            "failure_modes": {k: fm_obj(v) for k, v in self.failure_modes.items()},
            "notes": notes,
            "active_seconds": float(self.active_seconds),
            "started_at": self.started_at,
            "updated_at": updated_at,
        }
        if self.base_revision is not None:
            obj["base_revision"] = self.base_revision
        if self.base_record_id is not None:
            obj["base_record_id"] = self.base_record_id
        if self.cannot_rate is not None:
            entry: dict[str, object] = {"detail": self.cannot_rate.detail}
            if self.cannot_rate.reason is not None:
                entry["reason"] = self.cannot_rate.reason
            obj["cannot_rate"] = entry
        if self.flag is not None:
            obj["coordinator_flag"] = {"note": self.flag}
        return Draft.model_validate(obj)

    @classmethod
    def from_draft(cls, draft: Draft) -> WorkingRating:
        notes = draft.notes
        return cls(
            task_id=draft.task_id,
            started_at=draft.started_at,
            scores=dict(draft.scores),
            failure_modes={
                k: FailureModeEntry(v.checked, v.severity, v.note, list(v.spans)) for k, v in draft.failure_modes.items()
            },
            notes={f: getattr(notes, f) for f in NOTE_FIELDS},
            confidence=notes.confidence_rating,
            active_seconds=draft.active_seconds,
            base_revision=draft.base_revision,
            base_record_id=draft.base_record_id,
            cannot_rate=None if draft.cannot_rate is None else CannotRateEntry(draft.cannot_rate.reason, draft.cannot_rate.detail),
            flag=None if draft.coordinator_flag is None else draft.coordinator_flag.note,
        )

    # ----- the record ----------------------------------------------------------------------------------
    @classmethod
    def from_record(cls, record: TaskRecord, rubric: Rubric) -> WorkingRating:
        """A working copy of a submitted record (a rating or a "cannot rate"), to revise it."""
        env = record.envelope
        rating = cls(
            task_id=env.task_id,
            started_at=env.started_at,
            active_seconds=float(record.time_spent_scoring_seconds or 0),
            base_revision=env.revision,
            base_record_id=env.record_id,
            flag=None if record.coordinator_flag is None else record.coordinator_flag.note,
        )
        if isinstance(record, CannotRateRecord):
            rating.cannot_rate = CannotRateEntry(record.cannot_rate.reason, record.cannot_rate.detail or "")
            return rating
        notes_map = record.failure_mode_evidence_notes or {}
        spans_map = record.failure_mode_evidence_spans or {}
        for fm_id, sev in record.failure_mode_annotations.items():
            rating.failure_modes[fm_id] = FailureModeEntry(
                checked=sev != "none",
                severity=sev if sev != "none" else None,
                note=notes_map.get(fm_id, ""),
                spans=list(spans_map.get(fm_id, [])),
            )
        n = record.clinician_notes
        rating.scores = {d.id: getattr(record.scoring, d.field) for d in rubric.dimensions}
        rating.notes = {f: getattr(n, f) or "" for f in NOTE_FIELDS}
        rating.confidence = n.confidence_rating
        return rating

    def problems(self, rubric: Rubric) -> list[Problem]:
        """What the rater must still do before this can be submitted, in their words; each problem's path is
        the record field of the control concerned (empty: nothing)."""
        problems: list[Problem] = []

        def add(path: str, message: str) -> None:
            problems.append(Problem(SOURCE, path, message))

        if self.cannot_rate is not None:
            if self.cannot_rate.reason is None:
                add("cannot_rate.reason", "Choose why you cannot rate this task.")
            elif self.cannot_rate.reason == "other" and not self.cannot_rate.detail.strip():
                add("cannot_rate.detail", "Say in a few words why you cannot rate this task.")
        else:
            for dim in rubric.dimensions:
                if self.scores.get(dim.id) is None:
                    extra = " or tick N/A" if dim.allow_na else ""
                    add(f"scoring.{dim.field}", f"{dim.label}: not set yet. Choose a score{extra}.")
            for fm in rubric.failure_modes:
                entry = self.failure_modes.get(fm.id)
                if entry is not None and entry.checked and entry.severity is None:
                    add(f"failure_mode_annotations.{fm.id}", f"{fm.label}: choose a severity.")
            if not self.notes.get("brief_rationale", "").strip():
                add("clinician_notes.brief_rationale", "A brief rationale is required.")
        if self.flag is not None and not self.flag.strip():
            add("coordinator_flag.note", "Write a note for your coordinator, or remove the flag.")
        return problems

    def _stamp_fields(self, origin: RecordOrigin, stamp: Stamp) -> dict[str, object]:
        """What the moment of submitting decides: the envelope and the time spent so far."""
        envelope: dict[str, object] = {
            "schema_id": RECORD_SCHEMA_ID,
            "schema_version": RECORD_SCHEMA_VERSION,
            "record_id": stamp.record_id,
            "task_id": self.task_id,
            "bundle_id": origin.bundle_id,
            "bundle_sha256": origin.bundle_sha256,
            "app_version": origin.app_version,
            # A computer's clock set back since the task was opened must not make the rating impossible to
            # submit: a record never says it was submitted before it was started.
            "started_at": stamp.submitted_at if _earlier(stamp.submitted_at, self.started_at) else self.started_at,
            "submitted_at": stamp.submitted_at,
            "revision": stamp.revision,
        }
        if self.base_record_id is not None:
            envelope["supersedes_record_id"] = self.base_record_id
        return {"envelope": envelope, "time_spent_scoring_seconds": round(self.active_seconds)}

    def to_record(self, task: Task, rubric: Rubric, origin: RecordOrigin, stamp: Stamp) -> TaskRecord:
        """The record of this rating for ``task``: a rating, or a "cannot rate" when the task is marked so
        (the scores entered stay out of it). Raises DocumentError when the record would not be valid."""
        common: dict[str, object] = {
            **self._stamp_fields(origin, stamp),
            "benchmark_item_id": task.benchmark_item_id,
            "clinical_domain_id": task.clinical_domain_id,
            "scenario_type_ids": list(task.scenario_type_ids),
            "candidate_response_id": task.candidate_response_id,
            "candidate_response_text": task.candidate_response_text,
            "rater_id": origin.rater_id,
        }
        if origin.rater_role_or_background:
            common["rater_role_or_background"] = origin.rater_role_or_background
        if self.flag is not None:
            common["coordinator_flag"] = {"note": self.flag}
        if self.cannot_rate is not None:
            cannot: dict[str, object] = {"reason": self.cannot_rate.reason}
            if self.cannot_rate.detail.strip():
                cannot["detail"] = self.cannot_rate.detail
            return validate_obj(CannotRateRecord, {**common, "record_kind": "cannot_rate", "cannot_rate": cannot}, SOURCE)
        return validate_obj(RatingRecord, {**common, **self._rating_fields(rubric)}, SOURCE)

    def stamped(
        self, record: TaskRecord, origin: RecordOrigin, stamp: Stamp,
        blinding_guess: BlindingGuess | None, blinding_labels: Sequence[str] | None,
    ) -> TaskRecord:
        """``record`` (:meth:`to_record` of this rating, checked) as submitted now: stamped with ``stamp`` and
        the time spent so far, and (a rating only: a "cannot rate" is never asked) with the blinding-check
        answer, checked against the bundle's ``blinding_labels``; the rest is not checked again. Raises
        DocumentError."""
        changes = self._stamp_fields(origin, stamp)
        if isinstance(record, RatingRecord) and blinding_guess is not None:
            problems = blinding_problems(blinding_guess, blinding_labels, SOURCE)
            if problems:
                raise DocumentError(problems)
            changes["blinding_guess"] = blinding_guess
        return with_fields(record, SOURCE, **changes)

    def _rating_fields(self, rubric: Rubric) -> dict[str, object]:
        """The fields only a rating has: scores, failure modes and notes."""
        annotations: dict[str, str] = {}
        notes: dict[str, str] = {}
        spans: dict[str, list[dict[str, object]]] = {}
        for fm in rubric.failure_modes:
            entry = self.failure_modes.get(fm.id)
            if entry is None or not entry.checked:
                annotations[fm.id] = "none"
                continue
            annotations[fm.id] = entry.severity or "none"
            if entry.note.strip():
                notes[fm.id] = entry.note
            if entry.spans:
                spans[fm.id] = [s.to_json_obj() for s in entry.spans]
        clinician: dict[str, object] = {"brief_rationale": self.notes.get("brief_rationale", "")}
        for name in NOTE_FIELDS[1:]:
            if self.notes.get(name, "").strip():
                clinician[name] = self.notes[name]
        if self.confidence is not None:
            clinician["confidence_rating"] = self.confidence
        obj: dict[str, object] = {
            "scoring": {d.field: self.scores.get(d.id) for d in rubric.dimensions},
            "failure_mode_annotations": annotations,
            "clinician_notes": clinician,
        }
        if notes:
            obj["failure_mode_evidence_notes"] = notes
        if spans:
            obj["failure_mode_evidence_spans"] = spans
        return obj
