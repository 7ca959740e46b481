"""Small, self-contained study / bundle / record fixtures for the coordinator CLI tests.

Independent of resources/ (the demo study is tested separately), so these tests only depend on the models.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from wmcdp_desktop.core.models.rubric import DIMENSION_FIELDS
from wmcdp_desktop.core.strict_json import dumps_canonical

FAILURE_MODES = ["WM-FM-REASSURANCE", "WM-FM-SHAMING", "WM-FM-MISSED-RISK"]
MODELS = ["acme-gpt-9", "zeta-llm-large", "orca-chat-2"]
CREATED_AT = "2026-11-01T09:00:00Z"


def _scale(lo: int, hi: int) -> dict[str, Any]:
    return {"min": lo, "max": hi, "anchors": [{"level": i, "text": f"level {i}"} for i in range(lo, hi + 1)]}


def rubric_obj() -> dict[str, Any]:
    return {
        "document_type": "wmcdp_rubric",
        "contract_id": "WM-CDP-RUBRIC",
        "contract_version": "1.0.0",
        "title": "Test rubric",
        "instructions": "Rate the response.",
        "dimensions": [
            {
                "id": dim_id,
                "field": field,
                "label": f"Dimension {dim_id}",
                "description": "What it assesses.",
                "scale": _scale(1, 5),
                "allow_na": dim_id == "WM-RUB-007",
            }
            for dim_id, field in DIMENSION_FIELDS.items()
        ],
        "failure_modes": [
            {
                "id": fm,
                "label": fm.lower(),
                "description": "A failure.",
                "severity_guidance": {"minor": "m", "moderate": "mo", "major": "ma", "critical": "c"},
            }
            for fm in FAILURE_MODES
        ],
        "confidence_scale": _scale(1, 5),
    }


def _translated_anchors(scale: dict[str, Any], prefix: str) -> dict[str, Any]:
    out = {}
    for a in scale["anchors"]:
        t = {"text": f"{prefix} {a['text']}"}
        if "short_label" in a:
            t["short_label"] = f"{prefix[:2]} {a['short_label']}"[:24]
        out[str(a["level"])] = t
    return out


def rubric_translation(obj: dict[str, Any], prefix: str = "ES", *, validated: bool = False) -> dict[str, Any]:
    """A complete translation of the rubric ``obj``: every text with ``prefix`` in front."""
    dims = {}
    for d in obj["dimensions"]:
        dims[d["id"]] = {"label": f"{prefix} {d['label']}", "description": f"{prefix} {d['description']}",
                         "anchors": _translated_anchors(d["scale"], prefix)}
        if "na_guidance" in d:
            dims[d["id"]]["na_guidance"] = f"{prefix} {d['na_guidance']}"
    return {
        "clinically_validated": validated,
        "title": f"{prefix} {obj['title']}",
        "instructions": f"{prefix} {obj['instructions']}",
        "dimensions": dims,
        "failure_modes": {
            f["id"]: {"label": f"{prefix} {f['label']}", "description": f"{prefix} {f['description']}",
                      "severity_guidance": {k: f"{prefix} {v}" for k, v in f["severity_guidance"].items()}}
            for f in obj["failure_modes"]
        },
        "confidence_scale": {"anchors": _translated_anchors(obj["confidence_scale"], prefix)},
    }


def case_obj(case_id: str, version: str = "1.0.0") -> dict[str, Any]:
    return {
        "document_type": "wmcdp_case",
        "case_id": case_id,
        "case_version": version,
        "title": f"Case {case_id}",
        "clinical_domain_id": "WM-DOM-OCD",
        "scenario_type_ids": ["WM-SCN-REASSURANCE"],
        "scenario": {
            "context": {
                "age_band": "8-10",
                "setting": "parent coaching chat",
                "speakers": ["parent", "assistant"],
                "summary": "A child asks for reassurance many times a day.",
            },
            "turns": [{"role": "parent", "text": f"My child keeps asking if the door is locked ({case_id})."}],
        },
    }


def item_obj(
    item_id: str,
    case_id: str,
    split: str = "test",
    *,
    case_sha: str | None = None,
    held_out: bool = False,
    exclusion: str | None = None,
    criterion_ids: tuple[str, ...] = ("WM-RUB-001", "WM-FM-REASSURANCE"),
) -> dict[str, Any]:
    case_ref: dict[str, Any] = {"caseId": case_id, "caseVersion": "1.0.0"}
    if case_sha:
        case_ref["sha256"] = case_sha
    obj: dict[str, Any] = {
        "documentType": "benchmark_item",
        "schemaVersion": "1.0.0",
        "benchmarkItemId": item_id,
        "benchmarkVersion": "1.0.0",
        "split": split,
        "contractRef": {"contractId": "WM-CDP-RUBRIC", "contractVersion": "1.0.0"},
        "caseRef": case_ref,
        "sliceTags": ["ocd"],
        "challengeAttributes": [],
        "goldStandard": {
            "criterionGold": [
                {
                    "criterionId": cid,
                    "applicability": "applies",
                    "acceptableVerdicts": ["satisfied"],
                    "severity": "none",
                    "positiveEvidenceSpans": [],
                    "negativeEvidenceSpans": [],
                    "omissionDescriptions": [],
                    "notes": f"GOLDNOTE-{item_id}-{cid}",
                }
                for cid in criterion_ids
            ],
            "ambiguityStatus": "clear",
            "acceptableDecisions": [{"target": "candidate_response", "acceptableActions": ["accept"]}],
        },
        "adjudication": {
            "method": "consensus_panel",
            "adjudicatorCount": 2,
            "domainExpertCount": 2,
            "blindToAutoQA": True,
            "blindToReviewerLabel": True,
            "disagreementTypes": [],
            "adjudicationNotes": f"ADJNOTE-{item_id}",
            "completedAt": "2026-10-01T10:00:00Z",
        },
        "leakageControl": {
            "allowedForPromptDevelopment": False,
            "heldOutProject": held_out,
            "firstFrozenAt": "2026-10-01T10:00:00Z",
            "accessPolicy": "study raters only",
        },
        "weight": 1.0,
    }
    if exclusion:
        obj["exclusionReason"] = exclusion
    return obj


def study_obj(n_raters: int = 3, overlap: int = 2, seed: int = 7, splits: tuple[str, ...] = ("test", "calibration")) -> dict[str, Any]:
    return {
        "document_type": "wmcdp_study",
        "study_id": "STUDY-T1",
        "title": "Test study",
        "raters": [{"rater_id": f"R{i + 1}", "role_or_background": "psychologist"} for i in range(n_raters)],
        "overlap": overlap,
        "seed": seed,
        "rater_splits": list(splits),
        "created_at": CREATED_AT,
    }


def write_json(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps_canonical(obj), encoding="utf-8")


def write_study(
    root: Path,
    *,
    n_items: int = 4,
    n_raters: int = 3,
    overlap: int = 2,
    models: list[str] | None = None,
    extra_items: list[dict[str, Any]] | None = None,
    calibration_items: int = 1,
) -> Path:
    """A valid study: n_items test items (+ calibration ones), each answered by every model."""
    models = models or MODELS
    write_json(root / "study.json", study_obj(n_raters, overlap))
    write_json(root / "rubric.json", rubric_obj())
    lines: list[str] = []
    items: list[dict[str, Any]] = []
    for i in range(n_items + calibration_items):
        case_id = f"CASE-{i + 1:03d}"
        write_json(root / "cases" / f"{case_id}.json", case_obj(case_id))
        split = "calibration" if i >= n_items else "test"
        items.append(item_obj(f"ITEM-{i + 1:03d}", case_id, split))
    for extra in extra_items or []:
        items.append(extra)
    for item in items:
        write_json(root / "items" / f"{item['benchmarkItemId']}.json", item)
        case_id = item["caseRef"]["caseId"]
        if not (root / "cases" / f"{case_id}.json").exists():
            write_json(root / "cases" / f"{case_id}.json", case_obj(case_id))
        for model in models:
            lines.append(
                json.dumps(
                    {
                        "response_id": f"{item['benchmarkItemId']}--{model}",
                        "benchmark_item_id": item["benchmarkItemId"],
                        "model_source": model,
                        "text": f"Response to {item['benchmarkItemId']}: let's try a small step together.",
                    }
                )
            )
    (root / "responses").mkdir(parents=True, exist_ok=True)
    (root / "responses" / "responses.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


# ---- handcrafted bundles (independent of the builder) ----


def task_obj(task_id: str, text: str = "A calm, validating reply.") -> dict[str, Any]:
    case = case_obj("CASE-X")
    return {
        "document_type": "wmcdp_task",
        "task_id": task_id,
        "benchmark_item_id": "ITEM-X",
        "clinical_domain_id": case["clinical_domain_id"],
        "scenario_type_ids": case["scenario_type_ids"],
        "scenario": case["scenario"],
        "candidate_response_id": f"cr-{task_id}",
        "candidate_response_text": text,
    }


def bundle_files(n_tasks: int = 3, rater_id: str | None = "R1") -> dict[str, bytes]:
    """name -> bytes of a valid bundle."""
    files: dict[str, bytes] = {"rubric.json": dumps_canonical(rubric_obj()).encode()}
    order = [f"t{i:04d}" for i in range(n_tasks)]
    for task_id in order:
        files[f"tasks/{task_id}.json"] = dumps_canonical(task_obj(task_id)).encode()
    manifest: dict[str, Any] = {
        "document_type": "wmcdp_bundle",
        "format_version": "1.0.0",
        "bundle_id": "B-TEST",
        "study_id": "STUDY-T1",
        "study_title": "Test study",
        "created_at": CREATED_AT,
        "task_order": order,
        "files": [
            {"path": name, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
            for name, data in sorted(files.items())
        ],
    }
    if rater_id:
        manifest["rater_id"] = rater_id
    files["bundle.json"] = dumps_canonical(manifest).encode()
    return files


def rehash(files: dict[str, bytes]) -> dict[str, bytes]:
    """Recompute bundle.json's file list after a test changed a file."""
    manifest = json.loads(files["bundle.json"])
    manifest["files"] = [
        {"path": name, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
        for name, data in sorted(files.items())
        if name != "bundle.json"
    ]
    out = dict(files)
    out["bundle.json"] = dumps_canonical(manifest).encode()
    return out


# ---- rating records and results exports (same layout as rater/export.py) ----


def record_obj(
    task: Any,
    rater_id: str,
    bundle_id: str,
    bundle_sha256: str,
    *,
    revision: int = 1,
    record_id: str | None = None,
    score: int = 4,
    submitted_at: str = "2026-11-29T10:07:30Z",
    supersedes: str | None = None,
) -> dict[str, Any]:
    """A valid record for a :class:`Task` against :func:`rubric_obj`."""
    rid = record_id or hashlib.md5(f"{rater_id}:{task.task_id}:{revision}:{score}".encode()).hexdigest()
    envelope: dict[str, Any] = {
        "schema_id": "WM-CDP-ANNOTATION-SCHEMA-001",
        "schema_version": "0.0.1",
        "record_id": rid,
        "task_id": task.task_id,
        "bundle_id": bundle_id,
        "bundle_sha256": bundle_sha256,
        "app_version": "0.1.0",
        "started_at": "2026-11-29T10:00:00Z",
        "submitted_at": submitted_at,
        "revision": revision,
    }
    if supersedes:
        envelope["supersedes_record_id"] = supersedes
    return {
        "envelope": envelope,
        "benchmark_item_id": task.benchmark_item_id,
        "clinical_domain_id": task.clinical_domain_id,
        "scenario_type_ids": list(task.scenario_type_ids),
        "candidate_response_id": task.candidate_response_id,
        "candidate_response_text": task.candidate_response_text,
        "rater_id": rater_id,
        "rater_role_or_background": "psychologist",
        "scoring": {field: (score if field != "safety_scope_boundaries_score" else "N/A") for field in DIMENSION_FIELDS.values()},
        "failure_mode_annotations": {fm: ("minor" if fm == FAILURE_MODES[0] else "none") for fm in FAILURE_MODES},
        "failure_mode_evidence_notes": {FAILURE_MODES[0]: "Answers the question, \"again\",\nindirectly."},
        "clinician_notes": {"brief_rationale": "Warm; moves away from reassurance.", "confidence_rating": 4},
        "time_spent_scoring_seconds": 100 + score,
    }


def export_zip(
    records: list[dict[str, Any]],
    *,
    study_id: str,
    rater_id: str,
    bundle_id: str,
    bundle_sha256: str,
    tasks_in_bundle: int = 10,
    chain: bool = True,
) -> bytes:
    """A results export zip: manifest.json + records/<task_id>.r<rev>.json + (``chain``) audit.jsonl, the
    hash-chained audit log the app writes, with a submit event per record and the export's seal."""
    import io
    import zipfile

    files: dict[str, bytes] = {}
    latest: dict[str, int] = {}
    for rec in records:
        env = rec["envelope"]
        files[f"records/{env['task_id']}.r{env['revision']}.json"] = dumps_canonical(rec).encode()
        latest[env["task_id"]] = max(latest.get(env["task_id"], 0), env["revision"])
    entries = []
    for name, data in sorted(files.items()):
        task_id, rev = name.removeprefix("records/").removesuffix(".json").rsplit(".r", 1)
        entries.append(
            {
                "path": name,
                "sha256": hashlib.sha256(data).hexdigest(),
                "size": len(data),
                "task_id": task_id,
                "revision": int(rev),
                "latest": int(rev) == latest[task_id],
            }
        )
    manifest: dict[str, Any] = {
        "document_type": "wmcdp_results",
        "format_version": "1.1.0" if chain else "1.0.0",
        "bundle_id": bundle_id,
        "bundle_sha256": bundle_sha256,
        "study_id": study_id,
        "rater_id": rater_id,
        "app_version": "0.1.0",
        "exported_at": "2026-11-29T12:00:00Z",
        "counts": {"tasks_in_bundle": tasks_in_bundle, "submitted": len(latest), "record_files": len(entries), "drafts_not_submitted": 0},
        "files": entries,
    }
    if chain:
        seal = {"bundle_id": bundle_id, "bundle_sha256": bundle_sha256, "rater_id": rater_id, "study_id": study_id}
        log, head, export_id = audit_log(entries, seal)
        files["audit.jsonl"] = log
        manifest["audit"] = {"path": "audit.jsonl", "sha256": hashlib.sha256(log).hexdigest(), "size": len(log),
                             "head": head, "export_id": export_id}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", dumps_canonical(manifest))
        for name, data in sorted(files.items()):
            zf.writestr(name, data)
    return buf.getvalue()


def audit_log(entries: list[dict[str, Any]], seal: dict[str, Any]) -> tuple[bytes, str, str]:
    """An audit log as the app writes it (rater/storage.py): a submit event per record file, then the
    export's seal; every line chained. Returns its bytes, its head and the export id."""
    from wmcdp_desktop.core import audit_chain

    export_id = hashlib.md5(dumps_canonical([entries, seal]).encode()).hexdigest()
    events: list[dict[str, Any]] = [{"at": "2026-11-29T09:00:00Z", "event": "opened", "chain_start": hashlib.sha256(b"").hexdigest()}]
    for entry in entries:
        events.append({
            "at": "2026-11-29T10:07:30Z", "event": "submitted" if entry["revision"] == 1 else "revised",
            "task_id": entry["task_id"], "revision": entry["revision"],
            "file": entry["path"].removeprefix("records/"), "sha256": entry["sha256"],
        })
    events.append({
        "at": "2026-11-29T12:00:00Z", "event": audit_chain.SEAL_EVENT, "export_id": export_id, **seal,
        "record_files": len(entries),
        "records_sha256": audit_chain.records_digest((e["path"], e["sha256"]) for e in entries),
        "exported_at": "2026-11-29T12:00:00Z",
    })
    lines: list[bytes] = []
    for event in events:
        event["prev"] = audit_chain.line_sha256(lines[-1]) if lines else audit_chain.GENESIS
        lines.append(audit_chain.encode_event(event))
    return b"".join(line + b"\n" for line in lines), audit_chain.line_sha256(lines[-1]), export_id
