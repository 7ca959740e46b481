"""Merging the raters' results exports and unblinding them (``wmcdp results collect``).

Steps: each export is checked (zip safety, manifest, hashes, records, the audit chain;
``coordinator/results/reader.py``) and matched to the unblinding key (study, bundle, rater). The
exports are compared with each other and with what an earlier run saw (``export_checks``: the same export
twice, an older export of a bundle, two histories), and, given a receipts file, with the receipt codes the
raters sent; an export whose code does not match is left out. Every record is checked against the rubric
and its task as the key records them (``record_rules``: scales, N/A, the failure-mode catalogue, ids,
the response text's SHA-256, times); a record that breaks a rule is left out. Identical copies of a record
(same record id and bytes, e.g. the same export sent twice) are **duplicates** and counted once. Two
different records for the same (rater, task, revision), or one record id with different bytes, are
**conflicts**, decided by the audit chain and never by a time a file claims: a record from an export
whose chain holds wins over one whose chain does not; otherwise neither is kept, and a (rater, task)
whose latest revision is in conflict is left out. The **latest revision** (the highest revision number)
of each (rater, task) is kept; every earlier revision is listed in the **history**. A record whose task is
not in the key is an **unknown task** record; one whose ids disagree with the key is rejected.
``model_source`` is filled in from the key. Tasks nobody rated, and per rater the assigned tasks not
returned, are listed.

Memory: a million ratings do not fit in memory as validated records. Each export is read, checked and
matched on its own; of each record that keeps the rules only what the merge needs is kept (:class:`Kept`:
ids, revision, source, SHA-256, a few fields), and the record itself, unblinded and as its
``ratings.jsonl`` line, goes to a temporary file (:class:`Spool`) that the outputs read back in order.

Outputs (``coordinator/collect/outputs.py``, owner-only: they name the models): ``ratings.jsonl``
(one full record per line), ``ratings.csv`` (one row per rating; :data:`CSV_FIXED_COLUMNS`, then
``scoring.*`` fields, ``failure_mode.<id>`` severities, ``failure_mode_note.<id>`` notes, then
:data:`CSV_KIND_COLUMNS`), the Parquet tables, the codebook and REDCap files, ``summary.json`` (per rater,
per model) and ``collect-report.json`` (which also keeps the newest audit chain seen of each rater's
bundle, for the next run's replay check).

Record kinds: a rater may answer "cannot rate" instead of a rating (``core/models/cannot_rate_record.py``)
and flag any task for the coordinator. Both kinds go through the same steps (a later revision of either
kind replaces an earlier one); ``ratings.jsonl`` and ``ratings.csv`` hold one line per (rater, task) of
either kind with ``record_kind`` set, the per-model figures of ``summary.json`` use ratings only, and the
report lists every "cannot rate" and flag, and the tasks every rater they went to could not rate.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from wmcdp_desktop.coordinator.collect import cache as export_cache
from wmcdp_desktop.coordinator.collect.cache import KnownExport, canonical_key
from wmcdp_desktop.coordinator.results.provenance import (
    ChainSummary,
    ledger_entry,
    ledger_problems,
    receipt_problems,
    replay_problems,
    revision_line_breaks,
)
from wmcdp_desktop.coordinator.results.reader import CoordinatorKey, ExportRead, read_export
from wmcdp_desktop.core import record_rules
from wmcdp_desktop.core.atomic import AtomicFile, plain_os_error
from wmcdp_desktop.core.counts import agree, count
from wmcdp_desktop.core.digests import file_sha256
from wmcdp_desktop.core.documents import read_file_bytes, validate_obj
from wmcdp_desktop.core.errors import DocumentError, Problem, StorageError
from wmcdp_desktop.core.files import MAX_LARGE_DOCUMENT_BYTES
from wmcdp_desktop.core.models.cannot_rate_record import CannotRateRecord
from wmcdp_desktop.core.models.unblinding_key import KeyEntry, UnblindingKey
from wmcdp_desktop.core.record_rules import RubricRules, TaskFacts, time_problems
from wmcdp_desktop.core.strict_json import parse_json_bytes

Ledger = Mapping[tuple[str, str], Mapping[str, Any]]
"""(rater id, bundle id) -> the newest audit chain an earlier run saw (``export_checks.ledger_entry``)."""

CSV_FIXED_COLUMNS = [
    "rater_id",
    "rater_role_or_background",
    "task_id",
    "benchmark_item_id",
    "split",
    "candidate_response_id",
    "model_source",
    "clinical_domain_id",
    "scenario_type_ids",
    "revision",
    "revisions_submitted",
    "record_id",
    "bundle_id",
    "started_at",
    "submitted_at",
    "time_spent_scoring_seconds",
    "confidence_rating",
    "brief_rationale",
    "best_aspect",
    "main_concern",
    "suggested_better_clinical_move",
]
"""The first CSV columns; then one per score (``scoring.*`` field name), per failure-mode severity
(``failure_mode.<id>``) and per failure-mode note (``failure_mode_note.<id>``), then :data:`CSV_KIND_COLUMNS`."""
CSV_KIND_COLUMNS = ["record_kind", "cannot_rate_reason", "cannot_rate_detail", "coordinator_flag", "blinding_guess",
                    "clock_suspect"]
"""The last CSV columns: ``rating`` or ``cannot_rate`` (a "cannot rate" row has no scores, failure modes or
notes), the reason and the rater's words for a "cannot rate", the rater's note when they flagged the task, the
answer to the blinding check (``codebook.blinding_answer``), and whether a wrong clock on the rater's computer
explains the record's times (``TRUE``/``FALSE``; collect-report.json ``clock_suspect`` says why)."""


class Spool:
    """A temporary file holding each kept record as its ``ratings.jsonl`` line (owner-only, deleted when
    closed or when the process ends), read back by offset. Lines are gathered in memory up to
    :attr:`BUFFER` bytes and written through :class:`~wmcdp_desktop.core.atomic.AtomicFile` (so a full disk
    is reported like any other write: :class:`StorageError` in plain words)."""

    BUFFER = 1 << 20

    def __init__(self, folder: Path | None = None) -> None:
        self._where = folder if folder is not None else Path(tempfile.gettempdir())
        try:
            self._file = tempfile.TemporaryFile(prefix=".wmcdp-collect-", dir=folder, buffering=0)  # noqa: SIM115 (closed by close())
        except OSError as exc:
            raise self._error(exc) from exc
        self._out = AtomicFile(self._file.fileno())
        self._pending = bytearray()
        self._end = 0

    def _error(self, exc: OSError) -> StorageError:
        return StorageError(f"Could not keep the records in a temporary file in {self._where}: {plain_os_error(exc)}.")

    def add(self, line: bytes) -> tuple[int, int]:
        at = self._end
        self._pending += line
        self._end += len(line)
        if len(self._pending) >= self.BUFFER:
            self._flush()
        return at, len(line)

    def _flush(self) -> None:
        if self._pending:
            try:
                self._out.write(self._pending)
            except OSError as exc:
                raise self._error(exc) from exc
            self._pending = bytearray()

    def get(self, at: int, size: int) -> bytes:
        self._flush()
        return os.pread(self._file.fileno(), size, at) if hasattr(os, "pread") else self._read(at, size)

    def _read(self, at: int, size: int) -> bytes:
        self._file.seek(at)
        data = self._file.read(size)
        self._file.seek(0, os.SEEK_END)
        return bytes(data)

    def close(self) -> None:
        """Give the file up (nothing is written any more: closing never fails)."""
        self._pending = bytearray()  # (a failed write's traceback may still hold a view of the old one)
        with contextlib.suppress(OSError):
            self._file.close()


@dataclass(frozen=True, slots=True)
class Kept:
    """What the merge needs of one valid record (the record itself is in the :class:`Spool`)."""

    source: str
    """``export.zip!records/x.r1.json``."""
    sha256: str
    export: str | None
    export_sha256: str
    """The SHA-256 of the export's zip (an acceptance holds for these bytes only)."""
    record_id: str
    rater_id: str
    task_id: str
    revision: int
    supersedes: str | None
    """The record id this revision says it replaces."""
    submitted_at: str
    clock: str | None
    """Why a wrong clock on the rater's computer explains its times (``clock_suspect``), or None."""
    kind: str
    """``rating`` or ``cannot_rate``."""
    candidate_response_id: str
    benchmark_item_id: str
    model_source: str | None
    """As the record claims it (the key's is in its line)."""
    flag: str | None
    """The rater's note when they flagged the task."""
    cannot_rate: tuple[str, str] | None
    """Reason and detail of a "cannot rate"."""
    fm_ids: frozenset[str]
    at: int
    size: int


@dataclass
class CollectResult:
    key: UnblindingKey
    spool: Spool
    """The kept records' ``ratings.jsonl`` lines (:meth:`lines`)."""
    ratings: list[Kept]
    """Latest revision per (rater, task) when it is a rating, sorted by rater then task."""
    revisions: dict[tuple[str, str], int]
    cannot_rate: list[Kept] = field(default_factory=list)
    """Latest revision per (rater, task) when it is a "cannot rate", sorted by rater then task."""
    problems: list[Problem] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    """Filled in by ``collect_outputs.write_outputs``."""
    read: list[str] = field(default_factory=list)
    """The exports read from their zips in this run (as given; each recorded in the collection's cache)."""
    already_collected: list[str] = field(default_factory=list)
    """Exports given again whose zip an earlier run into the same folder already read (not counted twice)."""
    unusable_cache_entries: int = 0
    """Entries of the collection's cache that could not be used (each is a problem)."""
    clock_suspect: frozenset[str] = frozenset()
    """The record ids of the counted records whose times a wrong clock explains (each table's ``clock_suspect``)."""
    accepted_earlier: list[dict[str, Any]] = field(default_factory=list)
    """The accepted rows whose acceptance an earlier collect into the folder recorded (not given again)."""

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def records(self) -> list[Kept]:
        """Every kept record of either kind, sorted by rater then task."""
        return sorted([*self.ratings, *self.cannot_rate], key=lambda r: (r.rater_id, r.task_id))

    def lines(self, kept: list[Kept]) -> Iterator[bytes]:
        """The ``ratings.jsonl`` line of each of ``kept`` (unblinded; ``record_kind`` set), in that order."""
        for k in kept:
            yield self.spool.get(k.at, k.size)

    def close(self) -> None:
        self.spool.close()


@dataclass
class _Trust:
    """Which exports' records may win a conflict: those whose audit chain holds (and whose receipt code,
    when receipts were given, matched)."""

    exports: set[str] = field(default_factory=set)

    def of(self, rr: Kept) -> bool:
        return rr.export is not None and rr.export in self.exports


def _decide(a: Kept, b: Kept, trust: _Trust) -> Kept | None:
    """Of two conflicting records, the one the audit chain vouches for when only one is; else neither.
    Never the time a record claims (a forged far-future record used to win)."""
    ta, tb = trust.of(a), trust.of(b)
    if ta != tb:
        return a if ta else b
    return None


KEY_HINT = "give the <study_id>-unblinding-key.json that `wmcdp bundle build` wrote"


def read_key(path: Path) -> UnblindingKey:
    """The unblinding key; a plain one-line problem when the file is something else (a bundle, a study...).
    Parsed once (a million-rating study's key is a few hundred megabytes)."""
    source = str(path)
    if path.is_dir():
        raise DocumentError.single(source, f"is a folder, not the unblinding key; {KEY_HINT}")
    data = read_file_bytes(path, source, max_bytes=MAX_LARGE_DOCUMENT_BYTES)
    if data.startswith(b"PK\x03\x04"):
        raise DocumentError.single(source, f"is a zip file (a bundle or a results export?), not the unblinding key; {KEY_HINT}")
    obj = parse_json_bytes(data, source)
    del data
    kind = obj.get("document_type") if isinstance(obj, dict) else None
    if isinstance(kind, str) and kind != "wmcdp_unblinding_key":
        raise DocumentError.single(source, f"is a {kind} document, not the unblinding key; {KEY_HINT}")
    return validate_obj(UnblindingKey, obj, source)


def merge_exports(
    exports: list[Path],
    key: UnblindingKey,
    progress: Callable[[int, int], None] | None,
    *,
    receipts: Mapping[str, set[str]] | None,
    receipts_source: str,
    seen: Ledger,
    known: Mapping[str, Path],
    cache_dir: Path,
    work_dir: Path,
    leading: tuple[list[Problem], list[Problem]],
    accept: Mapping[str, str] | None = None,
    accepted_before: list[dict[str, Any]] | None = None,
    coordinator_key: CoordinatorKey | None = None,
    no_key_hint: str = "give --coordinator-key keys/coordinator.key",
    refused_before: frozenset[str] = frozenset(),
) -> CollectResult:
    """Read, check, merge and unblind the exports (the steps of this module's description); called by
    ``collection.collect_results``, which holds the folder.

    ``receipts``: rater id -> receipt codes the raters sent (``provenance.read_receipts``); ``seen``:
    the chains an earlier run saw (:func:`read_ledger`); ``known``: the exports an earlier run into the same
    folder recorded (``cache.load_cache``: SHA-256 -> entry), merged with those given; ``cache_dir``:
    where each export read is recorded for the next run (as soon as it is read); ``work_dir``: where the
    temporary file of the kept records goes; ``leading``: the problems of the cache's folder and of the
    receipts file, which come first (the cache's, with those of its entries that cannot be used, by file);
    ``accept``: record id -> the coordinator's reason for keeping that quarantined record (``--accept``);
    ``accepted_before``: the acceptances an earlier collect into the folder recorded (:func:`read_acceptances`),
    each holding for the same record in the same export bytes only; ``refused_before``: the SHA-256 of the exports
    whose receipt code did not match in an earlier collect into the folder (:func:`read_receipts_refused`);
    ``coordinator_key``: opens the exports sealed to it in memory (without it a sealed export is refused, saying
    ``no_key_hint``)."""
    folder_problems, receipt_lines = leading
    reader = _Reader(key, Spool(work_dir), cache_dir, coordinator_key, no_key_hint)
    try:
        reader.read_all(exports, known, progress)
        problems = [*sorted([*folder_problems, *reader.cache_problems], key=lambda p: p.file), *receipt_lines]
        return _merge(reader, problems, receipts, receipts_source, seen, accept, accepted_before, refused_before)
    except BaseException:
        reader.spool.close()
        raise


def _merge(
    reader: _Reader, problems: list[Problem], receipts: Mapping[str, set[str]] | None, receipts_source: str,
    seen: Ledger | None, accept: Mapping[str, str] | None = None,
    accepted_before: list[dict[str, Any]] | None = None, refused_before: frozenset[str] = frozenset(),
) -> CollectResult:
    """The steps after reading: compare the exports, merge their records and describe it all (:func:`collect`)."""
    key = reader.key
    records, exports_report, chains = reader.in_order(problems)
    trust = _Trust({c.label for c in chains})
    failed = _Failed({d.label for d in reader.digests if d.usable})
    for d in reader.digests:
        if d.usable:
            failed.note(d.problems)
    ledger = ledger_problems(chains, seen) if seen else []
    # An export that continues the chain an earlier collect counted keeps it: of two histories that part, the
    # other one is the one that changed. Without such a chain neither can be told the genuine one.
    diverged = {p.file.split("!", 1)[0] for p in ledger}
    continuing = {c.label for c in chains if (c.rater_id, c.bundle_id) in (seen or {}) and c.label not in diverged}
    failed.note(replay_problems(chains), "history", exempt=continuing)
    failed.note(ledger, "history")
    problems += failed.history
    sha_of = {d.label: d.sha256 for d in reader.digests}
    unmatched: list[str] = []
    refused: set[str] = set()
    # ``--receipt CODE`` is the code of the one export given (read now, or collected earlier and given again): the
    # exports an earlier collect recorded are not checked against it.
    checked = [c for c in chains if receipts is not None and (receipts_source != "--receipt" or c.label in reader.given)]
    if receipts is not None:
        found, refused = receipt_problems(checked, receipts, receipts_source)
        problems += found
        failed.note([p for p in found if p.file.split("!", 1)[0] in refused], "receipt")
        unmatched = _receipts_without_export(reader, receipts, receipts_source)
    # An export an earlier collect into the folder refused for its receipt code stays refused while no receipt checks
    # it again: the earlier decision is not lost.
    rechecked = {c.label for c in checked}
    found = [Problem(f"{c.label}!manifest.json", "audit.head",
                     f"an earlier collect into this folder refused it for its receipt code (it did not match a code "
                     f"rater {c.rater_id} sent, or they sent none): give --receipts again with the code the rater "
                     "sent, or accept its records")
             for c in chains if c.label not in rechecked and sha_of.get(c.label) in refused_before]
    refused |= {p.file.split("!", 1)[0] for p in found}
    problems += found
    failed.note(found, "receipt")
    for line in exports_report:
        if line.get("label") in refused:
            line.update(records=0, ok=False)
    # Counted means verified: no record of an export that fails a check of its provenance is counted (unless the
    # coordinator accepts it by its id, with a reason); it goes to the quarantine.
    quarantine = _Quarantine(accept, accepted_before)
    records = [rr for rr in records if quarantine.keep(rr, failed.of(rr.export))]
    trust.exports -= set(failed.by_export)
    for digest in reader.digests_in_order:
        if digest.usable and digest.label not in refused:
            problems += digest.rule_problems
    conflicted: set[tuple[str, str, int]] = set()
    by_record_id, duplicates, conflicts = _one_per_record_id(records, problems, trust, conflicted)
    by_revision = _one_per_revision(by_record_id, conflicts, problems, trust, conflicted)
    merged = _latest_revisions(by_revision, key, problems, conflicted)
    off = {(o["rater_id"], o["task_id"]) for o in merged.off_assignment}
    assignment = [("assignment", "the key does not assign this task to this rater (not in the rater's bundle)")]

    def counts(k: Kept) -> bool:
        failures = [*(assignment if (k.rater_id, k.task_id) in off else []), *_revision_chain(k, by_revision)]
        return quarantine.keep(k, failures)

    merged.ratings = [k for k in merged.ratings if counts(k)]
    merged.cannot_rate = [k for k in merged.cannot_rate if counts(k)]
    problems += quarantine.problems({rr.record_id for rr in records})
    # A decided collection: an export every quarantined record of which the coordinator accepted no longer makes
    # collect fail; the problems that put its records in quarantine stay listed with the acceptances (``accepted``
    # rows' ``reasons``) and in ``decided``.
    decided = failed.settled(quarantine)
    problems[:] = [p for p in problems if id(p) not in decided]
    nobody, missing_by_rater, nobody_could = _coverage(key, merged.ratings, merged.cannot_rate)
    if len(problems) > MAX_PROBLEMS_PER_COLLECTION:
        more = len(problems) - MAX_PROBLEMS_PER_COLLECTION
        problems[MAX_PROBLEMS_PER_COLLECTION:] = [Problem(
            "collect", "", f"and {more:,} more problems, not listed (at most {MAX_PROBLEMS_PER_COLLECTION:,} are)")]
    clock = _clock_suspects([*merged.ratings, *merged.cannot_rate])
    report = {
        "ok": not problems,
        "clock_suspect": clock,
        "study_id": key.study_id,
        "exports": exports_report,
        "problems": [asdict(p) for p in problems],
        "ratings": len(merged.ratings),
        "history": merged.history,
        "duplicates": duplicates,
        "conflicts": conflicts,
        "unknown_tasks": merged.unknown,
        "tasks_nobody_rated": nobody,
        "cannot_rate": [
            {"rater_id": c.rater_id, "task_id": c.task_id, "reason": c.cannot_rate[0], "detail": c.cannot_rate[1]}
            for c in merged.cannot_rate if c.cannot_rate is not None
        ],
        "tasks_every_rater_could_not_rate": nobody_could,
        "flagged": _flagged([*merged.ratings, *merged.cannot_rate]),
        "missing_by_rater": missing_by_rater,
        "off_assignment": merged.off_assignment,
        "quarantine": quarantine.rows,
        "accepted": quarantine.accepted,
        "decided": [asdict(p) for p in failed.decided_problems(decided)],
        "receipts_without_export": unmatched,
        # The exports refused for their receipt code (by the SHA-256 of their zip), for a later collect without it.
        "receipts_refused": sorted({sha_of[label] for label in refused if label in sha_of}),
        # Every acceptance given into this folder, for the next collect (each for one record in one export's bytes).
        "acceptances": quarantine.ledger(),
        # A quarantined export's chain is not remembered: a forged export must not make the genuine one that
        # comes later look like a different history.
        "chains_seen": _chains_seen(seen or {}, [c for c in chains if c.label not in failed.by_export]),
    }
    return CollectResult(
        key=key, spool=reader.spool, ratings=merged.ratings, revisions=merged.revisions,
        cannot_rate=merged.cannot_rate, problems=problems, report=report, read=reader.read,
        already_collected=reader.already, unusable_cache_entries=len(reader.cache_problems),
        clock_suspect=frozenset(row["record_id"] for row in clock), accepted_earlier=quarantine.earlier_used,
    )


MAX_PROBLEMS_PER_COLLECTION = 10_000
"""Problems listed per collection (collect-report.json, the terminal, ``--json``); one more line counts the rest.
Each export lists at most ``reader.MAX_PROBLEMS_PER_EXPORT``."""

CHECKS = {
    "chain": "the audit chain",
    "seal": "the export's seal",
    "binding": "the binding to the bundle and the rater",
    "receipt": "the receipt code",
    "history": "the history against the other exports of this rater's bundle",
    "export": "the export's files",
    "assignment": "the assignment",
    "revisions": "the line of revisions back to the first",
}
"""The checks of a record's provenance (``quarantine[].checks``), in plain words."""
_BINDING_PATHS = {"bundle_id", "bundle_sha256", "rater_id", "study_id", "envelope.bundle_id", "envelope.bundle_sha256"}


def _check_of(problem: Problem) -> str:
    """Which provenance check an export's problem says failed."""
    name = problem.file.split("!", 1)[1] if "!" in problem.file else ""
    if name == "audit.jsonl" or problem.path == "audit" or "audit chain" in problem.message:
        return "seal" if "seal" in problem.message or "export_sealed" in problem.message else "chain"
    if problem.path in _BINDING_PATHS:
        return "binding"
    return "export"


_OTHER_HISTORY = re.compile(r"^and (?P<label>.+?) hold two different histories ")


class _Failed:
    """The provenance checks each export fails, with the problems that say so."""

    def __init__(self, labels: set[str]) -> None:
        self.labels = labels
        self.by_export: dict[str, list[tuple[str, str]]] = {}
        self.history: list[Problem] = []
        """The problems of the comparison of the exports (added to the collection's problems)."""
        self._about: list[tuple[Problem, list[str]]] = []
        """Each problem that failed a check, with the exports it failed."""

    def note(self, problems: list[Problem], check: str | None = None, exempt: set[str] | None = None) -> None:
        for p in problems:
            if check == "history":
                self.history.append(p)
            labels = [p.file.split("!", 1)[0]]
            other = _OTHER_HISTORY.match(p.message)
            if check == "history" and other:  # two histories that part: neither can be told the genuine one
                labels.append(other["label"])
            self._about.append((p, labels))
            for label in labels:
                if label in self.labels and label not in (exempt or set()):
                    why = f"{p.file}: {p.path + ': ' if p.path else ''}{p.message}"
                    self.by_export.setdefault(label, []).append((check or _check_of(p), why))

    def of(self, export: str | None) -> list[tuple[str, str]]:
        return self.by_export.get(export or "", [])

    def settled(self, quarantine: _Quarantine) -> set[int]:
        """The problems (by ``id``) that only put records in quarantine which the coordinator then accepted, every
        one: each export the problem is about had a record accepted and has none left quarantined."""
        waiting = {row["export"] for row in quarantine.rows}
        accepted = {row["export"] for row in quarantine.accepted}
        settled = {label for label in self.by_export if label in accepted and label not in waiting}
        return {id(p) for p, labels in self._about if labels and all(label in settled for label in labels)}

    def decided_problems(self, decided: set[int]) -> list[Problem]:
        """The problems :meth:`settled` found, once each, in the order they were noted."""
        seen: set[int] = set()
        out = []
        for p, _ in self._about:
            if id(p) in decided and id(p) not in seen:
                seen.add(id(p))
                out.append(p)
        return out


class _Quarantine:
    """Records not counted because a check of their provenance failed (``quarantine`` in collect-report.json,
    and the ``quarantine.csv`` table), and those the coordinator kept anyway (``accepted``: ``--accept RECORD_ID
    --reason TEXT`` in this collect, or an acceptance an earlier collect into the folder recorded for the same
    record in the same export's bytes)."""

    def __init__(self, accept: Mapping[str, str] | None, before: list[dict[str, Any]] | None = None) -> None:
        self.accept = dict(accept or {})
        self.before: dict[tuple[str, str, str], str] = {}
        """(record id, export SHA-256, record SHA-256) -> the reason an earlier collect recorded."""
        self.before_ids: dict[str, dict[str, Any]] = {}
        for entry in before or []:
            self.before[(entry["record_id"], entry["export_sha256"], entry["record_sha256"])] = entry["accepted_because"]
            self.before_ids.setdefault(entry["record_id"], entry)
        self.rows: list[dict[str, Any]] = []
        self.accepted: list[dict[str, Any]] = []
        self.earlier_used: list[dict[str, Any]] = []
        self.changed: list[Problem] = []
        """An earlier acceptance of a record id whose quarantined copy now has other bytes (not carried over)."""
        self._given: dict[tuple[str, str, str], str] = {}
        self._accepted_at: dict[tuple[str, str], dict[str, Any]] = {}
        """(export SHA-256, record file) -> its accepted row."""

    def keep(self, k: Kept, failures: list[tuple[str, str]]) -> bool:
        """True when ``k`` counts: no check failed, or the coordinator accepted it."""
        if not failures:
            return True
        row: dict[str, Any] = {
            "record_id": k.record_id, "rater_id": k.rater_id, "task_id": k.task_id, "revision": k.revision,
            "record_kind": k.kind, "export": k.export, "export_sha256": k.export_sha256, "source": k.source,
            "record_sha256": k.sha256,
            "checks": sorted({c for c, _ in failures}),
            "failed": "; ".join(sorted({f"{CHECKS[c]} does not hold" for c, _ in failures})),
            "reasons": [why for _, why in failures][:20],
        }
        binding = (k.record_id, k.export_sha256, k.sha256)
        again = self._accepted_at.get((k.export_sha256, k.source))
        if again is not None:  # accepted at the provenance checks, and now off the assignment too: one row
            again["checks"] = sorted({*again["checks"], *row["checks"]})
            again["failed"] = "; ".join(sorted({*again["failed"].split("; "), *row["failed"].split("; ")}))
            again["reasons"] = [*again["reasons"], *row["reasons"]][:20]
            return True
        reason = self.accept.get(k.record_id)
        if reason is None and binding in self.before:
            reason = self.before[binding]
            self.earlier_used.append(row)
        if reason is not None:
            self._given[binding] = reason
            self.accepted.append({**row, "accepted_because": reason})
            self._accepted_at[(k.export_sha256, k.source)] = self.accepted[-1]
            return True
        earlier = self.before_ids.get(k.record_id)
        if earlier is not None:
            self.changed.append(Problem(
                k.source, "envelope.record_id",
                f"record {k.record_id} was accepted by an earlier collect into this folder from {earlier.get('export')} "
                f"(export SHA-256 {str(earlier.get('export_sha256'))[:12]}…), but this copy comes from other bytes: "
                "the acceptance does not carry over; check it and accept it again if it should count"))
        self.rows.append(row)
        return False

    def problems(self, counted: set[str] | None = None) -> list[Problem]:
        out: list[Problem] = list(self.changed)
        by_export: dict[str, int] = {}
        for row in self.rows:
            by_export[row["export"] or row["source"]] = by_export.get(row["export"] or row["source"], 0) + 1
        for export, n in sorted(by_export.items()):
            out.append(Problem(export, "", f"{count(n, 'record')} quarantined, not counted: a check of "
                               f"{agree(n, 'its', 'their')} provenance failed (quarantine.csv, collect-report.json "
                               "quarantine; keep one with --accept RECORD_ID --reason TEXT)"))
        accepted_ids = {row["record_id"] for row in self.accepted}
        for rid in sorted(set(self.accept) - accepted_ids):
            if counted is not None and rid in counted:
                out.append(Problem("--accept", rid, "this record is not quarantined (it is counted already): "
                                                   "nothing to accept"))
            else:
                out.append(Problem("--accept", rid, "no quarantined record has this id: nothing accepted"))
        return out

    def ledger(self) -> list[dict[str, Any]]:
        """Every acceptance to remember: those given or used now, and the earlier ones not met in this collect."""
        given = dict(self.before)
        given.update(self._given)
        return [{"record_id": r, "export_sha256": e, "record_sha256": s, "accepted_because": why}
                for (r, e, s), why in sorted(given.items())]


def _revision_chain(k: Kept, by_revision: Mapping[tuple[str, str, int], Kept]) -> list[tuple[str, str]]:
    """A counted revision whose line back to revision 1 breaks fails ``revisions``
    (``provenance.revision_line_breaks``)."""
    return [("revisions", f"{p.file}: {p.path}: {p.message}") for p in revision_line_breaks(k, by_revision)]


def _receipts_without_export(reader: _Reader, receipts: Mapping[str, set[str]], source: str) -> list[str]:
    """The receipt codes the raters sent that match no export of the collection, in plain words (an export the
    rater made has not arrived, or a code was mistyped)."""
    have = {(d.chain.rater_id, d.chain.receipt) for d in reader.digests if d.chain is not None}
    return [f"{source}: rater {rater} sent the receipt code {code}, but no export in the collection has it: has "
            "that export arrived?" for rater, codes in sorted(receipts.items()) for code in sorted(codes)
            if (rater, code) not in have and source != "--receipt"]


def read_receipts_refused(out_dir: Path) -> frozenset[str]:
    """The SHA-256 of the exports an earlier ``collect`` into ``out_dir`` refused for their receipt code."""
    path = out_dir / "collect-report.json"
    try:
        obj = parse_json_bytes(read_file_bytes(path, str(path)), str(path))
    except DocumentError:
        return frozenset()
    rows = obj.get("receipts_refused") if isinstance(obj, dict) else None
    return frozenset(r for r in rows if isinstance(r, str)) if isinstance(rows, list) else frozenset()


def read_acceptances(out_dir: Path) -> list[dict[str, Any]]:
    """The acceptances an earlier ``collect`` into ``out_dir`` recorded (its collect-report.json ``acceptances``):
    each for one record id in one export's bytes; empty when there is none or it cannot be read."""
    path = out_dir / "collect-report.json"
    try:
        obj = parse_json_bytes(read_file_bytes(path, str(path)), str(path))
    except DocumentError:
        return []
    rows = obj.get("acceptances") if isinstance(obj, dict) else None
    out = []
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, dict) and all(isinstance(row.get(k), str) and row.get(k) for k in
                                         ("record_id", "export_sha256", "record_sha256", "accepted_because")):
            out.append({k: row[k] for k in ("record_id", "export_sha256", "record_sha256", "accepted_because")})
    return out


def _clock_suspects(kept: list[Kept]) -> list[dict[str, Any]]:
    """Counted records whose times a wrong clock on the rater's computer explains (kept, flagged)."""
    out = []
    for k in kept:
        if k.clock is not None:
            out.append({"record_id": k.record_id, "rater_id": k.rater_id, "task_id": k.task_id, "source": k.source,
                        "why": k.clock})
    return out


def _chains_seen(seen: Ledger, chains: list[ChainSummary]) -> list[dict[str, Any]]:
    """The newest chain of each rater's bundle seen so far (this run's and the earlier runs')."""
    newest: dict[tuple[str, str], dict[str, Any]] = {k: dict(v) for k, v in seen.items()}
    for chain in chains:
        pair = (chain.rater_id, chain.bundle_id)
        entry = ledger_entry(chain)
        if pair not in newest or entry["lines"] >= int(newest[pair].get("lines", 0)):
            newest[pair] = entry
    return [{"rater_id": r, "bundle_id": b, **entry} for (r, b), entry in sorted(newest.items())]


def read_ledger(out_dir: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """The chains an earlier ``collect`` into ``out_dir`` saw (its ``collect-report.json``); empty when there
    is none or it cannot be read (then nothing is compared)."""
    path = out_dir / "collect-report.json"
    try:
        obj = parse_json_bytes(read_file_bytes(path, str(path)), str(path))
    except DocumentError:
        return {}
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    rows = obj.get("chains_seen") if isinstance(obj, dict) else None
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, dict) and isinstance(row.get("rater_id"), str) and isinstance(row.get("bundle_id"), str):
            seen[(row["rater_id"], row["bundle_id"])] = {k: row.get(k) for k in ("head", "lines", "export_id")}
    return seen


@dataclass
class _Digest:
    """One export as the merge needs it: its report line's facts, its problems, its chain and its kept
    records (those that keep the record rules), with the rule problems of the others."""

    file: str
    sha256: str
    label: str
    manifest: tuple[str, str, str] | None
    """Its manifest's rater id, bundle id and export time (the rest of it is not kept: it lists every record)."""
    problems: list[Problem]
    usable: bool
    chain: ChainSummary | None
    records: int
    kept: list[Kept] = field(default_factory=list)
    rule_problems: list[Problem] = field(default_factory=list)


class _Reader:
    """Reads each export once (from its zip, or from the collection's cache), checks it and keeps a
    :class:`_Digest` of it; the records go to the spool."""

    def __init__(self, key: UnblindingKey, spool: Spool, cache_dir: Path | None,
                 coordinator_key: CoordinatorKey | None = None, no_key_hint: str = "") -> None:
        self.key = key
        self.coordinator_key = coordinator_key
        self.no_key_hint = no_key_hint
        self.spool = spool
        self.cache_dir = cache_dir
        self.entries: dict[str, KeyEntry] = {e.task_id: e for e in key.entries}
        self.rules = RubricRules(key.rubric)
        self.now = record_rules.utc_now()
        """The clock the records' times are compared with (``clock_suspect``)."""
        self.facts = {e.task_id: TaskFacts(e.task_id, e.benchmark_item_id, e.clinical_domain_id,
                                            list(e.scenario_type_ids), e.candidate_response_id,
                                            e.candidate_response_sha256) for e in key.entries}
        self.digests: list[_Digest] = []
        self.early: list[tuple[Problem, dict[str, Any]]] = []
        """Zips that could not be looked at (a folder, unreadable): their problem and report line."""
        self.read: list[str] = []
        self.already: list[str] = []
        self.given: set[str] = set()
        """The labels of the exports given on the command line (read now, or collected earlier and given again)."""
        self.cache_problems: list[Problem] = []
        self._fm_sets: dict[frozenset[str], frozenset[str]] = {}
        self._strings: dict[str, str] = {}

    def read_all(self, exports: list[Path], known: Mapping[str, Path], progress: Callable[[int, int], None] | None) -> None:
        every: set[str] = set()
        for sha, entry in sorted(known.items()):
            try:
                cached = export_cache.load_entry(entry)
            except export_cache.UNUSABLE as exc:
                self.cache_problems.append(export_cache.unusable_problem(entry, exc))
                continue
            every.add(sha)
            self._digest(cached)
        labels = {d.label for d in self.digests}
        for done, path in enumerate(exports, start=1):
            path = Path(path)
            if path.is_dir():
                self.early.append((Problem(str(path), "", "is a folder; give the results export zip the rater sent"),
                                   {"file": str(path), "ok": False, "records": 0}))
                continue
            try:
                sha = file_sha256(path)
            except OSError as exc:
                self.early.append((Problem(str(path), "", f"cannot be read ({exc.strerror or exc})"),
                                   {"file": str(path), "ok": False, "records": 0}))
                continue
            if sha in every:
                self.already.append(str(path))
                self.given |= {d.label for d in self.digests if d.sha256 == sha}
                continue
            every.add(sha)
            # Two different exports of one file name (each rater's folder holds a results.zip) are told apart: a
            # check failed by one must never quarantine the other, nor the other's chain vouch for it.
            label = path.name if path.name not in labels else f"{path.name}@{sha[:12]}"
            labels.add(label)
            known_export = KnownExport(str(path), sha, read_export(path, self.coordinator_key, self.no_key_hint,
                                                                   label=label), cached=False)
            # A file that is no export at all (no manifest) is said in this run, not recorded for every later one.
            if self.cache_dir is not None and known_export.export.manifest is not None:
                export_cache.write_entry(self.cache_dir, known_export)
            self.read.append(str(path))
            self.given.add(label)
            self._digest(known_export)
            if progress is not None:
                progress(done, len(exports))

    def _digest(self, item: KnownExport) -> None:
        export = item.export
        export_problems, usable = _match_key(export, self.key)
        export_problems[:0] = export.problems
        m = export.manifest
        ids = None if m is None else (m.rater_id, m.bundle_id, m.exported_at)
        digest = _Digest(item.file, item.sha256, export.label, ids, export_problems, usable,
                         export.chain, len(export.records))
        if usable:
            for rr in export.records:
                found = self.rules.problems(rr.record, self.facts.get(rr.record.envelope.task_id), rr.source,
                                            check_times=False)
                if found:
                    digest.rule_problems += found
                    digest.rule_problems.append(Problem(rr.source, "", "breaks the record rules above: record left out"))
                else:
                    digest.kept.append(self._keep(rr.record, rr.source, rr.sha256, rr.export, item.sha256))
        self.digests.append(digest)

    def _clock(self, env: Any, source: str) -> str | None:
        """Why the record's start or submission time can only be a wrong clock's (before 2020, or more than a day
        after this computer's clock), or None."""
        found = time_problems([("envelope.started_at", env.started_at), ("envelope.submitted_at", env.submitted_at)],
                              source, self.now)
        return None if not found else "; ".join(f"{p.path}: {p.message}" if len(found) > 1 else p.message for p in found)

    def _intern(self, text: str) -> str:
        return self._strings.setdefault(text, text)

    def _keep(self, record: Any, source: str, sha256: str, export: str | None, export_sha256: str) -> Kept:
        env = record.envelope
        obj = record.to_json_obj()
        entry = self.entries.get(env.task_id)
        # Ids equal to the key's are kept as the key's own strings (a million records, not a million copies).
        task_id = entry.task_id if entry is not None else env.task_id
        response_id = record.candidate_response_id
        if entry is not None and response_id == entry.candidate_response_id:
            response_id = entry.candidate_response_id
        if entry is not None:
            obj["model_source"] = entry.model_source
        cannot = isinstance(record, CannotRateRecord)
        if not cannot:
            obj["record_kind"] = "rating"
        line = json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8") + b"\n"
        at, size = self.spool.add(line)
        fm = frozenset(() if cannot else record.failure_mode_annotations)
        return Kept(
            source=source, sha256=sha256, export=None if export is None else self._intern(export),
            export_sha256=self._intern(export_sha256),
            record_id=env.record_id, rater_id=self._intern(record.rater_id), task_id=task_id,
            revision=env.revision, supersedes=env.supersedes_record_id, submitted_at=env.submitted_at, clock=self._clock(env, source), kind="cannot_rate" if cannot else "rating",
            candidate_response_id=response_id,
            benchmark_item_id=self._intern(record.benchmark_item_id),
            model_source=None if record.model_source is None else self._intern(record.model_source),
            flag=None if record.coordinator_flag is None else record.coordinator_flag.note,
            cannot_rate=(record.cannot_rate.reason, record.cannot_rate.detail or "") if cannot else None,
            fm_ids=self._fm_sets.setdefault(fm, fm), at=at, size=size,
        )

    @property
    def digests_in_order(self) -> list[_Digest]:
        return sorted(self.digests, key=lambda d: canonical_key(d.file, d.sha256))

    def in_order(self, problems: list[Problem]) -> tuple[list[Kept], list[dict[str, Any]], list[ChainSummary]]:
        """The kept records of every usable export, a line of the report per export, and the audit chains
        that hold; the exports' problems go to ``problems`` (in the one canonical order of the exports)."""
        records: list[Kept] = []
        exports_report: list[dict[str, Any]] = []
        chains: list[ChainSummary] = []
        for problem, line in self.early:
            problems.append(problem)
            exports_report.append(line)
        for d in self.digests_in_order:
            problems.extend(d.problems)
            if d.usable:
                records.extend(d.kept)
                if d.chain is not None:
                    chains.append(d.chain)
            ids = d.manifest
            exports_report.append(
                {
                    "file": d.file,
                    "sha256": d.sha256,
                    "label": d.label,
                    "rater_id": ids[0] if ids else None,
                    "bundle_id": ids[1] if ids else None,
                    "exported_at": ids[2] if ids else None,
                    "records": d.records if d.usable else 0,
                    "chain": ledger_entry(d.chain) if d.chain is not None else None,
                    "ok": not d.problems,
                }
            )
        return records, exports_report, chains


def _match_key(export: ExportRead, key: UnblindingKey) -> tuple[list[Problem], bool]:
    """An export against the key (study, bundle, rater): its problems, and whether its records are used."""
    manifest = export.manifest
    if manifest is None:
        return [], False
    mdisp = f"{export.label}!manifest.json"
    if manifest.study_id != key.study_id:
        return [Problem(mdisp, "study_id", f"{manifest.study_id} is not the key's study ({key.study_id}); export skipped")], False
    kb = next((b for b in key.bundles if b.bundle_id == manifest.bundle_id), None)
    if kb is None:
        task_ids = {e.task_id for e in key.entries}
        if export.records and not any(rr.record.envelope.task_id in task_ids for rr in export.records):
            # A bundle of another build (other seed, changed study): none of its tasks is in this key.
            # One problem for the export, not one "unknown task" per record.
            return [Problem(
                mdisp,
                "bundle_id",
                f"{manifest.bundle_id} was not built with this key and none of its tasks is in it (another "
                f"build, another seed or a changed study?): its {count(len(export.records), 'record')} {agree(len(export.records), 'was', 'were')} left out; "
                "collect each build's exports with that build's key",
            )], False
        return [Problem(mdisp, "bundle_id", f"{manifest.bundle_id} was not built with this key (another build?)")], True
    problems: list[Problem] = []
    if kb.bundle_sha256 != manifest.bundle_sha256:
        problems.append(Problem(mdisp, "bundle_sha256", "does not match the bundle written with this key (another build?)"))
    if kb.rater_id is not None and kb.rater_id != manifest.rater_id:
        problems.append(Problem(mdisp, "rater_id", f"{manifest.rater_id} but the bundle was made for {kb.rater_id}"))
    return problems, True


def _one_per_record_id(
    records: list[Kept], problems: list[Problem], trust: _Trust, conflicted: set[tuple[str, str, int]]
) -> tuple[dict[str, Kept], list[dict[str, Any]], list[dict[str, Any]]]:
    """Step 1: identical copies of a record are duplicates (counted once); one record id with different
    content is a conflict (:func:`_decide`)."""
    by_record_id: dict[str, Kept] = {}
    duplicates: list[dict[str, Any]] = []
    conflicts: list[dict[str, Any]] = []
    undecided: set[str] = set()
    for rr in records:
        rid = rr.record_id
        seen = by_record_id.get(rid)
        if rid in undecided:
            continue
        if seen is None:
            by_record_id[rid] = rr
        elif seen.sha256 == rr.sha256:
            duplicates.append({"record_id": rid, "kept": seen.source, "duplicate": rr.source})
        else:
            kept = _decide(seen, rr, trust)
            conflicts.append(_conflict("same record id, different content", [seen, rr], kept, record_id=rid))
            problems.append(Problem(rr.source, "envelope.record_id", _conflict_words(f"same record id as {seen.source} but different content", kept)))
            if kept is None:
                del by_record_id[rid]
                undecided.add(rid)
                for r in (seen, rr):
                    conflicted.add((r.rater_id, r.task_id, r.revision))
            else:
                by_record_id[rid] = kept
    return by_record_id, duplicates, conflicts


def _conflict(kind: str, rrs: list[Kept], kept: Kept | None, **ids: Any) -> dict[str, Any]:
    return {
        "kind": kind, **ids, "sources": [r.source for r in rrs], "kept": kept.source if kept else None,
        "decided_by": "audit chain" if kept else "undecided: neither kept",
    }


def _conflict_words(what: str, kept: Kept | None) -> str:
    if kept is not None:
        return f"{what}; kept {kept.source}, whose export's audit chain holds"
    return f"{what}; neither is kept (no audit chain tells them apart; times in a file are not trusted)"


def _one_per_revision(
    by_record_id: dict[str, Kept], conflicts: list[dict[str, Any]], problems: list[Problem],
    trust: _Trust, conflicted: set[tuple[str, str, int]],
) -> dict[tuple[str, str, int], Kept]:
    """Step 2: one record per (rater, task, revision); two are a conflict (:func:`_decide`)."""
    by_revision: dict[tuple[str, str, int], Kept] = {}
    for rr in sorted(by_record_id.values(), key=lambda r: r.source):
        k = (rr.rater_id, rr.task_id, rr.revision)
        if k in conflicted:
            continue
        seen = by_revision.get(k)
        if seen is None:
            by_revision[k] = rr
            continue
        kept = _decide(seen, rr, trust)
        conflicts.append(_conflict(
            "two records for the same revision", [seen, rr], kept, rater_id=k[0], task_id=k[1], revision=k[2]
        ))
        problems.append(Problem(
            rr.source, "envelope.revision",
            _conflict_words(f"rater {k[0]} task {k[1]} revision {k[2]} also comes from {seen.source}", kept),
        ))
        if kept is None:
            del by_revision[k]
            conflicted.add(k)
        else:
            by_revision[k] = kept
    return by_revision


@dataclass
class _Merged:
    ratings: list[Kept] = field(default_factory=list)
    cannot_rate: list[Kept] = field(default_factory=list)
    revisions: dict[tuple[str, str], int] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)
    unknown: list[dict[str, Any]] = field(default_factory=list)
    off_assignment: list[dict[str, str]] = field(default_factory=list)


def _history_entry(rater: str, task: str, rrs: list[Kept]) -> dict[str, Any]:
    revs = [r.revision for r in rrs]
    return {
        "rater_id": rater,
        "task_id": task,
        "kept_revision": revs[-1],
        "revisions": [
            {
                "revision": r.revision,
                "record_id": r.record_id,
                "submitted_at": r.submitted_at,
                "source": r.source,
            }
            for r in rrs
        ],
        "missing_revisions": sorted(set(range(1, revs[-1] + 1)) - set(revs)),
    }


def _latest_revisions(
    by_revision: dict[tuple[str, str, int], Kept], key: UnblindingKey, problems: list[Problem],
    conflicted: set[tuple[str, str, int]],
) -> _Merged:
    """Step 3: the latest revision per (rater, task), checked against the key and unblinded; the history.
    A (rater, task) whose latest revision is in an undecided conflict is left out (an older revision would
    silently stand in for it)."""
    entries: dict[str, KeyEntry] = {e.task_id: e for e in key.entries}
    per_pair: dict[tuple[str, str], list[Kept]] = {}
    for (rater, task, _rev), rr in by_revision.items():
        per_pair.setdefault((rater, task), []).append(rr)
    newest_conflict: dict[tuple[str, str], int] = {}
    for rater, task, rev in conflicted:
        newest_conflict[(rater, task)] = max(rev, newest_conflict.get((rater, task), 0))
    out = _Merged()
    for (rater, task), rrs in sorted(per_pair.items()):
        rrs.sort(key=lambda r: r.revision)
        latest = rrs[-1]
        if newest_conflict.get((rater, task), 0) > latest.revision:
            problems.append(Problem(
                latest.source, "envelope.revision",
                f"rater {rater} task {task}: revision {newest_conflict[(rater, task)]} is in conflict, so no revision "
                "of this task is kept",
            ))
            continue
        if len(rrs) > 1 or latest.revision != 1:
            out.history.append(_history_entry(rater, task, rrs))
        entry = entries.get(task)
        rec = latest
        if entry is None:
            out.unknown.append({"rater_id": rater, "task_id": task, "source": latest.source})
            problems.append(Problem(latest.source, "envelope.task_id", f"task {task} is not in the unblinding key (record left out)"))
            continue
        mismatch = [
            (field_path, got, want)
            for field_path, got, want in (
                ("candidate_response_id", rec.candidate_response_id, entry.candidate_response_id),
                ("benchmark_item_id", rec.benchmark_item_id, entry.benchmark_item_id),
            )
            if got != want
        ]
        if rec.model_source is not None and rec.model_source != entry.model_source:
            mismatch.append(("model_source", rec.model_source, entry.model_source))
        if mismatch:
            for field_path, got, want in mismatch:
                problems.append(Problem(latest.source, field_path, f"{got!r} does not match the key ({want!r}); record left out"))
            continue
        if entry.raters and rater not in entry.raters:
            out.off_assignment.append({"rater_id": rater, "task_id": task})
        # Its line in the spool has the key's model_source and an explicit record_kind (a rating may leave it
        # out), set when the record was read.
        (out.cannot_rate if rec.kind == "cannot_rate" else out.ratings).append(rec)
        out.revisions[(rater, task)] = len(rrs)
    return out


def _coverage(
    key: UnblindingKey, ratings: list[Kept], cannot_rate: list[Kept]
) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """Step 4: tasks nobody rated (a "cannot rate" returns a task without rating it), per rater the assigned
    tasks not returned, and the tasks every rater they went to could not rate (for an unassigned bundle:
    every rater who returned them)."""
    rated_by: dict[str, set[str]] = {}
    for r in ratings:
        rated_by.setdefault(r.task_id, set()).add(r.rater_id)
    unable_by: dict[str, set[str]] = {}
    for c in cannot_rate:
        unable_by.setdefault(c.task_id, set()).add(c.rater_id)
    nobody = [e.task_id for e in key.entries if e.task_id not in rated_by]
    missing_by_rater: dict[str, list[str]] = {}
    for e in key.entries:
        for rater in e.raters:
            if rater not in rated_by.get(e.task_id, set()) | unable_by.get(e.task_id, set()):
                missing_by_rater.setdefault(rater, []).append(e.task_id)
    nobody_could = [
        e.task_id for e in key.entries
        if e.task_id in unable_by and e.task_id not in rated_by
        and set(e.raters or unable_by[e.task_id]) <= unable_by[e.task_id]
    ]
    return nobody, {k: sorted(v) for k, v in sorted(missing_by_rater.items())}, nobody_could


def _flagged(records: list[Kept]) -> list[dict[str, str]]:
    """Every flag for the coordinator, by rater then task."""
    return [
        {"rater_id": r.rater_id, "task_id": r.task_id, "record_kind": r.kind, "note": r.flag}
        for r in sorted(records, key=lambda r: (r.rater_id, r.task_id))
        if r.flag is not None
    ]


