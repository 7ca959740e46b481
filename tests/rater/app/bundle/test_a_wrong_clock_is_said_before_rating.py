"""A computer clock that cannot be right is said plainly when the bundle opens, before the rater rates
(issue 25): before the bundle was built (a laptop in 2001), earlier than work already saved in the data folder
(the clock was set back), or more than a year after the bundle was built. Rating goes on: nothing is refused
for the clock, and the coordinator's collect keeps the ratings, flagged."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from tests.kit.bundles import make_bundle
from tests.rater.app.window_helpers import (
    set_all_scores_by_keyboard,
    show_page,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.clock_check import clock_problem
from wmcdp_desktop.rater.timing import FakeClock

BUILT = datetime(2026, 11, 1, 9, tzinfo=UTC)  # the test bundle's created_at
CLOCK_WORDS = "Your computer's clock says"


def _open(make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path) -> MainWindow:
    return make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])


def test_a_clock_in_2001_is_said_and_rating_goes_on(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path, clock: FakeClock
) -> None:
    clock.wall_time = datetime(2001, 3, 4, 10, tzinfo=UTC).timestamp()
    window = _open(make_window, bundle_dir, data_dir)
    told = [m for m in window.messages if m.startswith(CLOCK_WORDS)]
    assert len(told) == 1 and "before this bundle was made" in told[0]
    assert "2001" in told[0]
    assert "set your computer's date and time correctly" in told[0] and "kept either way" in told[0]
    boxes = [b for b in window.findChildren(QMessageBox) if b.isVisible()]
    assert len(boxes) == 1 and boxes[0].text() == told[0]  # on screen, before any rating
    qtbot.keyClick(boxes[0], Qt.Key.Key_Return)  # the rater reads it and closes it
    qtbot.waitUntil(lambda: not boxes[0].isVisible())
    set_all_scores_by_keyboard(qtbot, window, "3")
    show_page(window, "Notes")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    assert window.session is not None and window.session.state("T-0001") == "submitted", window.messages  # nothing refused


def test_a_clock_set_back_behind_saved_work_is_said(
    make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path, clock: FakeClock
) -> None:
    first = _open(make_window, bundle_dir, data_dir)
    assert not [m for m in first.messages if m.startswith(CLOCK_WORDS)]  # a right clock: nothing said
    assert first.session is not None
    audit = first.session.store.audit_path
    first.shutdown()
    first.close()
    os.utime(audit, (clock.wall_time, clock.wall_time))  # the files carry the (fake) clock's time
    clock.wall_time -= timedelta(days=20).total_seconds()  # still after the bundle was built
    again = _open(make_window, bundle_dir, data_dir)
    told = [m for m in again.messages if m.startswith(CLOCK_WORDS)]
    assert len(told) == 1 and "earlier than work already saved here" in told[0]


def test_a_clock_years_ahead_is_said_for_a_study_bundle_not_for_the_demo(
    make_window: Callable[..., MainWindow], tmp_path: Path, data_dir: Path, clock: FakeClock, sample_docs: Any
) -> None:
    clock.wall_time = datetime(2031, 1, 1, tzinfo=UTC).timestamp()
    window = _open(make_window, make_bundle(tmp_path / "for-R01", sample_docs, rater_id="R01"), data_dir)
    told = [m for m in window.messages if m.startswith(CLOCK_WORDS)]
    assert len(told) == 1 and "more than a year after this bundle was made" in told[0]
    window.shutdown()
    window.close()
    demo = make_window(["--demo", "--data-dir", str(data_dir / "demo")])  # used for years after it was built
    assert demo.session is not None and not [m for m in demo.messages if m.startswith(CLOCK_WORDS)]


@pytest.mark.parametrize(
    ("now", "newest", "kind"),
    [
        (BUILT - timedelta(hours=20), None, None),  # a time zone off: fine
        (BUILT - timedelta(days=2), None, "before_bundle"),
        (datetime(1970, 1, 1, tzinfo=UTC), None, "before_bundle"),  # a dead CMOS battery
        (BUILT + timedelta(days=3), BUILT + timedelta(days=30), "behind_saved_work"),
        (BUILT + timedelta(days=3), BUILT + timedelta(days=3, hours=12), None),
        (BUILT + timedelta(days=300), None, None),  # a long study
        (BUILT + timedelta(days=400), None, "far_ahead"),
        (BUILT + timedelta(days=400), BUILT + timedelta(days=390), None),  # saved work just before: it ran on
    ],
)
def test_what_counts_as_a_wrong_clock(now: datetime, newest: datetime | None, kind: str | None) -> None:
    found = clock_problem(now, BUILT, newest)
    assert (found.kind if found else None) == kind
    found = clock_problem(now, BUILT, newest, study_bundle=False)
    assert (found.kind if found else None) == (None if kind == "far_ahead" else kind)


def test_a_file_with_a_time_far_ahead_in_the_data_folder_is_saved_work(
    make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    first = _open(make_window, bundle_dir, data_dir)
    assert first.session is not None
    records = first.session.store.records_dir
    first.shutdown()
    first.close()
    ahead = (datetime.now(UTC) + timedelta(days=3650)).timestamp()
    os.utime(records, (ahead, ahead))  # written while the clock was years ahead, now put right
    again = _open(make_window, bundle_dir, data_dir)
    assert any("earlier than work already saved here" in m for m in again.messages)
