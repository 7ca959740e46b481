"""Exporting the results from the menu writes an export that wmcdp results validate accepts."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.rater.app.window_helpers import (
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
