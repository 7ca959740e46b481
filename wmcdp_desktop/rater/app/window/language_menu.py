"""Settings > Language: the computer's language or one the app ships, each named in itself."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QWidget

from wmcdp_desktop.rater.app.text.i18n import LANGUAGES, language_name
from wmcdp_desktop.rater.app.window.preferences import Preferences


class LanguageMenu(QMenu):
    told = Signal(str)
    """What changes and when, in plain words."""

    def __init__(self, prefs: Preferences, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("&Language"))
        self._prefs = prefs
        group = QActionGroup(self)
        self.language_actions: dict[str | None, QAction] = {}
        choices: list[tuple[str | None, str]] = [(None, self.tr("The computer's language")), *LANGUAGES.items()]
        for code, name in choices:
            action = QAction(name, self)
            action.setCheckable(True)
            action.setChecked(code == prefs.settings.language)
            action.triggered.connect(lambda _checked=False, c=code: self.choose(c))
            group.addAction(action)
            self.addAction(action)
            self.language_actions[code] = action

    def choose(self, code: str | None) -> None:
        """Remember the language; the window is built in it at the next start (the rater is told)."""
        if code == self._prefs.settings.language:
            return
        self._prefs.set_language(code)
        self.language_actions[code].setChecked(True)
        language = language_name(code) if code else self.tr("the computer's language")
        self.told.emit(self.tr("WM-CDP Desktop will use {language} the next time it starts.").format(language=language))
