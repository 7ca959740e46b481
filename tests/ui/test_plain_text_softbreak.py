"""Very long lines are shown in short paragraphs (spaces become line breaks) without moving any offset.
Added with the benchmarks (docs/PERFORMANCE.md: the 5 MB single-line response)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtGui import QTextCursor

from wmcdp_desktop.ui.plain_text import PlainTextView, soft_breaks


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab \n😀")), max_size=400), st.integers(5, 40))
def test_only_spaces_become_breaks_and_long_lines_are_cut(text: str, every: int) -> None:
    shown = soft_breaks(text, every)
    assert len(shown) == len(text)
    for a, b in zip(text, shown, strict=True):
        assert a == b or (a == " " and b == "\n")
    for line in shown.split("\n"):
        # A line stays longer than `every` only where no space was left to break at.
        assert len(line) <= every or " " not in line[every:]


def test_short_text_is_untouched() -> None:
    text = "Two lines\nof ordinary text with spaces."
    assert soft_breaks(text) is text


def test_a_long_single_line_response_shows_in_paragraphs_and_maps_spans_back(qtbot: object) -> None:
    view = PlainTextView("The response you are rating")
    qtbot.addWidget(view)  # type: ignore[attr-defined]
    words = [f"word{i}" for i in range(60_000)]
    text = " ".join(words)  # about 600 KB, one line
    shown = view.set_untrusted(text)
    doc = view.document()
    assert shown.display == text and "\n" not in text
    assert doc.blockCount() > 100
    assert doc.characterCount() == len(text) + 1
    # Select across the first break: the span maps back to the original text, spaces included.
    first_break = doc.firstBlock().length() - 1
    cursor = view.textCursor()
    cursor.setPosition(first_break - 5)
    cursor.setPosition(first_break + 6, QTextCursor.MoveMode.KeepAnchor)
    view.setTextCursor(cursor)
    span = view.selected_original_span()
    assert span is not None
    start, end = span
    assert text[start:end] == text[first_break - 5 : first_break + 6] and " " in text[start:end]
