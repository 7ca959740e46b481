"""Reading ``ratings.parquet`` (written by ``wmcdp results collect``) into the report's :class:`Dataset`.

The file's bytes are checked against the SHA-256 ``collect`` recorded in ``collect-report.json`` (a changed
or foreign file is refused), then only the columns the report uses are read and turned into numpy columns
with Arrow compute: no Python loop over ratings. Collect validated every record against its model and the
rubric the key carries; the rubric rules that decide a statistic are checked again here against the
study's rubric, vectorised (every score on its dimension's scale, N/A only where allowed and never
together with a score, every failure mode of the catalogue annotated, confidence on its scale): a row that
breaks one is left out and listed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload

import numpy as np

from wmcdp_desktop.coordinator.collect.codebook import CANNOT_TELL, PARQUET_NAME
from wmcdp_desktop.coordinator.report.common import BoolArray, FloatArray, IntArray, Note, StageProgress
from wmcdp_desktop.coordinator.report.dataset import CANNOT_TELL as DATASET_CANNOT_TELL
from wmcdp_desktop.coordinator.report.dataset import CannotRateRow, Dataset, GoldResponses, _data_notes
from wmcdp_desktop.core.counts import agree, count
from wmcdp_desktop.core.digests import sha256_hex, text_sha256
from wmcdp_desktop.core.documents import read_file_bytes
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
from wmcdp_desktop.core.models.common import SEVERITIES
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.study import Study

REPORT_NAME = "collect-report.json"
MAX_ROWS_WITH_PROBLEMS = 100
"""Invalid rows whose problems are listed (the others are only counted)."""


class LazyText(Sequence[str]):
    """A column of text read from Arrow only where it is looked at (the report shows a few rationales)."""

    def __init__(self, column: Any) -> None:
        self._column = column

    def __len__(self) -> int:
        return len(self._column)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        value = self._column[int(index)].as_py()
        return "" if value is None else str(value)

    def __iter__(self) -> Iterator[str]:
        for value in self._column.to_pylist():
            yield "" if value is None else str(value)


def verified_bytes(collected_dir: Path) -> bytes:
    """``ratings.parquet``'s bytes, once they match the SHA-256 ``collect`` recorded (DocumentError if not)."""
    path = collected_dir / PARQUET_NAME
    data = read_file_bytes(path, str(path))
    report_path = collected_dir / REPORT_NAME
    try:
        report = json.loads(read_file_bytes(report_path, str(report_path)))
    except (DocumentError, ValueError):
        raise DocumentError.single(str(report_path), "cannot be read, so ratings.parquet cannot be checked against "
                                   "it: run `wmcdp results collect` again") from None
    outputs = report.get("outputs") if isinstance(report, dict) else None
    want = outputs.get(PARQUET_NAME) if isinstance(outputs, dict) else None
    if not isinstance(want, str):
        raise DocumentError.single(str(report_path), "does not record ratings.parquet's SHA-256: run `wmcdp results "
                                   "collect` again")
    if sha256_hex(data) != want:
        raise DocumentError.single(str(path), "does not match the SHA-256 that `wmcdp results collect` recorded in "
                                   "collect-report.json: it was changed or replaced since; collect again")
    return data


def _check_types(schema: Any, named: dict[str, str], names: list[str], rubric: Rubric, source: str) -> None:
    """Every column the report reads is of the type ``results collect`` writes (the codebook's); a file of the
    right SHA-256 but written by another tool is refused in plain words instead of failing half-way."""
    from wmcdp_desktop.coordinator.collect.codebook import arrow_type_fits, table_columns

    fms = sorted(n.removeprefix("failure_mode.") for n in names if n.startswith("failure_mode."))
    kinds = {c.name: c.kind for c in table_columns(fms, rubric)}
    wrong = [f"{named[n]} is {schema.field(named[n]).type}, not {kinds[n]}" for n in names
             if n in kinds and not arrow_type_fits(kinds[n], schema.field(named[n]).type)]
    if wrong:
        raise DocumentError.single(source, f"has columns of other types than `wmcdp results collect` writes "
                                   f"({'; '.join(wrong[:5])}{' ...' if len(wrong) > 5 else ''}): it was written or "
                                   "changed by another tool; collect again")


def _encoded(column: Any, nulls: str = "encode") -> Any:
    """``column`` dictionary-encoded in one hashing pass (values in order of first appearance; a null is a value
    of its own with ``nulls="encode"``, a null index with ``"mask"``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    whole = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    return pc.dictionary_encode(whole, null_encoding=nulls)


def _codes(column: Any) -> tuple[list[str], IntArray]:
    """Distinct values in order of first appearance, and each row's index into them."""
    encoded = _encoded(column)
    return ([str(v) for v in encoded.dictionary.to_pylist()],
            np.asarray(encoded.indices.to_numpy(zero_copy_only=False), np.int64))


def _codes_of(names: list[str], codes: IntArray, rows: IntArray) -> tuple[list[str], IntArray]:
    """:func:`_codes` of the rows ``rows`` of a column, from the codes of all of its rows (no second hashing of
    the text): the values those rows hold in order of first appearance among them, and each row's index."""
    kept, first = np.unique(codes[rows], return_index=True)
    order = kept[np.argsort(first, kind="stable")]
    renumber = np.zeros(len(names), np.int64)
    renumber[order] = np.arange(order.size)
    return [names[int(c)] for c in order], renumber[codes[rows]]


_KEPT_COLUMNS = ("rater_id", "task_id", "benchmark_item_id", "model_source", "revision", "submitted_at",
                 "time_spent_scoring_seconds", "confidence_rating", "brief_rationale", "record_kind",
                 "cannot_rate_reason", "coordinator_flag", "candidate_response_sha256", "blinding_guess")
_KEPT_BY_RATING = ("model_source", "time_spent_scoring_seconds", "blinding_guess", "brief_rationale",
                   "candidate_response_sha256")
"""The columns the Dataset keeps row by row (the rest become numpy columns first)."""
_CANNOT_RATE_COLUMNS = ("rater_id", "task_id", "revision", "submitted_at", "benchmark_item_id", "model_source",
                        "cannot_rate_reason", "coordinator_flag")


def _mask(array: Any) -> BoolArray:
    return np.asarray(array.to_numpy(zero_copy_only=False), bool)


class _Columns:
    """The columns of ratings.parquet the report uses, read once, found by their wmcdp names."""

    def __init__(self, collected_dir: Path, rubric: Rubric) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.source = str(collected_dir / PARQUET_NAME)
        data = verified_bytes(collected_dir)
        try:
            self._read(pq.ParquetFile(pa.BufferReader(data)), rubric)
        except (pa.ArrowException, OSError) as exc:  # the right SHA-256, but not a Parquet file collect wrote
            raise DocumentError.single(self.source, f"cannot be read as Parquet ({str(exc).strip()[:200]}): run "
                                       "`wmcdp results collect` again") from None

    def _read(self, reader: Any, rubric: Rubric) -> None:
        named = {(f.metadata or {}).get(b"wmcdp:name", f.name.encode()).decode(): f.name for f in reader.schema_arrow}
        wanted = [*_KEPT_COLUMNS, *[d.field for d in rubric.dimensions], *[f"{d.field}_na" for d in rubric.dimensions]]
        missing = [w for w in wanted if w not in named]
        if missing:
            raise DocumentError.single(self.source, f"has no column for {', '.join(missing[:5])}: written by another "
                                       "version; run `wmcdp results collect` again")
        self.failure_modes = {fm.id: named.get(f"failure_mode.{fm.id}") for fm in rubric.failure_modes}
        """Each failure mode of the rubric -> its column (None: the file has none)."""
        self.extra_failure_modes = [n for n in named if n.startswith("failure_mode.")
                                    and n.removeprefix("failure_mode.") not in self.failure_modes]
        _check_types(reader.schema_arrow, named,
                     [*wanted, *(f"failure_mode.{fm}" for fm, c in self.failure_modes.items() if c),
                      *self.extra_failure_modes], rubric, self.source)
        self.table = reader.read(columns=[named[w] for w in wanted] + [c for c in self.failure_modes.values() if c]
                                 + [named[n] for n in self.extra_failure_modes])
        self.named = named

    def __call__(self, name: str, table: Any = None) -> Any:
        """The column ``name`` of the whole table (or of ``table``, rows taken from it)."""
        return (self.table if table is None else table).column(self.named[name])


class _RuleCheck:
    """The rubric rules that decide a statistic, checked on every rating row at once: a row that breaks one
    is left out (``bad``) and listed (``problems``, at most MAX_ROWS_WITH_PROBLEMS)."""

    def __init__(self, source: str, is_rating: BoolArray) -> None:
        self.source, self.is_rating = source, is_rating
        self.bad = np.zeros(is_rating.size, bool)
        self.problems: list[Problem] = []

    def flag(self, mask: BoolArray, path: str, message: str) -> None:
        rows = np.flatnonzero(mask & self.is_rating & ~self.bad)
        for r in rows[: max(0, MAX_ROWS_WITH_PROBLEMS - len(self.problems))]:
            self.problems.append(Problem(f"{self.source}:row {int(r) + 1}", path, message))
        self.bad[rows] = True


def _scores(cols: _Columns, rubric: Rubric, check: _RuleCheck) -> tuple[FloatArray, BoolArray]:
    """Scores (NaN where none) and N/A, every row; each checked against its dimension's scale."""
    import pyarrow.compute as pc

    total = cols.table.num_rows
    scores = np.full((total, len(rubric.dimensions)), np.nan)
    na = np.zeros((total, len(rubric.dimensions)), bool)
    for d, dim in enumerate(rubric.dimensions):
        values = cols(dim.field)
        has = _mask(pc.is_valid(values))
        flag_na = _mask(pc.fill_null(cols(f"{dim.field}_na"), False))
        v = np.asarray(pc.fill_null(values, 0).to_numpy(zero_copy_only=False), np.float64)
        scores[:, d] = np.where(has, v, np.nan)
        na[:, d] = flag_na
        check.flag(has == flag_na, f"scoring.{dim.field}", "needs exactly one of a score and N/A")
        check.flag(has & ((v < dim.scale.min) | (v > dim.scale.max)), f"scoring.{dim.field}",
                   f"is outside the rubric's scale {dim.scale.min}-{dim.scale.max}")
        if not dim.allow_na:
            check.flag(flag_na, f"scoring.{dim.field}", f"N/A is not allowed for {dim.id}")
    return scores, na


def _severities(cols: _Columns, check: _RuleCheck) -> IntArray:
    """Each failure mode's severity as an index of SEVERITIES, every row; every failure mode of the rubric
    annotated, none outside its catalogue."""
    import pyarrow.compute as pc

    table = cols.table
    severity = np.zeros((table.num_rows, len(cols.failure_modes)), np.int64)
    rank: dict[str, int] = {str(s): i for i, s in enumerate(SEVERITIES)}
    for f, (fm, name) in enumerate(cols.failure_modes.items()):
        if name is None:
            check.flag(np.ones(table.num_rows, bool), f"failure_mode_annotations.{fm}", "is not annotated")
            continue
        if table.num_rows:
            column = table.column(name).combine_chunks()
            dictionary = [rank.get(str(s), -1) for s in column.dictionary.to_pylist()]
            indices = np.asarray(pc.fill_null(column.indices, -1).to_numpy(zero_copy_only=False), np.int64)
            sev = np.where(indices >= 0, np.asarray([*dictionary, -1], np.int64)[indices], -1)
        else:
            sev = np.zeros(0, np.int64)
        check.flag(sev < 0, f"failure_mode_annotations.{fm}", "is not annotated with a severity")
        severity[:, f] = np.maximum(sev, 0)
    for name in cols.extra_failure_modes:
        check.flag(_mask(pc.is_valid(cols(name))), name.replace("failure_mode.", "failure_mode_annotations."),
                   "is not in the rubric's catalogue")
    return severity


def _latest(cols: _Columns, notes: list[Note], pair: IntArray) -> tuple[BoolArray, FloatArray]:
    """Which rows are the latest revision of their (rater, task) (``pair``: the same number for the same rater
    and task; collect keeps only the latest; should a file hold more, the latest wins), and every row's
    submission time (seconds)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    total = cols.table.num_rows
    revision = np.asarray(cols("revision").to_numpy(zero_copy_only=False), np.int64)
    submitted = np.asarray(pc.cast(cols("submitted_at"), pa.int64()).to_numpy(zero_copy_only=False), np.int64) / 1e6
    order = np.lexsort((submitted, revision, pair))
    last = np.ones(total, bool)
    last[order[:-1]] = pair[order[:-1]] != pair[order[1:]]
    dropped = int((~last).sum())
    if dropped:
        notes.append(Note("data", f"{count(dropped, 'older revision or duplicate', 'older revisions or duplicates')} of the same rater and task {agree(dropped, 'was', 'were')} "
                                  "ignored; the latest revision of each is used."))
    return last, submitted


def _models(model_col: Any) -> tuple[list[str], IntArray]:
    """The model names and each row's model (-1 where blinded)."""
    import pyarrow.compute as pc

    encoded = _encoded(model_col, "mask")
    model_ids = [str(v) for v in encoded.dictionary.to_pylist()]
    return model_ids, np.asarray(pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False), np.int64)


def _gold_target(gold_responses: GoldResponses | None, digests: Any, item_ids: list[str], item: IntArray,
                 model_ids: list[str], model: IntArray) -> BoolArray:
    """Whether each rating is of the response an item's gold was written for (every rating where the gold
    names none)."""
    import pyarrow.compute as pc

    target_of = np.ones(item.size, bool)
    for item_id, target in (gold_responses or {}).items():
        if item_id not in item_ids:
            continue
        at = item == item_ids.index(item_id)
        if target is None:
            target_of[at] = False
            continue
        same_text = _mask(pc.equal(digests, text_sha256(target[1])))
        target_model = model_ids.index(target[0]) if target[0] in model_ids else -2
        target_of[at] = (same_text | (model == target_model))[at]
    return target_of


def _cannot_rate_rows(cols: _Columns, rows: IntArray) -> list[CannotRateRow]:
    import pyarrow as pa

    table = (cols.table.take(pa.array(rows, pa.int64()))
             .select([cols.named[n] for n in _CANNOT_RATE_COLUMNS]).rename_columns(list(_CANNOT_RATE_COLUMNS)))
    return [
        CannotRateRow(r["rater_id"], r["task_id"], int(r["revision"]), str(r["submitted_at"]),
                      r["benchmark_item_id"], r["model_source"], r["cannot_rate_reason"] or "",
                      r["coordinator_flag"] is not None)
        for r in table.to_pylist()
    ]


def dataset_from_parquet(
    collected_dir: Path, rubric: Rubric, study: Study | None, items: dict[str, BenchmarkItem], notes: list[Note],
    gold_responses: GoldResponses | None = None, progress: StageProgress | None = None,
) -> Dataset:
    """The report's Dataset from a verified ``ratings.parquet``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    cols = _Columns(collected_dir, rubric)
    if progress is not None:
        progress("Reading ratings", 1, 1)
    total = cols.table.num_rows
    is_rating = _mask(pc.equal(cols("record_kind"), "rating"))
    check = _RuleCheck(cols.source, is_rating)
    scores, na = _scores(cols, rubric, check)
    severity = _severities(cols, check)
    conf = np.asarray(pc.fill_null(pc.cast(cols("confidence_rating"), pa.float64()), np.nan).to_numpy(
        zero_copy_only=False), np.float64)
    cs = rubric.confidence_scale
    check.flag(~np.isnan(conf) & ((conf < cs.min) | (conf > cs.max)), "clinician_notes.confidence_rating",
               f"is outside the confidence scale {cs.min}-{cs.max}")

    all_tasks, task_of = _codes(cols("task_id"))
    all_raters, rater_of = _codes(cols("rater_id"))
    last, submitted = _latest(cols, notes, rater_of * max(len(all_tasks), 1) + task_of)
    rows = np.flatnonzero(is_rating & ~check.bad & last)
    task_ids, task = _codes_of(all_tasks, task_of, rows)
    rater_ids, rater = _codes_of(all_raters, rater_of, rows)
    item_ids, item = _codes_of(*_codes(cols("benchmark_item_id")), rows)
    sub = cols.table.select([cols.named[n] for n in _KEPT_BY_RATING]).take(pa.array(rows, pa.int64()))
    model_ids, model = _models(cols("model_source", sub))
    seconds = np.asarray(pc.fill_null(pc.cast(cols("time_spent_scoring_seconds", sub), pa.float64()), np.nan)
                         .to_numpy(zero_copy_only=False), np.float64)
    guesses = [None if g is None else (DATASET_CANNOT_TELL if g == CANNOT_TELL else g) for g in cols("blinding_guess", sub).to_pylist()]
    flagged = _mask(pc.is_valid(cols("coordinator_flag")))[rows]
    ds = Dataset(
        rubric=rubric, study=study, items=items, notes=notes,
        task_ids=task_ids, rater_ids=rater_ids, item_ids=item_ids, model_ids=model_ids,
        task=task, rater=rater, item=item, model=model, scores=scores[rows], na=na[rows],
        severity=severity[rows], confidence=conf[rows], seconds=seconds, submitted=submitted[rows],
        rationale=LazyText(cols("brief_rationale", sub)), blinding_guess=guesses,
        gold_target=_gold_target(gold_responses, cols("candidate_response_sha256", sub), item_ids, item, model_ids,
                                 model),
        records_read=total, records_excluded=int(check.bad.sum()), problems=check.problems,
        flagged=flagged if flagged.any() else None, cannot_rate=_cannot_rate_rows(cols, np.flatnonzero(last & ~is_rating)),
    )
    _data_notes(ds)
    return ds
