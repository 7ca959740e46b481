"""The rater's data folder: single-instance lock, drafts, records, audit log, failing writes."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.kit.faults import Faults
from wmcdp_desktop.core import atomic
from wmcdp_desktop.core.errors import AlreadyRunningError, StorageError
from wmcdp_desktop.core.models.draft import Draft
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.rater.settings import Settings, load_settings, save_settings, with_recent
from wmcdp_desktop.rater.storage import InstanceLock, RaterStore
from wmcdp_desktop.rater.timing import FakeClock

HOLDER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from wmcdp_desktop.rater.storage import InstanceLock
    lock = InstanceLock(Path(sys.argv[1]))
    lock.acquire()
    print("locked", flush=True)
    sys.stdin.readline()
    """
)


def _holder(data: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(data)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "locked"
    return proc


def draft(task_id: str = "T-0001", **extra: Any) -> Draft:
    return Draft.model_validate(
        {
            "document_type": "wmcdp_draft",
            "format_version": "1.0.0",
            "task_id": task_id,
            "bundle_id": "B-test",
            "rater_id": "R01",
            "scores": {"WM-RUB-001": 3, "WM-RUB-005": "N/A"},
            "active_seconds": 12.5,
            "started_at": "2026-11-29T10:00:00Z",
            "updated_at": "2026-11-29T10:01:00Z",
            **extra,
        }
    )


@pytest.fixture
def store(tmp_path: Path) -> RaterStore:
    return RaterStore(tmp_path / "data", "B-test", "R01", FakeClock())


def test_second_instance_in_another_process_is_refused_and_stale_lock_recovered(tmp_path: Path) -> None:
    data = tmp_path / "data"
    proc = _holder(data)
    try:
        with pytest.raises(AlreadyRunningError) as exc:
            InstanceLock(data).acquire()
        assert "already open on this data folder" in str(exc.value)
        assert f"process {proc.pid}" in str(exc.value)
    finally:
        os.kill(proc.pid, signal.SIGKILL)  # a crash: the lock file may stay behind
        proc.wait()
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.stdout.close()
    lock = InstanceLock(data)
    lock.acquire()  # the stale lock is recovered
    assert lock.held
    lock.release()


def test_second_window_in_the_same_process_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with InstanceLock(data):
        with pytest.raises(AlreadyRunningError):
            InstanceLock(data).acquire()
        with InstanceLock(tmp_path / "other"):  # another data folder is fine
            pass
    with InstanceLock(data):  # released: can be taken again
        pass


def test_draft_round_trip_and_listing(store: RaterStore) -> None:
    d = draft()
    store.save_draft(d)
    assert store.load_draft("T-0001") == d
    assert store.draft_task_ids() == {"T-0001"}
    assert store.load_draft("T-0002") is None
    store.delete_draft("T-0001")
    assert store.draft_task_ids() == set()


def test_unreadable_draft_is_quarantined_not_lost(store: RaterStore) -> None:
    store.ensure()
    store.draft_path("T-0001").write_text('{"document_type": "wmcdp_draft", "oops": ', encoding="utf-8")
    assert store.load_draft("T-0001") is None
    assert len(store.quarantined) == 1
    assert store.quarantined[0].read_text(encoding="utf-8").startswith('{"document_type"')
    assert not store.draft_path("T-0001").exists()
    assert [e["event"] for e in store.read_audit()] == ["draft_quarantined"]


def test_failed_draft_write_keeps_the_last_good_draft(store: RaterStore, faults: Faults) -> None:
    good = draft()
    store.save_draft(good)

    def disk_full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    faults.inject(write=disk_full)
    with pytest.raises(StorageError, match="disk is full"):
        store.save_draft(draft(active_seconds=99.0))
    faults.clear()
    assert store.load_draft("T-0001") == good
    assert atomic.orphan_temp_files(store.drafts_dir) == []


def test_records_are_never_overwritten(store: RaterStore, sample_docs: Any) -> None:
    obj = sample_docs("RatingRecord")
    rec = RatingRecord.model_validate(obj)
    path = store.save_record(rec).path
    assert path.name == "T-0001.r1.json"
    with pytest.raises(StorageError, match="never overwritten"):
        store.save_record(rec)
    obj["envelope"]["revision"] = 2
    store.save_record(RatingRecord.model_validate(obj))
    assert [(r.task_id, r.revision) for r in store.record_files()] == [("T-0001", 1), ("T-0001", 2)]
    assert store.latest_revisions() == {"T-0001": 2}
    assert store.load_record("T-0001", 1) == rec


def test_audit_log_is_append_only_and_skips_a_torn_line(store: RaterStore) -> None:
    store.audit("opened", bundle_id="B-test")
    store.audit("submitted", task_id="T-0001", sha256="a" * 64)
    with open(store.audit_path, "ab") as fh:
        fh.write(b'{"at": "2026-')  # a crash in the middle of a line
    events = store.read_audit()
    assert [e["event"] for e in events] == ["opened", "submitted"]
    assert events[1]["task_id"] == "T-0001" and events[0]["at"].endswith("Z")


def test_draft_saves_are_audited_at_most_once_a_minute(store: RaterStore) -> None:
    clock = store.clock
    assert isinstance(clock, FakeClock)
    for _ in range(5):
        store.save_draft(draft())
        clock.advance(1)
    clock.advance(60)
    store.save_draft(draft())
    saved = [e for e in store.read_audit() if e["event"] == "draft_saved"]
    assert len(saved) == 2 and len(saved[0]["sha256"]) == 64


def test_settings_round_trip_and_bad_file(tmp_path: Path) -> None:
    s = with_recent(Settings(rater_id="R01", font_point_size=12), tmp_path / "a.wmcdp")
    s = with_recent(s, tmp_path / "b.wmcdp")
    s = with_recent(s, tmp_path / "a.wmcdp")
    assert s.recent_bundles == [str((tmp_path / "a.wmcdp").resolve()), str((tmp_path / "b.wmcdp").resolve())]
    save_settings(tmp_path, s)
    loaded, warning = load_settings(tmp_path)
    assert warning is None and loaded == s
    (tmp_path / "settings.json").write_text("{not json", encoding="utf-8")
    loaded, warning = load_settings(tmp_path)
    assert loaded == Settings() and warning and "not valid" in warning
