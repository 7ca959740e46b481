"""The rater's settings (``<data>/settings.json``): who they are, recent bundles, font size, idle timeout.

Read leniently (an unreadable settings file is reported and replaced by defaults: settings are never
worth refusing to start over) and written atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field

from wmcdp_desktop.core.atomic import atomic_write_text
from wmcdp_desktop.core.documents import load_bytes, with_fields
from wmcdp_desktop.core.errors import DocumentError, WmcdpError
from wmcdp_desktop.core.files import MAX_DOCUMENT_BYTES, read_regular
from wmcdp_desktop.core.ids import rater_id_problem
from wmcdp_desktop.core.models.base import Document
from wmcdp_desktop.core.models.common import Identifier, Int
from wmcdp_desktop.core.strict_json import dumps_canonical
from wmcdp_desktop.rater.timing import DEFAULT_IDLE_TIMEOUT, MAX_IDLE, MIN_IDLE

MAX_RECENT = 8
MIN_FONT, MAX_FONT = 7, 32
MAX_ROLE = 200
"""Longest role/background text kept."""


class RaterIdError(WmcdpError):
    """A rater id that cannot be used (the message says why, in plain words)."""

    def __init__(self, value: str, problem: str) -> None:
        super().__init__(f"The rater id {value!r} cannot be used: {problem}.")
        self.value = value
        self.problem = problem
        """Why, without the value: for a caller that names where the id came from (e.g. a command-line option)."""


class Settings(Document):
    """What the app remembers between runs."""

    document_type: Literal["wmcdp_settings"] = "wmcdp_settings"
    """Always ``wmcdp_settings``."""
    rater_id: Identifier | None = None
    """The rater's id, asked once."""
    rater_role_or_background: Annotated[str, Field(max_length=MAX_ROLE)] | None = None
    """Optional role/background, e.g. ``child psychologist``."""
    recent_bundles: Annotated[list[Annotated[str, Field(max_length=4096)]], Field(max_length=MAX_RECENT)] = Field(
        default_factory=list
    )
    """Recently opened bundles (absolute paths), newest first."""
    font_point_size: Annotated[Int, Field(ge=MIN_FONT, le=MAX_FONT)] | None = None
    """Chosen font size; absent = the system's."""
    idle_timeout_seconds: Annotated[Int, Field(ge=MIN_IDLE, le=MAX_IDLE)] = int(DEFAULT_IDLE_TIMEOUT)
    """Seconds without input after which the task timer stops counting."""
    language: Annotated[str, Field(pattern=r"^[a-z]{2,3}(_[A-Z]{2})?$")] | None = None
    """The app's language chosen by the rater (``es``); absent = the computer's."""
    scenario_response_split: Annotated[list[Annotated[Int, Field(ge=1, le=100_000)]], Field(min_length=2, max_length=2)] | None = None
    """The heights the rater gave the scenario and the response (dragging the bar between them), in pixels:
    kept as their proportion; absent = the response gets the larger share."""
    show_plain_text: bool | None = None
    """``true``: responses and scenario turns shown exactly as written ("Show as plain text"); absent =
    rendered as markdown (unless the study shows plain text)."""


def settings_path(data_dir: Path) -> Path:
    return data_dir / "settings.json"


def load_settings(data_dir: Path) -> tuple[Settings, str | None]:
    """The settings and, when the file was unreadable, a plain warning (defaults are used then)."""
    path = settings_path(data_dir)
    try:
        data = read_regular(path, MAX_DOCUMENT_BYTES)
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


def with_rater(settings: Settings, rater_id: str, role: str | None) -> Settings:
    """``settings`` for ``rater_id`` (and ``role``, trimmed), validated like the settings file itself: raises
    :class:`RaterIdError` for an id that could not name the rater's folder (a space, ``:``, ``/``, ``..``,
    ``CON``...), so no path is ever built from it."""
    problem = rater_id_problem(rater_id)
    if problem is not None:
        raise RaterIdError(rater_id, problem)
    return with_changes(settings, rater_id=rater_id, rater_role_or_background=(role or "").strip()[:MAX_ROLE] or None)


def with_changes(settings: Settings, **changes: object) -> Settings:
    """``settings`` with ``changes`` (None: an optional setting unset) checked by the settings file's own rules
    (``model_copy`` would let a bad value through to the next start, where the whole file would be refused).
    Raises :class:`~wmcdp_desktop.core.errors.DocumentError` naming the field."""
    return with_fields(settings, "settings", **changes)
