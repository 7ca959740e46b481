"""Faults seen through the real window: disk full while rating (plain banner, rating kept, Retry works),
a damaged draft (quarantined, the window keeps working), a second instance and a stale lock after
``kill -9`` (create_main_window refuses, then recovers)."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from tests.kit.bundles import write_bundle
from tests.kit.faults import Faults
from tests.kit.sessions import RATER, fill, valid_records
from wmcdp_desktop.core.errors import AlreadyRunningError
from wmcdp_desktop.rater.app.window.main_window import MainWindow

from .helpers import LOCK_HOLDER, REPO
from .tally import Tally
from .uikit import close_message_boxes, export_and_wait

pytestmark = [pytest.mark.reliability, pytest.mark.usefixtures("ui_guard")]


def test_disk_full_in_the_window_keeps_the_rating_and_retry_saves(
    make_window: Callable[[list[str]], MainWindow], tmp_path: Path, faults: Faults, tally: Tally, qtbot: Any
) -> None:
    bundle = write_bundle(tmp_path / "bundle", 2)
    window = make_window([str(bundle), "--data-dir", str(tmp_path / "data"), "--rater", RATER])
    s, page = window.session, window.page
    assert s is not None and page is not None
    with tally.fault("disk full while rating in the window, then Retry"):
        fill(s, 4, "typed before the disk filled up")
        assert window.rating.save_now()

        def full(*_a: object) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        faults.inject(write=full)
        s.set_note("main_concern", "typed while the disk is full")
        assert window.rating.save_now() is False
        assert page.save_banner.isVisibleTo(window)
        assert "disk is full" in page.save_text.text() and "Traceback" not in page.save_text.text()
        assert "Not saved" in window.status_bar.save_label.text()
        assert s.current is not None and s.current.notes["main_concern"] == "typed while the disk is full"
        faults.clear()
        qtbot.mouseClick(page.retry_button, Qt.MouseButton.LeftButton)
        assert s.save_error is None and not page.save_banner.isVisibleTo(window)
        draft = s.store.load_draft("t0000")
        assert draft is not None and draft.notes.main_concern == "typed while the disk is full"
        window.rating.submit()
        records = valid_records(s.store)
        tally.records(1, 0 if "t0000.r1.json" in records else 1)
        assert records["t0000.r1.json"].clinician_notes.main_concern == "typed while the disk is full"


def test_damaged_draft_in_the_window(
    make_window: Callable[[list[str]], MainWindow], tmp_path: Path, tally: Tally
) -> None:
    bundle = write_bundle(tmp_path / "bundle", 2)
    data = tmp_path / "data"
    with tally.fault("damaged draft found when the window opens"):
        first = make_window([str(bundle), "--data-dir", str(data), "--rater", RATER])
        assert first.session is not None
        fill(first.session, 3)
        assert first.rating.save_now()
        draft_path = first.session.store.draft_path("t0000")
        first.shutdown()
        first.close()
        draft_path.write_bytes(b'{"document_type": "wmcdp_dr')  # torn by a crash or a bad disk
        window = make_window([str(bundle), "--data-dir", str(data), "--rater", RATER])
        s = window.session
        assert s is not None and s.current_id == "t0000"
        assert len(s.store.quarantined) == 1 and s.store.quarantined[0].read_bytes() == b'{"document_type": "wmcdp_dr'
        fill(s, 5)
        window.rating.submit()
        assert "t0000.r1.json" in valid_records(s.store)
        close_message_boxes()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")
def test_second_window_refused_and_stale_lock_after_kill_9(
    make_window: Callable[[list[str]], MainWindow], tmp_path: Path, tally: Tally
) -> None:
    data = tmp_path / "data"
    proc = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(data)], stdout=subprocess.PIPE, text=True, cwd=str(REPO))
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        with tally.fault("window started while another app process holds the data folder"):
            with pytest.raises(AlreadyRunningError) as info:
                make_window(["--data-dir", str(data), "--rater", RATER])
            assert "already open" in str(info.value) and f"process {proc.pid}" in str(info.value)
        with tally.fault("window started after the other app was killed with SIGKILL (stale lock)"):
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
            window = make_window(["--data-dir", str(data), "--rater", RATER])
            assert window.lock.held
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.mark.parametrize("content", [b"", b'{"document_type": "wmcdp_sett', b"\xef\xbb\xbf{}", b"\xff\xfe\x00garbage"])
def test_damaged_settings_file(
    content: bytes, make_window: Callable[[list[str]], MainWindow], tmp_path: Path, tally: Tally
) -> None:
    with tally.fault("settings file damaged"):
        data = tmp_path / "data"
        data.mkdir()
        (data / "settings.json").write_bytes(content)
        bundle = write_bundle(tmp_path / "bundle", 2)
        window = make_window([str(bundle), "--data-dir", str(data), "--rater", RATER])
        assert window.session is not None and window.session.current_id == "t0000"  # the app works
        close_message_boxes()


def test_damaged_record_is_reported_never_dropped(
    make_window: Callable[[list[str]], MainWindow], tmp_path: Path, tally: Tally
) -> None:
    from wmcdp_desktop.coordinator.results.reader import read_export

    bundle = write_bundle(tmp_path / "bundle", 2)
    data = tmp_path / "data"
    with tally.fault("submitted record damaged on disk (bad sector, edited by hand)"):
        first = make_window([str(bundle), "--data-dir", str(data), "--rater", RATER])
        assert first.session is not None
        fill(first.session, 3)
        first.rating.submit()
        record = first.session.store.records_dir / "t0000.r1.json"
        first.shutdown()
        first.close()
        damaged = record.read_bytes()[:100]
        record.write_bytes(damaged)
        window = make_window([str(bundle), "--data-dir", str(data), "--rater", RATER])
        s = window.session
        assert s is not None
        assert window.rating.go_to("t0000") is False  # a plain message, no crash
        assert "t0000.r1.json" in window.messages[-1] and "Traceback" not in window.messages[-1]
        assert window.rating.go_to("t0001")  # the rest works
        fill(s, 4)
        window.rating.submit()
        assert export_and_wait(window, tmp_path / "results.zip")
        result = read_export(tmp_path / "results.zip")
        # The damaged file is exported byte for byte (never dropped or rewritten); the coordinator's
        # reader names it as the one problem.
        assert record.read_bytes() == damaged
        assert [r.record.envelope.task_id for r in result.records] == ["t0001"]
        assert result.problems and all("t0000.r1.json" in str(p) for p in result.problems)
        tally.records(2, 0)
        close_message_boxes()
