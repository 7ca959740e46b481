"""Where the rater's data folder is and which of its files says that an app holds it: what the app's start
needs before its window paints (no pydantic, no file lock; the folder's contents are rater/storage.py's)."""

from __future__ import annotations

from pathlib import Path

APP_DIR_NAME = "wmcdp-desktop"
INSTANCE_INFO = "instance.json"
"""Written by the app holding the folder's lock (who and since when), removed when it lets go: a start that
finds it tries to hand its bundle to that app (rater/app/single_instance.py)."""


def default_data_dir() -> Path:
    """The platform's per-user data folder for the app."""
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_DIR_NAME))


def instance_info_path(data_dir: Path) -> Path:
    return data_dir / INSTANCE_INFO
