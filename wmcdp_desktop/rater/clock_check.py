"""Is the computer's clock plausible? Checked when a bundle is opened, before the rater rates (issue 25).

A wrong wall clock does not change what a rating says (the time spent on a task is measured with the monotonic
clock), but it stamps every record and export with a wrong date, and the coordinator sees that. The app cannot
know the true time offline; it can see when the clock is certainly wrong: earlier than the bundle was built (a
laptop back in 2001), earlier than work already saved in this data folder (the clock was set back), or far after
the bundle was built (more than :data:`FAR_AHEAD`, longer than any study runs; not for the demo and other
bundles made for no rater in particular). The rater is told plainly and
may go on: nothing is refused for the clock; ``wmcdp results collect`` keeps such records, flagged
``clock_suspect``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

SLACK = timedelta(days=1)
"""Time zones and a clock a little off are not a problem."""
FAR_AHEAD = timedelta(days=366)
"""A clock this far after the bundle was built is wrong (or the bundle is a year old: the coordinator should know)."""

ClockKind = Literal["before_bundle", "behind_saved_work", "far_ahead"]


@dataclass(frozen=True)
class ClockProblem:
    """What is wrong with the clock, with the times that show it."""

    kind: ClockKind
    now: datetime
    reference: datetime
    """The bundle's build time (``before_bundle``, ``far_ahead``) or the newest saved work (``behind_saved_work``)."""


def clock_problem(
    now: datetime, bundle_built: datetime, newest_saved: datetime | None, *, study_bundle: bool = True
) -> ClockProblem | None:
    """Why ``now`` cannot be the right time, or None when it may be. ``study_bundle=False`` (a bundle for no
    rater in particular, such as the built-in demo, which is used for years after it was built) leaves out the
    "far ahead" test."""
    if now < bundle_built - SLACK:
        return ClockProblem("before_bundle", now, bundle_built)
    if newest_saved is not None and now < newest_saved - SLACK:
        return ClockProblem("behind_saved_work", now, newest_saved)
    if study_bundle and now > max(bundle_built, newest_saved or bundle_built) + FAR_AHEAD:
        return ClockProblem("far_ahead", now, bundle_built)
    return None


def newest_file_time(*folders_or_files: Path) -> datetime | None:
    """The newest modification time of the given files and of the files directly in the given folders (links
    not followed; what cannot be read is left out)."""
    newest: float | None = None
    for path in folders_or_files:
        try:
            st = os.stat(path, follow_symlinks=False)
        except OSError:
            continue
        times = [st.st_mtime]
        if os.path.isdir(path) and not os.path.islink(path):
            try:
                with os.scandir(path) as entries:
                    for entry in entries:
                        try:
                            times.append(entry.stat(follow_symlinks=False).st_mtime)
                        except OSError:
                            continue
            except OSError:
                pass
        top = max(times)
        newest = top if newest is None else max(newest, top)
    return None if newest is None else datetime.fromtimestamp(newest, tz=UTC)
