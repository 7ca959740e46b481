"""Hostile bundles through every open path: the zip checks, the app's open (core.bundle_reader), the
coordinator's ``wmcdp bundle verify``, and the window's Open (see test_ui_hostile.py).

Promise: each gets a plain error naming the bundle (and the member where there is one); nothing is
written anywhere outside the data folder; nothing crashes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.zips.reader import open_zip_bytes

from .hostile_zips import CASES, EVIL, json_cases
from .sentinel import Sentinel
from .tally import Tally

pytestmark = pytest.mark.reliability

def _put(sentinel: Sentinel, case: str) -> Path:
    path = sentinel.inbox / "hostile.wmcdp"
    path.write_bytes(CASES[case]())
    return path


def open_problems(path: Path) -> str:
    """What the app does when a bundle is opened: open, then read the first task; and verify all.

    Returns the plain error text, ``""`` when the bundle is valid (any other exception propagates).
    """
    try:
        bundle = open_bundle(path)
        bundle.task(bundle.task_ids[0])
        problems = bundle.verify().problems
    except DocumentError as exc:
        return str(exc)
    return "\n".join(str(p) for p in problems)


def app_open(path: Path) -> str:
    """:func:`open_problems`, failing the test when a hostile bundle is accepted."""
    text = open_problems(path)
    assert text, "hostile bundle accepted"
    return text


@pytest.mark.parametrize("case", list(CASES))
def test_zip_checks(case: str, sentinel: Sentinel, tally: Tally) -> None:
    with tally.hostile(f"zip: {case}"):
        data = CASES[case]()
        with pytest.raises(DocumentError) as info:
            open_zip_bytes(data, "hostile.wmcdp").read_all()
        assert str(info.value).startswith("hostile.wmcdp")
        sentinel.check(EVIL)


@pytest.mark.parametrize("case", list(CASES))
def test_app_open_path(case: str, sentinel: Sentinel, tally: Tally) -> None:
    with tally.hostile(f"zip: {case}"):
        path = _put(sentinel, case)
        text = app_open(path)
        assert "hostile.wmcdp" in text
        assert "Traceback" not in text
        sentinel.check(EVIL)


@pytest.mark.parametrize("case", list(CASES))
def test_cli_bundle_verify(case: str, sentinel: Sentinel, tally: Tally, capsys: pytest.CaptureFixture[str]) -> None:
    from wmcdp_desktop.coordinator.commands.main import main

    with tally.hostile(f"zip: {case}"):
        path = _put(sentinel, case)
        code = main(["bundle", "verify", str(path)])
        out = capsys.readouterr()
        assert code == 1, (code, out)
        assert "Traceback" not in out.out + out.err
        assert "hostile.wmcdp" in out.out + out.err
        sentinel.check(EVIL)


def _folder_bundle(root: Path) -> Path:
    from tests.kit.bundles import bundle_files

    for name, data in bundle_files(2).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


@pytest.mark.parametrize("kind", ["task file symlink", "tasks folder symlink", "symlink to outside secret"])
def test_folder_bundle_with_symlinks(kind: str, sentinel: Sentinel, tally: Tally, capsys: pytest.CaptureFixture[str]) -> None:
    with tally.hostile(f"folder bundle: {kind}"):
        outside = sentinel.root / "outside"
        _folder_bundle(outside)  # a valid copy outside the bundle folder
        folder = _folder_bundle(sentinel.inbox / "bundle")
        if kind == "task file symlink":
            (folder / "tasks" / "t0000.json").unlink()
            (folder / "tasks" / "t0000.json").symlink_to(outside / "tasks" / "t0000.json")
        elif kind == "tasks folder symlink":
            import shutil

            shutil.rmtree(folder / "tasks")
            (folder / "tasks").symlink_to(outside / "tasks", target_is_directory=True)
        else:
            (folder / "rubric.json").unlink()
            (folder / "rubric.json").symlink_to(outside / "rubric.json")
        sentinel.before = sentinel.snapshot()
        text = app_open(folder)
        assert "symbolic link" in text or "outside" in text, text
        from wmcdp_desktop.coordinator.commands.main import main

        assert main(["bundle", "verify", str(folder)]) == 1
        capsys.readouterr()
        sentinel.check()


JSON_CASES = json_cases()


@pytest.mark.parametrize("case", list(JSON_CASES))
def test_hostile_json_inside_a_bundle(case: str, sentinel: Sentinel, tally: Tally, capsys: pytest.CaptureFixture[str]) -> None:
    """Each hostile JSON payload as bundle.json, rubric.json and a task, through the app's open path and
    ``wmcdp bundle verify``: a plain error naming the member."""
    member = case.split(":", 1)[0]
    with tally.hostile(f"json in bundle: {case.split(': ', 1)[1]}"):
        path = sentinel.inbox / "hostile.wmcdp"
        path.write_bytes(JSON_CASES[case]())
        text = app_open(path)
        assert f"hostile.wmcdp!{member}" in text or f"hostile.wmcdp: {member}" in text or member in text, text
        assert "Traceback" not in text
        from wmcdp_desktop.coordinator.commands.main import main

        code = main(["bundle", "verify", str(path)])
        out = capsys.readouterr()
        assert code == 1, (code, out)
        assert member in out.out + out.err and "Traceback" not in out.out + out.err
        sentinel.check()


@pytest.mark.parametrize("case", list(CASES))
def test_cli_results_validate(case: str, sentinel: Sentinel, tally: Tally, capsys: pytest.CaptureFixture[str]) -> None:
    """The same hostile zips handed back as a rater's results export."""
    from wmcdp_desktop.coordinator.commands.main import main

    with tally.hostile(f"results zip: {case}"):
        path = sentinel.inbox / "hostile-results.zip"
        path.write_bytes(CASES[case]())
        code = main(["results", "validate", str(path)])
        out = capsys.readouterr()
        assert code == 1, (code, out)
        assert "Traceback" not in out.out + out.err
        assert "hostile-results.zip" in out.out + out.err
        sentinel.check(EVIL)
