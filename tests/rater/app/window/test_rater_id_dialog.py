"""The rater id dialog (window/rater_dialog.py): asked once and remembered, a bad id refused with the reason and the
dialog kept open, spaces explained, every other rule said plainly."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLineEdit,
    QPushButton,
)

from tests.rater.app.window_helpers import (
    by_name,
    wait_opened,
)
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.app.window.rater_dialog import RaterDialog


def test_rater_id_is_asked_once_and_remembered(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QFileDialog

    from wmcdp_desktop.rater.app.window.rater_dialog import RaterDialog

    asked: list[bool] = []

    def fill_in(dialog: RaterDialog) -> int:
        asked.append(True)
        dialog.show()  # as exec() would: Return presses the OK button on screen
        by_name(dialog, QLineEdit, "Rater id").setText("bad id!")
        qtbot.keyClick(dialog.id_edit, Qt.Key.Key_Return)
        assert dialog.problem.isVisibleTo(dialog) and dialog.result() == 0  # refused, dialog stays
        by_name(dialog, QLineEdit, "Rater id").setText("R09")
        by_name(dialog, QLineEdit, "Role or background (optional)").setText("nurse")
        qtbot.keyClick(dialog.id_edit, Qt.Key.Key_Return)
        return dialog.result()

    monkeypatch.setattr(RaterDialog, "exec", fill_in)
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(bundle_dir / "bundle.json"), ""))
    )
    window = make_window(["--data-dir", str(data_dir)])
    qtbot.mouseClick(by_name(window, QPushButton, "Open bundle…"), Qt.MouseButton.LeftButton)
    wait_opened(qtbot, window)
    assert asked == [True]
    assert window.session is not None and window.session.rater.rater_id == "R09"
    assert window.session.rater.role_or_background == "nurse"
    window.close()
    again = make_window([str(bundle_dir), "--data-dir", str(data_dir)])
    assert asked == [True]  # not asked again
    assert again.session is not None and again.session.rater.rater_id == "R09"


def test_rater_dialog_explains_spaces_and_grows_to_show_the_message(qtbot: Any) -> None:
    dialog = RaterDialog(None, None)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.width() >= 480  # room for the fields and the placeholder
    qtbot.keyClicks(dialog.id_edit, "Dr Smith")
    qtbot.keyClick(dialog.id_edit, Qt.Key.Key_Return)
    assert dialog.result() != RaterDialog.DialogCode.Accepted and dialog.isVisible()
    assert "cannot contain spaces" in dialog.problem.text() and "Dr_Smith" in dialog.problem.text()
    # nothing squeezed: the dialog is at least as tall as its contents want, with the message shown
    assert dialog.height() >= dialog.sizeHint().height()
    dialog.id_edit.setText("dr_smith")
    qtbot.keyClick(dialog.id_edit, Qt.Key.Key_Return)
    assert dialog.result() == RaterDialog.DialogCode.Accepted and dialog.rater_id() == "dr_smith"


def test_rater_dialog_other_bad_ids_get_the_general_rule(qtbot: Any) -> None:
    dialog = RaterDialog(None, None)
    qtbot.addWidget(dialog)
    dialog.show()
    cases = {
        "": "Enter your rater id.",
        "-x": "must start with a letter or digit, not -",
        "dr/smith": "cannot contain /",
        "../../../../x": "cannot contain /",
        "D:evil": "cannot contain :",
        "CON": "CON is a reserved name on Windows",
        "com1.txt": "com1 is a reserved name on Windows",
        "r01.": "cannot end with a dot",
        "Hélène": "cannot contain é",
        "a\u200bb": "invisible character (U+200B)",
        "x" * 129: "has 129 characters",
    }
    for bad, words in cases.items():
        dialog.id_edit.setText(bad)
        qtbot.keyClick(dialog.id_edit, Qt.Key.Key_Return)
        assert dialog.result() != RaterDialog.DialogCode.Accepted, bad
        assert words in dialog.problem.text(), (bad, dialog.problem.text())
        if bad and words.startswith("cannot contain"):
            assert "letters A-Z, digits, - _ and ." in dialog.problem.text()
