"""The app in a process of its own, for what one test process cannot change: Qt's own scaling
(``QT_SCALE_FACTOR``) or the real X11 platform. :func:`run_script` (the test's side) runs a script with the
checkout on the path and returns the JSON object it prints last; :func:`open_window` and :func:`settle` (the
script's side) open the real window on a bundle, as the tests' ``make_window`` does, and let the event loop run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

OPEN_TIMEOUT_S = 60


def run_script(repo_root: Path, script: str, args: Sequence[object], env: dict[str, str],
               wrapper: Sequence[str] = ()) -> dict[str, Any]:
    """Run ``script`` (``python -c``, after ``wrapper`` such as ``xvfb-run -a``) with ``args`` and ``env`` on top
    of this environment (less any ``QT_SCALE_FACTOR`` it does not set itself); fails on a non-zero exit."""
    base = {k: v for k, v in os.environ.items() if k != "QT_SCALE_FACTOR"}
    full = {**base, **env, "PYTHONPATH": os.pathsep.join([str(repo_root), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([*wrapper, sys.executable, "-c", script, *map(str, args)], env=full, capture_output=True,
                          text=True, timeout=120, cwd=repo_root, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def settle(seconds: float) -> None:
    """Let the event loop run for ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        QApplication.processEvents()


def open_window(bundle: str, data_dir: str, *, size: tuple[int, int] | None = None,
                language: str | None = None) -> Any:
    """The real window on ``bundle`` for rater R01 (with the app in ``language``), resized to ``size``, shown,
    once its rating page is built (a fake clock: nothing times out)."""
    from wmcdp_desktop.rater.app.main import create_main_window
    from wmcdp_desktop.rater.settings import Settings, save_settings
    from wmcdp_desktop.rater.timing import FakeClock

    if language is not None:
        save_settings(Path(data_dir), Settings(language=language))
    window = create_main_window([bundle, "--data-dir", data_dir, "--rater", "R01"], clock=FakeClock())
    if size is not None:
        window.resize(*size)
    window.show()
    end = time.monotonic() + OPEN_TIMEOUT_S
    while getattr(window, "page", None) is None and time.monotonic() < end:
        QApplication.processEvents()
    return window
