"""The installed PySide6 does not drain None's reference count, and the guard works if one does."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtWidgets import QLabel

from wmcdp_desktop.rater.app import qt_guard


def test_installed_binding_does_not_leak_none(qtbot: object) -> None:
    assert qt_guard.none_refcount_leak(500) == 0
    label = QLabel()
    before = sys.getrefcount(None)
    for _ in range(20_000):  # far more than the ~5,000 references None starts with on 3.11
        label.setText("x")
    assert sys.getrefcount(None) >= before - 5


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="None is immortal on 3.12+")
def test_guard_makes_none_survive_a_leaking_binding() -> None:
    assert qt_guard.protect_none(leak=0) is False
    before = sys.getrefcount(None)
    assert qt_guard.protect_none(leak=1) is True
    assert sys.getrefcount(None) >= before + (1 << 39)
