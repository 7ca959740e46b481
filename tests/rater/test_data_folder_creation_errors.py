"""``core/storage.make_folder`` on odd paths: every failure is a plain :class:`StorageError`, never a raw
``OSError``, and a file (or a dangling link) in the way is refused rather than taken for the folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wmcdp_desktop.core.errors import StorageError
from wmcdp_desktop.rater.storage import InstanceLock, RaterStore, make_folder

POSIX = os.name == "posix"


def test_a_file_where_the_folder_should_be_is_refused(tmp_path: Path) -> None:
    in_the_way = tmp_path / "data"
    in_the_way.write_text("not a folder", encoding="utf-8")
    with pytest.raises(StorageError, match=r"Could not create the folder .*data"):
        make_folder(in_the_way)
    with pytest.raises(StorageError, match="Could not create the folder"):
        make_folder(in_the_way / "bundles" / "B")
    assert in_the_way.read_text(encoding="utf-8") == "not a folder"


def test_a_file_in_place_of_a_store_folder_is_a_plain_error(tmp_path: Path) -> None:
    store = RaterStore(tmp_path / "data", "B1", "R01")
    store.root.mkdir(parents=True)
    store.drafts_dir.write_text("x", encoding="utf-8")
    with pytest.raises(StorageError, match=r"Could not create the folder .*drafts"):
        store.ensure()


@pytest.mark.skipif(not POSIX, reason="symbolic links")
def test_a_dangling_link_in_place_of_the_folder_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "data"
    link.symlink_to(tmp_path / "nowhere")
    with pytest.raises(StorageError, match=r"Could not create the folder .*data"):
        make_folder(link)
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.skipif(not POSIX, reason="symbolic links")
def test_a_symlinked_data_folder_is_used_as_is(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "data").symlink_to(real)
    make_folder(tmp_path / "data" / "bundles" / "B")
    assert (real / "bundles" / "B").is_dir()


def test_relative_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    make_folder(Path("rel") / "a" / "b")
    make_folder(Path("rel") / "a" / "b")  # already there: nothing to do
    assert (tmp_path / "rel" / "a" / "b").is_dir()


_UNSEARCHABLE_CHECK = """
import sys
from pathlib import Path
from wmcdp_desktop.core.errors import StorageError
from wmcdp_desktop.rater.storage import InstanceLock, make_folder
target = Path(sys.argv[1])
for attempt in (lambda: make_folder(target / "data"), lambda: InstanceLock(target / "data").acquire()):
    try:
        attempt()
    except StorageError as exc:
        print("StorageError:", exc)
    except BaseException as exc:
        print("RAW", type(exc).__name__, exc)
    else:
        print("NO ERROR")
"""


@pytest.mark.skipif(not POSIX, reason="POSIX permissions")
def test_an_unsearchable_parent_is_a_plain_error(tmp_path: Path) -> None:
    """A folder the user may not enter (mode 700, someone else's): ``Path.is_dir`` raises PermissionError
    on Python 3.11 before anything is created; that must come out as a StorageError naming the folder."""
    outer = tmp_path / "outer"
    (outer / "locked" / "inner").mkdir(parents=True)
    tmp_path.chmod(0o755)
    outer.chmod(0o755)
    locked = outer / "locked"
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: permissions cannot be tested")
        locked.chmod(0o700)  # root's, so the unprivileged user below cannot enter it
        # Let the unprivileged user reach tmp_path itself (pytest's base folder is mode 700).
        opened: list[tuple[Path, int]] = []
        for parent in tmp_path.parents:
            if parent == Path(parent.anchor):
                break
            opened.append((parent, parent.stat().st_mode & 0o7777))
            parent.chmod(opened[-1][1] | 0o005)
        try:
            out = subprocess.run(
                [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", _UNSEARCHABLE_CHECK,
                 str(locked / "inner")],
                capture_output=True, text=True, timeout=120, check=False,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
            )
        finally:
            for parent, mode in opened:
                parent.chmod(mode)
        lines = out.stdout.splitlines()
        assert len(lines) == 2, out.stderr
    else:
        locked.chmod(0o000)
        try:
            lines = []
            for attempt in (lambda: make_folder(locked / "inner" / "data"),
                            lambda: InstanceLock(locked / "inner" / "data").acquire()):
                try:
                    attempt()
                except StorageError as exc:
                    lines.append(f"StorageError: {exc}")
                except OSError as exc:
                    lines.append(f"RAW {type(exc).__name__} {exc}")
                else:
                    lines.append("NO ERROR")
        finally:
            locked.chmod(0o755)
    for line in lines:
        assert line.startswith("StorageError: ") and "inner/data" in line and "ermission denied" in line, lines
