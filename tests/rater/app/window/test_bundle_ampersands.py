"""A rubric's "&" ("Safety & scope") is shown as written on labels and check boxes, never an Alt key."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtGui import QKeySequence

from tests.kit.bundles import make_bundle
from tests.rater.app.window_helpers import rows
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_ampersands_in_the_rubric_are_text(
    make_window: Callable[..., MainWindow], tmp_path: Path, sample_docs: Any, data_dir: Path
) -> None:
    def patched(name: str) -> Any:
        doc = sample_docs(name)
        if name == "Rubric":
            doc["dimensions"][0]["label"] = "Safety & scope"
            doc["failure_modes"][0]["label"] = "Shame & blame"
        return doc

    bundle = make_bundle(tmp_path / "b", patched)
    window = make_window([str(bundle), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.page is not None
    row = rows(window)[0]
    check = next(iter(window.page.form.failure_modes.rows.values())).check
    assert row.label.text() == "Safety && scope" and row.slider.accessibleName() == "Safety & scope"
    assert QKeySequence.mnemonic(row.label.text()).isEmpty()
    assert check.text() == "Shame && blame" and check.accessibleName() == "Shame & blame"
    assert QKeySequence.mnemonic(check.text()).isEmpty()
