"""Crash logs: what went wrong when the app or a command failed unexpectedly, for the developers.

Written in the user's own log folder (``platformdirs.user_log_dir``, e.g. ``~/.local/state/wmcdp-desktop/log``
on Linux, ``%LOCALAPPDATA%\\wmcdp-desktop\\Logs`` on Windows), never in the shared temp folder; each log has
a new, unique name and is created with ``O_CREAT | O_EXCL`` and, where the system has it, ``O_NOFOLLOW``
inside a folder opened without following links, so a planted link can never make a crash overwrite
another file. Owner-only (0600). The log holds what a developer needs and nothing of the ratings: the
program and its version, Python, the system, the exception's type, message and traceback (no local
variables). The newest :data:`KEEP` logs are kept.
"""

from __future__ import annotations

import contextlib
import os
import platform
import sys
import time
import traceback
import uuid
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

from wmcdp_desktop import __version__

APP_DIR_NAME = "wmcdp-desktop"
KEEP = 20
"""Crash logs kept per program; older ones are removed when a new one is written."""
_SUFFIX = ".log"


def log_dir() -> Path:
    """The user's own log folder for WM-CDP Desktop and ``wmcdp``."""
    import platformdirs

    return Path(platformdirs.user_log_dir(APP_DIR_NAME, appauthor=False))


def crash_report(
    program: str,
    kind: type[BaseException],
    exc: BaseException,
    tb: TracebackType | None,
    context: Mapping[str, str] | None = None,
) -> str:
    """The text of a crash log."""
    lines = [
        f"{program} {__version__} crashed at {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}",
        f"Python {platform.python_version()} ({sys.executable}) on {platform.platform()}",
        *(f"{key}: {value}" for key, value in (context or {}).items()),
        f"Error: {kind.__name__}: {exc}",
        "",
        "".join(traceback.format_exception(kind, exc, tb)),
    ]
    return "\n".join(lines)


def write_crash_log(
    program: str,
    kind: type[BaseException],
    exc: BaseException,
    tb: TracebackType | None,
    context: Mapping[str, str] | None = None,
    folder: Path | None = None,
) -> Path | None:
    """Write a new crash log for ``program`` (``wmcdp`` or ``wmcdp-desktop``); its path, or None when it
    could not be written (the caller says so; a crash log must never cause a second failure)."""
    folder = folder or log_dir()
    name = new_log_name(program)
    data = crash_report(program, kind, exc, tb, context).encode("utf-8", "backslashreplace")
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        _write_new(folder, name, data)
    except OSError:
        return None
    _prune(folder, program)
    return folder / name


def new_log_name(program: str) -> str:
    """``<program>-error-<UTC time>-<pid>-<random>.log``: never the name of an earlier log."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return f"{program}-error-{stamp}-{os.getpid()}-{uuid.uuid4().hex[:8]}{_SUFFIX}"


def _write_new(folder: Path, name: str, data: bytes) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    if os.open in os.supports_dir_fd and hasattr(os, "O_DIRECTORY") and hasattr(os, "O_NOFOLLOW"):
        # The folder itself is opened without following a link, and the file created inside it.
        dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            fd = os.open(name, flags, 0o600, dir_fd=dir_fd)
        finally:
            os.close(dir_fd)
    else:
        fd = os.open(folder / name, flags, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _prune(folder: Path, program: str) -> None:
    """Keep the newest :data:`KEEP` logs of ``program`` (by name: the names start with the UTC time)."""
    with contextlib.suppress(OSError):
        prefix = f"{program}-error-"
        logs = sorted(
            entry.name
            for entry in os.scandir(folder)
            if entry.name.startswith(prefix) and entry.name.endswith(_SUFFIX) and entry.is_file(follow_symlinks=False)
        )
        for old in logs[:-KEEP]:
            with contextlib.suppress(OSError):
                (folder / old).unlink()
