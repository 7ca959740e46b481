"""An encrypted study end to end: ``wmcdp bundle build --encrypt`` → the bundle opened in the real window with its
passphrase typed by keyboard → a task rated and submitted by keyboard → the app started again, the next task half
done and autosaved, and the app killed (``kill -9``) → a new window, the passphrase typed again, the draft back →
submitted → exported (sealed to the coordinator) → collected by the coordinator with the build's keys. After the whole session a byte scan of the bundle file, the
data folder (contents and names), the export and the temporary folder finds no scenario, response or rationale
text and no id of the study."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from tests.kit.studies import MODELS, build_study
from tests.rater.app.window_helpers import (
    OPEN_TIMEOUT_MS,
    export_and_wait,
    set_all_scores_by_keyboard,
    skip_blinding_question,
    submit_by_keyboard,
    type_rationale,
    wait_opened,
)
from wmcdp_desktop.coordinator.commands.main import main as wmcdp
from wmcdp_desktop.core.encryption.sealed_box import is_sealed, open_sealed
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.export import sealed_export_file_name

CRASHER = """
import sys
from PySide6.QtWidgets import QApplication
from wmcdp_desktop.rater.app.main import create_main_window
from wmcdp_desktop.rater.timing import FakeClock
app = QApplication([])
bundle, data, rater, passphrase, task, text = sys.argv[1:7]
w = create_main_window([bundle, "--data-dir", data, "--rater", rater], clock=FakeClock())
w.show()
while getattr(w, "opener", None) is None or w.opener.dialog is None:
    app.processEvents()
w.opener.dialog.edit.setText(passphrase)
w.opener.dialog.accept()
while w.opening or w.session is None:
    app.processEvents()
assert w.rating.go_to(task)
w.session.set_score("WM-RUB-003", 2)
w.session.set_note("brief_rationale", text)
assert w.rating.save_now()
print("saved", flush=True)
sys.stdin.readline()
"""
"""A second start of the app on the same data folder: the encrypted bundle opened with its passphrase, ``task``
half rated and autosaved, then waiting to be killed."""
RATIONALE = "Zircon-heron rationale typed by keyboard"
DRAFT = "Basalt-plover draft typed before the crash"
MIN_TEXT = 16
"""Texts shorter than this are not scanned for (a few letters can occur by chance in any bytes)."""


def secrets_of(built: Any, rater: str) -> list[bytes]:
    """Every id of the study the rater's bundle names, its models, and pieces of every scenario and response."""
    bundle = built.bundles[rater]
    found = {bundle.manifest.study_id, bundle.manifest.bundle_id, bundle.manifest.study_title, *MODELS}
    for task_id in bundle.task_ids:
        task = bundle.task(task_id)
        found |= {task.task_id, task.benchmark_item_id, task.candidate_response_id}
        texts = [task.candidate_response_text, *(t.text for t in task.scenario.turns)]
        if task.scenario.context is not None and task.scenario.context.summary:
            texts.append(task.scenario.context.summary)
        found |= {text[i:i + MIN_TEXT] for text in texts for i in range(0, max(1, len(text) - MIN_TEXT), 40)
                  if len(text) >= MIN_TEXT}
    found |= {RATIONALE, DRAFT}
    return sorted(s.encode("utf-8") for s in found if s)


def byte_scan(secrets: list[bytes], *roots: Path) -> list[str]:
    """Each secret found in the name or the bytes of a file under ``roots`` (or in a root file itself)."""
    hits = []
    for root in roots:
        paths = [root] if root.is_file() else sorted(root.rglob("*"))
        for path in paths:
            name = str(path.relative_to(root.parent if root.is_file() else root)).encode("utf-8")
            blob = path.read_bytes() if path.is_file() else b""
            hits += [f"{s.decode()!r} in {path}" for s in secrets if s in name or s in blob]
    return hits


def unlock(qtbot: Any, window: MainWindow, bundle: Path, passphrase: str) -> None:
    """Open ``bundle`` as File > Open does and type its passphrase by keyboard."""
    window.open_bundle_path(bundle)
    qtbot.waitUntil(lambda: window.opener.dialog is not None and window.opener.dialog.isVisible(),
                    timeout=OPEN_TIMEOUT_MS)
    dialog = window.opener.dialog
    assert dialog is not None
    qtbot.keyClicks(dialog.edit, passphrase.replace("-", " ").upper())  # read over the phone, typed in capitals
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
    wait_opened(qtbot, window)
    assert window.session is not None, window.messages
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)  # the keyboard is the window's again


def submit(qtbot: Any, window: MainWindow, task_id: str) -> None:
    """Ctrl+Enter, then Escape on the blinding question when the study asks it; until the task is submitted."""
    session = window.session
    assert session is not None
    submit_by_keyboard(qtbot, window)

    def asked() -> bool:
        return window.rating is not None and window.rating.question is not None and window.rating.question.isVisible()

    qtbot.waitUntil(lambda: asked() or session.state(task_id) == "submitted", timeout=OPEN_TIMEOUT_MS)
    if asked():
        skip_blinding_question(qtbot, window)
    qtbot.waitUntil(lambda: session.state(task_id) == "submitted", timeout=OPEN_TIMEOUT_MS)


def kill_during_work(bundle: Path, data: Path, rater: str, passphrase: str, task: str) -> None:
    """Run :data:`CRASHER` and ``kill -9`` it once its draft is saved (a crash: no cleanup, no orderly close)."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    args = [sys.executable, "-c", CRASHER, str(bundle), str(data), rater, passphrase, task, DRAFT]
    with subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=env) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline().strip()
        assert line == "saved", proc.stderr.read()[-2000:]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.fixture
def temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_an_encrypted_study_from_build_to_collect_leaves_nothing_readable(
    qtbot: Any, make_window: Callable[..., MainWindow], tmp_path: Path, temp_dir: Path
) -> None:
    built = build_study(tmp_path / "coordinator", encrypt=True)
    rater = sorted(built.bundles)[0]
    sent = tmp_path / "laptop" / "Downloads" / built.bundle_files[rater].name  # what the rater received
    sent.parent.mkdir(parents=True)
    shutil.copy(built.bundle_files[rater], sent)
    data = tmp_path / "laptop" / "data"
    passphrase = built.passphrases[rater]

    window = make_window(["--data-dir", str(data), "--rater", rater])
    unlock(qtbot, window, sent, passphrase)
    session = window.session
    assert session is not None and session.store.cipher is not None
    first = session.current_id
    set_all_scores_by_keyboard(qtbot, window, "4")
    type_rationale(qtbot, window, RATIONALE)
    submit(qtbot, window, first or "")
    second = next(t for t in session.task_ids if t != first)
    window.close()
    window.shutdown()
    kill_during_work(sent, data, rater, passphrase, second)

    again = make_window(["--data-dir", str(data), "--rater", rater])
    unlock(qtbot, again, sent, passphrase)  # a new start: the passphrase is asked again
    s2 = again.session
    assert s2 is not None and s2.state(first or "") == "submitted" and s2.state(second) == "draft"  # nothing lost
    assert again.rating is not None and again.rating.go_to(second)
    assert s2.current is not None and s2.current.notes["brief_rationale"] == DRAFT
    set_all_scores_by_keyboard(qtbot, again, "2")
    submit(qtbot, again, second)

    export = tmp_path / "laptop" / "Outbox" / sealed_export_file_name(rater, s2.clock)
    export.parent.mkdir()
    receipts: list[str] = []
    again.rating.exporter.exported.connect(lambda _summary, code: receipts.append(code))
    assert export_and_wait(qtbot, again, export)
    assert is_sealed(export.read_bytes()[:64]) and receipts

    # Nothing readable anywhere on the laptop: the bundle as received, the data folder, the export, the temp folder.
    secrets = secrets_of(built, rater)
    assert len(secrets) > 20
    assert byte_scan(secrets, sent, data, export.parent, temp_dir) == []
    # The rater's own id (too short to scan for in random bytes) names the bundle file the coordinator sent and the
    # export (whose it is), and is in the settings, which the rater typed; no folder or file of their work has it.
    assert not [p for p in (data / "bundles").rglob("*") if rater in p.name]
    settings = json.loads((data / "settings.json").read_text(encoding="utf-8"))
    assert settings["rater_id"] == rater and [Path(p) for p in settings["recent_bundles"]] == [sent]

    # The coordinator: the sealed export as received, its receipt code checked, collected with the build's keys
    # (keys/coordinator.key beside the unblinding key) with both ratings, unblinded.
    received = tmp_path / "coordinator" / "inbox" / export.name
    received.parent.mkdir()
    shutil.copy(export, received)
    out = tmp_path / "coordinator" / "results"
    with contextlib.redirect_stdout(io.StringIO()) as said, contextlib.redirect_stderr(io.StringIO()):
        code = wmcdp(["results", "collect", str(received), "--key", str(built.key), "--out", str(out),
                      "--receipt", receipts[-1]])
    assert code == 0, said.getvalue()
    assert built.coordinator_key is not None and open_sealed(built.coordinator_key.read_bytes(), received.read_bytes(),
                                                             received.name).startswith(b"PK")
    rows = list(csv.DictReader(io.StringIO((out / "ratings.csv").read_text(encoding="utf-8"))))
    assert sorted((r["rater_id"], r["task_id"]) for r in rows) == sorted([(rater, first), (rater, second)])
    assert all(r["model_source"] in MODELS for r in rows)  # unblinded with the build's key
    assert RATIONALE in (out / "ratings.jsonl").read_text(encoding="utf-8")
    # The scan finds what it looks for where it is in the clear: the coordinator's collected tables.
    found = byte_scan(secrets, out)
    assert any(RATIONALE in hit for hit in found) and any(repr(first) in hit for hit in found), found[:5]
