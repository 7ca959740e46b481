"""Ratings with controllable agreement for the report, the study folder they belong to, and the collection
(``ratings.parquet`` and ``collect-report.json``) ``wmcdp report`` reads them from, built with the project's
models and written by collect's own table writer.

``make_ratings`` draws a latent "true" score per (item, model, dimension) and lets each rater add noise;
``noise=0`` gives perfect agreement, ``random_ratings=True`` ignores the truth (alpha near 0), and
``inverted`` raters report ``min + max - score`` (systematic disagreement). :func:`write_collection` writes
records as ``wmcdp results collect`` would have; :func:`dataset_of` is the report's Dataset of records, read
from such a collection the way ``wmcdp report`` reads it.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tests.kit.studies import item_obj, study_obj, write_json
from wmcdp_desktop.coordinator.report.dataset import Dataset, GoldResponses
from wmcdp_desktop.core.documents import load_file
from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
from wmcdp_desktop.core.models.cannot_rate_record import CannotRateRecord
from wmcdp_desktop.core.models.common import SEVERITIES
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.study import Study
from wmcdp_desktop.core.resources import default_rubric_path

SHA = "0" * 64


def rubric() -> Rubric:
    return load_file(Rubric, default_rubric_path())


@dataclass
class Spec:
    n_items: int = 6
    models: tuple[str, ...] = ("model-a", "model-b")
    raters: int = 3
    noise: float = 0.0
    random_ratings: bool = False
    inverted: tuple[int, ...] = ()
    na_prob: float = 0.0
    na_dims: tuple[int, ...] = (2, 3)
    all_na_dims: tuple[int, ...] = ()
    model_shift: dict[str, float] = field(default_factory=dict)
    fm_prob: float = 0.2
    calibration_items: int = 1
    seed: int = 0
    rationale: str = "Scores follow the rubric anchors."
    with_time: bool = True
    with_confidence: bool = True
    single_item_models: tuple[str, ...] = ()


def _record(task_id: str, item_id: str, model: str | None, rater: str, scores: list[Any],
            severities: dict[str, str], rationale: str, seconds: int | None, confidence: int | None,
            minute: int, rubric_: Rubric) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "envelope": {
            "schema_id": "WM-CDP-ANNOTATION-SCHEMA-001",
            "schema_version": "0.0.1",
            "record_id": uuid.UUID(int=hash((task_id, rater)) & ((1 << 128) - 1)).hex,
            "task_id": task_id,
            "bundle_id": f"bundle-{rater}",
            "bundle_sha256": SHA,
            "app_version": "0.1.0",
            "started_at": f"2026-11-01T{minute // 60 % 24:02d}:{minute % 60:02d}:00Z",
            "submitted_at": f"2026-11-01T{minute // 60 % 24:02d}:{minute % 60:02d}:30Z",
            "revision": 1,
        },
        "benchmark_item_id": item_id,
        "clinical_domain_id": "WM-DOM-anxiety",
        "scenario_type_ids": ["WM-SCN-1"],
        "candidate_response_id": f"cr-{task_id}",
        "candidate_response_text": "A candidate response.",
        "rater_id": rater,
        "scoring": {d.field: s for d, s in zip(rubric_.dimensions, scores, strict=True)},
        "failure_mode_annotations": severities,
        "clinician_notes": {"brief_rationale": rationale},
    }
    if model is not None:
        rec["model_source"] = model
    if confidence is not None:
        rec["clinician_notes"]["confidence_rating"] = confidence
    if seconds is not None:
        rec["time_spent_scoring_seconds"] = seconds
    return rec


def make_ratings(spec: Spec, rubric_: Rubric | None = None) -> list[RatingRecord]:
    rubric_ = rubric_ or rubric()
    rng = np.random.default_rng(spec.seed)
    dims = rubric_.dimensions
    fms = [fm.id for fm in rubric_.failure_modes]
    raters = [f"rater-{r + 1}" for r in range(spec.raters)]
    out: list[RatingRecord] = []
    minute = 0
    for i in range(spec.n_items):
        item_id = f"item-{i + 1:03d}"
        for m, model in enumerate(spec.models):
            if model in spec.single_item_models and i > 0:
                continue
            task_id = f"task-{i + 1:03d}-{m}"
            truth = rng.integers(1, 6, size=len(dims)).astype(float) + spec.model_shift.get(model, 0.0)
            fm_truth = rng.random(len(fms)) < spec.fm_prob
            fm_sev = rng.integers(1, 5, size=len(fms))
            na_truth = (rng.random(len(dims)) < spec.na_prob) & np.isin(np.arange(len(dims)), spec.na_dims)
            for r, rater in enumerate(raters):
                if spec.random_ratings:
                    vals = rng.integers(1, 6, size=len(dims)).astype(float)
                else:
                    vals = truth + rng.normal(0, spec.noise, size=len(dims)) if spec.noise else truth.copy()
                vals = np.clip(np.rint(vals), 1, 5).astype(int)
                if r in spec.inverted:
                    vals = 6 - vals
                scores: list[Any] = [int(v) for v in vals]
                for d in range(len(dims)):
                    if na_truth[d] or d in spec.all_na_dims:
                        scores[d] = "N/A"
                sev = {fid: (SEVERITIES[int(fm_sev[k])] if fm_truth[k] else "none") for k, fid in enumerate(fms)}
                minute += 1
                out.append(RatingRecord.model_validate(_record(
                    task_id, item_id, model, rater, scores, sev, spec.rationale,
                    int(60 + 30 * r + rng.integers(0, 60)) if spec.with_time else None,
                    int(rng.integers(1, 6)) if spec.with_confidence else None, minute, rubric_)))
    return out


def item_doc(item_id: str, split: str, gold: list[dict[str, Any]]) -> dict[str, Any]:
    """The kit's benchmark item (:func:`tests.kit.studies.item_obj`) with ``gold``: one entry per
    ``{"id", "verdicts"[, "applicability", "severity"]}``, and no slice tags."""
    return item_obj(item_id, f"case-{item_id}", split, criteria=gold, slice_tags=())


def write_report_study(folder: Path, spec: Spec, gold: list[dict[str, Any]] | None = None,
                blinding_labels: dict[str, str | None] | None = None) -> Path:
    """study.json, rubric.json and items/*.json for the items of ``spec``; ``blinding_labels`` (label -> the
    model it names, or None) adds the study's blinding question."""
    study = {**study_obj(spec.raters, spec.raters), "study_id": "synthetic-study", "title": "Synthetic <study>",
             "raters": [{"rater_id": f"rater-{r + 1}"} for r in range(spec.raters)]}
    if blinding_labels is not None:
        study["blinding_check"] = {"labels": [{"label": label} if model is None else
                                              {"label": label, "model_source": model}
                                              for label, model in blinding_labels.items()]}
    Study.model_validate(study)
    write_json(folder / "study.json", study)
    (folder / "rubric.json").write_bytes(default_rubric_path().read_bytes())
    gold = gold if gold is not None else [
        {"id": "WM-RUB-001", "verdicts": ["satisfied"]},
        {"id": "WM-RUB-007", "verdicts": ["satisfied", "partially_satisfied"]},
        {"id": rubric().failure_modes[0].id, "verdicts": ["satisfied"]},
    ]
    for i in range(spec.n_items):
        item_id = f"item-{i + 1:03d}"
        split = "calibration" if i < spec.calibration_items else "test"
        doc = item_doc(item_id, split, gold)
        BenchmarkItem.model_validate(doc)
        write_json(folder / "items" / f"{item_id}.json", doc)
    return folder


def write_collection(folder: Path, records: Sequence[RatingRecord | CannotRateRecord | Mapping[str, Any]],
                     rubric_: Rubric | None = None, *, splits: Mapping[str, str] | None = None) -> Path:
    """``records`` (in this order) as ``wmcdp results collect`` writes them for the report: ``ratings.parquet``
    made by collect's own table writer and ``collect-report.json`` recording its SHA-256. A failure mode
    column for every failure mode the records annotate; ``splits``: task id -> split (default: none)."""
    from wmcdp_desktop.coordinator.collect import codebook

    objs = [r if isinstance(r, Mapping) else r.to_json_obj() for r in records]
    fm_ids = sorted({fm for r in objs for fm in r.get("failure_mode_annotations", {})})
    columns = codebook.table_columns(fm_ids, rubric_ or rubric())
    data = codebook.parquet_bytes(columns, codebook.table_data(objs, columns, fm_ids, splits or {}, {}),
                                  title="ratings")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / codebook.PARQUET_NAME).write_bytes(data)
    report = {"ok": True, "outputs": {codebook.PARQUET_NAME: hashlib.sha256(data).hexdigest()}}
    (folder / "collect-report.json").write_text(json.dumps(report), encoding="utf-8")
    return folder


def dataset_of(records: Sequence[RatingRecord | CannotRateRecord], rubric_: Rubric | None = None, *,
               items: dict[str, BenchmarkItem] | None = None,
               gold_responses: GoldResponses | None = None) -> Dataset:
    """The report's Dataset of ``records``: written as a collection (:func:`write_collection`) and read back
    the way ``wmcdp report`` reads one (checked against its SHA-256, every rubric rule applied)."""
    from wmcdp_desktop.coordinator.report.collected_parquet import dataset_from_parquet

    rubric_ = rubric_ or rubric()
    with tempfile.TemporaryDirectory(prefix="wmcdp-collection-") as folder:
        collected = write_collection(Path(folder), records, rubric_)
        return dataset_from_parquet(collected, rubric_, None, dict(items or {}), [], gold_responses)


def records_from_matrix(matrix: list[list[Any]], rubric_: Rubric | None = None, models: list[str] | None = None,
                        items: list[str] | None = None, rationale: str = "ok",
                        severities: list[list[str | None]] | None = None) -> list[RatingRecord]:
    """One record per non-None cell of a raters x tasks matrix; the cell's value goes on every dimension.

    A cell may also be a list of 8 values (one per dimension). ``models``/``items`` name each task's
    model and item (default: model-a, one item per task).
    """
    rubric_ = rubric_ or rubric()
    fms = [fm.id for fm in rubric_.failure_modes]
    out: list[RatingRecord] = []
    minute = 0
    for r, row in enumerate(matrix):
        for t, cell in enumerate(row):
            if cell is None:
                continue
            scores = list(cell) if isinstance(cell, list) else [cell] * len(rubric_.dimensions)
            sev_cell = severities[r][t] if severities else None
            sev = {fid: (sev_cell if (sev_cell and k == 0) else "none") for k, fid in enumerate(fms)}
            minute += 1
            out.append(RatingRecord.model_validate(_record(
                f"task-{t:03d}", items[t] if items else f"item-{t:03d}", models[t] if models else "model-a",
                f"rater-{r + 1}", scores, sev, rationale, 100 + r, 3, minute, rubric_)))
    return out
