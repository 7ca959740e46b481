"""The rating session: pure Python (no Qt), driven by the UI and tested on its own.

One :class:`RatingSession` per opened bundle and rater. It knows each task's state (not started, draft,
submitted), holds the rating being written (a :class:`~wmcdp_desktop.rater.working_rating.WorkingRating`),
autosaves it as a :class:`~wmcdp_desktop.core.models.draft.Draft`, counts active time through an
:class:`~wmcdp_desktop.rater.timing.ActivityTracker`, checks the rating once per submit and writes its
record, and opens a submitted task for revision.

Nothing here knows which model wrote a response: tasks carry none, and records never get
``model_source`` (the coordinator's unblinding fills it in).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from wmcdp_desktop import __version__
from wmcdp_desktop.core.errors import DocumentError, Problem, StorageError, WmcdpError
from wmcdp_desktop.core.models.bundle_manifest import BundleManifest
from wmcdp_desktop.core.models.cannot_rate_record import CANNOT_RATE_REASONS, CannotRateReason
from wmcdp_desktop.core.models.common import Severity, SpanRef, parse_datetime
from wmcdp_desktop.core.models.draft import Draft
from wmcdp_desktop.core.models.rating_record import NA, BlindingGuess, RatingRecord
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.task import CalibrationFeedback, Task
from wmcdp_desktop.core.models.task_record import TaskRecord, record_kind
from wmcdp_desktop.core.record_rules import RubricRules
from wmcdp_desktop.rater.clock_check import clock_problem, newest_file_time
from wmcdp_desktop.rater.storage import DataFolderGoneError, RaterStore, record_file_name
from wmcdp_desktop.rater.timing import DEFAULT_IDLE_TIMEOUT, ActivityTracker, Clock, utc_iso
from wmcdp_desktop.rater.working_rating import (
    FAULT_SEVERITIES,
    NOTE_FIELDS,
    SOURCE,
    CannotRateEntry,
    RecordOrigin,
    Stamp,
    TaskMarks,
    WorkingRating,
)

if TYPE_CHECKING:
    from wmcdp_desktop.core.bundle_reader import OpenedBundle
    from wmcdp_desktop.core.models.results_manifest import ResultsManifest
    from wmcdp_desktop.rater.export import ExportPlan

TaskState = Literal["not_started", "draft", "submitted"]
STATE_LABELS: dict[str, str] = {"not_started": "Not started", "draft": "In progress", "submitted": "Submitted"}
TIME_SAVE_EVERY = 5.0
"""While time is counting and nothing else changed, the draft (with its time) is saved this often."""


@dataclass(frozen=True)
class RaterIdentity:
    rater_id: str
    role_or_background: str | None = None


class WrongRaterError(WmcdpError):
    """The bundle was prepared for another rater."""


def check_assignment(manifest: BundleManifest, rater: RaterIdentity) -> None:
    """Refuse a bundle prepared for another rater (WrongRaterError, in plain words). Checked once, when a
    bundle is opened for rating, before a session is made for it (rater/app/bundle/opening.py)."""
    if manifest.rater_id is not None and manifest.rater_id != rater.rater_id:
        raise WrongRaterError(
            f"This bundle was prepared for rater {manifest.rater_id!r}, but this app is set up for rater "
            f"{rater.rater_id!r}.\nRatings must carry the right rater id, so the bundle was not opened. Ask your "
            "study coordinator for your own bundle, or, if your rater id was typed wrongly, change it with "
            "Settings > Rater id… and open the bundle again."
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
        bundle: OpenedBundle,
        store: RaterStore,
        rater: RaterIdentity,
        clock: Clock,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        app_version: str = __version__,
        language: str | None = None,
        export_public_key: bytes | None = None,
    ) -> None:
        self.bundle = bundle
        self.rubric_view = bundle.rubric.in_language(language)
        """The rubric as this rater reads it: in ``language`` when the bundle has a translation into it."""
        self.rubric = self.rubric_view.rubric
        """The rubric shown (texts in :attr:`rubric_view`'s language; ids, levels and rules the bundle's)."""
        self.rules = RubricRules(bundle.rubric)
        """The rubric's rules every record of this session is checked against (looked up once)."""
        self.store = store
        self.rater = rater
        self.clock = clock
        self.app_version = app_version
        self.origin = RecordOrigin(
            bundle.manifest.bundle_id, bundle.manifest_sha256, app_version, rater.rater_id,
            rater.role_or_background or bundle.manifest.rater_role_or_background,
        )
        """What every record of this session says about where it comes from."""
        self.tracker = ActivityTracker(clock, idle_timeout)
        self.session_seconds = 0.0
        self.task_ids = list(bundle.task_ids)
        self._index = {t: i for i, t in enumerate(self.task_ids)}
        self.export_public_key = export_public_key
        """The coordinator's public key an export is sealed to (an encrypted bundle's), or None: a plain export."""
        store.know_tasks(self.task_ids)
        store.ensure()
        self._latest = {t: r for t, r in store.latest_revisions().items() if t in self._index}
        self._drafts: set[str] = set()
        """Tasks whose saved draft holds something the rater entered (or a revision in progress).
        A draft holding only time (a task looked at) keeps the time but leaves the task "not started"."""
        self._draft_marks: dict[str, TaskMarks] = {}
        """Flag and "cannot rate" of the drafts (read with them at the start, then kept up to date)."""
        self._record_marks: dict[str, TaskMarks] = {}
        """Flag and kind of the latest records read so far (:meth:`load_marks`; records are read lazily)."""
        self._checked: tuple[WorkingRating, TaskRecord] | None = None
        """The entries of the rating last checked and passed (:meth:`check`) and the record built from them."""
        for tid in sorted(store.draft_task_ids() & set(self.task_ids)):
            draft = self._current_draft(tid)
            if draft is None:
                continue
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
        self.clock_problem = clock_problem(
            datetime.fromtimestamp(clock.wall(), tz=UTC),
            parse_datetime(bundle.manifest.created_at),
            newest_file_time(store.root, store.drafts_dir, store.records_dir),  # before this opening writes
            study_bundle=bundle.manifest.rater_id is not None,
        )
        """Why the computer's clock cannot be right (rater/clock_check.py), or None: the window says so before
        the rater rates. The records are written all the same (collect keeps them, flagged)."""
        store.audit(
            "opened",
            bundle_id=bundle.manifest.bundle_id,
            bundle_sha256=bundle.manifest_sha256,
            rater_id=rater.rater_id,
            app_version=app_version,
        )
        store.recover_unaudited_records()
        store.remove_orphan_temp_files()
        # The temporary zip (ratings inside) of an export killed last time. Imported here, after the first paint,
        # like the export itself.
        from wmcdp_desktop.rater.export import remove_leftover_exports

        remove_leftover_exports(store)

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
        if task_id in self._drafts:  # not submitted yet, or a revision in progress
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
            marks = TaskMarks.of(self.store.load_record(task_id, self._latest[task_id]))
        except WmcdpError:
            marks = TaskMarks()
        self._record_marks[task_id] = marks
        return marks

    def progress(self) -> tuple[int, int]:
        return len(self._latest), len(self.task_ids)

    def drafts_not_submitted(self) -> int:
        return len(self._drafts - set(self._latest))

    def flags_not_submitted(self) -> int:
        """Tasks flagged for the coordinator in a draft (not submitted yet, or a revision in progress): an export
        holds submitted records only, so these flags are not in it and its summary says so."""
        pending = set(self._drafts)
        if self.current is not None and self.current_id is not None:  # the open rating: unsubmitted, or a revision
            pending.add(self.current_id)
        return sum(1 for tid in pending if (marks := self.marks(tid)) is not None and marks.flagged)

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
            sealed_to=self.export_public_key,
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
        draft = self._current_draft(task_id)
        latest = self._latest.get(task_id)
        if draft is not None:
            self.current = WorkingRating.from_draft(draft)
        elif latest is not None:
            self._drafts.discard(task_id)
            self.viewing_record = self.store.load_record(task_id, latest)
            self._record_marks[task_id] = TaskMarks.of(self.viewing_record)
        else:
            self._drafts.discard(task_id)
            self.current = WorkingRating(task_id=task_id, started_at=utc_iso(self.clock))
        self.dirty = False
        self._unsaved_time = 0.0
        self.tracker.set_task_open(self.current is not None)
        return task

    def _current_draft(self, task_id: str) -> Draft | None:
        """The task's saved draft (an unreadable one is quarantined and reported), unless it is a leftover from
        before the task's latest submission (its removal failed): then it is not current, and None."""
        draft = self.store.load_draft(task_id)
        latest = self._latest.get(task_id)
        return None if draft is not None and latest is not None and draft.base_revision != latest else draft

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

    def check(self) -> list[Problem]:
        """Why the open rating cannot be submitted yet (empty: it can), each problem with the record field of
        its control. The rating is checked whole here, once: when it passes, the record built from it is kept,
        and :meth:`submit` writes that record as long as the rating holds what was checked (any change since,
        however made, and submit checks it again)."""
        rating = self._editable()
        self._checked = None
        problems = rating.problems(self.rubric)
        if problems:
            return problems
        task = self.task(rating.task_id)
        stamp = Stamp("0" * 32, self._next_revision(rating.task_id), utc_iso(self.clock))  # its id comes on submit
        try:
            record = rating.to_record(task, self.rubric, self.origin, stamp)
        except DocumentError as exc:
            return exc.problems
        # The times come from this computer's clock: never refuse a rating over them (record_rules).
        problems = self.rules.problems(record, task, SOURCE, check_times=False)
        if not problems:
            self._checked = (rating.entries(), record)
        return problems

    def _next_revision(self, task_id: str) -> int:
        return (self._latest.get(task_id) or 0) + 1

    def submit(self, blinding_guess: BlindingGuess | None = None) -> SubmitOutcome:
        """Check the rating (unless :meth:`check` passed it and it has not changed since); when it passes,
        write its record (a new revision when revising) and move on.

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
        record_id = uuid.uuid4().hex
        checked = self._checked
        if checked is None or rating.entries() != checked[0]:  # changed since, however: checked again
            problems = self.check()
            if self._checked is None:
                return SubmitOutcome(problems)
            checked = self._checked
        revision = self._next_revision(rating.task_id)
        stamp = Stamp(record_id, revision, utc_iso(self.clock))
        try:
            record = rating.stamped(checked[1], self.origin, stamp, blinding_guess, self.blinding_labels)
        except DocumentError as exc:
            return SubmitOutcome(exc.problems)
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
        digest = saved.sha256
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
                file=record_file_name(rating.task_id, revision),  # as the export names it (an encrypted folder's is opaque)
                sha256=digest,
                kind=record_kind(record),
                flagged=record.coordinator_flag is not None,
            )
        except StorageError as exc:
            self.save_error = f"The rating was submitted, but the audit log could not be written: {exc}"
        self.tracker.set_task_open(False)
        self.current = None
        self._checked = None
        self.viewing_record = record
        self._record_marks[rating.task_id] = TaskMarks.of(record)
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
