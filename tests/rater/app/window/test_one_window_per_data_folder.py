"""One window per data folder: a second instance on the same folder is refused in plain words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from wmcdp_desktop.core.errors import AlreadyRunningError
from wmcdp_desktop.rater.app import main as app_module
from wmcdp_desktop.rater.app import single_instance
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_second_instance_on_the_same_data_folder_is_refused(
    qtbot: Any, window: MainWindow, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(AlreadyRunningError, match="already open on this data folder"):
        app_module.create_main_window(["--data-dir", str(data_dir)])
    shown: list[str] = []
    monkeypatch.setattr(app_module, "show_fatal", shown.append)
    # The window that holds the folder runs in this process: it cannot answer the hand-over while this start
    # waits on the same thread, so its silence is not waited for 5 s a time.
    monkeypatch.setattr(single_instance, "ANSWER_MS", 200)
    assert app_module.main(["--data-dir", str(data_dir)]) == 1
    assert shown and "already open" in shown[0]
