"""Rating sessions for the suite (the rater's core API, no Qt): one on a bundle, ratings filled in and
submitted, and what the rater's store holds on disk (records, drafts, the audit chain)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from tests.kit.bundles import make_bundle
from wmcdp_desktop.core.audit_chain import verify_chain
from wmcdp_desktop.core.bundle_reader import OpenedBundle, open_bundle
from wmcdp_desktop.core.documents import load_bytes
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.models.draft import Draft
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.rater.session import RaterIdentity, RatingSession
from wmcdp_desktop.rater.storage import InstanceLock, RaterStore
from wmcdp_desktop.rater.timing import FakeClock

RATER = "R-REL"
"""The rater of the reliability suite's sessions and windows."""


def new_session(bundle: Path | OpenedBundle, data: Path, clock: FakeClock | None = None, *, rater: str = "R01",
                role: str | None = None, lock: InstanceLock | None = None, data_key: bytes | None = None,
                export_public_key: bytes | None = None) -> RatingSession:
    """A rating session of ``rater`` (with ``role``) on ``bundle`` (a folder, a file or opened), storing in
    ``data`` (under ``lock`` when given: the instance lock the window holds). ``data_key``: the store seals
    everything as an encrypted bundle's does (``export_public_key``: its exports are sealed to it)."""
    opened = bundle if isinstance(bundle, OpenedBundle) else open_bundle(bundle)
    clock = clock or FakeClock()
    cipher = None
    if data_key is not None:
        from wmcdp_desktop.core.encryption.data_cipher import DataCipher

        cipher = DataCipher(data_key)
    store = RaterStore(data, opened.manifest.bundle_id, rater, clock, lock, cipher)
    return RatingSession(opened, store, RaterIdentity(rater, role), clock, export_public_key=export_public_key)


def fill(session: RatingSession, score: int = 4, rationale: str = "Warm but keeps reassuring.") -> None:
    """Every dimension scored ``score``, the rationale written: the open task is ready to submit."""
    for dim in session.rubric.dimensions:
        session.set_score(dim.id, score)
    session.set_note("brief_rationale", rationale)


def first_dim(session: RatingSession) -> str:
    return session.rubric.dimensions[0].id


def submit(session: RatingSession, task_id: str, score: int) -> None:
    """Open ``task_id`` (revising its record if it has one), score every dimension ``score``, submit."""
    session.open_task(task_id)
    if session.viewing_record is not None:
        session.revise()
    fill(session, score, "because")
    assert session.submit().ok


def rated_session(tmp_path: Path, sample_docs: Any, data: Path | None = None, clock: FakeClock | None = None) -> RatingSession:
    """The sample-document bundle (in ``tmp_path/bundle``) rated by R01: two tasks submitted, the first
    revised once."""
    bundle_dir = tmp_path / "bundle"
    if not bundle_dir.exists():
        make_bundle(bundle_dir, sample_docs)
    session = new_session(bundle_dir, data or tmp_path / "data", clock)
    for tid, score in (("T-0001", 3), ("T-0002", 4)):
        submit(session, tid, score)
    session.open_task("T-0001")
    session.revise()
    session.set_score("WM-RUB-001", 5)
    assert session.submit().ok
    return session


# ----- what is on disk -----------------------------------------------------------------------------
def store_of(session: RatingSession) -> RaterStore:
    return session.store


def valid_records(store: RaterStore) -> dict[str, RatingRecord]:
    """Record name (``<task>.r<revision>.json``) -> record, for every record file that loads (an encrypted
    bundle's opened with its key); raises on a damaged one."""
    out = {}
    for rf in store.record_files():
        out[rf.name] = load_bytes(RatingRecord, store.record_bytes(rf), str(rf.path))
    return out


def valid_drafts(store: RaterStore) -> dict[str, Draft]:
    """Task id -> draft, for every draft file (an encrypted bundle's opened with its key); raises on a damaged one."""
    out = {}
    if store.cipher is not None:
        for task_id in sorted(store.draft_task_ids()):
            path = store.draft_path(task_id)
            out[task_id] = load_bytes(Draft, store.cipher.open(f"drafts/{task_id}.json", path.read_bytes()), str(path))
        return out
    for path in sorted(store.drafts_dir.glob("*.json")):
        out[path.stem] = load_bytes(Draft, path.read_bytes(), str(path))
    return out


def audit_hash_problems(store: RaterStore) -> tuple[list[str], list[str]]:
    """(mismatches, unaudited): audit lines whose file hash differs from the file on disk, and record
    files the audit log does not mention."""
    mismatches: list[str] = []
    mentioned: set[str] = set()
    files = {rf.name: rf for rf in store.record_files()}  # by the name the log gives (an encrypted folder's are opaque)
    for event in store.read_audit():
        if event.get("event") in ("submitted", "revised", "record_recovered") and "file" in event:
            name = str(event["file"])
            mentioned.add(name)
            if name not in files:
                mismatches.append(f"{name}: in the audit log but missing")
            elif hashlib.sha256(store.record_bytes(files[name])).hexdigest() != event.get("sha256"):
                mismatches.append(f"{name}: hash differs from the audit log")
    unaudited = [name for name in files if name not in mentioned]
    # The log is a hash chain (core/audit_chain.py): every link must hold after any crash. A log whose last
    # line a kill tore is complete again after the next append (which starts on a new line).
    data = store.audit_bytes()
    if data:
        mismatches += [
            f"audit chain: {problem}" for problem in verify_chain(data).problems
            if problem != "the audit log's last line is incomplete"
        ]
    return mismatches, unaudited


def check_loadable(path: Path) -> bool:
    try:
        json.loads(path.read_bytes())
        return True
    except (OSError, ValueError, DocumentError):
        return False
