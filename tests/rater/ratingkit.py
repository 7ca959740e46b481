"""Small rating fixtures shared by the core and UI tests of the rater app: a folder bundle on disk.

Built from the root conftest's sample documents (test rubric: 8 dimensions, N/A only on WM-RUB-005,
3 failure modes). Tasks: T-0001 (plain), T-0002 (calibration), T-0003 (HTML, a link, bidi and
zero-width characters in the response). ``MODEL_NAMES`` never appear in the bundle; tests check they
never appear in the window or in written files either.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

MODEL_NAMES = ["model-x", "gpt-4o", "claude-3-opus", "SecretModel"]
HOSTILE_RESPONSE = (
    "<b>Bold?</b> <a href=\"https://example.invalid/x\">click me</a> <img src=\"file:///etc/passwd\">\n"
    "Keep calm \u202eesrever\u202c and \u200bhidden\u2066text\u2069 end."
)


def _dump(obj: Any) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode("utf-8")


def bundle_docs(sample_docs: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(rubric, tasks) for a small bundle."""
    rubric = sample_docs("Rubric")
    t1 = sample_docs("Task")
    t2 = sample_docs("CalibrationTask")
    t2["candidate_response_id"] = "cr-5d0e42"  # every task its own response: the bundle verifies clean
    t3 = copy.deepcopy(t1)
    t3["task_id"] = "T-0003"
    t3["candidate_response_id"] = "cr-77b2e0"
    t3["candidate_response_text"] = HOSTILE_RESPONSE
    t3["scenario"]["turns"].append({"role": "child", "speaker_label": "Sam (age 9)", "text": "<i>Is it locked?</i>"})
    return rubric, [t1, t2, t3]


def write_bundle_folder(
    root: Path,
    rubric: dict[str, Any],
    tasks: list[dict[str, Any]],
    *,
    rater_id: str | None = None,
    bundle_id: str = "B-test",
) -> Path:
    """Write ``bundle.json`` + ``rubric.json`` + ``tasks/*.json`` with correct sha256s; returns ``root``."""
    (root / "tasks").mkdir(parents=True, exist_ok=True)
    files = []
    rubric_bytes = _dump(rubric)
    (root / "rubric.json").write_bytes(rubric_bytes)
    files.append({"path": "rubric.json", "sha256": hashlib.sha256(rubric_bytes).hexdigest(), "size": len(rubric_bytes)})
    for task in tasks:
        data = _dump(task)
        name = f"tasks/{task['task_id']}.json"
        (root / name).write_bytes(data)
        files.append({"path": name, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)})
    manifest: dict[str, Any] = {
        "document_type": "wmcdp_bundle",
        "format_version": "1.0.0",
        "bundle_id": bundle_id,
        "study_id": "S-test",
        "study_title": "Test study",
        "created_at": "2026-11-01T09:00:00Z",
        "task_order": [t["task_id"] for t in tasks],
        "files": files,
    }
    if rater_id:
        manifest["rater_id"] = rater_id
    (root / "bundle.json").write_bytes(_dump(manifest))
    return root


def make_bundle(root: Path, sample_docs: Any, *, rater_id: str | None = None) -> Path:
    rubric, tasks = bundle_docs(sample_docs)
    return write_bundle_folder(root, rubric, tasks, rater_id=rater_id)


def tree_text(root: Path) -> str:
    """All text of every file under ``root`` (to search for model names)."""
    out = []
    for path in sorted(root.rglob("*")):
        if path.is_file():
            out.append(path.read_bytes().decode("utf-8", errors="replace"))
    return "\n".join(out)
