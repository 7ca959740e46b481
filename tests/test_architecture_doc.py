"""docs/ARCHITECTURE.md draws the package's tree: every folder of ``wmcdp_desktop/`` is in the drawing, so a
newcomer can find a behaviour from folder names, and a folder added or moved without the drawing fails."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "wmcdp_desktop"


def tree_drawing() -> str:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    match = re.search(r"```\nwmcdp_desktop/\n(.*?)```", text, re.S)
    assert match, "docs/ARCHITECTURE.md has no drawing of the tree starting with wmcdp_desktop/"
    return match.group(1)


def drawn_folders(drawing: str) -> set[str]:
    """The folders of the drawing as paths (``rater/app/form``), from each line's indentation."""
    folders: set[str] = set()
    stack: list[tuple[int, str]] = []
    for line in drawing.splitlines():
        match = re.match(r"^( *)([a-z_]+)/\s", line + " ")
        if not match:
            continue
        indent = len(match.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, match.group(2)))
        folders.add("/".join(name for _, name in stack))
    return folders


def package_folders() -> set[str]:
    return {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_dir() and (path / "__init__.py").exists()
    }


def test_every_package_folder_is_drawn() -> None:
    drawn = drawn_folders(tree_drawing())
    missing = sorted(package_folders() - drawn)
    assert not missing, f"folders missing from the drawing in docs/ARCHITECTURE.md: {missing}"


def test_every_drawn_folder_exists() -> None:
    extra = sorted(drawn_folders(tree_drawing()) - package_folders())
    assert not extra, f"docs/ARCHITECTURE.md draws folders the package does not have: {extra}"


def test_a_missing_folder_is_noticed() -> None:
    drawing = tree_drawing().replace("      form/", "      forms/")
    assert "rater/app/form" not in drawn_folders(drawing)
