"""Putting the analysis together: compute every section, then write report.html, tables/*.csv, summary.json.

``compute_report`` is pure (no files); ``write_report`` writes through core/atomic.py. Both are used by
``wmcdp report`` (coordinator/commands/report.py) and can be timed separately (issue 6 benchmarks the computation
with and without the intervals).
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from wmcdp_desktop import __version__
from wmcdp_desktop.coordinator.report import agreement, behaviour, blinding, charts, gold, per_model, unrated
from wmcdp_desktop.coordinator.report.common import Note, StageProgress, Table, clean
from wmcdp_desktop.coordinator.report.dataset import Dataset
from wmcdp_desktop.coordinator.report.findings import key_findings
from wmcdp_desktop.coordinator.report.intervals import (
    SCOPE_FIXED,
    SCOPE_RANDOM,
    copies_that_fit,
    count_cells,
    scope_text,
)
from wmcdp_desktop.coordinator.report.loading import load_dataset
from wmcdp_desktop.coordinator.report.result import Chart, Report, ReportMeta, Section
from wmcdp_desktop.core.atomic import OWNER_ONLY, atomic_write_bytes, atomic_write_text
from wmcdp_desktop.core.counts import count
from wmcdp_desktop.core.csv_text import csv_line, csv_text
from wmcdp_desktop.core.errors import WmcdpError
from wmcdp_desktop.core.paths import child_path
from wmcdp_desktop.core.verdicts import bands_text

DEFAULT_BOOTSTRAP = 200
"""Shuffled-rater copies behind the intervals (``--bootstrap``; the rater part's noise reference)."""
TOP_DISAGREEMENTS = 10


def _disagreements(ds: Dataset) -> Table:
    """The tasks where raters disagree most, with every rater's scores and rationale (for reading)."""
    table = Table(
        "largest_disagreements", "Tasks with the largest disagreement",
        ["task", "item", "model", "rater", *[d.id for d in ds.dimensions], "brief_rationale"],
        description="Tasks ordered by the mean (over dimensions) range between their raters' scores; the "
        "raters' own words help tell a rubric ambiguity from a misreading.")
    if ds.n == 0 or len(ds.rater_ids) < 2:
        return table
    # Per task and dimension: the highest and lowest score and how many there are (one sort, no
    # raters x tasks cube: 200 raters x 333,000 tasks x 8 would be 4 GB).
    order = np.argsort(ds.task, kind="stable")
    tasks_sorted = ds.task[order]
    starts = np.flatnonzero(np.r_[True, tasks_sorted[1:] != tasks_sorted[:-1]])
    sc = ds.scores[order]
    has = ~np.isnan(sc)
    hi = np.maximum.reduceat(np.where(has, sc, -np.inf), starts, axis=0)
    lo = np.minimum.reduceat(np.where(has, sc, np.inf), starts, axis=0)
    valid = np.add.reduceat(has.astype(np.int64), starts, axis=0) >= 2
    spread = np.where(valid, hi - lo, 0.0)
    k = valid.sum(axis=1)
    score = np.full(len(ds.task_ids), -1.0)
    score[tasks_sorted[starts]] = np.where(k > 0, spread.sum(axis=1) / np.maximum(k, 1), -1)
    top = [t for t in np.argsort(-score, kind="stable")[:TOP_DISAGREEMENTS] if score[t] > 0]
    for t in top:
        for r in np.flatnonzero(ds.task == t):
            table.rows.append([
                ds.task_ids[t], ds.item_ids[ds.item[r]],
                ds.model_ids[ds.model[r]] if ds.model[r] >= 0 else "", ds.rater_ids[ds.rater[r]],
                *["N/A" if ds.na[r, d] else int(ds.scores[r, d]) for d in range(ds.scores.shape[1])],
                ds.rationale[int(r)]])
    return table


def _bands(ds: Dataset) -> str:
    """The score-to-verdict bands of the rubric's scales, in words (one entry per distinct scale)."""
    texts: dict[str, list[str]] = {}
    for d in ds.dimensions:
        texts.setdefault(bands_text(d.scale), []).append(d.id)
    if len(texts) == 1:
        return next(iter(texts))
    return "; ".join(f"{', '.join(ids)}: {text}" for text, ids in texts.items())


def _interval_notes(ds: Dataset, bootstrap: int, fixed_raters: bool) -> list[Note]:
    """What the intervals are about (or that there are none), and how many shuffled copies they rest on."""
    notes: list[Note] = []
    if bootstrap <= 0:
        notes.append(Note("data", "Intervals disabled (--bootstrap 0): no intervals are given."))
    elif fixed_raters:
        notes.append(Note("data", f"Intervals are {SCOPE_FIXED} (--fixed-raters): they describe what other items "
                                  "rated by these same raters would give, not what other raters would give."))
    else:
        notes.append(Note("data", f"Intervals are {SCOPE_RANDOM}: they allow for other benchmark items and "
                                  "other raters. wmcdp report --fixed-raters gives narrower intervals for these "
                                  "particular raters."))
        used = copies_that_fit(count_cells(ds.item, ds.rater, len(ds.rater_ids)), bootstrap)
        if used < bootstrap:
            notes.append(Note("data", f"--bootstrap {bootstrap} lowered to {used} shuffled-rater copies to bound "
                                      "memory on data this size."))
        if used < 100:
            notes.append(Note("data", f"Only {used} shuffled-rater copies behind the intervals: their rater "
                                      "part is rough (200 or more is recommended)."))
    return notes


CHARTS = 4
"""Charts the report draws (:func:`_add_charts`), each a step of the ``Charts`` stage."""


class _Stage:
    """A step counter for one stage of ``progress`` (at 0 of ``total`` once made; a call: ``steps`` more done)."""

    def __init__(self, progress: StageProgress | None, label: str, total: int) -> None:
        self.progress, self.label, self.total, self.done = progress, label, total, 0
        if progress is not None:
            progress(label, 0, total)

    def __call__(self, steps: int = 1) -> None:
        self.done = min(self.total, self.done + steps)
        if self.progress is not None:
            self.progress(self.label, self.done, self.total)

def _add_charts(sections: list[Section], ds: Dataset, agr: agreement.AgreementResults,
                mod: per_model.ModelResults, beh: behaviour.BehaviourResults, fixed_raters: bool,
                step: Callable[[], None] = lambda: None) -> None:
    """The charts, each in its section: alpha per dimension, model profiles, failure modes, time per rater;
    ``step`` is called after each (:data:`CHARTS` in all)."""
    png = charts.alpha_chart(agr.alpha_rows)
    step()
    if png:
        sections[0].charts.append(Chart("alpha", f"Alpha per dimension with 95% intervals {scope_text(fixed_raters)}.",
                                        png))
    dims = ds.dimensions
    lo = min(d.scale.min for d in dims)
    hi = max(d.scale.max for d in dims)
    png = charts.profile_chart([f"{d.id} {d.label}" for d in dims], mod.profile, (lo, hi))
    if png:
        sections[1].charts.append(Chart("profiles", f"Mean score per dimension and model, 95% intervals {scope_text(fixed_raters)}.", png))
    step()
    png = charts.failure_heatmap(list(mod.fm_present), [f.label for f in ds.rubric.failure_modes],
                                 mod.fm_present)
    if png:
        sections[1].charts.append(Chart("failure_modes", "Share of ratings tagging each failure mode.", png))
    step()
    png = charts.time_chart(beh.times)
    if png:
        timed = sum(1 for v in beh.times.values() if v.size)
        shown = len(charts.time_chart_raters(beh.times))
        caption = "Active seconds per task, per rater." if shown == timed else (
            f"Active seconds per task for {shown} of {timed} raters: the {shown // 2} with the shortest and the "
            f"{shown // 2} with the longest median time (every rater is in the table).")
        sections[3].charts.append(Chart("time", caption, png))
    step()


def _meta(ds: Dataset, unr: unrated.UnratedResults, seed: int, bootstrap: int, fixed_raters: bool) -> ReportMeta:
    study = ds.study
    return ReportMeta(
        study_id=study.study_id if study else None,
        study_title=study.title if study else None,
        rubric=f"{ds.rubric.contract_id} {ds.rubric.contract_version}",
        records_read=ds.records_read,
        records_excluded=ds.records_excluded,
        ratings=ds.n,
        cannot_rate=unr.cannot_rate,
        flagged=unr.flagged,
        tasks_nobody_could_rate=unr.nobody_could,
        tasks=len(ds.task_ids),
        raters=len(ds.rater_ids),
        items=len(ds.item_ids),
        models=len(ds.model_ids),
        seed=seed,
        bootstrap=bootstrap,
        intervals="none" if bootstrap <= 0 else scope_text(fixed_raters),
        wmcdp_version=__version__,
    )


def compute_report(ds: Dataset, seed: int, bootstrap: int = DEFAULT_BOOTSTRAP, *, with_charts: bool = True,
                   progress: StageProgress | None = None, fixed_raters: bool = False) -> Report:
    """Every figure, table and chart of the report for ``ds``; ``progress`` hears how far the intervals are.

    ``bootstrap``: shuffled-rater copies behind the intervals (0 = no intervals); ``fixed_raters``:
    intervals for these particular raters instead of for raters and items like these."""
    timings: dict[str, float] = {}
    advance = _Stage(progress, "Intervals", agreement.interval_steps(ds) + len(ds.model_ids) + 1)
    notes = [*ds.notes, *_interval_notes(ds, bootstrap, fixed_raters)]

    t0 = time.perf_counter()
    agr = agreement.analyse_agreement(ds, seed, bootstrap, advance, fixed_raters=fixed_raters)
    t1 = time.perf_counter()
    mod = per_model.analyse_models(ds, seed, bootstrap, advance, fixed_raters=fixed_raters)
    t2 = time.perf_counter()
    step = _Stage(progress, "Gold, behaviour and blinding", 5)
    gol = gold.analyse_gold(ds)
    step()
    beh = behaviour.analyse_behaviour(ds)
    step()
    unr = unrated.analyse_unrated(ds)
    step()
    dis = _disagreements(ds)
    step()
    t3 = time.perf_counter()
    timings.update(agreement=t1 - t0, models=t2 - t1, gold_behaviour=t3 - t2)
    bli = blinding.analyse_blinding(ds)
    step()
    for part in (agr, mod, gol, beh, unr, bli):
        notes.extend(part.notes)

    sections = [
        Section("agreement", "1. Agreement between raters",
                "Do clinicians agree, dimension by dimension? Krippendorff's alpha treats scores as ordinal "
                "(order matters) and as interval (distances matter); pairwise kappa shows which raters "
                "disagree with whom. N/A answers are counted apart, never as a score.",
                [*agr.tables, dis]),
        Section("models", "2. Results per model",
                "How each model's responses were rated, with honest uncertainty: every interval allows for "
                + ("other benchmark items (these raters fixed)" if fixed_raters else
                   "other benchmark items and other raters")
                + "; ratings of the same item or by the same rater are not independent.", mod.tables),
        Section("gold", "3. Against the gold standard",
                "Rater scores and failure-mode tags mapped to criterion verdicts ("
                + _bands(ds) + ", N/A not applicable; failure absent = satisfied, minor = partially, "
                "moderate or worse = not satisfied; the mapping the calibration feedback uses) and compared "
                "with the adjudicated acceptable verdicts.",
                gol.tables),
        Section("behaviour", "4. Rater behaviour",
                "Signs that a rater needs a word: very short or long times, the same score everywhere, "
                "confidence that does not track agreement, systematic deviation from the other raters; and the "
                "tasks raters could not rate (never counted as a score) or flagged for you.",
                [*beh.tables, *unr.tables]),
    ]
    if bli.tables or bli.notes:
        sections.append(Section("blinding", "5. Blinding", blinding.INTRO, bli.tables))
    if with_charts:
        t4 = time.perf_counter()
        _add_charts(sections, ds, agr, mod, beh, fixed_raters, _Stage(progress, "Charts", CHARTS))
        timings["charts"] = time.perf_counter() - t4

    report = Report(_meta(ds, unr, seed, bootstrap, fixed_raters), notes, sections, timings=timings)
    report.findings = key_findings(report.tables(), None if bootstrap <= 0 else scope_text(fixed_raters))
    if unr.nobody_could:
        report.findings.append(f"{count(len(unr.nobody_could), 'task')} could not be rated by any rater who returned them "
                               f"(section 4): {', '.join(unr.nobody_could[:unrated.LISTED_TASKS])}"
                               + (" …" if len(unr.nobody_could) > unrated.LISTED_TASKS else "") + ".")
    return report


# ----------------------------------------------------------------------------------------- writing

_CSV_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: Any) -> Any:
    value = clean(value)
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(_CSV_FORMULA):
        return "'" + value  # never let a spreadsheet run text from a rating as a formula
    return value


def table_csv(table: Table) -> str:
    return csv_line(table.columns) + csv_text([_csv_cell(v) for v in row] for row in table.rows)


def summary_obj(report: Report) -> dict[str, Any]:
    return {
        "meta": report.meta.as_json_obj(),
        "findings": report.findings,
        "notes": [{"section": n.section, "text": n.text} for n in report.notes],
        "tables": {t.name: t.as_dicts() for t in report.tables()},
    }


def summary_json(report: Report) -> str:
    # allow_nan=False: a NaN that slipped through is a bug, never a silent "NaN" in the file.
    return json.dumps(summary_obj(report), ensure_ascii=False, indent=2, allow_nan=False) + "\n"


def check_out_dir(out_dir: Path) -> None:
    """Refuse a report folder that is a file (a plain error, before minutes of computing)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise WmcdpError(f"{out_dir}: is a file, not a folder; the report needs a folder")


def write_report(report: Report, out_dir: Path, progress: StageProgress | None = None) -> list[Path]:
    """Write the tables, summary and HTML report, owner-only (0600) whatever the umask: they give results
    per model, unblinded, like the key and ``results collect``'s outputs. ``progress`` hears each file
    written (stage ``Writing the report``)."""
    from wmcdp_desktop.coordinator.report.html_report import render_html

    check_out_dir(out_dir)
    try:
        out_dir.mkdir(mode=0o700, parents=True, exist_ok=True)  # folders made here: owner-only, like their files
        (out_dir / "tables").mkdir(mode=0o700, exist_ok=True)
    except OSError as exc:
        raise WmcdpError(f"cannot create the report folder {out_dir}: {exc.strerror or exc}") from None
    written: list[Path] = []
    tables = out_dir / "tables"
    all_tables = report.tables()
    step = _Stage(progress, "Writing the report", len(all_tables) + 3)
    for t in all_tables:
        path = child_path(tables, f"{t.name}.csv")
        atomic_write_text(path, table_csv(t), mode=OWNER_ONLY)
        written.append(path)
        step()
    notes_t = Table("notes", "Notes", ["section", "note"], [[n.section, n.text] for n in report.notes])
    atomic_write_text(tables / "notes.csv", table_csv(notes_t), mode=OWNER_ONLY)
    step()
    atomic_write_text(out_dir / "summary.json", summary_json(report), mode=OWNER_ONLY)
    step()
    atomic_write_bytes(out_dir / "report.html", render_html(report).encode("utf-8"), mode=OWNER_ONLY)
    step()
    written += [tables / "notes.csv", out_dir / "summary.json", out_dir / "report.html"]
    return written


@contextmanager
def _data_kept_out_of_gc() -> Iterator[Callable[[], None]]:
    """Python's cycle collector off while the data is read, and what was read kept out of its later passes
    (call the function given once the data is read); the collector as it was again afterwards, even on an error.

    At a million ratings the study's 33,333 items alone are about a million Python objects, alive until the
    report is written and in no cycle; every full pass of the collector walks all of them, and reading the
    items and building and writing the tables trigger hundreds of passes: half of the reading time and most
    of the writing went to them (docs/PERFORMANCE.md). Frozen objects are only kept out of the passes, not
    kept alive: the report drops them as before, and ``gc.unfreeze`` hands them back to the collector."""
    enabled = gc.isenabled()
    gc.disable()
    frozen = False

    def loaded() -> None:
        nonlocal frozen
        gc.freeze()  # what is alive now stays alive for the whole report: no need to walk it again
        frozen = True
        if enabled:
            gc.enable()

    try:
        yield loaded
    finally:
        if frozen:
            gc.unfreeze()
        if enabled:
            gc.enable()


def run(collected_dir: Path, study_dir: Path, out_dir: Path, seed: int | None, bootstrap: int,
        progress: StageProgress | None = None, *, with_charts: bool = True, fixed_raters: bool = False) -> Report:
    """Load, compute, write. ``seed`` None = the study's seed; ``fixed_raters``: see :func:`compute_report`.
    An ``out_dir`` that cannot be the report's folder is refused before the slow work."""
    check_out_dir(out_dir)
    with _data_kept_out_of_gc() as loaded:
        t0 = time.perf_counter()
        ds = load_dataset(collected_dir, study_dir, progress=progress)
        loaded()
        t1 = time.perf_counter()
        if seed is None:
            seed = ds.study.seed if ds.study else 0
        report = compute_report(ds, seed, bootstrap, progress=progress, with_charts=with_charts,
                                fixed_raters=fixed_raters)
        t2 = time.perf_counter()
        write_report(report, out_dir, progress)
        t3 = time.perf_counter()
    report.timings.update(load=t1 - t0, compute_total=t2 - t1, write=t3 - t2)
    return report
