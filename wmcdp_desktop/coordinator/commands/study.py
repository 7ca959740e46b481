"""``wmcdp study validate STUDY_DIR``: every document valid, every cross-reference resolves."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from wmcdp_desktop.coordinator.commands.common import (
    EXIT_INVALID,
    EXIT_OK,
    command,
    group,
    print_accepted,
    print_json,
    print_problems,
    print_style,
    problem_obj,
)
from wmcdp_desktop.coordinator.commands.progress import ProgressBar
from wmcdp_desktop.coordinator.study.validation import validate_study
from wmcdp_desktop.core.counts import count
from wmcdp_desktop.core.errors import DocumentError

DESCRIPTION = """\
Check a study folder (study.json, rubric.json, items/*.json, cases/*.json, responses/*.jsonl).
Every document must be valid, and every cross-reference must resolve: caseRef to an existing case with
that version (and SHA-256 when given), contractRef to the rubric id and version, every criterionId to a
rubric dimension or failure mode, every response to an item; no id used twice.

Then the leak scan: every text a bundle can carry (scenario and conversation, responses, calibration
feedback, rubric, item/domain/scenario-type ids, study title, rater ids and roles) is searched, ignoring
case, width, accents, look-alike letters of any script, invisible characters and the spaces, dots and
hyphens between letters and digits, reading words broken by punctuation or written with digits for
letters (Cl4ude, C-L-4-U-D-E), words run together (ClaudeAI), right-to-left overrides, tag characters, HTML references
and tags and percent-encoding, for every model id and its natural spellings, the aliases in study.json, the
vendor and product names of the built-in list, and every response id. Each finding names the file, the
JSON path, the term and the text around it. Findings accepted in study.json accepted_findings are listed
but do not fail. All problems are listed at once.

Then style separability (with the analysis extra: scikit-learn): a classifier cross-validated by item says
how well the model can be told from the text of the responses raters will see, against chance, and what
carries it (length, formatting, words, symbols, openings and closings per model). Above the threshold it is
a warning naming the evidence and the choices (docs/COORDINATORS.md); it never fails the check, and
study.json accepted_style accepts it with a reason. Exit 0 when valid, 1 when not."""


def register(sub: Any) -> None:
    actions = group(sub, "study", help="start or check a study folder",
                    description="A study folder: study.json, rubric.json, items/, cases/, responses/. "
                    "Start one with init, check it with validate.")
    i = command(
        actions, "init", help="write a complete, valid starter study to edit", description=INIT_DESCRIPTION,
        prog="wmcdp study init", body=_init,
        examples=[("wmcdp study init my-study", "write the starter into a new folder"),
                  ("wmcdp study init my-study && wmcdp study validate my-study", "it is valid as written")])
    i.add_argument("study_dir", type=Path, metavar="DIR", help="a new or empty folder for the study")
    p = command(
        actions, "validate", help="check every document and cross-reference of a study folder",
        description=DESCRIPTION, prog="wmcdp study validate", body=_validate,
        examples=[("wmcdp study validate my-study", "every problem at once, with file and JSON path"),
                  ("wmcdp study validate my-study --json", "machine-readable result")])
    p.add_argument("study_dir", type=Path, metavar="STUDY_DIR", help="the study folder")


INIT_DESCRIPTION = """\
Write a starter study into DIR (a new or empty folder): study.json (three raters, overlap 2), the default
rubric.json, two scenarios in cases/, two benchmark items in items/ (one test item, one calibration item
whose gold the raters see after submitting) and responses/ from two models. Every document is complete
and valid (`wmcdp study validate` and `wmcdp bundle build` work on it as written); README.md in DIR
explains every file and field and the next steps. Nothing existing is overwritten."""


def _init(args: argparse.Namespace) -> int:
    from wmcdp_desktop.coordinator.study.starter import write_starter

    paths = write_starter(args.study_dir)
    if args.json:
        print_json({"ok": True, "study_dir": str(args.study_dir), "files": [str(p) for p in paths]})
        return EXIT_OK
    for path in paths:
        print(f"wrote {path}")
    print(f"Starter study written. Read {args.study_dir / 'README.md'}, edit the files, then run: "
          f"wmcdp study validate {args.study_dir}")
    return EXIT_OK


def _validate(args: argparse.Namespace) -> int:
    with ProgressBar("Reading study", enabled=None if not args.json else False) as bar:
        try:
            checked = validate_study(args.study_dir, progress=bar.stage)
        except DocumentError as exc:
            bar.close()
            if args.json:
                print_json({"ok": False, "problems": [problem_obj(p) for p in exc.problems]})
            else:
                print_problems(exc.problems, f"{args.study_dir}: {count(len(exc.problems), 'problem')}:")
            return EXIT_INVALID
    study, scanned, style, warnings = checked.study, checked.scanned, checked.style, checked.warnings
    if not checked.ok:
        problems = scanned.problems()
        if args.json:
            print_json({
                "ok": False, "problems": [problem_obj(p) for p in problems],
                "leaks": [f.as_obj() for f in scanned.findings],
                "leak_warnings": [f.as_obj() for f in scanned.warned],
                "accepted_findings": [a.as_obj() for a in scanned.accepted],
                "style": style.as_obj(),
                "warnings": [problem_obj(w) for w in warnings],
            })
        else:
            print_problems(warnings, "warnings:")
            print_style(style)
            print_problems(problems, f"{args.study_dir}: {count(len(problems), 'leak')} of a model's identity:")
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
                "leak_warnings": [f.as_obj() for f in scanned.warned],
                "accepted_findings": [a.as_obj() for a in scanned.accepted],
                "style": style.as_obj(),
                "warnings": [problem_obj(w) for w in warnings],
            }
        )
        return EXIT_OK
    print_problems(warnings, "warnings:")
    print_accepted(scanned.accepted)
    print_style(style)
    print(
        f"{args.study_dir}: study {study.study.study_id} is valid: {counts['items']} items "
        f"({counts['items_sent']} sent to raters), {counts['cases']} cases, {counts['responses']} responses "
        f"from {counts['models']} models, {counts['raters']} raters -> {counts['tasks']} tasks."
    )
    sys.stdout.flush()
    return EXIT_OK
