"""Helpers shared by the coordinator commands: ``--json`` output, problem lists, usage errors."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from wmcdp_desktop.core.counts import count
from wmcdp_desktop.core.errors import DocumentError, Problem, WmcdpError
from wmcdp_desktop.core.inert import inert

if TYPE_CHECKING:
    from wmcdp_desktop.coordinator.leak.scan import AcceptedLeak
    from wmcdp_desktop.coordinator.study.style_check import StyleCheck

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


def print_problems(problems: Iterable[Problem], heading: str | None = None, *, limit: int | None = None,
                   rest: str = "") -> None:
    """Every problem, or the first ``limit`` and a line saying how many more there are and ``rest`` (where the
    whole list is)."""
    problems = list(problems)
    if heading and problems:
        print(heading, file=sys.stderr)
    for problem in problems[:limit]:
        print(f"  {problem}", file=sys.stderr)
    if limit is not None and len(problems) > limit:
        print(f"  … and {len(problems) - limit:,} more{rest}", file=sys.stderr)


def print_accepted(accepted: Sequence[AcceptedLeak]) -> None:
    """The leak-scan findings the study accepts, with their reasons (stdout: they are part of the result)."""
    if accepted:
        print(f"{count(len(accepted), 'accepted finding')} (study.json accepted_findings):")
        for leak in accepted:
            print(f"  {leak.line()}")


def print_style(style: StyleCheck) -> None:
    """The style separability figure (stdout), and its acceptance when study.json accepts it; a separable
    finding not accepted is among the warnings (stderr)."""
    result = style.result
    if result.not_measured is None and not result.separable:
        print(f"style separability: {result.summary()}: not separable.")
    elif result.not_measured is not None and not style.warnings:
        print(f"{result.summary()}.")
    if style.accepted:
        print(style.accepted)


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


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print a machine-readable JSON result on stdout")


EXIT_CODES = "Exit codes: 0 ok, 1 invalid input (problems listed), 2 usage error, 3 unexpected error."


def command(actions: Any, name: str, *, help: str, description: str, examples: Sequence[tuple[str, str]],
            prog: str, body: Callable[[argparse.Namespace], int], json_flag: bool = True) -> argparse.ArgumentParser:
    """One subcommand in the CLI's one help style: a one-line ``help`` (listed by the parent command), the
    ``description`` paragraphs, then ``Examples:`` (command and what it does) and the exit codes. Every
    command takes ``--json``."""
    width = max(len(cmd) for cmd, _ in examples)
    epilog = "Examples:\n" + "\n".join(f"  {cmd.ljust(width)}  # {what}" for cmd, what in examples)
    parser: argparse.ArgumentParser = actions.add_parser(
        name, help=help, description=description, epilog=f"{epilog}\n\n{EXIT_CODES}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    if json_flag:
        add_json_flag(parser)
    parser.set_defaults(func=lambda args: run_command(args, body), prog=prog, parser=parser)
    return parser


def group(sub: Any, name: str, *, help: str, description: str) -> Any:
    """A command with actions (``wmcdp study ...``): its help lists every action with its one line."""
    parser = sub.add_parser(name, help=help, description=description,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    return subparsers(parser)


def run_command(args: argparse.Namespace, body: Callable[[argparse.Namespace], int]) -> int:
    """Run ``body``; in ``--json`` mode turn errors into a JSON result instead of text on stderr."""
    try:
        return body(args)
    except UsageError as exc:
        prog = getattr(args, "prog", "wmcdp")
        if getattr(args, "json", False):
            parser = getattr(args, "parser", None)
            print_json({"ok": False, "usage_error": f"{prog}: {exc}",
                        "usage": "" if parser is None else " ".join(parser.format_usage().split())})
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


class InertStream:
    """A text stream that writes everything through :func:`~wmcdp_desktop.core.inert.inert`: installed by
    ``wmcdp``'s :func:`~wmcdp_desktop.coordinator.commands.main.main` over stdout and stderr for the whole
    command, so no text read from an export (an id, a note, a member name, a problem quoting one) can move the
    cursor, clear the screen, rewrite a line or reorder what the coordinator reads, whichever command prints
    it. ``terminal`` is the stream underneath, for the progress bar's own carriage returns."""

    def __init__(self, terminal: TextIO) -> None:
        self.terminal = terminal

    def write(self, text: str) -> int:
        self.terminal.write(inert(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.terminal.flush()

    def isatty(self) -> bool:
        return self.terminal.isatty()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.terminal, name)


@contextlib.contextmanager
def inert_output() -> Iterator[None]:
    """stdout and stderr as :class:`InertStream` while the block runs (restored after it, also on errors)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout = InertStream(out) if not isinstance(out, InertStream) else out
    sys.stderr = InertStream(err) if not isinstance(err, InertStream) else err
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
