"""A bundle prepared for another rater, opened in the window: refused with the core's plain message (the
window adds nothing to it), and the bundle on screen stays open with the rating in progress."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QPlainTextEdit,
)

from tests.kit.bundles import make_bundle
from tests.rater.app.window_helpers import by_name, open_and_wait, show_page, type_rationale
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.session import RaterIdentity, WrongRaterError, check_assignment


def refusal(bundle: Path, rater: str) -> str:
    try:
        check_assignment(open_bundle(bundle).manifest, RaterIdentity(rater))
    except WrongRaterError as exc:
        return str(exc)
    raise AssertionError("not refused")


def test_the_bundle_on_screen_stays_open_with_the_rating_typed(
    qtbot: Any, window: MainWindow, tmp_path: Path, sample_docs: Any
) -> None:
    session = window.session
    assert session is not None
    task = session.current_id
    type_rationale(qtbot, window, "Half-written, not saved yet")
    other = make_bundle(tmp_path / "other", sample_docs, rater_id="R02")
    assert open_and_wait(qtbot, window, other)  # a bundle is still open afterwards: the one on screen
    assert window.messages[-1] == refusal(other, "R01")
    assert window.session is session and session.current_id == task
    show_page(window, "Notes")
    assert by_name(window, QPlainTextEdit, "Brief rationale (required)").toPlainText() == "Half-written, not saved yet"
    assert session.current is not None and session.current.notes["brief_rationale"] == "Half-written, not saved yet"


def test_a_bundle_for_another_rater_is_refused_plainly(
    make_window: Callable[..., MainWindow], tmp_path: Path, sample_docs: Any, data_dir: Path
) -> None:
    other = make_bundle(tmp_path / "other", sample_docs, rater_id="R02")
    window = make_window([str(other), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.session is None
    assert "prepared for rater 'R02'" in window.messages[-1]
