"""``wmcdp schemas write|check``: regenerate or check the published JSON Schemas."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from wmcdp_desktop.core.resources import schemas_dir
from wmcdp_desktop.core.schemas import stale_schemas, write_schemas


def register(sub: Any) -> None:
    parser = sub.add_parser("schemas", help="regenerate or check schemas/ from the models")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    actions.required = True
    for name, func, help_text in (
        ("write", _write, "regenerate the JSON Schemas from the pydantic models"),
        ("check", _check, "exit 1 if a committed schema differs from the models"),
    ):
        p = actions.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--dir", type=Path, default=None, help="schemas folder (default: the project's schemas/)")
        p.set_defaults(func=func)


def _write(args: argparse.Namespace) -> int:
    directory = args.dir or schemas_dir()
    for name in write_schemas(directory):
        print(f"wrote {directory / name}")
    return 0


def _check(args: argparse.Namespace) -> int:
    directory = args.dir or schemas_dir()
    stale = stale_schemas(directory)
    for name in stale:
        print(f"{directory / name}: stale; run `wmcdp schemas write`", file=sys.stderr)
    if not stale:
        print(f"{directory}: all schemas up to date")
    return 1 if stale else 0
