"""Kill the app process at every step of an autosave, a submit (+ revision) and a results export.

The child process (``_kill_child.py``) runs the real core code (RatingSession, RaterStore, export) and
ends with ``os._exit`` at event N, for every N the operation has: each write (torn in the middle),
after write, after fsync, before and after replace. Afterwards a fresh session on the same folder must
find every draft and record valid (the old or the new version), nothing quarantined, temp files only
under temp names (found by ``orphan_temp_files`` and ignored by the store), and the audit log's hashes
matching the files.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from tests.kit.sessions import RATER, audit_hash_problems, new_session, valid_drafts, valid_records
from wmcdp_desktop.core.documents import load_bytes
from wmcdp_desktop.core.models.results_manifest import ResultsManifest
from wmcdp_desktop.core.zips.reader import open_zip_bytes
from wmcdp_desktop.rater.session import RatingSession

from .helpers import all_orphans, kill_runs
from .tally import Tally

pytestmark = pytest.mark.reliability


def _orphans_cleaned(root: Path, event: str, orphans: list[Path], s: RatingSession) -> None:
    """Temp files the kill left (``orphans``, found before the app reopened) are never taken for a draft
    or record, and are removed (and audited) when the app opens the bundle again (``s``)."""
    expected = event in ("mid-write", "written", "fsynced", "before_replace")
    assert (len(orphans) == 1) == expected, (event, orphans)
    names = {rf.path.name for rf in s.store.record_files()} | {f"{t}.json" for t in s.store.draft_task_ids()}
    assert not any(o.name in names for o in orphans)
    assert all_orphans(root / "data") == []
    removed = [e for e in s.store.read_audit() if e.get("event") == "temp_files_removed"]
    assert len(removed) == (1 if orphans else 0)
    # A torn audit line (killed mid-append) never swallows what the reopened app writes after it.
    last = s.store.audit_path.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    assert json.loads(last)["event"] in ("opened", "record_recovered", "temp_files_removed")


def test_kill_during_autosave(tmp_path: Path, tally: Tally) -> None:
    runs = kill_runs(tmp_path, "draft", "setup_draft")
    assert {e for e, _ in runs} >= {"mid-write", "written", "fsynced", "before_replace", "replaced", "audit-append"}
    seen = set()
    for event, root in runs:
        with tally.fault(f"kill during autosave ({event})"):
            orphans = all_orphans(root / "data")
            s = new_session(root / "bundle", root / "data", rater=RATER)
            assert s.state("t0000") == "draft"
            s.open_task("t0000")
            lost = 0 if s.current is not None and s.store.quarantined == [] else 1
            tally.records(1, lost)
            assert lost == 0
            assert s.current is not None
            scores = set(s.current.scores.values())
            assert scores in ({2}, {3}) and len(s.current.scores) == len(s.rubric.dimensions)
            assert s.current.notes["brief_rationale"] == {2: "first draft", 3: "second draft"}[int(scores.pop())]
            seen.add(s.current.notes["brief_rationale"])
            _orphans_cleaned(root, event, orphans, s)
    assert seen == {"first draft", "second draft"}


def test_kill_during_submit_and_revision(tmp_path: Path, tally: Tally) -> None:
    runs = kill_runs(tmp_path, "submit", "setup_submit")
    assert [e for e, _ in runs].count("audit-append") >= 3  # opened, submitted, revised (and draft_saved)
    recovered = 0
    for event, root in runs:
        with tally.fault(f"kill during submit/revise ({event})"):
            orphans = all_orphans(root / "data")
            s = new_session(root / "bundle", root / "data", rater=RATER)
            records = valid_records(s.store)  # raises if any record file is damaged
            drafts = valid_drafts(s.store)
            # t0000 r1 was submitted before: always there, untouched.
            lost = 0 if "t0000.r1.json" in records else 1
            # t0001's rating exists as a record or as its draft.
            lost += 0 if ("t0001.r1.json" in records or "t0001" in drafts) else 1
            tally.records(2, lost)
            assert lost == 0, (event, sorted(records), sorted(drafts))
            assert records["t0000.r1.json"].scoring.model_dump() == records["t0000.r1.json"].scoring.model_dump()
            if "t0000.r2.json" in records:
                assert records["t0000.r2.json"].envelope.supersedes_record_id == records["t0000.r1.json"].envelope.record_id
            mismatches, unaudited = audit_hash_problems(s.store)
            assert mismatches == []
            # A record whose audit line the kill prevented is noted (record_recovered) when the app opens.
            assert unaudited == []
            recovered += any(e.get("event") == "record_recovered" for e in s.store.read_audit())
            assert s.progress()[0] == len({n.split(".")[0] for n in records})
            assert s.store.quarantined == []
            _orphans_cleaned(root, event, orphans, s)
    assert recovered >= 2  # killed after a record's replace, before its audit line: seen and repaired


def test_kill_during_results_export(tmp_path: Path, tally: Tally) -> None:
    runs = kill_runs(tmp_path, "export", "setup_export")
    finals = 0
    for event, root in runs:
        with tally.fault(f"kill during results export ({event})"):
            final = root / "out" / "results.zip"
            if final.exists():
                finals += 1
                data = final.read_bytes()
                safe = open_zip_bytes(data, final.name)
                manifest = load_bytes(ResultsManifest, safe.read("manifest.json"), "manifest.json")
                assert manifest.counts.record_files == len(manifest.files) == 2
                for entry in manifest.files:
                    safe.read(entry.path)
                assert zipfile.ZipFile(final).testzip() is None
            orphans = all_orphans(root / "out")
            assert (len(orphans) == 1) == (event in ("mid-write", "written", "fsynced", "before_replace"))
            for orphan in orphans:
                assert not orphan.name.endswith(".zip")  # never mistaken for an export
                orphan.unlink()
            s = new_session(root / "bundle", root / "data", rater=RATER)
            tally.records(2, 2 - len(valid_records(s.store)))
            assert len(valid_records(s.store)) == 2
    assert 0 < finals < len(runs)  # both sides of the replace were hit
