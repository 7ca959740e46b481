"""Build the standalone WM-CDP Desktop for the platform this runs on: ``python packaging/build.py``.

Output (in ``dist/`` unless ``--dist`` says otherwise):

- ``wmcdp-desktop-<version>-<platform>/``: one folder with the rater app (``wmcdp-desktop``), the
  coordinator command (``wmcdp``), the licence, the third-party notices and ``licenses/``; on macOS the
  rater app is ``WM-CDP Desktop.app`` inside that folder;
- ``wmcdp-desktop-<version>-<platform>.tar.gz`` (Linux), ``.zip`` (Windows, macOS): that folder, to send.

Needs PyInstaller (``pip install -e ".[packaging]"``). docs/PACKAGING.md explains the choices, how to sign
and notarise, and what is left in the folder and why.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import shutil
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SPEC = HERE / "wmcdp.spec"

# What the folder ships, by distribution (the licence files of each are copied into licenses/).
SHIPPED = ["PySide6-Essentials", "shiboken6", "pydantic", "pydantic-core", "annotated-types",
           "typing-extensions", "typing-inspection", "platformdirs", "filelock", "cryptography", "cffi",
           "pyinstaller"]
SHIPPED_WITH_ANALYSIS = ["numpy", "scipy", "matplotlib", "contourpy", "cycler", "fonttools",
                         "kiwisolver", "packaging", "pillow", "pyparsing", "python-dateutil", "pyarrow"]
LICENSE_NAME = re.compile(r"(LICEN[CS]E|COPYING|NOTICE|AUTHORS)", re.IGNORECASE)


class BuildError(Exception):
    """The build cannot go on (the message says why and what to do)."""


def version() -> str:
    text = (ROOT / "wmcdp_desktop" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"', text, re.MULTILINE)
    if not match:
        raise BuildError("wmcdp_desktop/__init__.py has no __version__")
    return match.group(1)


def platform_tag() -> str:
    """``linux-x86_64``, ``windows-x86_64``, ``macos-arm64``, ...: where the built app runs."""
    system = {"win32": "windows", "darwin": "macos"}.get(sys.platform, sys.platform)
    machine = platform.machine().lower()
    machine = {"amd64": "x86_64", "x64": "x86_64", "aarch64": "arm64"}.get(machine, machine)
    return f"{system}-{machine}"


def folder_name(*, with_analysis: bool) -> str:
    name = f"wmcdp-desktop-{version()}-{platform_tag()}"
    return name + "-analysis" if with_analysis else name


def folder_size(folder: Path) -> tuple[int, int]:
    """(bytes, files) of everything under ``folder`` (symbolic links count once, as links)."""
    total = count = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            total += path.stat().st_size
            count += 1
    return total, count


def _run_pyinstaller(dist: Path, work: Path, name: str, *, with_analysis: bool, prune_report: Path) -> None:
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        raise BuildError('PyInstaller is not installed here: pip install -e ".[packaging]"') from None
    command = [
        sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
        "--distpath", str(dist), "--workpath", str(work), str(SPEC),
        "--", "--name", name, "--prune-report", str(prune_report),
    ]
    if with_analysis:
        command.append("--with-analysis")
    if subprocess.run(command, cwd=ROOT, check=False).returncode != 0:
        raise BuildError("PyInstaller failed (its messages are above)")


def _licence_files(dist_name: str) -> list[tuple[str, Path]]:
    try:
        dist = metadata.distribution(dist_name)
    except metadata.PackageNotFoundError:
        raise BuildError(f"{dist_name} is not installed in this Python, so its licence cannot be shipped") from None
    found = []
    for file in dist.files or []:
        if LICENSE_NAME.search(file.name) and ("licenses" in file.parts or file.parts[0].endswith(".dist-info")):
            found.append((file.name, Path(str(dist.locate_file(file)))))
    return found


def _python_licence() -> Path:
    for base in (Path(sys.base_prefix), Path(sys.base_prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"):
        if (base / "LICENSE.txt").is_file():
            return base / "LICENSE.txt"
    return HERE / "licenses" / "Python-PSF.txt"  # Debian's python keeps it elsewhere; the PSF text of 3.11


def write_legal(target: Path, *, with_analysis: bool) -> list[dict[str, str]]:
    """LICENSE, THIRD-PARTY-NOTICES.md and licenses/ (every shipped component's own licence texts)."""
    shutil.copy2(ROOT / "LICENSE", target / "LICENSE")
    shutil.copy2(ROOT / "THIRD-PARTY-NOTICES.md", target / "THIRD-PARTY-NOTICES.md")
    licenses = target / "licenses"
    if licenses.exists():
        shutil.rmtree(licenses)
    licenses.mkdir()
    for text in sorted((HERE / "licenses").glob("*.txt")):
        if text.name != "Python-PSF.txt":
            shutil.copy2(text, licenses / text.name)
    shutil.copy2(_python_licence(), licenses / "Python-PSF.txt")
    shipped = []
    for dist_name in SHIPPED + (SHIPPED_WITH_ANALYSIS if with_analysis else []):
        dist = metadata.distribution(dist_name) if _installed(dist_name) else None
        if dist is None:
            raise BuildError(f"{dist_name} is not installed in this Python, so its licence cannot be shipped")
        folder = licenses / dist.metadata["Name"]
        for file_name, source in _licence_files(dist_name):
            folder.mkdir(exist_ok=True)
            shutil.copy2(source, folder / file_name)
        shipped.append({"name": dist.metadata["Name"], "version": dist.version, "license": _licence_name(dist)})
    shipped.append({"name": "Python", "version": platform.python_version(), "license": "PSF-2.0"})
    lines = [f"{s['name']} {s['version']}: {s['license']}" for s in shipped]
    (licenses / "VERSIONS.txt").write_text(
        "Components shipped in this build, with the licence their metadata declares.\n"
        "Full texts: the files in this folder; what each licence asks of you: THIRD-PARTY-NOTICES.md.\n\n"
        + "\n".join(lines) + "\n",
        encoding="utf-8",
    )
    return shipped


def _licence_name(dist: metadata.Distribution) -> str:
    """The licence a distribution declares: its SPDX expression, a one-line License field, or its classifier."""
    expression = dist.metadata.get("License-Expression")
    if expression:
        return str(expression)
    field = (dist.metadata.get("License") or "").strip()
    if field and "\n" not in field and len(field) <= 200:
        return field
    classifiers = [c.split(" :: ")[-1] for c in dist.metadata.get_all("Classifier") or [] if c.startswith("License ::")]
    return ", ".join(classifiers) or "see its folder in licenses/"


def _installed(dist_name: str) -> bool:
    try:
        metadata.distribution(dist_name)
    except metadata.PackageNotFoundError:
        return False
    return True


def check_linux_links(folder: Path) -> list[str]:
    """Every bundled library asked for by a shipped binary is in the folder (left-out ones would abort)."""
    if not sys.platform.startswith("linux") or shutil.which("objdump") is None:
        return []
    names = {p.name for p in folder.rglob("*") if p.is_file()}
    bundled_kinds = re.compile(r"^lib(Qt6|pyside6|shiboken6|icu|python3)")
    problems = []
    for path in folder.rglob("*"):
        if not path.is_file() or not (path.suffix == ".so" or ".so." in path.name):
            continue
        out = subprocess.run(["objdump", "-p", str(path)], capture_output=True, text=True, check=False).stdout
        for needed in re.findall(r"^\s*NEEDED\s+(\S+)", out, re.MULTILINE):
            if bundled_kinds.match(needed) and needed not in names:
                problems.append(f"{path.relative_to(folder)} needs {needed}, which was left out")
    return problems


def make_archive(folder: Path) -> Path:
    """``<folder>.tar.gz`` on Linux (keeps permissions and links), ``<folder>.zip`` elsewhere."""
    if sys.platform.startswith("linux"):
        return Path(shutil.make_archive(str(folder), "gztar", root_dir=folder.parent, base_dir=folder.name))
    if sys.platform == "darwin" and shutil.which("ditto"):
        archive = folder.with_name(folder.name + ".zip")
        archive.unlink(missing_ok=True)
        subprocess.run(["ditto", "-c", "-k", "--sequesterRsrc", "--keepParent", str(folder), str(archive)], check=True)
        return archive
    return Path(shutil.make_archive(str(folder), "zip", root_dir=folder.parent, base_dir=folder.name))


def build(dist: Path, work: Path, *, with_analysis: bool, archive: bool) -> dict[str, object]:
    started = time.monotonic()
    name = folder_name(with_analysis=with_analysis)
    dist = dist.resolve()
    work = work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    prune_report = work / "pruned.json"
    _run_pyinstaller(dist, work, name, with_analysis=with_analysis, prune_report=prune_report)
    folder = dist / name
    if sys.platform == "darwin":  # the .app and the command-line folder go side by side in one folder
        app = dist / "WM-CDP Desktop.app"
        staged = dist / (name + "-staging")
        if staged.exists():
            shutil.rmtree(staged)
        staged.mkdir()
        shutil.move(str(app), staged / app.name)
        shutil.move(str(folder), staged / "command-line")
        staged.rename(folder)
    shipped = write_legal(folder, with_analysis=with_analysis)
    problems = check_linux_links(folder)
    if problems:
        raise BuildError("the pruned build would not start:\n  " + "\n  ".join(problems))
    size, files = folder_size(folder)
    pruned = json.loads(prune_report.read_text(encoding="utf-8")) if prune_report.exists() else []
    result: dict[str, object] = {
        "folder": str(folder),
        "bytes": size,
        "files": files,
        "left_out_bytes": sum(int(d["bytes"]) for d in pruned),
        "left_out_files": len(pruned),
        "shipped": shipped,
    }
    if archive:
        archive_path = make_archive(folder)
        result["archive"] = str(archive_path)
        result["archive_bytes"] = archive_path.stat().st_size
    result["seconds"] = round(time.monotonic() - started, 1)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python packaging/build.py",
        description="Build the standalone WM-CDP Desktop (rater app + wmcdp command) for this platform.",
    )
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="where the folder and archive go (default dist/)")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "pyinstaller",
                        help="PyInstaller's work folder (default build/pyinstaller/)")
    parser.add_argument("--with-analysis", action="store_true",
                        help="also ship numpy, scipy, matplotlib and pyarrow so that `wmcdp report` works "
                        "(about three times larger)")
    parser.add_argument("--no-archive", action="store_true", help="build the folder only")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    try:
        result = build(args.dist, args.work, with_analysis=args.with_analysis, archive=not args.no_archive)
    except (BuildError, OSError, subprocess.CalledProcessError) as exc:
        print(f"build failed: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    mb = 1024 * 1024
    print(f"built {result['folder']}")
    print(f"  {int(result['bytes']) / mb:.1f} MB in {result['files']} files; left out {int(result['left_out_bytes']) / mb:.1f} MB "
          f"in {result['left_out_files']} files that the app never loads")
    if "archive" in result:
        print(f"  archive: {result['archive']} ({int(result['archive_bytes']) / mb:.1f} MB)")
    print(f"  {result['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
