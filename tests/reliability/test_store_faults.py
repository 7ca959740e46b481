"""The rater's data folder under stress (rater/storage.py, rater/session.py): read-only or vanished
folder, damaged drafts, a torn audit line, a second instance, a stale lock after ``kill -9``.

Promise: a plain message, the rating kept in memory and in the last good draft, retry works; damaged
drafts are quarantined (moved aside, byte for byte, never deleted) and reported; the app keeps working.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kit.bundles import write_bundle
from tests.kit.faults import Faults
from tests.kit.sessions import RATER, audit_hash_problems, fill, first_dim, new_session, valid_records
from wmcdp_desktop.core import atomic
from wmcdp_desktop.core.errors import AlreadyRunningError, StorageError
from wmcdp_desktop.rater.storage import InstanceLock

from .helpers import LOCK_HOLDER, REPO, remount, tiny_tmpfs
from .tally import Tally

pytestmark = pytest.mark.reliability


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return write_bundle(tmp_path / "bundle", 3)


def _edit_fail_retry(s, fail, heal, tally: Tally, kind: str) -> None:  # type: ignore[no-untyped-def]
    """With a submitted t0000 and a draft of t0001 on disk: break the folder, edit, save, submit
    (all refused in plain words, the rating kept), heal it, retry: everything saved."""
    with tally.fault(kind):
        s.open_task("t0001")
        s.set_note("best_aspect", "typed while the folder was broken")
        fail()
        try:
            assert s.save_draft() is False
            assert s.save_error and "Traceback" not in s.save_error
            outcome = s.submit()
            assert not outcome.ok and outcome.error
            assert s.current is not None and s.current.notes["best_aspect"] == "typed while the folder was broken"
        finally:
            heal()
        assert s.save_draft() and s.save_error is None
        assert s.submit().ok
        records = valid_records(s.store)
        lost = 0 if {"t0000.r1.json", "t0001.r1.json"} <= set(records) else 1
        tally.records(2, lost)
        assert lost == 0
        assert records["t0001.r1.json"].clinician_notes.best_aspect == "typed while the folder was broken"
        assert audit_hash_problems(s.store) == ([], [])


def _prepared(bundle: Path, data: Path):  # type: ignore[no-untyped-def]
    s = new_session(bundle, data, rater=RATER)
    s.open_task("t0000")
    fill(s, 3)
    assert s.submit().ok
    s.open_task("t0001")
    fill(s, 4)
    assert s.save_draft()
    return s


@pytest.mark.parametrize("errno_", [errno.EROFS, errno.EACCES, errno.ENOSPC])
def test_injected_write_errors_keep_the_rating(
    errno_: int, bundle: Path, tmp_path: Path, faults: Faults, tally: Tally
) -> None:
    s = _prepared(bundle, tmp_path / "data")

    def broken(*_a: object) -> int:
        raise OSError(errno_, os.strerror(errno_))

    _edit_fail_retry(
        s,
        lambda: faults.inject(write=broken),
        faults.clear,
        tally,
        f"save and submit fail ({errno.errorcode[errno_]} injected), then retry",
    )


def test_real_read_only_data_folder(bundle: Path, tmp_path: Path, tally: Tally) -> None:
    with tiny_tmpfs(tmp_path / "ro", "4m") as fs:
        s = _prepared(bundle, fs / "data")
        _edit_fail_retry(s, lambda: remount(fs, "ro"), lambda: remount(fs, "rw"), tally, "data folder read-only (real tmpfs remounted ro)")
        with tally.fault("app opened on a read-only data folder"):
            remount(fs, "ro")
            try:
                with pytest.raises(StorageError) as info:
                    new_session(bundle, fs / "data", rater=RATER)
                assert str(fs / "data") in str(info.value) or "audit" in str(info.value)
            finally:
                remount(fs, "rw")


def test_real_disk_full_keeps_the_rating(bundle: Path, tmp_path: Path, tally: Tally) -> None:
    from .helpers import fill_disk

    with tiny_tmpfs(tmp_path / "full", "1m") as fs:
        s = _prepared(bundle, fs / "data")
        filler: list[Path] = []
        _edit_fail_retry(
            s,
            lambda: filler.append(fill_disk(fs)),
            lambda: filler[0].unlink(),
            tally,
            "disk full while rating (real 1 MB tmpfs), then space freed",
        )


def test_data_folder_vanishes(bundle: Path, tmp_path: Path, tally: Tally) -> None:
    with tally.fault("data folder vanished while the app runs (moved away)"):
        s = _prepared(bundle, tmp_path / "data")
        shutil.move(tmp_path / "data", tmp_path / "moved")
        s.set_note("main_concern", "written after the folder vanished")
        saved = s.save_draft()  # recreates the folder, or fails in plain words: never crashes
        assert saved or (s.save_error and "Traceback" not in s.save_error)
        assert s.current is not None and s.current.notes["main_concern"] == "written after the folder vanished"
        moved = valid_records(new_session(bundle, tmp_path / "moved", rater=RATER).store)
        tally.records(1, 0 if "t0000.r1.json" in moved else 1)
        assert "t0000.r1.json" in moved


DAMAGED = {
    "empty": b"",
    "truncated": None,  # the first half of the real draft
    "random bytes": bytes((i * 131 + 7) % 256 for i in range(600)),
    "not JSON": b"<html>draft</html>",
    "BOM": b"\xef\xbb\xbf{}",
    "wrong task id": None,  # a valid draft of another task under this name
    "NUL bytes": b"\0" * 512,
}


@pytest.mark.parametrize("kind", list(DAMAGED))
def test_damaged_draft_is_quarantined_not_deleted(kind: str, bundle: Path, tmp_path: Path, tally: Tally) -> None:
    with tally.fault(f"draft damaged on disk ({kind})"):
        s = _prepared(bundle, tmp_path / "data")
        s.open_task("t0002")
        s.set_score(first_dim(s), 2)
        assert s.save_draft()
        good = s.store.draft_path("t0001").read_bytes()
        bad = DAMAGED[kind]
        if kind == "truncated":
            bad = good[: len(good) // 2]
        elif kind == "wrong task id":
            bad = s.store.draft_path("t0002").read_bytes()
        assert bad is not None
        s.store.draft_path("t0001").write_bytes(bad)
        # restart
        s2 = new_session(bundle, tmp_path / "data", rater=RATER)
        s2.open_task("t0001")
        assert s2.current is not None and s2.current.scores == {}  # a fresh rating, the app keeps working
        assert len(s2.store.quarantined) == 1
        assert s2.store.quarantined[0].read_bytes() == bad  # kept byte for byte
        assert not s2.store.draft_path("t0001").exists()
        events = [e for e in s2.store.read_audit() if e.get("event") == "draft_quarantined"]
        assert len(events) == 1 and events[0]["file"] == "t0001.json" and events[0]["reason"]
        # the other work is untouched and rating goes on
        s2.open_task("t0002")
        assert s2.current is not None and s2.current.scores == {first_dim(s2): 2}
        s2.open_task("t0001")
        fill(s2, 5)
        assert s2.submit().ok
        records = valid_records(s2.store)
        tally.records(2, 2 - len({"t0000.r1.json", "t0001.r1.json"} & set(records)))
        assert {"t0000.r1.json", "t0001.r1.json"} <= set(records)


def test_torn_audit_line_does_not_swallow_the_next_event(bundle: Path, tmp_path: Path, tally: Tally) -> None:
    with tally.fault("audit log ends in a torn line (crash mid-append)"):
        s = _prepared(bundle, tmp_path / "data")
        with open(s.store.audit_path, "ab") as fh:
            fh.write(b'{"at": "2026-11-29T10:0')
        s.open_task("t0001")
        assert s.submit().ok
        events = [e["event"] for e in s.store.read_audit()]
        assert events[-1] == "submitted"
        assert audit_hash_problems(s.store) == ([], [])


def test_second_instance_is_refused(tmp_path: Path, tally: Tally) -> None:
    with tally.fault("second app instance on the same data folder (same process)"):
        first = InstanceLock(tmp_path / "data")
        first.acquire()
        try:
            with pytest.raises(AlreadyRunningError) as info:
                InstanceLock(tmp_path / "data").acquire()
            assert "already open" in str(info.value)
        finally:
            first.release()
        InstanceLock(tmp_path / "data").acquire()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")
def test_other_process_refused_then_stale_lock_after_kill_9_recovered(tmp_path: Path, tally: Tally) -> None:
    data = tmp_path / "data"
    proc = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER, str(data)], stdout=subprocess.PIPE, text=True, cwd=str(REPO)
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        with tally.fault("second app instance (another process holds the lock)"):
            with pytest.raises(AlreadyRunningError) as info:
                InstanceLock(data).acquire()
            assert f"process {proc.pid}" in str(info.value)
        with tally.fault("stale lock after kill -9 of the app"):
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
            assert (data / "instance.lock").exists() or os.name == "posix"
            lock = InstanceLock(data)
            lock.acquire()  # recovered: the OS dropped the dead process's lock
            assert lock.held
            lock.release()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
def test_export_on_a_full_disk_leaves_no_zip(where: str, bundle: Path, tmp_path: Path, tally: Tally) -> None:
    with tally.fault(f"results export with the disk full (ENOSPC at {where.strip('_')})"):
        s = _prepared(bundle, tmp_path / "data")
        out = tmp_path / "usb"
        out.mkdir()
        dest = out / "results.zip"

        def full(*_a: object) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def export() -> None:
            s.export_results(dest)

        with atomic.using_os_calls(**{where: full}), pytest.raises(StorageError) as info:
            export()
        assert "disk is full" in str(info.value) and "results.zip" in str(info.value)
        assert list(out.iterdir()) == []  # no partial zip, no temp file
        export()  # space is back
        assert dest.exists() and len(valid_records(s.store)) == 1
