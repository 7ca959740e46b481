"""Building rating sessions on a small bundle for the suite (core API only, no Qt)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from wmcdp_desktop.core.audit_chain import verify_chain
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.documents import load_bytes
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.models.draft import Draft
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.rater.session import RaterIdentity, RatingSession
from wmcdp_desktop.rater.storage import RaterStore
from wmcdp_desktop.rater.timing import FakeClock

from .bundlefix import bundle_files

RATER = "R-REL"


def write_bundle_folder(root: Path, n_tasks: int = 3, texts: dict[str, str] | None = None) -> Path:
    for name, data in bundle_files(n_tasks, texts).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def new_session(bundle: Path, data: Path, clock: FakeClock | None = None) -> RatingSession:
    opened = open_bundle(bundle)
    clock = clock or FakeClock()
    store = RaterStore(data, opened.manifest.bundle_id, RATER, clock)
    return RatingSession(opened, store, RaterIdentity(RATER, "psychiatrist"), clock)


def fill(session: RatingSession, score: int = 4, rationale: str = "Warm but keeps reassuring.") -> None:
    for dim in session.rubric.dimensions:
        session.set_score(dim.id, score)
    session.set_note("brief_rationale", rationale)


def first_dim(session: RatingSession) -> str:
    return session.rubric.dimensions[0].id


# ----- what is on disk -----------------------------------------------------------------------------
def store_of(session: RatingSession) -> RaterStore:
    return session.store


def valid_records(store: RaterStore) -> dict[str, RatingRecord]:
    """File name -> record, for every record file that loads; raises on a damaged one."""
    out = {}
    for rf in store.record_files():
        out[rf.path.name] = load_bytes(RatingRecord, rf.path.read_bytes(), str(rf.path))
    return out


def valid_drafts(store: RaterStore) -> dict[str, Draft]:
    out = {}
    for path in sorted(store.drafts_dir.glob("*.json")):
        out[path.stem] = load_bytes(Draft, path.read_bytes(), str(path))
    return out


def audit_hash_problems(store: RaterStore) -> tuple[list[str], list[str]]:
    """(mismatches, unaudited): audit lines whose file hash differs from the file on disk, and record
    files the audit log does not mention."""
    mismatches: list[str] = []
    mentioned: set[str] = set()
    for event in store.read_audit():
        if event.get("event") in ("submitted", "revised", "record_recovered") and "file" in event:
            name = str(event["file"])
            mentioned.add(name)
            path = store.records_dir / name
            if not path.exists():
                mismatches.append(f"{name}: in the audit log but missing")
            elif hashlib.sha256(path.read_bytes()).hexdigest() != event.get("sha256"):
                mismatches.append(f"{name}: hash differs from the audit log")
    unaudited = [rf.path.name for rf in store.record_files() if rf.path.name not in mentioned]
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
