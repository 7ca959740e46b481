"""Written files respect the user's umask; the coordinator's unblinded outputs and the key are owner-only
whatever the umask (issue 13, item 7).

Permission bits work the same when the tests run as root (CI), so nothing here needs a normal user. Only
systems without POSIX permissions (Windows) skip.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.kit.bundles import make_bundle
from tests.kit.sessions import new_session
from wmcdp_desktop.core.atomic import OWNER_ONLY, atomic_write_bytes
from wmcdp_desktop.rater.settings import Settings, save_settings
from wmcdp_desktop.rater.storage import InstanceLock
from wmcdp_desktop.rater.timing import FakeClock

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")


@pytest.fixture(params=[0o077, 0o022, 0o027, 0o002])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_atomic_writes_take_the_umask(tmp_path: Path, umask: int) -> None:
    atomic_write_bytes(tmp_path / "new.json", b"{}")
    assert mode(tmp_path / "new.json") == 0o666 & ~umask
    # Replacing a file gives the new one the same permissions a new file gets.
    atomic_write_bytes(tmp_path / "new.json", b"[]")
    assert mode(tmp_path / "new.json") == 0o666 & ~umask


def test_owner_only_whatever_the_umask(tmp_path: Path) -> None:
    for mask in (0o000, 0o022, 0o077):
        old = os.umask(mask)
        try:
            atomic_write_bytes(tmp_path / f"key-{mask}.json", b"{}", mode=OWNER_ONLY)
        finally:
            os.umask(old)
        assert mode(tmp_path / f"key-{mask}.json") == 0o600


def test_everything_the_rater_app_writes_takes_the_umask(tmp_path: Path, sample_docs: Any, umask: int) -> None:
    clock = FakeClock()
    data = tmp_path / "data"
    lock = InstanceLock(data, clock)
    lock.acquire()
    try:
        save_settings(data, Settings(rater_id="R01"))
        session = new_session(make_bundle(tmp_path / "bundle", sample_docs), data, clock)
        session.open_task("T-0001")
        for dim in session.rubric.dimensions:
            session.set_score(dim.id, 3)
        session.set_note("brief_rationale", "because")
        assert session.submit().ok
        session.open_task("T-0002")
        session.set_score("WM-RUB-001", 2)
        assert session.save_draft()
        # a damaged draft goes to quarantine/
        session.store.draft_path("T-0003").write_bytes(b"not json")
        session.store.load_draft("T-0003")
        session.export_results(tmp_path / "export.zip")
        written = [
            data / "settings.json",
            data / "instance.json",
            session.store.audit_path,
            session.store.draft_path("T-0002"),
            session.store.record_path("T-0001", 1),
            *session.store.quarantined,
            tmp_path / "export.zip",
        ]
        assert session.store.quarantined
        for path in written:
            assert mode(path) == 0o666 & ~umask, path
        if umask & 0o077 == 0o077:
            for path in written:
                assert not mode(path) & 0o077, f"{path} is readable by others under umask 077"
    finally:
        lock.release()
