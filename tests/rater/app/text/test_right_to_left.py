"""Right-to-left: the layout mirrors under an Arabic or Hebrew locale; in bundle text, ordinary direction
marks inside right-to-left text work as marks while controls that reorder or hide text stay visible."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import QApplication

from wmcdp_desktop.rater.app.text.i18n import install_translators
from wmcdp_desktop.rater.app.text.plain_text import DisplayText, safe_line
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.settings import Settings, save_settings

HEBREW = "שלום"
ARABIC = "مرحبا"


@pytest.mark.parametrize("language", ["ar", "he", "fa"])
def test_a_right_to_left_language_mirrors_the_window(
    language: str, make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    assert QLocale(language).textDirection() == Qt.LayoutDirection.RightToLeft
    save_settings(data_dir, Settings(language=language))  # as if chosen in Settings > Language
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    assert QApplication.layoutDirection() == Qt.LayoutDirection.RightToLeft
    assert window.isRightToLeft() and window.page is not None and window.page.form.isRightToLeft()
    page = window.page
    # the task list is drawn on the right, the rating form on the left
    assert page.task_list.mapTo(window, page.task_list.rect().topLeft()).x() > page.form.mapTo(window, page.form.rect().topLeft()).x()


def test_a_left_to_right_language_does_not_mirror(make_window: Callable[..., MainWindow], data_dir: Path) -> None:
    install_translators("es")
    assert QApplication.layoutDirection() == Qt.LayoutDirection.LeftToRight
    assert QLocale().language() == QLocale.Language.Spanish


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (f"{HEBREW}\u200f 123", f"{HEBREW}\u200f 123"),  # RLM after Hebrew: a mark
        (f"123 \u200f{HEBREW}", f"123 \u200f{HEBREW}"),  # before Hebrew
        (f"{ARABIC}\u061c 5%", f"{ARABIC}\u061c 5%"),  # ALM in Arabic
        (f"{HEBREW} \u200eABC\u200e {HEBREW}", f"{HEBREW} \u200eABC\u200e {HEBREW}"),  # LRM around Latin in Hebrew
        ("می\u200cخواهم", "می\u200cخواهم"),  # Persian ZWNJ between letters
        ("plain\u200f text", "plain⟨U+200F⟩ text"),  # a mark in left-to-right text: visible
        ("\u200f", "⟨U+200F⟩"),
        (f"{HEBREW}\u202e123", f"{HEBREW}⟨U+202E⟩123"),  # override: always visible
        (f"{ARABIC}\u2067x\u2069", f"{ARABIC}⟨U+2067⟩x⟨U+2069⟩"),  # isolates: always visible
        (f"{HEBREW}\u202b!\u202c", f"{HEBREW}⟨U+202B⟩!⟨U+202C⟩"),  # embedding: always visible
        ("pay\u200bpal", "pay⟨U+200B⟩pal"),  # zero-width space: visible anywhere
        ("a\u200db", "a⟨U+200D⟩b"),  # ZWJ between Latin letters: visible
        (f"{ARABIC}\u200b{ARABIC}", f"{ARABIC}⟨U+200B⟩{ARABIC}"),  # ZWSP is not a joiner: visible
        ("\u200c" + ARABIC, "⟨U+200C⟩" + ARABIC),  # a joiner with a letter on one side only: visible
    ],
)
def test_direction_marks_work_inside_right_to_left_text_and_controls_stay_visible(text: str, shown: str) -> None:
    assert safe_line(text) == shown
    display = DisplayText.of(text)
    assert display.original_span(0, len(display.display.encode("utf-16-le")) // 2) == (0, len(text))
