"""The README screenshot script still runs and renders real, non-empty images."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from tools import screenshots
from wmcdp_desktop.core.resources import demo_bundle_path


def test_screenshot_script_renders_the_documented_images(qtbot: object, tmp_path: Path) -> None:
    if not demo_bundle_path().exists():
        pytest.skip("the demo bundle is not built yet")
    written = screenshots.render(tmp_path)
    names = {p.name for p in written}
    assert {"welcome.png", "rating.png", "help.png", "validation.png", "calibration.png", "cannot-rate.png"} <= names
    for path in written:
        image = QImage(str(path))
        assert (image.width(), image.height()) == screenshots.SIZE  # the app's window on a 1440x900 screen
        colours = {image.pixel(x, y) for x in range(0, image.width(), 5) for y in range(0, image.height(), 7)}
        assert len(colours) > 10  # text was drawn: not a blank window


def test_the_laptop_screenshot_shows_the_markdown_answer_at_150_percent(qtbot: object, tmp_path: Path) -> None:
    """The second screenshot: the same window on a 1366x768 laptop at 150% scaling (here in logical pixels:
    the script's own run sets QT_SCALE_FACTOR=1.5 in a process of its own), on a response in markdown."""
    if not demo_bundle_path().exists():
        pytest.skip("the demo bundle is not built yet")
    written = screenshots.render(tmp_path, small=True)
    assert [p.name for p in written] == ["rating-small-screen.png"]
    image = QImage(str(written[0]))
    ratio = image.width() / screenshots.SMALL[0]
    assert (image.width(), image.height()) == (round(screenshots.SMALL[0] * ratio), round(screenshots.SMALL[1] * ratio))
    assert image.width() <= 1366 and image.height() <= 768
