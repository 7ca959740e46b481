"""`wmcdp report` and `wmcdp results collect` at scale: a synthetic collection of up to a million ratings.

    python -m benchmarks.scale [--ratings 1000000] [--raters 200] [--overlap 3] [--models 10] [--reps 2]
                               [--bootstrap] [--collect] [--out DIR] [--json]

Writes a study folder (study.json, the default rubric, one item per (ratings / overlap / models) with gold)
and what ``wmcdp results collect`` writes for the report (``ratings.parquet`` built with the collect
codebook's own column definitions and writer, and ``collect-report.json`` with its SHA-256), then measures
side by side, repetitions interleaved:

- figure: ``wmcdp report --bootstrap 0`` in a fresh process (charts included), and its peak resident memory;
- floor: a fresh process reading the same Parquet columns (rater, task, the 8 scores) with pyarrow and
  calling ``krippendorff.alpha`` (ordinal) for the 8 dimensions on their value counts.

With ``--bootstrap`` the report with the default intervals is timed once beside them. With ``--collect``
the same ratings are also written as one results export zip per rater (manifest with every SHA-256, the
records, the sealed audit chain) with the unblinding key of their build, and timed (``--reps 0``: only this):

- figure: ``wmcdp results collect`` of every zip in a fresh process, and its peak resident memory;
- floor: a fresh process reading every record of the same zips and calling ``json.loads`` on it (the file
  cache warmed first); the target is throughput >= 0.33x of the floor's;
- beside them, the checks alone: every export read with its checks and every record against the rubric's
  rules, nothing merged or written (what the outputs add is the difference).

Every rating is synthetic: each task has a latent quality per dimension, each rater a leniency, scores are rounded and
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


def synth_ratings(n_ratings: int, n_raters: int, overlap: int, n_models: int, seed: int = 1) -> dict[str, Any]:
    """The synthetic ratings as numpy columns, one row per rating (``write_collection`` and ``write_exports``
    both write these, so the report and the collect figures see the same ratings)."""
    from wmcdp_desktop.core.models.rubric import Rubric
    from wmcdp_desktop.core.resources import default_rubric_path

    rubric = Rubric.model_validate_json(default_rubric_path().read_text(encoding="utf-8"))
    rng = np.random.default_rng(seed)
    n_tasks = n_ratings // overlap
    n = n_tasks * overlap
    task = np.repeat(np.arange(n_tasks), overlap)
    slot = np.tile(np.arange(overlap), n_tasks)
    rater = (task * overlap + slot + task // max(1, n_raters // overlap)) % n_raters  # distinct within a task
    model = task % n_models
    quality = rng.normal(3.0, 0.9, size=(n_tasks, 8)) + rng.normal(0, 0.4, size=(n_models, 8))[np.arange(n_tasks) % n_models]
    leniency = rng.normal(0, 0.35, size=n_raters)
    scores = np.clip(np.rint(quality[task] + leniency[rater][:, None] + rng.normal(0, 0.7, size=(n, 8))), 1, 5)
    na = np.zeros((n, 8), bool)
    for d, dim in enumerate(rubric.dimensions):
        if dim.allow_na:
            na[:, d] = rng.random(n) < 0.05
    seconds = rng.integers(40, 400, size=n)
    confidence = rng.integers(1, 6, size=n)
    rationale = rng.integers(0, 50, size=n)
    fm_ids = [fm.id for fm in rubric.failure_modes]
    severity = {fm: np.where(rng.random(n) < 0.05, rng.integers(1, 5, size=n), 0).astype(np.int8) for fm in fm_ids}
    return {"rubric": rubric, "n": n, "n_tasks": n_tasks, "task": task, "rater": rater, "item": task // n_models,
            "model": model, "scores": scores.astype(np.int16), "na": na, "seconds": seconds,
            "confidence": confidence, "rationale": rationale, "fm_ids": fm_ids, "severity": severity,
            "start": 1_790_000_000_000_000 + np.arange(n, dtype=np.int64) * 1_000_000}


def write_collection(folder: Path, s: dict[str, Any]) -> Path:
    """``ratings.parquet`` and ``collect-report.json`` as ``wmcdp results collect`` writes them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from wmcdp_desktop.coordinator.collect import codebook
    from wmcdp_desktop.core.models.common import SEVERITIES

    rubric, n, fm_ids = s["rubric"], s["n"], s["fm_ids"]
    cols = codebook.table_columns(fm_ids, rubric)
    task, rater = s["task"], s["rater"]
    columns: dict[str, Any] = {}

    def text(values: np.ndarray, fmt: str) -> Any:
        return pa.array([fmt.format(v) for v in values.tolist()], pa.string())

    columns["rater_id"] = text(rater, "R{:04d}")
    columns["rater_role_or_background"] = pa.nulls(n, pa.string())
    columns["task_id"] = text(task, "t-{:08x}")
    columns["benchmark_item_id"] = text(s["item"], "item-{:07d}")
    columns["split"] = pa.array(np.full(n, "test"), pa.string())
    columns["candidate_response_id"] = text(task, "cr-{:012x}")
    columns["model_source"] = text(s["model"], "model-{:02d}")
    columns["clinical_domain_id"] = pa.array(np.full(n, "WM-DOM-ANX"), pa.string())
    columns["scenario_type_ids"] = pa.array([["WM-SCN-1"]] * n, pa.list_(pa.string()))
    columns["revision"] = pa.array(np.ones(n, np.int32))
    columns["revisions_submitted"] = pa.array(np.ones(n, np.int32))
    columns["record_id"] = text(np.arange(n), "{:032x}")
    columns["bundle_id"] = text(rater, "SCALE-R{:04d}-b")
    start, seconds = s["start"], s["seconds"]
    columns["started_at"] = pa.array(start, pa.timestamp("us", tz="UTC"))
    columns["submitted_at"] = pa.array(start + seconds * 1_000_000, pa.timestamp("us", tz="UTC"))
    columns["time_spent_scoring_seconds"] = pa.array(seconds.astype(np.int32))
    columns["confidence_rating"] = pa.array(s["confidence"].astype(np.int32))
    columns["brief_rationale"] = text(s["rationale"], "Synthetic rationale {}.")
    for name in ("best_aspect", "main_concern", "suggested_better_clinical_move"):
        columns[name] = pa.nulls(n, pa.string())
    for d, dim in enumerate(rubric.dimensions):
        columns[dim.field] = pa.array(s["scores"][:, d], mask=s["na"][:, d])
        columns[f"{dim.field}_na"] = pa.array(s["na"][:, d])
    dictionary = pa.array(list(SEVERITIES), pa.string())
    for fm in fm_ids:
        columns[f"failure_mode.{fm}"] = pa.DictionaryArray.from_arrays(pa.array(s["severity"][fm]), dictionary)
        columns[f"failure_mode_note.{fm}"] = pa.nulls(n, pa.string())
    columns["record_kind"] = pa.array(np.full(n, "rating"), pa.string())
    for name in ("cannot_rate_reason", "cannot_rate_detail", "coordinator_flag", "blinding_guess"):
        columns[name] = pa.nulls(n, pa.string())
    columns["candidate_response_sha256"] = text(task, "{:064x}")
    columns["clock_suspect"] = pa.array(np.zeros(n, bool))
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


def response_text(t: int) -> str:
    """Task ``t``'s synthetic response (about 600 characters, a few of them outside ASCII)."""
    return (f"Response {t}: it sounds exhausting when the questions come back every evening. "
            + "A small, steady step helps: answer once, then say \u201cwe already talked about that\u201d, "
              "and praise the brave moment afterwards. " * 4)


def _iso(us: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(us // 1_000_000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_exports(folder: Path, s: dict[str, Any], n_raters: int) -> tuple[Path, list[Path]]:
    """The same ratings as results export zips (one per rater, made as the app makes them: a manifest with
    every record's SHA-256, ``records/<task>.r1.json`` and the hash-chained ``audit.jsonl`` sealed by the
    export) and the unblinding key of the build they came from. Returns the key and the zips."""
    import zipfile

    from wmcdp_desktop.core import audit_chain
    from wmcdp_desktop.core.digests import text_sha256
    from wmcdp_desktop.core.models.rating_record import RECORD_SCHEMA_ID, RECORD_SCHEMA_VERSION, RatingRecord
    from wmcdp_desktop.core.models.results_manifest import ResultsManifest
    from wmcdp_desktop.core.models.unblinding_key import UnblindingKey
    from wmcdp_desktop.core.strict_json import dumps_canonical

    rubric, fm_ids = s["rubric"], s["fm_ids"]
    fields = [d.field for d in rubric.dimensions]
    severities = ["none", "minor", "moderate", "major", "critical"]
    task, rater, item, model = s["task"], s["rater"], s["item"], s["model"]
    folder.mkdir(parents=True, exist_ok=True)
    bundle_sha = {r: hashlib.sha256(f"bundle {r}".encode()).hexdigest() for r in range(n_raters)}
    raters_of: dict[int, list[str]] = {}
    for t, r in zip(task.tolist(), rater.tolist(), strict=True):
        raters_of.setdefault(t, []).append(f"R{r:04d}")
    order = np.argsort(rater, kind="stable")
    bounds = np.searchsorted(rater[order], np.arange(n_raters + 1))
    entries = [{"task_id": f"t-{t:08x}", "candidate_response_id": f"cr-{t:012x}",
                "benchmark_item_id": f"item-{int(item[t * (s['n'] // s['n_tasks'])]):07d}", "split": "test",
                "response_id": f"resp-{t:08x}", "model_source": f"model-{int(model[t * (s['n'] // s['n_tasks'])]):02d}",
                "raters": sorted(raters_of[t]), "clinical_domain_id": "WM-DOM-ANX", "scenario_type_ids": ["WM-SCN-1"],
                "candidate_response_sha256": text_sha256(response_text(t))} for t in range(s["n_tasks"])]
    bundles = []
    zips = []
    scores, na, sev = s["scores"], s["na"], s["severity"]
    for r in range(n_raters):
        rows = order[bounds[r]:bounds[r + 1]]
        bundle_id = f"SCALE-R{r:04d}-b"
        bundles.append({"file_name": f"SCALE-R{r:04d}.wmcdp", "bundle_id": bundle_id, "bundle_sha256": bundle_sha[r],
                        "rater_id": f"R{r:04d}", "task_ids": [f"t-{int(task[i]):08x}" for i in rows]})
        files: list[tuple[str, bytes]] = []
        for i in rows.tolist():
            t = int(task[i])
            start = int(s["start"][i])
            rec = {
                "envelope": {"schema_id": RECORD_SCHEMA_ID, "schema_version": RECORD_SCHEMA_VERSION,
                             "record_id": f"{i:032x}", "task_id": f"t-{t:08x}", "bundle_id": bundle_id,
                             "bundle_sha256": bundle_sha[r], "app_version": "0.1.0", "started_at": _iso(start),
                             "submitted_at": _iso(start + int(s["seconds"][i]) * 1_000_000), "revision": 1},
                "benchmark_item_id": f"item-{int(item[i]):07d}", "clinical_domain_id": "WM-DOM-ANX",
                "scenario_type_ids": ["WM-SCN-1"], "candidate_response_id": f"cr-{t:012x}",
                "candidate_response_text": response_text(t), "rater_id": f"R{r:04d}",
                "scoring": {f: ("N/A" if na[i, d] else int(scores[i, d])) for d, f in enumerate(fields)},
                "failure_mode_annotations": {fm: severities[sev[fm][i]] for fm in fm_ids},
                "clinician_notes": {"brief_rationale": f"Synthetic rationale {int(s['rationale'][i])}.",
                                    "confidence_rating": int(s["confidence"][i])},
                "time_spent_scoring_seconds": int(s["seconds"][i]),
            }
            if i == rows[0]:
                RatingRecord.model_validate(rec)
            files.append((f"records/t-{t:08x}.r1.json", dumps_canonical(rec).encode("utf-8")))
        files.sort()
        listed = [{"path": name, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data),
                   "task_id": name[8:-8], "revision": 1, "latest": True} for name, data in files]
        seal = {"bundle_id": bundle_id, "bundle_sha256": bundle_sha[r], "rater_id": f"R{r:04d}", "study_id": "SCALE"}
        export_id = hashlib.md5(f"export {r}".encode()).hexdigest()
        events: list[dict[str, Any]] = [{"at": "2026-10-01T09:00:00Z", "event": "opened",
                                         audit_chain.START_FIELD: hashlib.sha256(b"").hexdigest()}]
        events += [{"at": "2026-10-01T10:00:00Z", "event": "submitted", "task_id": e["task_id"], "revision": 1,
                    "file": e["path"][8:], "sha256": e["sha256"]} for e in listed]
        events.append({"at": "2026-11-01T12:00:00Z", "event": audit_chain.SEAL_EVENT, "export_id": export_id, **seal,
                       "record_files": len(listed),
                       "records_sha256": audit_chain.records_digest((e["path"], e["sha256"]) for e in listed),
                       "exported_at": "2026-11-01T12:00:00Z"})
        lines: list[bytes] = []
        for event in events:
            event[audit_chain.CHAIN_FIELD] = audit_chain.line_sha256(lines[-1]) if lines else audit_chain.GENESIS
            lines.append(audit_chain.encode_event(event))
        log = b"".join(line + b"\n" for line in lines)
        manifest = {"document_type": "wmcdp_results", "format_version": "1.1.0", "bundle_id": bundle_id,
                    "bundle_sha256": bundle_sha[r], "study_id": "SCALE", "rater_id": f"R{r:04d}", "app_version": "0.1.0",
                    "exported_at": "2026-11-01T12:00:00Z",
                    "counts": {"tasks_in_bundle": len(listed), "submitted": len(listed), "record_files": len(listed),
                               "drafts_not_submitted": 0},
                    "files": listed,
                    "audit": {"path": "audit.jsonl", "sha256": hashlib.sha256(log).hexdigest(), "size": len(log),
                              "head": audit_chain.line_sha256(lines[-1]), "export_id": export_id}}
        if r == 0:
            ResultsManifest.model_validate(manifest)
        path = folder / f"wmcdp-results-SCALE-R{r:04d}.zip"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("manifest.json", dumps_canonical(manifest))
            for name, data in files:
                zf.writestr(name, data)
            zf.writestr("audit.jsonl", log)
        zips.append(path)
    key = {"document_type": "wmcdp_unblinding_key", "format_version": "1.2.0", "study_id": "SCALE",
           "study_sha256": "0" * 64, "seed": 7, "overlap": s["n"] // s["n_tasks"], "created_at": CREATED_AT,
           "id_scheme": "synthetic", "entries": entries, "bundles": bundles, "left_out": [],
           "rubric": rubric.to_json_obj()}
    UnblindingKey.model_validate({**key, "entries": entries[:2], "bundles": bundles[:1]})
    key_path = folder / "SCALE-unblinding-key.json"
    key_path.write_text(json.dumps(key), encoding="utf-8")
    return key_path, zips


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
    from wmcdp_desktop.coordinator.collect.codebook import SHORT_NAMES
    from wmcdp_desktop.core.models.rubric import DIMENSION_FIELDS

    fields = ",".join(SHORT_NAMES[f] for f in DIMENSION_FIELDS.values())
    t0 = time.perf_counter()
    proc = subprocess.run([PY, "-c", FLOOR, str(collected / "ratings.parquet"), fields], capture_output=True,
                          text=True, env=_env(), check=True)
    del proc
    return time.perf_counter() - t0


def measure_report(collected: Path, study: Path, out: Path, *extra: str) -> dict[str, Any]:
    """Wall time and peak RSS of one ``wmcdp report`` process, with its ``--timings`` phases."""
    command = [PY, "-m", "wmcdp_desktop.coordinator.commands.main", "report", str(collected), "--study", str(study), "--out",
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


FLOOR_COLLECT = """
import json, sys, time, zipfile
t0 = time.perf_counter()
n = 0
for path in sys.argv[1:]:
    with zipfile.ZipFile(path) as zf:
        for name in zf.namelist():
            if name.startswith("records/"):
                json.loads(zf.read(name))
                n += 1
print(n, time.perf_counter() - t0)
"""


CHECKS_ONLY = """
import sys, time
from pathlib import Path
t0 = time.perf_counter()
from wmcdp_desktop.coordinator.collect.merge import read_key
from wmcdp_desktop.coordinator.results.reader import read_export
from wmcdp_desktop.core.record_rules import RubricRules
key = read_key(Path(sys.argv[1]))
rules = RubricRules(key.rubric)
n = 0
for path in sys.argv[2:]:
    for rr in read_export(Path(path)).records:
        rules.problems(rr.record, None, rr.source)
        n += 1
print(n, time.perf_counter() - t0)
"""
"""What collect must do to every record before it writes anything: each export read with its checks (zip safety,
manifest, hashes, strict JSON, the record model, the audit chain) and the rubric's rules; no merge, no outputs."""


def measure_collect(key: Path, zips: list[Path], out: Path) -> dict[str, Any]:
    """``wmcdp results collect`` of every zip into a fresh folder (wall time, peak RSS) and its floor: a fresh
    process reading every record of the same zips with ``json.loads``; beside them, the checks alone
    (:data:`CHECKS_ONLY`), to show what the outputs add."""
    proc = subprocess.run([PY, "-c", FLOOR_COLLECT, *map(str, zips)], capture_output=True, text=True, env=_env(),
                          check=True)
    records = int(proc.stdout.split()[0])  # that run warmed the file cache; the next one is timed
    t0 = time.perf_counter()
    subprocess.run([PY, "-c", FLOOR_COLLECT, *map(str, zips)], capture_output=True, text=True, env=_env(), check=True)
    floor = time.perf_counter() - t0
    t0 = time.perf_counter()
    subprocess.run([PY, "-c", CHECKS_ONLY, str(key), *map(str, zips)], capture_output=True, text=True, env=_env(),
                   check=True)
    checks = time.perf_counter() - t0
    if out.exists():
        import shutil

        shutil.rmtree(out)
    command = [PY, "-m", "wmcdp_desktop.coordinator.commands.main", "results", "collect", *map(str, zips), "--key", str(key),
               "--out", str(out), "--json"]
    proc = subprocess.run([PY, "-c", PEAK, *command], capture_output=True, text=True, env=_env(), check=True)
    elapsed, peak_kb, code = proc.stdout.split()[-3:]
    report = json.loads((out / "collect-report.json").read_text(encoding="utf-8"))
    if int(code) != 0 or report["problems"]:
        raise RuntimeError(f"wmcdp results collect failed ({code}): {report['problems'][:5]} {proc.stderr[-2000:]}")
    return {"records": records, "collect_s": float(elapsed), "floor_s": floor, "throughput_ratio": floor / float(elapsed),
            "checks_only_s": checks, "checks_only_ratio": floor / checks,
            "peak_mib": int(peak_kb) / 1024, "kept": report["ratings"],
            "outputs_mb": round(sum(f.stat().st_size for f in out.iterdir() if f.is_file()) / 1e6, 1)}


def run(ratings: int, raters: int, overlap: int, models: int, reps: int, bootstrap: bool, out: Path,
        collect: bool = False) -> dict[str, Any]:
    n_items = max(1, ratings // overlap // models)
    t0 = time.perf_counter()
    study, collected, exports = out / "study", out / "collected", out / "exports"
    stamp = out / "made.json"
    wanted = {"ratings": ratings, "raters": raters, "overlap": overlap, "models": models, "version": 1}
    made_before = json.loads(stamp.read_text(encoding="utf-8")) if stamp.is_file() else {}
    have = {k: v for k, v in made_before.items() if k != "exports"} == wanted
    if not have or (collect and not made_before.get("exports")):
        synth = synth_ratings(ratings, raters, overlap, models)
        if not have:
            write_study(study, n_items, raters, overlap)
            write_collection(collected, synth)
        if collect:
            write_exports(exports, synth, raters)
        del synth
        stamp.write_text(json.dumps({**wanted, "exports": collect or bool(made_before.get("exports") and have)}),
                         encoding="utf-8")
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
        "ratio": float(np.median(figure) / np.median(floor)) if figure else None,
        "peak_mib": max(peaks) if peaks else None, "phases": phases[-1] if phases else {},
    }
    if bootstrap:
        res["with_default_bootstrap"] = measure_report(collected, study, out / "report-b")
    if collect:
        zips = sorted(exports.glob("*.zip"))
        res["collect"] = measure_collect(exports / "SCALE-unblinding-key.json", zips, out / "collected-from-zips")
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
    parser.add_argument("--collect", action="store_true",
                        help="also time `wmcdp results collect` of the same ratings from one export zip per rater "
                        "against json.loads of the same records read from the zips")
    parser.add_argument("--out", type=Path, default=None,
                        help="working folder (default: a temporary one); data made there before for the same sizes "
                        "is used again")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="wmcdp-scale-"))
    res = run(args.ratings, args.raters, args.overlap, args.models, args.reps, args.bootstrap, out, args.collect)
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        print(f"{res['ratings']:,} ratings, {res['raters']} raters, overlap {res['overlap']}, {res['items']:,} items")
        if res["report_s"]:
            print(f"report {np.median(res['report_s']):.2f} s, floor {np.median(res['floor_s']):.2f} s, ratio "
                  f"{res['ratio']:.2f}x, peak {res['peak_mib']:.0f} MiB; phases {res['phases']}")
        if "with_default_bootstrap" in res:
            b = res["with_default_bootstrap"]
            print(f"with the default bootstrap: {b['seconds']:.1f} s, peak {b['peak_mib']:.0f} MiB")
        if "collect" in res:
            c = res["collect"]
            print(f"results collect of {c['records']:,} records from zips: {c['collect_s']:.1f} s, floor (json.loads) "
                  f"{c['floor_s']:.1f} s, throughput {c['throughput_ratio']:.2f}x of the floor's, peak {c['peak_mib']:.0f} MiB; "
                  f"the checks alone {c['checks_only_s']:.1f} s ({c['checks_only_ratio']:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
