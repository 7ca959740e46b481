"""The accessibility audit (tests/rater/app/text/a11y_audit.py) over every part of the rating form a rater meets, in a
light and a dark palette: each page (Scores with its level labels and "Not set" badges, Failure modes with
modes ticked, Notes), the flag and its note, the rubric help open beside the form, the "cannot rate" panel
(with its problems after Submit, and submitted, read-only). The window's audit (test_accessibility_audit)
sees only the page in front; a page behind a tab is hidden, so each is brought to the front here."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QCheckBox, QPushButton, QRadioButton, QWidget

from tests.rater.app.text.a11y_audit import audit, dark_palette, tab_walk
from tests.rater.app.text.pseudo_translation import cut_off
from tests.rater.app.window_helpers import (
    by_name,
    rows,
    set_all_scores_by_keyboard,
    show_page,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.settings import Settings, save_settings


@pytest.fixture(params=["light", "dark"])
def palette(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "dark":
        QApplication.setPalette(dark_palette())
    yield request.param


def _clean(root: QWidget, where: str) -> None:
    findings = audit(root)
    assert not findings, f"{where}:\n" + "\n".join(str(f) for f in findings)


def _tick(qtbot: Any, window: MainWindow, label: str) -> None:
    box = by_name(window, QCheckBox, label)
    box.setFocus()
    qtbot.keyClick(box, Qt.Key.Key_Space)


def test_every_page_the_flag_and_the_rubric_help(palette: str, qtbot: Any, window: MainWindow) -> None:
    assert window.page is not None and window.session is not None
    window.resize(1424, 852)
    form = window.page.form
    qtbot.keyClicks(rows(window)[0].slider, "4")  # one level chosen (framed), the others "Not set"
    _clean(window, f"Scores page ({palette})")
    show_page(window, "Failure modes")
    for fm in window.session.rubric.failure_modes[:2]:  # each opens its severity, note and evidence controls
        _tick(qtbot, window, fm.label)
    _clean(window, f"Failure modes page, two ticked ({palette})")
    show_page(window, "Notes")
    _clean(window, f"Notes page ({palette})")
    qtbot.mouseClick(by_name(window, QPushButton, "Flag for coordinator"), Qt.MouseButton.LeftButton)
    assert form.flag_row.isVisible()
    show_page(window, "Scores")
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_F1)  # the rubric help beside the form
    assert window.page.help_open()
    _clean(window, f"flag and rubric help open ({palette})")
    form.submit_button.click()  # problems on every page, the flag's note among them
    assert form.flag_row.problem.isVisible()
    for page in ("Scores", "Failure modes", "Notes"):
        show_page(window, page)
        _clean(window, f"{page} page with problems, help open ({palette})")


def test_cannot_rate_panel_its_problems_and_submitted(palette: str, qtbot: Any, window: MainWindow) -> None:
    assert window.page is not None and window.rating is not None
    window.resize(1424, 852)
    form = window.page.form
    qtbot.mouseClick(by_name(window, QPushButton, "Cannot rate this task"), Qt.MouseButton.LeftButton)
    _clean(window, f"cannot rate ({palette})")
    submit_by_keyboard(qtbot, window)  # no reason chosen
    assert form.cannot_panel.reason_problem.isVisible()
    _clean(window, f"cannot rate, no reason ({palette})")
    qtbot.mouseClick(by_name(window, QRadioButton, "Other (say why below)"), Qt.MouseButton.LeftButton)
    submit_by_keyboard(qtbot, window)  # "other" without words
    assert form.cannot_panel.detail_problem.isVisible()
    _clean(window, f"cannot rate, other without words ({palette})")
    qtbot.keyClicks(form.cannot_panel.detail, "I know this family.")
    submit_by_keyboard(qtbot, window)
    window.rating.go_to("T-0001")
    assert form.stack.currentWidget() is form.cannot_page
    _clean(window, f"cannot rate, submitted ({palette})")
    reached = tab_walk(window)  # read-only, still read by the keyboard
    assert form.cannot_panel.reasons["other"] in reached  # the reason given (a radio group is one tab stop)
    assert form.cannot_panel.detail in reached


def test_a_submitted_rating_on_every_page(palette: str, qtbot: Any, window: MainWindow) -> None:
    assert window.page is not None and window.rating is not None and window.session is not None
    window.resize(1424, 852)
    set_all_scores_by_keyboard(qtbot, window, "3")
    show_page(window, "Failure modes")
    _tick(qtbot, window, window.session.rubric.failure_modes[0].label)
    type_rationale(qtbot, window)
    qtbot.mouseClick(by_name(window, QPushButton, "Flag for coordinator"), Qt.MouseButton.LeftButton)
    qtbot.keyClicks(window.page.form.flag_row.note, "Please look at the age band.")
    severity = window.page.form.failure_modes.rows[window.session.rubric.failure_modes[0].id].severity
    severity.setFocus()
    qtbot.keyClick(severity, Qt.Key.Key_Down)
    submit_by_keyboard(qtbot, window)
    window.rating.go_to("T-0001")
    assert window.session.current is None
    for page in ("Scores", "Failure modes", "Notes"):
        show_page(window, page)
        _clean(window, f"submitted, {page} page ({palette})")


def test_the_form_parts_in_spanish(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    """The audit, and nothing cut off, on each part with the Spanish catalogue (longer words), at 1366x768."""
    save_settings(data_dir, Settings(language="es"))
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.page is not None and window.session is not None
    window.resize(1350, 720)  # the app's window on a 1366x768 screen
    form = window.page.form
    form.flag_button.click()
    window.page.toggle_help()
    form.tabs.setCurrentWidget(form.fm_page)
    for fm_row in list(form.failure_modes.rows.values())[:2]:
        fm_row.check.setFocus()
        qtbot.keyClick(fm_row.check, Qt.Key.Key_Space)
    form.submit_button.click()
    for page in form.pages[:3]:
        form.tabs.setCurrentWidget(page)
        _clean(window, f"Spanish, {page.accessibleName()}, flag and help open, problems")
        assert cut_off(window) == [], (page.accessibleName(), cut_off(window))
    form.cannot_button.click()
    form.submit_button.click()
    _clean(window, "Spanish, cannot rate, no reason")
    assert cut_off(window) == []
