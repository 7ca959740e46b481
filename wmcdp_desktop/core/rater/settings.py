"""The rater's settings (``<data>/settings.json``): who they are, recent bundles, font size, idle timeout.

Read leniently (an unreadable settings file is reported and replaced by defaults: settings are never
worth refusing to start over) and written atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field

from wmcdp_desktop.core.atomic import atomic_write_text
from wmcdp_desktop.core.documents import load_bytes
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.models._base import Document
from wmcdp_desktop.core.models.common import Identifier, Int
from wmcdp_desktop.core.rater.timing import DEFAULT_IDLE_TIMEOUT
from wmcdp_desktop.core.strict_json import dumps_canonical

MAX_RECENT = 8
MIN_FONT, MAX_FONT = 7, 32


class Settings(Document):
    """What the app remembers between runs."""

    document_type: Literal["wmcdp_settings"] = "wmcdp_settings"
    """Always ``wmcdp_settings``."""
    rater_id: Identifier | None = None
    """The rater's id, asked once."""
    rater_role_or_background: str | None = None
    """Optional role/background, e.g. ``child psychologist``."""
    recent_bundles: list[str] = Field(default_factory=list)
    """Recently opened bundles (absolute paths), newest first."""
    font_point_size: Annotated[Int, Field(ge=MIN_FONT, le=MAX_FONT)] | None = None
    """Chosen font size; absent = the system's."""
    idle_timeout_seconds: Annotated[Int, Field(ge=10, le=3600)] = int(DEFAULT_IDLE_TIMEOUT)
    """Seconds without input after which the task timer stops counting."""


def settings_path(data_dir: Path) -> Path:
    return data_dir / "settings.json"


def load_settings(data_dir: Path) -> tuple[Settings, str | None]:
    """The settings and, when the file was unreadable, a plain warning (defaults are used then)."""
    path = settings_path(data_dir)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Settings(), None
    except OSError as exc:
        return Settings(), f"Could not read {path} ({exc.strerror or exc}); using default settings."
    try:
        return load_bytes(Settings, data, str(path)), None
    except DocumentError as exc:
        return Settings(), f"The settings file {path} is not valid ({exc.problems[0]}); using default settings."


def save_settings(data_dir: Path, settings: Settings) -> None:
    """Write atomically (raises :class:`~wmcdp_desktop.core.errors.StorageError`)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(settings_path(data_dir), dumps_canonical(settings.to_json_obj()))


def with_recent(settings: Settings, bundle: Path) -> Settings:
    """``settings`` with ``bundle`` first in the recent list (deduplicated, at most MAX_RECENT)."""
    key = str(bundle.resolve())
    recent = [key, *[p for p in settings.recent_bundles if p != key]][:MAX_RECENT]
    return settings.model_copy(update={"recent_bundles": recent})
