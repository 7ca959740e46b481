"""Finding record files in a folder: the right files, as path strings, in the order sorted paths have."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wmcdp_desktop.coordinator.results.reader import record_files
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
    found = [Path(p) for p in record_files(tmp_path, problems)]
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
    assert record_files(missing, problems) == []
    assert "cannot be read" in problems[0].message


def test_names_that_sort_between_a_folder_and_its_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``a/...`` before ``a-b/...`` before ``a.b/...`` before ``ab.json``: the order of the sorted paths
    (what ``sorted(Path.rglob(...))`` gives), not of the sorted strings ("a-b/x" < "a/z" as text)."""
    rels = ("b/t2.json", "b/t1.json", "b.json", "a-b/x.json", "a/z.json", "a.b/y.json", "ab.json", "a/b/c/d.json")
    for rel in rels:
        (tmp_path / "tree" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "tree" / rel).write_text("{}", encoding="utf-8")
    expected = [str(p) for p in sorted((tmp_path / "tree").rglob("*.json"))]
    assert record_files(tmp_path / "tree", []) == expected
    monkeypatch.chdir(tmp_path / "tree")
    assert record_files(Path("."), []) == [str(p) for p in sorted(Path(".").rglob("*.json"))]
    assert record_files(Path("."), [])[0] == str(Path("a/b/c/d.json"))
    monkeypatch.chdir(tmp_path)
    assert record_files(Path("tree/"), []) == [str(p) for p in sorted(Path("tree").rglob("*.json"))]
