"""Reading ``ratings.jsonl`` into one compact :class:`RatingRow` per valid record (no numpy, no Qt).

Each line is parsed strictly, validated as a RatingRecord and checked against the rubric exactly as
one record at a time always was; only what the report uses is kept. A big file is read in chunks of
lines by a process pool (:mod:`wmcdp_desktop.core.parallel`): the workers send back rows and problems,
merged in line order, so the result is the same as in one process (pinned by tests). Meanwhile the
parent does its own work (``while_waiting``: the study's items, the statistics libraries' imports).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from wmcdp_desktop.core import parallel
from wmcdp_desktop.core.documents import read_file_bytes, validate_obj
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.gc_pause import gc_paused
from wmcdp_desktop.core.models.common import SEVERITIES
from wmcdp_desktop.core.models.rating_record import NA, RatingRecord
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.record_rules import RubricRules
from wmcdp_desktop.core.strict_json import decode_text, parse_json_text

PARALLEL_MIN_LINES = 4_000
"""With ``jobs=None`` (automatic), files of at least this many ratings are read by a process pool (five
times as many where workers are not forked: :func:`~wmcdp_desktop.core.parallel.workers_for`).
Measured with 2 forked workers: 2,000 ratings 0.24 s in one process against 0.27 s; 4,000: 0.47 s
against 0.42 s."""
MIN_CHUNK = 250
MAX_CHUNK = 4_000

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
        text_digest(record.candidate_response_text),
    )


class ChunkRead(NamedTuple):
    """One chunk of lines read: problems that make the file unreadable, record problems, rows (with their
    line numbers), in line order."""

    syntax: list[Problem]
    problems: list[Problem]
    rows: list[tuple[int, RatingRow]]


def read_chunk(lines: list[tuple[int, str]], source: str, rubric: Rubric) -> ChunkRead:
    """Parse, validate and check numbered non-blank lines (runs in a worker process, or here).

    Once a line is not JSON at all the file cannot be used, so the lines after it are only parsed (to
    report every such line), not validated.
    """
    rules = RubricRules(rubric)
    fields = [d.field for d in rubric.dimensions]
    fm_ids = [fm.id for fm in rubric.failure_modes]
    out = ChunkRead([], [], [])
    with gc_paused():
        for number, line in lines:
            where = f"{source}:{number}"
            try:
                obj = parse_json_text(line, where, from_utf8=True)
            except DocumentError as exc:
                out.syntax.extend(exc.problems)
                continue
            if out.syntax:
                continue
            try:
                record = validate_obj(RatingRecord, obj, where)
            except DocumentError as exc:
                out.problems.extend(exc.problems)
                continue
            rule_problems = rules.problems(record, None, where)
            if rule_problems:
                out.problems.extend(rule_problems)
                continue
            out.rows.append((number, row_of(record, fields, fm_ids)))
    return out


def _chunk_size(n_lines: int, workers: int) -> int:
    return max(MIN_CHUNK, min(MAX_CHUNK, -(-n_lines // (workers * 4))))


def read_rating_rows(
    path: Path,
    rubric: Rubric,
    *,
    jobs: int | None = 1,
    while_waiting: Callable[[], Any] | None = None,
    chunk_size: int | None = None,
    start_method: str | None = None,
) -> tuple[list[RatingRow], list[Problem], int]:
    """Rows of every valid record of ``ratings.jsonl`` (or of ``path/ratings.jsonl``), the problems of the
    others, and the number of non-blank lines. A line that is not JSON at all makes the whole file
    unreadable (DocumentError listing every such line), as for every JSON Lines file of the project.

    ``jobs``: worker processes (``1``: this process; ``None``: a pool of up to
    :data:`~wmcdp_desktop.core.parallel.MAX_AUTO_WORKERS` for :data:`PARALLEL_MIN_LINES` lines or more,
    five times that where workers are not forked, and more than one CPU). The result is the same either
    way. ``while_waiting`` runs here while the workers read (at once without a pool; not at all for a file
    without ratings). ``chunk_size`` and
    ``start_method`` are for tests.
    """
    if path.is_dir():
        path = path / "ratings.jsonl"
    source = str(path)
    text = decode_text(read_file_bytes(path, source), source)
    lines = [(number, line) for number, line in enumerate(text.split("\n"), start=1) if line.strip()]
    del text
    if not lines:
        return [], [], 0  # nothing to read: the caller says so at once (``while_waiting`` is not run)
    workers = parallel.workers_for(jobs, len(lines), PARALLEL_MIN_LINES)
    if workers == 1 or len(lines) < 2:
        if while_waiting is not None:
            while_waiting()
        reads = [read_chunk(lines, source, rubric)]
    else:
        size = chunk_size or _chunk_size(len(lines), workers)
        chunks = [lines[i : i + size] for i in range(0, len(lines), size)]
        found: dict[int, ChunkRead] = {}
        pool: parallel.ChunkPool[tuple[int, str], ChunkRead] = parallel.ChunkPool(
            read_chunk, chunks, workers=workers, extra=(source, rubric), start_method=start_method
        )
        with pool:
            if while_waiting is not None:
                while_waiting()
            try:
                for index, read in pool.completed():
                    found[index] = read
            except parallel.WorkerError as exc:
                first, last = chunks[exc.chunk][0][0], chunks[exc.chunk][-1][0]
                raise parallel.WorkerError(
                    exc.chunk, f"{exc.cause} (while reading lines {first}-{last} of {source})"
                ) from None
        reads = [found[i] for i in range(len(chunks))]
    syntax = [p for read in reads for p in read.syntax]
    if syntax:
        raise DocumentError(syntax)
    problems = [p for read in reads for p in read.problems]
    rows = [row for read in reads for _, row in read.rows]
    return rows, problems, len(lines)
