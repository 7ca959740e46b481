"""Dates and numbers as the rater's locale writes them, everywhere the window shows them: the submitted-at
line, the task heading, the list's progress, the submit message, the job progress; ISO 8601 dates where the
computer has no locale (the C/POSIX locale wrote "on 1 12 2026 17:55")."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QLocale

from tests.rater.app.window_helpers import set_all_scores_by_keyboard, submit_by_keyboard, type_rationale
from wmcdp_desktop.rater.app.text.i18n import format_datetime, install_translators, number
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.settings import Settings, save_settings

WHEN = "2026-12-01T17:55:00Z"


@pytest.mark.parametrize(("language", "value", "written"), [
    ("en", 12345, "12,345"), ("es", 12345, "12.345"), ("de", 10000, "10.000"), ("fr", 12345, "12\u202f345"),
    ("ar", 12, "١٢"), ("C", 12345, "12345"),
])
def test_numbers_follow_the_locale(language: str, value: int, written: str) -> None:
    QLocale.setDefault(QLocale(language))
    assert number(value) == written


def test_a_computer_without_a_locale_gets_iso_dates_not_day_month_year_with_spaces() -> None:
    QLocale.setDefault(QLocale.c())
    text = format_datetime(WHEN)
    assert re.fullmatch(r"2026-12-0[12] \d\d:55", text), text
    assert re.fullmatch(r"\d\d:55:00", format_datetime(WHEN, seconds=True, date=False))


@pytest.mark.parametrize(("language", "pattern"), [
    ("es", r"[12]/12/26 \d{1,2}:55"), ("de", r"0[12]\.12\.26 \d\d:55"), ("en", r"12/[12]/26 \d{1,2}:55\s[AP]M"),
])
def test_dates_follow_the_locale(language: str, pattern: str) -> None:
    install_translators(language)
    assert re.fullmatch(pattern, format_datetime(WHEN)), format_datetime(WHEN)


def _rate_first(qtbot: Any, window: MainWindow) -> None:
    set_all_scores_by_keyboard(qtbot, window)
    type_rationale(qtbot, window)
    submit_by_keyboard(qtbot, window)
    qtbot.waitUntil(lambda: window.session is not None and window.session.progress()[0] == 1)


def test_the_window_writes_positions_totals_and_dates_in_the_raters_locale(
    qtbot: Any, make_window: Any, bundle_dir: Path, data_dir: Path
) -> None:
    """Arabic (no catalogue of the app's: its words stay English) shows Arabic-Indic digits in every count."""
    save_settings(data_dir, Settings(language="ar"))
    window: MainWindow = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    page, rating = window.page, window.rating
    assert page is not None and rating is not None
    assert page.task_view.heading.text().startswith("Task ١ of ٣")
    assert page.task_list.progress.format() == "٠ of ٣ submitted"
    _rate_first(qtbot, window)
    assert page.task_list.progress.format() == "١ of ٣ submitted"
    assert "١ of ٣ submitted" in window.status_bar.currentMessage()
    assert window.session is not None and rating.go_to(window.session.task_ids[0])
    banner = page.form.banner_text.text()
    assert banner.startswith("Submitted (revision ١) on ")
    assert "2026" not in banner and "1 12" not in banner  # the date too, in the locale's digits


def test_the_submitted_at_line_without_a_locale_is_iso(
    qtbot: Any, make_window: Any, bundle_dir: Path, data_dir: Path
) -> None:
    window: MainWindow = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    QLocale.setDefault(QLocale.c())  # what a computer with LANG=C gives the app
    _rate_first(qtbot, window)
    assert window.rating is not None and window.session is not None
    window.rating.go_to(window.session.task_ids[0])
    assert window.page is not None
    banner = window.page.form.banner_text.text()
    assert re.search(r"Submitted \(revision 1\) on \d{4}-\d\d-\d\d \d\d:\d\d;", banner), banner
