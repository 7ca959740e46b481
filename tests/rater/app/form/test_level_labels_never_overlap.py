"""The numbers and short labels under each slider (issue 16) stay readable whatever the scale, the text size
and the width: every number shown is centred under its tick, numbers thin out as on a ruler when the ticks are
too close (a 0-20 scale), labels take a second line (or more) rather than run into each other, the chosen level
is always shown; and the top strip (timer, flag, cannot rate) takes a second line instead of a column of words."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from tests.kit.bundles import bundle_docs, write_bundle_folder
from tests.rater.app.window_helpers import rows
from wmcdp_desktop.rater.app.form.sliders import DimensionRow
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.settings import Settings, save_settings


def _bundle(root: Path, sample_docs: Any, levels: int) -> Path:
    rubric, tasks = bundle_docs(sample_docs)
    for dim in rubric["dimensions"]:
        dim["scale"] = {"min": 0, "max": levels - 1, "anchors": [
            {"level": i, "text": f"Level {i}: what this level means, in a clinician's words.",
             "short_label": "Incompletely addressed" if i % 2 else "Exceptionally thorough"} for i in range(levels)]}
    return write_bundle_folder(root, rubric, tasks)


def _check(row: DimensionRow) -> None:
    labels = row.scale_labels
    cells = labels.layout_cells()
    numbers = [(level, rect) for level, rect, _t, _r, _a in cells if rect is not None]
    texts = [rect for _l, _n, text, rect, _a in cells if text and rect is not None]
    for (_, a), (_, b) in itertools.pairwise(numbers):
        assert a.right() < b.left(), (a, b)  # numbers never touch
    for line in {rect.top() for rect in texts}:  # nor labels on the same line (a second line as on a ruler)
        for a, b in itertools.pairwise([rect for rect in texts if rect.top() == line]):
            assert a.right() < b.left(), (a, b)
    for level, rect in numbers:
        tick = labels.tick_x(level)
        edge = rect.left() == 0 or rect.right() >= labels.width() - 1
        assert edge or abs(rect.center().x() - tick) <= 1, (level, rect, tick)  # under its own tick
        assert rect.left() >= 0 and rect.right() < labels.width()
    shown = [level for level, _ in numbers]
    assert shown[0] == labels.scale.min and shown[-1] == labels.scale.max
    if row.value() is not None:
        assert row.value() in shown


@pytest.mark.parametrize(("levels", "size", "font_factor"), [(21, (1350, 720), 1), (5, (1350, 720), 2), (11, (1424, 852), 1)])
def test_numbers_and_labels_never_overlap(
    levels: int, size: tuple[int, int], font_factor: int, qtbot: Any, make_window: Callable[..., MainWindow],
    tmp_path: Path, sample_docs: Any, data_dir: Path,
) -> None:
    window = make_window([str(_bundle(tmp_path / "b", sample_docs, levels)), "--data-dir", str(data_dir), "--rater", "R01"])
    window.resize(*size)
    if font_factor != 1:
        window.change_font(QApplication.font().pointSize() * (font_factor - 1))
    QApplication.processEvents()
    row = rows(window)[0]
    _check(row)
    row.slider.setFocus()
    qtbot.keyClicks(row.slider, "9")  # a level whose number the ruler would leave out on 0-20
    QApplication.processEvents()
    _check(row)
    if levels == 21:
        numbers = [level for level, rect, *_ in row.scale_labels.layout_cells() if rect is not None]
        # thinned out, the chosen one kept; or every number, when the row put its name above the slider
        assert 9 in numbers and (len(numbers) < levels or row.narrow)
        assert row.value_label.text().startswith("9 · Inc")  # the badge cut within a word, not to "9 ·…"


def test_the_top_strip_takes_a_second_line_not_a_column_of_words(
    make_window: Callable[..., MainWindow], bundle_dir: Path, data_dir: Path
) -> None:
    save_settings(data_dir, Settings(language="es"))
    window = make_window([str(bundle_dir), "--data-dir", str(data_dir), "--rater", "R01"])
    window.resize(1350, 720)  # on a 1366x768 laptop, the Spanish words are too long for one line
    QApplication.processEvents()
    form = window.page.form
    line = form.timer.label.fontMetrics().lineSpacing()
    assert form.timer.label.height() <= 2 * line + 4  # at most two lines (was five)
    assert form.flag_button.mapTo(form, form.flag_button.rect().topLeft()).y() > form.timer.mapTo(form, form.timer.rect().topLeft()).y()
    english = make_window([str(bundle_dir), "--data-dir", str(data_dir / "en"), "--rater", "R01"])
    english.resize(1424, 852)  # on a 1440x900 screen, in English: one line
    QApplication.processEvents()
    form = english.page.form
    assert form.flag_button.mapTo(form, form.flag_button.rect().topLeft()).y() == form.timer.button.mapTo(form, form.timer.button.rect().topLeft()).y()
