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


def named_modules(text: str) -> set[str]:
    """File names of modules written in code spans outside the drawing (``form/sliders.py``, ``jobs.py``)."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    return {token.rsplit("/", 1)[-1] for span in re.findall(r"`([^`\n]+)`", prose)
            for token in re.findall(r"[\w/]+\.py", span)}


def test_every_module_is_named_with_what_it_owns() -> None:
    """Each module of the package (the models aside: one per document, in ``core/models/``) is named in the
    tables and paragraphs that say what it owns, so a module added without a word about it fails."""
    named = named_modules((ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8"))
    modules = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
               if p.name != "__init__.py" and not p.relative_to(PACKAGE).as_posix().startswith("core/models/")}
    assert sorted(m for m in modules if m.rsplit("/", 1)[-1] not in named) == []


def test_a_module_without_a_word_is_noticed() -> None:
    assert "sliders.py" in named_modules("the slider: `form/sliders.py`")
    assert "sliders.py" not in named_modules("```\n  form/  sliders.py\n```\nthe form")
