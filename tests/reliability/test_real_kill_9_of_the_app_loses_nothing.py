"""A few real ``kill -9`` of the real app at random moments (``python -m tests.reliability.kill_probe``, whose
longer runs give the figures in docs/RELIABILITY.md): nothing submitted is lost or changed, the audit chain
holds, the next run passes and every record validates."""

from __future__ import annotations

import signal

import pytest

from .kill_probe import main
from .tally import Tally

pytestmark = [pytest.mark.reliability, pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")]


def test_random_kills_of_the_app_lose_nothing(capsys: pytest.CaptureFixture[str], tally: Tally) -> None:
    with tally.fault("kill -9 of the real app at a random moment (self-test session)"):
        assert main(["4", "--seed", "7"]) == 0, capsys.readouterr().out
    line = capsys.readouterr().out
    assert "lost 0, changed 0; audit chain holds: True; then one more run passed" in line, line
