"""The welcome screen (recent bundles, the demo) and --demo, which opens the shipped demo bundle."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QPushButton,
)

from tests.rater.app.window_helpers import (
    by_name,
    open_and_wait,
    wait_opened,
)
from wmcdp_desktop.core.resources import demo_bundle_path
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_welcome_screen_recent_bundles_and_demo(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    window = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    assert window.session is None and window.stack.currentWidget() is window.welcome
    by_name(window, QPushButton, "Open bundle…")
    demo = by_name(window, QPushButton, "Try the demo bundle")
    assert "Rating as: R01" in window.welcome.rater_label.text()
    assert open_and_wait(qtbot, window, bundle_dir)
    window.close_bundle()
    assert window.welcome.recent.count() == 1
    window.close()
    again = make_window(["--data-dir", str(data_dir)])  # rater id remembered
    assert again.settings.rater_id == "R01"
    item = again.welcome.recent.item(0)
    again.welcome.recent.itemActivated.emit(item)
    wait_opened(qtbot, again)
    assert again.session is not None and again.session.manifest.bundle_id == "B-test"
    again.close_bundle()
    qtbot.mouseClick(by_name(again, QPushButton, "Try the demo bundle"), Qt.MouseButton.LeftButton)
    wait_opened(qtbot, again)
    if demo_bundle_path().exists():
        assert again.session is not None and again.session.progress()[1] > 0
    else:
        assert "demo bundle is missing" in again.messages[-1]
    del demo


def test_demo_flag_opens_the_shipped_demo_bundle(make_window: Callable[..., MainWindow], data_dir: Path) -> None:
    if not demo_bundle_path().exists():
        pytest.skip("the demo bundle is not built yet")
    window = make_window(["--demo", "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.session is not None and window.session.current_id == window.session.task_ids[0]
    assert window.page is not None and window.page.task_view.response.toPlainText()
