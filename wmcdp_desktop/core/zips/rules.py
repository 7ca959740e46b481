"""The rules a zip must pass (limits, member names), shared by :mod:`zipsafe`'s two ways of reading one.

:mod:`wmcdp_desktop.core.zips.reader` applies them (and re-exports these names); the lean central-directory
reader of :mod:`wmcdp_desktop.core.zips.central_index` applies the same ones to plain zips.
"""

from __future__ import annotations

import re
import unicodedata
import zipfile
from dataclasses import dataclass

MAX_ENTRIES = 100_000
"""Most entries a zip may have."""
MAX_MEMBER_BYTES = 50 * 1024 * 1024
"""Largest uncompressed member (50 MB)."""
MAX_TOTAL_BYTES = 1024 * 1024 * 1024
"""Largest total uncompressed size (1 GB)."""
MAX_RATIO = 100
"""Largest compression ratio (uncompressed / compressed) of a member."""
RATIO_FLOOR_BYTES = 1024
"""Members up to this many uncompressed bytes are not ratio-checked (a tiny file of repeated spaces
compresses to a handful of bytes; it cannot hurt)."""
ALLOWED_COMPRESSION = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}


@dataclass(frozen=True)
class Limits:
    """The limits in force (tests shrink them to keep fixtures small)."""

    max_entries: int = MAX_ENTRIES
    max_member_bytes: int = MAX_MEMBER_BYTES
    max_total_bytes: int = MAX_TOTAL_BYTES
    max_ratio: int = MAX_RATIO
    ratio_floor_bytes: int = RATIO_FLOOR_BYTES


DEFAULT_LIMITS = Limits()


# Names made only of path parts that start with a letter, digit, ``_`` or ``-`` and go on with those and
# ``.`` pass every check below; matching them in one regular expression keeps opening a 10,000-task
# bundle from spending a third of a second in the character loop (benchmarks/). Anything else (a colon,
# non-ASCII, ...) takes the full checks.
_PLAIN_NAME = re.compile(r"(?:[A-Za-z0-9_-][A-Za-z0-9._-]*/)*[A-Za-z0-9_-][A-Za-z0-9._-]*/?")


def name_problem(name: str) -> str | None:
    """Why ``name`` is not an acceptable member/relative path (``None`` when it is fine).

    Used for zip members and for files of a folder bundle.
    """
    if _PLAIN_NAME.fullmatch(name):
        return None
    if name == "":
        return "has an empty name"
    for ch in name:
        code = ord(ch)
        if code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0:
            what = "a NUL character" if code == 0 else f"a control character (U+{code:04X})"
            return f"has {what} in its name"
    if "\\" in name:
        return "has a backslash in its name (only / separates folders in a zip)"
    if name.startswith("/"):
        return "is an absolute path"
    if len(name) >= 2 and name[1] == ":" and name[0].isascii() and name[0].isalpha():
        return "starts with a drive letter"
    parts = name.rstrip("/").split("/")
    if any(part == ".." for part in parts):
        return "contains '..' (it would point outside the bundle)"
    if any(part in ("", ".") for part in parts):
        return "has an empty or '.' path part"
    return None


def fold_name(name: str) -> str:
    """The form two names are compared in for duplicates: NFC, then case folded."""
    return unicodedata.normalize("NFC", name).casefold()
