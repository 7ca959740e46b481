"""The rubric in the rater's language: a Spanish-speaking rater reads the demo's dimensions, levels, help,
failure modes and confidence scale in Spanish, with a notice that the translation is not clinically
validated; a bundle without their language shows its own words and says so; an English rater sees the
original with no notice. Driven through the real window (the bundle content itself is never translated)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QLabel,
    QPlainTextEdit,
    QTabWidget,
    QTextEdit,
    QWidget,
)

from tests.kit.bundles import bundle_docs, write_bundle_folder
from tests.kit.studies import rubric_translation
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.resources import demo_bundle_path
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.settings import Settings, save_settings

pytestmark = pytest.mark.skipif(not demo_bundle_path().exists(), reason="the demo bundle is not built")


def form_texts(root: QWidget) -> str:
    """Every text the rating form and the rubric help show or give a screen reader, hidden pages included."""
    out: list[str] = []
    for w in [root, *root.findChildren(QWidget)]:
        if isinstance(w, QLabel | QAbstractButton):
            out.append(w.text())
        elif isinstance(w, QPlainTextEdit | QTextEdit):
            out.append(w.toPlainText())
        elif isinstance(w, QComboBox):
            out += [w.itemText(i) for i in range(w.count())]
        elif isinstance(w, QTabWidget):
            out += [w.tabText(i) for i in range(w.count())]
        out += [w.toolTip(), w.accessibleName(), w.accessibleDescription()]
    return "\n".join(t for t in out if t)


def rater_texts(rubric: Rubric) -> list[str]:
    """The rubric's texts a rater reads, each long or specific enough not to turn up by chance."""
    texts = [rubric.title]
    for d in rubric.dimensions:
        texts += [d.label, d.description, *(a.text for a in d.scale.anchors)]
    for f in rubric.failure_modes:
        texts += [f.label, f.description, f.severity_guidance.critical]
    texts += [a.text for a in rubric.confidence_scale.anchors]
    return texts


def _open(make_window: Any, data_dir: Path, language: str, bundle: Path) -> MainWindow:
    save_settings(data_dir, Settings(language=language))
    window: MainWindow = make_window([str(bundle), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.page is not None
    window.page.fill_help()
    return window


def test_a_spanish_rater_reads_the_demo_rubric_in_spanish_with_the_validation_notice(
    make_window: Any, data_dir: Path
) -> None:
    window = _open(make_window, data_dir, "es", demo_bundle_path())
    page, session = window.page, window.session
    assert page is not None and session is not None
    original = session.bundle.rubric
    spanish = original.in_language("es").rubric
    shown = form_texts(page.form) + "\n" + form_texts(page.help_panel)
    english_left = [t for t in rater_texts(original) if t in shown]
    assert not english_left, f"English rubric text shown to a Spanish rater: {english_left[:3]}"
    for d in spanish.dimensions:
        assert d.label in shown
        assert d.scale.short_label(1) in shown  # "Perjudicial" under the first tick
    for f in spanish.failure_modes:
        assert f.label in shown
    assert all(spanish.confidence_scale.short_label(level) in shown for level in (1, 5))
    assert spanish.instructions.split("\n")[0] in page.help.toPlainText()
    assert page.language_banner.isVisible()
    notice = page.language_text.text()
    assert "no ha sido validada clínicamente" in notice and "Español" in notice and "English" in notice
    assert original.translations is not None
    assert (original.translations["es"].note or "") in notice  # who translated it, as the rubric says
    assert notice.split(".")[0] in page.help.toPlainText()  # the help says it too
    # the rater's answers are the same record fields as in English (nothing but words changed)
    assert [d.field for d in spanish.dimensions] == [d.field for d in original.dimensions]


def test_an_english_rater_reads_the_original_and_gets_no_language_notice(make_window: Any, data_dir: Path) -> None:
    window = _open(make_window, data_dir, "en", demo_bundle_path())
    page, session = window.page, window.session
    assert page is not None and session is not None
    shown = form_texts(page.form)
    assert all(d.label in shown for d in session.bundle.rubric.dimensions)
    assert not page.language_banner.isVisible()


def test_a_bundle_without_the_raters_language_shows_its_own_words_and_says_so(
    make_window: Any, data_dir: Path, bundle_dir: Path
) -> None:
    window = _open(make_window, data_dir, "es", bundle_dir)
    page, session = window.page, window.session
    assert page is not None and session is not None
    assert session.bundle.rubric.translations is None
    shown = form_texts(page.form)
    assert all(d.label in shown for d in session.bundle.rubric.dimensions)
    assert page.language_banner.isVisible()
    notice = page.language_text.text()
    assert notice.startswith("La rúbrica de este paquete no tiene traducción a su idioma (Español)")
    assert "(English)" in notice


def test_a_clinically_validated_translation_is_shown_without_a_notice(
    make_window: Any, data_dir: Path, tmp_path: Path, sample_docs: Any
) -> None:
    rubric, tasks = bundle_docs(sample_docs)
    rubric["translations"] = {"es-419": rubric_translation(rubric, "LA", validated=True)}
    bundle = write_bundle_folder(tmp_path / "validated", rubric, tasks)
    window = _open(make_window, data_dir, "es", bundle)
    page = window.page
    assert page is not None
    shown = form_texts(page.form)
    assert "LA " + rubric["dimensions"][0]["label"] in shown
    assert not page.language_banner.isVisible()
