"""``wmcdp``: the coordinator's command line.

Exit codes: 0 ok, 1 invalid input (problems listed), 2 usage error, 3 unexpected error (the message
says where the log with details is: a new file in the user's own log folder, core/crash_log.py). A user
never sees a Python traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from wmcdp_desktop import __version__
from wmcdp_desktop.coordinator.commands import bundle as bundle_cmd
from wmcdp_desktop.coordinator.commands import report as report_cmd
from wmcdp_desktop.coordinator.commands import results as results_cmd
from wmcdp_desktop.coordinator.commands import study as study_cmd
from wmcdp_desktop.coordinator.commands.common import (
    EXIT_INVALID,
    EXIT_UNEXPECTED,
    EXIT_USAGE,
    inert_output,
    print_json,
    problem_obj,
)
from wmcdp_desktop.core.counts import count
from wmcdp_desktop.core.errors import DocumentError, WmcdpError

# Each command module exposes register(subparsers); its parser sets ``func(args) -> int``.
# Heavy analysis dependencies are imported by report_cmd only when `wmcdp report` runs.
COMMAND_MODULES = [study_cmd, bundle_cmd, results_cmd, report_cmd]


class _UsageExit(Exception):
    """A usage error found while parsing, with the parser (command) it belongs to."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser, self.message = parser, message


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageExit(self, message)


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """The parsed command line. A usage error is said by the command it belongs to (an unknown option of
    ``wmcdp results validate`` with that command's usage, not the top level's); with ``--json`` it is also
    one JSON object on stdout (``ok``, ``usage_error``, ``usage``). Exits 2 on a usage error."""
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        args, extras = parser.parse_known_args(words)
        if extras:
            getattr(args, "parser", parser).error(f"unrecognized arguments: {' '.join(extras)}")
    except _UsageExit as exc:
        if "--json" in words[: words.index("--") if "--" in words else None]:
            print_json({"ok": False, "usage_error": f"{exc.parser.prog}: {exc.message}",
                        "usage": " ".join(exc.parser.format_usage().split())})
        exc.parser.print_usage(sys.stderr)
        print(f"{exc.parser.prog}: error: {exc.message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None
    return args


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="wmcdp",
        description="WM-CDP coordinator tools: start and check a study, build blinded rater bundles, "
        "validate and collect the raters' results, report agreement and results per model. "
        "`wmcdp COMMAND --help` describes each command, with examples.",
        epilog="Examples:\n"
        "  wmcdp study init my-study                       # a starter study to edit\n"
        "  wmcdp study validate my-study                   # check it\n"
        "  wmcdp bundle build my-study --out bundles       # one bundle per rater + the unblinding key\n"
        "  wmcdp results collect exports/*.zip --key bundles/MY-STUDY-unblinding-key.json --out results\n"
        "  wmcdp report results --study my-study --out report\n\n"
        "Every command takes --json (a machine-readable result on stdout). Exit codes: 0 ok, 1 invalid input, "
        "2 usage error, 3 unexpected error.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"wmcdp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Everything it prints goes through :class:`InertStream`: text read from a file (an
    export's ids and notes, a zip's member names) can never drive the terminal."""
    with inert_output():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = _parse(parser, argv)
    json_mode = bool(getattr(args, "json", False))
    try:
        return int(args.func(args))
    except DocumentError as exc:
        if json_mode:
            print_json({"ok": False, "problems": [problem_obj(p) for p in exc.problems]})
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        print(f"{count(len(exc.problems), 'problem')} found.", file=sys.stderr)
        return EXIT_INVALID
    except WmcdpError as exc:
        if json_mode:
            print_json({"ok": False, "error": str(exc)})
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        if json_mode:
            print_json({"ok": False, "error": "interrupted"})
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        from wmcdp_desktop.core.crash_log import log_dir, write_crash_log

        command = " ".join(str(a) for a in (sys.argv[1:3] if argv is None else list(argv)[:2]))
        path = write_crash_log("wmcdp", type(exc), exc, exc.__traceback__, {"Command": f"wmcdp {command}"})
        where = f"Details are in {path}." if path else f"Details could not be written to a log in {log_dir()}."
        text = str(exc)
        if json_mode:
            print_json({"ok": False, "error": f"unexpected internal error ({type(exc).__name__}: {text[:200]})",
                        "log": None if path is None else str(path)})
        print(
            f"wmcdp: unexpected internal error ({type(exc).__name__}: {text[:200]}). {where} Please send that "
            "file and the command you ran to the WM-CDP Desktop developers.",
            file=sys.stderr,
        )
        return EXIT_UNEXPECTED


if __name__ == "__main__":
    raise SystemExit(main())
