"""Fixtures of the reliability suite: the counting ``tally`` and helpers shared by its test files."""

from __future__ import annotations

import pytest

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
