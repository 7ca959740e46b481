"""Faults injected into atomic writes through the package's public seam (:func:`wmcdp_desktop.core.atomic.
using_os_calls`): a full disk, a file held locked, a failing fsync, a kill at a step.

The ``faults`` fixture (root conftest) gives a :class:`Faults`; what it injects lasts until :meth:`Faults.clear`
or the end of the test.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable
from typing import Any

from wmcdp_desktop.core import atomic


class Faults:
    """Faults injected into the atomic writer for the rest of a test (or until :meth:`clear`)."""

    def __init__(self) -> None:
        self._stack = contextlib.ExitStack()

    def inject(self, **calls: Any) -> atomic.OsCalls:
        """Swap the calls named (``write``, ``fsync``, ``replace``, ``step``) from now on; returns the calls now
        in force."""
        return self._stack.enter_context(atomic.using_os_calls(**calls))

    def clear(self) -> None:
        """The real calls again (everything injected so far taken back)."""
        self._stack.close()


def raising(exc: BaseException) -> Callable[..., Any]:
    """A call that raises ``exc`` whatever it is given."""

    def call(*_args: object) -> Any:
        raise exc

    return call


def disk_full(*_args: object) -> Any:
    """A write, fsync or replace on a full disk."""
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
