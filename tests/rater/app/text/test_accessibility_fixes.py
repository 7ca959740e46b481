"""What a screen-reader or keyboard user meets (issue 17): unset scores, problems after Submit, a
submitted rating, names, text size everywhere, shortcuts and Alt mnemonics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible, QKeySequence, QPalette
from PySide6.QtWidgets import QApplication, QMenu, QMessageBox, QToolTip

from tests.rater.app.text.a11y_audit import accessible_name
from tests.rater.app.window_helpers import (
    CTRL,
    rows,
    set_all_scores_by_keyboard,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.rater.app.text import accessible
from wmcdp_desktop.rater.app.text.accessible import is_read_only
from wmcdp_desktop.rater.app.text.theme import contrast
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.settings import Settings, save_settings

SHIFT = Qt.KeyboardModifier.ShiftModifier


def _value(widget: Any) -> tuple[str, object]:
    iface = QAccessible.queryAccessibleInterface(widget)
    vi = iface.valueInterface()
    return iface.text(QAccessible.Text.Value), None if vi is None else vi.currentValue()


def test_an_unset_slider_reports_not_set_and_a_set_one_its_score(qtbot: Any, window: MainWindow) -> None:
    slider = rows(window)[0].slider
    assert _value(slider) == ("Not set", None)  # was "1": the slider's resting position
    slider.setFocus()
    qtbot.keyClick(slider, Qt.Key.Key_4)
    assert _value(slider) == ("4", 4)
    qtbot.keyClick(slider, Qt.Key.Key_Delete)
    assert _value(slider) == ("Not set", None)
    value_label = rows(window)[0].value_label
    assert value_label.isEnabled() and value_label.text() == "Not set"
    pal = value_label.palette()
    assert contrast(pal.color(QPalette.ColorRole.WindowText), pal.color(QPalette.ColorRole.Window)) >= 4.5


def test_problems_after_submit_are_in_the_controls_descriptions_and_announced(
    qtbot: Any, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    said: list[str] = []
    monkeypatch.setattr(accessible, "announce", lambda widget, text: said.append(text))
    monkeypatch.setattr("wmcdp_desktop.rater.app.form.form.announce", lambda widget, text: said.append(text))
    set_all_scores_by_keyboard(qtbot, window, "3", skip=rows(window)[0].dim.id)
    submit_by_keyboard(qtbot, window)
    first = rows(window)[0]
    assert window.focusWidget() is first.slider
    assert first.problem.text() in first.slider.accessibleDescription()
    assert said == [window.page.form.summary.text()] and "2 things to fix" in said[0]
    rationale = window.page.form.notes.edits["brief_rationale"]
    assert window.page.form.notes.problems["clinician_notes.brief_rationale"].text() in rationale.accessibleDescription()
    first.slider.setFocus()
    qtbot.keyClick(first.slider, Qt.Key.Key_2)  # fixed: the problem leaves the description
    assert "⚠" not in first.slider.accessibleDescription()


def test_the_real_announcement_event_reaches_qt(qtbot: Any, window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[tuple[object, str]] = []
    monkeypatch.setattr(accessible.QAccessible, "updateAccessibility",
                        lambda event: events.append((event.type(), event.message())))
    window.page.form.submit_button.click()
    assert events and events[-1][0] == QAccessible.Event.Announcement and "to fix" in events[-1][1]


def test_a_submitted_rating_is_read_only_legible_and_reachable(qtbot: Any, window: MainWindow) -> None:
    set_all_scores_by_keyboard(qtbot, window, "3")
    type_rationale(qtbot, window, "Validates first")
    submit_by_keyboard(qtbot, window)
    window.rating.go_to("T-0001")
    form = window.page.form
    for row in rows(window):
        assert row.slider.isEnabled() and is_read_only(row.slider)
        assert "read-only" in row.slider.accessibleDescription()
    rationale = form.notes.edits["brief_rationale"]
    assert rationale.isEnabled() and rationale.isReadOnly() and rationale.toPlainText() == "Validates first"
    slider = rows(window)[0].slider
    slider.setFocus()
    for key in (Qt.Key.Key_5, Qt.Key.Key_Right, Qt.Key.Key_Delete):
        qtbot.keyClick(slider, key)
    qtbot.mouseClick(slider, Qt.MouseButton.LeftButton, pos=slider.pos_for(1))
    check = next(iter(form.failure_modes.rows.values())).check
    qtbot.keyClick(check, Qt.Key.Key_Space)
    assert rows(window)[0].value() == 3 and not check.isChecked() and window.session.current is None
    pal = slider.palette()  # drawn in the normal colours, not the disabled grey (#bebebe, 1.62:1)
    assert contrast(pal.color(QPalette.ColorGroup.Active, QPalette.ColorRole.WindowText),
                    pal.color(QPalette.ColorRole.Window)) >= 4.5


def test_repeated_controls_are_named_for_their_dimension_or_failure_mode(window: MainWindow) -> None:
    form = window.page.form
    na = [row.na for row in rows(window) if row.na is not None]
    assert na and all(row.dim.label in accessible_name(row.na) for row in rows(window) if row.na is not None)
    for fm_row in form.failure_modes.rows.values():
        for w in (fm_row.severity, fm_row.note, fm_row.use_selection, fm_row.clear_spans):
            assert fm_row.fm.label in accessible_name(w), accessible_name(w)
    assert form.scroll_area.focusPolicy() == Qt.FocusPolicy.NoFocus


def test_text_size_reaches_menus_dialogs_message_boxes_and_tooltips(qtbot: Any, window: MainWindow) -> None:
    before = QApplication.font().pointSize()
    qtbot.keyClick(window, Qt.Key.Key_Equal, CTRL)
    qtbot.keyClick(window, Qt.Key.Key_Equal, CTRL)
    size = before + 2
    menu = window.menu.menus["&File"]
    assert isinstance(menu, QMenu) and menu.font().pointSize() == size
    box = QMessageBox(window)
    qtbot.addWidget(box)
    assert box.font().pointSize() == size
    assert QToolTip.font().pointSize() == size
    assert window.page.form.submit_button.font().pointSize() == size
    qtbot.keyClick(window, Qt.Key.Key_Minus, CTRL)
    assert QApplication.font().pointSize() == size - 1 and menu.font().pointSize() == size - 1


def test_shortcuts_pause_revise_and_quote_and_alt_mnemonics(qtbot: Any, window: MainWindow) -> None:
    form = window.page.form
    session = window.session
    rows(window)[0].slider.setFocus()
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_P, CTRL | SHIFT)
    assert session.tracker.user_paused and form.timer.button.text() == "&Resume timer"
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_P, CTRL | SHIFT)
    assert not session.tracker.user_paused
    fm_row = next(iter(form.failure_modes.rows.values()))
    fm_row.check.setFocus()
    qtbot.keyClick(fm_row.check, Qt.Key.Key_Space)
    response = window.page.task_view.response
    response.setFocus()
    qtbot.keyClick(response, Qt.Key.Key_Home, CTRL)
    qtbot.keyClick(response, Qt.Key.Key_Right, CTRL | SHIFT)
    qtbot.keyClick(response, Qt.Key.Key_E, CTRL | SHIFT)
    assert len(session.current.fm(fm_row.fm.id).spans) == 1
    set_all_scores_by_keyboard(qtbot, window, "3")
    type_rationale(qtbot, window)
    fm_row.severity.setCurrentIndex(0)
    fm_row.severity.activated.emit(0)
    submit_by_keyboard(qtbot, window)
    assert session.current_id == "T-0002"
    window.rating.go_to("T-0001")
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_R, CTRL | SHIFT)  # Revise
    assert session.current is not None and session.current.base_revision == 1


@pytest.mark.parametrize("language", ["en", "es"])
def test_buttons_have_alt_mnemonics_unique_in_the_window(
    language: str, make_window: Any, bundle_dir: Path, data_dir: Path
) -> None:
    """Each main button has an Alt+letter of its own (the menu titles' letters are not reused), in each
    language. Qt's offscreen test platform does not deliver mnemonic key presses, so the keys are read
    from the buttons' texts."""
    save_settings(data_dir, Settings(language=language))
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    form = window.page.form
    keys = {b: QKeySequence.mnemonic(b.text()).toString() for b in
            (form.submit_button, form.revise_button, form.discard_button, form.timer.button, window.page.retry_button,
             window.welcome.open_button, window.welcome.demo_button, window.welcome.rater_button)}
    if language == "en":
        assert keys[form.submit_button] == "Alt+U" and keys[form.revise_button] == "Alt+R"
    assert all(keys.values()), keys
    menus = {QKeySequence.mnemonic(a.text()).toString() for a in window.menuBar().actions()}
    assert not menus & set(keys.values()), menus & set(keys.values())
    on_rating_page = [keys[b] for b in (form.submit_button, form.discard_button, form.timer.button, window.page.retry_button)]
    assert len(set(on_rating_page)) == len(on_rating_page)


def test_the_rater_guide_lists_every_menu_shortcut(window: MainWindow, repo_root: Path) -> None:
    guide = (repo_root / "docs" / "RATER_GUIDE.md").read_text(encoding="utf-8")
    for action in window.findChildren(type(window.menu.act_open)):
        for key in action.shortcuts():
            text = key.toString()
            assert f"`{text}`" in guide, f"{action.text()!r} ({text}) is not in docs/RATER_GUIDE.md"
    for mnemonic in ("Alt+U", "Alt+R", "Alt+D", "Alt+P", "Alt+Y"):
        assert f"`{mnemonic}`" in guide
