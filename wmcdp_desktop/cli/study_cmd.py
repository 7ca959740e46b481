"""``wmcdp study validate STUDY_DIR``: every document valid, every cross-reference resolves."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from wmcdp_desktop.cli._common import (
    EXIT_INVALID,
    EXIT_OK,
    add_json_flag,
    print_accepted,
    print_json,
    print_problems,
    problem_obj,
    run_command,
    subparsers,
)
from wmcdp_desktop.cli.progress import ProgressBar
from wmcdp_desktop.core.coordinator.leak_scan import scan_study
from wmcdp_desktop.core.coordinator.study_loader import load_study
from wmcdp_desktop.core.errors import DocumentError

DESCRIPTION = """\
Check a study folder (study.json, rubric.json, items/*.json, cases/*.json, responses/*.jsonl).
Every document must be valid, and every cross-reference must resolve: caseRef to an existing case with
that version (and SHA-256 when given), contractRef to the rubric id and version, every criterionId to a
rubric dimension or failure mode, every response to an item; no id used twice.

Then the leak scan: every text a bundle can carry (scenario and conversation, responses, calibration
feedback, rubric, item/domain/scenario-type ids, study title, rater ids and roles) is searched, ignoring
case, width, accents, look-alike letters, invisible characters and the spaces, dots and hyphens between
letters and digits, for every model id and its natural spellings, the aliases in study.json, the
vendor and product names of the built-in list, and every response id. Each finding names the file, the
JSON path, the term and the text around it. Findings accepted in study.json accepted_findings are listed
but do not fail. All problems are listed at once. Exit 0 when valid, 1 when not."""


def register(sub: Any) -> None:
    parser = sub.add_parser("study", help="check a study folder", description="Commands on a study folder.")
    actions = subparsers(parser)
    p = actions.add_parser(
        "validate",
        help="check every document and cross-reference of a study folder",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("study_dir", type=Path, metavar="STUDY_DIR", help="the study folder")
    add_json_flag(p)
    p.set_defaults(func=lambda args: run_command(args, _validate), prog="wmcdp study validate")


def _validate(args: argparse.Namespace) -> int:
    with ProgressBar("Reading study", enabled=None if not args.json else False) as bar:
        try:
            study = load_study(args.study_dir, progress=bar)
        except DocumentError as exc:
            bar.close()
            if args.json:
                print_json({"ok": False, "problems": [problem_obj(p) for p in exc.problems]})
            else:
                print_problems(exc.problems, f"{args.study_dir}: {len(exc.problems)} problem(s):")
            return EXIT_INVALID
    scanned = scan_study(study)
    warnings = study.warnings + scanned.warnings
    if scanned.findings:
        problems = scanned.problems()
        if args.json:
            print_json({
                "ok": False, "problems": [problem_obj(p) for p in problems],
                "leaks": [f.as_obj() for f in scanned.findings],
                "accepted_findings": [a.as_obj() for a in scanned.accepted],
                "warnings": [problem_obj(w) for w in warnings],
            })
        else:
            print_problems(warnings, "warnings:")
            print_problems(problems, f"{args.study_dir}: {len(problems)} leak(s) of a model's identity:")
            print_accepted(scanned.accepted)
        return EXIT_INVALID
    counts = study.counts()
    if args.json:
        print_json(
            {
                "ok": True,
                "study_id": study.study.study_id,
                "counts": counts,
                "problems": [],
                "accepted_findings": [a.as_obj() for a in scanned.accepted],
                "warnings": [problem_obj(w) for w in warnings],
            }
        )
        return EXIT_OK
    print_problems(warnings, "warnings:")
    print_accepted(scanned.accepted)
    print(
        f"{args.study_dir}: study {study.study.study_id} is valid: {counts['items']} items "
        f"({counts['items_sent']} sent to raters), {counts['cases']} cases, {counts['responses']} responses "
        f"from {counts['models']} models, {counts['raters']} raters -> {counts['tasks']} tasks."
    )
    sys.stdout.flush()
    return EXIT_OK
