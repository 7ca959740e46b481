"""One window per data folder: a second instance on the same folder is refused in plain words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from wmcdp_desktop.core.errors import AlreadyRunningError
from wmcdp_desktop.rater.app import main as app_module
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_second_instance_on_the_same_data_folder_is_refused(
    qtbot: Any, window: MainWindow, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(AlreadyRunningError, match="already open on this data folder"):
        app_module.create_main_window(["--data-dir", str(data_dir)])
    shown: list[str] = []
    monkeypatch.setattr(app_module, "show_fatal", shown.append)
    assert app_module.main(["--data-dir", str(data_dir)]) == 1
    assert shown and "already open" in shown[0]
