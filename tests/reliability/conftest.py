"""Fixtures of the reliability suite: the counting ``tally`` and helpers shared by its test files."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .sentinel import Sentinel
from .tally import TALLY, Tally, output_path


@pytest.fixture
def tally() -> Tally:
    return TALLY


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if "tests/reliability/" not in report.nodeid.replace("\\", "/"):
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        TALLY.outcomes[report.outcome] += 1
        if report.outcome == "skipped":
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            TALLY.skipped.append(f"{report.nodeid}: {reason}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = output_path()
    if path is not None:
        TALLY.write(path)


@pytest.fixture
def sentinel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sentinel]:
    s = Sentinel(tmp_path / "world")
    monkeypatch.setenv("HOME", str(s.home))
    monkeypatch.setenv("TMPDIR", str(s.tmp))
    monkeypatch.setenv("XDG_DATA_HOME", str(s.home / ".local" / "share"))
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.chdir(s.cwd)
    yield s


# ----- the real window (UI tests only; Qt is imported lazily) ------------------------------------------
@pytest.fixture
def ui_guard(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from .uikit import guard

    guard(monkeypatch, tmp_path)


@pytest.fixture
def make_window(qtbot: Any, ui_guard: None) -> Iterator[Callable[[list[str]], Any]]:
    """Build real windows through ``create_main_window`` (shown, fake clock); shut them down afterwards."""
    from wmcdp_desktop.rater.app import main as app_module
    from wmcdp_desktop.rater.timing import FakeClock

    from .uikit import close_message_boxes, wait_opened

    made: list[Any] = []

    def make(argv: list[str]) -> Any:
        window = app_module.create_main_window(argv, clock=FakeClock())
        qtbot.addWidget(window)
        made.append(window)
        wait_opened(window)
        window.show()
        qtbot.waitExposed(window)
        return window

    yield make
    for w in made:
        w.shutdown()
    close_message_boxes()
