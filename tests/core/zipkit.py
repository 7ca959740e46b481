"""Opening a zip the lean way or the zipfile way, for the differential tests of the lean zip reader
(`test_zip_central_dir.py`, `test_review_zip_attacks.py`)."""

from __future__ import annotations

from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.zips import reader as zipsafe
from wmcdp_desktop.core.zips.reader import DEFAULT_LIMITS, Limits, open_zip_bytes


def outcome(data: bytes, *, lean: bool, limits: Limits = DEFAULT_LIMITS) -> object:
    """Verdict, names, sizes and every member's bytes (or message), through the lean reader or zipfile."""
    saved = zipsafe._CentralIndex.build
    if not lean:
        zipsafe._CentralIndex.build = classmethod(lambda cls, fp, size, limits: None)  # type: ignore[assignment]
    try:
        try:
            sz = open_zip_bytes(data, "z.wmcdp", limits)
        except DocumentError as exc:
            return ("rejected", [str(p) for p in exc.problems])
        reads: dict[str, object] = {}
        for name in sz.names():
            try:
                reads[name] = sz.read(name)
            except DocumentError as exc:
                reads[name] = [str(p) for p in exc.problems]
        return ("opened", sz.names(), sz.sizes(), {n: sz.size(n) for n in sz.names()}, "x" in sz, reads)
    finally:
        zipsafe._CentralIndex.build = saved  # type: ignore[method-assign]


def took_lean(data: bytes, limits: Limits = DEFAULT_LIMITS) -> bool:
    """Whether the lean reader took the zip (it opened and has a central index)."""
    try:
        return open_zip_bytes(data, "z.wmcdp", limits)._central is not None
    except DocumentError:
        return False


def assert_same(data: bytes, limits: Limits = DEFAULT_LIMITS) -> object:
    """Both ways give the same outcome; returns it."""
    new, old = outcome(data, lean=True, limits=limits), outcome(data, lean=False, limits=limits)
    assert new == old
    return new
