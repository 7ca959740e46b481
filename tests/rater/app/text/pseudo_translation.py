"""A pseudo-translation of the app (every catalogue string wrapped in ⟦ ⟧ and lengthened by a third) and
the checks made with it: text shown that did not come through the catalogue, and labels cut off.

:class:`PseudoTranslator` knows the catalogue as ``pyside6-lupdate`` makes it from the sources (made at
test time, so a string missing from the committed ``.ts`` is still checked): it marks exactly the
(context, source) pairs lupdate found, so a string that never goes through ``tr()`` — or goes through it
under a context the catalogue does not have — shows unmarked. Qt's own strings (its dialogs' buttons,
under Qt's contexts) are left alone: Qt's own catalogue translates them (QT_BUTTONS lists those shown).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from PySide6.QtCore import QEvent, QTranslator
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QMainWindow,
    QTabBar,
    QWidget,
)

from wmcdp_desktop.rater.app.text import i18n
from wmcdp_desktop.rater.app.text.accessible import plain_name

OPEN, CLOSE = "⟦", "⟧"
MARKED = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")


QT_BUTTONS = ("OK", "Cancel", "Close", "Open", "Save")
"""Qt's standard buttons in the dialogs the app shows (translated by Qt's ``qtbase_<lang>.qm``)."""


def pseudo(text: str) -> str:
    """``text`` wrapped in markers and lengthened by a third (as a longer language would be)."""
    return f"{OPEN}{text}{'·' * max(1, len(text) // 3)}{CLOSE}"


def catalogue(tmp: Path) -> set[tuple[str, str]]:
    """The (context, source) pairs of the app's strings, from lupdate over the sources now."""
    ts = tmp / "pseudo.ts"
    i18n.run_lupdate(ts)
    return {
        (ctx.findtext("name") or "", msg.findtext("source") or "")
        for ctx in ET.parse(ts).iter("context")
        for msg in ctx.iter("message")
    }


class PseudoTranslator(QTranslator):
    def __init__(self, pairs: set[tuple[str, str]]) -> None:
        super().__init__()
        self.pairs = pairs
        self.contexts = {ctx for ctx, _ in pairs}
        self.missed: set[tuple[str, str]] = set()
        """Strings asked for under one of the app's contexts that the catalogue does not have."""

    def translate(self, context: str, source: str, disambiguation: str | None = None, n: int = -1) -> str:
        if (context, source) in self.pairs:
            return pseudo(source)
        if context in self.contexts:
            self.missed.add((context, source))
        return source  # not the app's: shown as the source, unmarked (PySide also asks the base classes' contexts)

    def isEmpty(self) -> bool:
        return False


def shown_texts(root: QWidget) -> list[tuple[str, str]]:
    """(where, text) of every text a rater sees or hears under ``root``: labels, buttons, titles, tabs,
    names and descriptions, tooltips, placeholders, menu entries, combo items."""
    out: list[tuple[str, str]] = [("window title", root.windowTitle())]
    for w in [root, *root.findChildren(QWidget)]:
        if not w.isVisibleTo(root) and w is not root:
            continue
        kind = type(w).__name__
        out += [(f"{kind} name", w.accessibleName()), (f"{kind} description", w.accessibleDescription()),
                (f"{kind} tooltip", w.toolTip())]
        if isinstance(w, QLabel | QAbstractButton):
            out.append((f"{kind} text", w.text()))
        if isinstance(w, QGroupBox):
            out.append((f"{kind} title", w.title()))
        if isinstance(w, QTabBar):
            out += [(f"{kind} tab", w.tabText(i)) for i in range(w.count())]
        if isinstance(w, QLineEdit):
            out.append((f"{kind} placeholder", w.placeholderText()))
        if isinstance(w, QComboBox):
            out.append((f"{kind} placeholder", w.placeholderText()))
            out += [(f"{kind} item", w.itemText(i)) for i in range(w.count())]
        if isinstance(w, QListWidget):
            out += [(f"{kind} item", w.item(i).text()) for i in range(w.count())]
        if isinstance(w, QListView) and not isinstance(w, QListWidget) and w.model() is not None:
            model = w.model()
            out += [(f"{kind} row", str(model.index(r, 0).data())) for r in range(min(model.rowCount(), 5))]
    if isinstance(root, QMainWindow):
        for action in root.findChildren(QAction):
            out += [("menu entry", action.text()), ("menu tooltip", action.toolTip() if action.toolTip() != action.text().replace("&", "") else "")]
        out += [("menu", a.text()) for a in root.menuBar().actions()]
    return [(where, text) for where, text in out if text]


def unmarked(text: str, content: list[str]) -> str:
    """What is left of ``text`` once the marked (translated) parts, the bundle's own words (``content``,
    shown as written), markers of hidden characters and numbers are taken out: letters left over were not
    translated."""
    prev = None
    while prev != text:
        prev, text = text, MARKED.sub(" ", text)
    for piece in sorted(content, key=len, reverse=True):
        if piece:
            text = text.replace(piece, " ")

    def cut_content(match: re.Match[str]) -> str:  # bundle text cut with "…" to fit (a long short label)
        return " " if any(match.group(1) in piece for piece in content) else match.group(0)

    text = re.sub(r"(\S+)…", cut_content, text)
    text = re.sub(r"⟨U\+[0-9A-F]+⟩", " ", text)
    text = re.sub(r"<[^>]*>", " ", text)  # a tooltip's own minimal markup (plain_tooltip)
    return " ".join(re.findall(r"[^\W\d_]{2,}", text))


def cut_off(root: QWidget) -> list[str]:
    """Labels, buttons and tabs narrower (or, wrapped, shorter) than their text needs, once the layouts have
    taken in the latest texts (a label's new text is laid out on the next turn of the event loop: measured
    before that, a status line set a moment ago looks cut off though the rater never sees it so)."""
    for _ in range(5):  # a layout that settles may ask its parent to settle too
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    out = []
    for w in root.findChildren(QWidget):
        if not w.isVisibleTo(root) or not w.isVisible():
            continue
        if isinstance(w, QLabel) and w.text():
            if w.wordWrap():
                need = w.heightForWidth(w.width())
                if need > w.height() + 1:
                    out.append(f"label {w.text()[:50]!r}: {w.height()} px high, needs {need}")
            else:
                text = plain_name(w.text()) if w.buddy() is not None else w.text()
                need = max(w.fontMetrics().horizontalAdvance(line) for line in text.split("\n"))
                room = w.contentsRect().width() - 2 * w.margin() - max(0, w.indent())
                if need > room + 1:
                    out.append(f"label {w.text()[:50]!r}: {room} px wide, needs {need}")
        elif isinstance(w, QAbstractButton) and w.text() and w.width() + 1 < w.sizeHint().width():
            out.append(f"button {w.text()[:50]!r}: {w.width()} px wide, needs {w.sizeHint().width()}")
        elif isinstance(w, QTabBar):  # a tab too narrow for its title shows it cut with "…"
            for i in range(w.count()):
                room, need = w.tabRect(i).width(), w.tabSizeHint(i).width()
                if w.isTabVisible(i) and room + 1 < need:
                    out.append(f"tab {w.tabText(i)[:50]!r}: {room} px wide, needs {need}")
    return out
