"""Which writes are fsync'd, and why nothing is lost when the ones that are not are lost.

The protocol (rater/storage.py): a draft's bytes are fsync'd (not its folder); a submitted record's bytes
and its folder are fsync'd; the ``draft_saved``, ``submitted`` and ``revised`` audit lines are not
(a power cut may lose them: a lost ``submitted`` line is rebuilt from the record file on the next open).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.kit.bundles import make_bundle
from tests.kit.faults import Faults
from tests.kit.sessions import new_session
from wmcdp_desktop.core import atomic
from wmcdp_desktop.rater.session import RatingSession
from wmcdp_desktop.rater.storage import RaterStore
from wmcdp_desktop.rater.timing import FakeClock

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="names fsync'd files via /proc")


def _kind(fd: int) -> str:
    """'dir:<name>' or 'file:<name>' for an fsync'd descriptor (temp files named by their final name)."""
    target = Path(os.readlink(f"/proc/self/fd/{fd}"))
    if stat.S_ISDIR(os.fstat(fd).st_mode):
        return f"dir:{target.name}"
    name = target.name
    if name.startswith(atomic.TEMP_PREFIX):
        name = name[len(atomic.TEMP_PREFIX):].rsplit(".", 2)[0]
    return f"file:{name}"


@pytest.fixture
def fsynced(monkeypatch: pytest.MonkeyPatch, faults: Faults) -> Iterator[list[str]]:
    calls: list[str] = []
    real = os.fsync

    def recording(fd: Any) -> None:
        calls.append(_kind(fd))
        real(fd)

    faults.inject(fsync=recording)
    monkeypatch.setattr(os, "fsync", recording)
    yield calls


def _session(tmp_path: Path, sample_docs: Any, clock: FakeClock) -> RatingSession:
    session = new_session(make_bundle(tmp_path / "bundle", sample_docs), tmp_path / "data", clock, role="child psychologist")
    session.open_task("T-0001")
    return session


def _fill(session: RatingSession) -> None:
    for dim in session.rubric.dimensions:
        session.set_score(dim.id, 4)
    session.set_note("brief_rationale", "Warm but keeps reassuring.")


def test_autosave_fsyncs_the_draft_only_and_submit_the_record_and_its_folder(
    tmp_path: Path, sample_docs: Any, fsynced: list[str]
) -> None:
    session = _session(tmp_path, sample_docs, FakeClock())
    _fill(session)
    assert session.save_draft()  # first save: creates the folders (each new folder fsync'd into its parent)
    fsynced.clear()
    session.set_confidence(4)
    assert session.save_draft()
    assert fsynced == ["file:T-0001.json"]

    fsynced.clear()
    outcome = session.submit()
    assert outcome.ok
    assert fsynced == ["file:T-0001.r1.json", "dir:records"]
    # The audit line was still written (just not fsync'd), with the record's sha256.
    events = session.store.read_audit()
    assert events[-1]["event"] == "submitted"
    assert events[-1]["sha256"] == outcome.sha256
    assert not session.store.draft_path("T-0001").exists()


def test_new_folders_are_fsynced_into_their_parents(tmp_path: Path, sample_docs: Any, fsynced: list[str]) -> None:
    session = _session(tmp_path, sample_docs, FakeClock())
    _fill(session)
    assert session.submit().ok
    bundle_id = session.manifest.bundle_id
    # data/bundles/<bundle id>/R01/records were all made by this session: each one's entry was fsync'd
    # into its parent (data, bundles, <bundle id>, R01) before anything was written into it.
    made = [c for c in fsynced if c.startswith("dir:")]
    for parent in ("dir:data", "dir:bundles", f"dir:{bundle_id}", "dir:R01"):
        assert parent in made
    assert made.index("dir:R01") < fsynced.index("file:T-0001.r1.json") < fsynced.index("dir:records")


def test_a_submitted_line_lost_with_a_power_cut_is_rebuilt_from_the_record(tmp_path: Path, sample_docs: Any) -> None:
    clock = FakeClock()
    session = _session(tmp_path, sample_docs, clock)
    _fill(session)
    outcome = session.submit()
    assert outcome.ok and outcome.record is not None
    store = session.store
    # A power cut loses the unsynced audit line (the record file and its folder were fsync'd).
    lines = store.audit_path.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [ln for ln in lines if json.loads(ln)["event"] != "submitted"]
    assert len(kept) == len(lines) - 1
    store.audit_path.write_text("".join(kept), encoding="utf-8")

    fresh = RaterStore(store.root.parents[2], store.bundle_id, store.rater_id, clock)
    recovered = fresh.recover_unaudited_records()
    assert [(r.task_id, r.revision) for r in recovered] == [("T-0001", 1)]
    event = fresh.read_audit()[-1]
    assert event["event"] == "record_recovered"
    assert event["file"] == "T-0001.r1.json" and event["sha256"] == outcome.sha256
    assert fresh.recover_unaudited_records() == []  # once


def test_folders_removed_while_the_app_runs_are_not_made_again(tmp_path: Path, sample_docs: Any) -> None:
    """Issue 13 item 9: making them again silently showed ratings with no file behind them; now the store
    says what happened and writes nothing more (tests/rater/test_data_folder_deleted_while_open.py)."""
    session = _session(tmp_path, sample_docs, FakeClock())
    _fill(session)
    assert session.save_draft()
    root = session.store.root
    for path in sorted(root.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    root.rmdir()
    session.set_confidence(3)
    assert not session.save_draft()
    assert session.save_error is not None and str(root) in session.save_error and "Traceback" not in session.save_error
    assert not session.submit().ok
    assert not root.exists()


def test_a_file_where_the_records_folder_should_be_is_a_plain_error(tmp_path: Path, sample_docs: Any) -> None:
    session = _session(tmp_path, sample_docs, FakeClock())
    _fill(session)
    if session.store.records_dir.is_dir():
        session.store.records_dir.rmdir()
    session.store.records_dir.write_text("not a folder", encoding="utf-8")
    outcome = session.submit()
    assert not outcome.ok and outcome.error is not None
    assert "records" in outcome.error and "Traceback" not in outcome.error
    # The rating is kept in the saved draft.
    assert session.store.load_draft("T-0001") is not None
