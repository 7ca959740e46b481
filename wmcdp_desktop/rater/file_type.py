"""Double-clicking a ``.wmcdp`` file opens it in the app: the file type registered for the rater alone, with
no administrator rights (``wmcdp-desktop --register-file-type``; docs/PACKAGING.md, RATER_GUIDE.md).

- Linux (freedesktop): a shared-mime-info type ``application/x-wmcdp-bundle`` for ``*.wmcdp`` in
  ``$XDG_DATA_HOME/mime/packages``, a ``.desktop`` entry in ``$XDG_DATA_HOME/applications`` that opens such
  files, the app made their default in ``$XDG_CONFIG_HOME/mimeapps.list``; then ``update-mime-database`` and
  ``update-desktop-database`` where the desktop has them.
- Windows: ``HKEY_CURRENT_USER\\Software\\Classes`` (``.wmcdp`` -> ``WMCDP.Bundle`` -> the app's
  ``"…\\wmcdp-desktop.exe" "%1"``), then the shell is told that associations changed.
- macOS: nothing to do here: the app bundle's ``Info.plist`` declares the type (packaging/wmcdp.spec), and
  the Finder reads it once the app is in Applications.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from wmcdp_desktop.core.atomic import atomic_write_text
from wmcdp_desktop.core.errors import WmcdpError

MIME_TYPE = "application/x-wmcdp-bundle"
DESKTOP_ID = "wmcdp-desktop.desktop"
MIME_FILE = "wmcdp-desktop.xml"
WINDOWS_PROG_ID = "WMCDP.Bundle"
DESCRIPTION = "WM-CDP rating bundle"
MACOS_TYPE_ID = "org.wholemind.wmcdp.bundle"
"""The uniform type identifier of a bundle (the app bundle's Info.plist, packaging/wmcdp.spec)."""


class FileTypeError(WmcdpError):
    """The file type could not be registered (the message says what failed and where)."""


def launcher() -> Path:
    """The program a double-click starts: the built app itself, else the installed ``wmcdp-desktop``."""
    if getattr(sys, "frozen", False):
        return Path(sys.executable).resolve()
    found = shutil.which("wmcdp-desktop") or shutil.which("wmcdp-desktop", path=str(Path(sys.executable).parent))
    if found:
        return Path(found).resolve()
    raise FileTypeError("the wmcdp-desktop program was not found (install the app, or start the built one)")


def _quote_exec(path: Path) -> str:
    """``path`` as one argument of a desktop entry's Exec key (quoted, with its reserved characters escaped)."""
    text = str(path)
    for ch in ("\\", '"', "`", "$"):
        text = text.replace(ch, "\\" + ch)
    return '"' + text.replace("%", "%%") + '"'


def desktop_entry(program: Path) -> str:
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        "Name=WM-CDP Desktop\n"
        "GenericName=Rating tool\n"
        "Comment=Rate blinded AI responses for the WM-CDP benchmark\n"
        f"Exec={_quote_exec(program)} %f\n"
        f"MimeType={MIME_TYPE};\n"
        "Terminal=false\n"
        "Categories=Education;Science;MedicalSoftware;\n"
        "NoDisplay=false\n"
    )


def mime_package() -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">\n'
        f'  <mime-type type="{MIME_TYPE}">\n'
        f"    <comment>{DESCRIPTION}</comment>\n"
        '    <sub-class-of type="application/zip"/>\n'
        '    <glob pattern="*.wmcdp" weight="90"/>\n'
        "  </mime-type>\n"
        "</mime-info>\n"
    )


def with_default(mimeapps: str, mime_type: str, desktop_id: str) -> str:
    """``mimeapps.list`` with ``desktop_id`` the default for ``mime_type`` (every other line kept as it was)."""
    lines = mimeapps.splitlines()
    entry = f"{mime_type}={desktop_id};"
    section = "[Default Applications]"
    if section not in (line.strip() for line in lines):
        return "\n".join([*lines, *([""] if lines else []), section, entry]) + "\n"
    out, inside, done = [], False, False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("["):
            if inside and not done:
                out.append(entry)
                done = True
            inside = stripped == section
        elif inside and stripped.split("=", 1)[0].strip() == mime_type:
            if not done:
                out.append(entry)
                done = True
            continue
        out.append(line)
    if inside and not done:
        out.append(entry)
    return "\n".join(out) + "\n"


def _xdg(variable: str, default: str) -> Path:
    value = os.environ.get(variable, "")
    return Path(value) if value and Path(value).is_absolute() else Path.home() / default


def register_linux(program: Path) -> list[str]:
    data, config = _xdg("XDG_DATA_HOME", ".local/share"), _xdg("XDG_CONFIG_HOME", ".config")
    desktop = data / "applications" / DESKTOP_ID
    mime = data / "mime" / "packages" / MIME_FILE
    mimeapps = config / "mimeapps.list"
    try:
        for folder in (desktop.parent, mime.parent, config):
            folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(desktop, desktop_entry(program))
        atomic_write_text(mime, mime_package())
        old = mimeapps.read_text(encoding="utf-8") if mimeapps.is_file() else ""
        atomic_write_text(mimeapps, with_default(old, MIME_TYPE, DESKTOP_ID))
    except (OSError, WmcdpError) as exc:
        raise FileTypeError(f"the file type could not be registered: {exc}") from None
    done = [f"wrote {desktop}", f"wrote {mime}", f"made WM-CDP Desktop the default for .wmcdp files in {mimeapps}"]
    for tool, folder in (("update-mime-database", data / "mime"), ("update-desktop-database", desktop.parent)):
        exe = shutil.which(tool)
        if exe is None:
            done.append(f"{tool} is not installed: the desktop picks the change up at its next start")
            continue
        run = subprocess.run([exe, str(folder)], capture_output=True, text=True, check=False, timeout=60)
        done.append(f"ran {tool}" if run.returncode == 0 else f"{tool} failed: {(run.stderr or run.stdout).strip()}")
    done.append(f".wmcdp files now open with {program}")
    return done


def windows_entries(program: Path) -> list[tuple[str, str, str]]:
    """(key under HKEY_CURRENT_USER, value name, data) for the association ("" names the default value)."""
    command = f'"{program}" "%1"'
    return [
        (r"Software\Classes\.wmcdp", "", WINDOWS_PROG_ID),
        (r"Software\Classes\.wmcdp", "Content Type", MIME_TYPE),
        (rf"Software\Classes\{WINDOWS_PROG_ID}", "", DESCRIPTION),
        (rf"Software\Classes\{WINDOWS_PROG_ID}\DefaultIcon", "", f'"{program}",0'),
        (rf"Software\Classes\{WINDOWS_PROG_ID}\shell\open\command", "", command),
    ]


def register_windows(program: Path) -> list[str]:
    if sys.platform != "win32":
        raise FileTypeError("the Windows registry is only on Windows")
    import ctypes
    import winreg

    try:
        for key, name, value in windows_entries(program):
            with winreg.CreateKeyEx(winreg.HKEY_CURRENT_USER, key, 0, winreg.KEY_SET_VALUE) as handle:
                winreg.SetValueEx(handle, name, 0, winreg.REG_SZ, value)
    except OSError as exc:
        raise FileTypeError(f"the file type could not be registered: {exc}") from None
    shcne_assocchanged, shcnf_idlist = 0x08000000, 0
    ctypes.windll.shell32.SHChangeNotify(shcne_assocchanged, shcnf_idlist, None, None)
    return [r"registered .wmcdp for you in HKEY_CURRENT_USER\Software\Classes", f".wmcdp files now open with {program}"]


def register_file_type() -> list[str]:
    """Register ``.wmcdp`` for this user on this system; what was done, one line each (FileTypeError)."""
    if sys.platform == "darwin":
        return [
            "On macOS the app registers .wmcdp itself: move \"WM-CDP Desktop.app\" to Applications and open it "
            "once; then double-click a bundle (or right-click > Open With > WM-CDP Desktop)."
        ]
    program = launcher()
    if sys.platform == "win32":
        return register_windows(program)
    return register_linux(program)
