"""A thread of the app's own (opening a bundle, saving) keeps the interpreter at most 1 ms while the window's
thread waits for it (Python's default is 5 ms: the stall while a 10,000-task bundle opened was 113-153 ms, 56-87
ms with 1 ms; docs/PERFORMANCE.md, "Start-up and stalls"), however the app is started: as ``wmcdp-desktop``
starts it and as the tests build it. (The benchmark built it one way, the app started the other: only the
benchmark had it.)"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from wmcdp_desktop.rater.app.main import GIL_SWITCH_S
from wmcdp_desktop.rater.app.window.main_window import MainWindow


@pytest.fixture
def default_interval() -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)
    yield
    sys.setswitchinterval(before)


def test_as_wmcdp_desktop_starts(
    qtbot: Any, data_dir: Path, start_app: Callable[[list[str]], MainWindow], default_interval: None
) -> None:
    window = start_app(["--data-dir", str(data_dir), "--rater", "R01"])
    qtbot.waitUntil(lambda: window.ready, timeout=20_000)
    assert sys.getswitchinterval() == pytest.approx(GIL_SWITCH_S)
    assert GIL_SWITCH_S <= 0.001


def test_as_the_tests_build_it(make_window: Callable[..., MainWindow], data_dir: Path, default_interval: None) -> None:
    make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    assert sys.getswitchinterval() == pytest.approx(GIL_SWITCH_S)
