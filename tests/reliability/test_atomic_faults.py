"""Faults during an atomic save (core/atomic.py): kill at every step, disk full, locked file.

Promise: after any of these, every file is its old or its new complete version (never partial), temp
files left by a kill are found by ``orphan_temp_files``, a failed save says why in plain words and
leaves the previous file intact, and the same save succeeds once the cause is gone.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from tests.kit.faults import Faults
from wmcdp_desktop.core import atomic
from wmcdp_desktop.core.atomic import TEMP_PREFIX, atomic_write_bytes, orphan_temp_files
from wmcdp_desktop.core.errors import StorageError

from . import _kill_child as child
from .helpers import KILLED, child_events, fill_disk, final_files, remount, run_child, tiny_tmpfs
from .tally import Tally

pytestmark = pytest.mark.reliability

OLD = child.old_content("existing.json")
NEW = child.new_content("existing.json")
FRESH = child.new_content("fresh.json")


def test_kill_at_every_step_of_a_save(tmp_path: Path, tally: Tally) -> None:
    probe = tmp_path / "probe"
    probe.mkdir()
    child.setup_atomic(probe)
    events = child_events("atomic", probe)
    # Two saves, each: a write, then the four steps.
    assert events == ["mid-write", "written", "fsynced", "before_replace", "replaced"] * 2
    assert final_files(probe) == {"existing.json": NEW, "fresh.json": FRESH}

    outcomes: set[tuple[bytes, bytes | None]] = set()
    for n, event in enumerate(events, start=1):
        with tally.fault(f"kill during atomic save ({event})"):
            folder = tmp_path / f"kill{n}"
            folder.mkdir()
            child.setup_atomic(folder)
            proc = run_child("atomic", folder, n)
            assert proc.returncode == KILLED, (n, proc.stdout, proc.stderr)
            files = final_files(folder)
            existing = files.get("existing.json")
            lost = 0 if existing in (OLD, NEW) else 1
            tally.records(1, lost)
            assert lost == 0, f"existing.json is partial after a kill at {event}"
            assert files.get("fresh.json") in (None, FRESH), f"fresh.json is partial after a kill at {event}"
            assert set(files) <= {"existing.json", "fresh.json"}
            outcomes.add((existing, files.get("fresh.json")))  # type: ignore[arg-type]
            orphans = orphan_temp_files(folder)
            # A kill before the replace leaves exactly one temp file, found; after it, none.
            expect_orphan = event in ("mid-write", "written", "fsynced", "before_replace")
            assert len(orphans) == (1 if expect_orphan else 0), (event, orphans)
            for orphan in orphans:
                assert orphan.name.startswith(TEMP_PREFIX)
                orphan.unlink()  # cleaned
            assert orphan_temp_files(folder) == []
            # The save is simply redone after the restart.
            atomic_write_bytes(folder / "existing.json", NEW)
            assert (folder / "existing.json").read_bytes() == NEW
    # Every stage was really hit: old+absent, new+absent, new+new.
    assert (OLD, None) in outcomes and (NEW, None) in outcomes and (NEW, FRESH) in outcomes


def _enospc(*_args: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
def test_disk_full_injected(where: str, tmp_path: Path, tally: Tally) -> None:
    with tally.fault(f"disk full (ENOSPC) injected at {where.strip('_')}"):
        target = tmp_path / "record.json"
        target.write_bytes(OLD)
        with atomic.using_os_calls(**{where: _enospc}), pytest.raises(StorageError) as info:
            atomic_write_bytes(target, NEW)
        message = str(info.value)
        assert "disk is full" in message and "record.json" in message and "previous version is kept" in message
        tally.records(1, 0 if target.read_bytes() == OLD else 1)
        assert target.read_bytes() == OLD
        assert orphan_temp_files(tmp_path) == []
        atomic_write_bytes(target, NEW)  # space is back: the retry works
        assert target.read_bytes() == NEW


def test_disk_full_on_a_real_tiny_filesystem(tmp_path: Path, tally: Tally) -> None:
    with tiny_tmpfs(tmp_path / "tiny", "256k") as fs:
        with tally.fault("disk full on a real 256 KB tmpfs (filled up)"):
            target = fs / "record.json"
            atomic_write_bytes(target, OLD)
            filler = fill_disk(fs)
            with pytest.raises(StorageError) as info:
                atomic_write_bytes(target, NEW)
            assert "disk is full" in str(info.value)
            tally.records(1, 0 if target.read_bytes() == OLD else 1)
            assert target.read_bytes() == OLD
            assert orphan_temp_files(fs) == []
            filler.unlink()
            atomic_write_bytes(target, NEW)
            assert target.read_bytes() == NEW
        with tally.fault("disk full on a real 256 KB tmpfs (file larger than the disk)"):
            with pytest.raises(StorageError) as info:
                atomic_write_bytes(target, b"x" * 400 * 1024)
            assert "disk is full" in str(info.value)
            assert target.read_bytes() == NEW
            assert orphan_temp_files(fs) == []
        with tally.fault("read-only filesystem (real tmpfs remounted ro)"):
            remount(fs, "ro")
            try:
                with pytest.raises(StorageError) as info:
                    atomic_write_bytes(target, OLD)
                assert "read-only" in str(info.value)
                assert target.read_bytes() == NEW
            finally:
                remount(fs, "rw")
            atomic_write_bytes(target, OLD)
            assert target.read_bytes() == OLD


@pytest.mark.parametrize("k", [1, 2, atomic.REPLACE_RETRIES - 1, atomic.REPLACE_RETRIES, atomic.REPLACE_RETRIES + 5])
def test_replace_fails_like_a_locked_file_on_windows(
    k: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, faults: Faults, tally: Tally
) -> None:
    with tally.fault(f"replace refused (PermissionError) {'<' if k < atomic.REPLACE_RETRIES else '>='} retry limit"):
        target = tmp_path / "record.json"
        target.write_bytes(OLD)
        calls = {"n": 0}
        real_replace = atomic.os_calls().replace

        def locked(src: str, dst: str) -> None:
            calls["n"] += 1
            if calls["n"] <= k:
                raise PermissionError(errno.EACCES, "The process cannot access the file", str(dst))
            real_replace(src, dst)

        faults.inject(replace=locked)
        monkeypatch.setattr(atomic, "REPLACE_RETRY_DELAY", 0.001)
        if k < atomic.REPLACE_RETRIES:
            atomic_write_bytes(target, NEW)
            assert target.read_bytes() == NEW
            assert calls["n"] == k + 1
        else:
            with pytest.raises(StorageError) as info:
                atomic_write_bytes(target, NEW)
            assert "locked" in str(info.value) and "previous version is kept" in str(info.value)
            assert calls["n"] == atomic.REPLACE_RETRIES  # bounded: no endless retrying
            tally.records(1, 0 if target.read_bytes() == OLD else 1)
            assert target.read_bytes() == OLD
        assert orphan_temp_files(tmp_path) == []


def test_folder_vanished_during_save(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tally: Tally) -> None:
    with tally.fault("data folder removed before the save (USB stick unplugged)"):
        folder = tmp_path / "gone"
        with pytest.raises(StorageError) as info:
            atomic_write_bytes(folder / "record.json", NEW)
        assert "does not exist" in str(info.value)
        assert not folder.exists()
