"""`wmcdp report` at scale: a synthetic collection of up to a million ratings, read from ratings.parquet.

    python -m benchmarks.scale [--ratings 1000000] [--raters 200] [--overlap 3] [--models 10] [--reps 2]
                               [--bootstrap] [--out DIR] [--json]

Writes a study folder (study.json, the default rubric, one item per (ratings / overlap / models) with gold)
and what ``wmcdp results collect`` writes for the report (``ratings.parquet`` built with the collect
codebook's own column definitions and writer, and ``collect-report.json`` with its SHA-256), then measures
side by side, repetitions interleaved:

- figure: ``wmcdp report --bootstrap 0`` in a fresh process (charts included), and its peak resident memory;
- floor: a fresh process reading the same Parquet columns (rater, task, the 8 scores) with pyarrow and
  calling ``krippendorff.alpha`` (ordinal) for the 8 dimensions on their value counts.

With ``--bootstrap`` the report with the default intervals is timed once beside them. Every rating is
synthetic: each task has a latent quality per dimension, each rater a leniency, scores are rounded and
clipped to 1-5, 5% N/A on the dimensions that allow it, failure modes tagged at a few percent.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
CREATED_AT = "2026-11-01T09:00:00Z"


def _item(i: int, rubric: dict[str, Any]) -> dict[str, Any]:
    return {
        "documentType": "benchmark_item", "schemaVersion": "1.0.0", "benchmarkItemId": f"item-{i:07d}",
        "benchmarkVersion": "1.0.0", "split": "test",
        "contractRef": {"contractId": rubric["contract_id"], "contractVersion": rubric["contract_version"]},
        "caseRef": {"caseId": f"case-{i:07d}", "caseVersion": "1.0.0"},
        "sliceTags": [f"group:{i % 7}"], "challengeAttributes": ["domain_expertise"] if i % 5 == 0 else [],
        "goldStandard": {
            "criterionGold": [{
                "criterionId": cid, "applicability": "applies", "acceptableVerdicts": ["satisfied", "partially_satisfied"],
                "severity": "moderate", "positiveEvidenceSpans": [], "negativeEvidenceSpans": [],
                "omissionDescriptions": [], "notes": "Synthetic gold."} for cid in ("WM-RUB-002", "WM-RUB-008")],
            "ambiguityStatus": "clear",
            "acceptableDecisions": [{"target": "candidate_response", "acceptableActions": ["accept"]}],
        },
        "adjudication": {"method": "single_expert", "adjudicatorCount": 1, "domainExpertCount": 1,
                         "blindToAutoQA": True, "blindToReviewerLabel": True, "disagreementTypes": [],
                         "completedAt": CREATED_AT},
        "leakageControl": {"allowedForPromptDevelopment": False, "heldOutProject": False,
                           "firstFrozenAt": CREATED_AT, "accessPolicy": "Study raters only."},
        "weight": 1.0 + (i % 3) / 2,
    }


def write_study(folder: Path, n_items: int, n_raters: int, overlap: int) -> Path:
    """study.json, the default rubric and ``n_items`` items (the first checked with the model)."""
    from wmcdp_desktop.core.models.benchmark_item import BenchmarkItem
    from wmcdp_desktop.core.models.study import Study
    from wmcdp_desktop.core.resources import default_rubric_path

    (folder / "items").mkdir(parents=True, exist_ok=True)
    study = {"document_type": "wmcdp_study", "study_id": "SCALE", "title": "Synthetic study at scale",
             "raters": [{"rater_id": f"R{r:04d}"} for r in range(n_raters)], "overlap": overlap, "seed": 7,
             "rater_splits": ["test"], "created_at": CREATED_AT}
    Study.model_validate(study)
    (folder / "study.json").write_text(json.dumps(study, indent=2), encoding="utf-8")
    rubric_text = default_rubric_path().read_text(encoding="utf-8")
    (folder / "rubric.json").write_text(rubric_text, encoding="utf-8")
    rubric = json.loads(rubric_text)
    BenchmarkItem.model_validate(_item(0, rubric))
    for i in range(n_items):
        (folder / "items" / f"item-{i:07d}.json").write_text(json.dumps(_item(i, rubric)), encoding="utf-8")
    return folder


def write_collection(folder: Path, n_ratings: int, n_raters: int, overlap: int, n_models: int,
                     seed: int = 1) -> Path:
    """``ratings.parquet`` and ``collect-report.json`` as ``wmcdp results collect`` writes them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from wmcdp_desktop.core.coordinator import codebook
    from wmcdp_desktop.core.models.common import SEVERITIES
    from wmcdp_desktop.core.models.rubric import Rubric
    from wmcdp_desktop.core.resources import default_rubric_path

    rubric = Rubric.model_validate_json(default_rubric_path().read_text(encoding="utf-8"))
    fm_ids = [fm.id for fm in rubric.failure_modes]
    cols = codebook.table_columns(fm_ids, rubric)
    rng = np.random.default_rng(seed)
    n_tasks = n_ratings // overlap
    n = n_tasks * overlap
    task = np.repeat(np.arange(n_tasks), overlap)
    slot = np.tile(np.arange(overlap), n_tasks)
    rater = (task * overlap + slot + task // max(1, n_raters // overlap)) % n_raters  # distinct within a task
    item = task // n_models
    model = task % n_models
    quality = rng.normal(3.0, 0.9, size=(n_tasks, 8)) + rng.normal(0, 0.4, size=(n_models, 8))[np.arange(n_tasks) % n_models]
    leniency = rng.normal(0, 0.35, size=n_raters)
    scores = np.clip(np.rint(quality[task] + leniency[rater][:, None] + rng.normal(0, 0.7, size=(n, 8))), 1, 5)
    na = np.zeros((n, 8), bool)
    for d, dim in enumerate(rubric.dimensions):
        if dim.allow_na:
            na[:, d] = rng.random(n) < 0.05
    columns: dict[str, Any] = {}

    def text(values: np.ndarray, fmt: str) -> Any:
        return pa.array([fmt.format(v) for v in values.tolist()], pa.string())

    columns["rater_id"] = text(rater, "R{:04d}")
    columns["rater_role_or_background"] = pa.nulls(n, pa.string())
    columns["task_id"] = text(task, "t-{:08x}")
    columns["benchmark_item_id"] = text(item, "item-{:07d}")
    columns["split"] = pa.array(np.full(n, "test"), pa.string())
    columns["candidate_response_id"] = text(task, "cr-{:012x}")
    columns["model_source"] = text(model, "model-{:02d}")
    columns["clinical_domain_id"] = pa.array(np.full(n, "WM-DOM-ANX"), pa.string())
    columns["scenario_type_ids"] = pa.array([["WM-SCN-1"]] * n, pa.list_(pa.string()))
    columns["revision"] = pa.array(np.ones(n, np.int32))
    columns["revisions_submitted"] = pa.array(np.ones(n, np.int32))
    columns["record_id"] = text(np.arange(n), "{:032x}")
    columns["bundle_id"] = text(rater, "SCALE-R{:04d}-b")
    start = 1_790_000_000_000_000 + np.arange(n, dtype=np.int64) * 1_000_000
    seconds = rng.integers(40, 400, size=n)
    columns["started_at"] = pa.array(start, pa.timestamp("us", tz="UTC"))
    columns["submitted_at"] = pa.array(start + seconds * 1_000_000, pa.timestamp("us", tz="UTC"))
    columns["time_spent_scoring_seconds"] = pa.array(seconds.astype(np.int32))
    columns["confidence_rating"] = pa.array(rng.integers(1, 6, size=n).astype(np.int32))
    columns["brief_rationale"] = text(rng.integers(0, 50, size=n), "Synthetic rationale {}.")
    for name in ("best_aspect", "main_concern", "suggested_better_clinical_move"):
        columns[name] = pa.nulls(n, pa.string())
    for d, dim in enumerate(rubric.dimensions):
        columns[dim.field] = pa.array(scores[:, d].astype(np.int16), mask=na[:, d])
        columns[f"{dim.field}_na"] = pa.array(na[:, d])
    dictionary = pa.array(list(SEVERITIES), pa.string())
    for fm in fm_ids:
        sev = np.where(rng.random(n) < 0.05, rng.integers(1, 5, size=n), 0).astype(np.int8)
        columns[f"failure_mode.{fm}"] = pa.DictionaryArray.from_arrays(pa.array(sev), dictionary)
        columns[f"failure_mode_note.{fm}"] = pa.nulls(n, pa.string())
    columns["record_kind"] = pa.array(np.full(n, "rating"), pa.string())
    for name in ("cannot_rate_reason", "cannot_rate_detail", "coordinator_flag", "blinding_guess"):
        columns[name] = pa.nulls(n, pa.string())
    columns["candidate_response_sha256"] = text(task, "{:064x}")
    fields = [pa.field(c.safe, columns[c.name].type, metadata={"wmcdp:name": c.name, "description": c.description})
              for c in cols]
    table = pa.Table.from_arrays([columns[c.name] for c in cols], schema=pa.schema(fields))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "ratings.parquet"
    pq.write_table(table, path, compression="zstd")
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    (folder / "collect-report.json").write_text(json.dumps({"ok": True, "study_id": "SCALE",
                                                            "outputs": {"ratings.parquet": sha}}), encoding="utf-8")
    return folder


FLOOR = """
import sys, time, numpy as np, pyarrow.parquet as pq, pyarrow.compute as pc, krippendorff
t0 = time.perf_counter()
fields = sys.argv[2].split(",")
table = pq.read_table(sys.argv[1], columns=["task_id", "rater_id", *fields])
codes = pc.index_in(table.column("task_id"), value_set=pc.unique(table.column("task_id"))).to_numpy()
n_tasks = int(codes.max()) + 1
for f in fields:
    col = table.column(f)
    ok = pc.is_valid(col).to_numpy(zero_copy_only=False)
    v = pc.fill_null(col, 1).to_numpy(zero_copy_only=False).astype(np.int64) - 1
    vc = np.bincount(codes[ok] * 5 + v[ok], minlength=n_tasks * 5).reshape(n_tasks, 5)
    krippendorff.alpha(value_counts=vc, value_domain=[1, 2, 3, 4, 5], level_of_measurement="ordinal")
print(time.perf_counter() - t0)
"""

PEAK = """
import resource, subprocess, sys, time
t0 = time.perf_counter()
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
elapsed = time.perf_counter() - t0
peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
sys.stdout.write(f"{elapsed} {peak_kb} {proc.returncode}\\n")
sys.stderr.write(proc.stderr)
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def measure_floor(collected: Path) -> float:
    from wmcdp_desktop.core.coordinator.codebook import SHORT_NAMES
    from wmcdp_desktop.core.models.rubric import DIMENSION_FIELDS

    fields = ",".join(SHORT_NAMES[f] for f in DIMENSION_FIELDS.values())
    t0 = time.perf_counter()
    proc = subprocess.run([PY, "-c", FLOOR, str(collected / "ratings.parquet"), fields], capture_output=True,
                          text=True, env=_env(), check=True)
    del proc
    return time.perf_counter() - t0


def measure_report(collected: Path, study: Path, out: Path, *extra: str) -> dict[str, Any]:
    """Wall time and peak RSS of one ``wmcdp report`` process, with its ``--timings`` phases."""
    command = [PY, "-m", "wmcdp_desktop.cli.main", "report", str(collected), "--study", str(study), "--out",
               str(out), "--timings", *extra]
    proc = subprocess.run([PY, "-c", PEAK, *command], capture_output=True, text=True, env=_env(), check=True)
    elapsed, peak_kb, code = proc.stdout.split()
    if int(code) != 0:
        raise RuntimeError(f"wmcdp report failed: {proc.stderr[-2000:]}")
    phases = {}
    for line in proc.stderr.splitlines():
        if line.startswith("  ") and line.endswith(" s") and ":" in line:
            name, value = line.strip().rsplit(":", 1)
            phases[name] = float(value.removesuffix(" s"))
    return {"seconds": float(elapsed), "peak_mib": int(peak_kb) / 1024, "phases": phases}


def run(ratings: int, raters: int, overlap: int, models: int, reps: int, bootstrap: bool, out: Path) -> dict[str, Any]:
    n_items = max(1, ratings // overlap // models)
    t0 = time.perf_counter()
    study, collected = out / "study", out / "collected"
    stamp = out / "made.json"
    wanted = {"ratings": ratings, "raters": raters, "overlap": overlap, "models": models, "version": 1}
    if not (stamp.is_file() and json.loads(stamp.read_text(encoding="utf-8")) == wanted):
        write_study(study, n_items, raters, overlap)
        write_collection(collected, ratings, raters, overlap, models)
        stamp.write_text(json.dumps(wanted), encoding="utf-8")
    made = time.perf_counter() - t0
    figure, floor, peaks, phases = [], [], [], []
    for rep in range(reps):
        floor.append(measure_floor(collected))
        result = measure_report(collected, study, out / f"report-{rep}", "--bootstrap", "0")
        figure.append(result["seconds"])
        peaks.append(result["peak_mib"])
        phases.append(result["phases"])
    res: dict[str, Any] = {
        "ratings": (ratings // overlap) * overlap, "raters": raters, "overlap": overlap, "models": models,
        "items": n_items, "data_seconds": round(made, 1), "report_s": figure, "floor_s": floor,
        "ratio": float(np.median(figure) / np.median(floor)), "peak_mib": max(peaks), "phases": phases[-1],
    }
    if bootstrap:
        res["with_default_bootstrap"] = measure_report(collected, study, out / "report-b")
    return res


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scale", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ratings", type=int, default=1_000_000)
    parser.add_argument("--raters", type=int, default=200)
    parser.add_argument("--overlap", type=int, default=3)
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--bootstrap", action="store_true", help="also time the report with the default intervals")
    parser.add_argument("--out", type=Path, default=None,
                        help="working folder (default: a temporary one); data made there before for the same sizes "
                        "is used again")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="wmcdp-scale-"))
    res = run(args.ratings, args.raters, args.overlap, args.models, args.reps, args.bootstrap, out)
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        print(f"{res['ratings']:,} ratings, {res['raters']} raters, overlap {res['overlap']}, {res['items']:,} items: "
              f"report {np.median(res['report_s']):.2f} s, floor {np.median(res['floor_s']):.2f} s, ratio "
              f"{res['ratio']:.2f}x, peak {res['peak_mib']:.0f} MiB; phases {res['phases']}")
        if "with_default_bootstrap" in res:
            b = res["with_default_bootstrap"]
            print(f"with the default bootstrap: {b['seconds']:.1f} s, peak {b['peak_mib']:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
