"""Pausing Python's cyclic garbage collector while many small objects pile up (reading documents).

Each full collection walks every object alive; reading tens of thousands of records keeps millions of
them alive, so the collector runs again and again over objects that can never be garbage. Documents are
trees (no reference cycles), and exceptions are dropped as they are handled, so nothing is missed by
pausing it; it is switched back on, as it was, afterwards.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off inside the block; afterwards on again if it was on before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
