"""The window's menus and their keyboard shortcuts: File, Task, View, Settings (and Help, from
``about_dialog``). Every action is also added to the window, so its shortcut works wherever the focus is;
the Task actions and a few File ones are enabled only while a bundle is open (:meth:`WindowMenus.update`).
The shortcuts are listed in docs/RATER_GUIDE.md."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from wmcdp_desktop.rater.app.text.i18n import app_title
from wmcdp_desktop.rater.app.window.about_dialog import add_about_action
from wmcdp_desktop.rater.app.window.language_menu import LanguageMenu

if TYPE_CHECKING:
    from wmcdp_desktop.rater.app.rating.controller import RatingController
    from wmcdp_desktop.rater.app.window.preferences import Preferences

class MenuTarget(Protocol):
    """What the menus call on the window."""

    rating: RatingController | None
    prefs: Preferences

    def choose_bundle(self) -> None: ...
    def open_demo(self) -> None: ...
    def close_bundle(self) -> None: ...
    def change_rater(self) -> bool: ...
    def change_font(self, delta: int) -> None: ...
    def tell(self, text: str, *, error: bool = False) -> None: ...
    def rated(self, call: Callable[[RatingController], object]) -> Callable[[], None]: ...


class WindowMenus(QObject):
    """The menu bar of ``window``; its actions call ``target`` (the same window, seen through its slots)."""

    def __init__(self, window: QMainWindow, target: MenuTarget) -> None:
        super().__init__(window)
        self._window, self._target = window, target
        self._rating_actions: list[QAction] = []
        bar = window.menuBar()
        titles = {"&File": self.tr("&File"), "&Task": self.tr("&Task"), "&View": self.tr("&View"), "&Settings": self.tr("&Settings")}
        self.menus: dict[str, QMenu] = {key: bar.addMenu(title) for key, title in titles.items()}
        self._file_menu()
        self._task_menu()
        act, on = self._action, self._target.rated
        self.act_bigger = act("&View", self.tr("&Larger text"), lambda: target.change_font(1), ("Ctrl+=", "Ctrl++"))
        self.act_smaller = act("&View", self.tr("&Smaller text"), lambda: target.change_font(-1), ("Ctrl+-",))
        self.act_help = act("&View", self.tr("Rubric &help"), on(lambda r: r.page.toggle_help()), ("F1",), rating=True)
        act("&Settings", self.tr("&Rater id…"), target.change_rater)
        act("&Settings", self.tr("&Idle timeout…"), lambda: target.prefs.ask_idle_timeout(window, app_title()))
        self.language_menu = LanguageMenu(target.prefs, window)
        self.language_menu.told.connect(target.tell)
        self.menus["&Settings"].addMenu(self.language_menu)
        self.act_about = add_about_action(window)

    def _file_menu(self) -> None:
        act, on, target = self._action, self._target.rated, self._target
        self.act_open = act("&File", self.tr("&Open bundle…"), target.choose_bundle, ("Ctrl+O",))
        self.act_demo = act("&File", self.tr("Open the &demo bundle"), target.open_demo)
        self.act_export = act(
            "&File", self.tr("&Export results…"), on(lambda r: r.choose_export(self._window)), ("Ctrl+E",), rating=True
        )
        self.act_close_bundle = act("&File", self.tr("&Close bundle"), target.close_bundle, rating=True)
        self.menus["&File"].addSeparator()
        act("&File", self.tr("&Quit"), self._window.close, ("Ctrl+Q",))

    def _task_menu(self) -> None:
        act, on = self._action, self._target.rated
        self.act_submit = act("&Task", self.tr("&Submit rating"), on(lambda r: r.submit()), ("Ctrl+Return", "Ctrl+Enter"), rating=True)
        self.act_save = act("&Task", self.tr("Save &draft now"), on(lambda r: r.save_draft_now()), ("Ctrl+S",), rating=True)
        self.act_next = act("&Task", self.tr("&Next task"), on(lambda r: r.step(1)), ("Ctrl+PgDown", "Alt+Right"), rating=True)
        self.act_prev = act("&Task", self.tr("&Previous task"), on(lambda r: r.step(-1)), ("Ctrl+PgUp", "Alt+Left"), rating=True)
        self.act_next_unfinished = act(
            "&Task", self.tr("Next &unfinished task"), on(lambda r: r.next_unfinished()), ("Ctrl+Shift+PgDown",), rating=True
        )
        self.act_evidence = act(
            "&Task", self.tr("Use selected text as &evidence"), on(lambda r: r.use_selection()), ("Ctrl+Shift+E",), rating=True
        )
        self.act_pause = act(
            "&Task", self.tr("&Pause or resume the timer"), on(lambda r: r.toggle_pause()), ("Ctrl+Shift+P",), rating=True
        )
        self.act_revise = act(
            "&Task", self.tr("&Revise this rating"), on(lambda r: r.revise_submitted()), ("Ctrl+Shift+R",), rating=True
        )
        self.act_find = act("&Task", self.tr("&Find…"), on(lambda r: r.page.open_find()), ("Ctrl+F",), rating=True)

    def _action(self, menu: str, text: str, slot: Callable[[], object], keys: tuple[str, ...] = (), *, rating: bool = False) -> QAction:
        """A menu entry (its shortcuts work anywhere in the window); ``rating``: enabled while a bundle is open."""
        action = QAction(text, self._window)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.triggered.connect(slot)
        self.menus[menu].addAction(action)
        self._window.addAction(action)
        if rating:
            self._rating_actions.append(action)
        return action

    def update(self, *, rating: bool, opening: bool) -> None:
        """Enable what applies: the rating actions while a bundle is open; opening one while none is opening."""
        for action in self._rating_actions:
            action.setEnabled(rating)
        for action in (self.act_open, self.act_demo):
            action.setEnabled(not opening)
