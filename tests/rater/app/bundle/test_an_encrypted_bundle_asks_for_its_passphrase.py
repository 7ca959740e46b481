"""An encrypted bundle, however it is opened, asks for its passphrase in a plain accessible dialog; a wrong one is
refused plainly and may be typed again, and nothing is written until the bundle opens; the key derivation runs off
the GUI thread; the passphrase is typed once per session."""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QThread, QTimer
from PySide6.QtWidgets import QApplication, QLineEdit

from tests.kit.encryption import PASSPHRASE, coordinator_keys, encrypted_sample_bundle
from tests.rater.app.window_helpers import OPEN_TIMEOUT_MS, wait_opened
from wmcdp_desktop.core.encryption import bundle_envelope
from wmcdp_desktop.rater.app.bundle.passphrase_dialog import PassphraseDialog
from wmcdp_desktop.rater.app.window.main_window import MainWindow


@pytest.fixture
def temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary folder of the process (tempfile.gettempdir()) set to a folder of the test."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def encrypted(tmp_path: Path, sample_docs: Any) -> Path:
    return encrypted_sample_bundle(tmp_path / "sent" / "R01.wmcdp", sample_docs, coordinator_keys()[1])


@pytest.fixture
def empty_window(make_window: Callable[..., MainWindow], data_dir: Path) -> MainWindow:
    return make_window(["--data-dir", str(data_dir), "--rater", "R01"])


def snapshot(*folders: Path) -> dict[str, bytes]:
    """Every file under ``folders`` (path -> bytes), the instance files of the window aside."""
    out = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.name not in ("instance.lock", "instance.json"):
                out[str(path)] = path.read_bytes()
    return out


def asked(qtbot: Any, window: MainWindow) -> PassphraseDialog:
    """The passphrase dialog, once shown."""
    qtbot.waitUntil(lambda: window.opener.dialog is not None and window.opener.dialog.isVisible(),
                    timeout=OPEN_TIMEOUT_MS)
    dialog = window.opener.dialog
    assert dialog is not None
    return dialog


def type_passphrase(qtbot: Any, dialog: PassphraseDialog, text: str) -> None:
    """Type ``text`` into the dialog's field by keyboard and press Enter."""
    assert dialog.edit.hasFocus() or QApplication.focusWidget() is dialog.edit
    qtbot.keyClicks(dialog.edit, text)
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)


def test_a_wrong_passphrase_is_refused_may_be_retried_and_nothing_is_written(
    qtbot: Any, empty_window: MainWindow, encrypted: Path, data_dir: Path, temp_dir: Path
) -> None:
    window = empty_window
    before = snapshot(data_dir, temp_dir, encrypted.parent)
    window.open_bundle_path(encrypted)
    dialog = asked(qtbot, window)
    assert dialog.edit.echoMode() == QLineEdit.EchoMode.Password
    type_passphrase(qtbot, dialog, "acid acorn acre acts afar WRONG")
    qtbot.waitUntil(lambda: window.opener.dialog is not None and window.opener.dialog is not dialog,
                    timeout=OPEN_TIMEOUT_MS)
    again = asked(qtbot, window)
    assert again.problem.isVisible()
    assert "passphrase does not open R01.wmcdp" in again.problem.text()
    assert again.edit.text() == ""  # typed again from the start
    assert window.session is None and window.opening
    assert snapshot(data_dir, temp_dir, encrypted.parent) == before  # nothing written anywhere
    type_passphrase(qtbot, again, "  Acid Acorn-acre ACTS  afar affix ")  # case, spaces and dashes forgiven
    wait_opened(qtbot, window)
    assert window.session is not None and window.session.task_ids == ["T-0001", "T-0002", "T-0003"]
    assert window.session.store.cipher is not None


def test_cancel_opens_nothing_and_writes_nothing(qtbot: Any, empty_window: MainWindow, encrypted: Path,
                                                  data_dir: Path, temp_dir: Path) -> None:
    before = snapshot(data_dir, temp_dir)
    with qtbot.waitSignal(empty_window.openingDone, timeout=OPEN_TIMEOUT_MS):
        empty_window.open_bundle_path(encrypted)
        dialog = asked(qtbot, empty_window)
        qtbot.keyClicks(dialog.edit, "half typed")
        qtbot.keyClick(dialog.edit, Qt.Key.Key_Escape)
    assert empty_window.session is None and not empty_window.opening
    assert empty_window.opener.dialog is None
    assert snapshot(data_dir, temp_dir) == before


def test_the_dialog_is_plain_and_accessible(qtbot: Any, empty_window: MainWindow, encrypted: Path) -> None:
    empty_window.open_bundle_path(encrypted)
    dialog = asked(qtbot, empty_window)
    assert dialog.edit.accessibleName() == "Passphrase"
    assert dialog.show_box.accessibleName() == "Show characters"
    ok, cancel = dialog.buttons.buttons()[0], dialog.buttons.buttons()[1]
    assert ok.accessibleName() and cancel.accessibleName()
    qtbot.keyClicks(dialog.edit, "acid")
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Tab)  # to the Show characters box
    assert dialog.show_box.hasFocus()
    qtbot.keyClick(dialog.show_box, Qt.Key.Key_Space)
    assert dialog.edit.echoMode() == QLineEdit.EchoMode.Normal
    qtbot.keyClick(dialog.show_box, Qt.Key.Key_Space)
    assert dialog.edit.echoMode() == QLineEdit.EchoMode.Password
    dialog.edit.clear()
    dialog.edit.setFocus()
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)  # empty: said, not closed
    assert dialog.isVisible() and "Type the passphrase" in dialog.problem.text()
    dialog.reject()


def test_the_same_bundle_opened_again_in_the_session_asks_nothing(qtbot: Any, empty_window: MainWindow,
                                                                   encrypted: Path) -> None:
    window = empty_window
    window.open_bundle_path(encrypted)
    type_passphrase(qtbot, asked(qtbot, window), PASSPHRASE)
    wait_opened(qtbot, window)
    window.close_bundle()
    assert window.session is None
    with qtbot.waitSignal(window.openingDone, timeout=OPEN_TIMEOUT_MS):
        window.open_bundle_path(encrypted)
        assert window.opener.dialog is None
    wait_opened(qtbot, window)
    assert window.session is not None and window.opener.dialog is None


def test_the_command_line_opens_an_encrypted_bundle_after_its_passphrase(
    qtbot: Any, clock: Any, encrypted: Path, data_dir: Path
) -> None:
    from wmcdp_desktop.rater.app import main as app_module

    window = app_module.create_main_window([str(encrypted), "--data-dir", str(data_dir), "--rater", "R01"], clock=clock)
    assert isinstance(window, MainWindow)
    qtbot.addWidget(window)
    window.show()
    try:
        qtbot.waitUntil(lambda: getattr(window, "opener", None) is not None, timeout=OPEN_TIMEOUT_MS)
        type_passphrase(qtbot, asked(qtbot, window), PASSPHRASE)
        wait_opened(qtbot, window)
        assert window.session is not None
    finally:
        window.shutdown()


def test_a_hostile_header_is_refused_before_any_passphrase_is_asked(
    qtbot: Any, empty_window: MainWindow, encrypted: Path
) -> None:
    data = bytearray(encrypted.read_bytes())
    data[11:15] = (2**30).to_bytes(4, "big")  # scrypt N of 2^30: gigabytes of memory
    encrypted.write_bytes(bytes(data))
    with qtbot.waitSignal(empty_window.openingDone, timeout=OPEN_TIMEOUT_MS):
        empty_window.open_bundle_path(encrypted)
    assert empty_window.opener.dialog is None and empty_window.session is None
    assert "cannot be opened" in empty_window.messages[-1] and "R01.wmcdp" in empty_window.messages[-1]


@pytest.mark.parametrize("keep", [12, 60, -1])
def test_a_truncated_file_is_refused_plainly_before_any_passphrase_is_asked(
    qtbot: Any, empty_window: MainWindow, encrypted: Path, data_dir: Path, keep: int
) -> None:
    data = encrypted.read_bytes()
    encrypted.write_bytes(data[:keep])  # cut inside the header, just after it, one byte short
    before = snapshot(data_dir)
    with qtbot.waitSignal(empty_window.openingDone, timeout=OPEN_TIMEOUT_MS):
        empty_window.open_bundle_path(encrypted)
    assert empty_window.opener.dialog is None and empty_window.session is None
    assert "cut short" in empty_window.messages[-1] and "R01.wmcdp" in empty_window.messages[-1]
    assert snapshot(data_dir) == before


def test_a_changed_body_is_refused_like_a_wrong_passphrase(qtbot: Any, empty_window: MainWindow, encrypted: Path,
                                                           data_dir: Path) -> None:
    data = bytearray(encrypted.read_bytes())
    data[len(data) // 2] ^= 0x01
    encrypted.write_bytes(bytes(data))
    before = snapshot(data_dir)
    empty_window.open_bundle_path(encrypted)
    first = asked(qtbot, empty_window)
    type_passphrase(qtbot, first, PASSPHRASE)
    qtbot.waitUntil(lambda: empty_window.opener.dialog not in (None, first), timeout=OPEN_TIMEOUT_MS)
    again = asked(qtbot, empty_window)
    assert "or the file was changed" in again.problem.text()
    assert snapshot(data_dir) == before
    again.reject()


class Gate:
    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.threads: list[QThread] = []


@pytest.fixture
def slow_kdf(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    """The key derivation held until the test lets it go (as a slow laptop's half second, made long on purpose)."""
    gate = Gate()
    real = bundle_envelope.derive_keys

    def slow(passphrase: str, header: Any) -> Any:
        gate.threads.append(QThread.currentThread())
        gate.entered.set()
        assert gate.release.wait(10), "the test never released the key derivation"
        return real(passphrase, header)

    monkeypatch.setattr(bundle_envelope, "derive_keys", slow)
    yield gate
    gate.release.set()


def test_the_key_derivation_runs_off_the_gui_thread(qtbot: Any, empty_window: MainWindow, encrypted: Path,
                                                    slow_kdf: Gate) -> None:
    window = empty_window
    window.open_bundle_path(encrypted)
    type_passphrase(qtbot, asked(qtbot, window), PASSPHRASE)
    qtbot.waitUntil(slow_kdf.entered.is_set, timeout=OPEN_TIMEOUT_MS)
    turns = [0]
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: turns.__setitem__(0, turns[0] + 1))
    timer.start()
    qtbot.waitUntil(lambda: turns[0] >= 5, timeout=OPEN_TIMEOUT_MS)  # the window answers while it derives
    timer.stop()
    assert window.opening and window.session is None
    slow_kdf.release.set()
    wait_opened(qtbot, window)
    assert window.session is not None
    assert slow_kdf.threads and all(t is not QApplication.instance().thread() for t in slow_kdf.threads)


def test_a_big_encrypted_bundle_is_checked_in_a_process_of_its_own_in_memory(
    qtbot: Any, empty_window: MainWindow, encrypted: Path, monkeypatch: pytest.MonkeyPatch, temp_dir: Path,
    sample_docs: Any,
) -> None:
    import os

    from wmcdp_desktop.rater.app.bundle import checking

    monkeypatch.setattr(checking, "PROCESS_FROM_FILES", 0)  # this small bundle takes a big one's way
    before = snapshot(temp_dir, encrypted.parent)
    empty_window.open_bundle_path(encrypted)
    type_passphrase(qtbot, asked(qtbot, empty_window), PASSPHRASE)
    wait_opened(qtbot, empty_window)
    checker = empty_window.rating.checker if empty_window.rating is not None else None
    assert checker is not None and checker.process_id not in (None, os.getpid())
    assert checker.problems == []  # the process decrypted the file with the app's key, in its memory
    assert snapshot(temp_dir, encrypted.parent) == before  # nothing plain written for it
    # The file replaced by another encrypted bundle while open: the check process (checking again) says so.
    encrypted_sample_bundle(encrypted, sample_docs, coordinator_keys()[1])
    assert empty_window.rating is not None
    empty_window.rating.checker.check(empty_window.rating.session.bundle)
    qtbot.waitUntil(lambda: empty_window.rating is not None and not empty_window.rating.checker.busy,
                    timeout=OPEN_TIMEOUT_MS)
    problems = empty_window.rating.checker.problems or []
    assert problems and all("R01.wmcdp" in p.file for p in problems), problems


def test_a_huge_encrypted_file_is_refused_before_it_is_read(qtbot: Any, empty_window: MainWindow, encrypted: Path,
                                                            data_dir: Path) -> None:
    head = encrypted.read_bytes()[: bundle_envelope.HEADER_SIZE]
    with open(encrypted, "wb") as f:  # a sparse file larger than any bundle: nothing of it is read
        f.write(head)
        f.truncate(bundle_envelope.MAX_ENCRYPTED_BYTES + bundle_envelope.HEADER_SIZE + 1)
    before = snapshot(data_dir)
    with qtbot.waitSignal(empty_window.openingDone, timeout=OPEN_TIMEOUT_MS):
        empty_window.open_bundle_path(encrypted)
    assert empty_window.opener.dialog is None and empty_window.session is None
    assert "is larger than" in empty_window.messages[-1] and "R01.wmcdp" in empty_window.messages[-1]
    assert snapshot(data_dir) == before


def test_a_huge_declared_size_is_refused_before_any_passphrase_is_asked(
    qtbot: Any, empty_window: MainWindow, encrypted: Path
) -> None:
    data = bytearray(encrypted.read_bytes())
    size_at = bundle_envelope.HEADER_SIZE - 8  # the header ends with the content's length (8 bytes)
    data[size_at:bundle_envelope.HEADER_SIZE] = (2**62).to_bytes(8, "big")
    encrypted.write_bytes(bytes(data))
    with qtbot.waitSignal(empty_window.openingDone, timeout=OPEN_TIMEOUT_MS):
        empty_window.open_bundle_path(encrypted)
    assert empty_window.opener.dialog is None and empty_window.session is None
    assert "declares" in empty_window.messages[-1] and "R01.wmcdp" in empty_window.messages[-1]
