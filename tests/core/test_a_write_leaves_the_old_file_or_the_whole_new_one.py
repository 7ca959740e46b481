"""Atomic writes (core/atomic.py): the old file or the whole new one, never a partial file or a leftover temp."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.kit.faults import Faults
from wmcdp_desktop.core import atomic
from wmcdp_desktop.core.atomic import atomic_write_bytes, atomic_write_text, orphan_temp_files
from wmcdp_desktop.core.errors import StorageError, WmcdpError

OLD = b'{"version": "old"}\n'
NEW = b'{"version": "new"}\n'


@pytest.fixture
def target(tmp_path: Path) -> Path:
    path = tmp_path / "record.json"
    path.write_bytes(OLD)
    return path


def _raise(exc: BaseException) -> Callable[..., Any]:
    def fail(*args: Any) -> Any:
        raise exc

    return fail


def _disk_full() -> OSError:
    return OSError(errno.ENOSPC, "No space left on device")


def test_writes_a_new_file(tmp_path: Path) -> None:
    path = tmp_path / "new.json"
    atomic_write_bytes(path, NEW)
    assert path.read_bytes() == NEW
    assert orphan_temp_files(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.json"]


def test_replaces_an_existing_file(target: Path) -> None:
    atomic_write_bytes(target, NEW)
    assert target.read_bytes() == NEW
    assert orphan_temp_files(target.parent) == []


def test_text_is_utf8(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    atomic_write_text(path, "Grüße 😀\n")
    assert path.read_bytes() == "Grüße 😀\n".encode()


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty"
    atomic_write_bytes(path, b"")
    assert path.read_bytes() == b""


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_file_mode(tmp_path: Path) -> None:
    path = tmp_path / "key.json"
    atomic_write_bytes(path, NEW, mode=0o600)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    atomic_write_bytes(path, NEW)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_large_data_and_short_writes(tmp_path: Path, faults: Faults) -> None:
    """os.write may write fewer bytes than asked: every byte still ends up in the file, in order."""
    data = bytes(range(256)) * 12_289  # a bit over 3 MiB, so it goes in several chunks
    path = tmp_path / "big.bin"
    atomic_write_bytes(path, data)
    assert path.read_bytes() == data

    calls = []

    def short_write(fd: int, chunk: bytes) -> int:
        calls.append(len(chunk))
        return os.write(fd, chunk[:4096])

    faults.inject(write=short_write)
    atomic_write_bytes(path, data[:100_000])
    assert path.read_bytes() == data[:100_000]
    assert len(calls) == -(-100_000 // 4096)


@pytest.mark.parametrize("step", ["write", "fsync", "replace"])
def test_disk_full_keeps_the_previous_file(step: str, target: Path, faults: Faults) -> None:
    faults.inject(**{step: _raise(_disk_full())})
    with pytest.raises(StorageError) as info:
        atomic_write_bytes(target, NEW)
    assert target.read_bytes() == OLD
    assert orphan_temp_files(target.parent) == []
    assert sorted(p.name for p in target.parent.iterdir()) == ["record.json"]
    assert str(info.value) == (
        f"Could not save record.json in {target.parent}: the disk is full. The previous version is kept."
    )
    assert isinstance(info.value, WmcdpError)
    assert isinstance(info.value.__cause__, OSError)


def test_disk_full_on_a_new_file_leaves_nothing(tmp_path: Path, faults: Faults) -> None:
    faults.inject(write=_raise(_disk_full()))
    with pytest.raises(StorageError) as info:
        atomic_write_bytes(tmp_path / "new.json", NEW)
    assert list(tmp_path.iterdir()) == []
    # no previous version to speak of (a coordinator's output on a full disk was told one was kept)
    assert str(info.value).endswith("the disk is full. Nothing was written under that name.")


def test_locked_file_replace_is_retried(target: Path, monkeypatch: pytest.MonkeyPatch, faults: Faults) -> None:
    calls = []

    def flaky_replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        calls.append(dst)
        if len(calls) < 3:
            raise PermissionError(errno.EACCES, "The process cannot access the file")
        os.replace(src, dst)

    faults.inject(replace=flaky_replace)
    monkeypatch.setattr(atomic, "REPLACE_RETRY_DELAY", 0.0)
    atomic_write_bytes(target, NEW)
    assert len(calls) == 3
    assert target.read_bytes() == NEW
    assert orphan_temp_files(target.parent) == []


def test_file_locked_for_good(target: Path, monkeypatch: pytest.MonkeyPatch, faults: Faults) -> None:
    calls = []

    def locked(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        calls.append(dst)
        raise PermissionError(errno.EACCES, "The process cannot access the file")

    faults.inject(replace=locked)
    monkeypatch.setattr(atomic, "REPLACE_RETRY_DELAY", 0.0)
    with pytest.raises(StorageError) as info:
        atomic_write_bytes(target, NEW)
    assert len(calls) == atomic.REPLACE_RETRIES
    assert "the folder is read-only or the file is locked" in str(info.value)
    assert "The previous version is kept." in str(info.value)
    assert target.read_bytes() == OLD
    assert orphan_temp_files(target.parent) == []


def test_other_errors_are_not_retried(target: Path, faults: Faults) -> None:
    calls = []

    def broken(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        calls.append(dst)
        raise OSError(errno.EIO, "Input/output error")

    faults.inject(replace=broken)
    with pytest.raises(StorageError, match="Input/output error"):
        atomic_write_bytes(target, NEW)
    assert len(calls) == 1


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(StorageError) as info:
        atomic_write_bytes(tmp_path / "gone" / "x.json", NEW)
    assert str(info.value) == (
        f"Could not save x.json in {tmp_path / 'gone'}: the folder does not exist (was it removed or unplugged?)."
    )


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions and a non-root user")
def test_read_only_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(StorageError, match="the folder is read-only or the file is locked"):
            atomic_write_bytes(folder / "x.json", NEW)
    finally:
        folder.chmod(0o700)


def test_interrupt_removes_the_temp_and_propagates(target: Path, faults: Faults) -> None:
    faults.inject(fsync=_raise(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(target, NEW)
    assert target.read_bytes() == OLD
    assert orphan_temp_files(target.parent) == []


def test_a_failing_folder_fsync_does_not_fail_the_write(target: Path, faults: Faults) -> None:
    """The folder fsync comes after the replace: the new file is complete, so a failure there is ignored."""
    calls = []

    def fsync_file_only(fd: int) -> None:
        calls.append(fd)
        if len(calls) > 1:
            raise OSError(errno.EINVAL, "Invalid argument")
        os.fsync(fd)

    faults.inject(fsync=fsync_file_only)
    atomic_write_bytes(target, NEW)
    assert target.read_bytes() == NEW


def test_orphan_temp_files(tmp_path: Path) -> None:
    leftover = tmp_path / f"{atomic.TEMP_PREFIX}record.json.123.456"
    leftover.write_bytes(b"partial")
    (tmp_path / "record.json").write_bytes(OLD)
    assert orphan_temp_files(tmp_path) == [leftover]
    assert orphan_temp_files(tmp_path / "missing") == []


def test_the_fault_seam_tells_every_step_in_order_and_puts_the_real_calls_back(target: Path) -> None:
    real = atomic.os_calls()
    steps: list[str] = []
    with atomic.using_os_calls(step=steps.append) as calls:
        assert calls.write is real.write and calls.step is not real.step
        atomic_write_bytes(target, NEW)
    assert steps == list(atomic.STEPS)
    assert atomic.os_calls() == real
    with pytest.raises(StorageError), atomic.using_os_calls(write=_raise(_disk_full())):
        with atomic.using_os_calls(fsync=_raise(KeyboardInterrupt())):  # nested: the inner one goes first
            pass
        atomic_write_bytes(target, OLD)
    assert atomic.os_calls() == real and target.read_bytes() == NEW
