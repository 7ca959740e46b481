"""Helpers for the tamper tests: a rated session, its export as parts, and an export rewritten the way an
attacker would (every hash in the manifest recomputed)."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.rater.ratingkit import make_bundle
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.strict_json import dumps_canonical
from wmcdp_desktop.rater.session import RaterIdentity, RatingSession
from wmcdp_desktop.rater.storage import RaterStore
from wmcdp_desktop.rater.timing import FakeClock


def rated_session(tmp_path: Path, sample_docs: Any, data: Path | None = None, clock: FakeClock | None = None) -> RatingSession:
    """Two tasks submitted, the first revised once."""
    clock = clock or FakeClock()
    bundle_dir = tmp_path / "bundle"
    if not bundle_dir.exists():
        make_bundle(bundle_dir, sample_docs)
    bundle = open_bundle(bundle_dir)
    store = RaterStore(data or tmp_path / "data", "B-test", "R01", clock)
    session = RatingSession(bundle, store, RaterIdentity("R01"), clock)
    for tid, score in (("T-0001", 3), ("T-0002", 4)):
        submit(session, tid, score)
    session.open_task("T-0001")
    session.revise()
    session.set_score("WM-RUB-001", 5)
    assert session.submit().ok
    return session


def submit(session: RatingSession, task_id: str, score: int) -> None:
    session.open_task(task_id)
    if session.viewing_record is not None:
        session.revise()
    for dim in session.rubric.dimensions:
        session.set_score(dim.id, score)
    session.set_note("brief_rationale", "because")
    assert session.submit().ok


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
