"""The one mapping between a score on a rubric scale and a criterion verdict.

Used by the calibration feedback a rater sees after a calibration task (``bundle build``: which scores
match the gold's acceptable verdicts) and by the gold agreement of ``wmcdp report`` (which verdict a
rater's score means), so the two can never disagree (docs/ANALYSIS.md, "Against gold").

With p = (score - min) / (max - min) the position of a score on its scale:

- p < 40 %  -> ``not_satisfied``; 40 % <= p <= 60 % -> ``partially_satisfied``; p > 60 % -> ``satisfied``
  (1-5: 1-2 | 3 | 4-5; 0-10: 0-3 | 4-6 | 7-10; 1-6: 1-2 | 3-4 | 5-6);
- on a scale whose 40-60 % band holds no level (4 levels, e.g. 1-4), the two middle levels are
  ``partially_satisfied`` and the ends keep their side (1-4: 1 | 2-3 | 4);
- on a 2-level scale there is no middle: min -> ``not_satisfied``, max -> ``satisfied``.

Every score has exactly one verdict; N/A is ``not_applicable``; no score means ``cannot_determine``.
"""

from __future__ import annotations

from typing import Literal, Protocol

Verdict = Literal["satisfied", "partially_satisfied", "not_satisfied"]
SCORE_VERDICTS: tuple[Verdict, ...] = ("satisfied", "partially_satisfied", "not_satisfied")


class _Scale(Protocol):
    @property
    def min(self) -> int: ...

    @property
    def max(self) -> int: ...


def scale_bands(scale: _Scale) -> dict[Verdict, list[int]]:
    """The levels of each verdict (a partition of the scale's levels, in order)."""
    lo, hi = scale.min, scale.max
    span = hi - lo
    levels = list(range(lo, hi + 1))
    # Exact in integers: p < 0.4  <=>  5 (v - min) < 2 span;  p > 0.6  <=>  5 (v - min) > 3 span.
    low = [v for v in levels if 5 * (v - lo) < 2 * span]
    high = [v for v in levels if 5 * (v - lo) > 3 * span]
    mid = [v for v in levels if v not in low and v not in high]
    if not mid and len(levels) >= 4:
        mid = [low[-1], high[0]]
        low, high = low[:-1], high[1:]
    return {"not_satisfied": low, "partially_satisfied": mid, "satisfied": high}


def score_verdict(scale: _Scale, score: int) -> Verdict:
    """The verdict of one score on ``scale`` (ValueError outside the scale)."""
    for verdict, levels in scale_bands(scale).items():
        if score in levels:
            return verdict
    raise ValueError(f"{score} is not on the scale {scale.min}-{scale.max}")


def verdict_scores(scale: _Scale, verdicts: list[str]) -> list[int]:
    """The scores whose verdict is one of ``verdicts`` (other verdicts, e.g. ``not_applicable``, add none)."""
    bands: dict[str, list[int]] = {str(k): v for k, v in scale_bands(scale).items()}
    out: set[int] = set()
    for verdict in verdicts:
        out.update(bands.get(verdict, []))
    return sorted(out)


def bands_text(scale: _Scale) -> str:
    """``1-2 not satisfied, 3 partially, 4-5 satisfied`` (for help texts and tables)."""
    def span(levels: list[int]) -> str:
        if not levels:
            return "none"
        return str(levels[0]) if len(levels) == 1 else f"{levels[0]}-{levels[-1]}"

    bands = scale_bands(scale)
    return (f"{span(bands['not_satisfied'])} not satisfied, {span(bands['partially_satisfied'])} partially, "
            f"{span(bands['satisfied'])} satisfied")
