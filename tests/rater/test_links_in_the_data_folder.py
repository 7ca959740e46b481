"""Symbolic links planted in the rater's data folder (issue 13, probed as an attacker): no file is written
through a link. The audit log and the instance lock are refused with a plain message naming the link; a
draft, a record or the settings file saved over a link replaces the link and leaves its target as it was.
A folder inside the data folder that is a link to outside it (issue 25) is refused at every level (bundles/, the
bundle's and the rater's folders, drafts/, records/): the data folder is the data folder. The data folder itself
may be a link (it is the rater's choice), and so may a folder linked to another place inside it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from wmcdp_desktop.core.errors import StorageError
from wmcdp_desktop.core.models.draft import Draft
from wmcdp_desktop.core.models.rating_record import RatingRecord
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


LEVELS = ["bundles", "bundles/B-test", "bundles/B-test/R01", "bundles/B-test/R01/drafts",
          "bundles/B-test/R01/records"]
"""Every folder level below the data folder that the store writes in."""


def _outside_folder_link(data: Path, level: str, tmp_path: Path) -> Path:
    """Make ``level`` a link to a folder outside ``data`` that holds what was there."""
    outside = tmp_path / "outside" / level.replace("/", "_")
    outside.parent.mkdir(exist_ok=True)
    inside = data / level
    if inside.exists():
        inside.rename(outside)
    else:
        outside.mkdir()
    inside.symlink_to(outside, target_is_directory=True)
    return outside


def _everything_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("write", ["draft", "record", "audit"])
def test_a_folder_linked_outside_the_data_folder_is_refused_at_every_level(
    tmp_path: Path, level: str, write: str, sample_docs: Any
) -> None:
    data = tmp_path / "data"
    store = RaterStore(data, "B-test", "R01", FakeClock())
    store.ensure()
    outside = _outside_folder_link(data, level, tmp_path)
    before = _everything_under(outside)
    with pytest.raises(StorageError) as info:
        if write == "draft":
            store.save_draft(draft())
        elif write == "record":
            store.save_record(RatingRecord.model_validate(sample_docs("RatingRecord")))
        else:
            store.audit("opened")
    message = str(info.value)
    assert f"{data / level} is a link to {outside.resolve()}" in message
    assert "outside the data folder" in message and "Traceback" not in message
    assert _everything_under(outside) == before  # nothing was written through the link


def test_a_new_store_under_a_linked_bundles_folder_makes_nothing_there(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    outside = _outside_folder_link(data, "bundles", tmp_path)
    with pytest.raises(StorageError, match="is a link to"):
        RaterStore(data, "B-test", "R01", FakeClock()).ensure()
    assert list(outside.iterdir()) == []


def test_links_that_stay_inside_the_data_folder_and_a_linked_data_folder_are_followed(tmp_path: Path) -> None:
    real = tmp_path / "real-data"
    real.mkdir()
    data = tmp_path / "data"
    data.symlink_to(real, target_is_directory=True)  # the data folder itself: the rater's choice
    (real / "elsewhere-inside").mkdir()
    (real / "bundles").symlink_to(real / "elsewhere-inside", target_is_directory=True)
    store = RaterStore(data, "B-test", "R01", FakeClock())
    store.ensure()
    store.save_draft(draft())
    store.audit("opened")
    assert store.load_draft("T-0001") == draft()
    assert (real / "elsewhere-inside" / "B-test" / "R01" / "audit.jsonl").is_file()


def test_a_link_that_leaves_through_another_link_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = RaterStore(data, "B-test", "R01", FakeClock())
    store.ensure()
    (tmp_path / "away").mkdir()
    (data / "hop").symlink_to(tmp_path / "away", target_is_directory=True)  # itself never written through
    drafts = data / "bundles" / "B-test" / "R01" / "drafts"
    drafts.rmdir()
    drafts.symlink_to(data / "hop", target_is_directory=True)  # inside by name, outside once followed
    with pytest.raises(StorageError, match="is a link to"):
        store.save_draft(draft())
    assert list((tmp_path / "away").iterdir()) == []
