"""Synthetic WM-CDP studies, bundles, rating records and collected results at any size.

Everything is deterministic for a given seed, and every document is checked with the core models
(``wmcdp_desktop.core.models``) before it is written, so the benchmarks measure valid input.

Command line (see benchmarks/README.md)::

    python -m benchmarks.synth study     --tasks 10000 --out /tmp/study
    python -m benchmarks.synth bundle    --tasks 10000 --out /tmp/b.wmcdp [--conversation-kb 100] [--huge-mb 5]
    python -m benchmarks.synth records   --records 100000 --out /tmp/records
    python -m benchmarks.synth collected --tasks 10000 --raters 3 --out /tmp/collected --study /tmp/study
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wmcdp_desktop.core.models import (
    BenchmarkItem,
    BundleManifest,
    CandidateResponse,
    Case,
    RatingRecord,
    Rubric,
    Study,
    Task,
)
from wmcdp_desktop.core.models.rating_record import RECORD_SCHEMA_ID, RECORD_SCHEMA_VERSION
from wmcdp_desktop.core.models.rubric import DIMENSION_FIELDS
from wmcdp_desktop.core.record_rules import record_problems
from wmcdp_desktop.core.resources import default_rubric_path
from wmcdp_desktop.core.strict_json import dumps_canonical

CREATED_AT = "2026-11-01T09:00:00Z"
STUDY_ID = "SYN-STUDY"
STUDY_TITLE = "Synthetic benchmark study"
MODELS = ("model-alpha", "model-beta", "model-gamma")
DOMAINS = ("WM-DOM-OCD", "WM-DOM-GAD", "WM-DOM-SEPARATION", "WM-DOM-SOCIAL")
SCENARIO_TYPES = ("WM-SCN-REASSURANCE", "WM-SCN-ACCOMMODATION", "WM-SCN-EXPOSURE", "WM-SCN-SCHOOL")
ROLES = ("parent", "clinician", "child", "assistant")
LABELS = {"parent": "Mother", "clinician": "Clinician", "child": "Sam (age 9)", "assistant": "Assistant"}

_VOCABULARY = (
    "the child worries about school every morning and asks again whether everything will be fine "
    "parent reassurance ritual exposure ladder anxiety compulsion checking washing bedtime routine "
    "therapist suggests small steps praise courage notice feelings validate without accommodating "
    "family plan week homework practice fear thermometer rating calm breathing brave talk together "
    "doctor teacher classroom friends sleepover separation stomach ache panic avoidance tolerate "
    "uncertainty gently coach instead of answering repeated questions; she cried, he refused, they "
    "agreed. Why now? What helps? 😊 naïve café — déjà vu: «quoted» ‘single’ <b>not html</b> *not md*"
)
_WORDS = _VOCABULARY.split()


def prose(rng: random.Random, nbytes: int, *, single_line: bool = True) -> str:
    """Readable-looking text of about ``nbytes`` UTF-8 bytes (never fewer), one line unless told."""
    if nbytes <= 0:
        return ""
    avg = sum(len(w.encode()) + 1 for w in _WORDS) / len(_WORDS)
    words: list[str] = []
    size = 0
    while size < nbytes:
        chunk = rng.choices(_WORDS, k=max(16, int((nbytes - size) / avg) + 8))
        words.extend(chunk)
        size += sum(len(w.encode()) + 1 for w in chunk)
    text = " ".join(words)
    data = text.encode()[:nbytes]
    text = data.decode("utf-8", errors="ignore").rstrip() or "text"
    if not single_line:
        # A paragraph break about every 600 characters.
        parts = text.split(". ")
        text = ".\n\n".join(". ".join(parts[i : i + 8]) for i in range(0, len(parts), 8))
    return text


# --------------------------------------------------------------------------------------------------
# Rubric


def rubric_obj() -> dict[str, Any]:
    """The shipped default rubric when present, else a generated valid one."""
    path = default_rubric_path()
    if path.is_file():
        obj: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        Rubric.model_validate(obj)
        return obj
    scale = {"min": 1, "max": 5, "anchors": [{"level": i, "text": f"Level {i} anchor text."} for i in range(1, 6)]}
    dims = [
        {
            "id": dim_id,
            "field": fld,
            "label": f"Dimension {dim_id[-1]}",
            "description": f"What {fld.replace('_', ' ')} means.",
            "scale": scale,
            "allow_na": dim_id in ("WM-RUB-003", "WM-RUB-004"),
        }
        for dim_id, fld in DIMENSION_FIELDS.items()
    ]
    guidance = {k: f"When {k}." for k in ("minor", "moderate", "major", "critical")}
    fms = [
        {"id": f"WM-FM-SYN-{i:02d}", "label": f"Failure {i}", "description": "A failure.", "severity_guidance": guidance}
        for i in range(1, 13)
    ]
    obj = {
        "document_type": "wmcdp_rubric",
        "contract_id": "WM-CDP-RUBRIC",
        "contract_version": "1.0.0",
        "title": "Synthetic rubric",
        "instructions": "Rate each response.",
        "dimensions": dims,
        "failure_modes": fms,
        "confidence_scale": scale,
    }
    Rubric.model_validate(obj)
    return obj


# --------------------------------------------------------------------------------------------------
# Study-level pieces, addressed by task index (a task = item i//2, response i%2)


@dataclass(frozen=True)
class Shape:
    """Sizes of the generated text."""

    conversation_bytes: int = 2_000
    """Total bytes of the conversation turns of each scenario."""
    response_bytes: int = 1_200
    """Bytes of each candidate response."""
    huge_response_bytes: int = 0
    """When > 0, the first task's response is this many bytes on one line."""
    huge_is_one_token: bool = False
    """The huge response without a single space: one unbroken token (issue 13 item 4)."""
    seed: int = 0
    """Randomness seed."""


def _h(*parts: object) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()


def item_id(i: int) -> str:
    return f"SYN-ITEM-{i:06d}"


def case_id(i: int) -> str:
    return f"SYN-CASE-{i:06d}"


def task_id(t: int) -> str:
    return f"T{t:06d}-{_h('task', t)[:8]}"


def response_id(t: int) -> str:
    return f"resp-{t:06d}"


def candidate_response_id(t: int) -> str:
    return f"cr-{_h('cr', t)[:20]}"


def model_of(t: int) -> str:
    # The two responses of an item come from two different models.
    return MODELS[(t // 2 + t % 2) % len(MODELS)]


def scenario_obj(i: int, shape: Shape) -> dict[str, Any]:
    rng = random.Random(shape.seed * 1_000_003 + i)
    n_turns = max(2, min(60, shape.conversation_bytes // 1_500 + 2))
    per_turn = max(20, shape.conversation_bytes // n_turns)
    turns = []
    for k in range(n_turns):
        role = ROLES[k % len(ROLES)]
        turns.append({"role": role, "speaker_label": LABELS[role], "text": prose(rng, per_turn, single_line=False)})
    return {
        "context": {
            "age_band": "8-10",
            "setting": "parent coaching chat",
            "speakers": ["parent", "clinician", "child", "assistant"],
            "summary": prose(rng, 200),
        },
        "turns": turns,
    }


def case_obj(i: int, shape: Shape) -> dict[str, Any]:
    return {
        "document_type": "wmcdp_case",
        "case_id": case_id(i),
        "case_version": "1.0.0",
        "title": f"Synthetic case {i}",
        "clinical_domain_id": DOMAINS[i % len(DOMAINS)],
        "scenario_type_ids": [SCENARIO_TYPES[i % len(SCENARIO_TYPES)]],
        "scenario": scenario_obj(i, shape),
    }


def item_obj(i: int, rubric: dict[str, Any]) -> dict[str, Any]:
    return {
        "documentType": "benchmark_item",
        "schemaVersion": "1.0.0",
        "benchmarkItemId": item_id(i),
        "benchmarkVersion": "1.0.0",
        "split": "test",
        "contractRef": {"contractId": rubric["contract_id"], "contractVersion": rubric["contract_version"]},
        "caseRef": {"caseId": case_id(i), "caseVersion": "1.0.0"},
        "sliceTags": ["synthetic"],
        "challengeAttributes": [],
        "goldStandard": {
            "criterionGold": [
                {
                    "criterionId": "WM-RUB-008",
                    "applicability": "applies",
                    "acceptableVerdicts": ["satisfied", "partially_satisfied"],
                    "severity": "none",
                    "positiveEvidenceSpans": [],
                    "negativeEvidenceSpans": [],
                    "omissionDescriptions": [],
                    "notes": "Synthetic gold.",
                }
            ],
            "ambiguityStatus": "clear",
            "acceptableDecisions": [{"target": "candidate_response", "acceptableActions": ["accept"]}],
        },
        "adjudication": {
            "method": "single_expert",
            "adjudicatorCount": 1,
            "domainExpertCount": 1,
            "blindToAutoQA": True,
            "blindToReviewerLabel": True,
            "disagreementTypes": [],
            "completedAt": CREATED_AT,
        },
        "leakageControl": {
            "allowedForPromptDevelopment": False,
            "heldOutProject": False,
            "firstFrozenAt": CREATED_AT,
            "accessPolicy": "Study raters only.",
        },
        "weight": 1.0,
    }


def response_text(t: int, shape: Shape) -> str:
    if t == 0 and shape.huge_response_bytes > 0:
        text = prose(random.Random(shape.seed + 5), shape.huge_response_bytes, single_line=True)
        return text.replace(" ", "") if shape.huge_is_one_token else text
    return prose(random.Random(shape.seed * 7_919 + t + 17), shape.response_bytes, single_line=False)


def response_obj(t: int, shape: Shape) -> dict[str, Any]:
    return {
        "response_id": response_id(t),
        "benchmark_item_id": item_id(t // 2),
        "model_source": model_of(t),
        "text": response_text(t, shape),
    }


def task_obj(t: int, shape: Shape, scenario: dict[str, Any] | None = None) -> dict[str, Any]:
    i = t // 2
    return {
        "document_type": "wmcdp_task",
        "task_id": task_id(t),
        "benchmark_item_id": item_id(i),
        "clinical_domain_id": DOMAINS[i % len(DOMAINS)],
        "scenario_type_ids": [SCENARIO_TYPES[i % len(SCENARIO_TYPES)]],
        "scenario": scenario if scenario is not None else scenario_obj(i, shape),
        "candidate_response_id": candidate_response_id(t),
        "candidate_response_text": response_text(t, shape),
    }


def _dump(obj: Any) -> bytes:
    return dumps_canonical(obj).encode("utf-8")


# --------------------------------------------------------------------------------------------------
# Study folder


def write_study(
    out: Path,
    n_tasks: int,
    *,
    n_raters: int = 5,
    overlap: int = 3,
    shape: Shape = Shape(),
    validate: bool = True,
) -> Path:
    """A study folder with ``n_tasks`` tasks (``n_tasks // 2`` items, two responses each)."""
    if out.exists():
        shutil.rmtree(out)
    (out / "cases").mkdir(parents=True)
    (out / "items").mkdir()
    (out / "responses").mkdir()
    rubric = rubric_obj()
    study = {
        "document_type": "wmcdp_study",
        "study_id": STUDY_ID,
        "title": STUDY_TITLE,
        "raters": [{"rater_id": f"R{r:02d}", "role_or_background": "child psychologist"} for r in range(1, n_raters + 1)],
        "overlap": overlap,
        "seed": shape.seed,
        "rater_splits": ["test"],
        "created_at": CREATED_AT,
    }
    if validate:
        Study.model_validate(study)
    (out / "study.json").write_bytes(_dump(study))
    (out / "rubric.json").write_bytes(_dump(rubric))
    n_items = max(1, (n_tasks + 1) // 2)
    lines: dict[str, list[str]] = {m: [] for m in MODELS}
    for i in range(n_items):
        case = case_obj(i, shape)
        item = item_obj(i, rubric)
        if validate:
            Case.model_validate(case)
            BenchmarkItem.model_validate(item)
        (out / "cases" / f"{case_id(i)}.json").write_bytes(_dump(case))
        (out / "items" / f"{item_id(i)}.json").write_bytes(_dump(item))
        for t in (2 * i, 2 * i + 1):
            if t >= n_tasks:
                break
            resp = response_obj(t, shape)
            if validate:
                CandidateResponse.model_validate(resp)
            lines[resp["model_source"]].append(json.dumps(resp, ensure_ascii=False, sort_keys=True))
    for model, rows in lines.items():
        if rows:
            (out / "responses" / f"{model}.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return out


# --------------------------------------------------------------------------------------------------
# Bundles


@dataclass
class BundleInfo:
    """What :func:`write_bundle` made."""

    path: Path
    bundle_id: str
    manifest_sha256: str
    task_ids: list[str]
    members: dict[str, bytes] = field(default_factory=dict, repr=False)
    """Member bytes (only when ``keep_bytes``)."""


def bundle_files(
    n_tasks: int, *, shape: Shape = Shape(), rater_id: str | None = "R01", validate: bool = True,
    bundle_id: str | None = None,
) -> tuple[dict[str, bytes], str, list[str]]:
    """The members of a bundle (``bundle.json`` first) as bytes, its id, and its task ids."""
    rubric = rubric_obj()
    rubric_bytes = _dump(rubric)
    bid = bundle_id or f"SYN-BUNDLE-{n_tasks}-{shape.conversation_bytes}-{shape.huge_response_bytes}"
    tasks: dict[str, bytes] = {}
    order: list[str] = []
    scenarios: dict[int, dict[str, Any]] = {}
    for t in range(n_tasks):
        i = t // 2
        if i not in scenarios:
            scenarios.clear()
            scenarios[i] = scenario_obj(i, shape)
        task = task_obj(t, shape, scenarios[i])
        if validate:
            Task.model_validate(task)
        tasks[f"tasks/{task['task_id']}.json"] = _dump(task)
        order.append(task["task_id"])
    rng = random.Random(shape.seed)
    rng.shuffle(order)
    if shape.huge_response_bytes > 0:
        # The task with the huge response is shown first.
        order.remove(task_id(0))
        order.insert(0, task_id(0))
    files = [{"path": "rubric.json", "sha256": hashlib.sha256(rubric_bytes).hexdigest(), "size": len(rubric_bytes)}]
    files += [
        {"path": p, "sha256": hashlib.sha256(b).hexdigest(), "size": len(b)} for p, b in sorted(tasks.items())
    ]
    manifest: dict[str, Any] = {
        "document_type": "wmcdp_bundle",
        "format_version": "1.0.0",
        "bundle_id": bid,
        "study_id": STUDY_ID,
        "study_title": STUDY_TITLE,
        "created_at": CREATED_AT,
        "task_order": order,
        "files": files,
    }
    if rater_id:
        manifest["rater_id"] = rater_id
        manifest["rater_role_or_background"] = "child psychologist"
    if validate:
        BundleManifest.model_validate(manifest)
    members = {"bundle.json": _dump(manifest), "rubric.json": rubric_bytes, **tasks}
    return members, bid, order


def write_bundle(
    path: Path,
    n_tasks: int,
    *,
    shape: Shape = Shape(),
    rater_id: str | None = "R01",
    as_zip: bool = True,
    validate: bool = True,
) -> BundleInfo:
    """A rater bundle with ``n_tasks`` tasks: a ``.wmcdp`` zip, or a folder when ``as_zip`` is false."""
    members, bid, order = bundle_files(n_tasks, shape=shape, rater_id=rater_id, validate=validate)
    if path.exists():
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    if as_zip:
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
            for name, data in members.items():
                zf.writestr(name, data)
    else:
        (path / "tasks").mkdir(parents=True)
        for name, data in members.items():
            (path / name).write_bytes(data)
    return BundleInfo(path, bid, hashlib.sha256(members["bundle.json"]).hexdigest(), order)


# --------------------------------------------------------------------------------------------------
# Rating records


def _latent(t: int) -> int:
    return 1 + int(_h("q", t)[:4], 16) % 5


def record_obj(
    t: int,
    rater: int,
    rubric: dict[str, Any],
    *,
    shape: Shape = Shape(),
    bundle_id: str = "SYN-BUNDLE",
    bundle_sha256: str = "0" * 64,
    response: str | None = None,
    model_source: str | None = None,
    revision: int = 1,
) -> dict[str, Any]:
    """A valid rating record of task ``t`` by rater number ``rater`` (scores near a per-task latent value)."""
    i = t // 2
    rng = random.Random(t * 1_009 + rater * 7 + revision)
    q = _latent(t)
    scoring: dict[str, Any] = {}
    for dim in rubric["dimensions"]:
        if dim["allow_na"] and rng.random() < 0.05:
            scoring[dim["field"]] = "N/A"
        else:
            lo, hi = dim["scale"]["min"], dim["scale"]["max"]
            scoring[dim["field"]] = max(lo, min(hi, q + rng.choice((-1, 0, 0, 0, 1))))
    fms = [fm["id"] for fm in rubric["failure_modes"]]
    annotations = {fm: "none" for fm in fms}
    notes = {}
    if q <= 2:
        fm = fms[t % len(fms)]
        annotations[fm] = rng.choice(("minor", "moderate", "major"))
        notes[fm] = "The response answers the reassurance question again instead of coaching."
    rec: dict[str, Any] = {
        "envelope": {
            "schema_id": RECORD_SCHEMA_ID,
            "schema_version": RECORD_SCHEMA_VERSION,
            "record_id": _h("rec", t, rater, revision)[:32],
            "task_id": task_id(t),
            "bundle_id": bundle_id,
            "bundle_sha256": bundle_sha256,
            "app_version": "0.1.0",
            "started_at": "2026-11-20T10:00:00Z",
            "submitted_at": "2026-11-20T11:07:30+01:00",
            "revision": revision,
        },
        "benchmark_item_id": item_id(i),
        "clinical_domain_id": DOMAINS[i % len(DOMAINS)],
        "scenario_type_ids": [SCENARIO_TYPES[i % len(SCENARIO_TYPES)]],
        "candidate_response_id": candidate_response_id(t),
        "candidate_response_text": response if response is not None else response_text(t, shape),
        "rater_id": f"R{rater:02d}",
        "rater_role_or_background": "child psychologist",
        "scoring": scoring,
        "failure_mode_annotations": annotations,
        "clinician_notes": {
            "brief_rationale": "Validates the worry, then coaches the parent to reduce reassurance step by step.",
            "main_concern": "Could say more about the school plan.",
            "confidence_rating": 1 + rng.randrange(5),
        },
        "time_spent_scoring_seconds": 60 + rng.randrange(600),
    }
    if notes:
        rec["failure_mode_evidence_notes"] = notes
    if model_source is not None:
        rec["model_source"] = model_source
    return rec


def iter_records(
    n_records: int, *, n_raters: int = 10, shape: Shape = Shape(), validate: bool = True
) -> Iterator[tuple[str, bytes]]:
    """``(relative_path, bytes)`` of ``n_records`` records: raters 1..n, each rating tasks 0..k-1."""
    rubric = rubric_obj()
    rubric_model = Rubric.model_validate(rubric)
    per_rater = -(-n_records // n_raters)
    texts: dict[int, str] = {}
    count = 0
    for r in range(1, n_raters + 1):
        for t in range(per_rater):
            if count >= n_records:
                return
            if t not in texts:
                texts[t] = response_text(t, shape)
            rec = record_obj(t, r, rubric, shape=shape, response=texts[t])
            if validate:
                model = RatingRecord.model_validate(rec)
                if count % 997 == 0:
                    problems = record_problems(model, rubric_model, None)
                    assert not problems, problems
            count += 1
            yield f"R{r:02d}/{task_id(t)}.r1.json", _dump(rec)


def write_records(out: Path, n_records: int, *, n_raters: int = 10, shape: Shape = Shape(), validate: bool = True) -> Path:
    """A folder of ``n_records`` record files (``R01/<task_id>.r1.json`` ...)."""
    if out.exists():
        shutil.rmtree(out)
    made: set[Path] = set()
    for rel, data in iter_records(n_records, n_raters=n_raters, shape=shape, validate=validate):
        target = out / rel
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        target.write_bytes(data)
    return out


def write_collected(
    out: Path, n_tasks: int, *, n_raters: int = 3, shape: Shape = Shape(), validate: bool = True
) -> Path:
    """``OUT/ratings.jsonl`` as ``wmcdp results collect`` writes it: every rater rates every task,
    ``model_source`` filled in. Pairs with :func:`write_study` of the same ``n_tasks`` and ``shape``."""
    out.mkdir(parents=True, exist_ok=True)
    rubric = rubric_obj()
    with (out / "ratings.jsonl").open("w", encoding="utf-8") as fh:
        for r in range(1, n_raters + 1):
            for t in range(n_tasks):
                rec = record_obj(t, r, rubric, shape=shape, model_source=model_of(t))
                if validate:
                    RatingRecord.model_validate(rec)
                fh.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":"), sort_keys=True) + "\n")
    return out / "ratings.jsonl"


def write_collected_parquet(out: Path, n_tasks: int, *, n_raters: int = 3, shape: Shape = Shape()) -> Path:
    """:func:`write_collected`, plus ``ratings.parquet`` and ``collect-report.json`` (its SHA-256) made from
    the same records by the code ``wmcdp results collect`` writes them with: what ``wmcdp report`` reads."""
    from wmcdp_desktop.coordinator.collect import codebook

    write_collected(out, n_tasks, n_raters=n_raters, shape=shape)
    lines = (out / "ratings.jsonl").read_text(encoding="utf-8").splitlines()
    records = sorted((json.loads(line) for line in lines), key=lambda r: (r["rater_id"], r["envelope"]["task_id"]))
    fm_ids = sorted({fm for r in records for fm in r["failure_mode_annotations"]})
    columns = codebook.table_columns(fm_ids, Rubric.model_validate(rubric_obj()))
    table = codebook.table_data(records, columns, fm_ids, {task_id(t): "test" for t in range(n_tasks)}, {})
    data = codebook.parquet_bytes(columns, table, title="ratings")
    (out / codebook.PARQUET_NAME).write_bytes(data)
    report = {"ok": True, "study_id": "SYN-STUDY", "outputs": {codebook.PARQUET_NAME: hashlib.sha256(data).hexdigest()}}
    (out / "collect-report.json").write_text(json.dumps(report), encoding="utf-8")
    return out / codebook.PARQUET_NAME


# --------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.synth", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    for name in ("study", "bundle", "records", "collected"):
        p = sub.add_parser(name)
        p.add_argument("--out", type=Path, required=True)
        p.add_argument("--tasks", type=int, default=10)
        p.add_argument("--records", type=int, default=1000)
        p.add_argument("--raters", type=int, default=5)
        p.add_argument("--overlap", type=int, default=3)
        p.add_argument("--conversation-kb", type=float, default=2.0)
        p.add_argument("--response-kb", type=float, default=1.2)
        p.add_argument("--huge-mb", type=float, default=0.0, help="first response: this many MB on one line")
        p.add_argument("--folder", action="store_true", help="bundle: write a folder instead of a zip")
        p.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    shape = Shape(
        conversation_bytes=int(args.conversation_kb * 1000),
        response_bytes=int(args.response_kb * 1000),
        huge_response_bytes=int(args.huge_mb * 1_000_000),
        seed=args.seed,
    )
    if args.what == "study":
        write_study(args.out, args.tasks, n_raters=args.raters, overlap=args.overlap, shape=shape)
    elif args.what == "bundle":
        write_bundle(args.out, args.tasks, shape=shape, as_zip=not args.folder)
    elif args.what == "records":
        write_records(args.out, args.records, n_raters=args.raters, shape=shape)
    else:
        write_collected(args.out, args.tasks, n_raters=args.raters, shape=shape)
    print(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
