"""A broken bundle is reported in the window with the file and the reason."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_a_broken_bundle_is_reported_with_file_and_reason(
    make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    (bundle_dir / "rubric.json").write_text("{}", encoding="utf-8")
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.session is None
    assert "cannot be opened" in window.messages[-1] and "rubric.json" in window.messages[-1]
