"""README.md: the two Quick-start commands, CI running the same test command, links that exist."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _readme(repo_root: Path) -> str:
    return (repo_root / "README.md").read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    match = re.search(rf"^## {re.escape(heading)}\s*$(.*?)(?=^## |^<!-- section|\Z)", text, re.MULTILINE | re.DOTALL)
    assert match, f"README has no '## {heading}' section"
    return match.group(1)


def _quick_start_commands(repo_root: Path) -> list[str]:
    blocks = FENCE.findall(_section(_readme(repo_root), "Quick start"))
    assert [lang for lang, _ in blocks] == ["sh", "sh"], "Quick start must hold exactly two ```sh blocks"
    commands = []
    for _, body in blocks:
        lines = [line for line in body.splitlines() if line.strip()]
        assert len(lines) == 1, f"each Quick start block is one command line: {body!r}"
        commands.append(lines[0].strip())
    return commands


def test_quick_start_has_install_and_test_commands(repo_root: Path) -> None:
    install, tests = _quick_start_commands(repo_root)
    assert "pip install -e ." in install
    assert install.endswith("wmcdp-desktop --demo")
    assert "python -m pytest" in tests
    assert '".[dev]"' in tests
    assert "QT_QPA_PLATFORM=offscreen" in tests
    for command in (install, tests):
        shlex.split(command)  # well-formed shell words


def test_ci_runs_the_readme_test_command_verbatim(repo_root: Path) -> None:
    _, tests = _quick_start_commands(repo_root)
    ci = repo_root / ".ci" / "run"
    lines = [line.strip() for line in ci.read_text(encoding="utf-8").splitlines()]
    assert tests in lines, f".ci/run must contain the README's test command:\n{tests}"
    assert lines[0].startswith("#!"), ".ci/run needs a shebang"
    assert any(line.startswith("set -e") for line in lines)
    assert any("ruff check" in line for line in lines)
    assert any("python3 -m venv .venv" in line for line in lines), "CI must start from a fresh virtual environment"
    if os.name == "posix":
        assert os.access(ci, os.X_OK), ".ci/run must be executable"


def test_demo_option_exists(repo_root: Path) -> None:
    """The install command starts the app with --demo: the GUI entry point must know it."""
    source = (repo_root / "wmcdp_desktop" / "rater" / "app" / "main.py").read_text(encoding="utf-8")
    assert '"--demo"' in source


def test_every_schema_named_in_readme_exists(repo_root: Path) -> None:
    text = _readme(repo_root)
    named = set(re.findall(r"schemas/([\w.-]+\.schema\.json)", text))
    assert len(named) >= 9
    missing = sorted(name for name in named if not (repo_root / "schemas" / name).is_file())
    assert missing == []


def test_every_published_schema_is_listed_in_readme(repo_root: Path) -> None:
    text = _readme(repo_root)
    for path in sorted((repo_root / "schemas").glob("*.schema.json")):
        if path.name in ("draft.schema.json", "unblinding-key.schema.json"):
            continue  # internal files (the rater's drafts, the coordinator's key), described in docs/FORMATS.md
        assert f"schemas/{path.name}" in text, f"README's formats table does not mention {path.name}"


def test_relative_links_exist(repo_root: Path) -> None:
    text = _readme(repo_root)
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    local = [link.split("#")[0] for link in links if not re.match(r"[a-z]+:", link) and not link.startswith("#")]
    assert local, "README links to schemas/ and docs/"
    missing = sorted({link for link in local if link and not (repo_root / link).exists()})
    assert missing == []


@pytest.mark.parametrize("heading", ["Quick start", "Where data is stored", "Formats in brief"])
def test_sections_present(heading: str, repo_root: Path) -> None:
    assert _section(_readme(repo_root), heading).strip()
