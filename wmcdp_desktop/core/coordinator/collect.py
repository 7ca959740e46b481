"""Merging the raters' results exports and unblinding them (``wmcdp results collect``).

Steps: each export is checked (zip safety, manifest, hashes, records, the audit chain;
``core/coordinator/results_reader.py``) and matched to the unblinding key (study, bundle, rater). The
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

Outputs (:func:`write_outputs`, owner-only: they name the models): ``ratings.jsonl`` (one full record
per line), ``ratings.csv`` (one row per rating; :data:`CSV_FIXED_COLUMNS`, then ``scoring.*`` fields,
``failure_mode.<id>`` severities, ``failure_mode_note.<id>`` notes, then :data:`CSV_KIND_COLUMNS`),
``summary.json`` (per rater, per model) and ``collect-report.json`` (which also keeps the newest audit
chain seen of each rater's bundle, for the next run's replay check).

Record kinds: a rater may answer "cannot rate" instead of a rating (``core/models/cannot_rate_record.py``)
and flag any task for the coordinator. Both kinds go through the same steps (a later revision of either
kind replaces an earlier one); ``ratings.jsonl`` and ``ratings.csv`` hold one line per (rater, task) of
either kind with ``record_kind`` set, the per-model figures of ``summary.json`` use ratings only, and the
report lists every "cannot rate" and flag, and the tasks every rater they went to could not rate.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import statistics
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from wmcdp_desktop.core.atomic import OWNER_ONLY, atomic_write_bytes
from wmcdp_desktop.core.coordinator.export_cache import KnownExport, canonical_order, file_sha256, write_cache
from wmcdp_desktop.core.coordinator.export_checks import (
    ChainSummary,
    ledger_entry,
    ledger_problems,
    receipt_problems,
    replay_problems,
)
from wmcdp_desktop.core.coordinator.results_reader import ExportRead, ReadRecord, read_export
from wmcdp_desktop.core.counts import agree, count
from wmcdp_desktop.core.documents import load_bytes, read_file_bytes
from wmcdp_desktop.core.errors import DocumentError, Problem, WmcdpError
from wmcdp_desktop.core.models.cannot_rate_record import CannotRateRecord
from wmcdp_desktop.core.models.rating_record import NA, RatingRecord, Scoring
from wmcdp_desktop.core.models.task_record import TaskRecord, record_kind
from wmcdp_desktop.core.models.unblinding_key import KeyEntry, UnblindingKey
from wmcdp_desktop.core.paths import child_path
from wmcdp_desktop.core.record_rules import RubricRules, TaskFacts
from wmcdp_desktop.core.strict_json import dumps_canonical, parse_json_bytes

Ledger = Mapping[tuple[str, str], Mapping[str, Any]]
"""(rater id, bundle id) -> the newest audit chain an earlier run saw (``export_checks.ledger_entry``)."""

SCORE_FIELDS: list[str] = list(Scoring.model_fields)
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
CSV_KIND_COLUMNS = ["record_kind", "cannot_rate_reason", "cannot_rate_detail", "coordinator_flag", "blinding_guess"]
"""The last CSV columns: ``rating`` or ``cannot_rate`` (a "cannot rate" row has no scores, failure modes or
notes), the reason and the rater's words for a "cannot rate", the rater's note when they flagged the task, and
the answer to the blinding check (:func:`blinding_answer`)."""
CANNOT_TELL = "cannot_tell"
"""``blinding_guess`` of a rater who answered "I can't tell" (in ``ratings.csv``, Parquet and REDCap)."""


def blinding_answer(record: RatingRecord | CannotRateRecord) -> str | None:
    """The blinding check's answer as the tables hold it: the label the rater chose, :data:`CANNOT_TELL`, or
    None when the question was not asked or skipped (and on a "cannot rate", which is never asked)."""
    guess = record.blinding_guess if isinstance(record, RatingRecord) else None
    if guess is None:
        return None
    return CANNOT_TELL if guess.label is None else guess.label


@dataclass
class CollectResult:
    key: UnblindingKey
    ratings: list[RatingRecord]
    """Latest revision per (rater, task) when it is a rating, unblinded, sorted by rater then task."""
    revisions: dict[tuple[str, str], int]
    cannot_rate: list[CannotRateRecord] = field(default_factory=list)
    """Latest revision per (rater, task) when it is a "cannot rate", unblinded, sorted by rater then task."""
    problems: list[Problem] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    read: list[KnownExport] = field(default_factory=list)
    """The exports read from their zips in this run (:func:`write_outputs` records them for the next run)."""
    already_collected: list[str] = field(default_factory=list)
    """Exports given again whose zip an earlier run into the same folder already read (not counted twice)."""

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def records(self) -> list[TaskRecord]:
        """Every kept record of either kind, sorted by rater then task."""
        both: list[TaskRecord] = [*self.ratings, *self.cannot_rate]
        return sorted(both, key=lambda r: (r.rater_id, r.envelope.task_id))


@dataclass
class _Trust:
    """Which exports' records may win a conflict: those whose audit chain holds (and whose receipt code,
    when receipts were given, matched)."""

    exports: set[str] = field(default_factory=set)

    def of(self, rr: ReadRecord) -> bool:
        return rr.export is not None and rr.export in self.exports


def _decide(a: ReadRecord, b: ReadRecord, trust: _Trust) -> ReadRecord | None:
    """Of two conflicting records, the one the audit chain vouches for when only one is; else neither.
    Never the time a record claims (a forged far-future record used to win)."""
    ta, tb = trust.of(a), trust.of(b)
    if ta != tb:
        return a if ta else b
    return None


KEY_HINT = "give the <study_id>-unblinding-key.json that `wmcdp bundle build` wrote"


def read_key(path: Path) -> UnblindingKey:
    """The unblinding key; a plain one-line problem when the file is something else (a bundle, a study...)."""
    source = str(path)
    if path.is_dir():
        raise DocumentError.single(source, f"is a folder, not the unblinding key; {KEY_HINT}")
    data = read_file_bytes(path, source)
    if data.startswith(b"PK\x03\x04"):
        raise DocumentError.single(source, f"is a zip file (a bundle or a results export?), not the unblinding key; {KEY_HINT}")
    try:
        obj = parse_json_bytes(data, source)
    except DocumentError:
        obj = None  # reported with its details by load_bytes below
    kind = obj.get("document_type") if isinstance(obj, dict) else None
    if isinstance(kind, str) and kind != "wmcdp_unblinding_key":
        raise DocumentError.single(source, f"is a {kind} document, not the unblinding key; {KEY_HINT}")
    return load_bytes(UnblindingKey, data, source)


def collect(
    exports: list[Path],
    key: UnblindingKey,
    progress: Callable[[int, int], None] | None = None,
    *,
    key_source: str = "unblinding key",
    receipts: Mapping[str, set[str]] | None = None,
    receipts_source: str = "receipts",
    seen: Ledger | None = None,
    known: dict[str, KnownExport] | None = None,
) -> CollectResult:
    """Read, check, merge and unblind the exports (the steps of this module's description).

    ``receipts``: rater id -> receipt codes the raters sent (``export_checks.read_receipts``); ``seen``:
    the chains an earlier run saw (:func:`read_ledger`); ``known``: the exports an earlier run into the same
    folder recorded (``export_cache.load_cache``), merged with those given."""
    problems: list[Problem] = []
    if key.rubric is None:
        problems.append(Problem(
            key_source, "rubric",
            "this key was written by an older wmcdp and has no rubric: scores, N/A and failure modes were not "
            "checked against the rubric, nor response texts against the tasks; run `wmcdp bundle build` again "
            "with the same study and seed to refresh the key (the bundles come out byte-identical)",
        ))
    read: list[KnownExport] = []
    already: list[str] = []
    records, exports_report, chains = _read_exports(exports, key, problems, progress, known or {}, read, already)
    trust = _Trust({c.label for c in chains})
    problems += replay_problems(chains)
    if seen:
        problems += ledger_problems(chains, seen)
    if receipts is not None:
        found, refused = receipt_problems(chains, receipts, receipts_source)
        problems += found
        trust.exports -= refused
        records = [rr for rr in records if rr.export not in refused]
        for line in exports_report:
            if line.get("label") in refused:
                line.update(records=0, ok=False)
    records = _rule_abiding(records, key, problems)
    conflicted: set[tuple[str, str, int]] = set()
    by_record_id, duplicates, conflicts = _one_per_record_id(records, problems, trust, conflicted)
    by_revision = _one_per_revision(by_record_id, conflicts, problems, trust, conflicted)
    merged = _latest_revisions(by_revision, key, problems, conflicted)
    nobody, missing_by_rater, nobody_could = _coverage(key, merged.ratings, merged.cannot_rate)
    report = {
        "ok": not problems,
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
            {"rater_id": c.rater_id, "task_id": c.envelope.task_id, "reason": c.cannot_rate.reason,
             "detail": c.cannot_rate.detail or ""}
            for c in merged.cannot_rate
        ],
        "tasks_every_rater_could_not_rate": nobody_could,
        "flagged": _flagged([*merged.ratings, *merged.cannot_rate]),
        "missing_by_rater": missing_by_rater,
        "off_assignment": merged.off_assignment,
        "chains_seen": _chains_seen(seen or {}, chains),
    }
    result = CollectResult(
        key=key, ratings=merged.ratings, revisions=merged.revisions, cannot_rate=merged.cannot_rate,
        problems=problems, report=report, read=read, already_collected=already,
    )
    result.summary = summarise(result)
    return result


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


def _rule_abiding(records: list[ReadRecord], key: UnblindingKey, problems: list[Problem]) -> list[ReadRecord]:
    """The records that keep the record rules against the key's rubric and their task as the key records it
    (as ``results validate --bundle`` does against the bundle); the others are reported and left out."""
    if key.rubric is None:
        return records
    rules = RubricRules(key.rubric)
    facts: dict[str, TaskFacts] = {}
    for e in key.entries:
        if e.clinical_domain_id is not None and e.scenario_type_ids is not None and e.candidate_response_sha256:
            facts[e.task_id] = TaskFacts(
                e.task_id, e.benchmark_item_id, e.clinical_domain_id, list(e.scenario_type_ids),
                e.candidate_response_id, e.candidate_response_sha256,
            )
    kept = []
    for rr in records:
        found = rules.problems(rr.record, facts.get(rr.record.envelope.task_id), rr.source)
        if found:
            problems.extend(found)
            problems.append(Problem(rr.source, "", "breaks the record rules above: record left out"))
        else:
            kept.append(rr)
    return kept


def _read_exports(
    exports: list[Path], key: UnblindingKey, problems: list[Problem], progress: Callable[[int, int], None] | None,
    known: dict[str, KnownExport], read: list[KnownExport], already: list[str],
) -> tuple[list[ReadRecord], list[dict[str, Any]], list[ChainSummary]]:
    """The records of every usable export (those given and those ``known`` from an earlier run into the same
    folder), a line of the report per export, and the audit chains that hold. A zip whose SHA-256 is known is
    not read again (its path goes to ``already``); those read go to ``read``."""
    records: list[ReadRecord] = []
    exports_report: list[dict[str, Any]] = []
    chains: list[ChainSummary] = []
    every = dict(known)
    for done, path in enumerate(exports, start=1):
        path = Path(path)
        if path.is_dir():
            problems.append(Problem(str(path), "", "is a folder; give the results export zip the rater sent"))
            exports_report.append({"file": str(path), "ok": False, "records": 0})
            continue
        try:
            sha = file_sha256(path)
        except OSError as exc:
            problems.append(Problem(str(path), "", f"cannot be read ({exc.strerror or exc})"))
            exports_report.append({"file": str(path), "ok": False, "records": 0})
            continue
        if sha in every:
            already.append(str(path))
            continue
        every[sha] = KnownExport(str(path), sha, read_export(path), cached=False)
        read.append(every[sha])
        if progress is not None:
            progress(done, len(exports))
    for item in canonical_order(list(every.values())):
        export = item.export
        export_problems, usable = _match_key(export, key)
        export_problems[:0] = export.problems
        problems.extend(export_problems)
        if usable:
            records.extend(export.records)
            if export.chain is not None:
                chains.append(export.chain)
        manifest = export.manifest
        exports_report.append(
            {
                "file": item.file,
                "sha256": item.sha256,
                "label": export.label,
                "rater_id": manifest.rater_id if manifest else None,
                "bundle_id": manifest.bundle_id if manifest else None,
                "exported_at": manifest.exported_at if manifest else None,
                "records": len(export.records) if usable else 0,
                "chain": ledger_entry(export.chain) if export.chain is not None else None,
                "ok": not export_problems,
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
    records: list[ReadRecord], problems: list[Problem], trust: _Trust, conflicted: set[tuple[str, str, int]]
) -> tuple[dict[str, ReadRecord], list[dict[str, Any]], list[dict[str, Any]]]:
    """Step 1: identical copies of a record are duplicates (counted once); one record id with different
    content is a conflict (:func:`_decide`)."""
    by_record_id: dict[str, ReadRecord] = {}
    duplicates: list[dict[str, Any]] = []
    conflicts: list[dict[str, Any]] = []
    undecided: set[str] = set()
    for rr in records:
        rid = rr.record.envelope.record_id
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
                    conflicted.add((r.record.rater_id, r.record.envelope.task_id, r.record.envelope.revision))
            else:
                by_record_id[rid] = kept
    return by_record_id, duplicates, conflicts


def _conflict(kind: str, rrs: list[ReadRecord], kept: ReadRecord | None, **ids: Any) -> dict[str, Any]:
    return {
        "kind": kind, **ids, "sources": [r.source for r in rrs], "kept": kept.source if kept else None,
        "decided_by": "audit chain" if kept else "undecided: neither kept",
    }


def _conflict_words(what: str, kept: ReadRecord | None) -> str:
    if kept is not None:
        return f"{what}; kept {kept.source}, whose export's audit chain holds"
    return f"{what}; neither is kept (no audit chain tells them apart; times in a file are not trusted)"


def _one_per_revision(
    by_record_id: dict[str, ReadRecord], conflicts: list[dict[str, Any]], problems: list[Problem],
    trust: _Trust, conflicted: set[tuple[str, str, int]],
) -> dict[tuple[str, str, int], ReadRecord]:
    """Step 2: one record per (rater, task, revision); two are a conflict (:func:`_decide`)."""
    by_revision: dict[tuple[str, str, int], ReadRecord] = {}
    for rr in sorted(by_record_id.values(), key=lambda r: r.source):
        rec = rr.record
        k = (rec.rater_id, rec.envelope.task_id, rec.envelope.revision)
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
    ratings: list[RatingRecord] = field(default_factory=list)
    cannot_rate: list[CannotRateRecord] = field(default_factory=list)
    revisions: dict[tuple[str, str], int] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)
    unknown: list[dict[str, Any]] = field(default_factory=list)
    off_assignment: list[dict[str, str]] = field(default_factory=list)


def _history_entry(rater: str, task: str, rrs: list[ReadRecord]) -> dict[str, Any]:
    revs = [r.record.envelope.revision for r in rrs]
    return {
        "rater_id": rater,
        "task_id": task,
        "kept_revision": revs[-1],
        "revisions": [
            {
                "revision": r.record.envelope.revision,
                "record_id": r.record.envelope.record_id,
                "submitted_at": r.record.envelope.submitted_at,
                "source": r.source,
            }
            for r in rrs
        ],
        "missing_revisions": sorted(set(range(1, revs[-1] + 1)) - set(revs)),
    }


def _latest_revisions(
    by_revision: dict[tuple[str, str, int], ReadRecord], key: UnblindingKey, problems: list[Problem],
    conflicted: set[tuple[str, str, int]],
) -> _Merged:
    """Step 3: the latest revision per (rater, task), checked against the key and unblinded; the history.
    A (rater, task) whose latest revision is in an undecided conflict is left out (an older revision would
    silently stand in for it)."""
    entries: dict[str, KeyEntry] = {e.task_id: e for e in key.entries}
    per_pair: dict[tuple[str, str], list[ReadRecord]] = {}
    for (rater, task, _rev), rr in by_revision.items():
        per_pair.setdefault((rater, task), []).append(rr)
    newest_conflict: dict[tuple[str, str], int] = {}
    for rater, task, rev in conflicted:
        newest_conflict[(rater, task)] = max(rev, newest_conflict.get((rater, task), 0))
    out = _Merged()
    for (rater, task), rrs in sorted(per_pair.items()):
        rrs.sort(key=lambda r: r.record.envelope.revision)
        latest = rrs[-1]
        if newest_conflict.get((rater, task), 0) > latest.record.envelope.revision:
            problems.append(Problem(
                latest.source, "envelope.revision",
                f"rater {rater} task {task}: revision {newest_conflict[(rater, task)]} is in conflict, so no revision "
                "of this task is kept",
            ))
            continue
        if len(rrs) > 1 or latest.record.envelope.revision != 1:
            out.history.append(_history_entry(rater, task, rrs))
        entry = entries.get(task)
        rec = latest.record
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
        # The record was validated when it was read; only the two fields set here change (the key's model is
        # a non-blank string, the kind one of the literals), so a copy with them is as valid. record_kind is
        # explicit in the collected files (a rating may leave it out).
        if isinstance(rec, CannotRateRecord):
            out.cannot_rate.append(rec.model_copy(update={"model_source": entry.model_source}))
        else:
            out.ratings.append(rec.model_copy(update={"model_source": entry.model_source, "record_kind": "rating"}))
        out.revisions[(rater, task)] = len(rrs)
    return out


def _coverage(
    key: UnblindingKey, ratings: list[RatingRecord], cannot_rate: list[CannotRateRecord]
) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """Step 4: tasks nobody rated (a "cannot rate" returns a task without rating it), per rater the assigned
    tasks not returned, and the tasks every rater they went to could not rate (for an unassigned bundle:
    every rater who returned them)."""
    rated_by: dict[str, set[str]] = {}
    for r in ratings:
        rated_by.setdefault(r.envelope.task_id, set()).add(r.rater_id)
    unable_by: dict[str, set[str]] = {}
    for c in cannot_rate:
        unable_by.setdefault(c.envelope.task_id, set()).add(c.rater_id)
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


def _flagged(records: list[TaskRecord]) -> list[dict[str, str]]:
    """Every flag for the coordinator, by rater then task."""
    return [
        {"rater_id": r.rater_id, "task_id": r.envelope.task_id, "record_kind": record_kind(r), "note": r.coordinator_flag.note}
        for r in sorted(records, key=lambda r: (r.rater_id, r.envelope.task_id))
        if r.coordinator_flag is not None
    ]


def _score_stats(values: list[int | str]) -> dict[str, Any]:
    numbers = [v for v in values if isinstance(v, int)]
    return {
        "n": len(numbers),
        "n_na": sum(1 for v in values if v == NA),
        "mean": round(statistics.fmean(numbers), 4) if numbers else None,
        "median": float(statistics.median(numbers)) if numbers else None,
    }


def summarise(result: CollectResult) -> dict[str, Any]:
    key = result.key
    split_of = {e.task_id: e.split for e in key.entries}
    assigned: dict[str, int] = {}
    for e in key.entries:
        for rater in e.raters:
            assigned[rater] = assigned.get(rater, 0) + 1
    raters: dict[str, Any] = {}
    models: dict[str, Any] = {}
    def rater_stats(rater: str) -> dict[str, Any]:
        stats: dict[str, Any] = raters.setdefault(
            rater, {"ratings": 0, "cannot_rate": 0, "flagged": 0, "revised_tasks": 0, "times": []}
        )
        return stats

    for c in result.cannot_rate:
        rs = rater_stats(c.rater_id)
        rs["cannot_rate"] += 1
        rs["flagged"] += c.coordinator_flag is not None
        if result.revisions.get((c.rater_id, c.envelope.task_id), 1) > 1 or c.envelope.revision > 1:
            rs["revised_tasks"] += 1
    for r in result.ratings:
        rs = rater_stats(r.rater_id)
        rs["ratings"] += 1
        rs["flagged"] += r.coordinator_flag is not None
        if result.revisions.get((r.rater_id, r.envelope.task_id), 1) > 1 or r.envelope.revision > 1:
            rs["revised_tasks"] += 1
        if r.time_spent_scoring_seconds is not None:
            rs["times"].append(r.time_spent_scoring_seconds)
        ms = models.setdefault(r.model_source or "", {"ratings": 0, "tasks": set(), "scores": {f: [] for f in SCORE_FIELDS}, "failure_modes": {}})
        ms["ratings"] += 1
        ms["tasks"].add(r.envelope.task_id)
        for f in SCORE_FIELDS:
            ms["scores"][f].append(getattr(r.scoring, f))
        for fm, severity in r.failure_mode_annotations.items():
            counts = ms["failure_modes"].setdefault(fm, {})
            counts[severity] = counts.get(severity, 0) + 1
    for rater in set(assigned) | set(raters):
        rs = rater_stats(rater)
        times = rs.pop("times")
        rs["assigned"] = assigned.get(rater)
        rs["median_time_seconds"] = float(statistics.median(times)) if times else None
        rs["total_time_seconds"] = sum(times) if times else 0
        missing = result.report["missing_by_rater"].get(rater, [])
        rs["assigned_not_returned"] = len(missing)
    model_out: dict[str, Any] = {}
    for model, ms in models.items():
        model_out[model] = {
            "ratings": ms["ratings"],
            "tasks_rated": len(ms["tasks"]),
            "tasks_in_key": sum(1 for e in key.entries if e.model_source == model),
            "scores": {f: _score_stats(v) for f, v in ms["scores"].items()},
            "failure_modes": {fm: dict(sorted(c.items())) for fm, c in sorted(ms["failure_modes"].items())},
        }
    return {
        "study_id": key.study_id,
        "ratings": len(result.ratings),
        "tasks": {
            "in_key": len(key.entries),
            "rated": len({r.envelope.task_id for r in result.ratings}),
            "nobody_rated": len(result.report["tasks_nobody_rated"]),
            "cannot_rate": len({c.envelope.task_id for c in result.cannot_rate}),
            "every_rater_could_not_rate": len(result.report["tasks_every_rater_could_not_rate"]),
            "calibration_ratings": sum(1 for r in result.ratings if split_of.get(r.envelope.task_id) == "calibration"),
        },
        "cannot_rate": len(result.cannot_rate),
        "flagged": len(result.report["flagged"]),
        "raters": dict(sorted(raters.items())),
        "models": dict(sorted(model_out.items())),
        "problems": len(result.problems),
    }


def csv_columns(ratings: list[RatingRecord]) -> tuple[list[str], list[str]]:
    """All columns, and the failure-mode ids (sorted union over the ratings)."""
    fm_ids = sorted({fm for r in ratings for fm in r.failure_mode_annotations})
    columns = [
        *CSV_FIXED_COLUMNS,
        *SCORE_FIELDS,
        *(f"failure_mode.{fm}" for fm in fm_ids),
        *(f"failure_mode_note.{fm}" for fm in fm_ids),
        *CSV_KIND_COLUMNS,
    ]
    return columns, fm_ids


SPREADSHEET_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""A spreadsheet may run a cell that starts with one of these as a formula (CSV/formula injection)."""
EXCEL_CSV_NAME = "ratings-excel.csv"


def excel_safe_cell(value: Any) -> Any:
    """``value``, or a text that starts like a formula with a ``'`` in front (Excel shows it as text)."""
    if isinstance(value, str) and value.startswith(SPREADSHEET_FORMULA_START):
        return "'" + value
    return value


def ratings_csv(result: CollectResult, *, excel_safe: bool = False, rename: Mapping[str, str] | None = None) -> str:
    """One row per rating and per "cannot rate" (``record_kind``); scores are numbers or ``N/A`` (read as
    missing by pandas and R), empty on a "cannot rate" row.

    The cells hold exactly what the raters wrote. ``excel_safe``: for opening by double-click in a
    spreadsheet - a byte-order mark (so Excel reads UTF-8) and every text cell that starts like a formula
    (``= + - @``, tab, CR) prefixed with ``'``; that changes the text, so analyse ``ratings.csv`` instead.
    ``rename``: column name -> the name to write in the header (``--names r``).
    """
    columns, fm_ids = csv_columns(result.ratings)
    split_of = {e.task_id: e.split for e in result.key.entries}
    buf = io.StringIO()
    if excel_safe:
        buf.write("\ufeff")
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([rename.get(c, c) for c in columns] if rename else columns)
    for r in result.records:
        env = r.envelope
        row: list[Any] = [
            r.rater_id,
            r.rater_role_or_background or "",
            env.task_id,
            r.benchmark_item_id,
            split_of.get(env.task_id, ""),
            r.candidate_response_id,
            r.model_source or "",
            r.clinical_domain_id,
            ";".join(r.scenario_type_ids),
            env.revision,
            result.revisions.get((r.rater_id, env.task_id), 1),
            env.record_id,
            env.bundle_id,
            env.started_at,
            env.submitted_at,
            "" if r.time_spent_scoring_seconds is None else r.time_spent_scoring_seconds,
        ]
        if isinstance(r, RatingRecord):
            notes = r.clinician_notes
            fm_notes = r.failure_mode_evidence_notes or {}
            row += [
                "" if notes.confidence_rating is None else notes.confidence_rating,
                notes.brief_rationale,
                notes.best_aspect or "",
                notes.main_concern or "",
                notes.suggested_better_clinical_move or "",
            ]
            row += [getattr(r.scoring, f) for f in SCORE_FIELDS]
            row += [r.failure_mode_annotations.get(fm, "") for fm in fm_ids]
            row += [fm_notes.get(fm, "") for fm in fm_ids]
            row += ["rating", "", ""]
        else:
            row += [""] * (5 + len(SCORE_FIELDS) + 2 * len(fm_ids))
            row += ["cannot_rate", r.cannot_rate.reason, r.cannot_rate.detail or ""]
        row.append("" if r.coordinator_flag is None else r.coordinator_flag.note)
        row.append(blinding_answer(r) or "")
        writer.writerow([excel_safe_cell(v) for v in row] if excel_safe else row)
    return buf.getvalue()


OUTPUT_FILES = ("ratings.jsonl", "ratings.csv", "summary.json", "collect-report.json")
"""Always written; beside them ``ratings.parquet`` and ``failure_modes.parquet`` (with pyarrow), the REDCap
data dictionary and import file, and ``datapackage.json`` (the codebook of them all)."""
NAMES = ("original", "r")
"""``ratings.csv`` column names: as the records name the fields, or R/REDCap-safe (``--names r``)."""


def write_outputs(result: CollectResult, out_dir: Path, *, excel_csv: bool = False, names: str = "original") -> list[Path]:
    """Write every output file (atomically each, owner-only), ``ratings-excel.csv`` when ``excel_csv``;
    returns their paths. ``result.report["outputs"]`` gets the SHA-256 of every data file (``wmcdp report``
    checks ``ratings.parquet`` against it) and ``result.report["parquet"]`` says when Parquet was not written."""
    from wmcdp_desktop.core.coordinator import codebook

    try:
        out_dir.mkdir(mode=0o700, parents=True, exist_ok=True)  # made here: owner-only, like what it will hold
    except OSError as exc:
        raise WmcdpError(f"cannot create the output folder {out_dir}: {exc.strerror or exc}") from None
    # Each file is written as soon as it is made and then let go (holding them all at once roughly doubled
    # collect's peak memory); datapackage.json and collect-report.json, which hold the others' SHA-256, last.
    write_cache(out_dir, result.read)
    hashes: dict[str, str] = {}
    paths: list[Path] = []

    def put(name: str, blob: bytes) -> None:
        hashes[name] = hashlib.sha256(blob).hexdigest()
        path = child_path(out_dir, name)  # owner-only whatever the umask: they name the models, like the key
        atomic_write_bytes(path, blob, mode=OWNER_ONLY)
        paths.append(path)

    table = codebook.rating_table(result)
    rename = {c.name: c.safe for c in table.columns} if names == "r" else None
    put("ratings.jsonl", b"".join(
        json.dumps(r.to_json_obj(), ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8") + b"\n"
        for r in result.records
    ))
    put("ratings.csv", ratings_csv(result, rename=rename).encode("utf-8"))
    if excel_csv:
        put(EXCEL_CSV_NAME, ratings_csv(result, excel_safe=True, rename=rename).encode("utf-8"))
    if codebook.have_pyarrow():
        put(codebook.PARQUET_NAME, codebook.parquet_bytes(table.columns, table.data, title="ratings"))
        put(codebook.FM_PARQUET_NAME, codebook.parquet_bytes(codebook.fm_columns(), codebook.failure_mode_rows(result),
                                                             title="failure_modes"))
        result.report.pop("parquet", None)
    else:
        result.report["parquet"] = codebook.PYARROW_HINT
    put("redcap-data-dictionary.csv", codebook.redcap_dictionary(table).encode("utf-8"))
    put("redcap-import.csv", codebook.redcap_import(table).encode("utf-8"))
    put("summary.json", dumps_canonical(result.summary).encode("utf-8"))
    package = codebook.datapackage(table, dict(hashes), csv_names="safe" if names == "r" else "original",
                                   study_id=result.key.study_id)
    put("datapackage.json", codebook.json_text(package).encode("utf-8"))
    result.report["outputs"] = dict(sorted(hashes.items()))
    result.report["csv_names"] = names
    data = dumps_canonical(result.report).encode("utf-8")
    path = child_path(out_dir, "collect-report.json")
    atomic_write_bytes(path, data, mode=OWNER_ONLY)
    paths.append(path)
    return paths
