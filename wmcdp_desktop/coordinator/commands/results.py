"""``wmcdp results validate`` and ``wmcdp results collect``."""

from __future__ import annotations

import argparse
import re
import sys
from functools import partial
from pathlib import Path
from typing import Any

from wmcdp_desktop.coordinator.collect.collection import collect_results
from wmcdp_desktop.coordinator.collect.outputs import CSV_NA, NAMES
from wmcdp_desktop.coordinator.commands.common import (
    EXIT_INVALID,
    EXIT_OK,
    UsageError,
    command,
    group,
    print_json,
    print_problems,
    problem_obj,
)
from wmcdp_desktop.coordinator.commands.progress import ProgressBar
from wmcdp_desktop.coordinator.results.reader import ExportRead, is_zip_path
from wmcdp_desktop.coordinator.results.validation import validate_results
from wmcdp_desktop.core.audit_chain import normalise_receipt, receipt_problem
from wmcdp_desktop.core.counts import agree, count
from wmcdp_desktop.core.errors import Problem

VALIDATE_DESCRIPTION = """\
Check rating records. PATH is a record file, a folder of them (searched recursively for *.json; drafts/
and quarantine/ folders are skipped), or a results export zip (manifest, hashes and records checked).
Every record must be valid against its schema: schemas/rating-record.schema.json, or
schemas/cannot-rate-record.schema.json for a "cannot rate" (record_kind). With --bundle, every record is
also checked against its bundle: same bundle id and bundle.json SHA-256, the task exists, ids and
response text match the task, scores inside the rubric's scales, every failure mode annotated.
--bundle can be repeated, or name the folder `bundle build` wrote: each export (and record) is then
checked against the bundle it was made from, so all raters' exports can be checked in one run.
Without --bundle, scores are only checked to be whole numbers from 0 to 100 (give --bundle to check them
against the rubric's scales). Every record's times must be plausible (not before 2020, not more than a
day ahead of this computer's clock).
Tamper evidence: an export carries the rater's hash-chained audit log, sealed to the bundle and the rater;
every link, the seal, every record's place in the chain and every revision are checked, and exports of
the same rater's bundle are compared (the same export twice, an older export beside a newer one, two
histories). --receipt CODE checks the receipt code the rater sent you apart from the file (one export);
--receipts FILE checks several (lines of "<rater_id> <code>"; see docs/COORDINATORS.md).
An export sealed to the coordinator's key (an encrypted bundle's export, *.wmcdp-sealed) is opened in
memory with --key FILE (keys/coordinator.key, written by an encrypted bundle build), then checked the same
way; without it, it is refused and not counted.
Prints a summary of counts and every problem with file and JSON path. Exit 0 if all valid, 1 if not."""

COLLECT_DESCRIPTION = """\
Merge the results export zips of many raters and unblind them with the key written by `bundle build`.
Each export's manifest and hashes are checked; the latest revision per (rater, task) is kept and the
history reported; duplicates (the same record twice) are counted once; conflicts (different records
for the same rater, task and revision) are decided by the exports' audit chains, never by a time a file
claims (a record whose export's chain holds wins; otherwise neither is kept) and reported; records for
tasks the key does not know are left out and reported; tasks nobody rated are listed. Every record is
checked against the rubric and its task as the key records them (scales, N/A, failure modes, response
text); a record that breaks a rule is left out. The audit chains are checked as by results validate, and
compared with the newest chains an earlier collect into DIR saw (an older export replacing a newer one is
reported); --receipts FILE checks each export's receipt code, --receipt CODE the code of one export, as
in results validate (an export whose code does not match is left out). A "cannot rate" (a rater's answer instead of a rating, with a reason) and a flag for the coordinator
are kept like ratings and listed in the report, with the tasks every rater they went to could not rate;
they are left out of the per-model figures. model_source is filled in from the key. Writes to DIR:
ratings.jsonl (one full record per line, record_kind "rating" or "cannot_rate"), ratings.csv (one row
per record, a column per score, failure mode and note, then record_kind, cannot_rate_reason,
cannot_rate_detail, coordinator_flag and blinding_guess), summary.json (per rater and per model) and
collect-report.json (every problem, history, duplicates, conflicts, unknown and unrated tasks,
"cannot rate" answers and flags).
Also, with pyarrow (the analysis extra), ratings.parquet (typed: scores as integers with N/A as null,
times as timestamps; R/REDCap-safe column names) and failure_modes.parquet (one row per rating and
failure mode); and always redcap-data-dictionary.csv with redcap-import.csv (import the dictionary into a
REDCap project, then the records) and datapackage.json (the codebook: every column's type, meaning,
allowed and missing values, and the SHA-256 of every file). --names r gives ratings.csv those safe names
(give it for R). An N/A score is NA in ratings.csv (--csv-na N/A for the records' own spelling).
Each export read is recorded in DIR/collected-exports/ by the SHA-256 of its zip: a later collect into the
same DIR reads only the new zips (one given again, under any name, is not counted twice) and writes what
collecting everything at once would. wmcdp report reads ratings.parquet.
ratings.csv holds the raters' text exactly, so a note such as "=1+1" or "-ve" may be run as a formula
if the file is double-clicked into a spreadsheet; --excel-safe adds ratings-excel.csv for that.
Exit 0 when everything merged cleanly, 1 when something was left out or conflicting (the outputs are
written either way). The outputs name the models: they are written owner-only (0600), like the key.
Exports sealed to the coordinator's key (an encrypted bundle's export, *.wmcdp-sealed) are opened in memory
with the key in keys/coordinator.key beside the unblinding key (or --coordinator-key FILE); without it a
sealed export is refused and reported, never skipped. The cache of collected exports keys each by the file
as received."""


def register(sub: Any) -> None:
    actions = group(sub, "results", help="validate or collect the raters' results",
                    description="The raters' results: check them (validate), then merge and unblind them (collect).")
    v = command(
        actions, "validate", help="check record files, folders, rater data folders or results export zips",
        description=VALIDATE_DESCRIPTION, prog="wmcdp results validate", body=_validate,
        examples=[("wmcdp results validate wmcdp-results-R-001.zip", "one export"),
                  ("wmcdp results validate exports/*.zip --bundle bundles", "every export against its bundle"),
                  ("wmcdp results validate ~/.local/share/wmcdp-desktop", "a rater's data folder (Linux)"),
                  ("wmcdp results validate R-001.zip --receipt 7K3QD-M2XWA", "with the receipt code"),
                  ("wmcdp results validate exports/ --json", "machine-readable result")])
    v.add_argument("paths", type=Path, nargs="+", metavar="PATH", help="record file, folder or export zip")
    v.add_argument(
        "--bundle",
        type=Path,
        action="append",
        metavar="BUNDLE",
        help="also check against this bundle (.wmcdp file or unzipped bundle folder), or against the bundles "
        "(*.wmcdp) in this folder; repeat for several",
    )
    v.add_argument("--key", "--coordinator-key", dest="coordinator_key", type=Path, metavar="FILE",
                   help="the coordinator's private key (keys/coordinator.key of an encrypted bundle build): opens the "
                   "exports sealed to it")
    _add_receipt_flags(v)

    c = command(
        actions, "collect", help="merge and unblind the raters' results exports",
        description=COLLECT_DESCRIPTION, prog="wmcdp results collect", body=_collect,
        examples=[("wmcdp results collect exports/*.zip --key bundles/S-unblinding-key.json --out results",
                   "merge every export"),
                  ("wmcdp results collect new/*.zip --key KEY --out results", "add new exports to a collection"),
                  ("wmcdp results collect exports/*.zip --key KEY --out results --excel-safe",
                   "also ratings-excel.csv")])
    c.add_argument("exports", type=Path, nargs="+", metavar="EXPORT", help="a results export zip from a rater")
    c.add_argument("--key", type=Path, required=True, metavar="KEY", help="the unblinding key from `bundle build`")
    c.add_argument("--out", type=Path, required=True, metavar="DIR", help="folder for the merged results")
    c.add_argument("--coordinator-key", type=Path, metavar="FILE",
                   help="the coordinator's private key that opens sealed exports (default: keys/coordinator.key beside "
                   "the unblinding key, when it is there)")
    c.add_argument(
        "--excel-safe",
        action="store_true",
        help="also write ratings-excel.csv, for opening by double-click in Excel: UTF-8 with a byte-order mark, "
        "and text that starts with = + - @ prefixed with ' so it is never run as a formula. ratings.csv is "
        "always exactly what the raters wrote: analyse that one",
    )
    c.add_argument(
        "--names", choices=NAMES, default="original",
        help="column names of ratings.csv: original (as the records name the fields, e.g. failure_mode.WM-FM-X; "
        "the default) or r (R/REDCap-safe: lower case, letters, digits and underscores, at most 26 characters, "
        "as in ratings.parquet and the REDCap files; datapackage.json maps one to the other). For R give r: "
        "read.csv then keeps every name as it is",
    )
    c.add_argument(
        "--csv-na", choices=list(CSV_NA), default="NA", metavar="SPELLING",
        help="how ratings.csv spells an N/A score: NA (the default; R's read.csv and pandas read it as missing "
        "with their defaults, so every score column is read as whole numbers), N/A (the records' own "
        "spelling, as collect wrote it before; R then needs na.strings = \"N/A\") or empty. A \"cannot rate\" "
        "row's scores are always empty",
    )
    c.add_argument(
        "--accept", action="append", metavar="RECORD_ID",
        help="count this quarantined record after all (a record whose export fails a check of its provenance is "
        "never counted otherwise); repeat per record, each with its own --reason",
    )
    c.add_argument(
        "--reason", action="append", metavar="TEXT",
        help="why the --accept before it is kept (recorded in collect-report.json and shown in the report)",
    )
    _add_receipt_flags(c)


def _add_receipt_flags(parser: argparse.ArgumentParser) -> None:
    """The receipt options, the same in ``results validate`` and ``results collect``."""
    parser.add_argument(
        "--receipt", metavar="CODE",
        help="the receipt code the rater sent with this export (e.g. 7K3QD-M2XWA; case, spaces and hyphens do not "
        "matter); checks that the export is the one the rater made, unchanged. One export only",
    )
    parser.add_argument(
        "--receipts", type=Path, metavar="FILE",
        help='a text file of the receipt codes the raters sent you, one "<rater_id> <code>" per line (# starts a '
        "comment); each export's code must be one its rater sent",
    )


def _one_export_for_receipt(args: argparse.Namespace, paths: list[Path]) -> str | None:
    """The ``--receipt`` code (normalised), checked to go with one export zip and not with ``--receipts``."""
    if args.receipt and args.receipts:
        raise UsageError("give --receipt CODE (one export) or --receipts FILE, not both")
    if args.receipt and sum(1 for p in paths if p.is_file() and is_zip_path(p)) != 1:
        raise UsageError("--receipt checks one export: give exactly one export zip, or use --receipts FILE for several")
    if not args.receipt:
        return None
    code = normalise_receipt(args.receipt)
    if code is None:
        raise UsageError(f"--receipt {args.receipt!r}: {receipt_problem(args.receipt)}")
    return code


def _validate(args: argparse.Namespace) -> int:
    receipt = _one_export_for_receipt(args, args.paths)
    with ProgressBar("Reading records", enabled=False if args.json else None) as bar:
        result = validate_results(args.paths, bundles=args.bundle, coordinator_key=args.coordinator_key,
                                  receipt=receipt, receipts_file=args.receipts, progress=bar)
    if args.json:
        print_json(result.summary(problem_obj))
        return EXIT_OK if result.ok else EXIT_INVALID
    problems, bundles = result.problems, result.bundle_ids
    print_problems(problems, f"{count(len(problems), 'problem')}:")
    print(
        f"{count(result.files_read, 'record file')} read ({count(len(result.exports), 'export zip')}); "
        f"{count(len(result.valid), 'valid record')} for {count(result.tasks, 'task')}"
        + (f" against bundle {bundles[0]}" if len(bundles) == 1 else "")
        + (f" against {len(bundles)} bundles" if len(bundles) > 1 else "")
        + "; "
        + ("all valid." if not problems else f"{count(len(problems), 'problem')}.")
    )
    if result.cannot_rate or result.flagged:
        print(f"  of which {result.cannot_rate} “cannot rate” and {result.flagged} flagged for the coordinator")
    if result.quarantined:
        print(f"  {count(result.quarantined, 'record')} not valid because a check of "
              f"{agree(result.quarantined, 'its', 'their')} export failed (see the problems above): `results collect` "
              "quarantines them")
    if result.clock:
        print(f"{count(len(result.clock), 'time')} a wrong clock on the rater's computer explains (clock_suspect; "
              "the records are valid and collect counts them):")
        for p in result.clock[:PROBLEMS_SHOWN]:
            print(f"  {p}")
    for rater, n in result.by_rater.items():
        print(f"  {rater}: {count(n, 'valid record')}")
    _print_chains(result.exports, problems, result.receipts_checked)
    return EXIT_OK if result.ok else EXIT_INVALID


def _one_line(text: str, limit: int = 120) -> str:
    """A rater's note on one terminal line (line breaks and control characters as spaces, cut at ``limit``)."""
    flat = "".join(ch if ch.isprintable() else " " for ch in text)
    flat = " ".join(flat.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _print_chains(exports: list[ExportRead], problems: list[Problem], receipts_checked: bool) -> None:
    """One line per export about its tamper evidence."""
    for export in exports:
        if export.manifest is None:
            continue
        own = any(p.file.startswith(f"{export.label}!") for p in problems)
        if export.chain is None:
            print(f"  {export.label}: no audit chain that holds: not tamper-evident (see the problems above)")
        elif own:
            print(f"  {export.label}: audit chain checked: see the problems above")
        else:
            print(f"  {export.label}: audit chain holds, sealed to bundle {export.manifest.bundle_id} and rater "
                  f"{export.manifest.rater_id}" + ("; receipt code matches" if receipts_checked else
                                                   "; give --receipt or --receipts to check the rater's receipt code"))


PROBLEMS_SHOWN = 50
"""``results collect`` lists at most this many problems on the terminal (all of them in collect-report.json)."""


def _accepted(args: argparse.Namespace) -> dict[str, str]:
    """``--accept RECORD_ID --reason TEXT`` pairs (each --accept needs its own --reason)."""
    ids, reasons = list(args.accept or []), list(args.reason or [])
    if len(ids) != len(reasons):
        raise UsageError("give every --accept RECORD_ID its own --reason TEXT (the reason is recorded in the "
                         f"collection): {len(ids)} --accept and {len(reasons)} --reason given")
    out: dict[str, str] = {}
    for rid, reason in zip(ids, reasons, strict=True):
        if not RECORD_ID.fullmatch(rid):
            raise UsageError(f"--accept {rid!r} is not a record id (32 hex digits, as collect-report.json and "
                             "quarantine.csv give it)")
        if not reason.strip():
            raise UsageError(f"--reason for {rid} is blank: say why the record is kept")
        if rid in out:
            raise UsageError(f"--accept {rid} is given twice: accept each record once, with one reason")
        out[rid] = reason.strip()
    return out


RECORD_ID = re.compile(r"[0-9a-f]{32}")
"""A record id (``envelope.record_id``), as ``--accept`` takes it."""


def _collect(args: argparse.Namespace) -> int:
    receipt = _one_export_for_receipt(args, args.exports)
    accept = _accepted(args)
    with ProgressBar("Collecting", enabled=False if args.json else None) as bar:
        result = collect_results(args.exports, args.key, args.out, receipts_file=args.receipts, receipt=receipt,
                                 excel_csv=args.excel_safe, names=args.names, csv_na=args.csv_na,
                                 progress=bar, writing=partial(bar.stage, "Writing the outputs"), accept=accept,
                                 coordinator_key=args.coordinator_key)
    never = result.tasks_never_rated
    warnings = [] if not never else [
        f"{count(len(never), 'task')} of the key {agree(len(never), 'was', 'were')} never rated (no rater returned a "
        f"rating or a “cannot rate” for {agree(len(never), 'it', 'them')}): {', '.join(never[:20])}"
        + (" …" if len(never) > 20 else "") + "; all are in collect-report.json tasks_nobody_rated"]
    warnings += result.receipts_without_export
    if args.json:
        print_json(
            {
                "ok": result.ok,
                "warnings": warnings,
                "tasks_never_rated": never,
                "ratings": result.ratings,
                "outputs": [str(p) for p in result.outputs],
                "problems": [problem_obj(p) for p in result.problems],
                "duplicates": result.duplicates,
                "conflicts": result.conflicts,
                "revised": result.revised,
                "unknown_tasks": result.unknown_tasks,
                "tasks_nobody_rated": result.tasks_nobody_rated,
                "cannot_rate": result.cannot_rate,
                "tasks_every_rater_could_not_rate": result.tasks_every_rater_could_not_rate,
                "flagged": len(result.flags),
                "parquet": result.parquet_note or "written",
                "exports_read": result.read,
                "exports_already_collected": result.already_collected,
                "exports_in_collection": result.exports_in_collection,
                "quarantined": len(result.quarantined),
                "accepted": len(result.accepted),
                "accepted_earlier": len(result.accepted_earlier),
                "clock_suspect": len(result.clock_suspect),
                "summary": result.summary,
            }
        )
        return EXIT_OK if result.ok else EXIT_INVALID
    # Every problem is in collect-report.json; a terminal gets the first ones (an export of another build can
    # give one per record).
    print_problems(result.problems, f"{count(len(result.problems), 'problem')}:", limit=PROBLEMS_SHOWN,
                   rest=f": every problem is in {result.report_path}")
    if result.collected_earlier or result.already_collected:
        print(f"{count(len(result.read), 'new export')} read; {result.collected_earlier} collected earlier into "
              f"{args.out}" + (f"; already collected, not counted twice: {', '.join(result.already_collected)}"
                               if result.already_collected else "") + ".")
    print(
        f"{count(result.ratings, 'rating')} from {count(result.exports_in_collection, 'export')}: "
        f"{result.revised} revised, {count(result.duplicates, 'duplicate')}, "
        f"{count(result.conflicts, 'conflict')}, {result.unknown_tasks} for unknown tasks, "
        f"{count(result.tasks_nobody_rated, 'task')} nobody rated."
    )
    if result.cannot_rate or result.flags:
        print(f"{result.cannot_rate} “cannot rate” and {count(len(result.flags), 'flag')} for you "
              "(listed in collect-report.json and ratings.csv).")
    for flag in result.flags:
        print(f"  flag: {flag.rater_id} on {flag.task_id}: {_one_line(flag.note)}")
    if result.quarantined:
        print(f"{count(len(result.quarantined), 'record')} quarantined and NOT counted (a check of where "
              f"{agree(len(result.quarantined), 'it', 'they')} came from failed; collect-report.json \"quarantine\" "
              "says which). To count one after all: --accept RECORD_ID --reason TEXT.")
        for q in result.quarantined[:PROBLEMS_SHOWN]:
            print(f"  quarantined: {q.record_id} ({q.rater_id} on {q.task_id}, revision {q.revision}, from {q.export}): "
                  f"{q.failed}")
    earlier = {(q.export_sha256, q.source) for q in result.accepted_earlier}
    for a in result.accepted:
        when = " (accepted by an earlier collect into this folder)" if (a.export_sha256, a.source) in earlier else ""
        print(f"  accepted: {a.record_id} ({a.rater_id} on {a.task_id}, from {a.export}) although "
              f"{a.failed}{when}: {_one_line(a.accepted_because)}")
    if result.accepted and not result.quarantined:
        print(f"Every quarantined record was accepted ({count(len(result.accepted), 'record')}, quarantine.csv "
              "accepted = yes): the collection is decided.")
    if result.clock_suspect:
        print(f"{count(len(result.clock_suspect), 'record')} with times a wrong clock on the rater's computer "
              f"explains (clock_suspect): counted, listed in collect-report.json.")
        for c in result.clock_suspect[:PROBLEMS_SHOWN]:
            print(f"  clock_suspect: {c.record_id} ({c.rater_id} on {c.task_id}): {c.why}")
    unable = result.tasks_every_rater_could_not_rate
    if unable:
        print(f"{count(len(unable), 'task')} every rater they went to could not rate: {', '.join(unable[:20])}"
              + (" …" if len(unable) > 20 else ""))
    for rater in result.raters:
        print(f"  {rater.rater_id}: {count(rater.ratings, 'rating')}"
              + (f" of {rater.assigned} assigned" if rater.assigned else "")
              + (f", {rater.cannot_rate} “cannot rate”" if rater.cannot_rate else ""))
    for path in result.outputs:
        print(f"wrote {path}")
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if result.parquet_note:
        print(f"note: {result.parquet_note}", file=sys.stderr)
    return EXIT_OK if result.ok else EXIT_INVALID
