"""Crash logs go to the user's own log folder under a new, unique name, never following a link, and say
what a developer needs (issue 13, items 5 and 8). They used to be ``wmcdp-error.log`` and
``wmcdp-desktop-error.log`` in the shared temp folder, written through any link planted there."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from wmcdp_desktop import __version__
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core import crash_log
from wmcdp_desktop.core.crash_log import KEEP, log_dir, write_crash_log


def _crash(message: str = "slider value out of range") -> tuple[type[BaseException], BaseException, object]:
    try:
        raise OverflowError(message)
    except OverflowError:
        kind, exc, tb = sys.exc_info()
    assert kind is not None and exc is not None
    return kind, exc, tb


def test_a_log_says_what_happened_and_where(tmp_path: Path) -> None:
    kind, exc, tb = _crash()
    path = write_crash_log("wmcdp-desktop", kind, exc, tb, {"Qt": "6.x"}, folder=tmp_path)  # type: ignore[arg-type]
    assert path is not None and path.parent == tmp_path
    text = path.read_text(encoding="utf-8")
    assert f"wmcdp-desktop {__version__} crashed at " in text
    assert "Error: OverflowError: slider value out of range" in text
    assert "Traceback (most recent call last)" in text and "_crash" in text
    assert "Python " in text and "Qt: 6.x" in text


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_logs_are_owner_only_and_never_overwrite_each_other(tmp_path: Path) -> None:
    kind, exc, tb = _crash()
    paths = {write_crash_log("wmcdp", kind, exc, tb, folder=tmp_path) for _ in range(5)}  # type: ignore[arg-type]
    assert None not in paths and len(paths) == 5  # five crashes in the same second: five logs
    for path in paths:
        assert path is not None and stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.skipif(os.name != "posix", reason="creating a symbolic link needs privileges on Windows")
def test_a_planted_link_is_never_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "wmcdp-error-planted.log").symlink_to(victim)
    monkeypatch.setattr(crash_log, "new_log_name", lambda program: f"{program}-error-planted.log")
    kind, exc, tb = _crash()
    assert write_crash_log("wmcdp", kind, exc, tb, folder=logs) is None  # type: ignore[arg-type]
    assert victim.read_text() == "precious"
    # nor is a log folder that is itself a link
    linked = tmp_path / "linked-logs"
    linked.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.undo()
    assert write_crash_log("wmcdp", kind, exc, tb, folder=linked) is None  # type: ignore[arg-type]
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_only_the_newest_logs_are_kept(tmp_path: Path) -> None:
    for i in range(KEEP + 5):
        (tmp_path / f"wmcdp-error-20260101T0000{i:02d}Z-1-abcdef01.log").write_text("old")
    (tmp_path / "wmcdp-desktop-error-20200101T000000Z-1-abcdef01.log").write_text("the app's")
    kind, exc, tb = _crash()
    path = write_crash_log("wmcdp", kind, exc, tb, folder=tmp_path)  # type: ignore[arg-type]
    kept = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("wmcdp-error-"))
    assert len(kept) == KEEP and path is not None and path.name in kept
    assert (tmp_path / "wmcdp-desktop-error-20200101T000000Z-1-abcdef01.log").exists()


@pytest.mark.skipif(sys.platform != "linux", reason="platformdirs reads XDG_STATE_HOME on Linux")
def test_the_log_folder_is_the_users_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert log_dir() == tmp_path / "state" / "wmcdp-desktop" / "log"


def test_the_command_line_says_where_the_log_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from wmcdp_desktop.coordinator.commands import study as study_cmd

    def boom(*args: object, **kwargs: object) -> None:
        raise OverflowError("Python int too large to convert to C int")

    monkeypatch.setattr(study_cmd, "validate_study", boom)
    monkeypatch.setattr(crash_log, "log_dir", lambda: tmp_path / "logs")
    assert main(["study", "validate", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    (log,) = (tmp_path / "logs").iterdir()
    assert f"Details are in {log}." in err and "OverflowError: Python int too large" in err
    assert "Traceback" not in err
    assert "Command: wmcdp study validate" in log.read_text()


def test_a_log_that_cannot_be_written_is_said_plainly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from wmcdp_desktop.coordinator.commands import study as study_cmd

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setattr(study_cmd, "validate_study", lambda *a, **k: 1 / 0)
    monkeypatch.setattr(crash_log, "log_dir", lambda: blocker / "logs")
    assert main(["study", "validate", str(tmp_path)]) == 3
    assert "Details could not be written to a log" in capsys.readouterr().err
