"""Tasks the raters could not rate, and their flags for the coordinator: counted per rater and per task.

A "cannot rate" (a rater's reason instead of a rating) is never a score: it is in none of the report's
statistics, only here. A task whose every returned record is a "cannot rate" is named: every rater who
returned it could not rate it (``wmcdp results collect`` names the tasks every *assigned* rater could not
rate, from the unblinding key).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from wmcdp_desktop.coordinator.report.common import Note, Table
from wmcdp_desktop.coordinator.report.dataset import Dataset
from wmcdp_desktop.core.counts import agree, count

LISTED_TASKS = 20
"""Tasks named in a note before the rest are counted."""


@dataclass
class UnratedResults:
    tables: list[Table]
    notes: list[Note]
    cannot_rate: int
    flagged: int
    nobody_could: list[str]
    """Tasks every rater who returned them could not rate."""


def _reasons(counter: Counter[str]) -> str:
    return "; ".join(f"{reason}: {n}" for reason, n in sorted(counter.items()))


def analyse_unrated(ds: Dataset) -> UnratedResults:
    flagged_rating = np.zeros(ds.n, bool) if ds.flagged is None else ds.flagged
    per_rater: dict[str, dict[str, int]] = {}
    rater_reasons: dict[str, Counter[str]] = {}
    per_task: dict[str, dict[str, int]] = {}
    task_reasons: dict[str, Counter[str]] = {}
    task_item: dict[str, str] = {}
    task_model: dict[str, str] = {}

    def bump(table: dict[str, dict[str, int]], key: str, what: str) -> None:
        counts = table.setdefault(key, {"ratings": 0, "cannot_rate": 0, "flagged": 0})
        counts[what] += 1

    # Ratings and flags counted per rater and per task with bincounts (no loop over a million ratings); only
    # the tasks a table lists (a "cannot rate" or a flag) get an entry.
    n_r, n_t = len(ds.rater_ids), len(ds.task_ids)
    rater_n = np.bincount(ds.rater, minlength=n_r)
    rater_f = np.bincount(ds.rater, weights=flagged_rating, minlength=n_r).astype(np.int64)
    for r, rater in enumerate(ds.rater_ids):
        if rater_n[r]:
            per_rater[rater] = {"ratings": int(rater_n[r]), "cannot_rate": 0, "flagged": int(rater_f[r])}
    task_n = np.bincount(ds.task, minlength=n_t)
    task_f = np.bincount(ds.task, weights=flagged_rating, minlength=n_t).astype(np.int64)
    listed = set(np.flatnonzero(task_f).tolist()) | {t for t, name in enumerate(ds.task_ids)
                                                     if name in {c.task_id for c in ds.cannot_rate}}
    first = np.full(n_t, -1, np.int64)
    present, first_row = np.unique(ds.task, return_index=True)
    first[present] = first_row
    for t in sorted(listed):
        task = ds.task_ids[t]
        per_task[task] = {"ratings": int(task_n[t]), "cannot_rate": 0, "flagged": int(task_f[t])}
        r = int(first[t])
        if r >= 0:
            task_item[task] = ds.item_ids[ds.item[r]]
            if ds.model[r] >= 0:
                task_model[task] = ds.model_ids[ds.model[r]]
    for c in ds.cannot_rate:
        bump(per_rater, c.rater_id, "cannot_rate")
        bump(per_task, c.task_id, "cannot_rate")
        rater_reasons.setdefault(c.rater_id, Counter())[c.reason] += 1
        task_reasons.setdefault(c.task_id, Counter())[c.reason] += 1
        task_item.setdefault(c.task_id, c.item_id)
        if c.model_source:
            task_model.setdefault(c.task_id, c.model_source)
        if c.flagged:
            bump(per_rater, c.rater_id, "flagged")
            bump(per_task, c.task_id, "flagged")

    nobody_could = sorted(t for t, counts in per_task.items() if counts["cannot_rate"] and not counts["ratings"])
    by_rater = Table(
        "cannot_rate_by_rater", "“Cannot rate” and flags per rater",
        ["rater", "ratings", "cannot_rate", "flagged", "cannot_rate_reasons"],
        description="Per rater: ratings (in the statistics), “cannot rate” answers with their reasons (in no "
        "statistic), and tasks flagged for the coordinator (on a rating or a “cannot rate”).")
    for rater in sorted(per_rater):
        counts = per_rater[rater]
        by_rater.rows.append([rater, counts["ratings"], counts["cannot_rate"], counts["flagged"],
                              _reasons(rater_reasons.get(rater, Counter()))])
    by_task = Table(
        "cannot_rate_by_task", "Tasks with a “cannot rate” or a flag",
        ["task", "item", "model", "ratings", "cannot_rate", "flagged", "cannot_rate_reasons", "nobody_could_rate"],
        description="Every task at least one rater could not rate or flagged. nobody_could_rate: every rater who "
        "returned the task could not rate it (it has no rating at all).")
    for task in sorted(t for t, counts in per_task.items() if counts["cannot_rate"] or counts["flagged"]):
        counts = per_task[task]
        by_task.rows.append([task, task_item.get(task, ""), task_model.get(task, ""), counts["ratings"],
                             counts["cannot_rate"], counts["flagged"], _reasons(task_reasons.get(task, Counter())),
                             "yes" if task in nobody_could else "no"])
    notes: list[Note] = []
    if nobody_could:
        shown = ", ".join(nobody_could[:LISTED_TASKS]) + (" …" if len(nobody_could) > LISTED_TASKS else "")
        notes.append(Note("behaviour", f"{count(len(nobody_could), 'task')} {agree(len(nobody_could), 'was', 'were')} marked “cannot rate” by every rater who "
                                       f"returned them (no rating at all): {shown}."))
    flagged = sum(c["flagged"] for c in per_rater.values())
    return UnratedResults([by_rater, by_task], notes, len(ds.cannot_rate), flagged, nobody_could)
