"""The report's chart colours are readable on its white background (WCAG AA for graphics: 3:1)."""

from __future__ import annotations

import inspect
import re

from wmcdp_desktop.coordinator.report import charts


def _luminance(hex_colour: str) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast_on_white(hex_colour: str) -> float:
    return 1.05 / (_luminance(hex_colour) + 0.05)


def test_the_contrast_formula_matches_known_figures() -> None:
    assert round(contrast_on_white("#000000"), 2) == 21.0
    assert round(contrast_on_white("#767676"), 2) == 4.54  # the usual "lightest grey for text on white"
    assert round(contrast_on_white("#c9b037"), 2) == 2.15  # the old palette's yellow (issue 17)


def test_every_series_colour_reaches_3_to_1_on_white_and_they_differ() -> None:
    low = {c: round(contrast_on_white(c), 2) for c in charts.PALETTE if contrast_on_white(c) < 3.0}
    assert not low, f"below 3:1 on white: {low}"
    assert len(set(charts.PALETTE)) == len(charts.PALETTE) == 8


def test_the_charts_draw_their_series_in_the_palette_only() -> None:
    source = inspect.getsource(charts)
    written = set(re.findall(r'"(#[0-9a-fA-F]{6})"', source))
    assert written == set(charts.PALETTE), written - set(charts.PALETTE)
