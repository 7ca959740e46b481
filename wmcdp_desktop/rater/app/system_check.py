"""Before Qt starts on Linux: the system libraries its X11 (xcb) window plugin loads.

Without one of them Qt aborts the process with a message that names only ``libxcb-cursor0`` (Debian 12
lacks ``libxcb-icccm4`` and ``libxcb-keysyms1`` as well on a minimal desktop). The app checks first and
says exactly which packages to install. Each library is opened with the system's loader, as Qt would:
about a millisecond, and only where the X11 plugin is going to be used.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Mapping

from PySide6.QtCore import QCoreApplication

# The libraries Qt's xcb plugin links (beyond libX11/libxcb, which every X11 desktop has), with the
# Debian/Ubuntu package of each. README.md lists the same set ("Linux system libraries").
XCB_LIBRARIES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libX11-xcb.so.1": "libx11-xcb1",
}


def uses_xcb(environ: Mapping[str, str], platform: str = sys.platform) -> bool:
    """Whether Qt will pick its X11 plugin: Linux, no other plugin asked for, not a Wayland session."""
    if not platform.startswith("linux"):
        return False
    asked = environ.get("QT_QPA_PLATFORM", "").strip()
    if asked:
        return asked.split(";")[0].split(":")[0] == "xcb"
    return not environ.get("WAYLAND_DISPLAY")


def missing_xcb_packages(environ: Mapping[str, str] = os.environ, platform: str = sys.platform) -> list[str]:
    """The Debian/Ubuntu packages to install before Qt can open a window here (empty: nothing missing)."""
    if not uses_xcb(environ, platform):
        return []
    missing = []
    for library, package in XCB_LIBRARIES.items():
        try:
            ctypes.CDLL(library)
        except OSError:
            missing.append(package)
    return missing


def missing_message(packages: list[str]) -> str:
    """What to tell the user (printed: no window can be shown)."""
    return QCoreApplication.translate(
        "system_check",
        "WM-CDP Desktop cannot open its window: this computer lacks system libraries that Qt needs to show "
        "windows on X11.\nOn Debian or Ubuntu, install them with:\n  sudo apt install {packages}\n"
        "(Other Linux systems: install the xcb-util libraries of the same names.)",
    ).format(packages=" ".join(packages))
