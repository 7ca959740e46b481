"""Pseudo-translation (tests/rater/app/text/pseudo_translation.py): every text the app shows goes through the catalogue,
bundle content is shown as written, and no label or button is cut off when words grow by a third."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, Qt
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from tests.rater.app.text.pseudo_translation import (
    CLOSE,
    OPEN,
    QT_BUTTONS,
    PseudoTranslator,
    catalogue,
    cut_off,
    shown_texts,
    unmarked,
)
from tests.rater.app.window_helpers import (
    export_and_wait,
    rows,
    set_all_scores_by_keyboard,
    submit_by_keyboard,
)
from wmcdp_desktop import __version__
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.models.task import Task
from wmcdp_desktop.rater.app import main as app_module
from wmcdp_desktop.rater.app.bundle.passphrase_dialog import PassphraseDialog
from wmcdp_desktop.rater.app.text.i18n import LANGUAGES
from wmcdp_desktop.rater.app.window.about_dialog import AboutDialog
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.app.window.rater_dialog import RaterDialog
from wmcdp_desktop.rater.labels import readable_id, scenario_types_text, task_full_title, task_title


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> set[tuple[str, str]]:
    return catalogue(tmp_path_factory.mktemp("catalogue"))


@pytest.fixture
def translator(pairs: set[tuple[str, str]], monkeypatch: pytest.MonkeyPatch) -> Iterator[PseudoTranslator]:
    monkeypatch.setattr(app_module, "install_translators", lambda language: QLocale())  # the pseudo one only
    t = PseudoTranslator(pairs)
    QCoreApplication.installTranslator(t)
    yield t
    QCoreApplication.removeTranslator(t)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def bundle_content(bundle_dir: Path, *extra: str) -> list[str]:
    """Every string of the bundle (and what the app derives from it: readable ids, titles), longest first."""
    out: set[str] = set(extra)
    for path in bundle_dir.rglob("*.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        for s in _strings(doc):
            out.update({s, readable_id(s)})
            out.update(line for line in s.splitlines())
        if doc.get("document_type") == "wmcdp_task":
            task = Task.model_validate(doc)
            out.update({task_title(task), scenario_types_text(task), task_full_title(task)})
        if doc.get("document_type") == "wmcdp_rubric":  # each level's short label (the rubric's, or derived)
            rubric = Rubric.model_validate(doc)
            for scale in [d.scale for d in rubric.dimensions] + [rubric.confidence_scale]:
                out.update(scale.short_label(level) for level in range(scale.min, scale.max + 1))
    return sorted(out, key=len, reverse=True)


def not_translated(root: QWidget, content: list[str]) -> list[str]:
    return [f"{where}: {text!r} (left: {left})" for where, text in shown_texts(root) if (left := unmarked(text, content))]


def rate(qtbot: Any, window: MainWindow, digit: str) -> None:
    """Score every dimension, write the rationale and submit, by the keyboard (the names are pseudo-translated)."""
    set_all_scores_by_keyboard(qtbot, window, digit)
    rationale = window.page.form.notes.edits["brief_rationale"]
    rationale.setFocus()
    qtbot.keyClicks(rationale, "Validates, then coaches")
    submit_by_keyboard(qtbot, window)


def check(root: QWidget, content: list[str], where: str) -> None:
    for _ in range(3):  # a label whose text just changed (an autosave's time) is laid out on a later turn
        QApplication.processEvents()
    problems = not_translated(root, content) + cut_off(root)
    assert not problems, f"{where}:\n" + "\n".join(problems)


def test_every_shown_string_is_translated_and_nothing_is_cut_off(
    qtbot: Any, translator: PseudoTranslator, make_window: Callable[..., MainWindow], bundle_dir: Path,
    data_dir: Path, tmp_path: Path,
) -> None:
    # besides the bundle: ids, paths, the version, and each language named in itself (never translated)
    content = bundle_content(bundle_dir, "R01", __version__, str(tmp_path), *LANGUAGES.values(), *QT_BUTTONS)
    welcome = make_window(["--data-dir", str(data_dir / "w"), "--rater", "R01"])
    welcome.resize(1440, 900)
    check(welcome, content, "welcome")
    welcome.close()
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    window.resize(1440, 900)
    assert OPEN in window.page.form.submit_button.text() and window.page.form.submit_button.text().endswith(CLOSE)
    check(window, content, "rating")
    window.page.form.submit_button.click()  # problems next to the controls
    check(window, content, "validation errors")
    rate(qtbot, window, "3")
    window.rating.go_to("T-0001")
    check(window, content, "submitted rating")
    window.rating.go_to("T-0002")
    rate(qtbot, window, "4")
    check(window, content, "calibration feedback")
    for dialog in (RaterDialog("R01", None, window), AboutDialog(window), PassphraseDialog("R01.wmcdp", "", window)):
        qtbot.addWidget(dialog)
        dialog.show()
        check(dialog, [*content, "Apache", "LGPL", "GPL", "R01.wmcdp"], type(dialog).__name__)
    assert export_and_wait(qtbot, window, tmp_path / "out.zip")
    qtbot.waitUntil(lambda: window.receipt_dialog is not None and window.receipt_dialog.isVisible(), timeout=5000)
    receipt = window.receipt_dialog
    assert receipt is not None
    check(receipt, [*content, str(tmp_path / "out.zip"), receipt.code.text()], "export summary and receipt code")
    assert not translator.missed, translator.missed
    assert rows(window)


def test_bundle_content_is_shown_as_written(
    qtbot: Any, translator: PseudoTranslator, window: MainWindow, bundle_dir: Path
) -> None:
    """The scenario, the response and the rubric's words are never passed through the catalogue."""
    page = window.page
    response = page.task_view.response.toPlainText()
    assert OPEN not in response and response.startswith("It sounds exhausting")
    assert all(OPEN not in row.label.text() and OPEN not in row.slider.accessibleName() for row in rows(window))
    assert OPEN not in page.task_view.scenario.toPlainText().split("Sam, 9")[1].split("\n")[0]


def test_the_checks_fail_on_an_untranslated_string_and_a_cut_off_label(
    qtbot: Any, translator: PseudoTranslator, window: MainWindow, bundle_dir: Path
) -> None:
    content = bundle_content(bundle_dir)
    label = QLabel("A sentence nobody translated")
    window.page.form.footer.layout().addWidget(label)
    label.show()
    assert any("nobody translated" in p for p in not_translated(window, content))
    label.setText(window.tr("Rubric help") * 10)
    label.setFixedWidth(40)
    QApplication.processEvents()
    assert any("px wide" in p for p in cut_off(window))
    window.page.form.tabs.setTabText(0, window.tr("Rubric help") * 20)  # a tab title cut with "…"
    QApplication.processEvents()
    assert any(p.startswith("tab ") for p in cut_off(window))
    untranslated = window.tr("A string no catalogue has")
    assert untranslated == "A string no catalogue has" and ("MainWindow", untranslated) in translator.missed
    translator.missed.clear()


def test_every_part_of_the_form_is_translated_and_nothing_is_cut_off(
    qtbot: Any, translator: PseudoTranslator, make_window: Callable[..., MainWindow], bundle_dir: Path,
    data_dir: Path,
) -> None:
    """The pages behind the Scores tab, ticked failure modes, the flag, the rubric help beside the form and
    the "cannot rate" panel (with its problems, and submitted): the window's check sees only what is in front."""
    content = bundle_content(bundle_dir, "R01", *LANGUAGES.values(), *QT_BUTTONS)
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    window.resize(1440, 900)
    form = window.page.form
    rows(window)[0].slider.setFocus()
    qtbot.keyClicks(rows(window)[0].slider, "4")  # a level chosen: its badge and anchor line
    form.tabs.setCurrentWidget(form.fm_page)
    for fm_row in list(form.failure_modes.rows.values())[:2]:  # severity, note and evidence controls shown
        fm_row.check.setFocus()
        qtbot.keyClick(fm_row.check, Qt.Key.Key_Space)
    check(window, content, "failure modes page, two ticked")
    form.tabs.setCurrentWidget(form.notes_page)
    check(window, content, "notes page")
    form.flag_button.click()
    window.page.toggle_help()
    assert window.page.help_open() and form.flag_row.isVisible()
    form.tabs.setCurrentWidget(form.scroll_area)
    check(window, content, "flag and rubric help open")
    form.submit_button.click()
    for page in form.pages[:3]:
        form.tabs.setCurrentWidget(page)
        check(window, content, f"problems, {page.accessibleName()}")
    form.cannot_button.click()
    form.submit_button.click()  # no reason chosen
    check(window, content, "cannot rate, no reason")
    form.cannot_panel.reasons["other"].click()
    form.submit_button.click()  # "other" without words
    check(window, content, "cannot rate, other without words")
    qtbot.keyClicks(form.cannot_panel.detail, "I know this family.")
    form.flag_row.note.setFocus()
    qtbot.keyClicks(form.flag_row.note, "Age band looks wrong.")
    form.submit_button.click()
    window.rating.go_to("T-0001")
    assert form.stack.currentWidget() is form.cannot_page
    check(window, content, "cannot rate, submitted")
    assert not translator.missed, translator.missed
