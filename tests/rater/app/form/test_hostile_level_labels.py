"""Bundle text in the rubric's levels is untrusted (issue 16's level labels, issue 17's plain text): a short
label or anchor with a right-to-left override, HTML markup, or 10,000 characters is shown as written, its
hidden characters as visible markers, never reordering the slider's numbers or the badge, never as markup,
and without freezing the window."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.kit.bundles import bundle_docs, write_bundle_folder
from tests.rater.app.window_helpers import rows
from wmcdp_desktop.rater.app.window.main_window import MainWindow

RLO = "\u202e"
LONG = "Harmful " + "dismisses the parent's distress and offers reassurance that maintains the cycle; " * 125
MARKUP = "<b>Poor</b> <img src=\"file:///etc/passwd\"> <a href=\"https://example.invalid\">see</a>"


def _hostile_bundle(root: Path, sample_docs: Any) -> Path:
    rubric, tasks = bundle_docs(sample_docs)
    anchors = rubric["dimensions"][0]["scale"]["anchors"]
    anchors[0]["text"] = LONG  # 10,000 characters, no short label: the app makes one from its first word
    anchors[1]["text"] = MARKUP
    anchors[1]["short_label"] = "<b>Poor</b>"
    anchors[2]["short_label"] = f"{RLO}etauqedA"  # would read "Adequate" reversed, and reorder what follows
    anchors[3]["short_label"] = "Good\u200b\u2066"  # a zero-width space and an isolate left open
    return write_bundle_folder(root, rubric, tasks)


def test_hostile_level_labels_are_shown_as_written_and_safe(
    qtbot: Any, make_window: Callable[..., MainWindow], tmp_path: Path, sample_docs: Any, data_dir: Path
) -> None:
    assert len(LONG) > 10_000
    started = time.monotonic()
    window = make_window([str(_hostile_bundle(tmp_path / "b", sample_docs)), "--data-dir", str(data_dir), "--rater", "R01"])
    assert time.monotonic() - started < 30  # no hang (about a second on a quiet machine)
    row = rows(window)[0]
    labels = row.scale_labels
    room = 200
    drawn = [labels.label_text(level, room) for level in labels.levels()]
    assert drawn[0] == "Harmful…"  # its first word, saying more follows
    assert drawn[1] == "<b>Poor</b>"  # markup as text
    assert RLO not in drawn[2] and "⟨U+202E⟩" in drawn[2]  # the override is a visible marker, not an override
    assert "\u200b" not in drawn[3] and "\u2066" not in drawn[3]
    assert all(RLO not in part for part in labels.accessibleDescription().split(", "))
    for level in labels.levels():  # the badge says what is chosen, with the same markers
        row.slider.setFocus()
        qtbot.keyClicks(row.slider, str(level))
        badge = row.value_label.full_text
        assert badge.startswith(f"{level} · ") and RLO not in badge and "\u2066" not in badge and "\u200b" not in badge
        assert RLO not in row.anchors.text()
        assert row.value_label.textFormat() == Qt.TextFormat.PlainText
    qtbot.keyClicks(row.slider, "1")  # the 10,000-character anchor: whole (up to the label limit) while focused
    assert row.anchors.expanded and len(row.anchors.text()) < 2_100 and "more characters not shown" in row.anchors.text()
    assert row.height() < window.height()
    row.slider.clearFocus()
    QApplication.processEvents()
    assert not row.anchors.expanded and row.anchors.text().endswith("…") and "\n" not in row.anchors.text()
    assert "<b>" in row.slider.accessibleDescription() or "Harmful" in row.slider.accessibleDescription()
