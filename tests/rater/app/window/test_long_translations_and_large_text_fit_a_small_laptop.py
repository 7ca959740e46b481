"""A 1366x768 laptop at 150% scaling leaves the window 895x464 logical pixels. In Spanish (longer words) with
the app's text at 150% or 200%, the window's smallest size was taller than that screen (504 px against 464:
its bottom, with Submit, went off the screen), because the parts of the page that do not scroll themselves
(the banners, the timer and its buttons, the tabs, Submit) grew with the text. In every language the app has,
at every text size up to twice, with each part of the form open (the rubric help, the flag's note, "cannot
rate", the problems of a failed Submit), the window fits that screen, the page scrolls as a whole instead,
nothing is cut off, and Submit can be scrolled to and clicked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QScrollArea

from tests.rater.app.own_process import run_script
from tests.rater.app.text.pseudo_translation import cut_off
from wmcdp_desktop.rater.app.screen_fit import FRAME_ALLOWANCE
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.settings import Settings, save_settings

SMALL = (round(1366 / 1.5) - FRAME_ALLOWANCE[0], round(768 / 1.5) - FRAME_ALLOWANCE[1])


def _fits(window: MainWindow, what: str) -> None:
    QApplication.processEvents()
    hint = window.minimumSizeHint()
    assert hint.width() <= SMALL[0] and hint.height() <= SMALL[1], (what, hint)
    window.resize(*SMALL)
    QApplication.processEvents()
    assert window.width() <= SMALL[0] and window.height() <= SMALL[1], (what, window.size())
    assert cut_off(window) == [], what


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize("text", [1.0, 1.5, 2.0])
def test_the_window_fits_with_every_part_open(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path, language: str,
    text: float, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    save_settings(data_dir, Settings(language=language))
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    if text != 1.0:
        window.change_font(round(QApplication.font().pointSize() * (text - 1)))
    window.resize(*SMALL)
    assert window.page is not None
    form = window.page.form
    _fits(window, "the task")
    out = tmp_path_factory.getbasetemp() / "screenshots"
    out.mkdir(exist_ok=True)
    window.grab().save(str(out / f"small-laptop-{language}-text{int(text * 100)}.png"))
    window.page.toggle_help()
    _fits(window, "the rubric help")
    window.page.toggle_help()
    form.flag_button.click()
    _fits(window, "the flag's note")
    form.submit_button.click()
    _fits(window, "a failed submit")
    form.cannot_button.click()
    _fits(window, "cannot rate")
    form.cannot_button.click()
    # Submit is reached by scrolling the page and answers a click
    area = window.centralWidget()
    assert isinstance(area, QScrollArea)
    area.ensureWidgetVisible(form.submit_button, 0, 0)
    QApplication.processEvents()
    submit = form.submit_button
    shown = submit.visibleRegion().boundingRect()
    assert shown.height() == submit.height(), (shown, submit.size())
    clicked: list[bool] = []
    form.submitRequested.connect(lambda: clicked.append(True))
    qtbot.mouseClick(submit, Qt.MouseButton.LeftButton, pos=QPoint(submit.width() // 2, submit.height() // 2))
    assert clicked == [True]


def test_the_welcome_screen_fits_in_spanish_at_twice_the_text(
    qtbot: Any, make_window: Callable[..., MainWindow], data_dir: Path
) -> None:
    save_settings(data_dir, Settings(language="es"))
    window = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    window.change_font(QApplication.font().pointSize())
    _fits(window, "the welcome screen")


REAL_SCALING = """
import json, sys, tempfile
from PySide6.QtWidgets import QApplication
from tests.rater.app.own_process import open_window, settle
from tests.rater.app.text.pseudo_translation import cut_off
app = QApplication([sys.argv[0]])
with tempfile.TemporaryDirectory() as tmp:
    size = (int(sys.argv[2]), int(sys.argv[3]))
    window = open_window(sys.argv[1], tmp, size=size, language="es")
    window.change_font(round(QApplication.font().pointSize() * 0.5))
    window.resize(*size)
    settle(1.0)
    hint = window.minimumSizeHint()
    print(json.dumps({"ratio": window.devicePixelRatio(), "size": [window.width(), window.height()],
                      "minimum": [hint.width(), hint.height()], "cut": cut_off(window)}))
    window.shutdown()
"""


def test_in_spanish_at_150_percent_text_on_a_real_150_percent_scale(repo_root: Path) -> None:
    """The same with Qt's own scaling (QT_SCALE_FACTOR=1.5, in a process of its own), Spanish, text at 150%."""
    from wmcdp_desktop.core.resources import demo_bundle_path

    got = run_script(repo_root, REAL_SCALING, [demo_bundle_path(), *SMALL],
                     {"QT_SCALE_FACTOR": "1.5", "QT_QPA_PLATFORM": "offscreen"})
    assert got["ratio"] == 1.5
    assert got["minimum"][0] <= SMALL[0] and got["minimum"][1] <= SMALL[1], got
    assert got["size"][0] <= SMALL[0] and got["size"][1] <= SMALL[1], got
    assert got["cut"] == [], got
