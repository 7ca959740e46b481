"""Calibration feedback (bundle build) and gold agreement (report) read scores as verdicts the same way.

Issue 15: on a 1-4 dimension the feedback told raters partially = 2-3 while the gold counted 2 as not
satisfied. Now every score inside the feedback's expected scores agrees with gold, and none outside does.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from tests.kit.ratings import rubric
from wmcdp_desktop.coordinator.report import gold
from wmcdp_desktop.core.models.rubric import Scale
from wmcdp_desktop.core.verdicts import SCORE_VERDICTS, bands_text, scale_bands, score_verdict, verdict_scores


def _scale(lo: int, hi: int) -> Scale:
    return Scale.model_validate({"min": lo, "max": hi, "anchors": [{"level": k, "text": f"l{k}"} for k in range(lo, hi + 1)]})


SCALES = [(lo, lo + n - 1) for lo in (0, 1) for n in range(2, 22)]


@pytest.mark.parametrize(("lo", "hi"), SCALES)
def test_every_level_has_one_verdict_and_feedback_matches_gold(lo: int, hi: int) -> None:
    scale = _scale(lo, hi)
    bands = scale_bands(scale)
    levels = [v for band in bands.values() for v in band]
    assert sorted(levels) == list(range(lo, hi + 1))  # a partition: one verdict per score
    assert bands["not_satisfied"] and bands["satisfied"]
    if hi - lo + 1 >= 3:
        assert bands["partially_satisfied"], "every scale of 3 or more levels can say 'partially'"
    dim = rubric().dimensions[0].model_copy(update={"scale": scale})
    mapped = [gold.VERDICTS[v] for v in gold.dimension_verdicts(np.arange(lo, hi + 1, dtype=float), dim)]
    assert mapped == [score_verdict(scale, v) for v in range(lo, hi + 1)]
    for k in (1, 2):
        for acceptable in combinations(SCORE_VERDICTS, k):
            expected = set(verdict_scores(scale, list(acceptable)))
            agrees = {v for v, m in zip(range(lo, hi + 1), mapped, strict=True) if m in acceptable}
            assert expected == agrees


def test_the_scales_of_the_issue() -> None:
    assert bands_text(_scale(1, 5)) == "1-2 not satisfied, 3 partially, 4-5 satisfied"
    assert bands_text(_scale(1, 4)) == "1 not satisfied, 2-3 partially, 4 satisfied"
    assert bands_text(_scale(0, 10)) == "0-3 not satisfied, 4-6 partially, 7-10 satisfied"
    assert bands_text(_scale(0, 1)) == "0 not satisfied, none partially, 1 satisfied"


def test_a_score_off_the_scale_has_no_verdict() -> None:
    with pytest.raises(ValueError):
        score_verdict(_scale(1, 5), 6)
