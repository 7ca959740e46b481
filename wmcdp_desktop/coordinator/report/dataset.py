"""The report's :class:`Dataset`: one row per kept rating as numpy columns, and the notes any Dataset gets.

Built from the collection's ``ratings.parquet`` (:mod:`~wmcdp_desktop.coordinator.report.collected_parquet`);
every statistic reads only this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from wmcdp_desktop.coordinator.report.common import BoolArray, FloatArray, IntArray, Note
from wmcdp_desktop.coordinator.study.style import StyleResult
from wmcdp_desktop.core.counts import agree, count
from wmcdp_desktop.core.errors import Problem
from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
from wmcdp_desktop.core.models.rubric import Dimension, Rubric
from wmcdp_desktop.core.models.study import Study

MAX_LISTED_PROBLEMS = 20
"""How many individual record problems the report lists before summarising the rest."""
CANNOT_TELL = ""
"""``Dataset.blinding_guess`` of "I can't tell" (a label is never empty)."""


class CannotRateRow(NamedTuple):
    """What the report uses of one "cannot rate" record (never part of a statistic: only counted)."""

    rater_id: str
    task_id: str
    revision: int
    submitted_at: str
    item_id: str
    model_source: str | None
    reason: str
    flagged: bool


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
    rated_style: StyleResult | None = None
    """Style separability of the rated responses (``report/blinding_style.py``; None = not measured)."""
    rated_style_note: str | None = None
    """Why the rated responses' style was not measured, in plain words."""

    @property
    def n(self) -> int:
        return int(self.task.size)

    @property
    def dimensions(self) -> list[Dimension]:
        return list(self.rubric.dimensions)

    def scale_values(self, d: int) -> FloatArray:
        dim = self.rubric.dimensions[d]
        return np.arange(dim.scale.min, dim.scale.max + 1, dtype=np.float64)

    def item_weight(self) -> FloatArray:
        """Per item index: the study's ``weight`` of the item (1 for items not in the study's items/)."""
        return np.array([self.items[i].weight if i in self.items else 1.0 for i in self.item_ids], np.float64)


GoldResponses = dict[str, tuple[str, str] | None]
"""item id -> (model_source, text) of the response its gold describes; None = that response is unknown."""


def _data_notes(ds: Dataset) -> None:
    notes = ds.notes
    if ds.problems:
        notes.append(Note("data", f"{count(ds.records_excluded, 'record')} {agree(ds.records_excluded, 'was left out because it is', 'were left out because they are')} invalid; "
                                  f"the first problems are listed below."))
        for p in ds.problems[:MAX_LISTED_PROBLEMS]:
            notes.append(Note("data", f"invalid record: {p}"))
        shown = len({p.file for p in ds.problems[:MAX_LISTED_PROBLEMS]})
        if len(ds.problems) > MAX_LISTED_PROBLEMS or ds.records_excluded > shown:
            notes.append(Note("data", f"... and more problems not listed ({count(ds.records_excluded, 'invalid record')} "
                                      "in all)."))
    if ds.cannot_rate:
        notes.append(Note("data", f"{count(len(ds.cannot_rate), '“cannot rate” answer')} (a rater's reason instead of a "
                                  "rating) are counted in section 4 and left out of every statistic."))
    if ds.n == 0:
        notes.append(Note("data", "No valid rating was found: there is nothing to analyse."))
        return
    if len(ds.rater_ids) < 2:
        notes.append(Note("agreement", f"Only one rater ({ds.rater_ids[0]}) is in the data: agreement between "
                                       "raters cannot be computed."))
    missing_model = int((ds.model < 0).sum())
    if missing_model:
        notes.append(Note("models", f"{count(missing_model, 'rating')} {agree(missing_model, 'has', 'have')} no model_source (not unblinded); they are "
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
            notes.append(Note("data", f"{count(bad_tasks.size, 'task')} {agree(bad_tasks.size, 'carries', 'carry')} a different {what} for different raters "
                                      f"(e.g. {names}); check the collected data."))
    n_time = int(np.isnan(ds.seconds).sum())
    if n_time:
        notes.append(Note("behaviour", f"{count(n_time, 'rating')} {agree(n_time, 'has', 'have')} no time_spent_scoring_seconds; time figures use the others."))
    n_conf = int(np.isnan(ds.confidence).sum())
    if n_conf:
        notes.append(Note("behaviour", f"{count(n_conf, 'rating')} {agree(n_conf, 'has', 'have')} no confidence_rating; they are left out of "
                                       "confidence against agreement."))
    if ds.study is not None:
        listed = [r.rater_id for r in ds.study.raters]
        silent = [r for r in listed if r not in set(ds.rater_ids)]
        if silent:
            notes.append(Note("data", f"{count(len(silent), 'rater')} of study.json {agree(len(silent), 'has', 'have')} no rating in the data: "
                                      f"{', '.join(silent[:10])}."))
        strangers = sorted(set(ds.rater_ids) - set(listed))
        if strangers:
            notes.append(Note("data", f"{count(len(strangers), 'rater id')} in the ratings {agree(len(strangers), 'is', 'are')} not in study.json: "
                                      f"{', '.join(strangers[:10])} (included in every figure)."))
    if ds.items:
        weights = {ds.items[i].weight for i in ds.item_ids if i in ds.items}
        if len(weights) > 1:
            notes.append(Note("models", f"Items carry different weights ({min(weights):g} to {max(weights):g}): "
                                        "the item_weighted_* columns (scores per model, gold per criterion) "
                                        "apply them; every other figure counts each rating equally."))
        unknown = sorted(set(ds.item_ids) - set(ds.items))
        if unknown:
            notes.append(Note("gold", f"{count(len(unknown), 'benchmark item')} rated but not found in the study's items/ "
                                      f"(e.g. {', '.join(unknown[:5])}); no gold comparison for them."))
