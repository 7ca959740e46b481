"""Measure how much a rater scrolls the rating form: ``python tools/form_scrolling.py [--json]``.

Opens the shipped demo bundle in the real window (offscreen, a throw-away data folder), sized as the app
opens itself on a 1440x900 and on a 1366x768 screen (``fitted_size``: the screen less a title bar), and for
each page of the rating form (every scroll area in it: one before the form had pages) reports

- the scroll range in pixels (0 = everything on the page is in view), and
- the mouse-wheel notches needed to bring the last control of the page into view (Qt's default: 3 lines
  of the scroll bar's single step per notch), and the page switches (a click on a tab) needed to reach it.

Each measurement is made on a fresh task, and again with three failure modes ticked (each opens its
severity, note and evidence controls). Not part of the installed app; the figures are in docs/RATER_GUIDE.md.
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QCheckBox, QScrollArea, QTabWidget, QWidget

from wmcdp_desktop.core.counts import count
from wmcdp_desktop.rater.app.main import create_main_window
from wmcdp_desktop.rater.app.screen_fit import FRAME_ALLOWANCE
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.timing import FakeClock

SCREENS = ((1440, 900), (1366, 768))


def _settle(app: QApplication, seconds: float = 0.3) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()


def _tabbable(widget: QWidget) -> bool:
    return bool(widget.isVisibleTo(widget.window()) and widget.isEnabled() and widget.focusPolicy() & Qt.FocusPolicy.TabFocus)


def _pages(form: QWidget) -> list[tuple[QScrollArea, QTabWidget | None, int]]:
    """Every scroll area of the form that holds controls, with the tab widget and index that show it."""
    out = []
    for area in form.findChildren(QScrollArea):
        if area.widget() is None or area.viewport() is None:
            continue
        tabs: QTabWidget | None = None
        index = -1
        parent = area.parentWidget()
        while parent is not None and parent is not form:
            if isinstance(parent, QTabWidget):
                tabs, index = parent, parent.indexOf(area)
                break
            parent = parent.parentWidget()
        if tabs is not None and (index < 0 or not tabs.isTabVisible(index)):
            continue
        if tabs is None and not area.isVisibleTo(form):
            continue  # a page not shown for this task (the "cannot rate" reasons)
        out.append((area, tabs, index))
    return sorted(out, key=lambda page: page[2])


def measure_page(app: QApplication, area: QScrollArea, tabs: QTabWidget | None, index: int) -> dict[str, Any]:
    if tabs is not None:
        tabs.setCurrentIndex(index)
    _settle(app, 0.2)
    inner = area.widget()
    assert inner is not None, "the form's scroll area holds its page"
    bar = area.verticalScrollBar()
    bar.setValue(0)
    controls = [w for w in inner.findChildren(QWidget) if _tabbable(w)]
    viewport = area.viewport().height()
    notch = max(1, bar.singleStep() * QApplication.wheelScrollLines())
    needed = 0
    for w in controls:
        bottom = w.mapTo(inner, QPoint(0, w.height())).y()
        needed = max(needed, bottom - viewport)
    needed = max(0, min(needed, bar.maximum()))
    return {
        "page": tabs.tabText(index) if tabs is not None else "form",
        "controls": len(controls),
        "scroll_range_px": bar.maximum(),
        "wheel_notches_to_last_control": math.ceil(needed / notch) if needed else 0,
        "page_switches": 0 if tabs is None or index == 0 else 1,
    }


def measure(screen: tuple[int, int], ticked: int) -> dict[str, Any]:
    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    size = (screen[0] - FRAME_ALLOWANCE[0], screen[1] - FRAME_ALLOWANCE[1])
    with tempfile.TemporaryDirectory() as tmp:
        window = create_main_window(["--data-dir", str(Path(tmp) / "data"), "--rater", "R01"], clock=FakeClock())
        assert isinstance(window, MainWindow)
        try:
            window.resize(*size)
            window.show()
            window.open_demo()
            end = time.monotonic() + 30
            while window.session is None and time.monotonic() < end:
                app.processEvents()
            assert window.page is not None and window.session is not None, window.messages
            form = window.page.form
            checks = [c for c in form.findChildren(QCheckBox) if c.objectName() == "" and c.text() and
                      c.accessibleName() in {fm.label for fm in window.session.rubric.failure_modes}]
            for check in checks[:ticked]:
                check.setChecked(True)
            _settle(app, 0.5)
            pages = [measure_page(app, *p) for p in _pages(form)]
            return {"window": f"{size[0]}x{size[1]}", "screen": f"{screen[0]}x{screen[1]}",
                    "failure_modes_ticked": ticked, "pages": pages}
        finally:
            window.shutdown()
            window.deleteLater()
            _settle(app, 0.1)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    results = [measure(screen, ticked) for screen in SCREENS for ticked in (0, 3)]
    if "--json" in args:
        print(json.dumps(results, indent=2))
        return 0
    for r in results:
        print(f"screen {r['screen']} (window {r['window']}), {count(r['failure_modes_ticked'], 'failure mode')} ticked:")
        for p in r["pages"]:
            print(f"  {p['page']:<32} {p['controls']:>3} controls  scroll range {p['scroll_range_px']:>5} px  "
                  f"{count(p['wheel_notches_to_last_control'], 'wheel notch', 'wheel notches'):>16}  "
                  f"{count(p['page_switches'], 'page switch', 'page switches')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
