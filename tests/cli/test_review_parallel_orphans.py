"""``core/parallel.ChunkPool``: workers must not outlive a parent that is killed (``kill``, ``kill -9``, a
closed terminal, CI cancelling the job). ``concurrent.futures`` workers wait on their task queue forever,
so without a watch on the parent they stay behind as orphans, one per CPU, until the machine restarts."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

PARENT = """
import os, signal, sys, time
from pathlib import Path
from wmcdp_desktop.core import parallel


def work(chunk, folder):
    Path(folder, f"{os.getpid()}.pid").write_text("started", encoding="utf-8")
    time.sleep(120)
    return chunk


if __name__ == "__main__":
    folder, method, how = sys.argv[1], sys.argv[2], sys.argv[3]
    with parallel.ChunkPool(work, [[1], [2]], workers=2, extra=(folder,), start_method=method):
        deadline = time.monotonic() + 60
        while len(list(Path(folder).glob("*.pid"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(os.getpid(), getattr(signal, how))  # dies here: no cleanup runs
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited
        except OSError:
            return False
    return True


@pytest.mark.skipif(os.name != "posix", reason="kills with POSIX signals")
@pytest.mark.parametrize("start_method", ["fork", "spawn"])
@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_workers_exit_when_the_parent_is_killed(tmp_path: Path, start_method: str, how: str) -> None:
    if start_method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {start_method} here")
    script = tmp_path / "parent.py"
    script.write_text(PARENT, encoding="utf-8")
    pids_dir = tmp_path / "pids"
    pids_dir.mkdir()
    log = tmp_path / "parent.log"
    with log.open("wb") as out:  # not a pipe: orphans holding it would keep run() waiting for its end
        proc = subprocess.run(
            [sys.executable, str(script), str(pids_dir), start_method, how],
            stdout=out, stderr=subprocess.STDOUT, timeout=120, check=False,
        )
    workers = [int(p.stem) for p in pids_dir.glob("*.pid")]
    try:
        output = log.read_text(encoding="utf-8", errors="replace")
        assert proc.returncode == -getattr(signal, how), output
        assert len(workers) == 2, output
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in workers), "worker processes outlived their parent"
    finally:
        for pid in workers:  # the test's own orphans, if any
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def _noop(chunk: list[int]) -> list[int]:
    return chunk


def test_windows_pool_size_stays_within_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """On Windows ``ProcessPoolExecutor`` refuses more than 61 workers with a ValueError (``--jobs 64`` on a
    big workstation was an "unexpected internal error"); the pool takes at most that many there."""
    from wmcdp_desktop.core import parallel

    monkeypatch.setattr(sys, "platform", "win32")
    pool = parallel.ChunkPool(_noop, [[i] for i in range(100)], workers=100)
    assert pool.workers == 61
    monkeypatch.setattr(sys, "platform", "linux")
    assert parallel.ChunkPool(_noop, [[i] for i in range(100)], workers=100).workers == 100
    assert parallel.ChunkPool(_noop, [[1], [2]], workers=100).workers == 2
