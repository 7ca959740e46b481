"""Responses and scenario turns are shown as their reader saw them (markdown rendered: headings, emphasis,
lists, tables), safely (raw HTML shown as text, no link followable, no image or other resource loaded), or,
with "Show as plain text" (remembered) or a study that asks for it, as the exact source. Evidence quotes
selected in the rendered text are stored as offsets into the original text."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QTextCursor, QTextDocument, QTextTable
from PySide6.QtWidgets import QCheckBox

from tests.kit.bundles import bundle_docs, write_bundle_folder
from tests.rater.app.markdown_answers import MARKDOWN_ANSWER, PLAIN_ANSWER
from tests.rater.app.window_helpers import by_name, show_page
from wmcdp_desktop.rater.app.text.markdown import BundleTextView
from wmcdp_desktop.rater.app.text.plain_text import DisplayText
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.settings import load_settings

SHIFT = Qt.KeyboardModifier.ShiftModifier


def click_check(qtbot: Any, box: QCheckBox) -> None:
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(10, box.height() // 2))


def markdown_bundle(root: Path, sample_docs: Any, **manifest_fields: Any) -> Path:
    rubric, tasks = bundle_docs(sample_docs)
    first = tasks[0]
    first["candidate_response_text"] = MARKDOWN_ANSWER
    first["scenario"]["turns"][0]["text"] = "My son **won't sleep** alone:\n\n- he cries\n- he checks the locks"
    other = copy.deepcopy(first)
    other["task_id"] = "T-0009"
    other["candidate_response_id"] = "cr-9a9a9a"
    other["candidate_response_text"] = PLAIN_ANSWER
    bundle = write_bundle_folder(root, rubric, [first, other, *tasks[1:]])
    if manifest_fields:
        manifest = json.loads((bundle / "bundle.json").read_text(encoding="utf-8"))
        manifest.update(manifest_fields)
        (bundle / "bundle.json").write_text(json.dumps(manifest), encoding="utf-8")
    return bundle


def fragments(doc: QTextDocument) -> list[tuple[str, Any]]:
    out = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            out.append((frag.text(), frag.charFormat()))
            it += 1
        block = block.next()
    return out


def tables(doc: QTextDocument) -> list[QTextTable]:
    found: list[QTextTable] = []
    stack = [doc.rootFrame()]
    while stack:
        frame = stack.pop()
        found += [f for f in frame.childFrames() if isinstance(f, QTextTable)]
        stack += frame.childFrames()
    return found


@pytest.fixture
def window(make_window: Callable[..., MainWindow], tmp_path: Path, sample_docs: Any, data_dir: Path) -> MainWindow:
    bundle = markdown_bundle(tmp_path / "bundle", sample_docs)
    w = make_window([str(bundle), "--data-dir", str(data_dir), "--rater", "R01"])
    w.resize(1440, 900)
    return w


def test_a_markdown_answer_is_rendered_and_nothing_in_it_is_live(window: MainWindow) -> None:
    assert window.page is not None
    view = window.page.task_view.response
    shown = view.toPlainText()
    # rendered: no markdown marks, the words kept, a real table with its three rows
    for mark in ("**", "###", "| Step", "|---", "- **Same", "> Progress"):
        assert mark not in shown
    for words in ("Supporting Sam with night-time worries", "both of you", "Sit by the door", "Progress is rarely"):
        assert words in shown
    [table] = tables(view.document())
    assert (table.rows(), table.columns()) == (4, 3)
    heading = view.document().find("Supporting Sam")
    assert heading.blockFormat().headingLevel() == 3
    bold = view.document().find("both")
    assert bold.charFormat().fontWeight() >= 600
    # raw HTML is text, entities are their character, emoji are kept (sequences whole)
    assert "<script>alert('hi')</script> <b>Not bold</b> <a href=\"https://evil.invalid\">click</a>" in shown
    assert "❤️ & rest" in shown and "👩\u200d⚕️" in shown and "🪜" in shown
    # nothing live: no link target, no image, no tooltip anywhere; the addresses written out as text
    for _text, fmt in fragments(view.document()):
        assert not fmt.isAnchor() and not fmt.anchorHref() and not fmt.isImageFormat() and not fmt.toolTip()
    assert "[link: https://www.nhs.uk/mental-health/children-and-young-adults/]" in shown
    assert "[image not shown: A calm bedroom (file:///etc/hosts)]" in shown
    assert "https://www.anxietycanada.com [link:" not in shown  # an autolink is its own address
    # and the plain answer of the other response is shown the same way: as its paragraphs
    assert window.rating is not None and window.rating.go_to("T-0009")
    assert view.toPlainText() == PLAIN_ANSWER.replace("\n\n", "\n")


def test_no_resource_is_ever_loaded(qtbot: Any, tmp_path: Path) -> None:
    """An image naming a real local file, a data: address and a remote one: none is read, all are text."""
    png = tmp_path / "secret.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    view = BundleTextView("response")
    qtbot.addWidget(view)
    text = f"![a]({png.as_uri()}) ![b]({png}) ![c](data:image/png;base64,iVBORw0KGgo=) ![d](https://x.invalid/p.png)"
    view.set_untrusted(text)
    view.show()
    qtbot.waitExposed(view)
    view.grab()  # laid out and painted
    for url in (QUrl(png.as_uri()), QUrl.fromLocalFile(str(png)), QUrl("data:image/png;base64,iVBORw0KGgo=")):
        assert view.document().resource(int(QTextDocument.ResourceType.ImageResource), url) is None  # asked: nothing
    shown = view.toPlainText()
    assert shown.count("[image not shown:") == 4 and str(png) in shown
    assert all(not fmt.isImageFormat() for _t, fmt in fragments(view.document()))


def quote_by_mouse(qtbot: Any, view: BundleTextView, first: str, last: str) -> None:
    """Click before ``first`` and shift-click after ``last`` in the rendered text (scrolling between)."""
    doc = view.document()
    start = doc.find(first).selectionStart()
    end = doc.find(last, start).selectionEnd()

    def point(position: int) -> QPoint:
        cursor = QTextCursor(doc)
        cursor.setPosition(position)
        bar = view.verticalScrollBar()
        while view.cursorRect(cursor).bottom() > view.viewport().height() and bar.value() < bar.maximum():
            bar.setValue(bar.value() + 20)
        rect = view.cursorRect(cursor)
        return QPoint(rect.left(), rect.center().y())

    view.verticalScrollBar().setValue(0)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point(start))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, SHIFT, point(end))
    assert view.textCursor().hasSelection()


@pytest.mark.parametrize(
    ("first", "last", "source_first", "source_last"),
    [
        # bold, a rule, a list, into a table: Qt selects (and highlights) the table's rows to its end
        ("both", "Sit by the bed", "both** of you", "2 weeks"),
        ("Same steps", "Sit by the door", "Same steps", "2 weeks"),  # a list into a table's bold
        ("2 weeks", "Progress is rarely", "Step", "Progress is rarely"),  # out of a table: from its start
        ("Sit by the", "1 week", "Sit by the", "1 week"),  # cells of one row: those cells
        ("very common", "tonight", "very common", "tonight"),  # emphasis and bold inside a paragraph
        ("& rest", "job", "&amp; rest", "job"),  # an entity is quoted as written
        ("the NHS page", "anxietycanada", "the NHS page", "anxietycanada"),  # a link and an autolink
    ],
)
def test_a_quote_selected_in_the_rendered_text_points_at_the_source(
    qtbot: Any, window: MainWindow, first: str, last: str, source_first: str, source_last: str
) -> None:
    assert window.page is not None and window.session is not None
    show_page(window, "Failure modes")
    fm_row = next(iter(window.page.form.failure_modes.rows.values()))
    click_check(qtbot, fm_row.check)
    quote_by_mouse(qtbot, window.page.task_view.response, first, last)
    qtbot.mouseClick(fm_row.use_selection, Qt.MouseButton.LeftButton)
    assert window.session.current is not None
    [span] = window.session.current.fm(fm_row.fm.id).spans
    text = window.session.task(window.session.current_id).candidate_response_text
    assert text == MARKDOWN_ANSWER
    assert span.start == text.index(source_first)
    assert span.end == text.index(source_last, span.start) + len(source_last)
    assert span.quote == text[span.start : span.end]


def test_quotes_map_back_through_hidden_characters_and_astral_emoji(qtbot: Any) -> None:
    text = "😀 **bold \u202eevil\u202c** and 🇪🇸 *more*\n\n| a 😀 | b |\n|---|---|\n| cat | dog\u200beel |"
    view = BundleTextView("response")
    qtbot.addWidget(view)
    shown = view.set_untrusted(text)
    assert isinstance(shown, DisplayText)
    assert "⟨U+202E⟩" in view.toPlainText() and "⟨U+200B⟩" in view.toPlainText()
    doc = view.document()
    for first, last, want in [
        ("bold", "more", "bold \u202eevil\u202c** and 🇪🇸 *more"),
        ("evil", "a 😀", "evil\u202c** and 🇪🇸 *more*\n\n| a 😀 | b |\n|---|---|\n| cat | dog\u200beel"),
        ("cat", "eel", "cat | dog\u200beel"),
        ("U+200B", "U+200B", "\u200b"),  # part of a marker quotes the whole hidden character
    ]:
        cursor = QTextCursor(doc)
        start = doc.find(first).selectionStart()
        cursor.setPosition(start)
        cursor.setPosition(doc.find(last, start).selectionEnd(), QTextCursor.MoveMode.KeepAnchor)
        view.setTextCursor(cursor)
        span = view.selected_original_span()
        assert span is not None and text[span[0] : span[1]] == want, (first, last)


def test_show_as_plain_text_shows_the_exact_source_and_is_remembered(
    qtbot: Any, make_window: Callable[..., MainWindow], window: MainWindow, tmp_path: Path, data_dir: Path
) -> None:
    assert window.page is not None
    switch = by_name(window, QCheckBox, "Show as plain text")
    assert not switch.isChecked() and switch.isEnabled()
    scenario = window.page.task_view.scenario
    assert "won't sleep" in scenario.toPlainText() and "**" not in scenario.toPlainText()  # turns rendered too
    assert "\nSetting: " in scenario.toPlainText() and "\nSpeakers: " in scenario.toPlainText()  # our lines kept
    click_check(qtbot, switch)
    assert window.page.task_view.response.toPlainText() == MARKDOWN_ANSWER
    assert "My son **won't sleep** alone:\n\n- he cries" in scenario.toPlainText()
    assert load_settings(data_dir)[0].show_plain_text is True
    window.close()
    again = make_window([str(tmp_path / "bundle"), "--data-dir", str(data_dir), "--rater", "R01"])
    assert again.page is not None
    assert by_name(again, QCheckBox, "Show as plain text").isChecked()
    assert again.page.task_view.response.toPlainText() == MARKDOWN_ANSWER
    click_check(qtbot, by_name(again, QCheckBox, "Show as plain text"))
    assert "**" not in again.page.task_view.response.toPlainText()
    assert load_settings(data_dir)[0].show_plain_text is None


def test_a_study_can_turn_rendering_off(
    qtbot: Any, make_window: Callable[..., MainWindow], tmp_path: Path, sample_docs: Any, data_dir: Path
) -> None:
    bundle = markdown_bundle(tmp_path / "plain-bundle", sample_docs, format_version="1.2.0", render_markdown=False)
    window = make_window([str(bundle), "--data-dir", str(data_dir), "--rater", "R01"])
    assert window.page is not None
    switch = by_name(window, QCheckBox, "Show as plain text")
    assert switch.isChecked() and not switch.isEnabled()
    assert "exactly as written" in switch.toolTip()
    assert window.page.task_view.response.toPlainText() == MARKDOWN_ANSWER
    # a quote in the source view is the source's own offsets (the heading's 🌱 is two UTF-16 units)
    view = window.page.task_view.response
    start = MARKDOWN_ANSWER.index("**both**")
    cursor = view.textCursor()
    cursor.setPosition(start + 1)
    cursor.setPosition(start + 1 + len("**both**"), QTextCursor.MoveMode.KeepAnchor)
    view.setTextCursor(cursor)
    assert view.selected_original_span() == (start, start + len("**both**"))
