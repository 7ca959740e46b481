"""Shared helpers of the reliability suite: running the kill child, tiny real filesystems."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from tests.kit.bundles import write_bundle
from wmcdp_desktop.core.atomic import TEMP_PREFIX, orphan_temp_files

from . import _kill_child

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CHILD = HERE / "_kill_child.py"
KILLED = 86


def run_child(scenario: str, folder: Path, kill_at: int, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run the kill child; ``kill_at=0`` runs the scenario to the end (and lists its events)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    return subprocess.run(
        [sys.executable, str(CHILD), scenario, str(folder), str(kill_at)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=str(REPO),
    )


def run_children(scenario: str, roots: list[Path], timeout: float = 120) -> list[int]:
    """Exit codes of the scenario killed at event n = 1..len(roots), root n-1 each.

    On POSIX one batch process forks a child per n (fast); elsewhere a fresh interpreter per n."""
    if os.name != "posix" or not hasattr(os, "fork"):
        return [run_child(scenario, root, n, timeout).returncode for n, root in enumerate(roots, start=1)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    stdin = "".join(f"{root} {n}\n" for n, root in enumerate(roots, start=1))
    proc = subprocess.run(
        [sys.executable, str(CHILD), "--batch", scenario],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=str(REPO),
    )
    assert proc.returncode == 0, proc.stderr
    codes = {int(p[1]): int(p[2]) for p in (ln.split() for ln in proc.stdout.splitlines()) if p and p[0] == "RESULT"}
    assert sorted(codes) == list(range(1, len(roots) + 1)), (proc.stdout, proc.stderr)
    return [codes[n] for n in range(1, len(roots) + 1)]


def child_events(scenario: str, folder: Path) -> list[str]:
    """Run the scenario to completion once and return its event names in order."""
    proc = run_child(scenario, folder, 0)
    assert proc.returncode == 0, proc.stderr
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("DONE ")][-1]
    parts = line.split()
    events = parts[2:]
    assert int(parts[1]) == len(events)
    return events


def kill_runs(tmp_path: Path, scenario: str, setup: str) -> list[tuple[str, Path]]:
    """Kill ``scenario`` at each of its events, one copy of the same prepared folder per event (a bundle of
    three tasks and ``_kill_child``'s ``setup``); returns (event, folder) for every kill, each one checked
    to have ended by the kill."""
    template = tmp_path / "template"
    write_bundle(template / "bundle", 3)
    getattr(_kill_child, setup)(template)

    def copy(name: str) -> Path:
        shutil.copytree(template, tmp_path / name)
        return tmp_path / name

    events = child_events(scenario, copy("probe"))
    roots = [copy(f"kill{n}") for n in range(1, len(events) + 1)]
    codes = run_children(scenario, roots)
    for n, (event, code) in enumerate(zip(events, codes, strict=True), start=1):
        assert code == KILLED, (n, event, code)
    return list(zip(events, roots, strict=True))


def all_orphans(root: Path) -> list[Path]:
    """Temp files left anywhere under ``root`` (found with the project's own ``orphan_temp_files``)."""
    out: list[Path] = []
    for dirpath, _dirs, _files in os.walk(root):
        out.extend(orphan_temp_files(Path(dirpath)))
    return sorted(out)


def final_files(root: Path) -> dict[str, bytes]:
    """Every non-temp file under ``root`` by relative path."""
    out: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.name.startswith(TEMP_PREFIX):
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def can_mount() -> str | None:
    """``None`` when a tmpfs can be mounted here, else the reason why not."""
    if os.name != "posix" or not sys.platform.startswith("linux"):
        return "real tiny filesystems are only mounted on Linux"
    if os.geteuid() != 0:
        return "mounting a tmpfs needs root (CI runs as root; locally the injected ENOSPC tests still run)"
    if shutil.which("mount") is None or shutil.which("umount") is None:
        return "no mount/umount command on this machine"
    return None


@contextlib.contextmanager
def tiny_tmpfs(where: Path, size: str = "256k") -> Iterator[Path]:
    """Mount a tmpfs of ``size`` at ``where`` (skips the test when not possible), unmount afterwards."""
    import pytest

    reason = can_mount()
    if reason:
        pytest.skip(reason)
    where.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here: {proc.stderr.strip() or proc.returncode}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def remount(where: Path, option: str) -> None:
    """Remount the tmpfs at ``where`` with ``option`` ("ro" or "rw")."""
    proc = subprocess.run(["mount", "-o", f"remount,{option}", str(where)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def fill_disk(folder: Path) -> Path:
    """Write a filler file until the filesystem is full; returns it (delete it to free the space)."""
    import errno

    filler = folder / "filler.bin"
    block = b"\0" * 4096
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        while True:
            try:
                os.write(fd, block)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
                break
        # fill the last partial block too
        while True:
            try:
                if os.write(fd, b"\0") == 0:
                    break
            except OSError:
                break
    finally:
        os.close(fd)
    return filler


# A process that holds a data folder's instance lock until it is killed (prints "locked" once it holds it).
LOCK_HOLDER = """
import sys, time
from pathlib import Path
from wmcdp_desktop.rater.storage import InstanceLock
lock = InstanceLock(Path(sys.argv[1]))
lock.acquire()
print("locked", flush=True)
time.sleep(120)
"""
