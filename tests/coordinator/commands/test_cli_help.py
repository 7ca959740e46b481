"""Every coordinator command answers --help in one style (a line in its parent's list, a description,
examples, exit codes, --json) and rejects unknown options (exit 2)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from wmcdp_desktop.coordinator.commands.main import build_parser, main


def _commands() -> list[list[str]]:
    """Every leaf command of ``wmcdp``, found in the parser itself (a new command cannot be missed)."""
    out: list[list[str]] = []

    def walk(parser: argparse.ArgumentParser, words: list[str]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            out.append(words)
            return
        for name, child in subs[0].choices.items():
            walk(child, [*words, name])

    walk(build_parser(), [])
    return out


COMMANDS = _commands()


def test_the_commands_of_the_readme_are_all_there() -> None:
    assert {" ".join(c) for c in COMMANDS} == {
        "study init", "study validate", "bundle build", "bundle verify", "results validate", "results collect",
        "report"}


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_in_one_style(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([*command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert f"wmcdp {' '.join(command)}" in out and "--json" in out
    assert "\nExamples:\n  wmcdp " + " ".join(command) in out
    assert "Exit codes: 0 ok, 1 invalid input" in out
    description = out.split("\n\n")[1]
    assert len(description) > 40, "every command is described"


@pytest.mark.parametrize("group", sorted({c[0] for c in COMMANDS if len(c) > 1}))
def test_groups_list_every_action_with_a_line(group: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([group, "--help"])
    out = capsys.readouterr().out
    for command in (c for c in COMMANDS if c[0] == group):
        line = next(line for line in out.splitlines() if line.strip().startswith(command[1] + " "))
        assert len(line.split(command[1], 1)[1].strip()) > 10


def test_top_level_help_names_every_command_and_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for group in {c[0] for c in COMMANDS}:
        assert f"\n    {group} " in out
    assert "Examples:" in out and "--json" in out


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_unknown_option_is_usage_error(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([*command, "x", "--no-such-option"])
    assert info.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_bad_option_prints_the_commands_own_usage(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([*command, "x", "--bogus"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: wmcdp {' '.join(command)} ")
    said = err.split(f"wmcdp {' '.join(command)}: error: ", 1)[1]
    assert "--bogus" in said or said.startswith("the following arguments are required"), said


@pytest.mark.parametrize("words", [
    ["--json"], ["study", "--json"], ["study", "validate", "--json"], ["study", "validate", "x", "--bogus", "--json"],
    ["results", "collect", "x.zip", "--json"], ["results", "collect", "x.zip", "--key", "k", "--out", "o", "--names",
                                                "python", "--json"],
    ["report", "--json", "c", "--study", "s", "--out", "o", "--bootstrap", "-1"],
    ["results", "validate", "x.zip", "--receipt", "A", "--receipts", "f", "--json"],
], ids=" ".join)
def test_with_json_a_usage_error_is_one_json_object_on_stdout(words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code: object
    try:
        code = main(words)
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    out = json.loads(capsys.readouterr().out)  # one JSON document, nothing else
    assert out["ok"] is False and out["usage_error"].startswith("wmcdp") and out["usage"].startswith("usage: wmcdp")


def test_with_json_an_unexpected_error_is_one_json_object_too(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    from wmcdp_desktop.coordinator.commands import study as study_cmd

    def broken(study_dir: Path, progress: object = None) -> None:
        raise RuntimeError("boom")

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(study_cmd, "validate_study", broken)  # the one call the command makes
    assert main(["study", "validate", str(tmp_path), "--json"]) == 3
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False and "RuntimeError: boom" in out["error"]
