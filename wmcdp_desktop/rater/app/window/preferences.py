"""The rater's settings as the window changes them: rater id, idle timeout, text size, recent bundles.

Every change is saved at once (``<data>/settings.json``, rater/settings.py); a failure to save is
reported in the status bar, never raised: settings are not worth interrupting the rater's work.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QInputDialog, QWidget

from wmcdp_desktop.core.errors import DocumentError, StorageError
from wmcdp_desktop.core.resources import demo_bundle_path
from wmcdp_desktop.rater.app.text.i18n import number
from wmcdp_desktop.rater.app.window.rater_dialog import RaterDialog
from wmcdp_desktop.rater.session import RaterIdentity
from wmcdp_desktop.rater.settings import (
    MAX_FONT,
    MIN_FONT,
    RaterIdError,
    Settings,
    save_settings,
    with_changes,
    with_rater,
    with_recent,
)
from wmcdp_desktop.rater.storage import InstanceLock
from wmcdp_desktop.rater.timing import MAX_IDLE, MIN_IDLE

DEMO_RATER_ID = "demo"
"""The rater id of someone trying the demo before any rater id is set (never remembered)."""


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):
        return False


class Preferences(QObject):
    status = Signal(str)
    raterChanged = Signal(str, object)
    """Rater id, role (str or None)."""
    idleTimeoutChanged = Signal(float)
    fontSizeChanged = Signal(int)

    def __init__(
        self,
        data_dir: Path,
        settings: Settings,
        idle_timeout: float | None,
        lock: InstanceLock | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.data_dir = data_dir
        self._lock = lock
        self.settings = settings
        self.idle_timeout = float(idle_timeout or settings.idle_timeout_seconds)
        """Seconds: from the command line for this run, else from the settings."""

    def _remember(self, **changes: object) -> bool:
        """Apply ``changes`` under the settings file's own rules (rater/settings.with_changes: a value
        that breaks them never reaches the file, where it would make the next start fall back to defaults)."""
        try:
            self.settings = with_changes(self.settings, **changes)
        except DocumentError as exc:
            self.status.emit(self.tr("Settings not changed:") + f" {exc.problems[0].message}")
            return False
        self._save()
        return True

    def _save(self) -> None:
        gone = self._lock.problem() if self._lock is not None else None
        if gone is not None:  # saving would make the data folder again: it could no longer be put back
            self.status.emit(self.tr("Settings not saved:") + f" {gone}")
            return
        try:
            save_settings(self.data_dir, self.settings)
        except (StorageError, OSError) as exc:
            self.status.emit(self.tr("Settings could not be saved: {error}").format(error=exc))

    def set_rater(self, rater_id: str, role: str | None) -> None:
        try:  # the dialog and --rater check the id first; this is the last guard
            self.settings = with_rater(self.settings, rater_id, role)
        except RaterIdError as exc:
            self.status.emit(self.tr("This rater id cannot be used:") + f" {exc.problem}")
            return
        self._save()
        self.raterChanged.emit(rater_id, self.settings.rater_role_or_background)

    def ask_rater(self, parent: QWidget) -> bool:
        """Ask for the rater id (and role); True when the rater gave one."""
        dialog = RaterDialog(self.settings.rater_id, self.settings.rater_role_or_background, parent)
        if dialog.exec() != RaterDialog.DialogCode.Accepted:
            return False
        self.set_rater(dialog.rater_id(), dialog.role())
        return True

    def rater_for(self, path: Path, parent: QWidget, *, demo: bool = False) -> RaterIdentity | None:
        """Who rates the bundle at ``path``: the rater set up here; before one is set, the demo rater for the
        demo bundle (``demo``, or the demo chosen from the recent list: nothing is asked, someone trying the
        demo has no rater id yet), else the rater id asked for once (None when the rater cancels)."""
        if not self.settings.rater_id:
            if demo or _same_file(path, demo_bundle_path()):
                return RaterIdentity(DEMO_RATER_ID)
            self.ask_rater(parent)
        if not self.settings.rater_id:
            return None
        return RaterIdentity(self.settings.rater_id, self.settings.rater_role_or_background)

    def ask_idle_timeout(self, parent: QWidget, title: str) -> None:
        text = self.tr("Seconds without any input after which the task timer pauses:")
        value, ok = QInputDialog.getInt(parent, title, text, int(self.idle_timeout), MIN_IDLE, MAX_IDLE)
        if ok:
            self.set_idle_timeout(value)

    def set_idle_timeout(self, seconds: int) -> None:
        if not self._remember(idle_timeout_seconds=seconds):
            return
        self.idle_timeout = float(seconds)
        self.idleTimeoutChanged.emit(float(seconds))
        self.status.emit(self.tr("The task timer now pauses after {seconds} s without input.").format(seconds=number(seconds)))

    def set_language(self, code: str | None) -> None:
        """Remember the rater's language (None: the computer's); used from the next start."""
        self._remember(language=code)

    def set_scenario_response_split(self, sizes: list[int]) -> None:
        """Remember where the rater left the bar between the scenario and the response."""
        if len(sizes) == 2 and min(sizes) > 0:
            self._remember(scenario_response_split=[min(s, 100_000) for s in sizes])

    def set_plain_text(self, plain: bool) -> None:
        """Remember "Show as plain text" (absent from the settings file when off)."""
        self._remember(show_plain_text=True if plain else None)

    def change_font_size(self, current: int, delta: int) -> None:
        size = max(MIN_FONT, min(MAX_FONT, current + delta))
        self._remember(font_point_size=size)
        self.fontSizeChanged.emit(size)
        self.status.emit(self.tr("Text size {size} pt").format(size=number(size)))

    def remember_bundle(self, path: Path) -> list[str]:
        """Put ``path`` first in the recent bundles; returns the list."""
        self.settings = with_recent(self.settings, path)
        self._save()
        return self.settings.recent_bundles
