"""The accessibility audit (tests/rater/app/text/a11y_audit.py) over the real window in every state a rater meets and
every dialog, in a light and a dark palette: names, duplicate names, reported values, Tab, contrast."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QInputDialog, QLineEdit, QMessageBox, QWidget

from tests.rater.app.text.a11y_audit import audit, dark_palette, tab_walk
from tests.rater.app.text.pseudo_translation import cut_off
from tests.rater.app.window_helpers import (
    bundle_with_blinding_labels,
    export_and_wait,
    rows,
    set_all_scores_by_keyboard,
    skip_blinding_question,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.rater.app.bundle.passphrase_dialog import PassphraseDialog
from wmcdp_desktop.rater.app.rating.blinding_question import BlindingQuestion
from wmcdp_desktop.rater.app.window.about_dialog import AboutDialog
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.app.window.rater_dialog import RaterDialog
from wmcdp_desktop.rater.settings import Settings, save_settings


@pytest.fixture(params=["light", "dark"])
def palette(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run under the system's light palette, then a dark one (the conftest restores the palette)."""
    if request.param == "dark":
        QApplication.setPalette(dark_palette())
    yield request.param


def _clean(root: QWidget, where: str, *, tab: bool = True) -> None:
    findings = audit(root, tab=tab)
    assert not findings, f"{where}:\n" + "\n".join(str(f) for f in findings)


def _message_box() -> QMessageBox:
    boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
    assert boxes, "no message box is shown"
    return boxes[-1]


def test_welcome_screen(palette: str, make_window: Callable[..., MainWindow], data_dir: Path) -> None:
    window = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    window.welcome.show_recent([str(data_dir / "a bundle.wmcdp")])
    _clean(window, f"welcome ({palette})")


def test_rating_validation_errors_and_submitted_rating(palette: str, qtbot: Any, window: MainWindow) -> None:
    _clean(window, f"rating ({palette})")
    assert window.page is not None
    form = window.page.form
    form.submit_button.click()  # nothing entered: a problem next to every score and the rationale
    assert form.summary.isVisible()
    _clean(window, f"validation errors ({palette})")
    set_all_scores_by_keyboard(qtbot, window, "3")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    assert window.rating is not None and window.session is not None
    window.rating.go_to("T-0001")
    assert window.session.current is None  # submitted: shown read-only
    _clean(window, f"submitted rating ({palette})")
    reached = tab_walk(window)  # every score and note is read by the keyboard (was: 6 tab stops, all greyed)
    assert all(r.slider in reached for r in rows(window))
    assert all(edit in reached for edit in form.notes.edits.values())


def test_calibration_feedback(palette: str, qtbot: Any, window: MainWindow) -> None:
    assert window.rating is not None and window.page is not None
    window.rating.go_to("T-0002")
    set_all_scores_by_keyboard(qtbot, window, "4")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    assert window.page.form.calibration.isVisible()
    _clean(window, f"calibration feedback ({palette})")


def test_dialogs(palette: str, qtbot: Any, window: MainWindow, tmp_path: Path) -> None:
    rater = RaterDialog("R01", None, window)
    qtbot.addWidget(rater)
    rater.show()
    _clean(rater, f"rater id dialog ({palette})")
    rater.id_edit.setText("has a space")
    qtbot.keyClick(rater.id_edit, Qt.Key.Key_Return)
    assert rater.problem.isVisible()
    _clean(rater, f"rater id dialog with its problem ({palette})")
    passphrase = PassphraseDialog("R01.wmcdp", "", window)
    qtbot.addWidget(passphrase)
    passphrase.show()
    _clean(passphrase, f"passphrase dialog ({palette})")
    qtbot.keyClick(passphrase.edit, Qt.Key.Key_Return)  # nothing typed: said in the dialog
    assert passphrase.problem.isVisible()
    _clean(passphrase, f"passphrase dialog with its problem ({palette})")
    about = AboutDialog(window)
    qtbot.addWidget(about)
    about.show()
    _clean(about, f"about ({palette})")
    idle = QInputDialog(window)  # Settings > Idle timeout… (Qt's own dialog, as the window opens it)
    qtbot.addWidget(idle)
    idle.setInputMode(QInputDialog.InputMode.IntInput)
    idle.setLabelText(window.prefs.tr("Seconds without any input after which the task timer pauses:"))
    idle.show()
    _clean(idle, f"idle timeout ({palette})")
    window.tell("A message for the rater.", error=True)
    _clean(_message_box(), f"message box ({palette})", tab=False)
    _message_box().close()
    assert export_and_wait(qtbot, window, tmp_path / "out.zip")
    qtbot.waitUntil(lambda: window.receipt_dialog is not None and window.receipt_dialog.isVisible(), timeout=5000)
    assert window.receipt_dialog is not None
    _clean(window.receipt_dialog, f"export summary and receipt code ({palette})")
    window.receipt_dialog.close()


def test_blinding_question(palette: str, qtbot: Any, make_window: Callable[..., MainWindow], tmp_path: Path,
                           sample_docs: Any, data_dir: Path) -> None:
    bundle = bundle_with_blinding_labels(tmp_path / "checked", sample_docs, ["Atlas", "Halcyon"])
    window = make_window([str(bundle), "--data-dir", str(data_dir), "--rater", "R01"])
    set_all_scores_by_keyboard(qtbot, window, "4")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    questions = [w for w in QApplication.topLevelWidgets() if isinstance(w, BlindingQuestion) and w.isVisible()]
    assert len(questions) == 1
    _clean(questions[0], f"blinding question ({palette})")
    skip_blinding_question(qtbot, window)


def test_the_audit_finds_what_it_is_for(qtbot: Any, window: MainWindow) -> None:
    """Each check fails on the defect it looks for (the audit could otherwise pass by finding nothing)."""
    assert window.page is not None
    row = rows(window)[0]
    unnamed = QLineEdit()  # a control with no label and no name
    window.page.form.footer.layout().addWidget(unnamed)
    rows(window)[2].slider.setAccessibleName(rows(window)[1].slider.accessibleName())
    window.page.form.submit_button.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
    from PySide6.QtGui import QColor, QPalette

    pale = row.label.palette()
    pale.setColor(QPalette.ColorRole.WindowText, QColor("#bebebe"))
    row.label.setPalette(pale)
    levels = row.scale_labels.palette()  # the level labels under a slider paint their own text
    levels.setColor(QPalette.ColorRole.WindowText, QColor("#c8c8c8"))
    row.scale_labels.setPalette(levels)
    kinds = {(f.kind, f.widget.split(" ")[0]) for f in audit(window)}
    assert ("name", "QLineEdit") in kinds
    assert ("duplicate", "ScoreSlider") in kinds
    assert ("contrast", "PlainLabel") in kinds
    assert ("contrast", "ScaleLabels") in kinds
    window.page.form.submit_button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    window.page.form.scroll_area.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    window.page.form.scroll_area.setAccessibleName("")
    kinds = {(f.kind, f.widget.split(" ")[0]) for f in audit(window)}
    assert ("name", "QScrollArea") in kinds


def test_the_window_in_spanish(qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path) -> None:
    """The audit, and no label or button cut off, with the Spanish catalogue (longer words)."""
    save_settings(data_dir, Settings(language="es"))
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    window.page.form.submit_button.click()
    _clean(window, "Spanish, validation errors")
    assert cut_off(window) == []
