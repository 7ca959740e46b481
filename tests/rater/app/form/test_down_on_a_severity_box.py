"""Down on a severity box chooses the next severity in place: the list does not open (on some desktops it
did, and the evidence note typed next went into the open list and was lost); Alt+Down, F4 or a click open
it. The offscreen platform cannot grab the keyboard for a popup: the last test presses the keys on a real X
server."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt

from tests.rater.app.own_process import run_script
from tests.rater.app.window_helpers import show_page
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_down_then_tab_then_typing_keeps_the_note(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.page is not None and window.session is not None
    show_page(window, "Failure modes")
    row = next(iter(window.page.form.failure_modes.rows.values()))
    qtbot.mouseClick(row.check, Qt.MouseButton.LeftButton, pos=QPoint(10, row.check.height() // 2))
    row.severity.setFocus()
    qtbot.keyClick(row.severity, Qt.Key.Key_Down)
    assert not row.severity.view().isVisible()
    first = row.severity.currentIndex()
    assert first == 0
    qtbot.keyClick(row.severity, Qt.Key.Key_Down)
    qtbot.keyClick(row.severity, Qt.Key.Key_Down)
    qtbot.keyClick(row.severity, Qt.Key.Key_Up)
    assert row.severity.currentIndex() == 1 and not row.severity.view().isVisible()
    assert window.session.current is not None
    severity = window.session.current.fm(row.fm.id).severity
    assert severity == row.severity.itemData(1)
    row.note.setFocus()
    qtbot.keyClicks(row.note, "offers the reassurance")
    assert window.session.current.fm(row.fm.id).note == "offers the reassurance"


REAL_KEYS = """
import json, subprocess, sys, tempfile, time
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from tests.rater.app.own_process import open_window, settle
app = QApplication([sys.argv[0]])
def press(*keys):
    subprocess.run(["xdotool", *keys], check=True)  # through the X server, as a keyboard types
    settle(0.4)
with tempfile.TemporaryDirectory() as tmp:
    window = open_window(sys.argv[1], tmp)
    window.activateWindow()
    end = time.monotonic() + 60
    while not window.isActiveWindow() and time.monotonic() < end:
        app.processEvents()
    tabs = window.page.form.tabs
    tabs.setCurrentIndex(next(i for i in range(tabs.count()) if tabs.tabText(i).startswith("Failure modes")))
    row = next(iter(window.page.form.failure_modes.rows.values()))
    settle(0.3)
    QTest.mouseClick(row.check, Qt.MouseButton.LeftButton, pos=QPoint(10, row.check.height() // 2))
    row.severity.setFocus()
    settle(0.3)
    press("key", "Down")
    seen = {"platform": QApplication.platformName(), "open_after_down": row.severity.view().isVisible()}
    press("key", "Down")
    press("key", "Tab")
    seen["note_focused"] = QApplication.focusWidget() is row.note
    press("type", "--delay", "15", "offers reassurance")
    entry = window.session.current.fm(row.fm.id)
    seen.update(note=entry.note, severity=entry.severity, second=row.severity.itemData(1))
    row.severity.setFocus()
    settle(0.3)
    press("key", "alt+Down")
    seen["open_after_alt_down"] = row.severity.view().isVisible()
    press("key", "Escape")
    print(json.dumps(seen))
    window.close()
    window.shutdown()
"""


@pytest.mark.skipif(not (shutil.which("xvfb-run") and shutil.which("xdotool")),
                    reason="needs a real X server and real key presses (Debian: apt install xvfb xdotool)")
def test_real_key_presses_on_a_real_x_server(repo_root: Path) -> None:
    """The same through Qt's real X11 platform (xcb, under Xvfb) with the keys pressed through the X server
    (xdotool), where popups grab the keyboard: Down twice chooses the second severity with the list closed, Tab
    goes to the evidence note and what is typed there is kept; Alt+Down still opens the list."""
    from wmcdp_desktop.core.resources import demo_bundle_path

    seen = run_script(repo_root, REAL_KEYS, [demo_bundle_path()], {"QT_QPA_PLATFORM": "xcb"},
                      wrapper=["xvfb-run", "-a", "-s", "-screen 0 1440x900x24"])
    assert seen["platform"] == "xcb"
    assert seen["open_after_down"] is False
    assert seen["note_focused"] is True
    assert seen["note"] == "offers reassurance" and seen["severity"] == seen["second"]
    assert seen["open_after_alt_down"] is True
