"""Finding record files in a folder (os.scandir version, docs/PERFORMANCE.md): same files, same order."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wmcdp_desktop.core.coordinator.results_reader import _record_files
from wmcdp_desktop.core.errors import Problem


def test_record_files_found_sorted_with_skips_and_symlinks(tmp_path: Path) -> None:
    for rel in ("b/t2.r1.json", "b/t1.r1.json", "a-b/x.json", "a/z.json", "top.json",
                "drafts/d.json", "quarantine/q.json", ".hidden/h.json", "a/.dot.json", "a/notes.txt", "a/up.JSON"):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}", encoding="utf-8")
    problems: list[Problem] = []
    if os.name == "posix":
        (tmp_path / "a" / "link.json").symlink_to(tmp_path / "top.json")
    found = _record_files(tmp_path, problems)
    rel = [p.relative_to(tmp_path).as_posix() for p in found]
    assert rel == sorted(rel, key=lambda r: Path(r).parts)
    assert set(rel) == {"b/t2.r1.json", "b/t1.r1.json", "a-b/x.json", "a/z.json", "top.json"}
    assert found == sorted(found)  # the order pathlib gives
    if os.name == "posix":
        assert [p.message for p in problems] == ["is a symbolic link (skipped)"]
        assert problems[0].file.endswith("link.json")


@pytest.mark.skipif(os.name != "posix", reason="permissions")
def test_unreadable_folder_is_a_problem(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    problems: list[Problem] = []
    assert _record_files(missing, problems) == []
    assert "cannot be read" in problems[0].message
