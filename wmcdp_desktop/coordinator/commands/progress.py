"""The command line's one progress bar for long operations (no dependency).

It draws on stderr only when stderr is a terminal, so pipes, logs, ``--json`` output and tests stay
clean. Use it as a ``progress(done, total)`` callback (the core's commands), or as a
``progress(stage, done, total)`` callback through :meth:`ProgressBar.stage` (the analysis, whose work
comes in stages).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """``bar = ProgressBar("Checking"); bar(3, 10); ...; bar.close()``."""

    def __init__(self, label: str, stream: TextIO | None = None, *, enabled: bool | None = None, width: int = 30) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        # The bar's own carriage returns go to the terminal itself, not through the command's InertStream.
        self.stream = getattr(self.stream, "terminal", self.stream)
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self.width = width
        self._last_draw = 0.0
        self._drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        now = time.monotonic()
        if done < total and now - self._last_draw < 0.05:
            return  # at most 20 redraws a second
        self._last_draw = now
        filled = int(self.width * done / total)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done}/{total}")
        self.stream.flush()
        self._drawn = True

    def stage(self, label: str, done: int, total: int) -> None:
        """Work in stages: a new ``label`` ends the previous stage's line and starts its own."""
        if label != self.label:
            self.close()
            self.label = label
            self._last_draw = 0.0
        self(done, total)

    def close(self) -> None:
        """End the bar's line (only if something was drawn)."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
