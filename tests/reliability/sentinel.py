"""A sentinel tree (home, cwd, temp folder, data folder): proves a hostile input changed nothing outside the data folder."""

from __future__ import annotations

import tempfile
from pathlib import Path


class Sentinel:
    """A sentinel tree (home, cwd, temp folder, data folder) whose every file is known beforehand."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.cwd = root / "cwd"
        self.tmp = root / "tmp"
        self.data = root / "data"
        self.inbox = root / "inbox"  # where the hostile files are put
        for folder in (self.home, self.cwd, self.tmp, self.data, self.inbox):
            folder.mkdir(parents=True)
        (self.home / "keep.txt").write_text("home file\n")
        (self.cwd / "keep.txt").write_text("cwd file\n")
        self.before = self.snapshot()

    def snapshot(self, also_written: tuple[str, ...] = ()) -> dict[str, tuple[int, int]]:
        out = {}
        for path in self.root.rglob("*"):
            rel = path.relative_to(self.root).as_posix()
            if rel.startswith(("inbox", "data", *also_written)):
                continue
            st = path.lstat()
            # Folders by presence only: a transient temp file (created and removed, e.g. by Qt) leaves
            # nothing behind but a folder's mtime.
            out[rel] = (-1, 0) if path.is_dir() and not path.is_symlink() else (st.st_size, int(st.st_mtime_ns))
        return out

    def check(self, evil_name: str = "", also_written: tuple[str, ...] = ()) -> None:
        """Nothing outside ``data/``, ``inbox/`` and the folders ``also_written`` (names under the root, made
        by the test) changed; no file named ``evil_name`` anywhere."""
        assert self.snapshot(also_written) == self.before, "files changed outside the data folder"
        if evil_name:
            hits = [p for p in self.root.rglob(f"*{evil_name}*")]
            hits += [p for p in Path(tempfile.gettempdir()).glob(f"*{evil_name}*")]
            hits += [p for p in Path("/tmp").glob(f"*{evil_name}*")] if Path("/tmp").is_dir() else []
            assert hits == [], hits
