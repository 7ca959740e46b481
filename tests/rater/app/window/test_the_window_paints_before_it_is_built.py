"""Start-up as ``wmcdp-desktop`` does it (``main.start``): the bare window is on screen and painted before its
content is built and before the bundle asked for is opened; the bundle's page is then put on screen over
several turns of the event loop, so that input (and the stall probe's timer) is handled in between.
docs/PERFORMANCE.md, "Start-up and stalls"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from tests.rater.app.window_helpers import wait_opened
from wmcdp_desktop.rater.app.window.main_window import MainWindow

WAIT_MS = 20_000


class FirstPaint(QObject):
    """Records whether the window was built (``ready``) and had a page for a bundle at its first paint."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: tuple[bool, bool] | None = None
        app = QApplication.instance()
        assert app is not None
        app.installEventFilter(self)  # sees the paint of any widget of the window, before the widget does

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if self.seen is None and event.type() == QEvent.Type.Paint and isinstance(obj, QWidget):
            window = obj.window()
            if isinstance(window, MainWindow):
                self.seen = (window.ready, window.rating is not None)
        return False


def test_the_bare_window_paints_before_its_content_is_built_and_the_bundle_opens(
    qtbot: Any, bundle_dir: Path, data_dir: Path, start_app: Callable[[list[str]], MainWindow]
) -> None:
    spy = FirstPaint()
    window = start_app([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.isVisible() and not window.ready and window.rating is None  # shown, nothing built yet
    qtbot.waitUntil(lambda: spy.seen is not None, timeout=WAIT_MS)
    assert spy.seen == (False, False)  # its first paint came before the content and the bundle
    qtbot.waitUntil(lambda: window.ready, timeout=WAIT_MS)
    wait_opened(qtbot, window)
    qtbot.waitUntil(lambda: window.session is not None, timeout=WAIT_MS)
    assert window.session is not None and window.session.current_id == "T-0001"
    assert window.stack.currentWidget() is window.page and window.page is not None and window.page.isVisible()
    QApplication.instance().removeEventFilter(spy)  # type: ignore[union-attr]


def test_a_key_pressed_during_start_up_is_not_lost_and_the_welcome_screen_answers(
    qtbot: Any, data_dir: Path, start_app: Callable[[list[str]], MainWindow]
) -> None:
    window = start_app(["--data-dir", str(data_dir), "--rater", "R01"])
    qtbot.waitUntil(lambda: window.ready, timeout=WAIT_MS)
    assert window.stack.currentWidget() is window.welcome
    before = QApplication.font().pointSize()
    qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)  # Ctrl+= : larger text
    qtbot.waitUntil(lambda: QApplication.font().pointSize() > before, timeout=WAIT_MS)


def test_the_opened_bundle_is_put_on_screen_over_several_turns_of_the_event_loop(
    qtbot: Any, bundle_dir: Path, data_dir: Path, start_app: Callable[[list[str]], MainWindow]
) -> None:
    window = start_app(["--data-dir", str(data_dir), "--rater", "R01"])
    qtbot.waitUntil(lambda: window.ready, timeout=WAIT_MS)
    ticks: list[str] = []
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(1)  # overdue by the end of each step (building the page takes longer)
    timer.timeout.connect(lambda: ticks.append("tick"))
    window.opener.opened.connect(lambda _started: ticks.append("opened"))
    window.openingDone.connect(lambda: ticks.append("on screen"))
    timer.start()
    with qtbot.waitSignal(window.openingDone, timeout=WAIT_MS):
        window.open_bundle_path(bundle_dir)
    timer.stop()
    between = ticks[ticks.index("opened") + 1:ticks.index("on screen")]
    # built, then shown, then remembered: the event loop ran (timers, input) between each step
    assert between.count("tick") >= 2, ticks[-10:]
    assert window.page is not None and window.page.isVisible()
