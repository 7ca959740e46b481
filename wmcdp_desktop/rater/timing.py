"""Active-time accounting, driven by an injectable :class:`Clock` (pure Python, no Qt).

Rules (``time_spent_scoring_seconds`` = *active* time on a task):

- Time counts only while the tracker is *running*: a task is open, the window is visible and active,
  and the rater has not pressed pause.
- Input (a key, a click, a scroll) keeps it active. After ``idle_timeout`` seconds without input the
  tracker goes idle: time up to the moment it went idle counts (the rater was most likely reading),
  nothing after it. The next input resumes counting.
- System sleep, a frozen process or a clock jump: a gap between two checks larger than the idle timeout
  on either the monotonic clock or the wall clock counts nothing, and the tracker goes idle. (On Linux
  the monotonic clock stops during suspend while the wall clock runs on; on other systems it may be the
  other way round; checking both catches both.)

The UI calls :meth:`ActivityTracker.tick` about once a second and :meth:`ActivityTracker.input` on every
user input; each returns the newly counted seconds, which the session adds to the task and the session
totals.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

DEFAULT_IDLE_TIMEOUT = 120.0
MIN_IDLE, MAX_IDLE = 10, 3600
"""Bounds of the idle timeout in seconds (the settings and ``--idle-timeout``)."""
"""Seconds without input after which time stops counting."""


class Clock(Protocol):
    """Where time comes from; tests pass a :class:`FakeClock`."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back."""
        ...

    def wall(self) -> float:
        """Seconds since the epoch (may jump)."""
        ...


class SystemClock:
    """The real clocks."""

    def monotonic(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()


@dataclass
class FakeClock:
    """A clock tests move by hand. ``advance`` moves both clocks; ``sleep_system`` only the wall clock."""

    mono: float = 1000.0
    wall_time: float = 1_800_000_000.0

    def monotonic(self) -> float:
        return self.mono

    def wall(self) -> float:
        return self.wall_time

    def advance(self, seconds: float) -> None:
        self.mono += seconds
        self.wall_time += seconds

    def sleep_system(self, seconds: float) -> None:
        """Simulate a suspend: the wall clock runs, the monotonic clock does not (Linux behaviour)."""
        self.wall_time += seconds


_last_iso: tuple[int, str] = (-1, "")


def utc_iso(clock: Clock) -> str:
    """The clock's wall time as an RFC 3339 UTC timestamp (whole seconds), e.g. ``2026-11-29T10:00:00Z``."""
    global _last_iso
    second = int(clock.wall())
    last = _last_iso  # one read: another thread may replace it meanwhile
    if last[0] == second:
        return last[1]  # a save + submit asks 5 times within the same second
    text = datetime.fromtimestamp(second, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    _last_iso = (second, text)
    return text


class ActivityTracker:
    """Turns clock readings and input events into counted active seconds."""

    def __init__(self, clock: Clock, idle_timeout: float = DEFAULT_IDLE_TIMEOUT) -> None:
        if idle_timeout <= 0:
            raise ValueError("idle_timeout must be positive")
        self.clock = clock
        self.idle_timeout = float(idle_timeout)
        self._user_paused = False
        self._window_active = True
        self._has_task = False
        self._idle = False
        now_m, now_w = clock.monotonic(), clock.wall()
        self._mark_m = now_m
        self._mark_w = now_w
        self._last_input = now_m

    # ----- state -----------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """True while time is being counted (task open, window active, not paused, not idle)."""
        return self._has_task and self._window_active and not self._user_paused and not self._idle

    @property
    def user_paused(self) -> bool:
        return self._user_paused

    @property
    def idle(self) -> bool:
        return self._idle

    @property
    def window_active(self) -> bool:
        return self._window_active

    def status(self) -> str:
        """One plain word for the timer display: ``counting``, ``paused``, ``idle``, ``inactive``, ``stopped``."""
        if not self._has_task:
            return "stopped"
        if self._user_paused:
            return "paused"
        if not self._window_active:
            return "inactive"
        if self._idle:
            return "idle"
        return "counting"

    # ----- events ----------------------------------------------------------------------------------
    def tick(self) -> float:
        """Count the time since the last check; returns the newly counted seconds."""
        now_m, now_w = self.clock.monotonic(), self.clock.wall()
        dm = now_m - self._mark_m
        dw = now_w - self._mark_w
        counted = 0.0
        if self.running:
            if dm > self.idle_timeout or dw > self.idle_timeout or dm < 0:
                # Sleep, a frozen process or a clock jump: count nothing for the gap.
                self._idle = True
            else:
                until = min(now_m, self._last_input + self.idle_timeout)
                counted = max(0.0, until - self._mark_m)
                if now_m - self._last_input >= self.idle_timeout:
                    self._idle = True
        self._mark_m, self._mark_w = now_m, now_w
        return counted

    def _restart(self) -> None:
        self._mark_m, self._mark_w = self.clock.monotonic(), self.clock.wall()
        self._last_input = self._mark_m
        self._idle = False

    def input(self) -> float:
        """The rater did something: count up to now, then (re)start counting from now."""
        counted = self.tick()
        self._last_input = self.clock.monotonic()
        self._idle = False
        return counted

    def set_task_open(self, open_: bool) -> float:
        """A task was opened (counting starts) or closed (counting stops)."""
        counted = self.tick()
        self._has_task = open_
        self._restart()
        return counted

    def set_window_active(self, active: bool) -> float:
        """The window was activated, or minimised / deactivated / hidden."""
        counted = self.tick()
        if active != self._window_active:
            self._window_active = active
            if active:
                self._restart()
        return counted

    def set_user_paused(self, paused: bool) -> float:
        """The rater pressed pause (``True``) or resume (``False``)."""
        counted = self.tick()
        self._user_paused = paused
        if not paused:
            self._restart()
        return counted
