"""tools/form_scrolling.py, which measured the figures in docs/RATER_GUIDE.md, still runs and still finds the
eight dimensions in view without scrolling on a 1440x900 screen."""

from __future__ import annotations

import pytest

from tools import form_scrolling
from wmcdp_desktop.core.resources import demo_bundle_path


def test_the_scrolling_measurement_runs(qtbot: object) -> None:
    if not demo_bundle_path().exists():
        pytest.skip("the demo bundle is not built yet")
    result = form_scrolling.measure((1440, 900), 0)
    pages = {p["page"]: p for p in result["pages"]}
    assert list(pages) == ["Scores", "Failure modes", "Notes"]
    assert pages["Scores"]["scroll_range_px"] == 0 and pages["Scores"]["controls"] >= 8
    assert pages["Failure modes"]["page_switches"] == 1 and pages["Notes"]["page_switches"] == 1
