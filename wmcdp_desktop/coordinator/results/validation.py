"""``wmcdp results validate`` as one call: :func:`validate_results` reads the records, files and exports given,
checks them (against their bundles when given, their revisions, the exports' chains against each other, the
receipt codes) and returns a :class:`Validated` saying which records are valid and why the others are not.
The command only prints it.

Counted means verified, as in ``results collect``: no record of an export any check of which failed (its
files, chain, seal, binding, receipt or history) is valid; a record that breaks the rubric's or the bundle's
rules is not valid itself, the rest of its export is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wmcdp_desktop.coordinator.results.against_bundles import bundle_problems, open_bundles
from wmcdp_desktop.coordinator.results.provenance import (
    receipt_problems,
    receipts_to_check,
    replay_problems,
    revision_problems,
)
from wmcdp_desktop.coordinator.results.reader import (
    ExportRead,
    RecordSummary,
    read_coordinator_key,
    read_records,
)
from wmcdp_desktop.core.errors import Problem


@dataclass(frozen=True)
class Validated:
    """What ``results validate`` found."""

    files_read: int
    exports: list[ExportRead]
    bundle_ids: list[str]
    """The bundles the records were checked against (none without ``--bundle``)."""
    valid: list[RecordSummary]
    quarantined: int
    """Records not valid because a check of their export failed (``results collect`` quarantines them)."""
    receipts_checked: bool
    clock: list[Problem]
    """Times a wrong clock on the rater's computer explains (the records are still valid)."""
    problems: list[Problem]

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def cannot_rate(self) -> int:
        return sum(1 for s in self.valid if s.kind == "cannot_rate")

    @property
    def flagged(self) -> int:
        return sum(1 for s in self.valid if s.flagged)

    @property
    def tasks(self) -> int:
        return len({s.task_id for s in self.valid})

    @property
    def by_rater(self) -> dict[str, int]:
        return dict(sorted(Counter(s.rater_id for s in self.valid).items()))

    def summary(self, problem_obj: Callable[[Problem], dict[str, Any]]) -> dict[str, Any]:
        """The ``--json`` summary, in its order (``problem_obj`` writes a problem as the commands do)."""
        return {
            "ok": self.ok,
            "files_read": self.files_read,
            "exports": len(self.exports),
            "valid_records": len(self.valid),
            "ratings": len(self.valid) - self.cannot_rate,
            "cannot_rate": self.cannot_rate,
            "flagged": self.flagged,
            "tasks": self.tasks,
            "by_rater": self.by_rater,
            "chains": {e.label: e.chain is not None for e in self.exports},
            "receipts_checked": self.receipts_checked,
            "quarantined": self.quarantined,
            "clock_suspect": [problem_obj(p) for p in self.clock],
            "problems": [problem_obj(p) for p in self.problems],
        }


def _export_labels(problem: Problem) -> list[str]:
    """The exports a problem is about: the one its file is in, and the other of two histories that part."""
    labels = [problem.file.split("!", 1)[0]]
    if " hold two different histories " in problem.message and problem.message.startswith("and "):
        labels.append(problem.message[4:].split(" hold two different histories ", 1)[0])
    return labels


def validate_results(
    paths: list[Path],
    *,
    bundles: list[Path] | None = None,
    coordinator_key: Path | None = None,
    receipt: str | None = None,
    receipts_file: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Validated:
    """Check the records, folders and exports ``paths``: against the bundles (files or folders) ``bundles``
    when given; sealed exports opened with ``coordinator_key``; ``receipt``: the normalised receipt code of the
    one export given; ``receipts_file``: the codes the raters sent. ``progress(done, total)`` counts files.

    Raises :class:`~wmcdp_desktop.core.errors.WmcdpError` (plain words) for a bundle, key or receipts file it
    cannot read."""
    opened = open_bundles(bundles) if bundles else []
    opener = read_coordinator_key(coordinator_key) if coordinator_key is not None else None
    # Only the bundle checks need the records themselves; without them a summary of each is kept.
    result = read_records(paths, progress=progress, keep_records=bool(opened), coordinator_key=opener)
    problems = list(result.problems)
    rules_problems = bundle_problems(result.records, opened) if opened else []
    # As in collect: the latest revision of each rater's task must continue its own line back to revision 1.
    rules_problems += revision_problems([s for s in result.summaries if s.export is not None])
    problems += rules_problems
    chains = [e.chain for e in result.exports if e.chain is not None]
    problems += replay_problems(chains)
    receipts, receipts_source, bad_lines = receipts_to_check(
        receipt, receipts_file, {e.manifest.rater_id for e in result.exports if e.manifest is not None})
    problems += bad_lines
    refused: set[str] = set()
    if receipts is not None:
        found, refused = receipt_problems(chains, receipts, receipts_source)
        problems += found
    bad_sources = {p.file for p in problems}
    labels = {e.label for e in result.exports}
    bad_exports = {label for p in problems if p not in rules_problems or p.file.endswith("!manifest.json")
                   for label in _export_labels(p) if label in labels} | refused
    return Validated(
        files_read=result.files_read,
        exports=result.exports,
        bundle_ids=[b.manifest.bundle_id for b in opened],
        valid=[s for s in result.summaries if s.source not in bad_sources and s.export not in bad_exports],
        quarantined=sum(1 for s in result.summaries if s.export in bad_exports),
        receipts_checked=receipts is not None,
        clock=list(result.clock),
        problems=problems,
    )
