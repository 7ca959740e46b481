"""Active-time accounting with a fake clock: idle, minimise, user pause, system sleep, clock jumps."""

from __future__ import annotations

import pytest

from wmcdp_desktop.rater.timing import ActivityTracker, FakeClock, utc_iso


def run(tracker: ActivityTracker, clock: FakeClock, seconds: int, *, input_every: int | None = None) -> float:
    """Advance second by second, ticking (and giving input every ``input_every`` s); total counted."""
    total = 0.0
    for i in range(1, seconds + 1):
        clock.advance(1)
        total += tracker.input() if input_every and i % input_every == 0 else tracker.tick()
    return total


@pytest.fixture
def tracker(clock: FakeClock) -> ActivityTracker:
    t = ActivityTracker(clock, idle_timeout=120)
    t.set_task_open(True)
    return t


def test_counts_only_with_a_task_open(clock: FakeClock) -> None:
    t = ActivityTracker(clock, idle_timeout=120)
    assert run(t, clock, 30, input_every=5) == 0
    assert t.status() == "stopped"
    t.set_task_open(True)
    assert run(t, clock, 30, input_every=5) == 30
    t.set_task_open(False)
    assert run(t, clock, 30, input_every=5) == 0


def test_idle_stops_counting_after_the_timeout_and_input_resumes(tracker: ActivityTracker, clock: FakeClock) -> None:
    assert run(tracker, clock, 300) == 120  # reading, no input: counts up to the idle timeout
    assert tracker.idle and tracker.status() == "idle"
    assert tracker.input() == 0
    assert tracker.status() == "counting"
    assert run(tracker, clock, 10) == 10


def test_steady_input_counts_everything(tracker: ActivityTracker, clock: FakeClock) -> None:
    assert run(tracker, clock, 600, input_every=60) == 600


def test_configurable_idle_timeout(clock: FakeClock) -> None:
    t = ActivityTracker(clock, idle_timeout=30)
    t.set_task_open(True)
    assert run(t, clock, 100) == 30
    with pytest.raises(ValueError):
        ActivityTracker(clock, idle_timeout=0)


def test_minimised_or_inactive_window_does_not_count(tracker: ActivityTracker, clock: FakeClock) -> None:
    assert run(tracker, clock, 10) == 10
    tracker.set_window_active(False)
    assert tracker.status() == "inactive"
    assert run(tracker, clock, 50, input_every=5) == 0
    tracker.set_window_active(True)
    assert run(tracker, clock, 10) == 10


def test_user_pause_and_resume(tracker: ActivityTracker, clock: FakeClock) -> None:
    tracker.set_user_paused(True)
    assert tracker.status() == "paused"
    assert run(tracker, clock, 50, input_every=5) == 0
    tracker.set_user_paused(False)
    assert run(tracker, clock, 7) == 7


def test_system_sleep_is_not_counted(tracker: ActivityTracker, clock: FakeClock) -> None:
    assert run(tracker, clock, 5, input_every=1) == 5
    clock.sleep_system(3600)  # wall clock jumps, monotonic does not (Linux suspend)
    assert tracker.tick() == 0
    assert tracker.idle
    clock.advance(1)
    assert tracker.input() == 0
    assert run(tracker, clock, 5) == 5


def test_a_long_gap_on_the_monotonic_clock_is_not_counted(tracker: ActivityTracker, clock: FakeClock) -> None:
    tracker.input()
    clock.advance(5000)  # no ticks for a long time (frozen process, or suspend counted by monotonic)
    assert tracker.tick() == 0
    assert tracker.input() == 0
    assert run(tracker, clock, 3) == 3


def test_gaps_up_to_the_timeout_between_ticks_count(tracker: ActivityTracker, clock: FakeClock) -> None:
    tracker.input()
    clock.advance(60)
    assert tracker.input() == 60


def test_utc_iso(clock: FakeClock) -> None:
    clock.wall_time = 1_800_000_000.7
    assert utc_iso(clock) == "2027-01-15T08:00:00Z"


def test_utc_iso_follows_the_clock_across_seconds_and_back(clock: FakeClock) -> None:
    # utc_iso remembers the last second it formatted: a new second (forward or back) is formatted anew.
    out = []
    for wall in (1_800_000_000.2, 1_800_000_000.9, 1_800_000_001.0, 1_799_999_999.5, 1_800_000_001.4):
        clock.wall_time = wall
        out.append(utc_iso(clock))
    assert out == [
        "2027-01-15T08:00:00Z",
        "2027-01-15T08:00:00Z",
        "2027-01-15T08:00:01Z",
        "2027-01-15T07:59:59Z",
        "2027-01-15T08:00:01Z",
    ]
