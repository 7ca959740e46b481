"""HTML, markup and hidden characters in a response, a scenario or the rubric are shown literally (labels, tooltips,
the response), never interpreted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from tests.rater.app.window_helpers import (
    click_check,
    rows,
)
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_html_and_hidden_characters_are_shown_literally(qtbot: Any, window: MainWindow) -> None:
    assert window.page is not None and window.session is not None
    window.rating.go_to("T-0003")
    response = window.page.task_view.response
    text = response.toPlainText()
    assert '<b>Bold?</b> <a href="https://example.invalid/x">click me</a>' in text
    assert "⟨U+202E⟩esrever⟨U+202C⟩" in text and "⟨U+200B⟩hidden" in text
    assert "\u202e" not in text and "\u200b" not in text
    assert "<i>Is it locked?</i>" in window.page.task_view.scenario.toPlainText()
    html = response.document().toHtml()
    assert "<img" not in html and "<a " not in html and "<b>" not in html
    # clicking on the "link" opens nothing (QDesktopServices.openUrl fails the test if called)
    cursor = response.document().find("click me")
    rect = response.cursorRect(cursor)
    qtbot.mouseClick(response.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    # evidence selected across markers maps back to the original text
    found = response.document().find("esrever")
    response.setTextCursor(found)
    row = window.page.form.failure_modes.rows["WM-FM-REASSURANCE"]
    click_check(qtbot, row.check)
    qtbot.mouseClick(row.use_selection, Qt.MouseButton.LeftButton)
    assert window.session.current is not None
    span = window.session.current.fm("WM-FM-REASSURANCE").spans[0]
    original = window.session.task().candidate_response_text
    assert span.quote == "esrever" == original[span.start : span.end]


def test_rubric_text_with_markup_is_shown_literally_in_labels_and_tooltips(
    qtbot: Any, make_window: Callable[..., MainWindow], tmp_path: Path, sample_docs: Any, data_dir: Path
) -> None:
    from tests.kit.bundles import bundle_docs, write_bundle_folder

    rubric, tasks = bundle_docs(sample_docs)
    rubric["dimensions"][0]["label"] = "<b>Attunement</b>"
    rubric["dimensions"][0]["description"] = 'Look <img src="file:///etc/passwd"> & <a href="x">here</a>'
    rubric["failure_modes"][0]["description"] = "<h1>big</h1>"
    bundle = write_bundle_folder(tmp_path / "markup", rubric, tasks)
    window = make_window([str(bundle), "--data-dir", str(data_dir), "--rater", "R01"])
    row = rows(window)[0]
    assert row.label.text() == "<b>Attunement</b>" and row.slider.accessibleName() == "<b>Attunement</b>"
    tip = row.slider.toolTip()
    assert "&lt;img src=\"file:///etc/passwd\"&gt; &amp; &lt;a href=\"x\"&gt;here&lt;/a&gt;" in tip
    assert "<img" not in tip and "<a " not in tip
    fm_tip = next(iter(window.page.form.failure_modes.rows.values())).check.toolTip()  # type: ignore[union-attr]
    assert "&lt;h1&gt;big&lt;/h1&gt;" in fm_tip and "<h1>" not in fm_tip
    assert window.page.help.toPlainText() == ""  # type: ignore[union-attr]  # written when first shown
    window.menu.act_help.trigger()
    assert "<img" in window.page.help.toPlainText()  # type: ignore[union-attr]  # literally, as text
