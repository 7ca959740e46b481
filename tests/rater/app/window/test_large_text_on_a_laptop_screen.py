"""Text at 200% on a 1366x768 laptop (WCAG 1.4.4, resize text): with the rubric help open, the flag's note
and the "cannot rate" panel shown, the window still fits the screen (rows that could not wrap pushed it to
1,759 px), and after a failed Submit the problem summary is not squeezed between the buttons."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from tests.rater.app.text.pseudo_translation import cut_off
from wmcdp_desktop.rater.app.widgets import FRAME_ALLOWANCE
from wmcdp_desktop.rater.app.window.main_window import MainWindow

LAPTOP = (1366 - FRAME_ALLOWANCE[0], 768 - FRAME_ALLOWANCE[1])
"""The app's window on a 1366x768 screen (the screen less a title bar)."""


def test_double_text_size_fits_a_laptop_screen_with_every_part_open(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    window.resize(*LAPTOP)
    window.change_font(QApplication.font().pointSize())  # View > Larger text up to twice the size
    assert window.page is not None
    form = window.page.form
    window.page.toggle_help()
    form.flag_button.click()
    form.submit_button.click()
    QApplication.processEvents()
    assert window.minimumSizeHint().width() <= LAPTOP[0], window.minimumSizeHint()
    assert window.width() <= LAPTOP[0]
    summary, submit = form.summary, form.submit_button
    assert summary.isVisible() and summary.mapTo(form, summary.rect().bottomLeft()).y() < submit.mapTo(form, submit.rect().topLeft()).y()
    form.cannot_button.click()
    QApplication.processEvents()
    assert window.minimumSizeHint().width() <= LAPTOP[0], window.minimumSizeHint()
    assert [p for p in cut_off(form) if not p.startswith("label")] == []  # buttons and tabs whole
