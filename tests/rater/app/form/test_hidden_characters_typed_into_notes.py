"""What the rater types or pastes into a note shows every hidden or reordering character as a marker: a
right-to-left override in a rationale cannot reverse the rest of it on screen (nor hide anything in what the
coordinator reads), and what is stored is what is shown."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QPlainTextEdit

from tests.rater.app.window_helpers import CTRL, by_name, show_page
from wmcdp_desktop.rater.app.window.main_window import MainWindow

PASTES = [
    ("calm \u202eesrever\u202c end", "calm ⟨U+202E⟩esrever⟨U+202C⟩ end"),
    ("a\u2066b\u2069c \u200bd", "a⟨U+2066⟩b⟨U+2069⟩c ⟨U+200B⟩d"),
    ("\u05e9\u05dc\u05d5\u05dd\u200f ok", "\u05e9\u05dc\u05d5\u05dd\u200f ok"),  # a mark doing its job in Hebrew
    ("👩\u200d⚕️ fine", "👩\u200d⚕️ fine"),  # an emoji sequence
    ("line one\nline two", "line one\nline two"),
]


@pytest.fixture
def window(make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path) -> MainWindow:
    return make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])


@pytest.mark.parametrize(("pasted", "shown"), PASTES)
def test_a_pasted_override_in_the_rationale_is_shown_as_a_marker(
    qtbot: Any, window: MainWindow, pasted: str, shown: str
) -> None:
    assert window.session is not None and window.session.current is not None
    show_page(window, "Notes")
    edit = by_name(window, QPlainTextEdit, "Brief rationale (required)")
    edit.setFocus()
    qtbot.keyClicks(edit, "Note: ")
    QApplication.clipboard().setText(pasted)
    qtbot.keyClick(edit, Qt.Key.Key_V, CTRL)
    qtbot.keyClicks(edit, "!")  # the caret stayed after the paste
    assert edit.toPlainText() == "Note: " + shown + "!"
    assert window.session.current.notes["brief_rationale"] == "Note: " + shown + "!"


def test_a_typed_override_in_an_evidence_note_is_shown_as_a_marker(qtbot: Any, window: MainWindow) -> None:
    assert window.session is not None and window.session.current is not None
    show_page(window, "Failure modes")
    row = next(iter(window.page.form.failure_modes.rows.values())) if window.page else None
    assert row is not None
    qtbot.mouseClick(row.check, Qt.MouseButton.LeftButton, pos=QPoint(10, row.check.height() // 2))
    row.note.setFocus()
    qtbot.keyClicks(row.note, "x")
    QApplication.clipboard().setText("\u202e")
    qtbot.keyClick(row.note, Qt.Key.Key_V, CTRL)
    qtbot.keyClicks(row.note, "y")
    qtbot.waitUntil(lambda: row.note.text() == "x⟨U+202E⟩y", timeout=2000)
    assert window.session.current.fm(row.fm.id).note == "x⟨U+202E⟩y"
