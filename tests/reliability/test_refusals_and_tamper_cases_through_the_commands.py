"""Every case of issue 13 and every tamper case, through the commands a user runs (``wmcdp`` and
``wmcdp-desktop``): the exit status the user must get, and a line that says what is wrong, naming the file.
The cases are those ``python -m tests.reliability.refusals`` times in fresh processes for docs/RELIABILITY.md;
here they run in-process (the app's self-test cases run in the UI tests and in that table)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .refusals import Case, build_cases
from .tally import Tally

pytestmark = pytest.mark.reliability



def _names(case: Case) -> set[str]:
    """The names a line may use for the case's input: each path given, and each file in a folder given."""
    names: set[str] = set()
    for arg in case.args:
        path = Path(arg)
        if os.path.lexists(path) and arg not in ("-", ""):
            names.add(path.name)
            if path.is_dir():
                names.update(p.name for p in path.iterdir())
    return names


def _run(case: Case, capsys: pytest.CaptureFixture[str]) -> str | None:
    """None when the command did as the case says, else what went wrong."""
    old = os.umask(case.umask) if case.umask is not None else None
    try:
        if case.program == "wmcdp":
            from wmcdp_desktop.coordinator.commands.main import main

            code = main(case.args)
        else:
            from wmcdp_desktop.rater.app.main import main as app_main

            code = app_main(case.args)
    finally:
        if old is not None:
            os.umask(old)
    out, err = capsys.readouterr()
    text = out + err
    lines = [line for line in text.splitlines() if case.expect.lower() in line.lower()]
    if "Traceback" in text:
        return "a traceback was printed"
    if code != case.code:
        return f"exit {code}, expected {case.code}: {text[-600:]}"
    if not lines:
        return f"no line says {case.expect!r}: {text[-600:]}"
    if case.code == 1 and case.program == "wmcdp" and not any(n in line for n in _names(case) for line in lines):
        return f"the line names no file: {lines[0]}"
    return case.after() if case.after is not None else None


def test_every_case_exits_as_it_must_with_a_line_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tally: Tally
) -> None:
    from wmcdp_desktop.core.files import MAX_DOCUMENT_BYTES

    cases = [c for c in build_cases(tmp_path, huge=MAX_DOCUMENT_BYTES + 1)
             if "--self-test" not in c.args and c.item != "-"]
    assert len(cases) >= 40
    failed: list[str] = []
    for case in cases:
        try:
            with tally.hostile(f"issue 13 case through the command line (item {case.item})"):
                problem = _run(case, capsys)
                assert problem is None, problem  # counted as handled only when it held
        except AssertionError as exc:
            failed.append(f"{case.key}: {exc}")
    assert failed == [], "\n".join(failed)
