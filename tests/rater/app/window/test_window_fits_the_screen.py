"""The window fits the screen it opens on, a 1366x768 laptop screen included."""

from __future__ import annotations

from wmcdp_desktop.rater.app.screen_fit import fitted_size
from wmcdp_desktop.rater.app.window.main_window import MainWindow


def test_window_fits_the_screen_and_a_1366x768_laptop(window: MainWindow) -> None:
    free = window.screen().availableGeometry()
    assert fitted_size(window) == (min(1440, free.width() - 16), min(900, free.height() - 48))
    assert window.width() <= free.width() and window.height() <= free.height()
    hint = window.minimumSizeHint()  # the window can shrink to a laptop screen with a title bar
    assert hint.width() <= 1366 - 16 and hint.height() <= 768 - 48
