"""Help > About WM-CDP Desktop: version, licence and third-party notices, reachable by keyboard, translatable."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, Qt, QTranslator
from PySide6.QtWidgets import QApplication, QMenu, QPlainTextEdit

from wmcdp_desktop import __version__
from wmcdp_desktop.rater.app.window.about_dialog import AboutDialog
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def _help_menu(window: MainWindow) -> QMenu:
    menus = [a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "Help"]
    assert len(menus) == 1 and isinstance(menus[0], QMenu)
    return menus[0]


def _open_about(qtbot: Any, window: MainWindow) -> AboutDialog:
    about = [a for a in _help_menu(window).actions() if a.text() == "About WM-CDP Desktop"]
    assert len(about) == 1
    about[0].trigger()
    qtbot.waitUntil(lambda: any(isinstance(w, AboutDialog) and w.isVisible() for w in QApplication.topLevelWidgets()))
    return next(w for w in QApplication.topLevelWidgets() if isinstance(w, AboutDialog) and w.isVisible())


def test_help_about_shows_version_licence_and_every_shipped_component(qtbot: Any, window: MainWindow) -> None:
    dialog = _open_about(qtbot, window)
    shown = dialog.findChild(QPlainTextEdit, "about_notices")
    assert shown is not None and shown.isReadOnly()
    assert shown.accessibleName() == "Licence and third-party notices"
    assert dialog.windowTitle() == "About WM-CDP Desktop"
    heading = dialog.findChild(type(dialog.summary), "about_heading")
    assert heading is not None and __version__ in heading.text()
    assert "Apache License, Version 2.0" in dialog.summary.text()
    text = shown.toPlainText()
    for component in ("Qt 6", "PySide6", "LGPL-3.0", "pydantic", "pydantic-core", "platformdirs", "filelock",
                      "typing-extensions", "Python", "PSF", "ICU", "replacing them with your own build"):
        assert component in text, component
    assert "Apache License" in text and "TERMS AND CONDITIONS" in text  # the licence itself follows the notices
    assert shown.hasFocus() or dialog.focusWidget() is shown  # the keyboard starts in the text
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible())


class _Marked(QTranslator):
    """A pseudo-translation: every string that goes through Qt's translation comes back marked."""

    def translate(self, context: str, source: str, disambiguation: str | None = None, n: int = -1) -> str:
        return f"«{source}»"


@pytest.fixture
def marked() -> Iterator[None]:
    translator = _Marked()
    QCoreApplication.installTranslator(translator)
    yield
    QCoreApplication.removeTranslator(translator)


def test_about_texts_go_through_qt_translation(
    qtbot: Any, marked: None, make_window: Callable[..., MainWindow], bundle_dir: Any, data_dir: Any
) -> None:
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    help_menu = [a for a in window.menuBar().actions() if a.text() == "«&Help»"]
    assert len(help_menu) == 1
    menu = help_menu[0].menu()
    assert isinstance(menu, QMenu)
    assert [a.text() for a in menu.actions()] == ["«About WM-CDP Desktop»"]
    dialog = AboutDialog(window)
    qtbot.addWidget(dialog)
    assert dialog.windowTitle() == "«About WM-CDP Desktop»"
    assert dialog.notices.accessibleName() == "«Licence and third-party notices»"
    assert dialog.summary.text().startswith("«The offline rating tool")


def test_about_in_a_damaged_install_says_the_notices_are_missing(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wmcdp_desktop.rater.app.window import about_dialog

    def missing() -> str:
        raise FileNotFoundError(2, "No such file or directory", "THIRD-PARTY-NOTICES.md")

    monkeypatch.setattr(about_dialog, "legal_text", missing)
    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    text = dialog.notices.toPlainText()
    assert text.startswith("The licence and notices could not be read:") and "THIRD-PARTY-NOTICES.md" in text
