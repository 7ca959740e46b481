"""Reading ``ratings.parquet`` (written by ``wmcdp results collect``) into the report's :class:`Dataset`.

The file's bytes are checked against the SHA-256 ``collect`` recorded in ``collect-report.json`` (a changed
or foreign file is refused), then only the columns the report uses are read and turned into numpy columns
with Arrow compute: no Python loop over ratings. Collect validated every record against its model and the
rubric the key carries; the rubric rules that decide a statistic are checked again here against the
study's rubric, vectorised (every score on its dimension's scale, N/A only where allowed and never
together with a score, every failure mode of the catalogue annotated, confidence on its scale): a row that
breaks one is left out and listed, as from ``ratings.jsonl``. The result is the same :class:`Dataset` the
JSON Lines path gives (a test compares them).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload

import numpy as np

from wmcdp_desktop.analysis.common import Note, StageProgress
from wmcdp_desktop.analysis.dataset import Dataset, GoldResponses, _data_notes
from wmcdp_desktop.analysis.rating_rows import MAX_LINES_WITH_PROBLEMS, CannotRateRow, text_digest
from wmcdp_desktop.core.documents import read_file_bytes
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
from wmcdp_desktop.core.models.common import SEVERITIES
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.study import Study

PARQUET_NAME = "ratings.parquet"
REPORT_NAME = "collect-report.json"
CANNOT_TELL = "cannot_tell"
"""``blinding_guess`` of "I can't tell" in ratings.parquet (the Dataset's is ``""``)."""


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
        raise DocumentError.single(str(report_path), "does not record ratings.parquet's SHA-256 (written by an older "
                                   "wmcdp?): run `wmcdp results collect` again")
    if hashlib.sha256(data).hexdigest() != want:
        raise DocumentError.single(str(path), "does not match the SHA-256 that `wmcdp results collect` recorded in "
                                   "collect-report.json: it was changed or replaced since; collect again")
    return data


def _check_types(schema: Any, named: dict[str, str], names: list[str], rubric: Rubric, source: str) -> None:
    """Every column the report reads is of the type ``results collect`` writes (the codebook's); a file of the
    right SHA-256 but written by another tool is refused in plain words instead of failing half-way."""
    from wmcdp_desktop.core.coordinator.codebook import arrow_type_fits, table_columns

    fms = sorted(n.removeprefix("failure_mode.") for n in names if n.startswith("failure_mode."))
    kinds = {c.name: c.kind for c in table_columns(fms, rubric)}
    wrong = [f"{named[n]} is {schema.field(named[n]).type}, not {kinds[n]}" for n in names
             if n in kinds and not arrow_type_fits(kinds[n], schema.field(named[n]).type)]
    if wrong:
        raise DocumentError.single(source, f"has columns of other types than `wmcdp results collect` writes "
                                   f"({'; '.join(wrong[:5])}{' ...' if len(wrong) > 5 else ''}): it was written or "
                                   "changed by another tool; collect again")


def _codes(column: Any) -> tuple[list[str], np.ndarray]:
    """Distinct values in order of first appearance, and each row's index into them."""
    import pyarrow.compute as pc

    uniques = pc.unique(column)
    codes = pc.index_in(column, value_set=uniques)
    return [str(v) for v in uniques.to_pylist()], np.asarray(codes.to_numpy(zero_copy_only=False), np.int64)


def dataset_from_parquet(
    collected_dir: Path, rubric: Rubric, study: Study | None, items: dict[str, BenchmarkItem], notes: list[Note],
    gold_responses: GoldResponses | None = None, progress: StageProgress | None = None,
) -> Dataset:
    """The report's Dataset from a verified ``ratings.parquet``."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    data = verified_bytes(collected_dir)
    source = str(collected_dir / PARQUET_NAME)
    reader = pq.ParquetFile(pa.BufferReader(data))
    named = {(f.metadata or {}).get(b"wmcdp:name", f.name.encode()).decode(): f.name for f in reader.schema_arrow}
    dims = rubric.dimensions
    fm_ids = [fm.id for fm in rubric.failure_modes]
    wanted = ["rater_id", "task_id", "benchmark_item_id", "model_source", "revision", "submitted_at",
              "time_spent_scoring_seconds", "confidence_rating", "brief_rationale", "record_kind",
              "cannot_rate_reason", "coordinator_flag", "candidate_response_sha256", "blinding_guess",
              *[d.field for d in dims], *[f"{d.field}_na" for d in dims]]
    missing = [w for w in wanted if w not in named]
    if missing:
        raise DocumentError.single(source, f"has no column for {', '.join(missing[:5])}: written by another version; "
                                   "run `wmcdp results collect` again")
    fm_cols = {fm: named.get(f"failure_mode.{fm}") for fm in fm_ids}
    extra_fm = [n for n in named if n.startswith("failure_mode.") and n.removeprefix("failure_mode.") not in fm_cols]
    _check_types(reader.schema_arrow, named, [*wanted, *(f"failure_mode.{fm}" for fm, c in fm_cols.items() if c),
                                              *extra_fm], rubric, source)
    table = reader.read(columns=[named[w] for w in wanted] + [c for c in fm_cols.values() if c]
                        + [named[n] for n in extra_fm])
    if progress is not None:
        progress("Reading ratings", 1, 1)

    def col(name: str) -> Any:
        return table.column(named[name])

    total = table.num_rows
    kind = col("record_kind")
    is_rating = np.asarray(pc.equal(kind, "rating").to_numpy(zero_copy_only=False), bool)
    flagged_all = np.asarray(pc.is_valid(col("coordinator_flag")).to_numpy(zero_copy_only=False), bool)

    # The rubric rules that decide a statistic, checked on every rating row at once.
    problems: list[Problem] = []
    bad = np.zeros(total, bool)
    record_rows = np.arange(total)

    def flag(mask: np.ndarray, path: str, message: str) -> None:
        rows = np.flatnonzero(mask & is_rating & ~bad)
        for r in rows[: max(0, MAX_LINES_WITH_PROBLEMS - len(problems))]:
            problems.append(Problem(f"{source}:row {int(record_rows[r]) + 1}", path, message))
        bad[rows] = True

    scores = np.full((total, len(dims)), np.nan)
    na = np.zeros((total, len(dims)), bool)
    for d, dim in enumerate(dims):
        values = col(dim.field)
        has = np.asarray(pc.is_valid(values).to_numpy(zero_copy_only=False), bool)
        flag_na = np.asarray(pc.fill_null(col(f"{dim.field}_na"), False).to_numpy(zero_copy_only=False), bool)
        v = np.asarray(pc.fill_null(values, 0).to_numpy(zero_copy_only=False), np.float64)
        scores[:, d] = np.where(has, v, np.nan)
        na[:, d] = flag_na
        flag(has == flag_na, f"scoring.{dim.field}", "needs exactly one of a score and N/A")
        flag(has & ((v < dim.scale.min) | (v > dim.scale.max)), f"scoring.{dim.field}",
             f"is outside the rubric's scale {dim.scale.min}-{dim.scale.max}")
        if not dim.allow_na:
            flag(flag_na, f"scoring.{dim.field}", f"N/A is not allowed for {dim.id}")
    severity = np.zeros((total, len(fm_ids)), np.int64)
    rank: dict[str, int] = {str(s): i for i, s in enumerate(SEVERITIES)}
    for f, fm in enumerate(fm_ids):
        name = fm_cols[fm]
        if name is None:
            flag(np.ones(total, bool), f"failure_mode_annotations.{fm}", "is not annotated")
            continue
        column = table.column(name).combine_chunks() if table.num_rows else table.column(name)
        if table.num_rows:
            dictionary = [rank.get(str(s), -1) for s in column.dictionary.to_pylist()]
            indices = np.asarray(pc.fill_null(column.indices, -1).to_numpy(zero_copy_only=False), np.int64)
            sev = np.where(indices >= 0, np.asarray([*dictionary, -1], np.int64)[indices], -1)
        else:
            sev = np.zeros(0, np.int64)
        flag(sev < 0, f"failure_mode_annotations.{fm}", "is not annotated with a severity")
        severity[:, f] = np.maximum(sev, 0)
    for name in extra_fm:
        annotated = np.asarray(pc.is_valid(table.column(named[name])).to_numpy(zero_copy_only=False), bool)
        flag(annotated, name.replace("failure_mode.", "failure_mode_annotations."), "is not in the rubric's catalogue")
    conf = np.asarray(pc.fill_null(pc.cast(col("confidence_rating"), pa.float64()), np.nan).to_numpy(
        zero_copy_only=False), np.float64)
    cs = rubric.confidence_scale
    flag(~np.isnan(conf) & ((conf < cs.min) | (conf > cs.max)), "clinician_notes.confidence_rating",
         f"is outside the confidence scale {cs.min}-{cs.max}")
    excluded = int(bad.sum())

    # One record per (rater, task): collect keeps the latest; should a file hold more, the latest wins.
    rater_all = col("rater_id")
    task_all = col("task_id")
    keep = is_rating & ~bad
    rows_all = np.arange(total)
    _, pair = _codes(pc.binary_join_element_wise(rater_all, task_all, "\x1f"))
    revision = np.asarray(col("revision").to_numpy(zero_copy_only=False), np.int64)
    submitted_all = np.asarray(pc.cast(col("submitted_at"), pa.int64()).to_numpy(zero_copy_only=False),
                               np.int64) / 1e6
    order = np.lexsort((submitted_all, revision, pair))
    last = np.ones(total, bool)
    last[order[:-1]] = pair[order[:-1]] != pair[order[1:]]
    dropped = int((~last).sum())
    if dropped:
        notes.append(Note("data", f"{dropped} older revision(s) or duplicate(s) of the same rater and task were "
                                  "ignored; the latest revision of each is used."))
    keep &= last
    unable_rows = rows_all[last & ~is_rating]
    rows = rows_all[keep]
    sub = table.take(pa.array(rows, pa.int64()))

    def sub_col(name: str) -> Any:
        return sub.column(named[name])

    task_ids, task = _codes(sub_col("task_id"))
    rater_ids, rater = _codes(sub_col("rater_id"))
    item_ids, item = _codes(sub_col("benchmark_item_id"))
    model_col = sub_col("model_source")
    model_ids = [str(v) for v in pc.unique(pc.drop_null(model_col)).to_pylist()]
    model_full = np.full(len(rows), -1, np.int64)
    model_valid = np.asarray(pc.is_valid(model_col).to_numpy(zero_copy_only=False), bool)
    if model_ids:
        model_full[model_valid] = np.asarray(
            pc.index_in(pc.drop_null(model_col), value_set=pa.array(model_ids)).to_numpy(zero_copy_only=False),
            np.int64)
    seconds = np.asarray(pc.fill_null(pc.cast(sub_col("time_spent_scoring_seconds"), pa.float64()), np.nan)
                         .to_numpy(zero_copy_only=False), np.float64)
    guesses = [None if g is None else ("" if g == CANNOT_TELL else g) for g in sub_col("blinding_guess").to_pylist()]
    gold_target = np.ones(len(rows), bool)
    if gold_responses:
        digests = sub_col("candidate_response_sha256")
        for item_id, target in gold_responses.items():
            if item_id not in item_ids:
                continue
            at = item == item_ids.index(item_id)
            if target is None:
                gold_target[at] = False
                continue
            want = text_digest(target[1]).hex()
            same_text = np.asarray(pc.equal(digests, want).to_numpy(zero_copy_only=False), bool)
            gold_target[at] = (same_text | (model_full == (model_ids.index(target[0]) if target[0] in model_ids
                                                           else -2)))[at]
    unable_table = table.take(pa.array(unable_rows, pa.int64()))
    unable = [
        CannotRateRow(r["rater_id"], r["task_id"], int(r["revision"]), str(r["submitted_at"]),
                      r["benchmark_item_id"], r["model_source"], r["cannot_rate_reason"] or "",
                      r["coordinator_flag"] is not None)
        for r in unable_table.select([named[n] for n in ("rater_id", "task_id", "revision", "submitted_at",
                                                         "benchmark_item_id", "model_source", "cannot_rate_reason",
                                                         "coordinator_flag")])
        .rename_columns(["rater_id", "task_id", "revision", "submitted_at", "benchmark_item_id", "model_source",
                         "cannot_rate_reason", "coordinator_flag"]).to_pylist()
    ]
    flagged = flagged_all[rows]
    ds = Dataset(
        rubric=rubric, study=study, items=items, notes=notes,
        task_ids=task_ids, rater_ids=rater_ids, item_ids=item_ids, model_ids=model_ids,
        task=task, rater=rater, item=item, model=model_full, scores=scores[rows], na=na[rows],
        severity=severity[rows], confidence=conf[rows], seconds=seconds, submitted=submitted_all[rows],
        rationale=LazyText(sub_col("brief_rationale")), blinding_guess=guesses, gold_target=gold_target,
        records_read=total, records_excluded=excluded, problems=problems,
        flagged=flagged if flagged.any() else None, cannot_rate=unable,
    )
    _data_notes(ds)
    return ds
