"""The results export zip (INTERFACES.md): manifest, every revision, sha256s, atomic write."""

from __future__ import annotations

import errno
import hashlib
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.kit.bundles import make_bundle
from tests.kit.faults import Faults
from tests.kit.sessions import new_session
from wmcdp_desktop.core import atomic
from wmcdp_desktop.core.documents import load_bytes
from wmcdp_desktop.core.errors import StorageError
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.core.models.results_manifest import ResultsManifest
from wmcdp_desktop.rater.export import export_file_name
from wmcdp_desktop.rater.session import RatingSession
from wmcdp_desktop.rater.timing import FakeClock


@pytest.fixture
def rated(tmp_path: Path, sample_docs: Any) -> RatingSession:
    clock = FakeClock()
    session = new_session(make_bundle(tmp_path / "bundle", sample_docs), tmp_path / "data", clock)
    for tid, score in (("T-0001", 3), ("T-0002", 4)):
        session.open_task(tid)
        for dim in session.rubric.dimensions:
            session.set_score(dim.id, score)
        session.set_note("brief_rationale", "because")
        assert session.submit().ok
    session.open_task("T-0001")
    session.revise()
    session.set_score("WM-RUB-001", 5)
    assert session.submit().ok
    session.open_task("T-0003")
    session.set_score("WM-RUB-001", 1)  # a draft, not exported
    session.save_draft()
    return session


def do_export(session: RatingSession, dest: Path) -> ResultsManifest:
    return session.export_results(dest)


def test_export_holds_every_revision_with_hashes(rated: RatingSession, tmp_path: Path) -> None:
    dest = tmp_path / export_file_name("S-test", "R01", rated.clock)
    assert dest.name == "wmcdp-results-S-test-R01-20270115T080000Z.zip"
    manifest = do_export(rated, dest)
    with zipfile.ZipFile(dest) as zf:
        names = sorted(zf.namelist())
        assert names == [
            "audit.jsonl", "manifest.json", "records/T-0001.r1.json", "records/T-0001.r2.json", "records/T-0002.r1.json"
        ]
        stored = load_bytes(ResultsManifest, zf.read("manifest.json"), "manifest.json")
        assert stored == manifest
        for entry in stored.files:
            data = zf.read(entry.path)
            assert hashlib.sha256(data).hexdigest() == entry.sha256 and len(data) == entry.size
            rec = load_bytes(RatingRecord, data, entry.path)
            assert rec.envelope.task_id == entry.task_id and rec.envelope.revision == entry.revision
    latest = {(f.task_id, f.revision): f.latest for f in manifest.files}
    assert latest == {("T-0001", 1): False, ("T-0001", 2): True, ("T-0002", 1): True}
    c = manifest.counts
    assert (c.tasks_in_bundle, c.submitted, c.record_files, c.drafts_not_submitted) == (3, 2, 3, 1)
    assert manifest.bundle_sha256 == rated.bundle.manifest_sha256 and manifest.rater_id == "R01"
    assert rated.store.read_audit()[-1]["event"] == "exported"


def test_failed_export_leaves_nothing_under_the_final_name(
    rated: RatingSession, tmp_path: Path, faults: Faults
) -> None:
    def disk_full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    faults.inject(write=disk_full)
    dest = tmp_path / "out.zip"
    with pytest.raises(StorageError, match="disk is full"):
        do_export(rated, dest)
    assert not dest.exists() and atomic.orphan_temp_files(tmp_path) == []


def test_wmcdp_results_validate_accepts_the_export(rated: RatingSession, tmp_path: Path) -> None:
    from wmcdp_desktop.coordinator.commands.main import main

    dest = tmp_path / "out.zip"
    do_export(rated, dest)
    assert main(["results", "validate", str(dest)]) == 0
