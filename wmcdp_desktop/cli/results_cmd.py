"""``wmcdp results validate`` and ``wmcdp results collect``."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from wmcdp_desktop.cli._common import (
    EXIT_INVALID,
    EXIT_OK,
    add_json_flag,
    print_json,
    print_problems,
    problem_obj,
    run_command,
    subparsers,
)
from wmcdp_desktop.cli.progress import ProgressBar
from wmcdp_desktop.core.coordinator.collect import collect, read_key, write_outputs
from wmcdp_desktop.core.coordinator.results_against_bundles import bundle_problems, open_bundles
from wmcdp_desktop.core.coordinator.results_reader import read_records

VALIDATE_DESCRIPTION = """\
Check rating records. PATH is a record file, a folder of them (searched recursively for *.json; drafts/
and quarantine/ folders are skipped), or a results export zip (manifest, hashes and records checked).
Every record must be valid against its schema: schemas/rating-record.schema.json, or
schemas/cannot-rate-record.schema.json for a "cannot rate" (record_kind). With --bundle, every record is
also checked against its bundle: same bundle id and bundle.json SHA-256, the task exists, ids and
response text match the task, scores inside the rubric's scales, every failure mode annotated.
--bundle can be repeated, or name the folder `bundle build` wrote: each export (and record) is then
checked against the bundle it was made from, so all raters' exports can be checked in one run.
Prints a summary of counts and every problem with file and JSON path. Exit 0 if all valid, 1 if not."""

COLLECT_DESCRIPTION = """\
Merge the results export zips of many raters and unblind them with the key written by `bundle build`.
Each export's manifest and hashes are checked; the latest revision per (rater, task) is kept and the
history reported; duplicates (the same record twice) are counted once; conflicts (different records
for the same rater, task and revision) keep the one submitted last and are reported; records for tasks
the key does not know are left out and reported; tasks nobody rated are listed. A "cannot rate" (a
rater's answer instead of a rating, with a reason) and a flag for the coordinator are kept like
ratings and listed in the report, with the tasks every rater they went to could not rate; they are
left out of the per-model figures. model_source is filled in from the key. Writes to DIR:
ratings.jsonl (one full record per line, record_kind "rating" or "cannot_rate"), ratings.csv (one row
per record, a column per score, failure mode and note, then record_kind, cannot_rate_reason,
cannot_rate_detail and coordinator_flag), summary.json (per rater and per model) and
collect-report.json (every problem, history, duplicates, conflicts, unknown and unrated tasks,
"cannot rate" answers and flags).
ratings.csv holds the raters' text exactly, so a note such as "=1+1" or "-ve" may be run as a formula
if the file is double-clicked into a spreadsheet; --excel-safe adds ratings-excel.csv for that.
Exit 0 when everything merged cleanly, 1 when something was left out or conflicting (the outputs are
written either way)."""


def register(sub: Any) -> None:
    parser = sub.add_parser("results", help="validate or collect rating records", description="Rating results.")
    actions = subparsers(parser)
    v = actions.add_parser(
        "validate",
        help="check record files, folders or results export zips",
        description=VALIDATE_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    v.add_argument("paths", type=Path, nargs="+", metavar="PATH", help="record file, folder or export zip")
    v.add_argument(
        "--bundle",
        type=Path,
        action="append",
        metavar="BUNDLE",
        help="also check against this bundle (.wmcdp file or unzipped bundle folder), or against the bundles "
        "(*.wmcdp) in this folder; repeat for several",
    )
    add_json_flag(v)
    v.set_defaults(func=lambda args: run_command(args, _validate), prog="wmcdp results validate")

    c = actions.add_parser(
        "collect",
        help="merge and unblind the raters' results exports",
        description=COLLECT_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("exports", type=Path, nargs="+", metavar="EXPORT", help="a results export zip from a rater")
    c.add_argument("--key", type=Path, required=True, metavar="KEY", help="the unblinding key from `bundle build`")
    c.add_argument("--out", type=Path, required=True, metavar="DIR", help="folder for the merged results")
    c.add_argument(
        "--excel-safe",
        action="store_true",
        help="also write ratings-excel.csv, for opening by double-click in Excel: UTF-8 with a byte-order mark, "
        "and text that starts with = + - @ prefixed with ' so it is never run as a formula. ratings.csv is "
        "always exactly what the raters wrote: analyse that one",
    )
    add_json_flag(c)
    c.set_defaults(func=lambda args: run_command(args, _collect), prog="wmcdp results collect")


def _validate(args: argparse.Namespace) -> int:
    bundles = open_bundles(args.bundle) if args.bundle else []
    with ProgressBar("Reading records", enabled=False if args.json else None) as bar:
        # Only the bundle checks need the records themselves; without them a summary of each is kept.
        result = read_records(args.paths, progress=bar, keep_records=bool(bundles))
    problems = list(result.problems)
    if bundles:
        problems += bundle_problems(result.records, bundles)
    bad_sources = {p.file for p in problems}
    bad_exports = {p.file.removesuffix("!manifest.json") for p in problems if p.path == "bundle_id"}
    valid = [s for s in result.summaries if s.source not in bad_sources and s.export not in bad_exports]
    raters = Counter(s.rater_id for s in valid)
    cannot_rate = sum(1 for s in valid if s.kind == "cannot_rate")
    flagged = sum(1 for s in valid if s.flagged)
    summary: dict[str, Any] = {
        "ok": not problems,
        "files_read": result.files_read,
        "exports": len(result.exports),
        "valid_records": len(valid),
        "ratings": len(valid) - cannot_rate,
        "cannot_rate": cannot_rate,
        "flagged": flagged,
        "tasks": len({s.task_id for s in valid}),
        "by_rater": dict(sorted(raters.items())),
        "problems": [problem_obj(p) for p in problems],
    }
    if args.json:
        print_json(summary)
    else:
        print_problems(problems, f"{len(problems)} problem(s):")
        print(
            f"{summary['files_read']} record file(s) read ({summary['exports']} export zip(s)); "
            f"{summary['valid_records']} valid record(s) for {summary['tasks']} task(s)"
            + (f" against bundle {bundles[0].manifest.bundle_id}" if len(bundles) == 1 else "")
            + (f" against {len(bundles)} bundles" if len(bundles) > 1 else "")
            + "; "
            + ("all valid." if not problems else f"{len(problems)} problem(s).")
        )
        if cannot_rate or flagged:
            print(f"  of which {cannot_rate} “cannot rate” and {flagged} flagged for the coordinator")
        for rater, n in summary["by_rater"].items():
            print(f"  {rater}: {n} valid record(s)")
    return EXIT_OK if not problems else EXIT_INVALID


def _one_line(text: str, limit: int = 120) -> str:
    """A rater's note on one terminal line (line breaks and control characters as spaces, cut at ``limit``)."""
    flat = "".join(ch if ch.isprintable() else " " for ch in text)
    flat = " ".join(flat.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _collect(args: argparse.Namespace) -> int:
    key = read_key(args.key)
    with ProgressBar("Collecting", enabled=False if args.json else None) as bar:
        result = collect(args.exports, key, progress=bar)
    paths = write_outputs(result, args.out, excel_csv=args.excel_safe)
    report = result.report
    if args.json:
        print_json(
            {
                "ok": result.ok,
                "ratings": len(result.ratings),
                "outputs": [str(p) for p in paths],
                "problems": report["problems"],
                "duplicates": len(report["duplicates"]),
                "conflicts": len(report["conflicts"]),
                "revised": len(report["history"]),
                "unknown_tasks": len(report["unknown_tasks"]),
                "tasks_nobody_rated": len(report["tasks_nobody_rated"]),
                "cannot_rate": len(report["cannot_rate"]),
                "tasks_every_rater_could_not_rate": report["tasks_every_rater_could_not_rate"],
                "flagged": len(report["flagged"]),
                "summary": result.summary,
            }
        )
        return EXIT_OK if result.ok else EXIT_INVALID
    print_problems(result.problems, f"{len(result.problems)} problem(s):")
    print(
        f"{len(result.ratings)} rating(s) from {len(args.exports)} export(s): "
        f"{len(report['history'])} revised, {len(report['duplicates'])} duplicate(s), "
        f"{len(report['conflicts'])} conflict(s), {len(report['unknown_tasks'])} for unknown tasks, "
        f"{len(report['tasks_nobody_rated'])} task(s) nobody rated."
    )
    if report["cannot_rate"] or report["flagged"]:
        print(f"{len(report['cannot_rate'])} “cannot rate” and {len(report['flagged'])} flag(s) for you "
              "(listed in collect-report.json and ratings.csv).")
    for item in report["flagged"]:
        print(f"  flag: {item['rater_id']} on {item['task_id']}: {_one_line(item['note'])}")
    unable = report["tasks_every_rater_could_not_rate"]
    if unable:
        print(f"{len(unable)} task(s) every rater they went to could not rate: {', '.join(unable[:20])}"
              + (" …" if len(unable) > 20 else ""))
    for rater, info in result.summary["raters"].items():
        assigned = info["assigned"]
        print(f"  {rater}: {info['ratings']} rating(s)" + (f" of {assigned} assigned" if assigned else "")
              + (f", {info['cannot_rate']} “cannot rate”" if info["cannot_rate"] else ""))
    for path in paths:
        print(f"wrote {path}")
    return EXIT_OK if result.ok else EXIT_INVALID
