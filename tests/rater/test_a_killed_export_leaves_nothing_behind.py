"""A results export killed while its zip was being written left ``.tmp-<name>.zip.<pid>.<n>`` (the ratings inside)
where the rater wanted the export, and nothing ever removed it (issue 25). The next start of the app or the next
export into that folder removes it (audited); a temporary zip of an export that is still being written by a
running process, and other files, are left alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.kit.sessions import new_session, rated_session
from wmcdp_desktop.core import atomic
from wmcdp_desktop.rater.export import PENDING_NAME, leftover_export_files
from wmcdp_desktop.rater.session import RatingSession

pytestmark = pytest.mark.skipif(os.name != "posix" or not hasattr(os, "fork"), reason="kills a forked export")


def _export_killed_mid_write(session: RatingSession, destination: Path) -> None:
    """Run the export in a forked child that is killed (os._exit) once the zip's bytes are in its temp file."""
    pid = os.fork()
    if pid == 0:  # the child: no cleanup of any kind runs after the kill
        def kill(step: str) -> None:
            if step == "fsynced" and atomic.orphan_temp_files(destination.parent):  # the zip's, not the note's
                os._exit(9)

        atomic.install_os_calls(atomic.OsCalls(step=kill))  # the child ends at the kill: nothing to put back
        try:
            session.export_plan().run(destination)
        finally:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 9


def _reopen(tmp_path: Path, data: Path) -> RatingSession:
    return new_session(tmp_path / "bundle", data)


def test_the_next_start_removes_what_a_killed_export_left(tmp_path: Path, sample_docs: Any) -> None:
    data = tmp_path / "data"
    session = rated_session(tmp_path, sample_docs, data)
    out = tmp_path / "Desktop"
    out.mkdir()
    _export_killed_mid_write(session, out / "results.zip")
    left = leftover_export_files(out)
    assert len(left) == 1 and left[0].name.startswith(".tmp-results.zip.") and not (out / "results.zip").exists()
    assert (session.store.root / PENDING_NAME).is_file()
    again = _reopen(tmp_path, data)
    assert list(out.iterdir()) == []
    assert not (again.store.root / PENDING_NAME).exists()
    events = [e for e in again.store.read_audit() if e["event"] == "export_leftovers_removed"]
    assert events and events[-1]["files"] == [str(left[0])]


def test_the_next_export_into_the_folder_removes_it_too(tmp_path: Path, sample_docs: Any) -> None:
    session = rated_session(tmp_path, sample_docs)
    out = tmp_path / "exports"
    out.mkdir()
    _export_killed_mid_write(session, out / "first.zip")
    (session.store.root / PENDING_NAME).unlink()  # even without the note (another data folder's export)
    assert leftover_export_files(out)
    session.export_plan().run(out / "second.zip")
    assert sorted(p.name for p in out.iterdir()) == ["second.zip"]


def test_a_running_export_and_other_files_are_left_alone(tmp_path: Path, sample_docs: Any) -> None:
    session = rated_session(tmp_path, sample_docs)
    out = tmp_path / "exports"
    out.mkdir()
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        alive = out / f".tmp-other.zip.{running.pid}.5"
        mine = out / f".tmp-mine.zip.{os.getpid()}.7"  # this process's own (another window's export)
        not_ours = [out / ".tmp-notes.txt.1.2", out / ".tmp-x.zip", out / "results.zip.1.2"]
        for path in (alive, mine, *not_ours):
            path.write_bytes(b"PK")
        session.export_plan().run(out / "new.zip")
        assert all(p.exists() for p in (alive, mine, *not_ours))
    finally:
        running.kill()
        running.wait()
    assert leftover_export_files(out) == [alive]  # once its process is gone it is a leftover


def test_a_killed_sealed_export_of_an_encrypted_bundle_is_removed_too(tmp_path: Path, sample_docs: Any) -> None:
    from tests.kit.bundles import make_bundle
    from tests.kit.encryption import coordinator_keys
    from tests.kit.sessions import fill

    key = os.urandom(32)
    public = coordinator_keys()[1]
    make_bundle(tmp_path / "bundle", sample_docs)
    data = tmp_path / "data"
    session = new_session(tmp_path / "bundle", data, data_key=key, export_public_key=public)
    session.open_task("T-0001")
    fill(session)
    assert session.submit().ok
    out = tmp_path / "Desktop"
    out.mkdir()
    _export_killed_mid_write(session, out / "wmcdp-results-R01-x.wmcdp-sealed")
    left = leftover_export_files(out)
    assert len(left) == 1 and left[0].name.startswith(".tmp-wmcdp-results-R01-x.wmcdp-sealed.")
    again = new_session(tmp_path / "bundle", data, data_key=key, export_public_key=public)
    assert list(out.iterdir()) == []
    assert any(e["event"] == "export_leftovers_removed" for e in again.store.read_audit())
