"""Small widgets the window's parts share: a choice box that ignores the wheel, the plain message box, the
problem shown next to a control, a row of two widgets that wraps, and the scroll area that keeps a page
whole on a screen smaller than its narrowest layout. (The window's size is screen_fit.py's: the first paint
needs it before any of these.)"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QKeyEvent, QWheelEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QLayout,
    QLayoutItem,
    QMessageBox,
    QScrollArea,
    QStyle,
    QWidget,
)

from wmcdp_desktop.rater.app.text.accessible import items_hidden_with_view, name_scroll_bars
from wmcdp_desktop.rater.app.text.plain_text import PlainLabel
from wmcdp_desktop.rater.app.text.theme import problem_color, set_fg

# ----- A combo box that ignores the mouse wheel unless it has focus (scrolling the form never changes a choice).

class ChoiceBox(QComboBox):
    """A drop-down that the wheel changes only while it has the focus; Up and Down choose the previous or next
    item in place (on some desktops Qt opens the list instead, and the text typed next went into the closed
    list, lost); Alt+Down, F4 or a click open the list. Its list's items are not reported to screen readers
    while it is closed (:func:`~wmcdp_desktop.rater.app.text.accessible.items_hidden_with_view`)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        items_hidden_with_view(self.view())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key, mods = event.key(), event.modifiers()
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down) and not mods & Qt.KeyboardModifier.AltModifier and self.count():
            step = 1 if key == Qt.Key.Key_Down else -1
            index = (0 if step > 0 else self.count() - 1) if self.currentIndex() < 0 else self.currentIndex() + step
            index = next((i for i in range(index, self.count() if step > 0 else -1, step)
                          if self.model().flags(self.model().index(i, 0)) & Qt.ItemFlag.ItemIsEnabled), -1)
            if index >= 0 and index != self.currentIndex():
                self.setCurrentIndex(index)
                self.activated.emit(index)
            event.accept()
            return
        super().keyPressEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()


# ----- The app's message box: plain text (never interpreted), not blocking, deleted when closed.

def open_message(parent: QWidget, title: str, text: str, *, error: bool = False) -> QMessageBox:
    """Show ``text`` in a window-modal message box that does not block the caller."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning if error else QMessageBox.Icon.Information)
    box.setWindowTitle(title)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(text)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


# ----- The small message shown next to a control when submitting found a problem with it.

class ProblemLabel(PlainLabel):
    """Hidden until :meth:`show_problem`; accessible name = the visible message."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.setObjectName("problem")
        self.hide()

    def show_problem(self, message: str) -> None:
        set_fg(self, problem_color(self))
        text = f"⚠ {message}"
        self.setText(text)
        self.setAccessibleName(text)
        self.show()

    def clear_problem(self) -> None:
        self.setText("")
        self.setAccessibleName("")
        self.hide()


# ----- A row of two widgets that wraps: side by side, the second at the far end, when the width has room for both
# as they would like to be; else the second under the first, at the far end. The form's top strip (the timer,
# then "Flag for coordinator" and "Cannot rate this task") keeps to one line on a wide form and takes a second
# line on a narrow one (a longer language, larger text, the rubric help open on a laptop) instead of wrapping
# the timer's words into a tall column or widening the window past the screen.

class WrapRow(QLayout):
    """Lays out two items (add them with ``addWidget``): see the module docstring. ``fill``: the second takes
    the rest of the line (on one line) or the whole width (under the first), instead of its own width at the
    far end (a text field after its label)."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6, *, fill: bool = False) -> None:
        super().__init__(parent)
        self.fill = fill
        self._items: list[QLayoutItem] = []
        self.setSpacing(spacing)
        self.setContentsMargins(0, 0, 0, 0)

    # ----- QLayout -------------------------------------------------------------------------------------
    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), apply=False)

    def sizeHint(self) -> QSize:
        shown = self._shown()
        width = sum(i.sizeHint().width() for i in shown) + self.spacing() * max(0, len(shown) - 1)
        return QSize(width, max((i.sizeHint().height() for i in shown), default=0))

    def minimumSize(self) -> QSize:
        width = max((i.minimumSize().width() for i in self._shown()), default=0)
        return QSize(width, self.heightForWidth(width))

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, apply=True)

    # ----- placing -------------------------------------------------------------------------------------
    def _shown(self) -> list[QLayoutItem]:
        return [i for i in self._items if not i.isEmpty()]

    def one_line(self, width: int) -> bool:
        """Whether both items fit side by side in ``width`` pixels (a filling second item: at its minimum)."""
        shown = self._shown()
        if len(shown) < 2:
            return True
        second = shown[1].minimumSize().width() if self.fill else shown[1].sizeHint().width()
        return shown[0].sizeHint().width() + self.spacing() + second <= width

    @staticmethod
    def _height(item: QLayoutItem, width: int) -> int:
        return item.heightForWidth(width) if item.hasHeightForWidth() else item.sizeHint().height()

    def _arrange(self, rect: QRect, *, apply: bool) -> int:
        """Place the items in ``rect`` (when ``apply``); the height they take."""
        shown = self._shown()
        if not shown:
            return 0
        width = rect.width()
        widget = self.parentWidget()
        direction = widget.layoutDirection() if widget is not None else Qt.LayoutDirection.LeftToRight
        places: list[QRect] = []
        if self.one_line(width):
            widths = [i.sizeHint().width() for i in shown]
            if len(shown) == 2 and self.fill:
                widths[1] = max(0, width - widths[0] - self.spacing())  # the second takes what is left
            elif len(shown) == 2:
                widths[0] = max(0, width - widths[1] - self.spacing())  # the first takes what is left
            height = max(self._height(i, w) for i, w in zip(shown, widths, strict=True))
            x = rect.x()
            for n, (item, w) in enumerate(zip(shown, widths, strict=True)):
                if n == len(shown) - 1 and n > 0:
                    x = rect.right() + 1 - w  # the last one at the far end
                h = self._height(item, w)
                places.append(QRect(QPoint(x, rect.y() + (height - h) // 2), QSize(w, h)))
                x += w + self.spacing()
            total = height
        else:
            y = rect.y()
            for n, item in enumerate(shown):
                w = width if n > 0 and self.fill else min(width, item.sizeHint().width())
                h = self._height(item, w)
                x = rect.x() if n == 0 or self.fill else rect.right() + 1 - w
                places.append(QRect(x, y, w, h))
                y += h + self.spacing()
            total = y - self.spacing() - rect.y()
        if apply:
            for item, place in zip(shown, places, strict=True):
                item.setGeometry(QStyle.visualRect(direction, rect, place))
        return total


def scroll_when_too_small(widget: QWidget, name: str) -> QScrollArea:
    """``widget`` in a scroll area, named ``name`` (its scroll bars too), that scrolls only when it is smaller
    than ``widget``'s narrowest layout; the controls inside take the focus. The window's content is in one (long
    translations with large text on a small laptop: its parts that do not scroll themselves, such as banners,
    the tabs and Submit, are then reached by scrolling, never cut off by the screen's edge), and so is each page
    of the form."""
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the controls inside take the focus, not the area
    area.setAccessibleName(name)
    name_scroll_bars(area, name)
    area.setWidget(widget)
    return area
