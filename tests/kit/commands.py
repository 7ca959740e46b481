"""The ``wmcdp`` command run in the test's process, as a coordinator would type it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from wmcdp_desktop.coordinator.commands.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    """``wmcdp ARGV...`` (each argument as text): its exit code, stdout and stderr; never a traceback."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def build_json(capsys: pytest.CaptureFixture[str], study: Path, out: Path, *extra: str) -> dict[str, Any]:
    """``wmcdp bundle build STUDY --out OUT --json EXTRA...``, which must succeed: its JSON result."""
    code, stdout, err = run(capsys, "bundle", "build", study, "--out", out, "--json", *extra)
    assert code == 0, stdout + err
    result: dict[str, Any] = json.loads(stdout)
    return result
