"""Rating records and results exports as the app writes them (``rater/export.py``), and an export as
editable parts: to tamper with it the way an attacker would (every hash in the manifest recomputed, the audit
chain re-forged)."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.kit.studies import FAILURE_MODES
from wmcdp_desktop.core.models.rubric import DIMENSION_FIELDS
from wmcdp_desktop.core.strict_json import dumps_canonical


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


@dataclass
class Export:
    """An export zip as editable parts."""

    manifest: dict[str, Any]
    files: dict[str, bytes]
    """Every member but manifest.json."""

    @classmethod
    def read(cls, path: Path) -> Export:
        with zipfile.ZipFile(path) as zf:
            files = {name: zf.read(name) for name in zf.namelist()}
        return cls(json.loads(files.pop("manifest.json")), files)

    def rehash(self) -> Export:
        """Recompute every SHA-256 and size in the manifest (what anyone can do without a secret)."""
        for entry in self.manifest["files"]:
            data = self.files[entry["path"]]
            entry["sha256"], entry["size"] = hashlib.sha256(data).hexdigest(), len(data)
        audit = self.manifest.get("audit")
        if audit is not None and "audit.jsonl" in self.files:
            data = self.files["audit.jsonl"]
            audit["sha256"], audit["size"] = hashlib.sha256(data).hexdigest(), len(data)
        return self

    def write(self, path: Path) -> Path:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("manifest.json", dumps_canonical(self.manifest))
            for name, data in self.files.items():
                zf.writestr(name, data)
        path.write_bytes(buf.getvalue())
        return path

    def record(self, name: str) -> dict[str, Any]:
        return json.loads(self.files[f"records/{name}"])  # type: ignore[no-any-return]

    def records(self) -> list[dict[str, Any]]:
        """Every record file of the export, parsed, by file name."""
        return [json.loads(data) for name, data in sorted(self.files.items()) if name.startswith("records/")]

    def set_record(self, name: str, obj: dict[str, Any]) -> None:
        self.files[f"records/{name}"] = dumps_canonical(obj).encode("utf-8")

    def audit_lines(self) -> list[bytes]:
        return self.files["audit.jsonl"].split(b"\n")[:-1]

    def set_audit_lines(self, lines: list[bytes]) -> None:
        self.files["audit.jsonl"] = b"".join(line + b"\n" for line in lines)


def reforge_chain(lines: list[bytes], start: int = 0) -> list[bytes]:
    """Recompute every ``prev`` from line ``start`` on (what an attacker who knows the format does)."""
    out = list(lines)
    for i in range(max(start, 1), len(out)):
        event = json.loads(out[i])
        event["prev"] = hashlib.sha256(out[i - 1]).hexdigest()
        out[i] = json.dumps(event, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return out
