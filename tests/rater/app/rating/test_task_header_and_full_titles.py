"""The task header names the task, not its opaque id (kept in a tooltip and the accessible description for
support); the task list gives every task's full title on hover and to screen readers (issue 16)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from wmcdp_desktop.core.resources import demo_bundle_path
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.labels import task_full_title

pytestmark = pytest.mark.skipif(not demo_bundle_path().exists(), reason="the demo bundle is not built")


def test_header_without_the_task_id_and_full_titles_in_the_list(
    make_window: Callable[..., MainWindow], tmp_path: Path, qtbot: Any
) -> None:
    window = make_window(["--demo", "--data-dir", str(tmp_path / "data"), "--rater", "R01"])
    assert window.session is not None and window.page is not None
    session, view, task_list = window.session, window.page.task_view, window.page.task_list
    task = session.task()
    tid = task.task_id
    assert tid not in view.heading.text() and tid not in view.meta.text()
    assert task_full_title(task) in view.heading.text()
    assert tid in view.heading.toolTip() and tid in view.heading.accessibleDescription()
    assert tid in view.meta.toolTip()
    long_titles = [t for t in session.task_ids if len(session.task(t).scenario_type_ids) > 1]
    assert long_titles, "the demo has tasks with several scenario types"
    qtbot.waitUntil(lambda: all(t in task_list.titles for t in session.task_ids[:10]), timeout=5000)
    for row, t in enumerate(session.task_ids[:10]):
        full = task_full_title(session.task(t))
        index = task_list.model.index(row)
        assert full in str(index.data(Qt.ItemDataRole.ToolTipRole))
        assert full in str(index.data(Qt.ItemDataRole.AccessibleDescriptionRole))
        assert t in str(index.data(Qt.ItemDataRole.ToolTipRole))  # the id, for support
    assert "," in task_full_title(session.task(long_titles[0]))  # every scenario type, not only the first
