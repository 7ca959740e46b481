"""The accessibility tree a window exposes, as assistive technology reads it: Qt's ``QAccessible`` interfaces
(what AT-SPI on Linux, UI Automation on Windows and NSAccessibility on macOS are built from), walked from the
window's interface through ``child()`` the way a screen reader does."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QAccessible, QAccessibleInterface
from PySide6.QtWidgets import QWidget

R = QAccessible.Role
NAMED_ROLES = {
    R.PushButton, R.CheckBox, R.RadioButton, R.Slider, R.ComboBox, R.EditableText, R.PageTab, R.SpinBox,
    R.ButtonMenu, R.ButtonDropDown, R.List, R.ListItem, R.MenuItem, R.ProgressBar, R.ScrollBar,
}
"""Roles a screen reader announces by their name: one without a name is read as "button" or "unlabelled"."""


@dataclass(frozen=True)
class Node:
    path: str
    role: QAccessible.Role
    name: str
    showing: bool
    focused: bool
    object_hidden: bool
    """The node stands for a widget that is not visible (or for an item of one), yet says it is showing."""
    inner_part: bool = False
    """A focused part of a focused control: a scroll area's viewport, the current item of a focused list
    (one control, as screen readers read it: the control and its active part)."""


def _object_hidden(iface: QAccessibleInterface) -> bool:
    obj = iface.object()
    if isinstance(obj, QWidget):
        return not obj.isVisible()
    parent = iface.parent()
    while parent is not None and parent.isValid():  # an item: hidden when the widget it belongs to is
        owner = parent.object()
        if isinstance(owner, QWidget):
            return not owner.isVisible()
        parent = parent.parent()
    return False


def walk(root: QWidget, limit: int = 20_000) -> list[Node]:
    """Every node under ``root``'s accessible interface, depth first, as a screen reader would meet them."""
    start = QAccessible.queryAccessibleInterface(root)
    assert start is not None and start.isValid()
    out: list[Node] = []
    stack: list[tuple[QAccessibleInterface, str, bool]] = [(start, start.text(QAccessible.Text.Name) or "window", False)]
    while stack and len(out) < limit:
        iface, path, parent_focused = stack.pop()
        if iface is None or not iface.isValid():
            continue
        state = iface.state()
        name = iface.text(QAccessible.Text.Name) or ""
        viewport = parent_focused
        out.append(Node(path, iface.role(), name, not state.invisible, bool(state.focused),
                        not state.invisible and _object_hidden(iface), viewport))
        children = [iface.child(i) for i in range(iface.childCount())]
        for child in reversed(children):
            if child is not None and child.isValid():
                label = child.text(QAccessible.Text.Name) or child.role().name
                stack.append((child, f"{path} > {label}"[:300], bool(state.focused)))
    return out


def tree_problems(root: QWidget) -> list[str]:
    """Unnamed controls, more than one focused node, hidden nodes reported as showing."""
    nodes = walk(root)
    problems = []
    for node in nodes:
        if not node.showing:
            continue
        if node.role in NAMED_ROLES and not node.name.strip():
            problems.append(f"unnamed {node.role.name}: {node.path}")
        if node.object_hidden:
            problems.append(f"hidden but reported showing ({node.role.name}): {node.path}")
    # Every focused node counts, the current tab of a tab bar too (Qt's own tab interface reported it focused
    # whatever had the focus; the app's reports it focused only while the tab bar has the focus).
    focused = [n for n in nodes if n.focused and n.showing and not n.inner_part]
    if len(focused) > 1:
        problems.append("more than one focused node: " + "; ".join(f"{n.role.name} {n.path}" for n in focused))
    return problems
