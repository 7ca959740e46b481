"""The standalone app, as a clinician gets it: built with PyInstaller from the tracked files alone (what a
clean checkout has), then started as a program without the developer's Python.

The built ``wmcdp-desktop`` opens the demo bundle offscreen, rates one task through its real window and
exports the results (its ``--self-test``); the built ``wmcdp`` and the developer's ``wmcdp`` both accept
the export. Hostile bundles are refused with the app's plain message: exit 1, no traceback, no hang.
The build takes about a minute on two cores (docs/PACKAGING.md).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

import wmcdp_desktop

pytestmark = [pytest.mark.packaging, pytest.mark.slow, pytest.mark.timeout(900)]

SIZE_LIMIT_MB = 120
"""The Linux rater app, unpacked, besides the `cryptography` package (docs/PACKAGING.md says what is in it):
encrypted bundles may grow the rater's install by that package and no more."""
IGNORED = shutil.ignore_patterns(".git", ".venv", "build", "dist", "__pycache__", ".*_cache", ".hypothesis")


def _tracked_copy(repo: Path, dest: Path) -> None:
    """Copy the files git tracks (a clean checkout); without git, the folder minus build and cache folders."""
    git = shutil.which("git")
    listed = (
        subprocess.run([git, "-C", str(repo), "ls-files", "-z"], capture_output=True, check=False)
        if git and (repo / ".git").exists()
        else None
    )
    if listed is None or listed.returncode != 0 or not listed.stdout:
        shutil.copytree(repo, dest, ignore=IGNORED)
        return
    for name in filter(None, listed.stdout.decode("utf-8").split("\0")):
        source = repo / name
        if source.is_file():  # a tracked file deleted in the working tree is not copied
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


def _run(
    command: list[str], *, timeout: float = 120, cwd: Path | None = None, home: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = _env()
    if home is not None:  # the rater's own folders: a fresh home
        env.update(HOME=str(home), XDG_DATA_HOME=str(home / ".local" / "share"), XDG_CONFIG_HOME=str(home / ".config"))
    return subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd, stdin=subprocess.DEVNULL
    )


@pytest.fixture(scope="module")
def built(repo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if not sys.platform.startswith("linux"):
        pytest.skip("this test builds and starts the Linux app; on Windows and macOS run "
                    "`python packaging/build.py` and the built app's --self-test (docs/PACKAGING.md)")
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        pytest.skip('PyInstaller is not installed: pip install -e ".[packaging]" (the dev extra has it)')
    tmp = tmp_path_factory.mktemp("standalone")
    source = tmp / "checkout"
    _tracked_copy(repo_root, source)
    result = _run(
        [sys.executable, str(source / "packaging" / "build.py"), "--dist", str(tmp / "dist"),
         "--work", str(tmp / "work"), "--json"],
        timeout=800, cwd=source,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    info: dict[str, Any] = json.loads(result.stdout)
    info["tmp"] = tmp
    return info


def _folder(built: dict[str, Any]) -> Path:
    return Path(built["folder"])


def test_build_is_one_named_folder_and_archive_with_licences_under_the_size_limit(built: dict[str, Any]) -> None:
    folder = _folder(built)
    machine = {"amd64": "x86_64", "aarch64": "arm64"}.get(platform.machine().lower(), platform.machine().lower())
    assert folder.name == f"wmcdp-desktop-{wmcdp_desktop.__version__}-linux-{machine}"
    archive = Path(built["archive"])
    assert archive.name == folder.name + ".tar.gz" and archive.stat().st_size > 10_000_000
    for name in ("wmcdp-desktop", "wmcdp"):
        assert os.access(folder / name, os.X_OK), name
    for name in ("LICENSE", "THIRD-PARTY-NOTICES.md", "licenses/LGPL-3.0.txt", "licenses/GPL-3.0.txt",
                 "licenses/Python-PSF.txt", "licenses/pydantic/LICENSE", "licenses/VERSIONS.txt"):
        assert (folder / name).is_file(), name
    assert "Apache License" in (folder / "LICENSE").read_text(encoding="utf-8")
    assert "PySide6_Essentials" in (folder / "licenses" / "VERSIONS.txt").read_text(encoding="utf-8")
    # the app's catalogues and Qt's own for each language the app ships (the other Qt languages are pruned)
    shipped = {p.name for p in folder.rglob("*.qm")}
    assert {"wmcdp_en.qm", "wmcdp_es.qm", "qtbase_es.qm"} <= shipped, sorted(shipped)
    assert "qtbase_de.qm" not in shipped
    crypto = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and "cryptography" in p.parts)
    installed = sum((f.size or 0) for f in importlib.metadata.files("cryptography") or [])
    assert 0 < crypto <= installed, f"cryptography: {crypto} bytes in the app, {installed} installed"
    size_mb = (built["bytes"] - crypto) / 1024 / 1024
    assert size_mb <= SIZE_LIMIT_MB, f"the built app is {size_mb:.1f} MB besides cryptography (limit {SIZE_LIMIT_MB} MB)"


def test_built_app_rates_a_task_offscreen_and_its_export_validates(built: dict[str, Any], repo_root: Path) -> None:
    folder = _folder(built)
    data = built["tmp"] / "rater-data"
    result = _run([str(folder / "wmcdp-desktop"), "--data-dir", str(data), "--rater", "R", "--self-test"])
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("self-test: window ready with task ")
    assert lines[-1] == "self-test: passed"
    export = data / "self-test-results.zip"
    with zipfile.ZipFile(export) as z:
        assert "manifest.json" in z.namelist()
        assert any(n.startswith("records/") for n in z.namelist())
    demo = folder / "_internal" / "wmcdp_desktop" / "_resources" / "demo-bundle.wmcdp"
    frozen = _run([str(folder / "wmcdp"), "results", "validate", str(export), "--bundle", str(demo), "--json"])
    assert frozen.returncode == 0, frozen.stdout + frozen.stderr
    assert json.loads(frozen.stdout)["ok"] is True
    # The developer's wmcdp, independent of the build, agrees.
    here = _run([sys.executable, "-m", "wmcdp_desktop.coordinator.commands.main", "results", "validate", str(export),
                 "--bundle", str(repo_root / "resources" / "demo-bundle.wmcdp")], cwd=repo_root)
    assert here.returncode == 0, here.stdout + here.stderr


def test_built_app_self_test_alone_as_the_readme_gives_it(built: dict[str, Any]) -> None:
    """``./wmcdp-desktop --self-test`` in the unpacked folder, nothing else: the built-in demo, exit 0."""
    folder = _folder(built)
    home = built["tmp"] / "fresh-home"
    home.mkdir()
    result = _run(["./wmcdp-desktop", "--self-test"], cwd=folder, home=home)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "self-test: passed"
    assert not any(home.rglob("*.json")), "the self-test wrote into the rater's own folders"


def _not_a_zip(path: Path) -> None:
    path.write_bytes(b"PK\x03\x04 this is not really a zip " * 100)


def _escaping_member(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("bundle.json", "{}")
        z.writestr("../../escaped.txt", "written outside the bundle")


def _zip_bomb(path: Path) -> None:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("bundle.json", b"\0" * (64 * 1024 * 1024))


def _duplicate_keys(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("bundle.json", '{"document_type": "wmcdp_bundle", "document_type": "x"}')


@pytest.mark.parametrize("make", [_not_a_zip, _escaping_member, _zip_bomb, _duplicate_keys], ids=lambda f: f.__name__)
def test_built_app_refuses_a_hostile_bundle_cleanly(built: dict[str, Any], make: Any) -> None:
    folder = _folder(built)
    work = built["tmp"] / f"hostile-{make.__name__}"
    (work / "in").mkdir(parents=True)
    bundle = work / "in" / "bundle.wmcdp"
    make(bundle)
    result = _run([str(folder / "wmcdp-desktop"), str(bundle), "--data-dir", str(work / "data"), "--rater", "R",
                   "--self-test"], timeout=60)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert "self-test: FAILED: the bundle was refused" in result.stdout
    assert "This bundle cannot be opened" in result.stdout
    assert str(bundle) in result.stdout
    assert not (work / "escaped.txt").exists() and not (work / "in" / "escaped.txt").exists()


def test_built_wmcdp_works_without_python_and_says_what_report_needs(built: dict[str, Any]) -> None:
    folder = _folder(built)
    version = _run([str(folder / "wmcdp"), "--version"])
    assert version.stdout.strip() == f"wmcdp {wmcdp_desktop.__version__}"
    demo = folder / "_internal" / "wmcdp_desktop" / "_resources" / "demo-bundle.wmcdp"
    verify = _run([str(folder / "wmcdp"), "bundle", "verify", str(demo)])
    assert verify.returncode == 0 and "valid bundle" in verify.stdout, verify.stdout + verify.stderr
    report = _run([str(folder / "wmcdp"), "report", str(folder), "--study", str(folder), "--out", str(folder / "r")])
    assert report.returncode == 1
    assert "standalone build" in report.stderr and "--with-analysis" in report.stderr
    assert "Traceback" not in report.stderr
    assert (folder / "_internal" / "wmcdp_desktop" / "_legal" / "THIRD-PARTY-NOTICES.md").is_file()
