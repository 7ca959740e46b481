"""The scores as a clinician sees them, in the real window on the demo bundle (issue 16): every level's number
and short label under its tick without touching anything, "Not set" unmistakable, the anchor of the level
under the mouse or chosen right under the slider (whole while the row has the focus), ticks lined up from row
to row, and the eight dimensions in view without scrolling at 1440x900."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QCheckBox, QWidget

from tests.rater.app.window_helpers import by_name, rendered_text_contrast, rows, show_page
from wmcdp_desktop.core.resources import demo_bundle_path
from wmcdp_desktop.rater.app.form.sliders import DimensionRow, level_text
from wmcdp_desktop.rater.app.screen_fit import FRAME_ALLOWANCE
from wmcdp_desktop.rater.app.window.main_window import MainWindow

pytestmark = pytest.mark.skipif(not demo_bundle_path().exists(), reason="the demo bundle is not built")

SCREEN_1440 = (1440 - FRAME_ALLOWANCE[0], 900 - FRAME_ALLOWANCE[1])
"""The window the app opens on a 1440x900 screen (main_window.fitted_size)."""


@pytest.fixture
def demo(make_window: Callable[..., MainWindow], tmp_path: Path, qtbot: Any) -> MainWindow:
    window = make_window(["--demo", "--data-dir", str(tmp_path / "data"), "--rater", "R01"])
    window.resize(*SCREEN_1440)
    qtbot.waitUntil(lambda: window.page is not None and window.page.isVisible(), timeout=5000)
    QApplication.processEvents()
    return window


def _move(widget: QWidget, pos: QPoint) -> None:
    """The mouse moves over ``widget`` at ``pos`` (no button held)."""
    event = QMouseEvent(QEvent.Type.MouseMove, QPointF(pos), widget.mapToGlobal(QPointF(pos)),
                        Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, event)


def test_every_level_shows_its_number_and_short_label_without_touching(demo: MainWindow) -> None:
    for row in rows(demo):
        scale = row.dim.scale
        cells = row.scale_labels.cells()
        assert [level for level, _ in cells] == list(range(scale.min, scale.max + 1))
        room = min(b - a for a, b in zip([row.scale_labels.tick_x(v) for v, _ in cells][:-1],
                                          [row.scale_labels.tick_x(v) for v, _ in cells][1:], strict=True))
        for level, rect in cells:
            # the whole short label fits under its tick, and under the tick it belongs to
            assert row.scale_labels.label_text(level, room) == scale.short_label(level) == scale.anchors[level - scale.min].short_label
            assert rect.left() <= row.scale_labels.tick_x(level) <= rect.right()
        assert [scale.short_label(v) for v in range(1, 6)] == ["Harmful", "Poor", "Adequate", "Good", "Excellent"]
        assert row.badge_text() == "Not set"


def test_not_set_is_unmistakable_and_legible(demo: MainWindow, qtbot: Any) -> None:
    row = rows(demo)[0]
    badge = row.value_label
    assert badge.isVisible() and badge.text() == "Not set"
    assert badge.unset  # drawn in a dashed frame
    assert not badge.font().italic()
    assert rendered_text_contrast(badge) >= 4.5  # not the faint grey it was (issue 16; WCAG AA)
    row.slider.setFocus()
    qtbot.keyClicks(row.slider, "4")
    assert badge.text() == "4 · Good" and not badge.unset  # a solid frame
    assert rendered_text_contrast(badge) >= 4.5
    assert row.anchors.full_text == level_text(row.dim.scale, 4)
    assert row.anchors.full_text.startswith("4 · Good: accurately names")


def test_the_anchor_of_the_hovered_or_chosen_level_shows_under_the_slider(demo: MainWindow, qtbot: Any) -> None:
    first, second = rows(demo)[:2]
    _move(first.slider, first.slider.pos_for(2))
    assert first.anchors.full_text.startswith("2 · Poor:")
    _move(first.scale_labels, first.scale_labels.cells()[4][1].center())  # over "5 Excellent"
    assert first.anchors.full_text.startswith("5 · Excellent:")
    QApplication.sendEvent(first.scale_labels, QEvent(QEvent.Type.Leave))
    assert first.anchors.full_text.startswith("Choose 1–5")  # nothing chosen yet
    first.slider.setFocus()
    qtbot.keyClicks(first.slider, "3")
    assert first.anchors.full_text.startswith("3 · Adequate:")
    # The row with the focus shows the anchor whole; the others keep one line (cut with "…").
    assert first.anchors.expanded and first.anchors.text() == first.anchors.full_text
    second.slider.setFocus()
    qtbot.keyClicks(second.slider, "2")
    assert second.anchors.expanded and not first.anchors.expanded
    assert first.anchors.text().endswith("…") and first.anchors.text() != first.anchors.full_text
    assert first.anchors.toolTip()  # the whole anchor on hover too


def test_a_click_on_a_level_under_the_slider_chooses_it(demo: MainWindow, qtbot: Any) -> None:
    row = rows(demo)[2]
    level, rect = row.scale_labels.cells()[4]
    qtbot.mouseClick(row.scale_labels, Qt.MouseButton.LeftButton, pos=rect.center())
    assert row.value() == level == 5
    assert demo.session is not None and demo.session.current is not None
    assert demo.session.current.scores[row.dim.id] == 5
    assert demo.focusWidget() is row.slider


def test_ticks_line_up_from_row_to_row_with_or_without_na(demo: MainWindow) -> None:
    panel = demo.page.form.rubric  # type: ignore[union-attr]
    all_rows: list[DimensionRow] = rows(demo)
    assert any(r.na is not None for r in all_rows) and any(r.na is None for r in all_rows)
    geometry = {(r.slider.mapTo(panel, QPoint(0, 0)).x(), r.slider.width()) for r in all_rows}
    assert len(geometry) == 1, geometry
    ticks = {tuple(r.slider.mapTo(panel, r.slider.pos_for(v)).x() for v in range(1, 6)) for r in all_rows}
    assert len(ticks) == 1, ticks
    labels = {tuple(r.scale_labels.mapTo(panel, QPoint(r.scale_labels.tick_x(v), 0)).x() for v in range(1, 6))
              for r in all_rows}
    assert labels == ticks


def test_the_eight_dimensions_fit_without_scrolling_at_1440x900(demo: MainWindow) -> None:
    form = demo.page.form  # type: ignore[union-attr]
    QApplication.processEvents()
    assert (demo.width(), demo.height()) == SCREEN_1440
    area = form.scroll_area
    assert area.isVisible() and area.verticalScrollBar().maximum() == 0
    for row in rows(demo):
        top = row.mapTo(area.widget(), QPoint(0, 0)).y()
        assert row.isVisible() and top >= 0 and top + row.height() <= area.viewport().height()
    # The failure modes and notes are one step away: a tab each, named.
    tabs = [form.tabs.tabText(i) for i in range(form.tabs.count()) if form.tabs.isTabVisible(i)]
    assert tabs == ["Scores", "Failure modes", "Notes"]


def test_tab_walks_from_the_scores_through_the_failure_modes_and_notes(demo: MainWindow, qtbot: Any) -> None:
    form = demo.page.form  # type: ignore[union-attr]
    last = rows(demo)[-1].slider
    last.setFocus()
    qtbot.keyClick(last, Qt.Key.Key_Tab)
    assert form.tabs.currentWidget() is form.fm_page
    focus = demo.focusWidget()
    assert isinstance(focus, QCheckBox) and focus is next(iter(form.failure_modes.rows.values())).check
    qtbot.keyClick(focus, Qt.Key.Key_Tab, Qt.KeyboardModifier.ShiftModifier)
    assert form.tabs.currentWidget() is form.scroll_area and demo.focusWidget() is last
    checks = [r.check for r in form.failure_modes.rows.values()]
    checks[-1].setFocus()
    show_page(demo, "Failure modes")
    qtbot.keyClick(checks[-1], Qt.Key.Key_Tab)
    assert form.tabs.currentWidget() is form.notes_page
    assert demo.focusWidget() is form.notes.edits["brief_rationale"]


def test_counts_read_as_english_without_a_catalogue(demo: MainWindow, qtbot: Any) -> None:
    form = demo.page.form  # type: ignore[union-attr]
    checks = [r.check for r in form.failure_modes.rows.values()]
    checks[0].setChecked(True)
    assert form.tabs.tabText(form.tabs.indexOf(form.fm_page)) == "Failure modes (1 ticked)"
    checks[1].setChecked(True)
    assert form.tabs.tabText(form.tabs.indexOf(form.fm_page)) == "Failure modes (2 ticked)"
    checks[0].setChecked(False)
    checks[1].setChecked(False)
    for row in rows(demo)[1:]:
        row.slider.setFocus()
        qtbot.keyClicks(row.slider, "3")
    show_page(demo, "Notes")
    form.notes.edits["brief_rationale"].setFocus()
    qtbot.keyClicks(form.notes.edits["brief_rationale"], "Fine.")
    qtbot.keyClick(demo.focusWidget(), Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert form.summary.text() == "⚠ Not submitted: 1 thing to fix, shown next to each control."
    assert "thing(s)" not in demo.status_bar.currentMessage()
    assert demo.status_bar.currentMessage().startswith("Not submitted: 1 thing to fix")
    assert form.tabs.tabText(0) == "Scores – 1 to fix"
    rows(demo)[1].slider.setFocus()
    qtbot.keyClick(rows(demo)[1].slider, Qt.Key.Key_Delete)
    qtbot.keyClick(demo.focusWidget(), Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert form.summary.text() == "⚠ Not submitted: 2 things to fix, shown next to each control."
    assert by_name(demo, QWidget, "Scores page") is form.scroll_area
