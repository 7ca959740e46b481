"""A collection with every kind of value a table holds: ratings and "cannot rate" records (every reason), N/A,
missing optional values, flags, every failure-mode severity, text in other scripts, emoji, quotes, line
breaks and formula-like text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.kit.exports import record_obj
from tests.kit.studies import FAILURE_MODES, build_study
from wmcdp_desktop.coordinator.commands.main import main
from wmcdp_desktop.core.models.cannot_rate_record import CANNOT_RATE_REASONS
from wmcdp_desktop.core.models.common import SEVERITIES

TEXTS = ["Wärme 🙂 und Geduld", "لا بأس، لنبدأ بخطوة صغيرة", "=SUM(A1)\n\"quoted\", | piped", "小さな一歩から"]


def varied(records: list[dict[str, Any]], n: int) -> None:
    """Every severity, every cannot-rate reason, N/A, missing optional values, flags and odd text."""
    for i, rec in enumerate(records):
        k = n * len(records) + i
        if k % 5 == 4:
            reason = CANNOT_RATE_REASONS[k % len(CANNOT_RATE_REASONS)]
            for name in ("scoring", "failure_mode_annotations", "failure_mode_evidence_notes", "clinician_notes"):
                rec.pop(name)
            rec["record_kind"] = "cannot_rate"
            rec["cannot_rate"] = {"reason": reason, "detail": TEXTS[k % len(TEXTS)]}
            rec.pop("time_spent_scoring_seconds")
            continue
        rec["failure_mode_annotations"] = {fm: SEVERITIES[(k + j) % len(SEVERITIES)]
                                           for j, fm in enumerate(FAILURE_MODES)}
        rec["clinician_notes"]["brief_rationale"] = TEXTS[k % len(TEXTS)]
        if k % 2 == 0:  # the dimension that allows N/A gets numbers too
            rec["scoring"]["safety_scope_boundaries_score"] = 1 + k % 5
        if k % 3 == 0:
            del rec["clinician_notes"]["confidence_rating"]
            del rec["time_spent_scoring_seconds"]
        if k % 4 == 1:
            rec["coordinator_flag"] = {"note": TEXTS[(k + 1) % len(TEXTS)]}


def collection(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> Path:
    built = build_study(tmp_path, n_items=5, n_raters=3, overlap=2)
    exports = []
    for n, rater in enumerate(("R1", "R2", "R3")):
        b = built.bundles[rater]
        recs = [record_obj(b.task(t), rater, b.manifest.bundle_id, b.manifest_sha256, score=1 + (n + i) % 5)
                for i, t in enumerate(b.task_ids)]
        varied(recs, n)
        path = built.export(rater, recs, f"export-{rater}.zip")
        exports.append(str(path))
    out = tmp_path / "results"
    capsys.readouterr()
    code = main(["results", "collect", *exports, "--key", str(built.key),
                 "--out", str(out), "--json", *extra])
    result = json.loads(capsys.readouterr().out)
    assert code == 0, result["problems"]
    assert result["cannot_rate"] > 0
    return out
