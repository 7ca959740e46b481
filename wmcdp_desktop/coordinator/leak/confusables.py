"""Letters of other scripts that look like a Latin letter or a digit: Unicode's confusables data (UTS #39),
kept as the data file ``resources/leak/confusables.json`` (made by ``python -m tools.make_confusables``; the
file holds its source, its licence and the Unicode version it was made with) and read at first use."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from wmcdp_desktop.core.resources import resources_dir

TABLE_NAME = "confusables.json"
"""The table's file, in ``resources/leak/``."""


def table_path() -> Path:
    return resources_dir() / "leak" / TABLE_NAME


@cache
def table() -> dict[str, Any]:
    """The whole file: ``about``, ``licence``, ``source``, ``unidata_version`` and ``look_alikes`` (letter ->
    [ASCII letter or digit, the letter's Unicode name])."""
    obj: dict[str, Any] = json.loads(table_path().read_text(encoding="utf-8"))
    return obj


@cache
def look_alikes() -> dict[str, str]:
    """Letter -> the ASCII letter or digit (lower case) it looks like."""
    return {ch: entry[0] for ch, entry in table()["look_alikes"].items()}
