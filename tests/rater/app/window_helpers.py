"""Helpers the window tests share: find a widget by its accessible name, read the window's text, open a
bundle or export and wait for the outcome, and the keyboard steps of a rating (set every score, type the
rationale, submit)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QCheckBox, QMainWindow, QPlainTextEdit, QWidget

from wmcdp_desktop.rater.app.form.sliders import DimensionRow
from wmcdp_desktop.rater.app.rating.blinding_question import BlindingQuestion
from wmcdp_desktop.rater.app.window.main_window import MainWindow

W = TypeVar("W", bound=QWidget)

CTRL = Qt.KeyboardModifier.ControlModifier


def by_name(root: QWidget, cls: type[W], name: str) -> W:
    """The one visible widget of ``cls`` under ``root`` whose accessible name is ``name``."""
    found = [w for w in root.findChildren(cls) if w.accessibleName() == name and w.isVisibleTo(root)]
    assert len(found) == 1, f"expected one {cls.__name__} named {name!r}, found {len(found)}"
    return found[0]


def all_text(window: QMainWindow, *, visible_only: bool = False) -> str:
    """Every text the window shows or announces: labels, buttons, tooltips, accessible names, editors, items."""
    from PySide6.QtWidgets import (
        QAbstractButton,
        QComboBox,
        QLabel,
        QLineEdit,
        QListWidget,
        QPlainTextEdit,
        QTableWidget,
        QTextEdit,
    )

    parts = [window.windowTitle()]
    for w in [window, *window.findChildren(QWidget)]:
        if visible_only and not w.isVisibleTo(window):
            continue
        parts += [w.toolTip(), w.accessibleName(), w.accessibleDescription(), w.windowTitle(), w.statusTip()]
        if isinstance(w, QLabel | QAbstractButton | QLineEdit):
            parts.append(w.text())
        if isinstance(w, QPlainTextEdit | QTextEdit):
            parts.append(w.toPlainText())
        if isinstance(w, QComboBox):
            parts += [w.itemText(i) for i in range(w.count())]
        if isinstance(w, QListWidget):
            parts += [w.item(i).text() for i in range(w.count())]
        if isinstance(w, QTableWidget):
            parts += [w.item(r, c).text() for r in range(w.rowCount()) for c in range(w.columnCount()) if w.item(r, c)]
    for action in window.findChildren(__import__("PySide6.QtGui", fromlist=["QAction"]).QAction):
        parts += [action.text(), action.toolTip()]
    return "\n".join(p for p in parts if p)


def rows(window: MainWindow) -> list[DimensionRow]:
    assert window.page is not None
    return list(window.page.form.rubric.rows.values())


def set_all_scores_by_keyboard(qtbot: Any, window: MainWindow, digit: str = "3", skip: str | None = None) -> None:
    for row in rows(window):
        if row.dim.id == skip:
            continue
        row.slider.setFocus()
        qtbot.keyClicks(row.slider, digit)


def type_rationale(qtbot: Any, window: MainWindow, text: str = "Validates, then coaches") -> None:
    show_page(window, "Notes")
    edit = by_name(window, QPlainTextEdit, "Brief rationale (required)")
    edit.setFocus()
    qtbot.keyClicks(edit, text)


def submit_by_keyboard(qtbot: Any, window: MainWindow) -> None:
    qtbot.keyClick(window.focusWidget() or window, Qt.Key.Key_Return, CTRL)


OPEN_TIMEOUT_MS = 20_000


def wait_opened(qtbot: Any, window: MainWindow, *, checked: bool = True) -> None:
    """Wait until the window is not opening a bundle any more (opened, refused or cancelled) and, with
    ``checked``, until the background check of the bundle's files is over (its message, if any, is in)."""
    if window.opening:
        with qtbot.waitSignal(window.openingDone, timeout=OPEN_TIMEOUT_MS):
            pass
    if checked and window.rating is not None and window.rating.checker.busy:
        with qtbot.waitSignal(window.rating.checker.finished, timeout=OPEN_TIMEOUT_MS):
            pass


def open_and_wait(qtbot: Any, window: MainWindow, path: Path) -> bool:
    """Open ``path`` as File > Open does and wait for the outcome; True when a bundle is open afterwards."""
    with qtbot.waitSignal(window.openingDone, timeout=OPEN_TIMEOUT_MS):
        window.open_bundle_path(path)
    wait_opened(qtbot, window)
    return window.session is not None


def export_and_wait(qtbot: Any, window: MainWindow, path: Path) -> bool:
    """Export the results to ``path`` and wait for the outcome; True when the file was written."""
    assert window.rating is not None
    with qtbot.waitSignal(window.rating.exporter.finished, timeout=OPEN_TIMEOUT_MS) as blocker:
        window.rating.export_to(path)
    return bool(blocker.args[0])


def blinding_question(qtbot: Any, window: MainWindow) -> BlindingQuestion:
    """The blinding question the window shows after Submit (waits until it is on screen)."""
    assert window.rating is not None
    qtbot.waitUntil(lambda: window.rating is not None and window.rating.question is not None
                    and window.rating.question.isVisible(), timeout=5000)
    question = window.rating.question
    assert question is not None
    qtbot.waitUntil(question.isActiveWindow, timeout=5000)
    return question


def skip_blinding_question(qtbot: Any, window: MainWindow) -> None:
    """Press Escape on the blinding question (the rating is submitted without an answer)."""
    question = blinding_question(qtbot, window)
    qtbot.keyClick(question.focusWidget() or question, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.rating is not None and window.rating.question is None, timeout=5000)
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)


def bundle_with_blinding_labels(root: Path, sample_docs: Any, labels: list[str]) -> Path:
    """A test bundle whose manifest asks the blinding question with ``labels``."""
    import json

    from tests.kit.bundles import make_bundle

    bundle = make_bundle(root, sample_docs)
    manifest = json.loads((bundle / "bundle.json").read_text(encoding="utf-8"))
    manifest["blinding_check_labels"] = labels
    (bundle / "bundle.json").write_text(json.dumps(manifest), encoding="utf-8")
    return bundle


def show_page(window: MainWindow, title: str) -> None:
    """Show the rating form's page whose tab starts with ``title`` (as a click on its tab)."""
    from PySide6.QtWidgets import QTabWidget

    tabs = by_name(window, QTabWidget, "Rating pages")
    for i in range(tabs.count()):
        if tabs.tabText(i).startswith(title):
            tabs.setCurrentIndex(i)
            return
    raise AssertionError(f"no page {title!r} among {[tabs.tabText(i) for i in range(tabs.count())]}")


def contrast(a: Any, b: Any) -> float:
    """WCAG contrast ratio of two QColors."""

    def luminance(c: Any) -> float:
        def channel(v: float) -> float:
            v /= 255
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * channel(c.red()) + 0.7152 * channel(c.green()) + 0.0722 * channel(c.blue())

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def rendered_text_contrast(widget: QWidget) -> float:
    """The contrast between the background (a pixel just inside the widget) and the colour furthest from it
    among the pixels of the widget as painted: what a reader sees of its text."""
    image = widget.grab().toImage()
    background = image.pixelColor(3, image.height() // 2)
    best = 1.0
    for y in range(3, image.height() - 3):  # inside its frame: the text itself
        for x in range(3, image.width() - 3):
            best = max(best, contrast(background, image.pixelColor(x, y)))
    return best


def click_check(qtbot: Any, box: QCheckBox) -> None:
    """Tick or untick ``box`` with the mouse, on the box itself."""
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(10, box.height() // 2))


def record_files(data_dir: Path) -> list[Path]:
    """Every record file the window wrote in ``data_dir``, sorted."""
    return sorted(data_dir.glob("bundles/*/*/records/*.json"))


def guard_the_machine(monkeypatch: Any, tmp_path: Path, *, rater_dialog: bool = True,
                      resources: bool = False) -> None:
    """Fail the test if a URL is opened, a blocking dialog shown (file dialogs, a question, with
    ``rater_dialog`` the rater id dialog) or, with ``resources``, a document resource loaded (Python-level);
    point the default data folder into the test's tmp folder. Nothing may block or leave the test machine."""
    import pytest
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QDesktopServices, QTextDocument
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    from wmcdp_desktop.rater.app import main as app_module
    from wmcdp_desktop.rater.app.window.rater_dialog import RaterDialog

    def never_open(url: QUrl) -> bool:
        pytest.fail(f"QDesktopServices.openUrl was called with {url.toString()!r}")

    def never_load(self: Any, kind: int, url: QUrl) -> Any:
        pytest.fail(f"a resource was loaded: {url.toString()!r}")

    def no_dialog(*args: Any, **kwargs: Any) -> Any:
        pytest.fail("a blocking dialog was opened in a test")

    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(never_open))
    if resources:
        monkeypatch.setattr(QTextDocument, "loadResource", never_load)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(no_dialog))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(no_dialog))
    monkeypatch.setattr(QMessageBox, "question", staticmethod(no_dialog))  # modal: would wait for a click forever
    if rater_dialog:
        monkeypatch.setattr(RaterDialog, "exec", lambda self: pytest.fail("the rater dialog was opened in a test"))
    monkeypatch.setattr(app_module, "default_data_dir", lambda: tmp_path / "default-data")
