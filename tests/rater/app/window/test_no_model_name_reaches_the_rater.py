"""Blinding in the window: no model name appears anywhere in the window or in the files it writes, on the sample
bundle and on the shipped demo bundle."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.kit.bundles import MODEL_NAMES, tree_text
from tests.rater.app.window_helpers import (
    all_text,
    export_and_wait,
    set_all_scores_by_keyboard,
    skip_blinding_question,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.core.resources import demo_bundle_path
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_no_model_name_anywhere_in_the_window_or_written_files(
    qtbot: Any, window: MainWindow, data_dir: Path, tmp_path: Path
) -> None:
    assert window.session is not None
    for _ in window.session.task_ids:
        set_all_scores_by_keyboard(qtbot, window, "4")
        type_rationale(qtbot, window)
        submit_by_keyboard(qtbot, window)
        if window.session.current is None and window.session.current_id == "T-0002":
            window.rating.step(1)  # calibration task: feedback shown, then move on
    assert window.session.progress() == (3, 3)
    assert export_and_wait(qtbot, window, tmp_path / "export.zip")
    window.rating.go_to("T-0002")  # calibration feedback on screen
    shown = all_text(window).lower()
    with zipfile.ZipFile(tmp_path / "export.zip") as zf:
        exported = "\n".join(zf.read(n).decode("utf-8") for n in zf.namelist()).lower()
    for name in MODEL_NAMES:
        assert name.lower() not in shown
        assert name.lower() not in tree_text(data_dir).lower()
        assert name.lower() not in exported


def test_demo_bundle_never_shows_or_stores_a_model_name(
    qtbot: Any, make_window: Callable[..., MainWindow], data_dir: Path, repo_root: Path, tmp_path: Path
) -> None:
    if not demo_bundle_path().exists():
        pytest.skip("the demo bundle is not built yet")
    secrets: set[str] = set()
    for path in (repo_root / "resources/demo-study/responses").glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                obj = json.loads(line)
                secrets |= {obj["model_source"], obj["response_id"]}
    assert secrets
    window = make_window(["--demo", "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.session is not None
    shown = []
    for tid in window.session.task_ids:
        window.rating.go_to(tid)
        shown.append(all_text(window))
    window.rating.go_to(window.session.task_ids[0])
    set_all_scores_by_keyboard(qtbot, window, "3")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    skip_blinding_question(qtbot, window)
    assert export_and_wait(qtbot, window, tmp_path / "demo-export.zip")
    with zipfile.ZipFile(tmp_path / "demo-export.zip") as zf:
        exported = "\n".join(zf.read(n).decode("utf-8") for n in zf.namelist())
    everything = ("\n".join(shown) + tree_text(data_dir) + exported).lower()
    for secret in secrets:
        assert secret.lower() not in everything, secret
