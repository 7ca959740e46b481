"""``--demo`` starts without asking for a rater id (someone trying the demo has none): it rates as the demo
rater and says so. A real bundle still asks once (issue 16)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from wmcdp_desktop.core.resources import demo_bundle_path
from wmcdp_desktop.rater.app.window.main_window import MainWindow
from wmcdp_desktop.rater.app.window.preferences import DEMO_RATER_ID

pytestmark = pytest.mark.skipif(not demo_bundle_path().exists(), reason="the demo bundle is not built")


@pytest.fixture
def asking_window(
    make_window: Callable[..., MainWindow], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[MainWindow, list[str]]:
    """A window with no rater id whose rater dialog is answered "R01"; the list records each time it asked."""
    window = make_window(["--data-dir", str(tmp_path / "data")])
    asked: list[str] = []

    def ask(parent: Any) -> bool:
        asked.append("rater id")
        window.prefs.set_rater("R01", None)
        return True

    monkeypatch.setattr(window.prefs, "ask_rater", ask)
    return window, asked


def test_demo_opens_as_the_demo_rater_without_a_question(
    make_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    # conftest fails the test if the rater dialog opens
    window = make_window(["--demo", "--data-dir", str(tmp_path / "data")])
    assert window.session is not None and window.page is not None
    assert window.session.rater.rater_id == DEMO_RATER_ID == "demo"
    assert window.page.notice_banner.isVisible()
    assert "demo rater" in window.page.notice_text.text() and "asks once" in window.page.notice_text.text()
    assert window.settings.rater_id is None  # never remembered: a real bundle still asks
    assert (tmp_path / "data" / "bundles" / window.session.manifest.bundle_id / "demo").is_dir()


def test_a_real_bundle_still_asks_once(
    asking_window: tuple[MainWindow, list[str]], bundle_dir: Path, qtbot: Any
) -> None:
    window, asked = asking_window
    with qtbot.waitSignal(window.openingDone, timeout=20_000):
        window.open_demo()
    assert asked == [] and window.session is not None and window.session.rater.rater_id == "demo"
    window.close_bundle()
    with qtbot.waitSignal(window.openingDone, timeout=20_000):
        window.open_bundle_path(bundle_dir)
    assert asked == ["rater id"] and window.session is not None and window.session.rater.rater_id == "R01"
    assert window.page is not None and not window.page.notice_banner.isVisible()
    window.close_bundle()
    with qtbot.waitSignal(window.openingDone, timeout=20_000):
        window.open_demo()  # with a rater id set, the demo is rated under it: nothing asked, no notice
    assert asked == ["rater id"] and window.session.rater.rater_id == "R01"
    assert window.page is not None and not window.page.notice_banner.isVisible()


def test_a_real_bundle_opened_over_the_demo_asks_for_the_rater_id_and_opens(
    asking_window: tuple[MainWindow, list[str]], bundle_dir: Path, qtbot: Any
) -> None:
    window, asked = asking_window
    with qtbot.waitSignal(window.openingDone, timeout=20_000):
        window.open_demo()
    with qtbot.waitSignal(window.openingDone, timeout=20_000):
        window.open_bundle_path(bundle_dir)  # the demo still open: no "close the bundle first"
    assert asked == ["rater id"] and window.messages == []
    assert window.session is not None and window.session.rater.rater_id == "R01"
