"""Every coordinator command answers --help (exit 0) and rejects unknown options (exit 2)."""

from __future__ import annotations

import pytest

from wmcdp_desktop.cli.main import main

COMMANDS = [
    ["study", "validate"],
    ["bundle", "build"],
    ["bundle", "verify"],
    ["results", "validate"],
    ["results", "collect"],
]


@pytest.mark.parametrize("command", COMMANDS)
def test_help(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([*command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert f"wmcdp {' '.join(command)}" in out and "--json" in out


@pytest.mark.parametrize("command", COMMANDS)
def test_unknown_option_is_usage_error(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([*command, "x", "--no-such-option"])
    assert info.value.code == 2
    assert "Traceback" not in capsys.readouterr().err
