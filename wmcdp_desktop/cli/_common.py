"""Helpers shared by the coordinator commands: ``--json`` output, problem lists, usage errors."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from typing import Any

from wmcdp_desktop.core.errors import DocumentError, Problem, WmcdpError
from wmcdp_desktop.core.parallel import MAX_AUTO_WORKERS, SLOW_START_FACTOR, WorkerError

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_UNEXPECTED = 3


class UsageError(Exception):
    """A bad option value found after parsing (exit code 2)."""


def problem_obj(problem: Problem) -> dict[str, str]:
    return {"file": problem.file, "path": problem.path, "message": problem.message}


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=True) + "\n")


def print_problems(problems: Iterable[Problem], heading: str | None = None) -> None:
    problems = list(problems)
    if heading and problems:
        print(heading, file=sys.stderr)
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)


def whole_number(minimum: int, too_small: str) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum`` (``too_small`` says why, ``{value}`` filled in)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(too_small.format(value=value))
        return value

    return parse


jobs_count = whole_number(1, "{value} is less than 1 (1 reads in one process)")
"""argparse type of ``--jobs N``: worker processes, 1 or more."""


def add_jobs_flag(parser: argparse.ArgumentParser, *, reading: str, min_items: int, unit: str, same: str) -> None:
    """``--jobs N``; without it :func:`~wmcdp_desktop.core.parallel.workers_for` decides from ``min_items``."""
    parser.add_argument(
        "--jobs", type=jobs_count, default=None, metavar="N",
        help=f"worker processes reading {reading} (default: one per CPU, up to {MAX_AUTO_WORKERS}, for "
        f"{min_items:,} {unit} or more, {min_items * SLOW_START_FACTOR:,} on Windows and macOS; 1 reads in one "
        f"process). {same} is the same either way",
    )


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print a machine-readable JSON result on stdout")


def run_command(args: argparse.Namespace, body: Callable[[argparse.Namespace], int]) -> int:
    """Run ``body``; in ``--json`` mode turn errors into a JSON result instead of text on stderr.

    A failed worker process (``--jobs``) is reported with how to read without workers.
    """
    try:
        try:
            return body(args)
        except WorkerError as exc:
            raise WorkerError(exc.chunk, f"{exc.cause}; run again with --jobs 1 to read in one process") from None
    except UsageError as exc:
        prog = getattr(args, "prog", "wmcdp")
        if getattr(args, "json", False):
            print_json({"ok": False, "usage_error": str(exc)})
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except DocumentError as exc:
        if not getattr(args, "json", False):
            raise
        print_json({"ok": False, "problems": [problem_obj(p) for p in exc.problems]})
        return EXIT_INVALID
    except WmcdpError as exc:
        if not getattr(args, "json", False):
            raise
        print_json({"ok": False, "error": str(exc)})
        return EXIT_INVALID


def subparsers(parser: argparse.ArgumentParser) -> Any:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    actions.required = True
    return actions
