"""``wmcdp report COLLECTED_DIR --study STUDY_DIR --out REPORT_DIR [--seed N] [--bootstrap B] [--fixed-raters]``.

The statistics live in :mod:`wmcdp_desktop.coordinator.report` and need the optional ``analysis`` extra (numpy,
scipy, matplotlib, pyarrow); they are imported only when the command runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from wmcdp_desktop.coordinator.commands.common import command, print_json, whole_number
from wmcdp_desktop.coordinator.commands.progress import ProgressBar
from wmcdp_desktop.core.counts import agree, count

INSTALL_HINT = 'pip install "wmcdp-desktop[analysis]"'
_HEAVY = ("numpy", "scipy", "matplotlib", "pyarrow")


_non_negative = whole_number(0, "must be 0 or more")


def register(sub: Any) -> None:
    help_text = "analyse collected ratings: agreement, per-model results, gold, rater behaviour"
    parser = command(
        sub, "report", help=help_text, prog="wmcdp report", body=_run, json_flag=False,
        description="Analyse the ratings `wmcdp results collect` gathered (COLLECTED_DIR/ratings.parquet): agreement between raters "
        "(Krippendorff's alpha, ICC, Gwet's AC2, kappa), results per model with 95% intervals, agreement with "
        "the gold standard, rater behaviour and blinding. Writes REPORT_DIR/report.html (one self-contained "
        "page), tables/*.csv and summary.json (docs/ANALYSIS.md). Needs the analysis extra: " + INSTALL_HINT,
        examples=[("wmcdp report results --study my-study --out report", "the full report"),
                  ("wmcdp report results --study my-study --out report --fixed-raters",
                   "intervals for these raters only"),
                  ("wmcdp report results --study my-study --out report --bootstrap 0 --no-charts",
                   "fast: no intervals, no charts"),
                  ("wmcdp report results --study my-study --out report --json", "machine-readable result")])
    parser.add_argument("collected_dir", type=Path, metavar="COLLECTED_DIR",
                        help="folder written by `wmcdp results collect` (reads its ratings.parquet, checked against "
                        "collect-report.json)")
    parser.add_argument("--study", type=Path, required=True, metavar="STUDY_DIR",
                        help="the study folder (study.json, rubric.json, items/)")
    parser.add_argument("--out", type=Path, required=True, metavar="REPORT_DIR", help="where to write the report")
    parser.add_argument("--seed", type=_non_negative, default=None,
                        help="random seed of the shuffled rater labels behind the intervals (default: the study's seed)")
    parser.add_argument("--bootstrap", type=_non_negative, default=200, metavar="B",
                        help="resamples behind the 95%% intervals: B copies of the data with the raters shuffled "
                        "within each item, the reference for the rater part of every interval (default 200; "
                        "0 = no intervals)")
    parser.add_argument("--fixed-raters", action="store_true",
                        help="intervals for these particular raters (only the items vary): narrower, but they "
                        "do not carry over to other raters. Default: intervals for raters and items like these")
    parser.add_argument("--no-charts", action="store_true", help="leave the charts out (faster on huge data)")
    parser.add_argument("--timings", action="store_true", help="print how long each phase took")
    parser.add_argument("--json", action="store_true",
                        help="print a machine-readable JSON result on stdout (counts, key findings, notes, files "
                        "written; every figure is in REPORT_DIR/summary.json)")


def missing_extra() -> str | None:
    """Name of the first missing analysis dependency, or None."""
    import importlib.util

    for name in _HEAVY:
        if importlib.util.find_spec(name) is None:
            return name
    return None


def _run(args: argparse.Namespace) -> int:
    missing = missing_extra()
    if missing:
        message = (f"wmcdp report needs the analysis extra ({missing} is not installed). Install it with:\n"
                   f"  {INSTALL_HINT}")
        if getattr(sys, "frozen", False):
            message = ("wmcdp report needs the analysis libraries, which this standalone build leaves out. Use the "
                       "standalone build made with --with-analysis (docs/PACKAGING.md), or install with Python:\n"
                       f"  {INSTALL_HINT}")
        if args.json:
            print_json({"ok": False, "error": message})
        print(message, file=sys.stderr)
        return 1
    from wmcdp_desktop.coordinator.report.report import run

    with ProgressBar("Reading ratings", enabled=False if args.json else None) as bar:
        report = run(args.collected_dir, args.study, args.out, args.seed, args.bootstrap, bar.stage,
                     with_charts=not args.no_charts, fixed_raters=args.fixed_raters)
    meta = report.meta
    if args.json:
        print_json({
            "ok": meta.ratings > 0,
            "meta": meta.as_json_obj(),
            "findings": report.findings,
            "notes": [{"section": n.section, "text": n.text} for n in report.notes],
            "outputs": [str(args.out / "report.html"), str(args.out / "summary.json"), str(args.out / "tables")],
        })
        return 0 if meta.ratings > 0 else 1
    print(f"{count(meta.ratings, 'rating')} from {count(meta.raters, 'rater')} on {count(meta.tasks, 'task')}, "
          f"{count(meta.models, 'model')}; {count(len(report.notes), 'note')}.")
    if meta.cannot_rate or meta.flagged:
        print(f"{meta.cannot_rate} “cannot rate” (left out of the statistics) and {count(meta.flagged, 'flag')} "
              "for you: section 4 of the report.")
    if meta.tasks_nobody_could_rate:
        unable = meta.tasks_nobody_could_rate
        print(f"{count(len(unable), 'task')} no rater who returned them could rate: {', '.join(unable[:20])}"
              + (" …" if len(unable) > 20 else ""))
    if meta.records_excluded:
        print(f"warning: {count(meta.records_excluded, 'invalid record')} {agree(meta.records_excluded, 'was', 'were')} "
              "left out (listed in the report).", file=sys.stderr)
    print(f"wrote {args.out / 'report.html'}, {args.out / 'summary.json'} and {args.out / 'tables'}/")
    if meta.ratings == 0:
        print("error: no valid rating to analyse; the report lists the problems.", file=sys.stderr)
        return 1
    if args.timings:
        for phase, seconds in report.timings.items():
            print(f"  {phase}: {seconds:.3f} s", file=sys.stderr)
    return 0
