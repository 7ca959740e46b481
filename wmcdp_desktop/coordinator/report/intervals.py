"""95% intervals that account for both sources of sampling: the benchmark items *and* the raters.

Every interval of the report (model means, paired differences, Krippendorff's alpha) is built the same way,
from a **two-way delete-one jackknife** (docs/ANALYSIS.md, "Intervals"):

- the statistic recomputed with each benchmark item left out (all of the item's tasks and ratings at
  once: ratings of one item share its scenario) gives ``v_items`` and the item bias;
- the statistic recomputed with each rater left out gives ``v_jack_raters``. It also moves with the
  raters' random disagreement on each task, which ``v_items`` already counts; so the same jackknife is run
  on ``B`` copies of the data whose rater labels were shuffled among each item's raters (rater differences
  destroyed, everything else kept): ``v_shuffled``. On balanced data the three are the crossed ANOVA's
  ``MS_items``, ``MS_raters`` and ``MS_residual`` over ``I R``;
- interval = centre ± t(df) · sqrt(v_items + v_jack_raters - v_shuffled), df by Satterthwaite for that
  combination of mean squares; when ``F = v_jack_raters / v_shuffled`` shows no rater part (below the 75th
  percentile of its null F distribution, Bancroft's sometimes-pool rule) the rater part is pooled into the
  noise: ``v_items`` with items - 1 df;
- alpha is biased downwards in small samples: its interval is centred on the jackknife bias-corrected
  value (item and rater bias, the rater bias net of its shuffled-copy value). Means and differences are
  unbiased and are not corrected.

``fixed_raters=True`` gives the interval for *these particular raters* (item part only, items - 1 df).

Where the data cannot support an honest interval the bounds are ``None`` and the reason says why (fewer
than :data:`MIN_ITEMS` items, fewer than :data:`MIN_RATERS` raters for raters like these, or a statistic
that is undefined once an item or rater is left out).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from wmcdp_desktop.coordinator.report.common import CI_LEVEL, FloatArray, IntArray, rng_for
from wmcdp_desktop.core.counts import count

MIN_ITEMS = 6
"""Fewest benchmark items behind an interval (the smallest design of the coverage check,
benchmarks/coverage.py: 6 items x 3 raters covered 94-97%)."""
MIN_RATERS = 3
"""Fewest raters behind an interval for raters like these (two raters give the rater part 1 df)."""

MAX_LABEL_ENTRIES = 8_000_000
"""Shuffled copies x (item, rater) cells kept in memory at most (about 130 MB with the sparse label matrix):
``--bootstrap`` is lowered to fit, with a note."""

POOL_QUANTILE = 0.75
"""The rater part is pooled into the noise unless F = v_raters / v_shuffled reaches this quantile of
F(raters - 1, (items - 1)(raters - 1)) (Bancroft's sometimes-pool rule at 0.25)."""

SCOPE_RANDOM = "for raters and items like these"
SCOPE_FIXED = "for these particular raters"


def scope_text(fixed_raters: bool) -> str:
    return SCOPE_FIXED if fixed_raters else SCOPE_RANDOM


@dataclass(frozen=True)
class Shuffles:
    """The (item, rater) cells of the data and ``count`` copies of their rater labels shuffled within each
    item (the noise reference of the rater part). Memory: copies x cells, never copies x items x raters."""

    cell_item: IntArray
    """Item of each cell (cells sorted by item, then rater)."""
    cell_rater: IntArray
    row_cell: IntArray
    """Cell of each rating of the dataset."""
    labels: IntArray
    """(copies, cells): the rater label each cell carries in each copy (a permutation of the item's raters)."""
    n_raters: int

    @property
    def copies(self) -> int:
        return int(self.labels.shape[0])

    def by_rater(self, values: FloatArray) -> FloatArray:
        """Sum of per-cell ``values`` ((cells,) or (cells, k)) per original rater: (raters, ...)."""
        return sum_rows(self.cell_rater, values, self.n_raters)

    @cached_property
    def _label_matrix(self) -> Any:
        """Sparse (copies * raters, cells) 0/1 matrix: which cells carry each label in each copy."""
        from scipy.sparse import csc_matrix

        n_c = self.cell_item.size
        rows = (np.arange(self.copies, dtype=np.int64)[:, None] * self.n_raters + self.labels).ravel()
        # Column-compressed: one column per cell (its label in each copy); 4x faster here than by rows.
        return csc_matrix((np.ones(rows.size), (rows, np.tile(np.arange(n_c), self.copies))),
                          shape=(self.copies * self.n_raters, n_c))

    def by_label(self, values: FloatArray) -> FloatArray:
        """Sum of per-cell ``values`` per rater label in every copy: (copies, raters, ...)."""
        tail = values.shape[1:]
        out = np.asarray(self._label_matrix @ values.reshape(len(values), -1), dtype=np.float64)
        return out.reshape(self.copies, self.n_raters, *tail)


def sum_rows(index: IntArray, values: FloatArray, size: int) -> FloatArray:
    """Sum of the rows of ``values`` ((n,) or (n, k)) by ``index``: (size,) or (size, k)."""
    if values.ndim == 1:
        out1: FloatArray = np.bincount(index, weights=values, minlength=size).astype(np.float64)
        return out1
    out = np.empty((size, values.shape[1]))
    for col in range(values.shape[1]):
        out[:, col] = np.bincount(index, weights=values[:, col], minlength=size)
    return out


def copies_that_fit(n_cells: int, requested: int) -> int:
    """How many shuffled copies are made: ``requested``, lowered so copies x cells <= MAX_LABEL_ENTRIES."""
    return min(requested, max(1, MAX_LABEL_ENTRIES // max(n_cells, 1))) if requested > 0 else 0


def count_cells(item: IntArray, rater: IntArray, n_raters: int) -> int:
    return int(np.unique(item.astype(np.int64) * max(n_raters, 1) + rater).size)


def shuffles(item: IntArray, rater: IntArray, n_raters: int, seed: int, count: int) -> Shuffles:
    """Cells of the ratings (``item``, ``rater`` per rating) and ``count`` within-item shuffles of their
    rater labels (at most :func:`copies_that_fit`), drawn from one seeded stream (every statistic of the
    report uses the same copies)."""
    code = item.astype(np.int64) * max(n_raters, 1) + rater
    cells, row_cell = np.unique(code, return_inverse=True)
    count = copies_that_fit(cells.size, count)
    cell_item = cells // max(n_raters, 1)
    cell_rater = cells % max(n_raters, 1)
    if count > 0 and cells.size:
        rng = rng_for(seed, "shuffle-raters")
        # cell_item + a key in [0, 1): sorting keeps every item's block and shuffles the cells inside it.
        order = np.argsort(cell_item[None, :] + rng.random((count, cells.size)), axis=1, kind="stable")
        labels = cell_rater[order]
    else:
        labels = np.zeros((0, cells.size), np.int64)
    return Shuffles(cell_item, cell_rater, row_cell.astype(np.int64).ravel(), labels.astype(np.int64), n_raters)


def _jk_var(reps: FloatArray) -> tuple[float, float]:
    """Jackknife variance and mean of delete-one replicates."""
    k = reps.size
    mean = float(reps.mean())
    return float((k - 1) / k * ((reps - mean) ** 2).sum()), mean


def two_way_interval(theta: float, items: FloatArray, raters: FloatArray | None, null_raters: FloatArray | None,
                     *, fixed_raters: bool, bias_correct: bool, lower: float = -np.inf,
                     upper: float = np.inf) -> tuple[float | None, float | None, str | None]:
    """The 95% interval of ``theta`` from its delete-one-item replicates ``items`` (one per item behind
    it), delete-one-rater replicates ``raters`` (one per rater behind it) and the same for shuffled rater
    labels ``null_raters`` ((copies, raters), NaN where a label has no data). ``(None, None, reason)``
    when no honest interval can be given."""
    from scipy.stats import f as f_dist
    from scipy.stats import t as t_dist

    n_i = items.size
    if n_i < MIN_ITEMS:
        return None, None, f"{count(n_i, 'item')}: an interval needs at least {MIN_ITEMS} items"
    if not np.isfinite(items).all():
        return None, None, "undefined when some item is left out: too little data for an interval"
    v_items, m_items = _jk_var(items)
    centre = theta - (n_i - 1) * (m_items - theta) if bias_correct else theta
    var, df = v_items, float(n_i - 1)
    if not fixed_raters:
        n_r = 0 if raters is None else raters.size
        if raters is None or n_r < MIN_RATERS:
            return None, None, (f"{count(n_r, 'rater')}: an interval for raters like these needs at least {MIN_RATERS} "
                                "(--fixed-raters gives one for these raters)")
        if not np.isfinite(raters).all():
            return None, None, "undefined when some rater is left out: too little data for an interval"
        if null_raters is None or len(null_raters) == 0:
            return None, None, "no resamples (--bootstrap 0)"
        v_raters, m_raters = _jk_var(raters)
        # The same jackknife on every shuffled copy (labels without data are NaN and left out).
        ok = np.isfinite(null_raters)
        k = ok.sum(axis=1)
        use = k >= 2
        v_null = b_null = 0.0
        if use.any():
            x = np.where(ok, null_raters, 0.0)[use]
            kk = k[use].astype(np.float64)
            mean = x.sum(axis=1) / kk
            sq = (np.where(ok[use], x - mean[:, None], 0.0) ** 2).sum(axis=1)
            v_null = float(((kk - 1) / kk * sq).mean())
            b_null = float(((kk - 1) * (mean - theta)).mean())
        if bias_correct:
            centre -= (n_r - 1) * (m_raters - theta) - b_null
        df_e = float((n_i - 1) * (n_r - 1))
        # Is there a rater part at all? F = v_raters / v_null is MS_raters / MS_residual of the crossed ANOVA;
        # below its 75th percentile under "no rater effect" the rater part is pooled into the noise
        # (Bancroft's sometimes-pool rule): adding a noisy, mostly-noise term with 2-4 df would only widen the
        # interval at random.
        if v_null > 0 and v_raters > v_null and v_raters / v_null >= float(f_dist.ppf(POOL_QUANTILE, n_r - 1, df_e)):
            var = v_items + v_raters - v_null
            df = var**2 / (v_items**2 / (n_i - 1) + v_raters**2 / (n_r - 1) + v_null**2 / df_e)
    half = float(t_dist.ppf((1 + CI_LEVEL) / 2, df)) * float(np.sqrt(var))
    lo = min(max(centre - half, lower), upper)
    hi = max(min(centre + half, upper), lower)
    return float(lo), float(hi), None
