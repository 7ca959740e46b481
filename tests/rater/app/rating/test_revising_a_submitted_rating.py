"""Revising a submitted rating in the window writes a new revision and keeps the old record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QPushButton,
)

from tests.rater.app.window_helpers import (
    CTRL,
    by_name,
    record_files,
    rows,
    set_all_scores_by_keyboard,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.rater.app.text.accessible import is_read_only
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_revision_keeps_the_old_record(qtbot: Any, window: MainWindow, data_dir: Path) -> None:
    set_all_scores_by_keyboard(qtbot, window, "3")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    assert window.session is not None and window.session.current_id == "T-0002"
    qtbot.keyClick(window.focusWidget() or window, Qt.Key.Key_PageUp, CTRL)  # previous task
    assert window.session.current_id == "T-0001" and window.session.current is None
    assert all(r.isEnabled() and is_read_only(r.slider) for r in rows(window))  # submitted: read-only until Revise
    qtbot.mouseClick(by_name(window, QPushButton, "Revise this rating"), Qt.MouseButton.LeftButton)
    assert rows(window)[0].value() == 3
    rows(window)[0].slider.setFocus()
    qtbot.keyClick(rows(window)[0].slider, Qt.Key.Key_5)
    submit_by_keyboard(qtbot, window)
    names = [f.name for f in record_files(data_dir)]
    assert names == ["T-0001.r1.json", "T-0001.r2.json"]
    r1, r2 = (json.loads(f.read_text(encoding="utf-8")) for f in record_files(data_dir))
    assert r1["scoring"]["emotional_attunement_validation_score"] == 3
    assert r2["scoring"]["emotional_attunement_validation_score"] == 5
    assert r2["envelope"]["supersedes_record_id"] == r1["envelope"]["record_id"]
