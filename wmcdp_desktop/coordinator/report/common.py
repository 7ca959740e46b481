"""Shared pieces of the analysis: notes, tables, seeded random streams, progress callbacks.

Every section of the report produces :class:`Table` objects; the same tables become ``tables/*.csv``,
HTML tables and the ``tables`` of ``summary.json``. A value that cannot be computed is ``None`` (shown as
a dash, written as ``null``) and the reason is a :class:`Note`: a NaN is never presented as a result.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

CI_LEVEL = 0.95


@dataclass(frozen=True)
class Note:
    """Something the reader must know about the data (bad input, a value that could not be computed)."""

    section: str
    """``data``, ``agreement``, ``models``, ``gold`` or ``behaviour``."""
    text: str
    """Plain words."""


@dataclass
class Table:
    """A table of results; cells are ``str``, ``int``, ``float`` or ``None`` (= not computable)."""

    name: str
    """File stem of ``tables/<name>.csv`` and key in ``summary.json``."""
    title: str
    """Heading in the report."""
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    description: str = ""
    """What the table shows and how to read it (shown above it in the report)."""
    percent: bool = False
    """Show every fractional number as a percentage in the HTML (CSV and JSON keep the 0..1 values)."""

    def as_dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, (clean(v) for v in row), strict=True)) for row in self.rows]


def clean(value: Any) -> Any:
    """Python value safe for JSON/CSV/HTML: numpy scalars to Python, NaN/inf to ``None``."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def fnum(value: Any) -> float | None:
    """A finite float or ``None``."""
    value = clean(value)
    if value is None:
        return None
    return float(value)


def rng_for(seed: int, *key: str) -> np.random.Generator:
    """An independent, reproducible random stream per statistic (adding one never shifts the others)."""
    words = [zlib.crc32(k.encode("utf-8")) for k in key]
    return np.random.default_rng([seed, *words])


StageProgress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``: how far a long stage of the analysis is (``"Reading ratings"``,
``"Intervals"``); the command line draws it (``coordinator/commands/progress.py``)."""

ProgressFn = Callable[[int], None]
"""``progress(steps)``: steps done since the last call (inside one stage)."""


def no_progress(_: int) -> None:
    return None


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm-Bonferroni adjusted p-values (``None`` stays ``None``)."""
    idx = [i for i, p in enumerate(pvalues) if p is not None]
    m = len(idx)
    out: list[float | None] = [None] * len(pvalues)
    order = sorted(idx, key=lambda i: pvalues[i])  # type: ignore[arg-type, return-value]
    running = 0.0
    for rank, i in enumerate(order):
        p = pvalues[i]
        assert p is not None
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


def group_index(codes: IntArray, n_groups: int) -> list[IntArray]:
    """Row indices of each group (one argsort, no per-row Python loop)."""
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(n_groups + 1))
    return [order[bounds[g]:bounds[g + 1]] for g in range(n_groups)]
