"""The rules a zip must pass: the limits, and what a member name may be.

:mod:`wmcdp_desktop.core.zips.reader` applies them to every zip read; :func:`name_problem` also checks
the files of a folder bundle and the names :mod:`wmcdp_desktop.core.zips.writer` writes.
"""

from __future__ import annotations

import re
import unicodedata
import zipfile
from dataclasses import dataclass

MAX_ENTRIES = 100_000
"""Most entries a zip may have (folder entries included): 100,000 are accepted, 100,001 refused."""
MAX_MEMBER_BYTES = 50 * 1024 * 1024
"""Largest uncompressed member (50 MB)."""
MAX_TOTAL_BYTES = 1024 * 1024 * 1024
"""Largest total uncompressed size (1 GB)."""
MAX_RATIO = 100
"""Largest compression ratio (uncompressed / compressed) of a member."""
DIRECTORY_BYTES_PER_ENTRY = 1024
"""Room allowed per entry in the central directory (46 bytes of header, then name, extra field and comment):
a directory larger than ``max_entries`` times this is refused before zipfile reads it into memory."""
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


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""C0 and C1 control characters and DEL."""


def name_problem(name: str) -> str | None:
    """Why ``name`` is not an acceptable member/relative path (``None`` when it is fine).

    Used for zip members and for files of a folder bundle.
    """
    if name == "":
        return "has an empty name"
    control = _CONTROL.search(name)
    if control:
        code = ord(control.group())
        what = "a NUL character" if code == 0 else f"a control character (U+{code:04X})"
        return f"has {what} in its name"
    if "\\" in name:
        return "has a backslash in its name (only / separates folders in a zip)"
    if name.startswith("/"):
        return "is an absolute path"
    if len(name) >= 2 and name[1] == ":" and name[0].isascii() and name[0].isalpha():
        return "starts with a drive letter"
    parts = f"/{name.rstrip('/')}/"  # each path part between slashes (a folder's own slash left out)
    if "/../" in parts:
        return "contains '..' (it would point outside the bundle)"
    if "//" in parts or "/./" in parts:
        return "has an empty or '.' path part"
    return None


def fold_name(name: str) -> str:
    """The form two names are compared in for duplicates: NFC, then case folded."""
    return unicodedata.normalize("NFC", name).casefold()
