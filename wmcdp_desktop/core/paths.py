"""The one way a path is made from ids and names: :func:`child_path`, which refuses anything that would
leave its folder or mean something else than a plain file name on any system.

Every file and folder the project names after an id goes through here: the rater's data folder
(``bundles/<bundle>/<rater>/drafts|records/<task>...``), export names, the bundles and key ``bundle
build`` writes, the files ``results collect`` writes. Ids are checked with the id rule of
:mod:`wmcdp_desktop.core.models.common` (:func:`check_id`); the names built from them are checked again
here, on every system as if it were Windows *and* POSIX: a name that is safe on the machine it was made on
but not on the coordinator's (``D:evil``, ``CON``, ``a:b`` as an NTFS stream) is refused everywhere.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from pathlib import Path, PurePosixPath, PureWindowsPath

from wmcdp_desktop.core.errors import StorageError, WmcdpError
from wmcdp_desktop.core.ids import id_problem

MAX_NAME_BYTES = 255
"""Longest file name (in UTF-8 bytes) most file systems take."""
_WINDOWS_FORBIDDEN = set('<>:"/\\|?*')
_RESERVED_STEM = re.compile(r"^(CON|PRN|AUX|NUL|CONIN\$|CONOUT\$|COM[0-9¹²³]|LPT[0-9¹²³])$", re.IGNORECASE)


class UnsafeNameError(WmcdpError):
    """An id or a file name that cannot safely name a file inside its folder."""


def check_id(value: str, what: str) -> str:
    """``value`` when it is a valid id, else :class:`UnsafeNameError` naming ``what`` (e.g. "rater id")."""
    if not isinstance(value, str):
        raise UnsafeNameError(f"The {what} must be text, not {type(value).__name__}.")
    problem = id_problem(value, what)
    if problem is not None:
        raise UnsafeNameError(f"The {what} {_shown(value)} cannot be used: {problem}.")
    return value


def _shown(value: str) -> str:
    text = value if len(value) <= 60 else value[:57] + "..."
    return '"' + "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in text) + '"'


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be one plain file or folder name inside a folder, on Windows and on POSIX
    alike; None when it can."""
    if not name:
        return "is empty"
    if name in (".", ".."):
        return "is '.' or '..'"
    for ch in name:
        if ch in _WINDOWS_FORBIDDEN:
            return f"holds {ch!r}, which has a meaning in paths (drives, folders, streams or wildcards)"
        if ord(ch) < 32 or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            return f"holds the control or invisible character U+{ord(ch):04X}"
    if name[-1] in ". ":
        return "ends in a dot or a space (Windows drops them, so it would name another file)"
    if name[0] == " ":
        return "starts with a space"
    if _RESERVED_STEM.match(name.split(".", 1)[0].rstrip(" ")):
        return "is a reserved device name on Windows (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with or without an extension)"
    if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        return f"is longer than {MAX_NAME_BYTES} bytes"
    for flavour in (PureWindowsPath, PurePosixPath):
        pure = flavour(name)
        if pure.anchor or pure.parts != (name,):
            return "is not a single plain name"
    return None


def child_path(folder: Path, *names: str) -> Path:
    """``folder / names[0] / names[1] ...`` after checking each name with :func:`name_problem`; the
    result is always inside ``folder`` (raises :class:`UnsafeNameError` otherwise). ``folder`` itself is
    trusted (it comes from the user or the platform, not from a document)."""
    if not names:
        raise UnsafeNameError("No file name was given.")
    for name in names:
        if not isinstance(name, str):
            raise UnsafeNameError(f"A file name must be text, not {type(name).__name__}.")
        problem = name_problem(name)
        if problem is not None:
            raise UnsafeNameError(f"Refused to use {_shown(name)} as a file name in {folder}: it {problem}.")
    path = folder.joinpath(*names)
    # Belt and braces: the joined path's parts are the folder's plus exactly the names given.
    if path.parts[: len(folder.parts)] != folder.parts or len(path.parts) != len(folder.parts) + len(names):
        raise UnsafeNameError(f"Refused a file name that would leave the folder {folder}.")
    return path


class LinkOutsideError(StorageError):
    """A folder or file inside a folder the app writes is a link (or a Windows junction) to somewhere outside it."""


def _is_link(path: str) -> bool:
    """True for a symbolic link and for a Windows junction (a mount-point reparse point); False when missing."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if stat.S_ISLNK(st.st_mode):
        return True
    return getattr(st, "st_reparse_tag", 0) == getattr(stat, "IO_REPARSE_TAG_MOUNT_POINT", -1)


def link_leaving(folder: Path, *paths: Path) -> tuple[Path, str] | None:
    """``(component, target)`` for the first component of ``paths`` below ``folder`` that is a link or junction
    whose target is not inside ``folder`` (links followed, so a link within the folder is fine, and so is
    ``folder`` itself being a link: it is the user's choice of folder); None when there is none. Components that
    do not exist yet end the walk of their path."""
    real = os.path.normcase(os.path.realpath(folder))
    seen: set[Path] = set()
    for path in paths:
        if path.parts[: len(folder.parts)] != folder.parts:
            raise ValueError(f"{path} is not below {folder}")
        current = folder
        for part in path.parts[len(folder.parts):]:
            current = current / part
            if current in seen:
                continue
            seen.add(current)
            if not os.path.lexists(current):
                break
            if _is_link(str(current)):
                target = os.path.realpath(current)
                try:
                    inside = os.path.commonpath([os.path.normcase(target), real]) == real
                except ValueError:  # another drive on Windows
                    inside = False
                if not inside:
                    return current, target
    return None


def check_no_link_leaving(folder: Path, *paths: Path, what: str = "data folder") -> None:
    """Raise :class:`LinkOutsideError` in plain words when :func:`link_leaving` finds a link leaving ``folder``."""
    found = link_leaving(folder, *paths)
    if found is not None:
        component, target = found
        raise LinkOutsideError(
            f"{component} is a link to {target}, which is outside the {what} {folder}. The app writes only inside "
            f"its {what}, so it refuses to write there. Replace the link with a real folder (move what it points "
            "to back in its place), or choose a data folder on the other disk as a whole."
        )
