"""The CLI progress bar draws only on a terminal."""

from __future__ import annotations

import io

from wmcdp_desktop.coordinator.commands.progress import ProgressBar


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_draws_on_a_terminal() -> None:
    stream = FakeTTY()
    with ProgressBar("Working", stream) as bar:
        for i in range(1, 11):
            bar(i, 10)
    text = stream.getvalue()
    assert "Working [" in text and "10/10" in text and text.endswith("\n")


def test_silent_when_not_a_terminal() -> None:
    stream = io.StringIO()
    with ProgressBar("Working", stream) as bar:
        bar(1, 2)
        bar(2, 2)
    assert stream.getvalue() == ""


def test_disabled_explicitly_and_zero_total() -> None:
    stream = FakeTTY()
    with ProgressBar("Working", stream, enabled=False) as bar:
        bar(1, 1)
    with ProgressBar("Working", stream) as bar:
        bar(0, 0)
    assert stream.getvalue() == ""
