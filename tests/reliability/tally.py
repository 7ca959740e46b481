"""Counting what the reliability suite does: faults injected/survived, hostile inputs tried/handled,
fuzz executions, records checked/lost.

Every test of the suite reports through the ``tally`` fixture (conftest.py). A fault or hostile input is
counted as *injected/tried* when its block starts and as *survived/handled* only when the block ends
without an exception, i.e. after every assertion about it passed. ``report.py`` collects the figures of a
whole run into ``docs/RELIABILITY.md`` and ``docs/reliability-figures.json``.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ENV_OUTPUT = "WMCDP_RELIABILITY_JSON"
"""When set, the suite writes its counts as JSON to this path at the end of the pytest session."""


@dataclass
class Tally:
    faults_injected: Counter[str] = field(default_factory=Counter)
    faults_survived: Counter[str] = field(default_factory=Counter)
    hostile_tried: Counter[str] = field(default_factory=Counter)
    hostile_handled: Counter[str] = field(default_factory=Counter)
    fuzz_executions: Counter[str] = field(default_factory=Counter)
    records_checked: int = 0
    records_lost: int = 0
    stateful_steps: int = 0
    """Steps of the stateful session test, each followed by the invariant checks."""
    outcomes: Counter[str] = field(default_factory=Counter)
    skipped: list[str] = field(default_factory=list)

    @contextmanager
    def fault(self, kind: str) -> Iterator[None]:
        """One injected fault of ``kind``; survived if the block (with its assertions) completes."""
        self.faults_injected[kind] += 1
        yield
        self.faults_survived[kind] += 1

    @contextmanager
    def hostile(self, kind: str) -> Iterator[None]:
        """One hostile input of ``kind``; handled if the block (with its assertions) completes."""
        self.hostile_tried[kind] += 1
        yield
        self.hostile_handled[kind] += 1

    def fuzz(self, target: str, executions: int = 1) -> None:
        """Count fuzz executions of ``target`` (each one also checked by the caller)."""
        self.fuzz_executions[target] += executions

    def records(self, checked: int, lost: int) -> None:
        """After a fault: ``checked`` records/drafts that must have survived, ``lost`` of them missing or
        damaged (the suite asserts ``lost == 0``, but counts before asserting so a failure shows here)."""
        self.records_checked += checked
        self.records_lost += lost

    def as_dict(self) -> dict[str, Any]:
        def block(a: Counter[str], b: Counter[str], names: tuple[str, str]) -> dict[str, Any]:
            kinds = sorted(set(a) | set(b))
            return {
                names[0]: sum(a.values()),
                names[1]: sum(b.values()),
                "by_kind": {k: {names[0]: a[k], names[1]: b[k]} for k in kinds},
            }

        return {
            "faults": block(self.faults_injected, self.faults_survived, ("injected", "survived")),
            "hostile_inputs": block(self.hostile_tried, self.hostile_handled, ("tried", "handled")),
            "fuzz_executions": {"total": sum(self.fuzz_executions.values()), "by_target": dict(sorted(self.fuzz_executions.items()))},
            "records": {"checked": self.records_checked, "lost": self.records_lost},
            "stateful_steps": self.stateful_steps,
            "tests": dict(sorted(self.outcomes.items())),
            "skipped": sorted(self.skipped),
        }

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.as_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")


TALLY = Tally()
"""The one tally of this pytest process."""


def output_path() -> Path | None:
    value = os.environ.get(ENV_OUTPUT)
    return Path(value) if value else None
