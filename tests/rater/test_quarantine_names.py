"""A quarantined file is never overwritten (issue 13, item 10): names used to be ``<file>.<whole seconds>``,
so two damaged copies of one draft in the same second kept only the second."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wmcdp_desktop.rater.storage import RaterStore
from wmcdp_desktop.rater.timing import FakeClock


def test_two_damaged_copies_in_the_same_second_are_both_kept(tmp_path: Path) -> None:
    clock = FakeClock()  # time does not move between the two
    store = RaterStore(tmp_path, "B-test", "R01", clock)
    store.ensure()
    copies = [b"first damaged copy", b"second damaged copy", b"\x00\x01third"]
    for data in copies:
        store.draft_path("T-0001").write_bytes(data)
        assert store.load_draft("T-0001") is None
    assert len(store.quarantined) == 3 and len(set(store.quarantined)) == 3
    assert sorted(p.read_bytes() for p in store.quarantine_dir.iterdir()) == sorted(copies)
    names = [p.name for p in store.quarantined]
    assert all(n.startswith("T-0001.json.20270115T080000Z.") for n in names)
    moved = [e["moved_to"] for e in store.read_audit() if e["event"] == "draft_quarantined"]
    assert moved == names


@pytest.mark.skipif(os.name != "posix", reason="creating a symbolic link needs privileges on Windows")
def test_a_file_already_in_quarantine_is_never_replaced(tmp_path: Path) -> None:
    clock = FakeClock()
    store = RaterStore(tmp_path, "B-test", "R01", clock)
    store.ensure()
    store.quarantine_dir.mkdir()
    # Whatever is already there under the names a new quarantine could pick (even a link) stays as it was.
    taken = store.quarantine_dir / "T-0001.json.20270115T080000Z.1"
    taken.write_bytes(b"kept")
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"not to be touched")
    (store.quarantine_dir / "T-0001.json.20270115T080000Z.2").symlink_to(outside)
    store.draft_path("T-0001").write_bytes(b"damaged")
    assert store.load_draft("T-0001") is None
    assert taken.read_bytes() == b"kept" and outside.read_bytes() == b"not to be touched"
    assert store.quarantined[0].name == "T-0001.json.20270115T080000Z.3"
    assert store.quarantined[0].read_bytes() == b"damaged"
