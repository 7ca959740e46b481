"""On Linux, missing X11 libraries are named with the packages to install, instead of Qt's abort."""

from __future__ import annotations

import ctypes
from typing import Any

import pytest

from wmcdp_desktop.rater.app import main as app_module
from wmcdp_desktop.rater.app import system_check


@pytest.mark.parametrize(
    ("environ", "platform", "expected"),
    [
        ({}, "linux", True),
        ({"QT_QPA_PLATFORM": "xcb"}, "linux", True),
        ({"QT_QPA_PLATFORM": "xcb:display=:1"}, "linux", True),
        ({"QT_QPA_PLATFORM": "offscreen"}, "linux", False),
        ({"QT_QPA_PLATFORM": "wayland;xcb"}, "linux", False),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", False),
        ({}, "win32", False),
        ({}, "darwin", False),
    ],
)
def test_only_the_x11_plugin_is_checked(environ: dict[str, str], platform: str, expected: bool) -> None:
    assert system_check.uses_xcb(environ, platform) is expected


def test_missing_libraries_are_named_by_package(monkeypatch: pytest.MonkeyPatch) -> None:
    real = ctypes.CDLL

    def cdll(name: str, *args: Any, **kwargs: Any) -> Any:
        if name in ("libxcb-icccm.so.4", "libxcb-keysyms.so.1"):
            raise OSError(f"{name}: cannot open shared object file")
        return real(name, *args, **kwargs) if name not in system_check.XCB_LIBRARIES else object()

    monkeypatch.setattr(ctypes, "CDLL", cdll)
    assert system_check.missing_xcb_packages({}, "linux") == ["libxcb-icccm4", "libxcb-keysyms1"]
    assert system_check.missing_xcb_packages({"QT_QPA_PLATFORM": "offscreen"}, "linux") == []


def test_app_says_what_to_install_before_qt_would_abort(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setattr(app_module.QApplication, "instance", staticmethod(lambda: None))
    monkeypatch.setattr(app_module, "missing_xcb_packages", lambda: ["libxcb-icccm4", "libxcb-keysyms1"])
    assert app_module.main(["--demo"]) == 1
    err = capsys.readouterr().err
    assert "sudo apt install libxcb-icccm4 libxcb-keysyms1" in err
    assert "Traceback" not in err
