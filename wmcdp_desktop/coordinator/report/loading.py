"""Reading the collected ratings and the study folder into one column-oriented :class:`Dataset`.

Everything is read strictly through :mod:`wmcdp_desktop.core.documents` (no ad hoc JSON). A record that
does not fit the RatingRecord model or breaks the rubric is left out of every figure and listed in the
report's notes; a file that cannot be read at all (``ratings.jsonl``, ``study.json``, ``rubric.json``)
stops the command with a :class:`DocumentError` naming the file.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from wmcdp_desktop.coordinator.report.blinding_style import measure_rated
from wmcdp_desktop.coordinator.report.common import Note, StageProgress
from wmcdp_desktop.coordinator.report.dataset import Dataset, GoldResponses, _data_notes, _posix
from wmcdp_desktop.coordinator.report.rating_rows import (
    CannotRateRow,
    RatingRow,
    read_rating_rows,
    row_of,
    text_digest,
)
from wmcdp_desktop.core.counts import agree, count
from wmcdp_desktop.core.documents import load_file, load_jsonl, read_file_bytes
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.files import MAX_JSONL_BYTES
from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
from wmcdp_desktop.core.models.candidate_response import CandidateResponse
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.study import Study
from wmcdp_desktop.core.strict_json import parse_json_bytes


def load_gold_responses(study_dir: Path, items: dict[str, BenchmarkItem], notes: list[Note]) -> GoldResponses:
    """For items naming ``goldResponseId``: that response's model and text, from ``responses/*.jsonl``."""
    wanted = {i: rid for i, item in items.items() if (rid := item.gold_response_id)}
    if not wanted:
        return {}
    found: dict[str, CandidateResponse] = {}
    for path in sorted((study_dir / "responses").glob("*.jsonl")):
        try:
            for resp in load_jsonl(CandidateResponse, read_file_bytes(path, max_bytes=MAX_JSONL_BYTES), str(path)):
                found.setdefault(resp.response_id, resp)
        except DocumentError as exc:
            notes.append(Note("gold", f"{path.name} could not be read ({exc.problems[0]}); items whose gold "
                                      "names a response in it are left out of the gold comparison."))
    out: GoldResponses = {}
    for item_id, rid in wanted.items():
        match = found.get(rid)
        if match is None or match.benchmark_item_id != item_id:
            out[item_id] = None
            notes.append(Note("gold", f"Item {item_id}: its goldResponseId {rid} was not found among its "
                                      "responses; the item is left out of the gold comparison."))
        else:
            out[item_id] = (match.model_source, match.text)
    return out


def load_study_and_rubric(study_dir: Path) -> tuple[Study, Rubric]:
    """study.json and rubric.json (both required: a DocumentError names the file)."""
    if not study_dir.is_dir():
        raise DocumentError.single(str(study_dir), "study folder not found")
    return load_file(Study, study_dir / "study.json"), load_file(Rubric, study_dir / "rubric.json")


def load_items(study_dir: Path) -> tuple[dict[str, BenchmarkItem], list[Note]]:
    """items/*.json by benchmark item id; bad or repeated items are noted and skipped."""
    notes: list[Note] = []
    items: dict[str, BenchmarkItem] = {}
    items_dir = study_dir / "items"
    if not items_dir.is_dir():
        notes.append(Note("gold", f"{items_dir} not found: no gold standard or calibration split is available."))
        return items, notes
    for path in sorted(items_dir.glob("*.json"), key=lambda p: p.name):  # one folder: by name (Path < is slow)
        try:
            item = load_file(BenchmarkItem, path)
        except DocumentError as exc:
            first = exc.problems[0]
            notes.append(Note("gold", f"item file skipped: {first}"
                              + (f" (and {count(len(exc.problems) - 1, 'more problem')})" if len(exc.problems) > 1 else "")))
            continue
        if item.benchmarkItemId in items:
            notes.append(Note("gold", f"{path.name}: benchmark item {item.benchmarkItemId} appears twice; the first file is used."))
            continue
        items[item.benchmarkItemId] = item
    return items, notes


def build_dataset(
    records: list[RatingRecord],
    rubric: Rubric,
    *,
    items: dict[str, BenchmarkItem] | None = None,
    gold_responses: GoldResponses | None = None,
) -> Dataset:
    """Turn valid records held in memory into columns (see :func:`dataset_from_rows`)."""
    fields = [d.field for d in rubric.dimensions]
    fm_ids = [fm.id for fm in rubric.failure_modes]
    rows = [row_of(rec, fields, fm_ids) for rec in records]
    return dataset_from_rows(rows, rubric, items=items, gold_responses=gold_responses)


_Row = TypeVar("_Row", RatingRow, CannotRateRow, RatingRow | CannotRateRow)


def _latest_per_rater_and_task(rows: list[_Row]) -> list[_Row]:
    """The latest revision of each (rater, task), in the order of the rows (one pass, no statistics); a rating
    and a "cannot rate" of the same (rater, task) are revisions of one answer."""
    latest: dict[tuple[str, str], int] = {}
    for i, row in enumerate(rows):
        key = (row.rater_id, row.task_id)
        j = latest.get(key)
        if j is None or (row.revision, row.submitted_at) > (rows[j].revision, rows[j].submitted_at):
            latest[key] = i
    return [rows[i] for i in sorted(latest.values())]


def dataset_from_rows(
    rows: list[RatingRow],
    rubric: Rubric,
    study: Study | None = None,
    items: dict[str, BenchmarkItem] | None = None,
    notes: list[Note] | None = None,
    problems: list[Problem] | None = None,
    lines_read: int | None = None,
    gold_responses: GoldResponses | None = None,
    *,
    excluded: int | None = None,
    cannot_rate: list[CannotRateRow] | None = None,
) -> Dataset:
    """Turn rows into columns. Keeps the latest revision per (rater, task) and notes the rest; a "cannot
    rate" (``cannot_rate``) that is a (rater, task)'s latest record replaces its ratings and is only counted.
    ``excluded``: records left out as invalid (default: those ``problems`` name)."""
    notes = list(notes or [])
    problems = list(problems or [])
    items = dict(items or {})
    dims = rubric.dimensions
    n_fm = len(rubric.failure_modes)

    both: list[RatingRow | CannotRateRow] = [*rows, *(cannot_rate or [])]
    latest = _latest_per_rater_and_task(both)  # of either kind
    kept = [x for x in latest if isinstance(x, RatingRow)]
    unable = [y for y in latest if isinstance(y, CannotRateRow)]
    dropped = len(both) - len(latest)
    if dropped:
        notes.append(Note("data", f"{count(dropped, 'older revision or duplicate', 'older revisions or duplicates')} of the same rater and task {agree(dropped, 'was', 'were')} "
                                  "ignored; the latest revision of each is used."))

    n = len(kept)
    task_ix: dict[str, int] = {}
    rater_ix: dict[str, int] = {}
    item_ix: dict[str, int] = {}
    model_ix: dict[str, int] = {}
    task = np.empty(n, np.int64)
    rater = np.empty(n, np.int64)
    item = np.empty(n, np.int64)
    model = np.empty(n, np.int64)
    scores = np.full((n, len(dims)), np.nan)
    na = np.zeros((n, len(dims)), bool)
    severity = np.zeros((n, n_fm), np.int64)
    confidence = np.full(n, np.nan)
    seconds = np.full(n, np.nan)
    submitted = np.empty(n)
    flagged = np.zeros(n, bool)
    rationale: list[str] = []
    guesses: list[str | None] = []
    targets = {item_id: None if target is None else (target[0], text_digest(target[1]))
               for item_id, target in (gold_responses or {}).items()}
    gold_target = np.ones(n, bool)
    for r, row in enumerate(kept):
        task[r] = task_ix.setdefault(row.task_id, len(task_ix))
        rater[r] = rater_ix.setdefault(row.rater_id, len(rater_ix))
        item[r] = item_ix.setdefault(row.item_id, len(item_ix))
        model[r] = model_ix.setdefault(row.model_source, len(model_ix)) if row.model_source else -1
        for d, v in enumerate(row.scores):
            if v is None:
                na[r, d] = True
            else:
                scores[r, d] = v
        if n_fm:
            severity[r] = row.severities
        if row.confidence is not None:
            confidence[r] = row.confidence
        if row.seconds is not None:
            seconds[r] = row.seconds
        submitted[r] = _posix(row.submitted_at)
        flagged[r] = row.flagged
        rationale.append(row.rationale)
        guesses.append(row.blinding_guess)
        if row.item_id in targets:
            target = targets[row.item_id]
            gold_target[r] = target is not None and (row.text_digest == target[1] or row.model_source == target[0])

    ds = Dataset(
        rubric=rubric, study=study, items=items, notes=notes,
        task_ids=list(task_ix), rater_ids=list(rater_ix), item_ids=list(item_ix), model_ids=list(model_ix),
        task=task, rater=rater, item=item, model=model, scores=scores, na=na, severity=severity,
        confidence=confidence, seconds=seconds, submitted=submitted, rationale=rationale, blinding_guess=guesses,
        gold_target=gold_target,
        records_read=lines_read if lines_read is not None else len(both) + len({p.file for p in problems}),
        records_excluded=len({p.file for p in problems}) if excluded is None else excluded, problems=problems,
        flagged=flagged if flagged.any() else None, cannot_rate=unable,
    )
    _data_notes(ds)
    return ds


def collected_folder_problem(collected_dir: Path) -> None:
    """Refuse, in plain words, a COLLECTED_DIR that is not the folder ``wmcdp results collect`` wrote."""
    what = "the folder `wmcdp results collect --out` wrote"
    if collected_dir.is_file():
        raise DocumentError.single(str(collected_dir), f"is a file, not a folder: give {what}")
    if not collected_dir.is_dir():
        raise DocumentError.single(str(collected_dir), f"folder not found: give {what}")
    if not any((collected_dir / name).is_file() for name in ("ratings.parquet", "ratings.jsonl")):
        raise DocumentError.single(str(collected_dir), f"holds neither ratings.parquet nor ratings.jsonl: give {what}")


SHOWN_IN_NOTES = 20
"""Quarantined and accepted records named one by one in the report's header (all of them in collect-report.json)."""


def collection_notes(collected_dir: Path) -> list[Note]:
    """What collect left out or kept by the coordinator's decision, for the report's header: the quarantined
    records (a check of their provenance failed: not in this report), those accepted anyway (with the reason
    given), and the records whose times a wrong clock explains (in the report, flagged)."""
    path = collected_dir / "collect-report.json"
    try:
        obj = parse_json_bytes(read_file_bytes(path, str(path)), str(path))
    except DocumentError:
        return []
    if not isinstance(obj, dict):
        return []
    notes: list[Note] = []

    def rows(name: str) -> list[dict[str, Any]]:
        found = obj.get(name)
        return [r for r in found if isinstance(r, dict)] if isinstance(found, list) else []

    quarantined, accepted, clock = rows("quarantine"), rows("accepted"), rows("clock_suspect")
    if quarantined:
        named = "; ".join(f"{r.get('record_id')} ({r.get('rater_id')} on {r.get('task_id')}, from {r.get('export')}: "
                          f"{r.get('failed')})" for r in quarantined[:SHOWN_IN_NOTES])
        more = f"; and {len(quarantined) - SHOWN_IN_NOTES:,} more" if len(quarantined) > SHOWN_IN_NOTES else ""
        notes.append(Note("data", f"Quarantined by collect, NOT in this report: {count(len(quarantined), 'record')} "
                                  f"whose provenance failed a check ({named}{more}). collect-report.json says why; "
                                  "`wmcdp results collect ... --accept RECORD_ID --reason TEXT` counts one after all."))
    for r in accepted[:SHOWN_IN_NOTES]:
        notes.append(Note("data", f"Accepted by the coordinator although {r.get('failed')}: record {r.get('record_id')} "
                                  f"({r.get('rater_id')} on {r.get('task_id')}, from {r.get('export')}), because: "
                                  f"{r.get('accepted_because')}"))
    if len(accepted) > SHOWN_IN_NOTES:
        notes.append(Note("data", f"… and {len(accepted) - SHOWN_IN_NOTES:,} more accepted records (collect-report.json)."))
    if clock:
        notes.append(Note("data", f"{count(len(clock), 'record')} in this report {agree(len(clock), 'has', 'have')} "
                                  "times a wrong clock on the rater's computer explains (clock_suspect in "
                                  "collect-report.json); their scores count, their dates may be wrong."))
    return notes


def load_dataset(collected_dir: Path, study_dir: Path, *, progress: StageProgress | None = None) -> Dataset:
    """Read everything ``wmcdp report`` needs. The ratings come from ``ratings.parquet`` when ``collect`` wrote
    it (checked against the SHA-256 in ``collect-report.json``; :mod:`~wmcdp_desktop.coordinator.report.collected_parquet`),
    else from ``ratings.jsonl``, each line validated again (slower; a note says so). ``progress`` hears how far
    the reading is (stage ``Reading ratings``). A file without ratings is refused before the study's items are
    read."""
    collected_folder_problem(collected_dir)
    study, rubric = load_study_and_rubric(study_dir)
    if (collected_dir / "ratings.parquet").is_file():
        from wmcdp_desktop.coordinator.report.collected_parquet import dataset_from_parquet, verified_bytes

        verified_bytes(collected_dir)  # a changed file is refused before the study's items are read
        items, notes = load_items(study_dir)
        notes[:0] = collection_notes(collected_dir)
        gold = load_gold_responses(study_dir, items, notes)
        ds = dataset_from_parquet(collected_dir, rubric, study, items, notes, gold, progress)
        if ds.records_read == 0:
            raise DocumentError.single(str(collected_dir / "ratings.parquet"), "holds no ratings")
        measure_rated(study_dir, ds)
        return ds
    reading = None if progress is None else partial(progress, "Reading ratings")
    found = read_rating_rows(collected_dir, rubric, reading)
    if found.lines == 0:
        raise DocumentError.single(str(collected_dir / "ratings.jsonl"), "holds no ratings")
    items, notes = load_items(study_dir)
    notes[:0] = collection_notes(collected_dir)
    notes.insert(0, Note("data", "ratings.parquet was not found (collected without pyarrow, or by an older wmcdp): "
                                 "the ratings were read from ratings.jsonl, every line validated again (slow on big "
                                 "studies). Run `wmcdp results collect` with the analysis extra installed to get it."))
    gold = load_gold_responses(study_dir, items, notes)
    ds = dataset_from_rows(found.rows, rubric, study, items, notes, found.problems, found.lines, gold,
                           excluded=found.excluded, cannot_rate=found.cannot_rate)
    measure_rated(study_dir, ds)
    return ds
