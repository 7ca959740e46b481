"""Reading the collected ratings and the study folder into one column-oriented :class:`Dataset`.

Everything is read strictly through :mod:`wmcdp_desktop.core.documents` (no ad hoc JSON). A record that
does not fit the RatingRecord model or breaks the rubric is left out of every figure and listed in the
report's notes; a file that cannot be read at all (``ratings.jsonl``, ``study.json``, ``rubric.json``)
stops the command with a :class:`DocumentError` naming the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TypeVar

import numpy as np

from wmcdp_desktop.analysis.common import BoolArray, FloatArray, IntArray, Note, StageProgress
from wmcdp_desktop.analysis.rating_rows import CannotRateRow, RatingRow, read_rating_rows, row_of, text_digest
from wmcdp_desktop.core.documents import load_file, load_jsonl, read_file_bytes
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.files import MAX_JSONL_BYTES
from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
from wmcdp_desktop.core.models.candidate_response import CandidateResponse
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.core.models.rubric import Dimension, Rubric
from wmcdp_desktop.core.models.study import Study

MAX_LISTED_PROBLEMS = 20
"""How many individual record problems the report lists before summarising the rest."""


@dataclass
class Dataset:
    """One row per kept rating (latest revision per rater and task), as numpy columns."""

    rubric: Rubric
    study: Study | None
    items: dict[str, BenchmarkItem]
    notes: list[Note]
    task_ids: list[str]
    rater_ids: list[str]
    item_ids: list[str]
    model_ids: list[str]
    task: IntArray
    """Index into ``task_ids`` per rating."""
    rater: IntArray
    item: IntArray
    model: IntArray
    """Index into ``model_ids``; -1 when the record has no ``model_source``."""
    scores: FloatArray
    """(n, 8) scores; NaN marks N/A (never used as a number: every statistic masks it out)."""
    na: BoolArray
    """(n, 8) True where the rater answered N/A."""
    severity: IntArray
    """(n, F) failure-mode severity index into SEVERITIES (0 = none)."""
    confidence: FloatArray
    """Confidence rating, NaN when not given."""
    seconds: FloatArray
    """Active time on the task, NaN when not given."""
    submitted: FloatArray
    """Submission time as POSIX seconds (orders a rater's work for drift)."""
    rationale: Sequence[str]
    """Per rating: the brief rationale (read where it is looked at when it comes from ratings.parquet)."""
    blinding_guess: list[str | None] = field(default_factory=list)
    """Per rating: the blinding-check label chosen, ``""`` for "I can't tell", None when not answered."""
    gold_target: BoolArray | None = None
    """True where the item's gold standard describes the rated response: every response of the item, or
    only the one named by the item's ``metadata.goldResponseId``. None = every rating."""
    records_read: int = 0
    records_excluded: int = 0
    problems: list[Problem] = field(default_factory=list)
    flagged: BoolArray | None = None
    """True where the rater flagged the task for the coordinator (None = no rating is flagged)."""
    cannot_rate: list[CannotRateRow] = field(default_factory=list)
    """The latest record of a (rater, task) when it is a "cannot rate": counted and listed, in no statistic."""

    @property
    def n(self) -> int:
        return int(self.task.size)

    @property
    def dimensions(self) -> list[Dimension]:
        return list(self.rubric.dimensions)

    @property
    def failure_mode_ids(self) -> list[str]:
        return [fm.id for fm in self.rubric.failure_modes]

    def scale_values(self, d: int) -> FloatArray:
        dim = self.rubric.dimensions[d]
        return np.arange(dim.scale.min, dim.scale.max + 1, dtype=np.float64)

    def item_weight(self) -> FloatArray:
        """Per item index: the study's ``weight`` of the item (1 for items not in the study's items/)."""
        return np.array([self.items[i].weight if i in self.items else 1.0 for i in self.item_ids], np.float64)

    def calibration_items(self) -> set[str]:
        return {i for i, item in self.items.items() if item.split == "calibration"}


def _posix(text: str) -> float:
    return datetime.fromisoformat(text.replace("z", "Z").replace("Z", "+00:00").replace("t", "T")).timestamp()


GoldResponses = dict[str, tuple[str, str] | None]
"""item id -> (model_source, text) of the response its gold describes; None = that response is unknown."""


def gold_response_id(item: BenchmarkItem) -> str | None:
    """``metadata.goldResponseId``: the response an item's gold describes (None = every response)."""
    value = (item.metadata or {}).get("goldResponseId")
    return value if isinstance(value, str) else None


def load_gold_responses(study_dir: Path, items: dict[str, BenchmarkItem], notes: list[Note]) -> GoldResponses:
    """For items naming ``goldResponseId``: that response's model and text, from ``responses/*.jsonl``."""
    wanted = {i: rid for i, item in items.items() if (rid := gold_response_id(item))}
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
    for path in sorted(items_dir.glob("*.json")):
        try:
            item = load_file(BenchmarkItem, path)
        except DocumentError as exc:
            first = exc.problems[0]
            notes.append(Note("gold", f"item file skipped: {first}"
                              + (f" (and {len(exc.problems) - 1} more problem(s))" if len(exc.problems) > 1 else "")))
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
        notes.append(Note("data", f"{dropped} older revision(s) or duplicate(s) of the same rater and task were "
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


def _data_notes(ds: Dataset) -> None:
    notes = ds.notes
    if ds.problems:
        notes.append(Note("data", f"{ds.records_excluded} record(s) were left out because they are invalid; "
                                  f"the first problems are listed below."))
        for p in ds.problems[:MAX_LISTED_PROBLEMS]:
            notes.append(Note("data", f"invalid record: {p}"))
        shown = len({p.file for p in ds.problems[:MAX_LISTED_PROBLEMS]})
        if len(ds.problems) > MAX_LISTED_PROBLEMS or ds.records_excluded > shown:
            notes.append(Note("data", f"... and more problem(s) not listed ({ds.records_excluded} invalid record(s) "
                                      "in all)."))
    if ds.cannot_rate:
        notes.append(Note("data", f"{len(ds.cannot_rate)} “cannot rate” answer(s) (a rater's reason instead of a "
                                  "rating) are counted in section 4 and left out of every statistic."))
    if ds.n == 0:
        notes.append(Note("data", "No valid rating was found: there is nothing to analyse."))
        return
    if len(ds.rater_ids) < 2:
        notes.append(Note("agreement", f"Only one rater ({ds.rater_ids[0]}) is in the data: agreement between "
                                       "raters cannot be computed."))
    missing_model = int((ds.model < 0).sum())
    if missing_model:
        notes.append(Note("models", f"{missing_model} rating(s) have no model_source (not unblinded); they are "
                                    "left out of the per-model results. Run `wmcdp results collect` with the key."))
    # A task must be the same item (and model) for every rater.
    for what, col in (("benchmark item", ds.item), ("model", ds.model)):
        nt = len(ds.task_ids)
        lo = np.full(nt, np.iinfo(np.int64).max)
        hi = np.full(nt, np.iinfo(np.int64).min)
        np.minimum.at(lo, ds.task, col)
        np.maximum.at(hi, ds.task, col)
        bad_tasks = np.flatnonzero(lo != hi)
        if bad_tasks.size:
            names = ", ".join(ds.task_ids[t] for t in bad_tasks[:5])
            notes.append(Note("data", f"{bad_tasks.size} task(s) carry a different {what} for different raters "
                                      f"(e.g. {names}); check the collected data."))
    n_time = int(np.isnan(ds.seconds).sum())
    if n_time:
        notes.append(Note("behaviour", f"{n_time} rating(s) have no time_spent_scoring_seconds; time figures use the others."))
    n_conf = int(np.isnan(ds.confidence).sum())
    if n_conf:
        notes.append(Note("behaviour", f"{n_conf} rating(s) have no confidence_rating; they are left out of "
                                       "confidence against agreement."))
    if ds.study is not None:
        listed = [r.rater_id for r in ds.study.raters]
        silent = [r for r in listed if r not in set(ds.rater_ids)]
        if silent:
            notes.append(Note("data", f"{len(silent)} rater(s) of study.json have no rating in the data: "
                                      f"{', '.join(silent[:10])}."))
        strangers = sorted(set(ds.rater_ids) - set(listed))
        if strangers:
            notes.append(Note("data", f"{len(strangers)} rater id(s) in the ratings are not in study.json: "
                                      f"{', '.join(strangers[:10])} (included in every figure)."))
    if ds.items:
        weights = {ds.items[i].weight for i in ds.item_ids if i in ds.items}
        if len(weights) > 1:
            notes.append(Note("models", f"Items carry different weights ({min(weights):g} to {max(weights):g}): "
                                        "the item_weighted_* columns (scores per model, gold per criterion) "
                                        "apply them; every other figure counts each rating equally."))
        unknown = sorted(set(ds.item_ids) - set(ds.items))
        if unknown:
            notes.append(Note("gold", f"{len(unknown)} benchmark item(s) rated but not found in the study's items/ "
                                      f"(e.g. {', '.join(unknown[:5])}); no gold comparison for them."))


def load_dataset(collected_dir: Path, study_dir: Path, *, progress: StageProgress | None = None) -> Dataset:
    """Read everything ``wmcdp report`` needs. The ratings come from ``ratings.parquet`` when ``collect`` wrote
    it (checked against the SHA-256 in ``collect-report.json``; :mod:`~wmcdp_desktop.analysis.collected_parquet`),
    else from ``ratings.jsonl``, each line validated again (slower; a note says so). ``progress`` hears how far
    the reading is (stage ``Reading ratings``). A file without ratings is refused before the study's items are
    read."""
    study, rubric = load_study_and_rubric(study_dir)
    if (collected_dir / "ratings.parquet").is_file():
        from wmcdp_desktop.analysis.collected_parquet import dataset_from_parquet, verified_bytes

        verified_bytes(collected_dir)  # a changed file is refused before the study's items are read
        items, notes = load_items(study_dir)
        gold = load_gold_responses(study_dir, items, notes)
        ds = dataset_from_parquet(collected_dir, rubric, study, items, notes, gold, progress)
        if ds.records_read == 0:
            raise DocumentError.single(str(collected_dir / "ratings.parquet"), "holds no ratings")
        return ds
    reading = None if progress is None else partial(progress, "Reading ratings")
    found = read_rating_rows(collected_dir, rubric, reading)
    if found.lines == 0:
        raise DocumentError.single(str(collected_dir / "ratings.jsonl"), "holds no ratings")
    items, notes = load_items(study_dir)
    notes.insert(0, Note("data", "ratings.parquet was not found (collected without pyarrow, or by an older wmcdp): "
                                 "the ratings were read from ratings.jsonl, every line validated again (slow on big "
                                 "studies). Run `wmcdp results collect` with the analysis extra installed to get it."))
    gold = load_gold_responses(study_dir, items, notes)
    return dataset_from_rows(found.rows, rubric, study, items, notes, found.problems, found.lines, gold,
                             excluded=found.excluded, cannot_rate=found.cannot_rate)
