"""Symbolic links planted in the rater's data folder (issue 13, probed as an attacker): no file is written
through a link. The audit log and the instance lock are refused with a plain message naming the link; a
draft, a record or the settings file saved over a link replaces the link and leaves its target as it was.
A linked folder (the rater put their records on another disk) is the rater's choice and is followed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wmcdp_desktop.core.errors import StorageError
from wmcdp_desktop.core.models.draft import Draft
from wmcdp_desktop.rater.settings import Settings, save_settings, settings_path
from wmcdp_desktop.rater.storage import InstanceLock, RaterStore
from wmcdp_desktop.rater.timing import FakeClock

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink") or os.name != "posix", reason="POSIX symbolic links")


def draft() -> Draft:
    return Draft.model_validate({
        "document_type": "wmcdp_draft", "format_version": "1.0.0", "task_id": "T-0001", "bundle_id": "B-test",
        "rater_id": "R01", "scores": {"WM-RUB-001": 3}, "active_seconds": 12.5,
        "started_at": "2026-11-29T10:00:00Z", "updated_at": "2026-11-29T10:01:00Z",
    })


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "elsewhere" / "victim.txt"
    path.parent.mkdir()
    path.write_text("not the app's\n")
    return path


@pytest.fixture
def store(tmp_path: Path) -> RaterStore:
    store = RaterStore(tmp_path / "data", "B-test", "R01", FakeClock())
    store.ensure()
    return store


def test_an_audit_log_that_is_a_link_is_refused_plainly(store: RaterStore, victim: Path) -> None:
    store.audit_path.unlink(missing_ok=True)
    store.audit_path.symlink_to(victim)
    with pytest.raises(StorageError) as info:
        store.audit("opened")
    assert str(store.audit_path) in str(info.value)
    assert "is a symbolic link, which the app does not follow there" in str(info.value)
    assert "Too many levels" not in str(info.value)
    assert victim.read_text() == "not the app's\n"


def test_a_lock_file_that_is_a_link_is_refused_plainly(tmp_path: Path, victim: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "instance.lock").symlink_to(victim)
    with pytest.raises(StorageError) as info:
        InstanceLock(data).acquire()
    assert "is a symbolic link" in str(info.value) and victim.read_text() == "not the app's\n"


def test_drafts_and_settings_saved_over_a_link_replace_the_link(store: RaterStore, tmp_path: Path, victim: Path) -> None:
    path = store.draft_path("T-0001")
    path.symlink_to(victim)
    store.save_draft(draft())
    assert not path.is_symlink() and store.load_draft("T-0001") == draft()
    data = tmp_path / "data"
    settings_path(data).symlink_to(victim)
    save_settings(data, Settings())
    assert not settings_path(data).is_symlink()
    assert victim.read_text() == "not the app's\n"
