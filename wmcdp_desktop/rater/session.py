"""The rating controller: pure Python (no Qt), driven by the UI and tested on its own.

One :class:`RatingSession` per opened bundle and rater. It knows each task's state (not started, draft,
submitted), holds the rating being written (:class:`WorkingRating`, mutable), autosaves it as a
:class:`~wmcdp_desktop.core.models.draft.Draft`, counts active time through an
:class:`~wmcdp_desktop.rater.timing.ActivityTracker`, validates, builds and writes the
:class:`~wmcdp_desktop.core.models.rating_record.RatingRecord`, and opens a submitted task for revision.

Nothing here knows which model wrote a response: tasks carry none, and records never get
``model_source`` (the coordinator's unblinding fills it in).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import ValidationError

from wmcdp_desktop import __version__
from wmcdp_desktop.core.documents import problems_from_validation_error
from wmcdp_desktop.core.errors import DocumentError, Problem, StorageError, WmcdpError
from wmcdp_desktop.core.models.bundle_manifest import BundleManifest
from wmcdp_desktop.core.models.cannot_rate_record import (
    CANNOT_RATE_REASONS,
    CannotRateReason,
    CannotRateRecord,
)
from wmcdp_desktop.core.models.common import SEVERITIES, Severity, SpanRef, parse_datetime
from wmcdp_desktop.core.models.draft import DRAFT_FORMAT_VERSION, Draft
from wmcdp_desktop.core.models.rating_record import (
    NA,
    RECORD_SCHEMA_ID,
    RECORD_SCHEMA_VERSION,
    BlindingGuess,
    RatingRecord,
)
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.task import CalibrationFeedback, Task
from wmcdp_desktop.core.models.task_record import TaskRecord, record_kind
from wmcdp_desktop.core.record_rules import record_problems
from wmcdp_desktop.rater.storage import DataFolderGoneError, RaterStore
from wmcdp_desktop.rater.timing import DEFAULT_IDLE_TIMEOUT, ActivityTracker, Clock, utc_iso

if TYPE_CHECKING:
    from wmcdp_desktop.core.models.results_manifest import ResultsManifest
    from wmcdp_desktop.rater.export import ExportPlan

TaskState = Literal["not_started", "draft", "submitted"]
STATE_LABELS: dict[str, str] = {"not_started": "Not started", "draft": "In progress", "submitted": "Submitted"}
NOTE_FIELDS = ("brief_rationale", "best_aspect", "main_concern", "suggested_better_clinical_move")
FAULT_SEVERITIES: tuple[Severity, ...] = tuple(s for s in SEVERITIES if s != "none")
TIME_SAVE_EVERY = 5.0
"""While time is counting and nothing else changed, the draft (with its time) is saved this often."""


class BundleLike(Protocol):
    """What the session needs from an opened bundle (core/bundle_reader.OpenedBundle)."""

    manifest: BundleManifest
    manifest_sha256: str
    rubric: Rubric
    task_ids: list[str]

    def task(self, task_id: str) -> Task: ...


def _cannot_rate_problems(entry: CannotRateEntry, src: str) -> list[Problem]:
    if entry.reason is None:
        return [Problem(src, "cannot_rate.reason", "Choose why you cannot rate this task.")]
    if entry.reason == "other" and not entry.detail.strip():
        return [Problem(src, "cannot_rate.detail", "Say in a few words why you cannot rate this task.")]
    return []


def _record_marks(record: TaskRecord) -> TaskMarks:
    return TaskMarks(isinstance(record, CannotRateRecord), record.coordinator_flag is not None)


def _earlier(a: str, b: str) -> bool:
    """Whether the date-time ``a`` is before ``b`` (False when either cannot be read)."""
    try:
        return parse_datetime(a) < parse_datetime(b)
    except ValueError:
        return False


@dataclass(frozen=True)
class RaterIdentity:
    rater_id: str
    role_or_background: str | None = None


class WrongRaterError(WmcdpError):
    """The bundle was prepared for another rater."""


def assignment_problem(manifest: BundleManifest, rater_id: str) -> str | None:
    """A plain refusal when the bundle is assigned to someone else, else None."""
    if manifest.rater_id is not None and manifest.rater_id != rater_id:
        return (
            f"This bundle was prepared for rater {manifest.rater_id!r}, but this app is set up for rater "
            f"{rater_id!r}.\nRatings must carry the right rater id, so the bundle was not opened. Ask your "
            "study coordinator for your own bundle, or, if your rater id was typed wrongly, change it with "
            "Settings > Rater id… and open the bundle again."
        )
    return None


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

    @property
    def marks(self) -> TaskMarks:
        return TaskMarks(self.cannot_rate is not None, self.flag is not None)

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

    @classmethod
    def from_record(cls, record: TaskRecord, rubric: Rubric) -> WorkingRating:
        """A working copy of a submitted record (a rating or a "cannot rate"), to revise it."""
        env = record.envelope
        flag = None if record.coordinator_flag is None else record.coordinator_flag.note
        if isinstance(record, CannotRateRecord):
            return cls(
                task_id=env.task_id,
                started_at=env.started_at,
                active_seconds=float(record.time_spent_scoring_seconds or 0),
                base_revision=env.revision,
                base_record_id=env.record_id,
                cannot_rate=CannotRateEntry(record.cannot_rate.reason, record.cannot_rate.detail or ""),
                flag=flag,
            )
        fms: dict[str, FailureModeEntry] = {}
        notes_map = record.failure_mode_evidence_notes or {}
        spans_map = record.failure_mode_evidence_spans or {}
        for fm_id, sev in record.failure_mode_annotations.items():
            fms[fm_id] = FailureModeEntry(
                checked=sev != "none",
                severity=sev if sev != "none" else None,
                note=notes_map.get(fm_id, ""),
                spans=list(spans_map.get(fm_id, [])),
            )
        n = record.clinician_notes
        return cls(
            task_id=env.task_id,
            started_at=env.started_at,
            scores={d.id: getattr(record.scoring, d.field) for d in rubric.dimensions},
            failure_modes=fms,
            notes={f: getattr(n, f) or "" for f in NOTE_FIELDS},
            confidence=n.confidence_rating,
            active_seconds=float(record.time_spent_scoring_seconds or 0),
            base_revision=env.revision,
            base_record_id=env.record_id,
            flag=flag,
        )


@dataclass
class SubmitOutcome:
    """What happened on submit: problems (nothing written), or the written record."""

    problems: list[Problem]
    record: TaskRecord | None = None
    sha256: str | None = None
    next_task_id: str | None = None
    calibration: CalibrationFeedback | None = None
    error: str | None = None
    """A write failure in plain words (the rating is kept in memory and in the draft)."""

    @property
    def ok(self) -> bool:
        return self.record is not None


@dataclass(frozen=True)
class CalibrationRow:
    criterion_id: str
    label: str
    yours: str
    expected: str
    agrees: bool | None
    explanation: str


def calibration_rows(record: RatingRecord, feedback: CalibrationFeedback, rubric: Rubric) -> list[CalibrationRow]:
    """The rater's answers beside the adjudicated feedback, one row per criterion with feedback."""
    rows = []
    for crit in feedback.criteria:
        cid = crit.criterion_id
        if cid.startswith("WM-RUB-"):
            try:
                dim = rubric.dimension(cid)
            except KeyError:
                continue
            yours_v = getattr(record.scoring, dim.field)
            if crit.expected_scores:
                lo, hi = min(crit.expected_scores), max(crit.expected_scores)
                expected = f"{lo}" if lo == hi else f"{lo}–{hi}"
                if sorted(crit.expected_scores) != list(range(lo, hi + 1)):
                    expected = ", ".join(str(s) for s in sorted(crit.expected_scores))
                agrees: bool | None = yours_v in crit.expected_scores
            elif crit.applicability == "does_not_apply":
                expected, agrees = "N/A", yours_v == NA
            else:
                expected, agrees = "; ".join(v.replace("_", " ") for v in crit.acceptable_verdicts), None
            rows.append(CalibrationRow(cid, dim.label, str(yours_v), expected, agrees, crit.explanation))
        else:
            try:
                fm = rubric.failure_mode(cid)
            except KeyError:
                continue
            yours_s = record.failure_mode_annotations.get(cid, "none")
            expected = "absent" if crit.severity == "none" else crit.severity
            rows.append(
                CalibrationRow(
                    cid,
                    fm.label,
                    "absent" if yours_s == "none" else yours_s,
                    expected,
                    (yours_s == "none") == (crit.severity == "none"),
                    crit.explanation,
                )
            )
    return rows


class RatingSession:
    """State and behaviour of rating one bundle; the UI is a thin view over it."""

    def __init__(
        self,
        bundle: BundleLike,
        store: RaterStore,
        rater: RaterIdentity,
        clock: Clock,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        app_version: str = __version__,
        language: str | None = None,
    ) -> None:
        refusal = assignment_problem(bundle.manifest, rater.rater_id)
        if refusal:
            raise WrongRaterError(refusal)
        self.bundle = bundle
        self.rubric_view = bundle.rubric.in_language(language)
        """The rubric as this rater reads it: in ``language`` when the bundle has a translation into it."""
        self.rubric = self.rubric_view.rubric
        """The rubric shown (texts in :attr:`rubric_view`'s language; ids, levels and rules the bundle's)."""
        self.store = store
        self.rater = rater
        self.clock = clock
        self.app_version = app_version
        self.tracker = ActivityTracker(clock, idle_timeout)
        self.session_seconds = 0.0
        self.task_ids = list(bundle.task_ids)
        self._index = {t: i for i, t in enumerate(self.task_ids)}
        store.ensure()
        self._latest = {t: r for t, r in store.latest_revisions().items() if t in self._index}
        self._drafts: set[str] = set()
        self._draft_marks: dict[str, TaskMarks] = {}
        """Flag and "cannot rate" of the drafts (read with them at the start, then kept up to date)."""
        self._record_marks: dict[str, TaskMarks] = {}
        """Flag and kind of the latest records read so far (:meth:`load_marks`; records are read lazily)."""
        """Tasks whose saved draft holds something the rater entered (or a revision in progress).
        A draft holding only time (a task looked at) keeps the time but leaves the task "not started"."""
        for tid in sorted(store.draft_task_ids() & set(self.task_ids)):
            draft = store.load_draft(tid)  # an unreadable one is quarantined and reported
            latest = self._latest.get(tid)
            if draft is None or (latest is not None and draft.base_revision != latest):
                continue  # older than the latest record (its removal was lost): open_task ignores it too
            working = WorkingRating.from_draft(draft)
            if working.has_content():
                self._drafts.add(tid)
                self._draft_marks[tid] = working.marks
        self.current_id: str | None = None
        self._open_task: Task | None = None
        """The open task, held while it is open: the bundle keeps only its last tasks used (the task list
        reads the rows it shows), and submitting must not depend on reading the task file again."""
        self.current: WorkingRating | None = None
        """The editable rating of the open task; None while a submitted task is shown read-only."""
        self.viewing_record: TaskRecord | None = None
        """The latest record of the open task when it is submitted and not being revised."""
        self.dirty = False
        self._unsaved_time = 0.0
        self.save_error: str | None = None
        """The last failed save in plain words (None after a successful save)."""
        self.last_saved_at: str | None = None
        self.on_change: Callable[[], None] | None = None
        store.audit(
            "opened",
            bundle_id=bundle.manifest.bundle_id,
            bundle_sha256=bundle.manifest_sha256,
            rater_id=rater.rater_id,
            app_version=app_version,
        )
        store.recover_unaudited_records()
        store.remove_orphan_temp_files()

    # ----- overview ------------------------------------------------------------------------------------
    @property
    def manifest(self) -> BundleManifest:
        return self.bundle.manifest

    def state(self, task_id: str) -> TaskState:
        if task_id in self._latest:
            return "submitted"
        if task_id in self._drafts:
            return "draft"
        return "not_started"

    def has_revision_draft(self, task_id: str) -> bool:
        return task_id in self._latest and task_id in self._drafts

    def marks(self, task_id: str) -> TaskMarks | None:
        """The task's "cannot rate" and flag as known without reading a file: the open rating's, a draft's,
        or the latest record's once read (None: a submitted task whose record was not read yet)."""
        if task_id == self.current_id and self.current is not None:
            return self.current.marks
        if task_id in self._drafts and (task_id not in self._latest or self.has_revision_draft(task_id)):
            return self._draft_marks.get(task_id, TaskMarks())
        if task_id in self._latest:
            return self._record_marks.get(task_id)
        return TaskMarks()

    def load_marks(self, task_id: str) -> TaskMarks:
        """:meth:`marks`, reading the latest record when needed (a record that cannot be read: no marks)."""
        known = self.marks(task_id)
        if known is not None:
            return known
        try:
            marks = _record_marks(self.store.load_record(task_id, self._latest[task_id]))
        except WmcdpError:
            marks = TaskMarks()
        self._record_marks[task_id] = marks
        return marks

    def latest_revision(self, task_id: str) -> int | None:
        return self._latest.get(task_id)

    def progress(self) -> tuple[int, int]:
        return len(self._latest), len(self.task_ids)

    def drafts_not_submitted(self) -> int:
        return len(self._drafts - set(self._latest))

    def export_plan(self) -> ExportPlan:
        """This bundle's export as it stands now, to run here or on another thread (``ExportPlan.run``)."""
        from wmcdp_desktop.rater.export import ExportPlan  # on use: not needed for the app's first paint

        return ExportPlan(
            store=self.store.twin(),
            bundle_id=self.manifest.bundle_id,
            bundle_sha256=self.bundle.manifest_sha256,
            study_id=self.manifest.study_id,
            task_ids=tuple(self.task_ids),
            drafts_not_submitted=self.drafts_not_submitted(),
            clock=self.clock,
        )

    def export_results(self, destination: Path) -> ResultsManifest:
        """Write this bundle's results zip (every submitted revision + manifest) atomically to ``destination``."""
        return self.export_plan().run(destination)

    def position(self) -> int | None:
        return None if self.current_id is None else self._index[self.current_id]

    def next_unfinished(self, after: str | None = None) -> str | None:
        """The next task (in order, wrapping) that is not submitted; None when all are."""
        start = -1 if after is None else self._index[after]
        n = len(self.task_ids)
        for step in range(1, n + 1):
            tid = self.task_ids[(start + step) % n]
            if tid not in self._latest:
                return tid
        return None

    def neighbour(self, delta: int) -> str | None:
        if self.current_id is None:
            return self.task_ids[0] if self.task_ids else None
        i = self._index[self.current_id] + delta
        return self.task_ids[i] if 0 <= i < len(self.task_ids) else None

    def task(self, task_id: str | None = None) -> Task:
        tid = task_id or self.current_id
        if tid is None:
            raise WmcdpError("No task is open.")
        if tid == self.current_id and self._open_task is not None:
            return self._open_task
        return self.bundle.task(tid)

    # ----- time --------------------------------------------------------------------------------------
    def _count(self, seconds: float) -> None:
        if seconds <= 0:
            return
        self.session_seconds += seconds
        if self.current is not None:
            self.current.active_seconds += seconds
            self._unsaved_time += seconds

    def tick(self) -> None:
        self._count(self.tracker.tick())

    def user_input(self) -> None:
        self._count(self.tracker.input())

    def set_window_active(self, active: bool) -> None:
        self._count(self.tracker.set_window_active(active))

    def set_paused(self, paused: bool) -> None:
        self._count(self.tracker.set_user_paused(paused))

    def task_seconds(self) -> float:
        if self.current is not None:
            return self.current.active_seconds
        if self.viewing_record is not None:
            return float(self.viewing_record.time_spent_scoring_seconds or 0)
        return 0.0

    def needs_save(self) -> bool:
        return self.current is not None and (self.dirty or self._unsaved_time >= TIME_SAVE_EVERY)

    # ----- opening tasks -------------------------------------------------------------------------------
    def open_task(self, task_id: str) -> Task:
        """Leave the open task (saving it) and open ``task_id``. Raises DocumentError for a bad task file."""
        if task_id not in self._index:
            raise WmcdpError(f"There is no task {task_id!r} in this bundle.")
        task = self.bundle.task(task_id)  # may raise: then the current task stays open
        self.leave_task()
        self.current_id = task_id
        self._open_task = task
        self.viewing_record = None
        self.current = None
        draft = self.store.load_draft(task_id)
        latest = self._latest.get(task_id)
        if draft is not None and latest is not None and draft.base_revision != latest:
            # A leftover draft from before the latest submission (e.g. its removal failed): not current.
            draft = None
        if draft is not None:
            self.current = WorkingRating.from_draft(draft)
        elif latest is not None:
            self._drafts.discard(task_id)
            self.viewing_record = self.store.load_record(task_id, latest)
            self._record_marks[task_id] = _record_marks(self.viewing_record)
        else:
            self._drafts.discard(task_id)
            self.current = WorkingRating(task_id=task_id, started_at=utc_iso(self.clock))
        self.dirty = False
        self._unsaved_time = 0.0
        self.tracker.set_task_open(self.current is not None)
        return task

    def leave_task(self) -> None:
        """Count the time so far and save the open rating if anything is unsaved (errors kept in save_error)."""
        if self.current_id is None:
            return
        self.tick()
        if self.current is not None and (self.dirty or self._unsaved_time > 0):
            self.save_draft()
        self._count(self.tracker.set_task_open(False))

    def close(self) -> bool:
        """Leave the open task; True when everything is saved."""
        self.leave_task()
        self.current_id = None
        self._open_task = None
        self.current = None
        self.viewing_record = None
        return self.save_error is None

    # ----- editing -------------------------------------------------------------------------------------
    def _editable(self) -> WorkingRating:
        if self.current is None:
            raise WmcdpError("This rating is submitted; choose Revise to change it.")
        return self.current

    def _changed(self) -> None:
        self.dirty = True
        if self.current_id is not None and self.current is not None:
            self._draft_marks[self.current_id] = self.current.marks
            if self.current.has_content():
                self._drafts.add(self.current_id)
            else:
                self._drafts.discard(self.current_id)
        if self.on_change:
            self.on_change()

    def set_score(self, dimension_id: str, value: int | str | None) -> None:
        """Set a dimension's score (int), ``"N/A"`` (only where allowed), or None to unset it."""
        rating = self._editable()
        dim = self.rubric.dimension(dimension_id)
        if value is None:
            if rating.scores.pop(dimension_id, None) is None:
                return
        elif value == NA:
            if not dim.allow_na:
                raise WmcdpError(f"{dim.label}: N/A is not allowed for this dimension.")
            if rating.scores.get(dimension_id) == NA:
                return
            rating.scores[dimension_id] = NA
        else:
            if not isinstance(value, int) or not dim.scale.min <= value <= dim.scale.max:
                raise WmcdpError(f"{dim.label}: {value!r} is not on the scale {dim.scale.min}-{dim.scale.max}.")
            if rating.scores.get(dimension_id) == value:
                return
            rating.scores[dimension_id] = value
        self._changed()

    def set_failure_mode(
        self,
        fm_id: str,
        *,
        checked: bool | None = None,
        severity: Severity | Literal["keep"] | None = "keep",
        note: str | None = None,
    ) -> None:
        rating = self._editable()
        self.rubric.failure_mode(fm_id)  # KeyError for an unknown id
        entry = rating.fm(fm_id)
        if checked is not None:
            entry.checked = checked
        if severity != "keep":
            if severity is not None and severity not in FAULT_SEVERITIES:
                raise WmcdpError(f"{severity!r} is not a severity (minor, moderate, major, critical).")
            entry.severity = severity
        if note is not None:
            entry.note = note
        self._changed()

    def add_evidence_span(self, fm_id: str, start: int, end: int) -> SpanRef:
        """Store the span [start, end) (code points) of the candidate response as evidence."""
        rating = self._editable()
        self.rubric.failure_mode(fm_id)
        text = self.task().candidate_response_text
        if not 0 <= start < end <= len(text):
            raise WmcdpError("Select some text in the response you are rating first.")
        span = SpanRef(source="candidate_response", start=start, end=end, quote=text[start:end])
        entry = rating.fm(fm_id)
        if span not in entry.spans:
            entry.spans.append(span)
        self._changed()
        return span

    def remove_evidence_span(self, fm_id: str, index: int) -> None:
        entry = self._editable().fm(fm_id)
        del entry.spans[index]
        self._changed()

    def set_note(self, field_name: str, text: str) -> None:
        if field_name not in NOTE_FIELDS:
            raise KeyError(field_name)
        rating = self._editable()
        if rating.notes.get(field_name) == text:
            return
        rating.notes[field_name] = text
        self._changed()

    def set_confidence(self, value: int | None) -> None:
        rating = self._editable()
        scale = self.rubric.confidence_scale
        if value is not None and not scale.min <= value <= scale.max:
            raise WmcdpError(f"Confidence must be {scale.min}-{scale.max}.")
        if rating.confidence == value:
            return
        rating.confidence = value
        self._changed()

    def mark_cannot_rate(self, marked: bool) -> None:
        """Mark the task "cannot rate" (submitted without scores, with a reason) or take the mark back (the
        scores, failure modes and notes entered stay as they were)."""
        rating = self._editable()
        if (rating.cannot_rate is not None) == marked:
            return
        rating.cannot_rate = CannotRateEntry() if marked else None
        self._changed()

    def set_cannot_rate(self, *, reason: CannotRateReason | Literal["keep"] | None = "keep", detail: str | None = None) -> None:
        """The reason (one of CANNOT_RATE_REASONS, None to unchoose) and the detail of the "cannot rate"."""
        entry = self._editable().cannot_rate
        if entry is None:
            raise WmcdpError("Mark the task “cannot rate” first.")
        if reason != "keep":
            if reason is not None and reason not in CANNOT_RATE_REASONS:
                raise WmcdpError(f"{reason!r} is not a reason for “cannot rate”.")
            if entry.reason == reason and detail is None:
                return
            entry.reason = reason
        if detail is not None:
            entry.detail = detail
        self._changed()

    def set_flag(self, flagged: bool) -> None:
        """Flag the task for the coordinator (the note is written with :meth:`set_flag_note`) or remove the flag."""
        rating = self._editable()
        if (rating.flag is not None) == flagged:
            return
        rating.flag = "" if flagged else None
        self._changed()

    def set_flag_note(self, text: str) -> None:
        rating = self._editable()
        if rating.flag is None:
            raise WmcdpError("Flag the task first.")
        if rating.flag == text:
            return
        rating.flag = text
        self._changed()

    # ----- saving --------------------------------------------------------------------------------------
    def data_folder_problem(self) -> str | None:
        """Why nothing more can be saved (the data folder was deleted or moved while the app ran), with what
        to do, in plain words; None while all is well. Cheap: a few file-system checks."""
        return self.store.folder_problem()

    def save_draft(self) -> bool:
        """Save the open rating as a draft now. False (and ``save_error`` set) when the write failed."""
        if self.current is None or self.current_id is None:
            return True
        draft = self.current.to_draft(self.manifest.bundle_id, self.rater.rater_id, utc_iso(self.clock))
        try:
            self.store.save_draft(draft)
        except DataFolderGoneError as exc:
            self.save_error = str(exc)
            return False
        except StorageError as exc:
            self.save_error = (
                f"Your rating could not be saved: {exc}\nIt is kept in this window; the last saved draft is "
                "still on disk. Free some space or fix the folder, then choose Retry."
            )
            return False
        if self.current.has_content():
            self._drafts.add(self.current_id)
        else:
            self._drafts.discard(self.current_id)
        self.dirty = False
        self._unsaved_time = 0.0
        self.save_error = None
        self.last_saved_at = utc_iso(self.clock)
        return True

    # ----- validation and submit -------------------------------------------------------------------------
    def problems(self) -> list[Problem]:
        """Why the open rating cannot be submitted yet (empty = it can)."""
        return self._checked_record(self._editable(), 1, "0" * 32, utc_iso(self.clock))[0]

    @property
    def blinding_labels(self) -> list[str] | None:
        """The answers of the bundle's blinding check besides "I can't tell" (None: the bundle has none)."""
        labels = self.manifest.blinding_check_labels
        return list(labels) if labels is not None else None

    def asks_blinding_question(self) -> bool:
        """Whether submitting the open rating should ask "Do you think you know which system wrote this
        response?": the bundle has the check and this is the task's first submission (a revision keeps
        the first answer)."""
        current = self.current
        return (
            self.blinding_labels is not None
            and current is not None
            and current.base_revision is None
            and current.cannot_rate is None  # a "cannot rate" has no answer to it
        )

    def _earlier_guess(self, rating: WorkingRating) -> BlindingGuess | None:
        """The blinding-check answer of the revision a revision replaces (kept: it is asked once per task)."""
        if rating.base_revision is None:
            return None
        try:
            earlier = self.store.load_record(rating.task_id, rating.base_revision)
        except (StorageError, DocumentError):
            return None  # the earlier record cannot be read: the revision goes without the answer
        return earlier.blinding_guess if isinstance(earlier, RatingRecord) else None

    def _checked_record(
        self, rating: WorkingRating, revision: int, record_id: str, submitted_at: str,
        blinding_guess: BlindingGuess | None = None,
    ) -> tuple[list[Problem], TaskRecord | None]:
        """The problems of ``rating``, and the record built from it when there are none: a rating, or a
        "cannot rate" when the task is marked so."""
        problems: list[Problem] = []
        src = "rating"
        if rating.cannot_rate is not None:
            problems += _cannot_rate_problems(rating.cannot_rate, src)
        else:
            problems += self._rating_problems(rating, src)
        if rating.flag is not None and not rating.flag.strip():
            problems.append(Problem(src, "coordinator_flag.note", "Write a note for your coordinator, or remove the flag."))
        if problems:
            return problems, None
        try:
            record = self._build_record(rating, revision, record_id, submitted_at, blinding_guess)
        except DocumentError as exc:
            return exc.problems, None
        # The times come from this computer's clock: never refuse a rating over them (record_rules).
        problems = record_problems(
            record, self.rubric, self.task(rating.task_id), src, check_times=False,
            blinding_labels=self.blinding_labels, check_blinding=True,
        )
        return problems, None if problems else record

    def _rating_problems(self, rating: WorkingRating, src: str) -> list[Problem]:
        """What keeps the scores, failure modes and notes from being submitted."""
        problems: list[Problem] = []
        for dim in self.rubric.dimensions:
            value = rating.scores.get(dim.id)
            path = f"scoring.{dim.field}"
            if value is None:
                extra = " or tick N/A" if dim.allow_na else ""
                problems.append(Problem(src, path, f"{dim.label}: not set yet. Choose a score{extra}."))
        for fm in self.rubric.failure_modes:
            entry = rating.failure_modes.get(fm.id)
            if entry is not None and entry.checked and entry.severity is None:
                problems.append(
                    Problem(src, f"failure_mode_annotations.{fm.id}", f"{fm.label}: choose a severity.")
                )
        if not rating.notes.get("brief_rationale", "").strip():
            problems.append(Problem(src, "clinician_notes.brief_rationale", "A brief rationale is required."))
        return problems

    def _build_record(
        self, rating: WorkingRating, revision: int, record_id: str, submitted_at: str,
        blinding_guess: BlindingGuess | None = None,
    ) -> TaskRecord:
        task = self.task(rating.task_id)
        envelope: dict[str, object] = {
            "schema_id": RECORD_SCHEMA_ID,
            "schema_version": RECORD_SCHEMA_VERSION,
            "record_id": record_id,
            "task_id": rating.task_id,
            "bundle_id": self.manifest.bundle_id,
            "bundle_sha256": self.bundle.manifest_sha256,
            "app_version": self.app_version,
            # A computer's clock set back since the task was opened must not make the rating impossible to
            # submit: a record never says it was submitted before it was started.
            "started_at": submitted_at if _earlier(submitted_at, rating.started_at) else rating.started_at,
            "submitted_at": submitted_at,
            "revision": revision,
        }
        if rating.base_record_id is not None:
            envelope["supersedes_record_id"] = rating.base_record_id
        common: dict[str, object] = {
            "envelope": envelope,
            "benchmark_item_id": task.benchmark_item_id,
            "clinical_domain_id": task.clinical_domain_id,
            "scenario_type_ids": list(task.scenario_type_ids),
            "candidate_response_id": task.candidate_response_id,
            "candidate_response_text": task.candidate_response_text,
            "rater_id": self.rater.rater_id,
            "time_spent_scoring_seconds": round(rating.active_seconds),
        }
        role = self.rater.role_or_background or self.manifest.rater_role_or_background
        if role:
            common["rater_role_or_background"] = role
        if rating.flag is not None:
            common["coordinator_flag"] = {"note": rating.flag}
        try:
            if rating.cannot_rate is not None:
                cannot: dict[str, object] = {"reason": rating.cannot_rate.reason}
                if rating.cannot_rate.detail.strip():
                    cannot["detail"] = rating.cannot_rate.detail
                return CannotRateRecord.model_validate({**common, "record_kind": "cannot_rate", "cannot_rate": cannot})
            fields = self._rating_fields(rating)
            if blinding_guess is not None:  # a "cannot rate" is never asked the blinding question
                fields["blinding_guess"] = blinding_guess.to_json_obj()
            return RatingRecord.model_validate({**common, **fields})
        except ValidationError as exc:
            raise DocumentError(problems_from_validation_error(exc, "rating")) from None

    def _rating_fields(self, rating: WorkingRating) -> dict[str, object]:
        """The fields only a rating has: scores, failure modes and notes."""
        annotations: dict[str, str] = {}
        notes: dict[str, str] = {}
        spans: dict[str, list[dict[str, object]]] = {}
        for fm in self.rubric.failure_modes:
            entry = rating.failure_modes.get(fm.id)
            if entry is None or not entry.checked:
                annotations[fm.id] = "none"
                continue
            annotations[fm.id] = entry.severity or "none"
            if entry.note.strip():
                notes[fm.id] = entry.note
            if entry.spans:
                spans[fm.id] = [s.to_json_obj() for s in entry.spans]
        clinician: dict[str, object] = {"brief_rationale": rating.notes.get("brief_rationale", "")}
        for name in NOTE_FIELDS[1:]:
            if rating.notes.get(name, "").strip():
                clinician[name] = rating.notes[name]
        if rating.confidence is not None:
            clinician["confidence_rating"] = rating.confidence
        obj: dict[str, object] = {
            "scoring": {d.field: rating.scores.get(d.id) for d in self.rubric.dimensions},
            "failure_mode_annotations": annotations,
            "clinician_notes": clinician,
        }
        if notes:
            obj["failure_mode_evidence_notes"] = notes
        if spans:
            obj["failure_mode_evidence_spans"] = spans
        return obj

    def submit(self, blinding_guess: BlindingGuess | None = None) -> SubmitOutcome:
        """Validate; when valid write the record (a new revision when revising) and move on.

        ``blinding_guess``: the rater's answer to the blinding check (:meth:`asks_blinding_question`), None
        when it was skipped or not asked. A revision keeps the answer given at the first submission.
        """
        gone = self.data_folder_problem()
        if gone is not None:  # not "fix these problems" when nothing can be written anyway
            self.save_error = gone
            return SubmitOutcome([], error=gone)
        self.tick()
        rating = self._editable()
        if rating.base_revision is not None:
            if blinding_guess is not None:
                raise WmcdpError("The blinding question is answered once, when a task is first submitted.")
            blinding_guess = self._earlier_guess(rating)
        revision = (self._latest.get(rating.task_id) or 0) + 1
        problems, record = self._checked_record(
            rating, revision, uuid.uuid4().hex, utc_iso(self.clock), blinding_guess
        )
        if record is None:
            return SubmitOutcome(problems)
        try:
            saved = self.store.save_record(record)
        except DataFolderGoneError as exc:
            self.save_error = str(exc)
            return SubmitOutcome([], error=self.save_error)
        except StorageError as exc:
            self.save_draft()
            self.save_error = (
                f"Your rating could not be submitted: {exc}\nIt is kept in this window"
                + (" and in the saved draft" if self.save_error is None else "")
                + ". Fix the problem, then submit again."
            )
            return SubmitOutcome([], error=self.save_error)
        path, digest = saved.path, saved.sha256
        self._latest[rating.task_id] = revision
        self.save_error = None
        try:
            self.store.delete_draft(rating.task_id)
            self._drafts.discard(rating.task_id)
        except StorageError:
            pass  # a leftover draft is ignored (its base revision is older than the latest record)
        try:
            self.store.audit(
                "revised" if revision > 1 else "submitted",
                durable=False,  # the record file is the durable evidence; see RaterStore.audit
                task_id=rating.task_id,
                revision=revision,
                record_id=record.envelope.record_id,
                file=path.name,
                sha256=digest,
                kind=record_kind(record),
                flagged=record.coordinator_flag is not None,
            )
        except StorageError as exc:
            self.save_error = f"The rating was submitted, but the audit log could not be written: {exc}"
        self.tracker.set_task_open(False)
        self.current = None
        self.viewing_record = record
        self._record_marks[rating.task_id] = _record_marks(record)
        self._draft_marks.pop(rating.task_id, None)
        self.dirty = False
        self._unsaved_time = 0.0
        task = self.task(rating.task_id)
        return SubmitOutcome(
            [],
            record=record,
            sha256=digest,
            next_task_id=self.next_unfinished(rating.task_id),
            # The adjudicated answer is shown after a rating, not after a "cannot rate".
            calibration=task.calibration_feedback if isinstance(record, RatingRecord) else None,
        )

    def revise(self) -> None:
        """Turn the submitted rating on screen into an editable draft for a new revision."""
        if self.viewing_record is None or self.current_id is None:
            raise WmcdpError("Only a submitted rating can be revised.")
        self.current = WorkingRating.from_record(self.viewing_record, self.rubric)
        self.viewing_record = None
        self.tracker.set_task_open(True)
        self._changed()
        self.save_draft()

    def discard_revision(self) -> None:
        """Give up the revision in progress; the submitted record stays as it was."""
        if self.current is None or self.current.base_revision is None or self.current_id is None:
            raise WmcdpError("No revision is in progress.")
        tid = self.current_id
        self.tracker.set_task_open(False)
        self.store.delete_draft(tid)
        self._drafts.discard(tid)
        self._draft_marks.pop(tid, None)
        self.current = None
        self.dirty = False
        self._unsaved_time = 0.0
        self.viewing_record = self.store.load_record(tid, self._latest[tid])

    def calibration_view(self) -> list[CalibrationRow] | None:
        """Feedback rows for a submitted calibration task on screen (None otherwise, and after a "cannot rate")."""
        if not isinstance(self.viewing_record, RatingRecord):
            return None
        feedback = self.task().calibration_feedback
        if feedback is None:
            return None
        return calibration_rows(self.viewing_record, feedback, self.rubric)
