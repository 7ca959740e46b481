"""Reading ``ratings.jsonl`` into one compact :class:`RatingRow` per valid rating and one
:class:`CannotRateRow` per valid "cannot rate" (no numpy, no Qt).

Each line is parsed strictly, validated as a RatingRecord and checked against the rubric exactly as
one record at a time always was; only what the report uses is kept. The problems of the first
:data:`MAX_LINES_WITH_PROBLEMS` invalid lines are kept (the report lists a few and counts the rest), so a
file of a million bad lines costs no more memory than its valid rows would.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from pydantic import ValidationError

from wmcdp_desktop.core.counts import agree, count
from wmcdp_desktop.core.documents import json_values_at_most, problems_from_validation_error, read_file_bytes
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.files import MAX_JSONL_BYTES
from wmcdp_desktop.core.models.cannot_rate_record import CannotRateRecord
from wmcdp_desktop.core.models.common import SEVERITIES
from wmcdp_desktop.core.models.rating_record import NA, RatingRecord
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.task_record import record_model
from wmcdp_desktop.core.record_rules import RubricRules
from wmcdp_desktop.core.strict_json import decode_text, jsonl_line, parse_jsonl_line

CANNOT_TELL = ""
"""``RatingRow.blinding_guess`` of "I can't tell" (a label is never empty)."""
MAX_LINES_WITH_PROBLEMS = 100
"""Invalid lines whose problems are kept (the others are only counted)."""
MAX_LINE_VALUES = 100_000
"""Most JSON values (objects, arrays, list items) one line may hold; a rating record has a few hundred.
Checked before the line is parsed (a line of a million empty objects would take gigabytes)."""
PROGRESS_EVERY = 1_000
"""Lines read between two calls of the progress callback."""

_SEVERITY_INDEX = {s: i for i, s in enumerate(SEVERITIES)}


class RatingRow(NamedTuple):
    """What the report uses of one valid rating record."""

    rater_id: str
    task_id: str
    revision: int
    submitted_at: str
    item_id: str
    model_source: str | None
    scores: tuple[int | None, ...]
    """One per rubric dimension, in the rubric's order; None = N/A."""
    severities: tuple[int, ...]
    """One per rubric failure mode, in the rubric's order: index into SEVERITIES (0 = none)."""
    confidence: int | None
    seconds: int | None
    rationale: str
    text_digest: bytes
    """SHA-256 of the rated response's text (compared with the gold response's, never shown)."""
    blinding_guess: str | None = None
    """The blinding-check answer: the label chosen, :data:`CANNOT_TELL`, or None (not asked or skipped)."""
    flagged: bool = False
    """The rater flagged the task for the coordinator."""


class CannotRateRow(NamedTuple):
    """What the report uses of one valid "cannot rate" record (never part of a statistic: only counted)."""

    rater_id: str
    task_id: str
    revision: int
    submitted_at: str
    item_id: str
    model_source: str | None
    reason: str
    flagged: bool


class RatingRows(NamedTuple):
    """What :func:`read_rating_rows` found in ``ratings.jsonl``."""

    rows: list[RatingRow]
    """One per valid rating, in line order."""
    problems: list[Problem]
    """The problems of the first :data:`MAX_LINES_WITH_PROBLEMS` invalid lines."""
    lines: int
    """Non-blank lines."""
    excluded: int
    """Invalid lines (left out), all of them."""
    cannot_rate: list[CannotRateRow]
    """One per valid "cannot rate", in line order."""


def text_digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def row_of(record: RatingRecord, fields: Sequence[str], fm_ids: Sequence[str]) -> RatingRow:
    """The row of a record that passed validation and the rubric's rules."""
    env = record.envelope
    sc = record.scoring
    scores = tuple(None if (v := getattr(sc, name)) == NA else v for name in fields)
    ann = record.failure_mode_annotations
    notes = record.clinician_notes
    return RatingRow(
        record.rater_id, env.task_id, env.revision, env.submitted_at, record.benchmark_item_id,
        record.model_source, scores, tuple(_SEVERITY_INDEX[ann[f]] for f in fm_ids),
        notes.confidence_rating, record.time_spent_scoring_seconds, notes.brief_rationale,
        text_digest(record.candidate_response_text), _guess(record), record.coordinator_flag is not None,
    )


def cannot_rate_row_of(record: CannotRateRecord) -> CannotRateRow:
    env = record.envelope
    return CannotRateRow(
        record.rater_id, env.task_id, env.revision, env.submitted_at, record.benchmark_item_id,
        record.model_source, record.cannot_rate.reason, record.coordinator_flag is not None,
    )


def _numbered_lines(path: Path) -> list[tuple[int, str]]:
    source = str(path)
    text = decode_text(read_file_bytes(path, source, MAX_JSONL_BYTES), source)
    return [(number, line) for number, line in enumerate(text.split("\n"), start=1) if line.strip()]


def _guess(record: RatingRecord) -> str | None:
    guess = record.blinding_guess
    if guess is None:
        return None
    return guess.label if guess.label is not None else CANNOT_TELL


def _syntax_error(lines: list[tuple[int, str]], source: str, first: list[Problem]) -> DocumentError:
    """Every line that is not JSON (the first ones named, the rest counted), once one was found."""
    problems = list(first)
    bad = 1
    for number, line in lines:
        try:
            parse_jsonl_line(line, source, number)
        except DocumentError as exc:
            bad += 1
            if bad <= MAX_LINES_WITH_PROBLEMS:
                problems.extend(exc.problems)
    if bad > MAX_LINES_WITH_PROBLEMS:
        problems.append(Problem(source, "", f"and {count(bad - MAX_LINES_WITH_PROBLEMS, 'more line')} that {agree(bad - MAX_LINES_WITH_PROBLEMS, 'is', 'are')} not JSON"))
    return DocumentError(problems)


def read_rating_rows(
    path: Path, rubric: Rubric, progress: Callable[[int, int], None] | None = None
) -> RatingRows:
    """Rows of every valid record of ``ratings.jsonl`` (or of ``path/ratings.jsonl``), the problems of the
    others, and counts. A line that is not JSON at all makes the whole file unreadable (DocumentError
    listing such lines), as for every JSON Lines file of the project. ``progress(done, total)`` counts
    lines read.
    """
    if path.is_dir():
        path = path / "ratings.jsonl"
    source = str(path)
    lines = _numbered_lines(path)
    rules = RubricRules(rubric)
    fields = [d.field for d in rubric.dimensions]
    fm_ids = [fm.id for fm in rubric.failure_modes]

    def row_or_problems(obj: object, where: str, keep: bool) -> RatingRow | CannotRateRow | list[Problem]:
        """The row, or the line's problems (``[]`` when they are not ``keep``-t: only counted)."""
        try:
            record = record_model(obj).model_validate(obj)
        except ValidationError as exc:
            return problems_from_validation_error(exc, where) if keep else []
        if isinstance(record, CannotRateRecord):
            return rules.problems(record, None, where, check_times=False) or cannot_rate_row_of(record)
        return rules.problems(record, None, where, check_times=False) or row_of(record, fields, fm_ids)

    out = RatingRows([], [], len(lines), 0, [])
    for done, (number, line) in enumerate(lines, start=1):
        where = jsonl_line(source, number)
        if json_values_at_most(line, MAX_LINE_VALUES):
            try:
                obj = parse_jsonl_line(line, source, number)
            except DocumentError as exc:
                raise _syntax_error(lines[done:], source, exc.problems) from None
            outcome = row_or_problems(obj, where, out.excluded < MAX_LINES_WITH_PROBLEMS)
        else:
            outcome = [Problem(where, "", f"holds more than {MAX_LINE_VALUES:,} JSON values; a rating record "
                               "has a few hundred")]
        if isinstance(outcome, RatingRow):
            out.rows.append(outcome)
        elif isinstance(outcome, CannotRateRow):
            out.cannot_rate.append(outcome)
        else:
            out = out._replace(excluded=out.excluded + 1)
            if out.excluded <= MAX_LINES_WITH_PROBLEMS:
                out.problems.extend(outcome)
        if progress is not None and (done % PROGRESS_EVERY == 0 or done == len(lines)):
            progress(done, len(lines))
    return out
