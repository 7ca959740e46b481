"""Regenerate or check the published JSON Schemas (``schemas/*.schema.json``) from the pydantic models, a
developer's tool (it was ``wmcdp schemas write|check``). Run from the repository:

    python -m tools.schemas write [--dir DIR] [--json]   # regenerate schemas/ (or DIR, a copy of it)
    python -m tools.schemas check [--dir DIR] [--json]   # exit 1 when a committed schema is stale

Exit codes: 0 ok, 1 stale (check) or not writable (write), 2 usage error."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wmcdp_desktop.coordinator.publish.schemas import SEED_SCHEMA, stale_schemas, write_schemas
from wmcdp_desktop.core.resources import schemas_dir

COMMAND = "python -m tools.schemas"


def _print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=True) + "\n")


def _write(directory: Path, as_json: bool) -> int:
    try:
        names = write_schemas(directory)
    except OSError as exc:
        message = (f"cannot be written ({exc.strerror or exc}): give a folder that holds the seed schema "
                   f"{SEED_SCHEMA} (a copy of the project's schemas/)")
        if as_json:
            _print_json({"ok": False, "problems": [{"file": str(directory), "path": "", "message": message}]})
        print(f"{directory}: {message}", file=sys.stderr)
        return 1
    if as_json:
        _print_json({"ok": True, "dir": str(directory), "written": [str(directory / n) for n in names]})
        return 0
    for name in names:
        print(f"wrote {directory / name}")
    return 0


def _check(directory: Path, as_json: bool) -> int:
    stale = stale_schemas(directory)
    if as_json:
        _print_json({"ok": not stale, "dir": str(directory), "stale": [str(directory / n) for n in stale]})
        return 1 if stale else 0
    for name in stale:
        print(f"{directory / name}: stale; run `{COMMAND} write`", file=sys.stderr)
    if not stale:
        print(f"{directory}: all schemas up to date")
    return 1 if stale else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, help_text in (("write", "regenerate the JSON Schemas from the pydantic models"),
                            ("check", "exit 1 if a committed schema differs from the models")):
        p = actions.add_parser(name, help=help_text, description=help_text[0].upper() + help_text[1:] + ".")
        p.add_argument("--dir", type=Path, default=None, help="schemas folder (default: the project's schemas/)")
        p.add_argument("--json", action="store_true", help="print a machine-readable JSON result on stdout")
    args = parser.parse_args(argv)
    directory = args.dir or schemas_dir()
    return (_write if args.action == "write" else _check)(directory, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
