"""``wmcdp results collect`` as one call: :func:`collect_results` holds the collection folder, reads what an
earlier collect into it recorded, merges the exports (``merge.py``), writes every output (``outputs.py``) and
returns a :class:`Collected` saying what it did. The command only prints it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Self

from wmcdp_desktop.coordinator.bundles.encryption import COORDINATOR_KEY_FILE, keys_folder
from wmcdp_desktop.coordinator.collect.cache import load_cache
from wmcdp_desktop.coordinator.collect.merge import (
    merge_exports,
    read_acceptances,
    read_key,
    read_ledger,
    read_receipts_refused,
)
from wmcdp_desktop.coordinator.collect.outputs import hold_collection, write_outputs
from wmcdp_desktop.coordinator.results.provenance import receipts_to_check
from wmcdp_desktop.coordinator.results.reader import read_coordinator_key
from wmcdp_desktop.core.errors import Problem


@dataclass(frozen=True)
class Flag:
    """A rater's flag for the coordinator."""

    rater_id: str
    task_id: str
    note: str


@dataclass(frozen=True)
class RaterTally:
    """One rater's line of ``summary.json``."""

    rater_id: str
    ratings: int
    cannot_rate: int
    assigned: int | None
    """Tasks the key assigned to the rater (None for an unassigned bundle)."""


@dataclass(frozen=True)
class _Row:
    """A typed row of collect-report.json: made from the report's row, each field by its own name."""

    @classmethod
    def of(cls, row: dict[str, Any]) -> Self:
        return cls(**{f.name: row[f.name] for f in fields(cls)})


@dataclass(frozen=True)
class Quarantined(_Row):
    """A record not counted because a check of where it came from failed (a row of ``quarantine.csv``)."""

    record_id: str
    rater_id: str
    task_id: str
    revision: int
    export: str | None
    """The export it came in (None for a record given on its own)."""
    export_sha256: str | None
    source: str
    """The record's file, inside its export."""
    failed: str
    """Which checks did not hold, in words."""


@dataclass(frozen=True)
class Accepted(Quarantined):
    """A quarantined record the coordinator kept (``--accept RECORD_ID --reason TEXT``)."""

    accepted_because: str


@dataclass(frozen=True)
class ClockSuspect(_Row):
    """A counted record whose times a wrong clock on the rater's computer explains."""

    record_id: str
    rater_id: str
    task_id: str
    why: str


@dataclass(frozen=True)
class Collected:
    """What one collect did (all of it, and more, is in ``collect-report.json`` and ``summary.json``)."""

    out_dir: Path
    outputs: list[Path]
    """Every file written, in the order written."""
    problems: list[Problem]
    """Every problem: the collection's cache first (by file), the receipts file's bad lines, then the merge's."""
    ratings: int
    exports_in_collection: int
    read: list[str]
    """The exports read from their zips in this run (as given)."""
    already_collected: list[str]
    """Exports given again whose zip an earlier collect into the folder already read (not counted twice)."""
    collected_earlier: int
    """Exports an earlier collect into the folder recorded that were merged again."""
    revised: int
    duplicates: int
    conflicts: int
    unknown_tasks: int
    tasks_nobody_rated: int
    tasks_never_rated: list[str]
    """The tasks of the key no rater returned anything for (their number is ``tasks_nobody_rated``)."""
    cannot_rate: int
    tasks_every_rater_could_not_rate: list[str]
    flags: list[Flag]
    raters: list[RaterTally]
    quarantined: list[Quarantined]
    """Records not counted because a check of their provenance failed (collect-report.json ``quarantine``)."""
    accepted: list[Accepted]
    """Quarantined records the coordinator kept (``--accept``, now or in an earlier collect into the folder for
    the same bytes), with the reason given."""
    receipts_without_export: list[str]
    """Receipt codes the raters sent that match no export of the collection, in plain words (warnings)."""
    accepted_earlier: list[Quarantined]
    """Those of ``accepted`` whose acceptance an earlier collect into the folder recorded (not given again)."""
    clock_suspect: list[ClockSuspect]
    """Counted records whose times a wrong clock explains (kept, flagged)."""
    summary: dict[str, Any]
    """``summary.json`` as written."""
    parquet_note: str | None
    """Why the Parquet tables were not written (pyarrow missing), or None."""

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def report_path(self) -> Path:
        return self.out_dir / "collect-report.json"


def collect_results(
    exports: list[Path],
    key_path: Path,
    out_dir: Path,
    *,
    receipts_file: Path | None = None,
    receipt: str | None = None,
    excel_csv: bool = False,
    names: str = "original",
    csv_na: str = "NA",
    progress: Callable[[int, int], None] | None = None,
    writing: Callable[[int, int], None] | None = None,
    accept: dict[str, str] | None = None,
    coordinator_key: Path | None = None,
) -> Collected:
    """Merge and unblind ``exports`` with the key at ``key_path`` into ``out_dir`` (a second collect into the
    same folder is refused while this one runs); ``receipts_file`` holds the receipt codes the raters sent,
    ``receipt`` is the receipt code of the one export given (normalised; its rater's, whoever that is);
    ``excel_csv``, ``names`` and ``csv_na`` are those of ``outputs.write_outputs``; ``progress(done, total)``
    hears the exports merged, ``writing(done, total)`` the records written; ``accept``: record id -> the
    coordinator's reason to count that quarantined record after all (recorded in collect-report.json).
    ``coordinator_key``: the coordinator's private key file that opens sealed exports (default:
    ``keys/coordinator.key`` beside the unblinding key, when there is one).
    Raises :class:`~wmcdp_desktop.core.errors.WmcdpError` (plain words) for a key, folder or receipts file it
    cannot use; everything wrong with the exports is a problem of the result (the outputs are written)."""
    key = read_key(key_path)
    beside = keys_folder(key_path) / COORDINATOR_KEY_FILE
    private = coordinator_key or (beside if beside.is_file() else None)
    opener = read_coordinator_key(private) if private is not None else None
    receipts, receipts_source, bad_lines = receipts_to_check(receipt, receipts_file,
                                                             [r for e in key.entries for r in e.raters])
    with hold_collection(out_dir):
        known, cache_problems = load_cache(out_dir)
        result = merge_exports(
            exports, key, progress, receipts=receipts,
            receipts_source=receipts_source, seen=read_ledger(out_dir), known=known, cache_dir=out_dir,
            work_dir=out_dir, leading=(cache_problems, bad_lines), accept=accept,
            accepted_before=read_acceptances(out_dir), refused_before=read_receipts_refused(out_dir),
            coordinator_key=opener,
            no_key_hint=f"give --coordinator-key {beside} (the coordinator key written by bundle build)",
        )
        try:
            paths = write_outputs(result, out_dir, excel_csv=excel_csv, names=names, csv_na=csv_na, progress=writing)
        finally:
            result.close()
    report, summary = result.report, result.summary
    return Collected(
        out_dir=out_dir,
        outputs=paths,
        problems=result.problems,
        ratings=len(result.ratings),
        exports_in_collection=len(report["exports"]),
        read=result.read,
        already_collected=result.already_collected,
        collected_earlier=len(known) - result.unusable_cache_entries,
        revised=len(report["history"]),
        duplicates=len(report["duplicates"]),
        conflicts=len(report["conflicts"]),
        unknown_tasks=len(report["unknown_tasks"]),
        tasks_nobody_rated=len(report["tasks_nobody_rated"]),
        tasks_never_rated=list(report["tasks_nobody_rated"]),
        cannot_rate=len(report["cannot_rate"]),
        tasks_every_rater_could_not_rate=list(report["tasks_every_rater_could_not_rate"]),
        flags=[Flag(f["rater_id"], f["task_id"], f["note"]) for f in report["flagged"]],
        raters=[RaterTally(rater, info["ratings"], info["cannot_rate"], info["assigned"])
                for rater, info in summary["raters"].items()],
        summary=summary,
        quarantined=[Quarantined.of(row) for row in report["quarantine"]],
        accepted=[Accepted.of(row) for row in report["accepted"]],
        accepted_earlier=[Quarantined.of(row) for row in result.accepted_earlier],
        receipts_without_export=list(report["receipts_without_export"]),
        clock_suspect=[ClockSuspect.of(row) for row in report["clock_suspect"]],
        parquet_note=report.get("parquet") or None,
    )
