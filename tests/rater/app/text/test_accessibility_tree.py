"""The whole accessibility tree the window exposes (Qt's QAccessible interfaces, what AT-SPI reads), on the
demo and after a failed submit: every control named, one focused node (a page's tab only while the tab bar has
the focus), nothing hidden reported as showing
(no hidden tab, no item of a closed drop-down, nothing of the welcome page under an open bundle, so no
recent bundle's folder), and task names a screen reader can say (one line, single spaces, no glyphs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QAccessible, QAccessibleActionInterface
from PySide6.QtWidgets import QPushButton

from tests.rater.app.text.accessible_tree import tree_problems, walk
from wmcdp_desktop.core.resources import demo_bundle_path
from wmcdp_desktop.rater.app.window.main_window import MainWindow


@pytest.fixture
def demo(make_window: Callable[..., MainWindow], data_dir: Path) -> MainWindow:
    if not demo_bundle_path().exists():
        pytest.fail("the demo bundle is missing")
    return make_window([str(demo_bundle_path()), "--data-dir", str(data_dir)])


def test_the_demo_as_a_screen_reader_meets_it(demo: MainWindow) -> None:
    assert tree_problems(demo) == []
    nodes = [n for n in walk(demo) if n.showing]
    tabs = [n.name for n in nodes if n.role == QAccessible.Role.PageTab]
    assert "Calibration feedback" not in tabs  # the demo's first task is no calibration task
    items = [n for n in nodes if n.role == QAccessible.Role.ListItem]
    assert items, "the task list's rows"
    for item in items:
        assert "\n" not in item.name and "  " not in item.name and "○" not in item.name, item.name
        assert "/" not in item.name and "\\" not in item.name, item.name  # no folder of a recent bundle
    focused = [n for n in nodes if n.focused]
    assert [n.role for n in focused] == [QAccessible.Role.Slider]  # the first score, and nothing else (no tab)


def test_after_a_failed_submit_and_on_a_calibration_task(demo: MainWindow) -> None:
    assert demo.rating is not None and demo.session is not None
    demo.rating.submit()  # nothing set: every problem shown, the focus on the first
    assert tree_problems(demo) == []
    calibration = next(t for t in demo.session.task_ids if demo.session.task(t).calibration_feedback is not None)
    assert demo.rating.go_to(calibration)
    assert tree_problems(demo) == []
    demo.rating.step(1)
    assert tree_problems(demo) == []
    assert demo.page is not None
    for control in (demo.page.task_list.list, demo.page.task_view.response, demo.page.task_view.scenario):
        control.setFocus()  # the rater moves about: still one focused control
        assert tree_problems(demo) == [], control.accessibleName()


def test_a_tab_is_focused_only_while_the_tab_bar_has_the_focus(qtbot: Any, demo: MainWindow) -> None:
    """The rating pages' current tab is reported focused (one node) only while the tab bar has the focus; it
    is selected while current, whatever has the focus; a screen reader's "press" on a tab shows its page."""
    assert demo.page is not None
    tabs = demo.page.form.tabs
    bar = tabs.tabBar()
    page_tabs = lambda: [n for n in walk(demo) if n.role == QAccessible.Role.PageTab and n.showing]  # noqa: E731
    assert [n.name for n in page_tabs()] == ["Scores", "Failure modes", "Notes"]
    assert not any(n.focused for n in page_tabs())  # the focus is on the first score
    bar.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(bar.hasFocus, timeout=2000)
    focused = [n for n in walk(demo) if n.focused]
    assert [n.name for n in focused if not n.inner_part] == ["Rating pages"]  # the pages (the tab bar is their proxy)
    assert [n.name for n in focused if n.role == QAccessible.Role.PageTab] == ["Scores"]  # and their current tab
    assert tree_problems(demo) == []
    iface = QAccessible.queryAccessibleInterface(bar)
    assert iface is not None and iface.role() == QAccessible.Role.PageTabList and iface.childCount() == 3
    notes = iface.child(2)
    assert notes.parent() is not None and iface.indexOfChild(notes) == 2 and not notes.state().selected
    action = notes.actionInterface()
    assert action is not None and QAccessibleActionInterface.pressAction() in action.actionNames()
    action.doAction(QAccessibleActionInterface.pressAction())
    assert tabs.currentWidget() is demo.page.form.notes_page
    assert notes.state().selected and notes.state().focused and not iface.child(0).state().focused
    assert iface.focusChild() is notes
    demo.page.form.focus_start()  # the focus back in the form: no tab focused, the current one still selected
    assert tree_problems(demo) == [] and not notes.state().focused


def test_the_walk_finds_what_it_is_for(demo: MainWindow) -> None:
    """The checks themselves: an unnamed control and a second focused node are found."""
    assert demo.page is not None
    unnamed = QPushButton(demo.page.task_view)
    unnamed.show()
    assert any(p.startswith("unnamed ") for p in tree_problems(demo))
    unnamed.deleteLater()
    demo.page.task_view.response.setFocus()
    demo.page.task_list.list.selectionModel().setCurrentIndex(
        demo.page.task_list.model.index(0), QItemSelectionModel.SelectionFlag.NoUpdate
    )  # as Qt left it: the current row reported focused while the focus is elsewhere
    assert any(p.startswith("more than one focused node") for p in tree_problems(demo))


def test_a_list_hidden_from_screen_readers_comes_back_whole(qtbot: Any, demo: MainWindow) -> None:
    """The recent bundles when the welcome page shows again, a drop-down's list each time it opens."""
    demo.close_bundle()
    qtbot.waitUntil(lambda: demo.welcome.isVisible(), timeout=2000)
    recent = demo.welcome.recent
    qtbot.waitUntil(lambda: recent.isVisible() and recent.height() > 20, timeout=2000)
    assert recent.visualItemRect(recent.item(0)).intersects(recent.viewport().rect())
    assert tree_problems(demo) == []


@pytest.mark.qt_log_ignore("^This plugin does not support grabbing the keyboard$")
def test_a_drop_down_list_opens_whole_every_time(qtbot: Any) -> None:
    from PySide6.QtWidgets import QApplication

    from wmcdp_desktop.rater.app.widgets import ChoiceBox

    box = ChoiceBox()
    qtbot.addWidget(box)
    for text in ("minor", "moderate", "major", "critical"):
        box.addItem(text)
    box.show()
    qtbot.waitExposed(box)
    assert box.view().size().isEmpty()  # closed: its items are not reported as showing
    for _ in range(3):
        box.showPopup()
        QApplication.processEvents()
        assert box.view().height() > 40 and box.view().width() > 40
        box.hidePopup()
        QApplication.processEvents()
        assert box.view().size().isEmpty()
