"""``wmcdp-desktop --register-file-type``: the per-user file association a double-click needs. On Linux the
files it writes are what the freedesktop tools accept (``desktop-file-validate`` where installed, else
parsed), the rater's own mimeapps.list keeps its other lines; the Windows keys are per user (HKCU)."""

from __future__ import annotations

import configparser
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from wmcdp_desktop.rater import file_type

SHARED_MIME = "{http://www.freedesktop.org/standards/shared-mime-info}"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path


def test_linux_registration_writes_a_valid_desktop_entry_mime_type_and_default(home: Path) -> None:
    program = home / "Apps" / "WM-CDP Desktop 0.1 (test)" / "wmcdp-desktop"
    (home / "config").mkdir()
    (home / "config" / "mimeapps.list").write_text(
        "# mine\n[Default Applications]\ntext/plain=gedit.desktop;\n[Added Associations]\nimage/png=eog.desktop;\n",
        encoding="utf-8",
    )
    done = file_type.register_linux(program)
    desktop = home / "share" / "applications" / file_type.DESKTOP_ID
    mime = home / "share" / "mime" / "packages" / file_type.MIME_FILE
    assert f"wrote {desktop}" in done and f"wrote {mime}" in done
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(desktop, encoding="utf-8")
    d = entry["Desktop Entry"]
    assert d["Type"] == "Application" and d["MimeType"] == f"{file_type.MIME_TYPE};"
    assert d["Exec"] == f'"{program}" %f'  # the path with spaces quoted, the file as one argument
    validator = shutil.which("desktop-file-validate")
    if validator:
        checked = subprocess.run([validator, str(desktop)], capture_output=True, text=True, check=False)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    root = ET.parse(mime).getroot()
    kind = root.find(f"{SHARED_MIME}mime-type")
    assert kind is not None and kind.get("type") == file_type.MIME_TYPE
    assert [g.get("pattern") for g in kind.findall(f"{SHARED_MIME}glob")] == ["*.wmcdp"]
    apps = (home / "config" / "mimeapps.list").read_text(encoding="utf-8")
    assert apps.startswith("# mine\n[Default Applications]\ntext/plain=gedit.desktop;\n")
    assert f"{file_type.MIME_TYPE}={file_type.DESKTOP_ID};" in apps and "image/png=eog.desktop;" in apps
    file_type.register_linux(program)  # again: one entry, not two
    assert (home / "config" / "mimeapps.list").read_text(encoding="utf-8").count(file_type.MIME_TYPE) == 1


@pytest.mark.parametrize(("before", "after"), [
    ("", "[Default Applications]\napplication/x-wmcdp-bundle=wmcdp-desktop.desktop;\n"),
    ("[Added Associations]\na/b=c;\n",
     "[Added Associations]\na/b=c;\n\n[Default Applications]\napplication/x-wmcdp-bundle=wmcdp-desktop.desktop;\n"),
    ("[Default Applications]\napplication/x-wmcdp-bundle=ark.desktop;\nx/y=z;\n",
     "[Default Applications]\napplication/x-wmcdp-bundle=wmcdp-desktop.desktop;\nx/y=z;\n"),
])
def test_the_default_application_is_set_keeping_every_other_line(before: str, after: str) -> None:
    assert file_type.with_default(before, file_type.MIME_TYPE, file_type.DESKTOP_ID) == after


def test_a_path_with_reserved_characters_is_escaped_in_the_exec_key() -> None:
    entry = file_type.desktop_entry(Path('/opt/odd "name" $HOME 100%/wmcdp-desktop'))
    assert 'Exec="/opt/odd \\"name\\" \\$HOME 100%%/wmcdp-desktop" %f\n' in entry


def test_windows_association_is_per_user_and_passes_the_file_as_one_argument() -> None:
    program = Path(r"C:\Users\Ana María\AppData\Local\WM-CDP Desktop\wmcdp-desktop.exe")
    entries = file_type.windows_entries(program)
    assert all(key.startswith("Software\\Classes\\") for key, _, _ in entries)  # under HKEY_CURRENT_USER
    values = {(key, name): value for key, name, value in entries}
    assert values[("Software\\Classes\\.wmcdp", "")] == file_type.WINDOWS_PROG_ID
    assert values[(f"Software\\Classes\\{file_type.WINDOWS_PROG_ID}\\shell\\open\\command", "")] == f'"{program}" "%1"'


def test_the_macos_app_bundle_declares_the_type(repo_root: Path) -> None:
    spec = (repo_root / "packaging" / "wmcdp.spec").read_text(encoding="utf-8")
    assert "CFBundleDocumentTypes" in spec and "UTExportedTypeDeclarations" in spec
    assert f'"{file_type.MACOS_TYPE_ID}"' in spec and '"public.filename-extension": ["wmcdp"]' in spec
