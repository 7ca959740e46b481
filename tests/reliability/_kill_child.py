"""Child process for the kill-at-every-step tests: performs one save scenario and dies at event N.

Usage: ``python _kill_child.py SCENARIO DIR N``. Events, in order, are every write call inside
:func:`wmcdp_desktop.core.atomic.atomic_write_bytes` (the kill then happens after half of that chunk has
reached the file: a torn write) and every step hook (``written``, ``fsynced``, ``before_replace``,
``replaced``). At event ``N`` the process ends at once with ``os._exit(KILLED)`` (no cleanup, no
``finally``, no flush: what a power cut or ``kill -9`` leaves). When the scenario finishes before event
``N`` the child prints ``DONE <events>`` and exits 0.

Scenarios are defined in :data:`SCENARIOS`; they only use the project's public APIs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

KILLED = 86

_events = 0
_kill_at = 0
_log: list[str] = []


def _event(name: str) -> bool:
    global _events
    _events += 1
    _log.append(name)
    return _events == _kill_at


def _install() -> None:
    from wmcdp_desktop.core import atomic

    real_write = atomic._write

    def write(fd: int, data: bytes) -> int:
        if _event("mid-write"):
            half = data[: max(1, len(data) // 2)]
            real_write(fd, half)
            os._exit(KILLED)
        return real_write(fd, data)

    def hook(step: str) -> None:
        if _event(step):
            os._exit(KILLED)

    atomic._write = write
    atomic._step_hook = hook


def old_content(name: str) -> bytes:
    return f'{{"name": "{name}", "version": "old", "pad": "{"o" * 3000}"}}\n'.encode()


def new_content(name: str) -> bytes:
    return f'{{"name": "{name}", "version": "new", "pad": "{"n" * 5000}"}}\n'.encode()


def scenario_atomic(root: Path) -> None:
    """Replace existing.json (old -> new), then create fresh.json (absent -> new)."""
    from wmcdp_desktop.core.atomic import atomic_write_bytes

    atomic_write_bytes(root / "existing.json", new_content("existing.json"))
    atomic_write_bytes(root / "fresh.json", new_content("fresh.json"))


def setup_atomic(root: Path) -> None:
    (root / "existing.json").write_bytes(old_content("existing.json"))


SCENARIOS: dict[str, Callable[[Path], None]] = {"atomic": scenario_atomic}


def main(argv: list[str]) -> int:
    global _kill_at
    scenario, folder, n = argv[0], Path(argv[1]), int(argv[2])
    if len(argv) > 3:
        sys.path.insert(0, argv[3])
    _kill_at = n
    _install()
    if scenario in SCENARIOS:
        SCENARIOS[scenario](folder)
    else:  # scenarios defined by the test module that needs them (storage, export)
        import importlib

        module_name, func = scenario.split(":")
        getattr(importlib.import_module(module_name), func)(folder)
    print("DONE", _events, " ".join(_log))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
