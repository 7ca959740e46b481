"""A whole rating given with mouse and keyboard in the real window (sliders by click and by digit, N/A, a failure
mode with its evidence quote, notes, confidence) writes a record valid against its published schema, on the
sample bundle and on the shipped demo bundle."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QPlainTextEdit,
)
from referencing import Registry, Resource

from tests.kit.bundles import make_bundle
from tests.rater.app.window_helpers import (
    CTRL,
    by_name,
    click_check,
    record_files,
    rows,
    show_page,
    skip_blinding_question,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.core.resources import demo_bundle_path
from wmcdp_desktop.rater.app.form.sliders import NOT_SET
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def record_validator(repo_root: Path) -> jsonschema.Draft202012Validator:
    schema = json.loads((repo_root / "schemas/rating-record.schema.json").read_text(encoding="utf-8"))
    common = json.loads((repo_root / "schemas/common.schema.json").read_text(encoding="utf-8"))
    registry = Registry().with_resource(common["$id"], Resource.from_contents(common))
    return jsonschema.Draft202012Validator(schema, registry=registry)


# --------------------------------------------------------------------------------------------------
def rate_current_task_by_hand(qtbot: Any, window: MainWindow) -> None:
    """Mouse for some sliders, digits for others, N/A where allowed, a failure mode with evidence, notes."""
    assert window.page is not None and window.session is not None
    form = window.page.form
    for i, row in enumerate(rows(window)):
        assert row.value_label.text() == NOT_SET
        if row.na is not None and i % 2 == 0:
            click_check(qtbot, row.na)
            assert row.value() == "N/A" and not row.slider.isEnabled()
        elif i % 2 == 0:
            qtbot.mouseClick(row.slider, Qt.MouseButton.LeftButton, pos=row.slider.pos_for(row.dim.scale.max))
            assert row.value() == row.dim.scale.max
        else:
            row.slider.setFocus()
            qtbot.keyClick(row.slider, Qt.Key.Key_2)
            qtbot.keyClick(row.slider, Qt.Key.Key_Right)  # arrows move a set slider
            assert row.value() == 3
    show_page(window, "Failure modes")
    fm_row = next(iter(form.failure_modes.rows.values()))
    assert not fm_row.severity.isVisible()
    click_check(qtbot, fm_row.check)
    assert fm_row.severity.isVisible() and fm_row.severity.currentIndex() == -1
    fm_row.severity.setFocus()
    qtbot.keyClick(fm_row.severity, Qt.Key.Key_Down)
    qtbot.keyClick(fm_row.severity, Qt.Key.Key_Down)  # moderate
    fm_row.note.setFocus()
    qtbot.keyClicks(fm_row.note, "see quote")
    response = window.page.task_view.response
    response.setFocus()
    qtbot.keyClick(response, Qt.Key.Key_Home, CTRL)
    for _ in range(5):
        qtbot.keyClick(response, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    qtbot.mouseClick(fm_row.use_selection, Qt.MouseButton.LeftButton)
    type_rationale(qtbot, window)
    concern = by_name(window, QPlainTextEdit, "Main concern")
    concern.setFocus()
    qtbot.keyClicks(concern, "Could name the cycle")
    confidence = by_name(window, QComboBox, "Confidence in this rating")
    confidence.setFocus()
    for _ in range(4):
        qtbot.keyClick(confidence, Qt.Key.Key_Down)


def demo_or_fixture(request: pytest.FixtureRequest, tmp_path: Path, sample_docs: Any) -> Path:
    if request.param == "demo":
        return demo_bundle_path()
    return make_bundle(tmp_path / "bundle", sample_docs)


@pytest.fixture(params=["fixture", "demo"])
def any_bundle(request: pytest.FixtureRequest, tmp_path: Path, sample_docs: Any) -> Path:
    return demo_or_fixture(request, tmp_path, sample_docs)


def test_full_rating_by_mouse_and_keyboard_writes_a_valid_record(
    qtbot: Any, make_window: Callable[..., MainWindow], any_bundle: Path, data_dir: Path, repo_root: Path
) -> None:
    window = make_window([str(any_bundle), "--data-dir", str(data_dir), "--rater", "R01", "--role", "psychiatrist"])
    assert window.page is not None and window.session is not None
    first = window.session.current_id
    assert first == window.session.task_ids[0]
    assert window.page.task_list.progress_text() == f"0 of {len(window.session.task_ids)} submitted"
    rate_current_task_by_hand(qtbot, window)
    submit_by_keyboard(qtbot, window)
    if window.session.blinding_labels is not None:  # the demo asks the blinding question
        skip_blinding_question(qtbot, window)
    files = record_files(data_dir)
    assert [f.name for f in files] == [f"{first}.r1.json"]
    record = json.loads(files[0].read_text(encoding="utf-8"))
    record_validator(repo_root).validate(record)
    task = window.session.task(first)
    assert record["candidate_response_text"] == task.candidate_response_text
    assert record["rater_id"] == "R01" and record["rater_role_or_background"] == "psychiatrist"
    fm_id = window.session.rubric.failure_modes[0].id
    assert record["failure_mode_annotations"][fm_id] == "moderate"
    assert set(record["failure_mode_annotations"]) == {fm.id for fm in window.session.rubric.failure_modes}
    span = record["failure_mode_evidence_spans"][fm_id][0]
    assert span["quote"] == task.candidate_response_text[span["start"] : span["end"]] and span["end"] - span["start"] == 5
    assert record["failure_mode_evidence_notes"] == {fm_id: "see quote"}
    assert record["clinician_notes"]["confidence_rating"] == 4
    assert record["clinician_notes"]["main_concern"] == "Could name the cycle"
    assert "model_source" not in record
    # the next unfinished task opened (unless the first was a calibration task, which stays for feedback)
    if task.calibration_feedback is None:
        assert window.session.current_id == window.session.task_ids[1]
    assert window.page.task_list.progress_text() == f"1 of {len(window.session.task_ids)} submitted"
