"""The rater app, driven like a clinician would: mouse and keyboard on the real window."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QCheckBox,
    QComboBox,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QPushButton,
    QSlider,
    QWidget,
)
from referencing import Registry, Resource

from tests.kit.bundles import MODEL_NAMES, make_bundle, tree_text
from tests.kit.faults import Faults
from tests.rater.app.window_helpers import (
    CTRL,
    all_text,
    by_name,
    export_and_wait,
    open_and_wait,
    rows,
    set_all_scores_by_keyboard,
    show_page,
    skip_blinding_question,
    submit_by_keyboard,
    type_rationale,
    wait_opened,
)
from wmcdp_desktop.core import atomic
from wmcdp_desktop.core.errors import AlreadyRunningError
from wmcdp_desktop.core.resources import demo_bundle_path
from wmcdp_desktop.rater.app import main as app_module
from wmcdp_desktop.rater.app.form.sliders import NOT_SET, ScoreSlider
from wmcdp_desktop.rater.app.text.accessible import is_read_only
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.timing import FakeClock


def record_validator(repo_root: Path) -> jsonschema.Draft202012Validator:
    schema = json.loads((repo_root / "schemas/rating-record.schema.json").read_text(encoding="utf-8"))
    common = json.loads((repo_root / "schemas/common.schema.json").read_text(encoding="utf-8"))
    registry = Registry().with_resource(common["$id"], Resource.from_contents(common))
    return jsonschema.Draft202012Validator(schema, registry=registry)


def click_check(qtbot: Any, box: QCheckBox) -> None:
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(10, box.height() // 2))


def record_files(data_dir: Path) -> list[Path]:
    return sorted(data_dir.glob("bundles/*/*/records/*.json"))


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
        if not demo_bundle_path().exists():
            pytest.skip("the demo bundle is not built yet")
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


def test_submit_is_blocked_while_a_slider_is_unset(qtbot: Any, window: MainWindow, data_dir: Path) -> None:
    set_all_scores_by_keyboard(qtbot, window, "4", skip="WM-RUB-006")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    assert record_files(data_dir) == []
    assert window.page is not None
    row = window.page.form.rubric.rows["WM-RUB-006"]
    assert row.problem.isVisible() and "not set" in row.problem.text().lower()
    assert all(not r.problem.isVisible() for r in rows(window) if r is not row)
    assert window.focusWidget() is row.slider
    assert window.page.form.summary.isVisible()
    qtbot.keyClick(row.slider, Qt.Key.Key_5)
    assert not row.problem.isVisible()
    submit_by_keyboard(qtbot, window)
    assert len(record_files(data_dir)) == 1


def test_unset_slider_looks_different_and_can_be_unset_again(qtbot: Any, window: MainWindow) -> None:
    row = rows(window)[0]
    unset = row.slider.grab().toImage()
    qtbot.keyClick(row.slider, Qt.Key.Key_1) if row.slider.setFocus() is None else None
    assert row.value() == 1 and row.value_label.text().startswith("1 · ")
    set_at_min = row.slider.grab().toImage()
    assert unset != set_at_min  # the handle is drawn only once a value is set
    qtbot.keyClick(row.slider, Qt.Key.Key_Delete)
    assert row.value() is None and row.value_label.text() == NOT_SET
    assert window.session is not None and window.session.current is not None
    assert row.dim.id not in window.session.current.scores


def test_na_only_where_the_rubric_allows_it(qtbot: Any, window: MainWindow) -> None:
    assert window.session is not None
    with_na = {r.dim.id for r in rows(window) if r.na is not None}
    assert with_na == {d.id for d in window.session.rubric.dimensions if d.allow_na} == {"WM-RUB-005"}
    row = window.page.form.rubric.rows["WM-RUB-005"]  # type: ignore[union-attr]
    click_check(qtbot, row.na)  # type: ignore[arg-type]
    assert window.session.current is not None and window.session.current.scores["WM-RUB-005"] == "N/A"
    click_check(qtbot, row.na)  # type: ignore[arg-type]
    assert "WM-RUB-005" not in window.session.current.scores


def test_autosave_then_a_new_window_restores_the_draft_exactly(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path, clock: FakeClock
) -> None:
    argv = [str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"]
    window = make_window(argv)
    assert window.page is not None and window.session is not None
    rows(window)[1].slider.setFocus()
    qtbot.keyClick(rows(window)[1].slider, Qt.Key.Key_2)
    for _ in range(30):  # 30 s of active work
        clock.advance(1)
        qtbot.keyClick(window.page.task_view.scenario, Qt.Key.Key_Down)
    fm_row = window.page.form.failure_modes.rows["WM-FM-SHAMING"]
    click_check(qtbot, fm_row.check)
    type_rationale(qtbot, window, "half done")
    draft = data_dir / "bundles/B-test/R01/drafts/T-0001.json"
    qtbot.waitUntil(lambda: draft.exists() and "half done" in draft.read_text(encoding="utf-8"), timeout=1500)
    assert window.status_bar.save_label.text().startswith("All changes saved")
    saved = json.loads(draft.read_text(encoding="utf-8"))
    assert saved["active_seconds"] == 30
    # crash: no orderly close (the OS releases the lock); a new window restores everything
    window.shutdown()
    again = make_window(argv)
    assert again.session is not None and again.session.current_id == "T-0001"
    assert again.session.state("T-0001") == "draft"
    assert rows(again)[1].value() == 2 and all(r.value() is None for i, r in enumerate(rows(again)) if i != 1)
    assert again.page is not None
    assert again.page.form.failure_modes.rows["WM-FM-SHAMING"].check.isChecked()
    show_page(again, "Notes")
    assert by_name(again, QPlainTextEdit, "Brief rationale (required)").toPlainText() == "half done"
    assert again.session.task_seconds() == 30
    assert "0:00:30" in again.page.form.timer.label.text()


def test_time_with_a_fake_clock_idle_minimise_pause_resume(
    qtbot: Any, window: MainWindow, clock: FakeClock
) -> None:
    assert window.page is not None and window.session is not None
    view = window.page.task_view.scenario

    def work(seconds: int, *, typing: bool = True) -> None:
        for _ in range(seconds):
            clock.advance(1)
            if typing:
                qtbot.keyClick(view, Qt.Key.Key_Down)
            window.rating.tick()

    work(10)
    assert window.session.task_seconds() == 10
    work(200, typing=False)  # reading without touching anything: stops after the idle timeout
    assert window.session.task_seconds() == 130
    assert "no activity" in window.page.form.timer.label.text()
    work(5)  # the first second after the idle pause is not counted: input restarts the clock
    assert window.session.task_seconds() == 134
    window.showMinimized()
    qtbot.waitUntil(lambda: window.session is not None and window.session.tracker.status() == "inactive")
    work(50)
    assert window.session.task_seconds() == 134
    window.showNormal()
    window.activateWindow()
    qtbot.waitUntil(lambda: window.session is not None and window.session.tracker.status() == "counting")
    work(5)
    assert window.session.task_seconds() == 139
    pause = by_name(window, QPushButton, "Pause timer")
    qtbot.mouseClick(pause, Qt.MouseButton.LeftButton)
    work(20)
    assert window.session.task_seconds() == 139 and "paused" in window.page.form.timer.label.text()
    qtbot.mouseClick(by_name(window, QPushButton, "Resume timer"), Qt.MouseButton.LeftButton)
    work(3)
    assert window.session.task_seconds() == 142
    clock.sleep_system(3600)  # the laptop sleeps: nothing counted
    window.rating.tick()
    work(2)
    assert window.session.task_seconds() == 143
    assert window.status_bar.session_label.text() == "Session: 0:02:23"


def test_revision_keeps_the_old_record(qtbot: Any, window: MainWindow, data_dir: Path) -> None:
    set_all_scores_by_keyboard(qtbot, window, "3")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    assert window.session is not None and window.session.current_id == "T-0002"
    qtbot.keyClick(window.focusWidget() or window, Qt.Key.Key_PageUp, CTRL)  # previous task
    assert window.session.current_id == "T-0001" and window.session.current is None
    assert all(r.isEnabled() and is_read_only(r.slider) for r in rows(window))  # submitted: read-only until Revise
    qtbot.mouseClick(by_name(window, QPushButton, "Revise this rating"), Qt.MouseButton.LeftButton)
    assert rows(window)[0].value() == 3
    rows(window)[0].slider.setFocus()
    qtbot.keyClick(rows(window)[0].slider, Qt.Key.Key_5)
    submit_by_keyboard(qtbot, window)
    names = [f.name for f in record_files(data_dir)]
    assert names == ["T-0001.r1.json", "T-0001.r2.json"]
    r1, r2 = (json.loads(f.read_text(encoding="utf-8")) for f in record_files(data_dir))
    assert r1["scoring"]["emotional_attunement_validation_score"] == 3
    assert r2["scoring"]["emotional_attunement_validation_score"] == 5
    assert r2["envelope"]["supersedes_record_id"] == r1["envelope"]["record_id"]


def test_second_instance_on_the_same_data_folder_is_refused(
    qtbot: Any, window: MainWindow, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(AlreadyRunningError, match="already open on this data folder"):
        app_module.create_main_window(["--data-dir", str(data_dir)])
    shown: list[str] = []
    monkeypatch.setattr(app_module, "_fatal", shown.append)
    assert app_module.main(["--data-dir", str(data_dir)]) == 1
    assert shown and "already open" in shown[0]


def test_html_and_hidden_characters_are_shown_literally(qtbot: Any, window: MainWindow) -> None:
    assert window.page is not None and window.session is not None
    window.rating.go_to("T-0003")
    response = window.page.task_view.response
    text = response.toPlainText()
    assert '<b>Bold?</b> <a href="https://example.invalid/x">click me</a>' in text
    assert "⟨U+202E⟩esrever⟨U+202C⟩" in text and "⟨U+200B⟩hidden" in text
    assert "\u202e" not in text and "\u200b" not in text
    assert "<i>Is it locked?</i>" in window.page.task_view.scenario.toPlainText()
    html = response.document().toHtml()
    assert "<img" not in html and "<a " not in html and "<b>" not in html
    # clicking on the "link" opens nothing (QDesktopServices.openUrl fails the test if called)
    cursor = response.document().find("click me")
    rect = response.cursorRect(cursor)
    qtbot.mouseClick(response.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    # evidence selected across markers maps back to the original text
    found = response.document().find("esrever")
    response.setTextCursor(found)
    row = window.page.form.failure_modes.rows["WM-FM-REASSURANCE"]
    click_check(qtbot, row.check)
    qtbot.mouseClick(row.use_selection, Qt.MouseButton.LeftButton)
    assert window.session.current is not None
    span = window.session.current.fm("WM-FM-REASSURANCE").spans[0]
    original = window.session.task().candidate_response_text
    assert span.quote == "esrever" == original[span.start : span.end]


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


def test_calibration_is_not_marked_before_submit_and_feedback_follows(qtbot: Any, window: MainWindow) -> None:
    assert window.page is not None and window.session is not None
    window.rating.go_to("T-0002")
    assert "calibration" not in all_text(window, visible_only=True).lower()
    set_all_scores_by_keyboard(qtbot, window, "2")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    assert window.session.current_id == "T-0002"  # stays to show the feedback
    view = window.page.form.calibration
    assert view.isVisible()
    shown = view.text.toPlainText()
    assert "yours: 2   ·   adjudicated: 4–5   ·   ✗ differs" in shown
    assert "Validates the parent's fatigue." in shown


def test_every_control_is_named_by_its_visible_label_and_tab_order_follows_the_screen(window: MainWindow) -> None:
    assert window.page is not None
    window.rating.go_to("T-0001")
    from PySide6.QtWidgets import QLabel

    controls: list[QWidget] = []
    for page in ("Failure modes", "Notes", "Scores"):  # every page of the form in turn
        show_page(window, page)
        controls += [
            w
            for w in window.findChildren(QWidget)
            if isinstance(w, QAbstractButton | QSlider | QComboBox | QLineEdit | QPlainTextEdit | QListView)
            and w.isVisibleTo(window) and w not in controls
        ]
    assert len(controls) > 20
    buddies = {lbl.buddy(): lbl.text().replace("&", "") for lbl in window.findChildren(QLabel) if lbl.buddy()}
    for w in controls:
        name = w.accessibleName()
        assert name, f"{type(w).__name__} {w.objectName()!r} has no accessible name"
        if isinstance(w, QAbstractButton) and w.text() and not isinstance(w.parent(), QComboBox):
            assert w.text().replace("&", "") in name, (name, w.text())  # the visible words, maybe with whose they are
        if w in buddies:
            assert name == buddies[w], (name, buddies[w])
    # Tab order: task list -> scenario -> response -> sliders in rubric order -> failure modes -> notes -> submit
    order: list[QWidget] = []
    w: QWidget = window.page.task_list.list
    for _ in range(400):
        order.append(w)
        w = w.nextInFocusChain()
        if w is window.page.task_list.list:
            break
    p = window.page
    sliders = [r.slider for r in rows(window)]
    key = [p.task_list.list, p.task_view.scenario, p.task_view.response, *sliders,
           next(iter(p.form.failure_modes.rows.values())).check,
           p.form.notes.edits["brief_rationale"], p.form.submit_button]
    positions = [order.index(k) for k in key]
    assert positions == sorted(positions)


def test_keyboard_shortcuts_navigation_save_find_and_font(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    argv = [str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"]
    window = make_window(argv)
    assert window.page is not None and window.session is not None
    focus = window.page.task_view.scenario
    focus.setFocus()
    qtbot.keyClick(focus, Qt.Key.Key_PageDown, CTRL)
    assert window.session.current_id == "T-0002"
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_PageUp, CTRL)
    assert window.session.current_id == "T-0001"
    rows(window)[0].slider.setFocus()
    qtbot.keyClick(rows(window)[0].slider, Qt.Key.Key_3)
    qtbot.keyClick(rows(window)[0].slider, Qt.Key.Key_S, CTRL)
    assert (data_dir / "bundles/B-test/R01/drafts/T-0001.json").exists()  # saved at once
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_F, CTRL)
    find = by_name(window, QLineEdit, "Find in scenario and response")
    assert window.focusWidget() is find
    qtbot.keyClicks(find, "door")
    qtbot.keyClick(find, Qt.Key.Key_Return)
    selected = [v.textCursor().selectedText() for v in (window.page.task_view.scenario, window.page.task_view.response)]
    assert "door" in selected
    size = QApplication.font().pointSize()
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_Equal, CTRL)
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_Equal, CTRL)
    assert QApplication.font().pointSize() == size + 2
    assert window.page.task_view.response.font().pointSize() == size + 2
    window.close()
    again = make_window(argv)
    assert again.font().pointSize() == size + 2  # remembered


def test_failed_write_shows_a_plain_message_keeps_the_rating_and_retry_works(
    qtbot: Any, window: MainWindow, monkeypatch: pytest.MonkeyPatch, faults: Faults, data_dir: Path
) -> None:
    assert window.page is not None and window.session is not None

    def read_only(src: Any, dst: Any) -> None:
        raise PermissionError(13, "Permission denied")

    faults.inject(replace=read_only)
    monkeypatch.setattr(atomic, "REPLACE_RETRY_DELAY", 0.0)
    type_rationale(qtbot, window, "kept in memory")
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_S, CTRL)
    banner = window.page.save_banner
    assert banner.isVisible() and "read-only or the file is locked" in window.page.save_text.text()
    assert "Retry" in window.page.save_text.text()
    assert not (data_dir / "bundles/B-test/R01/drafts/T-0001.json").exists()
    assert window.session.current is not None and window.session.current.notes["brief_rationale"] == "kept in memory"
    faults.clear()
    qtbot.mouseClick(by_name(window, QPushButton, "Retry saving"), Qt.MouseButton.LeftButton)
    assert not banner.isVisible()
    assert "kept in memory" in (data_dir / "bundles/B-test/R01/drafts/T-0001.json").read_text(encoding="utf-8")


def test_export_results_from_the_menu(
    qtbot: Any, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_all_scores_by_keyboard(qtbot, window, "4")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    target = tmp_path / "out" / "results.zip"
    target.parent.mkdir()
    from PySide6.QtWidgets import QFileDialog

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "")))
    assert window.rating is not None
    with qtbot.waitSignal(window.rating.exporter.finished, timeout=20_000):
        window.menu.act_export.trigger()
    assert target.exists()
    with zipfile.ZipFile(target) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        assert manifest["counts"]["submitted"] == 1 and manifest["files"][0]["path"] == "records/T-0001.r1.json"
    assert "Exported 1 submitted rating of 3" in window.messages[-1]
    from wmcdp_desktop.coordinator.commands.main import main as wmcdp

    assert wmcdp(["results", "validate", str(target)]) == 0


def test_welcome_screen_recent_bundles_and_demo(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    window = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    assert window.session is None and window.stack.currentWidget() is window.welcome
    by_name(window, QPushButton, "Open bundle…")
    demo = by_name(window, QPushButton, "Try the demo bundle")
    assert "Rating as: R01" in window.welcome.rater_label.text()
    assert open_and_wait(qtbot, window, bundle_dir)
    window.close_bundle()
    assert window.welcome.recent.count() == 1
    window.close()
    again = make_window(["--data-dir", str(data_dir)])  # rater id remembered
    assert again.settings.rater_id == "R01"
    item = again.welcome.recent.item(0)
    again.welcome.recent.itemActivated.emit(item)
    wait_opened(qtbot, again)
    assert again.session is not None and again.session.manifest.bundle_id == "B-test"
    again.close_bundle()
    qtbot.mouseClick(by_name(again, QPushButton, "Try the demo bundle"), Qt.MouseButton.LeftButton)
    wait_opened(qtbot, again)
    if demo_bundle_path().exists():
        assert again.session is not None and again.session.progress()[1] > 0
    else:
        assert "demo bundle is missing" in again.messages[-1]
    del demo


def test_demo_flag_opens_the_shipped_demo_bundle(make_window: Callable[..., MainWindow], data_dir: Path) -> None:
    if not demo_bundle_path().exists():
        pytest.skip("the demo bundle is not built yet")
    window = make_window(["--demo", "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.session is not None and window.session.current_id == window.session.task_ids[0]
    assert window.page is not None and window.page.task_view.response.toPlainText()


def test_a_bundle_for_another_rater_is_refused_plainly(
    make_window: Callable[..., MainWindow], tmp_path: Path, sample_docs: Any, data_dir: Path
) -> None:
    other = make_bundle(tmp_path / "other", sample_docs, rater_id="R02")
    window = make_window([str(other), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.session is None
    assert "prepared for rater 'R02'" in window.messages[-1]


def test_a_broken_bundle_is_reported_with_file_and_reason(
    make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    (bundle_dir / "rubric.json").write_text("{}", encoding="utf-8")
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.session is None
    assert "cannot be opened" in window.messages[-1] and "rubric.json" in window.messages[-1]


def test_slider_class_reports_no_value_until_set(qtbot: Any, window: MainWindow) -> None:
    slider = rows(window)[2].slider
    assert isinstance(slider, ScoreSlider) and slider.score() is None
    slider.setFocus()
    qtbot.keyClick(slider, Qt.Key.Key_9)  # outside the scale: ignored
    assert slider.score() is None
    qtbot.keyClick(slider, Qt.Key.Key_Left)  # unset + Left = the highest level
    assert slider.score() == 5


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


def test_rater_id_is_asked_once_and_remembered(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QFileDialog

    from wmcdp_desktop.rater.app.window.rater_dialog import RaterDialog

    asked: list[bool] = []

    def fill_in(dialog: RaterDialog) -> int:
        asked.append(True)
        by_name(dialog, QLineEdit, "Rater id").setText("bad id!")
        dialog._accept()
        assert dialog.problem.isVisibleTo(dialog) and dialog.result() == 0  # refused, dialog stays
        by_name(dialog, QLineEdit, "Rater id").setText("R09")
        by_name(dialog, QLineEdit, "Role or background (optional)").setText("nurse")
        dialog._accept()
        return dialog.result()

    monkeypatch.setattr(RaterDialog, "exec", fill_in)
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(bundle_dir / "bundle.json"), ""))
    )
    window = make_window(["--data-dir", str(data_dir)])
    qtbot.mouseClick(by_name(window, QPushButton, "Open bundle…"), Qt.MouseButton.LeftButton)
    wait_opened(qtbot, window)
    assert asked == [True]
    assert window.session is not None and window.session.rater.rater_id == "R09"
    assert window.session.rater.role_or_background == "nurse"
    window.close()
    again = make_window([str(bundle_dir), "--data-dir", str(data_dir)])
    assert asked == [True]  # not asked again
    assert again.session is not None and again.session.rater.rater_id == "R09"


def test_problems_stay_readable_in_a_dark_palette(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    old = app.palette()
    dark = QPalette(old)
    dark.setColor(QPalette.ColorRole.Window, QColor("#202124"))
    dark.setColor(QPalette.ColorRole.WindowText, QColor("#e8eaed"))
    app.setPalette(dark)
    try:
        window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
        window.rating.submit()
        row = rows(window)[0]
        assert row.problem.isVisible()
        assert row.problem.palette().color(QPalette.ColorRole.WindowText).lightness() > 150
    finally:
        app.setPalette(old)


def test_anchors_in_view_whole_on_focus_all_on_hover(qtbot: Any, window: MainWindow) -> None:
    row = rows(window)[0]
    assert window.page is not None
    window.page.task_view.response.setFocus()  # (a task opens with the focus on its first score)
    qtbot.waitUntil(lambda: not row.anchors.expanded)
    assert row.anchors.isVisible() and not row.anchors.expanded  # always in view, one line
    row.slider.setFocus()
    qtbot.waitUntil(lambda: row.anchors.expanded)  # whole while the row has the focus
    assert "1 – " in row.slider.toolTip() and "5 – " in row.slider.toolTip()  # every anchor on hover
    assert row.dim.description in row.slider.toolTip() and row.dim.scale.anchors[0].text in row.label.toolTip()
    rows(window)[1].slider.setFocus()
    qtbot.waitUntil(lambda: not row.anchors.expanded)


def test_whole_rating_by_keyboard_only(qtbot: Any, window: MainWindow, data_dir: Path) -> None:
    """Tab through the screen from the task list and rate with keys only; Ctrl+Enter submits."""
    assert window.page is not None
    window.page.task_list.list.setFocus()

    def tab_to(target: QWidget) -> None:
        for _ in range(300):
            if window.focusWidget() is target:
                return
            qtbot.keyClick(window.focusWidget(), Qt.Key.Key_Tab)
        pytest.fail(f"Tab never reached {target.accessibleName()!r}")

    for i, row in enumerate(rows(window)):
        tab_to(row.slider)
        qtbot.keyClick(row.slider, Qt.Key.Key_1 + i % 5)  # type: ignore[operator]
    fm_row = window.page.form.failure_modes.rows["WM-FM-MISSED-RISK"]
    tab_to(fm_row.check)
    qtbot.keyClick(fm_row.check, Qt.Key.Key_Space)
    tab_to(fm_row.severity)
    qtbot.keyClick(fm_row.severity, Qt.Key.Key_Down)
    tab_to(fm_row.note)
    qtbot.keyClicks(fm_row.note, "no safety check")
    rationale = window.page.form.notes.edits["brief_rationale"]  # on the Notes page: Tab opens it
    tab_to(rationale)
    qtbot.keyClicks(rationale, "keyboard only")
    qtbot.keyClick(rationale, Qt.Key.Key_Return, CTRL)
    files = record_files(data_dir)
    assert [f.name for f in files] == ["T-0001.r1.json"]
    record = json.loads(files[0].read_text(encoding="utf-8"))
    assert [record["scoring"][r.dim.field] for r in rows(window)] == [1, 2, 3, 4, 5, 1, 2, 3]
    assert record["failure_mode_annotations"]["WM-FM-MISSED-RISK"] == "minor"
    assert record["failure_mode_evidence_notes"] == {"WM-FM-MISSED-RISK": "no safety check"}


def test_autosave_is_at_most_a_second_behind_even_while_typing(
    qtbot: Any, window: MainWindow, data_dir: Path
) -> None:
    import time

    draft = data_dir / "bundles/B-test/R01/drafts/T-0001.json"
    show_page(window, "Notes")
    edit = by_name(window, QPlainTextEdit, "Brief rationale (required)")
    edit.setFocus()
    started = time.monotonic()
    saved_after: float | None = None
    for ch in "steady typing":  # a key every 150 ms, never pausing long enough for a plain debounce
        qtbot.keyClicks(edit, ch)
        qtbot.wait(150)
        if saved_after is None and draft.exists():
            saved_after = time.monotonic() - started
    assert saved_after is not None and saved_after <= 1.6  # typing went on for about 2 s
    qtbot.waitUntil(lambda: "steady typing" in draft.read_text(encoding="utf-8"), timeout=1500)


def test_command_line_version_and_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        app_module.main(["--version"])
    assert exc.value.code == 0 and "wmcdp-desktop" in capsys.readouterr().out
    assert app_module.main(["--no-such-option"]) == 2
    assert "unrecognized arguments" in capsys.readouterr().err


CRASHER = """
import sys
from PySide6.QtWidgets import QApplication
from wmcdp_desktop.rater.app.main import create_main_window
app = QApplication([])
w = create_main_window([sys.argv[1], "--data-dir", sys.argv[2], "--rater", "R01"])
w.show()
while w.opening:
    app.processEvents()
w.session.set_score("WM-RUB-003", 4)
w.session.set_note("brief_rationale", "typed before the crash")
w.rating.save_now()
print("saved", flush=True)
sys.stdin.readline()
"""


def test_after_a_kill_the_lock_is_recovered_and_the_draft_restored(
    make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    import os
    import signal
    import subprocess
    import sys

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    with subprocess.Popen(
        [sys.executable, "-c", CRASHER, str(bundle_dir), str(data_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    ) as proc:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "saved"
        with pytest.raises(AlreadyRunningError):  # while it runs: refused
            app_module.create_main_window(["--data-dir", str(data_dir)])
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.session is not None and window.session.state("T-0001") == "draft"
    assert window.page is not None and window.page.form.rubric.rows["WM-RUB-003"].value() == 4
    show_page(window, "Notes")
    assert by_name(window, QPlainTextEdit, "Brief rationale (required)").toPlainText() == "typed before the crash"


def test_scrolling_the_form_with_the_wheel_never_changes_a_score(qtbot: Any, window: MainWindow) -> None:
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    assert window.page is not None
    row = rows(window)[0]
    confidence = window.page.form.notes.confidence
    for target in (row.slider, confidence):
        pos = QPointF(target.width() / 2, target.height() / 2)
        event = QWheelEvent(
            pos, target.mapToGlobal(pos), QPoint(0, 0), QPoint(0, -120),
            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False,
        )
        QApplication.sendEvent(target, event)
        assert not event.isAccepted()  # left to the scroll area, which scrolls the page
    assert row.value() is None and confidence.currentIndex() == -1
    assert window.session is not None and window.session.current is not None
    assert window.session.current.scores == {} and window.session.current.confidence is None


def test_rubric_text_with_markup_is_shown_literally_in_labels_and_tooltips(
    qtbot: Any, make_window: Callable[..., MainWindow], tmp_path: Path, sample_docs: Any, data_dir: Path
) -> None:
    from tests.kit.bundles import bundle_docs, write_bundle_folder

    rubric, tasks = bundle_docs(sample_docs)
    rubric["dimensions"][0]["label"] = "<b>Attunement</b>"
    rubric["dimensions"][0]["description"] = 'Look <img src="file:///etc/passwd"> & <a href="x">here</a>'
    rubric["failure_modes"][0]["description"] = "<h1>big</h1>"
    bundle = write_bundle_folder(tmp_path / "markup", rubric, tasks)
    window = make_window([str(bundle), "--data-dir", str(data_dir), "--rater", "R01"])
    row = rows(window)[0]
    assert row.label.text() == "<b>Attunement</b>" and row.slider.accessibleName() == "<b>Attunement</b>"
    tip = row.slider.toolTip()
    assert "&lt;img src=\"file:///etc/passwd\"&gt; &amp; &lt;a href=\"x\"&gt;here&lt;/a&gt;" in tip
    assert "<img" not in tip and "<a " not in tip
    fm_tip = next(iter(window.page.form.failure_modes.rows.values())).check.toolTip()  # type: ignore[union-attr]
    assert "&lt;h1&gt;big&lt;/h1&gt;" in fm_tip and "<h1>" not in fm_tip
    assert window.page.help.toPlainText() == ""  # type: ignore[union-attr]  # written when first shown
    window.menu.act_help.trigger()
    assert "<img" in window.page.help.toPlainText()  # type: ignore[union-attr]  # literally, as text


def test_idle_timeout_is_configurable_and_remembered(
    qtbot: Any, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path,
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from PySide6.QtWidgets import QInputDialog

    argv = [str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"]
    window = make_window(argv)
    monkeypatch.setattr(QInputDialog, "getInt", staticmethod(lambda *a, **k: (30, True)))
    action = next(a for a in window.menu.menus["&Settings"].actions() if a.text() == "&Idle timeout…")
    action.trigger()
    assert window.session is not None
    for _ in range(100):  # no input
        clock.advance(1)
        window.rating.tick()
    assert window.session.task_seconds() == 30
    window.close()
    again = make_window(argv)
    assert again.session is not None and again.session.tracker.idle_timeout == 30
