"""What assistive technology is told: names without mnemonic marks, announcements, and a score slider's
value ("Not set" while unset, never the "1" a plain slider would report)."""

from __future__ import annotations

from typing import ClassVar

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, QRect, Qt
from PySide6.QtGui import (
    QAccessible,
    QAccessibleEvent,
    QAccessibleInterface,
    QKeyEvent,
    QWindow,
)
from PySide6.QtWidgets import QAbstractScrollArea, QAccessibleWidget, QPushButton, QTabBar, QWidget


def plain_name(text: str) -> str:
    """``text`` without its mnemonic marks (``&Open`` -> ``Open``; ``&&`` -> ``&``): the accessible name."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def button(text: str, parent: QWidget | None = None) -> QPushButton:
    """A push button with an Alt mnemonic (``&Submit rating``) named for screen readers without the mark."""
    b = QPushButton(text, parent)
    b.setAccessibleName(plain_name(text))
    return b


def set_button_text(b: QPushButton, text: str) -> None:
    b.setText(text)
    b.setAccessibleName(plain_name(text))


def announce(widget: QWidget, text: str) -> None:
    """Have a screen reader say ``text`` now (an assertive announcement from ``widget``; Qt 6.8 and later:
    with an older Qt nothing is sent, and the controls' descriptions still carry what matters)."""
    try:
        from PySide6.QtGui import QAccessibleAnnouncementEvent
    except ImportError:  # PySide6 < 6.8
        return
    event = QAccessibleAnnouncementEvent(widget, text)
    event.setPoliteness(QAccessible.AnnouncementPoliteness.Assertive)
    QAccessible.updateAccessibility(event)


class UnsetValueAccessible(QAccessibleWidget):
    """A score slider while it has no score: a slider whose value is the shown text ("Not set"), with no
    numeric value (Qt's own slider interface reports its resting position, the scale's lowest level)."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget, QAccessible.Role.Slider)

    def text(self, t: QAccessible.Text) -> str:
        if t == QAccessible.Text.Value:
            return str(self.object().property(SHOWN_VALUE) or "")
        return super().text(t)


class TabAccessible(QAccessibleWidget):
    """One tab of a tab bar, as screen readers are told of it: focused only while the tab bar itself has the
    keyboard focus and the tab is the current one (Qt's own tab interface reports the current tab focused
    whatever has the focus, so a screen reader found two focused nodes: the control and the tab); selected
    while current; "press" makes it current. It stands for no object of its own (Qt's tab neither)."""

    def __init__(self, bar: QTabBar, index: int) -> None:
        super().__init__(bar, QAccessible.Role.PageTab)
        self.bar = bar
        self.index = index

    def object(self) -> QObject | None:  # type: ignore[override]  # (None: no such node)
        return None

    def isValid(self) -> bool:
        return 0 <= self.index < self.bar.count()

    def role(self) -> QAccessible.Role:
        return QAccessible.Role.PageTab

    def parent(self) -> QAccessibleInterface | None:  # type: ignore[override]  # (None: no such node)
        return QAccessible.queryAccessibleInterface(self.bar)

    def childCount(self) -> int:
        return 0

    def child(self, index: int) -> QAccessibleInterface | None:  # type: ignore[override]  # (None: no such node)
        return None

    def indexOfChild(self, child: QAccessibleInterface) -> int:
        return -1

    def childAt(self, x: int, y: int) -> QAccessibleInterface | None:  # type: ignore[override]  # (None: no such node)
        return None

    def focusChild(self) -> QAccessibleInterface | None:  # type: ignore[override]  # (None: no such node)
        return None

    def relations(
        self, match: QAccessible.RelationFlag = QAccessible.RelationFlag.AllRelations
    ) -> list[tuple[QAccessibleInterface, QAccessible.RelationFlag]]:
        return []

    def window(self) -> QWindow | None:  # type: ignore[override]  # (None: no such node)
        return self.bar.window().windowHandle()

    def text(self, t: QAccessible.Text) -> str:
        if not self.isValid():
            return ""
        if t == QAccessible.Text.Name:
            return self.bar.accessibleTabName(self.index) or plain_name(self.bar.tabText(self.index))
        if t == QAccessible.Text.Description:
            return self.bar.tabToolTip(self.index)
        return ""

    def setText(self, t: QAccessible.Text, text: str) -> None:
        return None

    def rect(self) -> QRect:
        if not self.isValid():
            return QRect()
        r = self.bar.tabRect(self.index)
        return QRect(self.bar.mapToGlobal(r.topLeft()), r.size())

    def state(self) -> QAccessible.State:
        s = QAccessible.State()
        if not self.isValid():
            s.invalid = True
            return s
        s.invisible = not self.bar.isVisible() or not self.bar.isTabVisible(self.index)
        s.disabled = not self.bar.isEnabled() or not self.bar.isTabEnabled(self.index)
        s.selectable = True
        s.focusable = self.bar.focusPolicy() != Qt.FocusPolicy.NoFocus
        s.selected = self.index == self.bar.currentIndex()
        s.focused = bool(s.selected and self.bar.hasFocus())
        return s

    def actionNames(self) -> list[str]:
        return [QAccessibleWidget.pressAction()]

    def doAction(self, name: str) -> None:
        if name == QAccessibleWidget.pressAction() and self.isValid():
            self.bar.setCurrentIndex(self.index)

    def keyBindingsForAction(self, name: str) -> list[str]:
        return []


class TabBarAccessible(QAccessibleWidget):
    """A tab bar whose tabs are :class:`TabAccessible` (kept while the bar lives, one per place)."""

    def __init__(self, bar: QTabBar) -> None:
        super().__init__(bar, QAccessible.Role.PageTabList)
        self.bar = bar
        self.tabs: dict[int, TabAccessible] = {}
        tabs = self.tabs
        bar.destroyed.connect(lambda _obj=None: _forget(tabs))

    def _tab(self, index: int) -> TabAccessible | None:
        if not 0 <= index < self.bar.count():
            return None
        tab = self.tabs.get(index)
        if tab is None:
            tab = self.tabs[index] = TabAccessible(self.bar, index)
        return tab

    def childCount(self) -> int:
        return self.bar.count()

    def child(self, index: int) -> QAccessibleInterface | None:  # type: ignore[override]  # (None: no such node)
        return self._tab(index)

    def indexOfChild(self, child: QAccessibleInterface) -> int:
        return next((i for i, tab in self.tabs.items() if tab is child and tab.isValid()), -1)

    def focusChild(self) -> QAccessibleInterface | None:  # type: ignore[override]  # (None: no such node)
        return self._tab(self.bar.currentIndex()) if self.bar.hasFocus() else None

    def childAt(self, x: int, y: int) -> QAccessibleInterface | None:  # type: ignore[override]  # (None: no such node)
        return self._tab(self.bar.tabAt(self.bar.mapFromGlobal(QPoint(x, y))))


def _forget(tabs: dict[int, TabAccessible]) -> None:
    """The tab bar is gone: its tabs' interfaces leave the accessibility cache (they name no object that Qt
    would see destroyed)."""
    for tab in tabs.values():
        QAccessible.deleteAccessibleInterface(QAccessible.uniqueId(tab))
    tabs.clear()


SHOWN_VALUE = "wmcdp_shown_value"
"""Dynamic property of a widget whose value is reported as this text (see :func:`install_accessibility`)."""
UNSET = "wmcdp_unset"
"""Dynamic property: True while the widget has no value (its accessible interface is UnsetValueAccessible)."""

_installed = False


def _factory(key: str, obj: QObject) -> QAccessibleInterface | None:
    iface: QAccessibleInterface | None = None
    if isinstance(obj, QTabBar):
        iface = TabBarAccessible(obj)
    elif isinstance(obj, QWidget) and obj.property(UNSET) is True:
        iface = UnsetValueAccessible(obj)
    if iface is not None:
        setattr(obj, "_wmcdp_accessible", iface)  # noqa: B010 (the widget keeps the Python wrapper alive)
    return iface


def install_accessibility() -> None:
    """Install the factory of :class:`UnsetValueAccessible` and :class:`TabBarAccessible` (once per process)."""
    global _installed
    if not _installed:
        QAccessible.installFactory(_factory)
        _installed = True


def set_unset(widget: QWidget, unset: bool, shown: str) -> None:
    """Say whether ``widget`` (a slider) has a value, and the text shown for it; its accessible interface
    is rebuilt when that changes (Qt's own while it has a value, :class:`UnsetValueAccessible` while not)."""
    install_accessibility()
    widget.setProperty(SHOWN_VALUE, shown)
    if widget.property(UNSET) is unset:
        return
    widget.setProperty(UNSET, unset)
    iface = QAccessible.queryAccessibleInterface(widget)  # the cached one, of the old kind
    if iface is not None:
        QAccessible.deleteAccessibleInterface(QAccessible.uniqueId(iface))
    setattr(widget, "_wmcdp_accessible", None)  # noqa: B010
    if widget.hasFocus() and QAccessible.isActive():
        # The focused object is a new one now: say so, or a screen reader keeps following the one that is gone
        # (Orca then said nothing about the score just set).
        QAccessible.updateAccessibility(QAccessibleEvent(widget, QAccessible.Event.Focus))


BASE_DESCRIPTION = "wmcdp_base_description"
PROBLEM_DESCRIPTION = "wmcdp_problem_description"


def describe(widget: QWidget, *, base: str | None = None, problem: str | None = None, clear_problem: bool = False) -> None:
    """Set the accessible description of ``widget``: what it is (``base``) followed by the problem found
    with it after a failed submit (``problem``), so a screen reader reads the problem with the control."""
    if base is not None:
        widget.setProperty(BASE_DESCRIPTION, base)
    if problem is not None or clear_problem:
        widget.setProperty(PROBLEM_DESCRIPTION, problem or "")
    parts = [str(widget.property(BASE_DESCRIPTION) or ""), str(widget.property(PROBLEM_DESCRIPTION) or "")]
    widget.setAccessibleDescription("\n".join(p for p in parts if p))


class _ReadOnly(QObject):
    """Swallows what would change a control (keys other than moving on, clicks, the wheel); the control
    keeps its focus, its colours and its accessible name: a submitted rating is read, not greyed out."""

    MOVING_ON: ClassVar[set[Qt.Key]] = {Qt.Key.Key_Tab, Qt.Key.Key_Backtab}

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            shortcut = event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
            return not (event.key() in self.MOVING_ON or shortcut)  # moving on, shortcuts and mnemonics pass
        if kind in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonDblClick):
            if isinstance(obj, QWidget):
                obj.setFocus(Qt.FocusReason.MouseFocusReason)
            return True
        return kind in (QEvent.Type.MouseButtonRelease, QEvent.Type.Wheel)


_read_only_filter: _ReadOnly | None = None
READ_ONLY = "wmcdp_read_only"


def set_read_only(widget: QWidget, read_only: bool) -> None:
    """Make ``widget`` (a check box, combo box or slider) read-only without disabling it; a text field uses
    its own read-only mode instead."""
    global _read_only_filter
    if _read_only_filter is None:
        _read_only_filter = _ReadOnly()
    if bool(widget.property(READ_ONLY)) == read_only:
        return
    widget.setProperty(READ_ONLY, read_only)
    if read_only:
        widget.installEventFilter(_read_only_filter)
    else:
        widget.removeEventFilter(_read_only_filter)


def is_read_only(widget: QWidget) -> bool:
    return bool(widget.property(READ_ONLY))


class _HiddenItems(QObject):
    """Keeps a hidden item view 0 x 0 pixels: Qt reports an item as showing while it lies inside its view's
    rectangle, even when the view is hidden (a closed drop-down's list, a list on a page not shown)."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.size = parent.size()
        """The view's size when it was last hidden (given back when it shows, if its layout does not)."""

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if not isinstance(obj, QWidget):
            return False
        if event.type() == QEvent.Type.Hide:
            if not obj.size().isEmpty():
                self.size = obj.size()
            obj.resize(0, 0)
        elif event.type() == QEvent.Type.Show:
            parent = obj.parentWidget()
            layout = parent.layout() if parent is not None else None
            if layout is not None:  # the layout gives it its place again (its own geometry did not change)
                layout.invalidate()
                layout.activate()
            if obj.size().isEmpty() and not self.size.isEmpty():
                obj.resize(self.size)
        return False


def items_hidden_with_view(view: QWidget) -> None:
    """Screen readers are not told of ``view``'s items while it is hidden (see :class:`_HiddenItems`); its
    layout gives it its size again when it shows."""
    watcher = _HiddenItems(view)
    view.installEventFilter(watcher)
    if not view.isVisible():
        view.resize(0, 0)


def name_scroll_bars(area: QAbstractScrollArea, name: str) -> None:
    """Name ``area``'s scroll bars after it ("Scores page: vertical scroll bar"): a scroll bar is a control
    a screen reader announces, and Qt's has no name."""
    area.verticalScrollBar().setAccessibleName(
        QCoreApplication.translate("Accessible", "{name}: vertical scroll bar").format(name=name)
    )
    area.horizontalScrollBar().setAccessibleName(
        QCoreApplication.translate("Accessible", "{name}: horizontal scroll bar").format(name=name)
    )
