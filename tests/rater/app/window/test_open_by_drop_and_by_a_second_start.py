"""Bundles opened the way people open files: dropped on the window (one .wmcdp file, through File > Open's
own checks; anything else refused in words), and double-clicked while the app runs (a second start hands
the bundle to the running window and exits 0; the window asks before replacing an open bundle)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QMessageBox

from tests.rater.app.window_helpers import wait_opened
from wmcdp_desktop.core.resources import demo_bundle_path
from wmcdp_desktop.rater.app.single_instance import decode, encode, hand_over, server_name
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.settings import load_settings

pytestmark = pytest.mark.skipif(not demo_bundle_path().exists(), reason="the demo bundle is not built")


def _mime(*paths: Path | str) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl(p) if isinstance(p, str) else QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


def _drop(window: MainWindow, mime: QMimeData) -> bool:
    """Drag ``mime`` over the window's middle and drop it, as the desktop does; whether the drag was taken."""
    where = QPointF(window.width() / 2, window.height() / 2)
    actions = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(where.toPoint(), actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    drop = QDropEvent(where, actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)
    return enter.isAccepted()


def _demo_copy(folder: Path, name: str = "Study bundle (copy).wmcdp") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy2(demo_bundle_path(), folder / name))


def test_a_dropped_bundle_file_opens_as_file_open_opens_it(
    qtbot: Any, make_window: Any, data_dir: Path, tmp_path: Path
) -> None:
    window: MainWindow = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    bundle = _demo_copy(tmp_path / "Downloads")
    assert _drop(window, _mime(bundle))
    wait_opened(qtbot, window)
    assert window.session is not None and window.page is not None
    assert load_settings(data_dir)[0].recent_bundles[0] == str(bundle)  # remembered like any bundle opened


@pytest.mark.parametrize("what", ["text file", "two bundles", "folder", "web link", "zip named .wmcdp"])
def test_anything_else_dropped_is_refused_in_words(
    what: str, qtbot: Any, make_window: Any, data_dir: Path, tmp_path: Path
) -> None:
    window: MainWindow = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    notes = tmp_path / "notes.txt"
    notes.write_text("hello", encoding="utf-8")
    broken = tmp_path / "broken.wmcdp"
    with zipfile.ZipFile(broken, "w") as z:
        z.writestr("readme.txt", "not a bundle")
    mime = {
        "text file": _mime(notes),
        "two bundles": _mime(_demo_copy(tmp_path / "a"), _demo_copy(tmp_path / "b")),
        "folder": _mime(tmp_path),
        "web link": _mime("https://example.org/bundle.wmcdp"),
        "zip named .wmcdp": _mime(broken),
    }[what]
    _drop(window, mime)
    wait_opened(qtbot, window)
    assert window.session is None
    assert window.messages, "nothing was said"
    said = window.messages[-1]
    if what == "zip named .wmcdp":
        assert said.startswith("This bundle cannot be opened:") and str(broken) in said  # File > Open's refusal
    else:
        assert said.startswith("Nothing was opened: the window takes one bundle file ending in .wmcdp")


def test_a_drop_of_text_is_not_taken_by_the_window(make_window: Any, data_dir: Path) -> None:
    window: MainWindow = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    mime = QMimeData()
    mime.setText("a quote dragged from somewhere")
    assert not _drop(window, mime)
    assert not window.messages


def test_the_handover_message_round_trips_odd_paths() -> None:
    paths = [Path("/tmp/a b/Übung 😊.wmcdp"), Path("/tmp/line\nbreak.wmcdp"), Path("C:/x/y.wmcdp")]
    message = encode(paths)
    assert decode(message) == paths
    assert decode(message[:-1]) is None  # not whole yet
    assert decode(encode([])) == []
    with pytest.raises(ValueError):
        decode(b"GET / HTTP/1.1\r\n\r\n")


def test_a_bundle_handed_over_opens_or_asks_first_when_another_is_open(
    qtbot: Any, make_window: Any, data_dir: Path, tmp_path: Path
) -> None:
    window: MainWindow = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    assert window.server is not None and window.server.listening
    first = _demo_copy(tmp_path / "one")
    window.open_from_outside([first])
    wait_opened(qtbot, window)
    assert window.session is not None
    opened = window.session
    second = _demo_copy(tmp_path / "two", "other.wmcdp")
    window.open_from_outside([second])
    boxes = [b for b in window.findChildren(QMessageBox) if b.isVisible()]
    assert len(boxes) == 1 and "other.wmcdp" in boxes[0].text()
    assert boxes[0].defaultButton() is boxes[0].button(QMessageBox.StandardButton.Cancel)
    boxes[0].button(QMessageBox.StandardButton.Cancel).click()
    qtbot.wait(50)
    assert window.session is opened  # nothing replaced
    window.open_from_outside([second])
    box = next(b for b in window.findChildren(QMessageBox) if b.isVisible())
    box.button(QMessageBox.StandardButton.Open).click()
    wait_opened(qtbot, window)
    assert window.session is not None and window.session is not opened
    window.open_from_outside([second])  # the same bundle again: nothing asked, nothing reopened
    assert not [b for b in window.findChildren(QMessageBox) if b.isVisible()]


def test_a_start_with_nobody_listening_hands_over_nothing(tmp_path: Path) -> None:
    begun = time.monotonic()
    assert hand_over(tmp_path / "nobody", [tmp_path / "x.wmcdp"]) is False
    assert time.monotonic() - begun < 3
    assert server_name(tmp_path / "a") != server_name(tmp_path / "b")


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(QT_QPA_PLATFORM="offscreen", HOME=str(home), XDG_DATA_HOME=str(home / "data"))
    return env


def test_a_second_start_hands_its_bundle_to_the_running_app_and_exits_0(tmp_path: Path) -> None:
    """Two real processes on one data folder, as a double-click while the app is open makes them."""
    data = tmp_path / "data"
    env = _env(tmp_path / "home")
    running = subprocess.Popen(
        [sys.executable, "-m", "wmcdp_desktop", "--data-dir", str(data), "--rater", "R01"],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        end = time.monotonic() + 60
        while not (data / "instance.json").exists():
            assert running.poll() is None, running.stderr.read().decode() if running.stderr else ""
            assert time.monotonic() < end, "the first app did not start"
            time.sleep(0.1)
        bundle = _demo_copy(tmp_path / "Downloads", "double-clicked.wmcdp")
        begun = time.monotonic()
        second = subprocess.run(
            [sys.executable, "-m", "wmcdp_desktop", str(bundle.relative_to(tmp_path)), "--data-dir", str(data)],
            env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
        )
        assert second.returncode == 0, second.stdout + second.stderr
        assert time.monotonic() - begun < 20
        settings = data / "settings.json"
        while str(bundle) not in (settings.read_text(encoding="utf-8") if settings.exists() else ""):
            assert running.poll() is None, "the running app ended"
            assert time.monotonic() < end + 60, "the running app did not open the bundle handed over"
            time.sleep(0.1)
    finally:
        running.terminate()
        running.wait(timeout=30)
        if running.stderr is not None:
            running.stderr.close()
