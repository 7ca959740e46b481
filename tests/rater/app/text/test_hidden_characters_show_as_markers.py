"""Safe display of bundle text: markers for hidden/reordering characters, exact span mapping back."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from wmcdp_desktop.rater.app.text.plain_text import DisplayText, needs_marker


def test_bidi_and_zero_width_become_visible_markers() -> None:
    text = "a\u202eb\u200bc\u2066d\u2069\n\te\U0001f600"
    shown = DisplayText.of(text)
    assert shown.display == "a⟨U+202E⟩b⟨U+200B⟩c⟨U+2066⟩d⟨U+2069⟩\n\te\U0001f600"
    assert not any(needs_marker(ch) for ch in shown.display)


def utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab \n\u202e\u200b\u2066\U0001f600é")), max_size=30), st.data())
def test_selection_maps_back_to_code_points(text: str, data: st.DataObject) -> None:
    shown = DisplayText.of(text)
    if not text:
        return
    i = data.draw(st.integers(0, len(text) - 1))
    j = data.draw(st.integers(i + 1, len(text)))
    # select exactly the display of original characters i..j
    start16 = utf16_len(shown.display[: len(DisplayText.of(text[:i]).display)])
    end16 = utf16_len(shown.display[: len(DisplayText.of(text[:j]).display)])
    assert shown.original_span(start16, end16) == (i, j)
    # a selection starting inside a marker covers the whole hidden character
    assert shown.original_span(start16 + 1, end16)[0] in (i, i + 1)


def test_a_very_long_response_loads_fast_and_scrolls(qtbot: object) -> None:
    import time

    from PySide6.QtGui import QTextCursor

    from wmcdp_desktop.rater.app.text.plain_text import PlainTextView

    view = PlainTextView("The response you are rating")
    qtbot.addWidget(view)  # type: ignore[attr-defined]
    text = "A long answer with ünïcödé and 😀 emoji.\n" * 25_000  # about 1 MB
    started = time.perf_counter()
    shown = view.set_untrusted(text)
    view.show()
    assert time.perf_counter() - started < 3.0
    assert shown.display == text and view.document().characterCount() > len(text)
    view.moveCursor(QTextCursor.MoveOperation.End)
    view.ensureCursorVisible()
    bar = view.verticalScrollBar()
    assert bar.maximum() > 1000 and bar.value() >= bar.maximum() - 2
    cursor = view.textCursor()
    cursor.setPosition(cursor.position() - 7, QTextCursor.MoveMode.KeepAnchor)
    view.setTextCursor(cursor)
    start, end = view.selected_original_span()  # type: ignore[misc]
    assert text[start:end] == "emoji.\n"
