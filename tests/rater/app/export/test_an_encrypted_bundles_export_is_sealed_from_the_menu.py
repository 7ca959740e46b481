"""File > Export results… of an encrypted bundle proposes a name without the study id, writes the export sealed to
the coordinator's key (only that key opens it; the receipt code is shown as for a plain export), and
``wmcdp results validate`` checks it with the coordinator's key."""

from __future__ import annotations

import contextlib
import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from tests.kit.encryption import PASSPHRASE, coordinator_keys, encrypted_sample_bundle
from tests.rater.app.window_helpers import (
    OPEN_TIMEOUT_MS,
    set_all_scores_by_keyboard,
    submit_by_keyboard,
    type_rationale,
    wait_opened,
)
from wmcdp_desktop.core.encryption.sealed_box import is_sealed, open_sealed
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_an_encrypted_bundles_export_is_sealed_and_named_without_the_study(
    qtbot: Any, make_window: Callable[..., MainWindow], tmp_path: Path, data_dir: Path, sample_docs: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    private, public = coordinator_keys()
    bundle = encrypted_sample_bundle(tmp_path / "R01.wmcdp", sample_docs, public)
    window = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    window.open_bundle_path(bundle)
    qtbot.waitUntil(lambda: window.opener.dialog is not None, timeout=OPEN_TIMEOUT_MS)
    assert window.opener.dialog is not None
    qtbot.keyClicks(window.opener.dialog.edit, PASSPHRASE)
    qtbot.keyClick(window.opener.dialog.edit, Qt.Key.Key_Return)
    wait_opened(qtbot, window)
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    set_all_scores_by_keyboard(qtbot, window, "4")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    assert window.session is not None
    qtbot.waitUntil(lambda: window.session is not None and window.session.state("T-0001") == "submitted",
                    timeout=OPEN_TIMEOUT_MS)

    proposed: list[tuple[str, str]] = []
    target = tmp_path / "out" / "sent.wmcdp-sealed"
    target.parent.mkdir()

    def save_as(_parent: Any, _title: str, default: str, kinds: str) -> tuple[str, str]:
        proposed.append((default, kinds))
        return str(target), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save_as))
    assert window.rating is not None
    with qtbot.waitSignal(window.rating.exporter.finished, timeout=OPEN_TIMEOUT_MS):
        window.menu.act_export.trigger()
    (default, kinds), = proposed
    assert Path(default).name.startswith("wmcdp-results-R01-") and Path(default).name.endswith(".wmcdp-sealed")
    assert "S-test" not in default and "B-test" not in default and "*.wmcdp-sealed" in kinds
    data = target.read_bytes()
    assert is_sealed(data[:64]) and b"T-0001" not in data
    with zipfile.ZipFile(io.BytesIO(open_sealed(private, data, target.name))) as zf:
        assert "records/T-0001.r1.json" in zf.namelist()
    qtbot.waitUntil(lambda: window.receipt_dialog is not None and window.receipt_dialog.isVisible(), timeout=5000)
    assert window.receipt_dialog is not None
    code = window.receipt_dialog.code.text()

    from wmcdp_desktop.coordinator.commands.main import main as wmcdp

    key = tmp_path / "coordinator.key"
    key.write_bytes(private)
    key.chmod(0o600)
    with contextlib.redirect_stdout(io.StringIO()) as said, contextlib.redirect_stderr(io.StringIO()):
        assert wmcdp(["results", "validate", str(target), "--key", str(key), "--receipt", code]) == 0, said.getvalue()
    said = io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
        refused = wmcdp(["results", "validate", str(target)])  # without the key: refused in words, never skipped
    assert refused != 0 and "coordinator" in said.getvalue(), said.getvalue()
