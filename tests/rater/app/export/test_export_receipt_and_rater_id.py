"""After exporting, the window shows the receipt code to send apart from the file (tamper-evident
results, issue 13); the rater id is checked at every entry of the app (items 2 and 3)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLineEdit, QPushButton

from tests.rater.app.window_helpers import (
    by_name,
    export_and_wait,
    set_all_scores_by_keyboard,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.coordinator.results.reader import read_export
from wmcdp_desktop.core.errors import WmcdpError
from wmcdp_desktop.rater.app.window.main_window import MainWindow

CODE = re.compile(r"^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$")


def test_the_receipt_is_shown_selectable_named_and_matches_the_file(
    qtbot: Any, window: MainWindow, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    set_all_scores_by_keyboard(qtbot, window, "4")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    target = tmp_path / "results.zip"
    assert export_and_wait(qtbot, window, target)
    qtbot.waitUntil(lambda: window.receipt_dialog is not None and window.receipt_dialog.isVisible(), timeout=5000)
    dialog = window.receipt_dialog
    assert dialog is not None
    field = by_name(dialog, QLineEdit, "Receipt code")
    code = field.text()
    assert CODE.match(code), code
    assert field.isReadOnly() and field.hasFocus() and field.selectedText() == code  # ready to copy
    assert "separately from the file" in field.accessibleDescription()
    assert "Exported 1 submitted rating of 3" in dialog.summary.text()
    assert window.messages[-1].endswith(f"Receipt code: {code}")
    # the code is the one the coordinator's tools derive from the file
    chain = read_export(target).chain
    assert chain is not None and chain.receipt == code
    from wmcdp_desktop.coordinator.commands.main import main as wmcdp

    assert wmcdp(["results", "validate", str(target), "--receipt", code]) == 0
    capsys.readouterr()
    # Copy puts it on the clipboard and says so; Escape closes the window
    qtbot.mouseClick(by_name(dialog, QPushButton, "Copy the receipt code"), Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == code
    assert "Copied" in dialog.copied.text()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.receipt_dialog is None, timeout=5000)


def test_a_new_export_gives_a_new_code(qtbot: Any, window: MainWindow, tmp_path: Path) -> None:
    set_all_scores_by_keyboard(qtbot, window, "4")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    codes = []
    for name in ("a.zip", "b.zip"):
        assert export_and_wait(qtbot, window, tmp_path / name)
        qtbot.waitUntil(lambda: window.receipt_dialog is not None, timeout=5000)
        assert window.receipt_dialog is not None
        codes.append(by_name(window.receipt_dialog, QLineEdit, "Receipt code").text())
        window.receipt_dialog.close()
        qtbot.waitUntil(lambda: window.receipt_dialog is None, timeout=5000)
    assert codes[0] != codes[1]


@pytest.mark.parametrize("rater", ["Dr Smith", "../../../../x", "D:evil", "CON", "r01."])
def test_a_bad_rater_on_the_command_line_is_refused_before_any_window(
    rater: str, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    with pytest.raises(WmcdpError) as info:
        make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", rater])
    assert f'--rater "{rater}": a rater id ' in str(info.value) or "reserved device name" in str(info.value)
    assert not data_dir.exists() or not (data_dir / "bundles").exists()


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--rater", "Dr Smith"], '--rater "Dr Smith": a rater id may hold only'),
        (["--rater", "../../../../x"], "it has '/'"),
        (["--rater", ""], "a rater id cannot be empty"),
        (["--idle-timeout", "5"], "--idle-timeout 5 is not between 10 and 3600 seconds"),
        (["--idle-timeout", "soon"], '--idle-timeout "soon" is not a whole number of seconds'),
    ],
)
def test_a_refused_value_on_the_command_line_exits_1_in_one_line(
    argv: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 13: a hostile or mistyped id is invalid input (exit 1), said in one line; a usage mistake is 2.
    from wmcdp_desktop.rater.app import main as app_module

    data_dir = tmp_path / "data"
    assert app_module.main(["--data-dir", str(data_dir), *argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("wmcdp-desktop: --") and words in err and "usage:" not in err
    assert len(err.strip().splitlines()) == 1 and not data_dir.exists()


def test_the_settings_are_changed_only_through_their_rules(window: MainWindow) -> None:
    prefs = window.prefs
    prefs.set_rater("Dr Smith", None)  # never reaches the settings (the dialog and --rater check first)
    assert window.settings.rater_id == "R01"
    assert "Dr_Smith" in window.status_bar.currentMessage()
    prefs.set_rater("R02", "  GP ")
    assert window.settings.rater_id == "R02" and window.settings.rater_role_or_background == "GP"
    prefs.set_idle_timeout(10**20)  # a value the settings refuse is never saved
    assert window.settings.idle_timeout_seconds != 10**20
    assert "Settings not changed: must be at most 3600" in window.status_bar.currentMessage()
