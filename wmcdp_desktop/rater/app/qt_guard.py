"""Defence against a PySide6 binding bug that would crash the app on Python 3.11.

PySide6 6.12.0 returns ``None`` from void Qt methods without taking a reference to it. On Python 3.12+
``None`` is immortal and nothing happens; on 3.11 its reference count drains by one per call and the
interpreter aborts ("none_dealloc") after a few thousand calls — minutes into a rating session.
``pyproject.toml`` excludes that version on 3.11; :func:`protect_none` additionally detects the leak at
start-up (with any PySide6 version) and, on CPython < 3.12, makes ``None`` effectively immortal the way
3.12 does, so a rater's session can never be aborted by it.
"""

from __future__ import annotations

import logging
import sys

from PySide6.QtCore import QObject

log = logging.getLogger(__name__)
_BOOST = 1 << 40


def none_refcount_leak(calls: int = 200) -> int:
    """How many references to None ``calls`` void Qt calls lose (0 with a correct binding)."""
    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(calls):
        probe.setObjectName("probe")
    return before - sys.getrefcount(None)


def protect_none(leak: int | None = None) -> bool:
    """Make None immortal-in-practice when the binding leaks on a mortal-None CPython. True if applied."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    if hasattr(sys, "gettotalrefcount"):  # debug build: different object layout, leave it alone
        return False
    if (none_refcount_leak() if leak is None else leak) <= 0:
        return False
    import ctypes  # only here: importing it costs about 2 ms of every start, and a correct binding never needs it

    ctypes.c_ssize_t.from_address(id(None)).value += _BOOST
    log.warning("PySide6 leaks references to None on void calls; protected None (PySide6 bug, see qt_guard.py)")
    return True
