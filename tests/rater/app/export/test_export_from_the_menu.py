"""Exporting the results from the menu writes an export that wmcdp results validate accepts; the message after it
names what is left out (drafts not submitted)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from tests.rater.app.window_helpers import (
    export_and_wait,
    rows,
    set_all_scores_by_keyboard,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_export_results_from_the_menu(
    qtbot: Any, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_all_scores_by_keyboard(qtbot, window, "4")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    target = tmp_path / "out" / "results.zip"
    target.parent.mkdir()
    from PySide6.QtWidgets import QFileDialog

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "")))
    assert window.rating is not None
    with qtbot.waitSignal(window.rating.exporter.finished, timeout=20_000):
        window.menu.act_export.trigger()
    assert target.exists()
    with zipfile.ZipFile(target) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        assert manifest["counts"]["submitted"] == 1 and manifest["files"][0]["path"] == "records/T-0001.r1.json"
    assert "Exported 1 submitted rating of 3" in window.messages[-1]
    from wmcdp_desktop.coordinator.commands.main import main as wmcdp

    assert wmcdp(["results", "validate", str(target)]) == 0


def test_export_message_names_what_is_left_out(qtbot: Any, window: MainWindow, tmp_path: Path) -> None:
    """A started task and a revision in progress are not exported: the message says so in plain words."""
    assert window.session is not None
    set_all_scores_by_keyboard(qtbot, window, "4")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    window.rating.go_to("T-0001")
    window.rating.revise()
    rows(window)[0].slider.setFocus()
    qtbot.keyClick(rows(window)[0].slider, Qt.Key.Key_2)
    window.rating.go_to("T-0003")
    rows(window)[0].slider.setFocus()
    qtbot.keyClick(rows(window)[0].slider, Qt.Key.Key_5)
    assert export_and_wait(qtbot, window, tmp_path / "results.zip")
    message = window.messages[-1]
    assert message.startswith("Exported 1 submitted rating of 3 tasks (with every earlier revision) to:")
    assert "Not included: 1 task started but not submitted yet." in message
    assert "Not included: 1 revision you have not submitted yet (the earlier submitted rating is included)." in message
