"""Kill the app process at every step of an autosave and of a submit (+ revision) in an encrypted bundle's data
folder (sealed files, opaque names, a sealed audit line per event): as for a plain folder, a fresh session on the
same folder finds every draft and record (the old or the new version), nothing quarantined, every temporary file
removed, the audit chain over the plain lines whole and its hashes matching the records, and no id or text of the
bundle in any name or byte of the folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kit.sessions import RATER, audit_hash_problems, new_session, valid_drafts, valid_records
from wmcdp_desktop.core.audit_chain import verify_chain
from wmcdp_desktop.rater.session import RatingSession

from . import _kill_child as child
from .helpers import all_orphans, kill_runs
from .tally import Tally

pytestmark = pytest.mark.reliability

READABLE = [b"t0000", b"t0001", b"B-REL", b"STUDY-REL", RATER.encode(), b"first", b"ready to submit", b"revised",
            b"calm, validating"]
"""Ids and texts of the scenario's bundle and ratings: none may be readable in the folder."""


def _reopened(root: Path) -> RatingSession:
    return new_session(root / "bundle", root / "data", rater=RATER, data_key=(root / child.DATA_KEY_FILE).read_bytes())


def _nothing_readable(root: Path) -> None:
    for path in (root / "data").rglob("*"):
        name = str(path.relative_to(root / "data")).encode()
        blob = path.read_bytes() if path.is_file() else b""
        assert not [s for s in READABLE if s in name or s in blob], path


def _chain_whole(s: RatingSession, orphans: list[Path]) -> None:
    mismatches, unaudited = audit_hash_problems(s.store)
    assert mismatches == [] and unaudited == []
    check = verify_chain(s.store.audit_bytes())
    assert check.ok, check.problems
    assert all_orphans(s.store.root.parent.parent.parent) == []
    removed = [e for e in s.store.read_audit() if e.get("event") == "temp_files_removed"]
    assert len(removed) == (1 if orphans else 0)


def test_kill_during_autosave_of_an_encrypted_bundle(tmp_path: Path, tally: Tally) -> None:
    runs = kill_runs(tmp_path, "draft", "setup_draft_encrypted")
    assert {e for e, _ in runs} >= {"mid-write", "written", "fsynced", "before_replace", "replaced", "audit-append"}
    seen = set()
    for event, root in runs:
        with tally.fault(f"kill during autosave of an encrypted bundle ({event})"):
            orphans = all_orphans(root / "data")
            s = _reopened(root)
            assert s.state("t0000") == "draft"
            s.open_task("t0000")
            lost = 0 if s.current is not None and s.store.quarantined == [] else 1
            tally.records(1, lost)
            assert lost == 0 and s.current is not None
            seen.add(s.current.notes["brief_rationale"])
            _chain_whole(s, orphans)
            _nothing_readable(root)
    assert seen == {"first draft", "second draft"}


def test_kill_during_submit_and_revision_of_an_encrypted_bundle(tmp_path: Path, tally: Tally) -> None:
    runs = kill_runs(tmp_path, "submit", "setup_submit_encrypted")
    assert [e for e, _ in runs].count("audit-append") >= 3
    recovered = 0
    for event, root in runs:
        with tally.fault(f"kill during submit/revise of an encrypted bundle ({event})"):
            orphans = all_orphans(root / "data")
            s = _reopened(root)
            records = valid_records(s.store)  # raises if a sealed record does not open
            drafts = valid_drafts(s.store)
            lost = 0 if "t0000.r1.json" in records else 1
            lost += 0 if ("t0001.r1.json" in records or "t0001" in drafts) else 1
            tally.records(2, lost)
            assert lost == 0, (event, sorted(records), sorted(drafts))
            if "t0000.r2.json" in records:
                assert records["t0000.r2.json"].envelope.supersedes_record_id == records["t0000.r1.json"].envelope.record_id
            recovered += any(e.get("event") == "record_recovered" for e in s.store.read_audit())
            assert s.store.quarantined == []
            _chain_whole(s, orphans)
            _nothing_readable(root)
    assert recovered >= 2
