"""The rubric help is written when its tab is first shown (not at start-up), once."""

from __future__ import annotations

from wmcdp_desktop.ui.main_window import MainWindow


def test_help_written_on_first_show_and_only_once(window: MainWindow) -> None:
    page = window.page
    assert page is not None
    assert page.help.toPlainText() == ""
    page.tabs.setCurrentIndex(page.tabs.indexOf(page.help))  # as a click on the tab
    text = page.help.toPlainText()
    rubric = window.session.rubric
    assert text.startswith(f"{rubric.title} (version {rubric.contract_version})")
    assert all(d.label in text for d in rubric.dimensions)
    assert all(fm.label in text for fm in rubric.failure_modes)
    page.tabs.setCurrentIndex(0)
    window.act_help.trigger()  # F1
    assert page.tabs.currentWidget() is page.help
    assert page.help.toPlainText() == text  # not appended twice
    assert page.help.textCursor().position() == 0
