"""The translation catalogues: current with the sources (lupdate finds nothing new or vanished), the
compiled .qm files made from the committed .ts, Spanish complete, placeholders and plural forms kept, and
the app in Spanish (its own words and Qt's)."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialogButtonBox

from wmcdp_desktop.rater.app.text import i18n
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.app.window.rater_dialog import RaterDialog
from wmcdp_desktop.rater.settings import Settings, save_settings

PLACEHOLDER = re.compile(r"\{[a-z_]+\}|%L?n")


def messages(ts: Path) -> dict[tuple[str, str], ET.Element]:
    return {
        (ctx.findtext("name") or "", msg.findtext("source") or ""): msg
        for ctx in ET.parse(ts).iter("context")
        for msg in ctx.iter("message")
    }


def translations(msg: ET.Element) -> list[str]:
    t = msg.find("translation")
    assert t is not None
    forms = t.findall("numerusform")
    return [f.text or "" for f in forms] if forms else [t.text or ""]


@pytest.mark.parametrize("code", i18n.SHIPPED)
def test_the_committed_catalogue_is_current_with_the_sources(code: str, tmp_path: Path) -> None:
    """Regenerate with: python -m tools.translations (docs/TRANSLATING.md)."""
    committed = i18n.ts_path(code)
    fresh = tmp_path / committed.name
    shutil.copy(committed, fresh)
    i18n.run_lupdate(fresh, plural_only=code == "en")
    before, after = set(messages(committed)), set(messages(fresh))
    assert after - before == set(), f"new strings not in {committed.name}: {sorted(after - before)[:10]}"
    assert before - after == set(), f"strings no longer in the sources: {sorted(before - after)[:10]}"


@pytest.mark.parametrize("code", i18n.SHIPPED)
def test_the_compiled_catalogue_is_made_from_the_committed_one(code: str, tmp_path: Path) -> None:
    qm = tmp_path / f"{code}.qm"
    i18n.run_lrelease(i18n.ts_path(code), qm)
    assert qm.read_bytes() == i18n.qm_path(code).read_bytes(), "run: python -m tools.translations"


@pytest.mark.parametrize("code", i18n.SHIPPED)
def test_every_string_is_translated_with_its_placeholders_and_plural_forms(code: str) -> None:
    found = messages(i18n.ts_path(code))
    assert found
    for (context, source), msg in found.items():
        t = msg.find("translation")
        assert t is not None and t.get("type") not in ("unfinished", "vanished", "obsolete"), (context, source)
        texts = translations(msg)
        if msg.get("numerus") == "yes":
            assert len(texts) == 2, (context, source, texts)  # English and Spanish: one, other
        for text in texts:
            assert text.strip(), (context, source)
            assert sorted(set(PLACEHOLDER.findall(text))) == sorted(set(PLACEHOLDER.findall(source))), (source, text)
            assert text.count("&") - 2 * text.count("&&") == source.count("&") - 2 * source.count("&&"), (source, text)


def test_english_plurals_read_right(make_window: Callable[..., MainWindow], data_dir: Path, bundle_dir: Path) -> None:
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    form = window.page.form
    assert form.tr("Not submitted: %Ln thing(s) to fix, shown next to each control.", "", 1).startswith("Not submitted: 1 thing to fix")
    assert form.tr("Not submitted: %Ln thing(s) to fix, shown next to each control.", "", 2).startswith("Not submitted: 2 things to fix")


def test_the_app_in_spanish(make_window: Callable[..., MainWindow], data_dir: Path, bundle_dir: Path) -> None:
    """Settings > Language > Español: the app's words and Qt's own (qtbase_es), dates in Spanish; the bundle's
    text as written."""
    save_settings(data_dir, Settings(language="es"))
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    form = window.page.form
    assert form.submit_button.accessibleName() == "Enviar valoración"
    assert [a.text() for a in window.menuBar().actions()][:2] == ["&Archivo", "&Tarea"]
    assert form.tr("Not submitted: %Ln thing(s) to fix, shown next to each control.", "", 1).startswith("No enviada: queda 1 cosa por corregir")
    assert form.tr("Not submitted: %Ln thing(s) to fix, shown next to each control.", "", 3).startswith("No enviada: quedan 3 cosas por corregir")
    assert window.page.task_view.response.toPlainText().startswith("It sounds exhausting")  # as written
    dialog = RaterDialog("R01", None, window)
    ok = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
    cancel = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Cancel)
    assert (ok.text().replace("&", ""), cancel.text().replace("&", "")) == ("Aceptar", "Cancelar")  # Qt's own, in Spanish
    dialog.deleteLater()
    assert i18n.format_datetime("2026-11-29T23:45:40Z").count("/") == 2


def test_the_language_menu_saves_the_choice(make_window: Callable[..., MainWindow], data_dir: Path) -> None:
    from wmcdp_desktop.rater.settings import load_settings

    window = make_window(["--data-dir", str(data_dir), "--rater", "R01"])
    choices = {a.text(): a for a in window.menu.language_menu.actions()}  # Settings > Language
    computer, spanish = choices["The computer's language"], choices["Español"]
    assert computer.isChecked()
    spanish.trigger()
    assert load_settings(data_dir)[0].language == "es" and spanish.isChecked()
    assert "Español" in window.messages[-1]
    computer.trigger()
    assert load_settings(data_dir)[0].language is None
