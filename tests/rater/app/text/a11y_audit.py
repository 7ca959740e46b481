"""An accessibility audit of a real window or dialog, as a screen-reader and keyboard user meets it.

:func:`audit` walks every widget shown under a top-level window and returns the problems found (an empty
list when there are none):

- **name**: an interactive widget (one that takes the keyboard focus) whose accessible interface reports no
  name; a tab stop without a name;
- **duplicate**: two interactive widgets with the same accessible name in one window (a screen reader
  could not tell them apart);
- **value**: a value reported to assistive technology (``QAccessibleInterface.text(Value)``, the value
  interface, the checked state) that differs from what the widget shows;
- **tab**: an interactive widget that pressing Tab (real key presses, from the first control round to it
  again) never reaches;
- **contrast**: text below 4.5:1 against its background (3:1 for large text: 18 pt, or 14 pt bold), taken
  from the widget's palette, and, for labels and the widgets that paint their own text (the level labels
  under each slider), from the pixels Qt draws (``grab()``: a palette can say one thing while a style or a
  paint event draws another).

Disabled widgets are left out, as WCAG leaves out inactive controls. Other UI tests can reuse it:
``assert audit(window) == []``. :func:`dark_palette` is a dark desktop palette to audit under.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible, QColor, QImage, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QTabBar,
    QTextEdit,
    QWidget,
)

from wmcdp_desktop.rater.app.form.sliders import ScaleLabels
from wmcdp_desktop.rater.app.text.accessible import SHOWN_VALUE, UNSET
from wmcdp_desktop.rater.app.text.theme import LARGE_CONTRAST, TEXT_CONTRAST, blend, contrast

DRAWS_ITS_TEXT = (ScaleLabels,)
"""Widgets that paint their text themselves (no palette role or style says how it looks: only its pixels)."""

INTERACTIVE = (
    QAbstractButton,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QAbstractItemView,
    QTabBar,
)


@dataclass(frozen=True)
class Finding:
    kind: str
    widget: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.widget}: {self.detail}"


def describe(w: QWidget) -> str:
    name = w.accessibleName() or getattr(w, "text", lambda: "")() or w.objectName()
    return f"{type(w).__name__} {str(name)[:60]!r}"


def shown(w: QWidget, root: QWidget) -> bool:
    return w.isVisible() and (w is root or w.isVisibleTo(root)) and w.width() > 0 and w.height() > 0


def interactive(root: QWidget) -> list[QWidget]:
    """The widgets a keyboard user can move to with Tab (shown, enabled, taking Tab focus)."""
    out = []
    for w in root.findChildren(QWidget):
        if not shown(w, root) or not w.isEnabled() or not (w.focusPolicy() & Qt.FocusPolicy.TabFocus):
            continue
        if w.focusProxy() is not None:
            continue  # its proxy is the tab stop
        if isinstance(w.parent(), QAbstractSpinBox | QComboBox):
            continue  # the line edit inside an editable box: the box is the control
        out.append(w)
    return out


def accessible_name(w: QWidget) -> str:
    iface = QAccessible.queryAccessibleInterface(w)
    return "" if iface is None else iface.text(QAccessible.Text.Name).strip()


# ----- names -----------------------------------------------------------------------------------------------
def check_names(root: QWidget, controls: list[QWidget]) -> list[Finding]:
    out: list[Finding] = []
    names: dict[str, list[QWidget]] = {}
    for w in controls:
        name = accessible_name(w)
        if not name:
            out.append(Finding("name", describe(w), "an interactive widget (a tab stop) without an accessible name"))
            continue
        names.setdefault(name.casefold(), []).append(w)
    for name, same in names.items():
        if len(same) > 1:
            out.append(Finding("duplicate", describe(same[0]), f"{len(same)} controls are all named {name!r}"))
    return out


# ----- values ----------------------------------------------------------------------------------------------
def check_values(root: QWidget, controls: list[QWidget]) -> list[Finding]:
    out: list[Finding] = []
    for w in controls:
        iface = QAccessible.queryAccessibleInterface(w)
        if iface is None:
            continue
        value = iface.text(QAccessible.Text.Value)
        problem = None
        if isinstance(w, QAbstractSlider):
            if w.property(UNSET) is True:
                if value != w.property(SHOWN_VALUE):
                    problem = f"reports {value!r}, shows {w.property(SHOWN_VALUE)!r}"
                elif iface.valueInterface() is not None:
                    problem = "an unset slider reports a numeric value"
            else:
                vi = iface.valueInterface()
                reported = vi.currentValue() if vi is not None else None
                shown_text = w.property(SHOWN_VALUE)
                if reported != w.value():
                    problem = f"reports {reported!r}, its value is {w.value()}"
                elif shown_text is not None and not str(shown_text).startswith(str(w.value())):
                    problem = f"reports {reported!r}, shows {shown_text!r}"
        elif isinstance(w, QComboBox):
            expected = w.currentText() if w.currentIndex() >= 0 else ""
            if value not in (expected, w.placeholderText() if w.currentIndex() < 0 else expected):
                problem = f"reports {value!r}, shows {expected or w.placeholderText()!r}"
        elif isinstance(w, QCheckBox | QRadioButton):
            checked = bool(iface.state().checked)
            if checked != w.isChecked():
                problem = f"reports checked={checked}, shows checked={w.isChecked()}"
        elif isinstance(w, QLineEdit) and w.echoMode() == QLineEdit.EchoMode.Normal and value != w.text():
            problem = f"reports {value!r}, shows {w.text()!r}"
        if problem:
            out.append(Finding("value", describe(w), problem))
    for bar in (w for w in root.findChildren(QProgressBar) if shown(w, root)):
        text = QAccessible.queryAccessibleInterface(bar).text(QAccessible.Text.Value)
        if text and text not in bar.text():
            out.append(Finding("value", describe(bar), f"reports {text!r}, shows {bar.text()!r}"))
    return out


# ----- Tab -------------------------------------------------------------------------------------------------
def tab_walk(root: QWidget, limit: int = 400) -> list[QWidget]:
    """The widgets the focus visits pressing Tab from the first control until it comes round again."""
    root.activateWindow()
    QApplication.processEvents()
    first = next(iter(interactive(root)), None)
    if first is None:
        return []
    first.setFocus(Qt.FocusReason.TabFocusReason)
    QApplication.processEvents()
    start = QApplication.focusWidget()
    seen: list[QWidget] = []
    current = start
    for _ in range(limit):
        if current is None:
            break
        seen.append(current)
        QTest.keyClick(current, Qt.Key.Key_Tab)
        QApplication.processEvents()
        current = QApplication.focusWidget()
        if current is start:
            break
    return seen


def check_tab(root: QWidget, controls: list[QWidget]) -> list[Finding]:
    reached = set(tab_walk(root))
    out = [Finding("tab", describe(w), "never reached by Tab") for w in controls if w not in reached]
    out += [Finding("name", describe(w), "a tab stop without a name") for w in reached if not accessible_name(w)]
    return out


# ----- contrast --------------------------------------------------------------------------------------------
def background_of(w: QWidget) -> QColor:
    """The colour behind ``w``'s text: its own or the nearest ancestor's filled background, else the window's."""
    node: QWidget | None = w
    while node is not None:
        if node.autoFillBackground() or node.isWindow():
            return node.palette().color(QPalette.ColorGroup.Active, node.backgroundRole())
        node = node.parentWidget()
    return w.palette().color(QPalette.ColorRole.Window)


def large(w: QWidget) -> bool:
    f = w.font()
    points = f.pointSizeF()
    return points >= 18 or (points >= 14 and f.bold())


def _pair(w: QWidget) -> tuple[QColor, QColor] | None:
    pal, group = w.palette(), QPalette.ColorGroup.Active
    if isinstance(w, QLineEdit | QPlainTextEdit | QTextEdit | QAbstractItemView | QComboBox):
        if isinstance(w, QComboBox) and not w.isEditable():
            return pal.color(group, QPalette.ColorRole.ButtonText), pal.color(group, QPalette.ColorRole.Button)
        return pal.color(group, QPalette.ColorRole.Text), pal.color(group, QPalette.ColorRole.Base)
    if isinstance(w, QPushButton):
        return pal.color(group, QPalette.ColorRole.ButtonText), pal.color(group, QPalette.ColorRole.Button)
    if isinstance(w, (QLabel, QAbstractButton, QGroupBox, QTabBar, QProgressBar, *DRAWS_ITS_TEXT)):
        return pal.color(group, w.foregroundRole()), background_of(w)
    return None


def _has_text(w: QWidget) -> bool:
    if isinstance(w, QLabel):
        return bool(w.text().strip()) and w.pixmap().isNull()
    if isinstance(w, QAbstractButton):
        return bool(w.text().strip())
    if isinstance(w, QGroupBox):
        return bool(w.title().strip())
    return isinstance(
        w, (QLineEdit, QPlainTextEdit, QTextEdit, QAbstractItemView, QComboBox, QTabBar, *DRAWS_ITS_TEXT)
    )


def drawn_contrast(w: QWidget) -> float | None:
    """The contrast of the text pixels Qt draws for a label: the most frequent colour is the background, the
    colour farthest from it the text (anti-aliasing only blends between the two)."""
    image = w.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    if image.isNull() or image.width() < 2 or image.height() < 2:
        return None
    counts: Counter[int] = Counter()
    step = max(1, image.width() * image.height() // 40000)
    for i in range(0, image.width() * image.height(), step):
        counts[image.pixel(i % image.width(), i // image.width())] += 1
    if len(counts) < 2:
        return None
    bg = QColor.fromRgb(counts.most_common(1)[0][0])
    text = max((QColor.fromRgb(p) for p in counts), key=lambda c: contrast(c, bg))
    return contrast(text, bg)


def check_contrast(root: QWidget) -> list[Finding]:
    out: list[Finding] = []
    widgets = [root, *root.findChildren(QWidget)]
    for w in widgets:
        if not shown(w, root) or not w.isEnabled() or not _has_text(w):
            continue
        pair = _pair(w)
        if pair is None:
            continue
        fg, bg = pair
        need = LARGE_CONTRAST if large(w) else TEXT_CONTRAST
        ratio = contrast(fg, bg)
        if ratio < need:
            out.append(Finding("contrast", describe(w), f"{blend(fg, bg).name()} on {bg.name()}: {ratio:.2f}:1 < {need}:1"))
            continue
        if isinstance(w, QAbstractItemView):
            pal = w.palette()
            sel = contrast(pal.color(QPalette.ColorRole.HighlightedText), pal.color(QPalette.ColorRole.Highlight))
            if sel < TEXT_CONTRAST:
                out.append(Finding("contrast", describe(w), f"selected row {sel:.2f}:1 < {TEXT_CONTRAST}:1"))
            if isinstance(w, QComboBox):
                continue
        if isinstance(w, (QLabel, *DRAWS_ITS_TEXT)):
            drawn = drawn_contrast(w)
            if drawn is not None and drawn < need:
                out.append(Finding("contrast", describe(w), f"drawn {drawn:.2f}:1 < {need}:1"))
    return out


# ----- all -------------------------------------------------------------------------------------------------
def audit(root: QWidget, *, tab: bool = True) -> list[Finding]:
    """Every problem found in the top-level widget ``root`` as it is shown now (see the module docstring)."""
    QApplication.processEvents()
    controls = interactive(root)
    findings = check_names(root, controls) + check_values(root, controls) + check_contrast(root)
    if tab:
        findings += check_tab(root, controls)
    return findings


def dark_palette() -> QPalette:
    """A dark desktop palette (as a dark system theme gives Qt's Fusion style)."""
    p = QPalette()
    role = QPalette.ColorRole
    for r, colour in (
        (role.Window, "#2b2b2b"), (role.WindowText, "#f0f0f0"), (role.Base, "#1f1f1f"),
        (role.AlternateBase, "#323232"), (role.Text, "#f0f0f0"), (role.Button, "#3a3a3a"),
        (role.ButtonText, "#f0f0f0"), (role.Highlight, "#3d8ee0"), (role.HighlightedText, "#ffffff"),
        (role.ToolTipBase, "#3a3a3a"), (role.ToolTipText, "#f0f0f0"), (role.Link, "#6cb4ff"),
        (role.PlaceholderText, "#8a8a8a"), (role.BrightText, "#ff6b6b"), (role.Light, "#505050"),
        (role.Midlight, "#404040"), (role.Mid, "#303030"), (role.Dark, "#202020"), (role.Shadow, "#000000"),
    ):
        p.setColor(r, QColor(colour))
    for r in (role.WindowText, role.Text, role.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, r, QColor("#7a7a7a"))
    return p
