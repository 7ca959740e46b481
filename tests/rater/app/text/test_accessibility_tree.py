"""The whole accessibility tree the window exposes (Qt's QAccessible interfaces, what AT-SPI reads), on the
demo and after a failed submit: every control named, one focused node, nothing hidden reported as showing
(no hidden tab, no item of a closed drop-down, nothing of the welcome page under an open bundle, so no
recent bundle's folder), and task names a screen reader can say (one line, single spaces, no glyphs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel
from PySide6.QtGui import QAccessible
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
    focused = next(n for n in nodes if n.focused and n.role != QAccessible.Role.PageTab)
    assert focused.role == QAccessible.Role.Slider  # the first score


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
