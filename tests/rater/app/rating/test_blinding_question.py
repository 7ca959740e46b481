"""The blinding check in the window: asked after Submit when the bundle has it, answered by keyboard,
saved with the rating through the session; accessible, translatable, safe with hostile labels."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, Qt, QTranslator
from PySide6.QtWidgets import QApplication, QGroupBox, QPushButton, QRadioButton, QWidget

from tests.kit.bundles import make_bundle
from tests.rater.app.window_helpers import (
    blinding_question,
    by_name,
    set_all_scores_by_keyboard,
    submit_by_keyboard,
    type_rationale,
)
from wmcdp_desktop.rater.app.rating.blinding_question import BlindingQuestion
from wmcdp_desktop.rater.app.window.main_window import MainWindow

LABELS = ["Atlas Clinical", "Halcyon", "Meridian Chat", "Solstice"]


def bundle_with_labels(root: Path, sample_docs: Any, labels: list[str] | None = LABELS) -> Path:
    bundle = make_bundle(root, sample_docs)
    manifest = json.loads((bundle / "bundle.json").read_text(encoding="utf-8"))
    if labels is not None:
        manifest["blinding_check_labels"] = labels
    (bundle / "bundle.json").write_text(json.dumps(manifest), encoding="utf-8")
    return bundle


@pytest.fixture
def checked_window(make_window: Callable[..., MainWindow], tmp_path: Path, sample_docs: Any, data_dir: Path) -> MainWindow:
    bundle = bundle_with_labels(tmp_path / "checked", sample_docs)
    return make_window([str(bundle), "--data-dir", str(data_dir), "--rater", "R01"])


def rate_and_submit(qtbot: Any, window: MainWindow) -> None:
    set_all_scores_by_keyboard(qtbot, window, "4")
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)


def record_files(data_dir: Path) -> list[Path]:
    return sorted(data_dir.glob("bundles/*/*/records/*.json"))


def written(data_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in record_files(data_dir)]


def test_the_question_comes_after_submit_and_the_answer_is_saved_with_the_rating(
    qtbot: Any, checked_window: MainWindow, data_dir: Path
) -> None:
    window = checked_window
    assert window.session is not None
    first = window.session.current_id
    rate_and_submit(qtbot, window)
    question = blinding_question(qtbot, window)
    assert record_files(data_dir) == []  # nothing is saved while the question is open
    assert question.isModal() and question.windowModality() == Qt.WindowModality.WindowModal
    group = by_name(question, QGroupBox, "Do you think you know which system wrote this response?")
    options = [b.text() for b in group.findChildren(QRadioButton)]
    assert options == ["I can\u2019t tell", *LABELS]
    save = by_name(question, QPushButton, "Save my answer")
    assert not save.isEnabled()  # nothing chosen yet: Enter does nothing
    # keyboard only: the focus starts on "I can't tell"; Down moves to (and chooses) the next answer
    assert question.focusWidget() is question.cannot_tell
    qtbot.keyClick(question.focusWidget(), Qt.Key.Key_Down)
    qtbot.keyClick(question.focusWidget(), Qt.Key.Key_Down)
    assert question.focusWidget().text() == "Halcyon"
    qtbot.keyClick(question.focusWidget(), Qt.Key.Key_Space)
    assert save.isEnabled()
    qtbot.keyClick(question.focusWidget(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.rating is not None and window.rating.question is None)
    records = written(data_dir)
    assert [r["envelope"]["task_id"] for r in records] == [first]
    assert records[0]["blinding_guess"] == {"answer": "label", "label": "Halcyon"}
    assert window.session.current_id != first  # moved on as after any submit


def test_cant_tell_and_skipping(qtbot: Any, checked_window: MainWindow, data_dir: Path) -> None:
    window = checked_window
    rate_and_submit(qtbot, window)
    question = blinding_question(qtbot, window)
    qtbot.keyClick(question.cannot_tell, Qt.Key.Key_Space)
    qtbot.keyClick(question.cannot_tell, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(record_files(data_dir)) == 1)
    assert written(data_dir)[0]["blinding_guess"] == {"answer": "cannot_tell"}
    qtbot.waitUntil(window.isActiveWindow)  # the keyboard is back in the rating window

    rate_and_submit(qtbot, window)  # the calibration task, next
    question = blinding_question(qtbot, window)
    # Tab reaches the buttons; Skip by keyboard saves the rating without an answer
    skip = by_name(question, QPushButton, "Skip the question")
    for _ in range(4):
        if question.focusWidget() is skip:
            break
        qtbot.keyClick(question.focusWidget(), Qt.Key.Key_Tab)
    assert question.focusWidget() is skip
    qtbot.keyClick(skip, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: len(record_files(data_dir)) == 2)
    assert [("blinding_guess" in r) for r in written(data_dir)] == [True, False]


def test_no_question_for_an_incomplete_rating_a_revision_or_a_bundle_without_the_check(
    qtbot: Any, checked_window: MainWindow, make_window: Callable[..., MainWindow], tmp_path: Path,
    sample_docs: Any, data_dir: Path,
) -> None:
    window = checked_window
    assert window.rating is not None and window.session is not None
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)  # no score yet: the problems, not the question
    assert window.rating.question is None and record_files(data_dir) == []
    first = window.session.current_id
    set_all_scores_by_keyboard(qtbot, window, "4")
    submit_by_keyboard(qtbot, window)
    qtbot.keyClick(blinding_question(qtbot, window).focusWidget(), Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: len(record_files(data_dir)) == 1)
    qtbot.waitUntil(window.isActiveWindow)
    assert first is not None
    window.rating.go_to(first)
    window.rating.revise()
    set_all_scores_by_keyboard(qtbot, window, "5")
    submit_by_keyboard(qtbot, window)
    qtbot.waitUntil(lambda: len(record_files(data_dir)) == 2)
    assert window.rating.question is None

    plain = make_window([str(bundle_with_labels(tmp_path / "plain", sample_docs, None)),
                         "--data-dir", str(tmp_path / "data2"), "--rater", "R01"])
    rate_and_submit(qtbot, plain)
    qtbot.waitUntil(lambda: len(record_files(tmp_path / "data2")) == 1)
    assert plain.rating is not None and plain.rating.question is None


def test_hostile_labels_are_shown_as_plain_visible_text(qtbot: Any) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    answers: list[object] = []
    labels = ["AT&T <b>bold</b>", "Hid\u200bden \u202eevil", "x" * 80]
    question = BlindingQuestion(labels, answers.append, parent)
    qtbot.addWidget(question)
    shown = [b.text() for b in question.findChildren(QRadioButton)][1:]
    assert shown == ["AT&&T <b>bold</b>", "Hid\u27e8U+200B\u27e9den \u27e8U+202E\u27e9evil", "x" * 80]
    assert [b.accessibleName() for b in question.findChildren(QRadioButton)][1] == "AT&T <b>bold</b>"
    question.options[2].setChecked(True)
    question.accept()
    assert [getattr(a, "label", None) for a in answers] == ["Hid\u200bden \u202eevil"]  # the label itself


class _Shouting(QTranslator):
    def translate(self, context: str, source: str, disambiguation: str | None = None, n: int = -1) -> str:
        return source.upper() if context == "BlindingQuestion" else ""


def test_every_string_goes_through_translation(qtbot: Any) -> None:
    translator = _Shouting()
    QCoreApplication.installTranslator(translator)
    try:
        parent = QWidget()
        qtbot.addWidget(parent)
        question = BlindingQuestion(["Halcyon"], lambda _: None, parent)
        qtbot.addWidget(question)
        texts = [question.windowTitle(), question.group.accessibleName(), question.cannot_tell.text(),
                 question.save.text(), question.skip.text(), question.accessibleDescription()]
        assert all(t == t.upper() and any(c.isalpha() for c in t) for t in texts), texts
        assert question.options[1].text() == "Halcyon"  # the study's labels are data, never translated
    finally:
        QCoreApplication.removeTranslator(translator)


def test_screenshot_of_the_question(qtbot: Any, checked_window: MainWindow, tmp_path: Path) -> None:
    rate_and_submit(qtbot, checked_window)
    question = blinding_question(qtbot, checked_window)
    QApplication.processEvents()
    image = question.grab()
    assert image.width() >= 400 and image.height() >= 200
    image.save(str(tmp_path / "blinding-question.png"))
    qtbot.keyClick(question.focusWidget(), Qt.Key.Key_Escape)


def test_the_rating_is_checked_once_for_the_question_and_the_submit(
    qtbot: Any, checked_window: MainWindow, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = checked_window
    session = window.session
    assert session is not None
    checks: list[str] = []
    rules = session.rules.problems
    monkeypatch.setattr(session.rules, "problems", lambda record, *a, **k: checks.append(record.envelope.task_id)
                        or rules(record, *a, **k))
    first = session.current_id
    rate_and_submit(qtbot, window)
    question = blinding_question(qtbot, window)
    assert checks == [first]  # checked before the question is asked
    qtbot.keyClick(question.cannot_tell, Qt.Key.Key_Space)
    qtbot.keyClick(question.cannot_tell, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(record_files(data_dir)) == 1)
    assert checks == [first]  # and not again when it is saved with the answer
    assert written(data_dir)[0]["blinding_guess"] == {"answer": "cannot_tell"}
