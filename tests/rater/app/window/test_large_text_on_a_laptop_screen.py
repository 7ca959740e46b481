"""Text at 200% on a 1366x768 laptop (WCAG 1.4.4, resize text): with the rubric help open, the flag's note
and the "cannot rate" panel shown, the window still fits the screen (rows that could not wrap pushed it to
1,759 px), and after a failed Submit the problem summary is not squeezed between the buttons; the text size reaches headings and score texts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel

from tests.rater.app.text.pseudo_translation import cut_off
from tests.rater.app.window_helpers import (
    open_and_wait,
    rows,
)
from wmcdp_desktop.rater.app.screen_fit import FRAME_ALLOWANCE
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


def test_text_size_reaches_headings_and_score_texts(qtbot: Any, window: MainWindow, bundle_dir: Path) -> None:
    """Larger/smaller text (Ctrl+= / Ctrl+-) also resizes headings (kept larger) and the score texts (not pinned)."""
    assert window.page is not None
    row = rows(window)[0]
    row.slider.setFocus()
    qtbot.keyClick(row.slider, Qt.Key.Key_3)  # the value text is restyled (a solid frame) at the current size
    for delta in (4, -6):
        window.change_font(delta)
        base = QApplication.font().pointSizeF()
        view = window.page.task_view
        assert view.heading.font().pointSizeF() == pytest.approx(base * 1.15) and view.heading.font().bold()
        assert view.response_title.font().pointSizeF() == pytest.approx(base * 1.1)
        assert row.value_label.font().pointSizeF() == pytest.approx(base) and row.value_label.font().bold()
        unset = rows(window)[1].value_label  # "Not set": bold in a dashed frame, never a faint italic
        assert unset.font().pointSizeF() == pytest.approx(base) and unset.font().bold() and unset.unset
        assert row.label.font().pointSizeF() == pytest.approx(base) and row.label.font().bold()
        title = next(w for w in window.welcome.findChildren(QLabel) if w.text() == "WM-CDP Desktop")
        assert title.font().pointSizeF() == pytest.approx(base * 1.8)
    # a bundle opened after the change (or with a remembered size) gets the same proportions
    window.close_bundle()
    assert open_and_wait(qtbot, window, bundle_dir) and window.page is not None
    base = QApplication.font().pointSizeF()
    assert window.page.task_view.heading.font().pointSizeF() == pytest.approx(base * 1.15)
    assert rows(window)[0].value_label.font().pointSizeF() == pytest.approx(base)
