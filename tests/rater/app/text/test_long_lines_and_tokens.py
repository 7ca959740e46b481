"""Very long lines and unbroken tokens are shown in lines of at most LINE_MAX characters without losing or
moving a character (issue 13 item 4: one 300 KB token took 19 s to show, 1 MB 112 s, 5 MB over 3 minutes);
a text longer than MAX_SHOWN_CHARS shows its beginning and says how much is not shown.

The tests assert the mechanism (the document Qt lays out has no line longer than LINE_MAX), not a time:
docs/PERFORMANCE.md and benchmarks/ measure how fast it is."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QLocale
from PySide6.QtGui import QTextCursor

from wmcdp_desktop.rater.app.text import plain_text
from wmcdp_desktop.rater.app.text.plain_text import (
    LINE_MAX,
    MAX_SHOWN_CHARS,
    DisplayText,
    PlainTextView,
    safe_line,
)


def shown_lines(view: PlainTextView) -> list[int]:
    """The length of every paragraph of the view's document (what Qt lays out as one)."""
    lengths = []
    block = view.document().firstBlock()
    while block.isValid():
        lengths.append(block.length() - 1)
        block = block.next()
    return lengths


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab \n😀\u0301\u200b\u200d\u200f\u0628")), max_size=300), st.integers(3, 25))
def test_no_line_is_longer_than_the_limit_and_every_character_maps_back(text: str, line_max: int) -> None:
    shown = DisplayText(text, line_max=line_max)
    marker_room = len("⟨U+200B⟩") + 16  # a marker shows as 8 characters; a run of combining marks may follow a cut
    assert all(len(line) <= line_max * marker_room for line in shown.display.split("\n"))
    plain = DisplayText(text.translate(dict.fromkeys(map(ord, "\u200b\u200d\u200f"), "x")), line_max=line_max)
    assert all(len(line) <= line_max + 16 for line in plain.display.split("\n"))
    # Every original character is shown where display_offset says, as itself or its marker (a space may
    # be shown as a line break; an inserted line break sits just before its character).
    utf16 = shown.display.encode("utf-16-le")
    for i, ch in enumerate(text):
        at = shown.display_offset(i)
        end = shown.display_offset(i + 1)
        piece = utf16[2 * at:2 * end].decode("utf-16-le")
        marked = plain_text.needs_marker(ch) and not plain_text.kept_as_mark(text, i)  # (a mark inside RTL text)
        expected = plain_text.marker(ch) if marked else ch
        assert piece in (expected, "\n" + expected) or (ch == " " and piece in ("\n", "\n\n")), (i, ch, piece)
        assert shown.original_span(at, end) == (i, i + 1)


def test_a_long_single_line_of_words_shows_in_lines_and_maps_spans_back(qtbot: Any) -> None:
    view = PlainTextView("The response you are rating")
    qtbot.addWidget(view)
    text = " ".join(f"word{i}" for i in range(60_000))  # about 600 KB, one line
    shown = view.set_untrusted(text)
    assert shown.display.replace("\n", " ") == text  # only spaces became line breaks
    assert max(shown_lines(view)) <= LINE_MAX and len(shown_lines(view)) > 100
    first_break = view.document().firstBlock().length() - 1
    cursor = view.textCursor()
    cursor.setPosition(first_break - 5)
    cursor.setPosition(first_break + 6, QTextCursor.MoveMode.KeepAnchor)
    view.setTextCursor(cursor)
    span = view.selected_original_span()
    assert span is not None and text[span[0]:span[1]] == text[first_break - 5:first_break + 6]


def test_one_unbroken_token_of_a_megabyte_is_shown_in_lines_with_every_character(qtbot: Any) -> None:
    view = PlainTextView("The response you are rating")
    qtbot.addWidget(view)
    token = "".join(chr(0x61 + i % 26) for i in range(1_000_000))  # one "word", no space anywhere
    shown = view.set_untrusted(token)
    lines = shown_lines(view)
    assert max(lines) <= LINE_MAX and sum(lines) == len(token)  # break opportunities, no character lost
    assert shown.display.replace("\n", "") == token
    # A selection across an inserted break maps back to the same characters of the token.
    doc_break = view.document().firstBlock().length() - 1
    cursor = view.textCursor()
    cursor.setPosition(doc_break - 3)
    cursor.setPosition(doc_break + 4, QTextCursor.MoveMode.KeepAnchor)
    view.setTextCursor(cursor)
    span = view.selected_original_span()
    assert span is not None and token[span[0]:span[1]] == token[LINE_MAX - 3:LINE_MAX + 3]
    view.show()
    qtbot.waitExposed(view)
    view.moveCursor(QTextCursor.MoveOperation.End)  # lays out and paints the end
    view.ensureCursorVisible()
    assert view.verticalScrollBar().value() > 0


def test_a_text_longer_than_the_app_shows_is_cut_with_a_note(qtbot: Any) -> None:
    view = PlainTextView("The response you are rating")
    qtbot.addWidget(view)
    text = "x" * (MAX_SHOWN_CHARS + 12_345)
    shown = view.set_untrusted(text)
    assert shown.shown_length == MAX_SHOWN_CHARS and shown.omitted == 12_345
    n = QLocale().toString  # numbers as the rater's locale writes them
    assert view.toPlainText().endswith(
        f"[Not shown: the last {n(12_345)} characters of this text. The app shows the first {n(MAX_SHOWN_CHARS)} "
        "characters of any one text; ask your study coordinator about the rest.]"
    )
    cursor = view.textCursor()
    cursor.setPosition(0)
    cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)  # into the note
    view.setTextCursor(cursor)
    assert view.selected_original_span() == (0, MAX_SHOWN_CHARS)  # evidence never points past what was shown


def test_labels_are_cut_and_broken_so_a_huge_rubric_text_cannot_widen_or_freeze_the_window() -> None:
    label = safe_line("L" * 50_000)
    note = f"… ({QLocale().toString(48_000)} more characters not shown)"
    assert label.endswith(note)
    assert max(len(line) for line in label.split("\n")) <= 200 + len(note)
    assert safe_line("Emotional attunement") == "Emotional attunement"
    prose = " ".join(["A sentence of an ordinary rubric description."] * 30)  # 1,400 characters, one line
    assert safe_line(prose) == prose  # a label wraps at spaces itself: none is turned into a break
    word = "https://example.invalid/" + "x" * 500
    assert safe_line(f"see {word} here").split("\n")[0] == f"see {word[:200]}"
