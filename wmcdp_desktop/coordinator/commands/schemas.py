"""``wmcdp schemas write|check``: regenerate or check the published JSON Schemas."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from wmcdp_desktop.coordinator.commands.common import EXIT_INVALID, EXIT_OK, command, group, print_json
from wmcdp_desktop.coordinator.publish.schemas import SEED_SCHEMA, stale_schemas, write_schemas
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.resources import schemas_dir


def register(sub: Any) -> None:
    actions = group(sub, "schemas", help="regenerate or check schemas/ from the models",
                    description="The published JSON Schemas (schemas/*.schema.json) are generated from the "
                    "pydantic models: write regenerates them, check fails when one is stale.")
    for name, body, help_text, examples in (
        ("write", _write, "regenerate the JSON Schemas from the pydantic models",
         [("wmcdp schemas write", "regenerate the project's schemas/"),
          ("wmcdp schemas write --dir /tmp/schemas", "into another folder (it must hold the seed schema)")]),
        ("check", _check, "exit 1 if a committed schema differs from the models",
         [("wmcdp schemas check", "the project's schemas/"), ("wmcdp schemas check --json", "machine-readable")]),
    ):
        p = command(actions, name, help=help_text, description=help_text[0].upper() + help_text[1:] + ".",
                    prog=f"wmcdp schemas {name}", body=body, examples=examples)
        p.add_argument("--dir", type=Path, default=None, help="schemas folder (default: the project's schemas/)")


def _write(args: argparse.Namespace) -> int:
    directory = args.dir or schemas_dir()
    try:
        names = write_schemas(directory)
    except OSError as exc:
        raise DocumentError.single(str(directory), f"cannot be written ({exc.strerror or exc}): give a folder that "
                                   f"holds the seed schema {SEED_SCHEMA} (a copy of the project's schemas/)") from None
    if args.json:
        print_json({"ok": True, "dir": str(directory), "written": [str(directory / n) for n in names]})
        return EXIT_OK
    for name in names:
        print(f"wrote {directory / name}")
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    directory = args.dir or schemas_dir()
    stale = stale_schemas(directory)
    if args.json:
        print_json({"ok": not stale, "dir": str(directory), "stale": [str(directory / n) for n in stale]})
        return EXIT_INVALID if stale else EXIT_OK
    for name in stale:
        print(f"{directory / name}: stale; run `wmcdp schemas write`", file=sys.stderr)
    if not stale:
        print(f"{directory}: all schemas up to date")
    return EXIT_INVALID if stale else EXIT_OK
