"""Timestamps are sanity-checked (issue 13, item 11): ``submitted_at`` never before ``started_at`` (the
model), and both in a plausible range (record_rules: not before 2020-01-01, not more than a day after the
checking machine's clock). The app never refuses its own rating over its clock."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.kit.bundles import make_bundle
from tests.kit.sessions import new_session
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.record_rules import RubricRules, record_problems, time_problems
from wmcdp_desktop.rater.timing import FakeClock

Docs = Callable[[str], dict[str, Any]]
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("when", "ok"),
    [
        ("2026-11-29T10:00:00Z", True),
        ("2020-01-01T00:00:00Z", True),
        ("2019-12-31T23:59:59Z", False),
        ("1970-01-01T00:00:00Z", False),
        ("2026-12-02T11:59:59Z", True),  # within a day ahead: a clock a little fast, a time zone
        ("2026-12-02T12:00:01Z", False),
        ("9999-12-31T23:59:59Z", False),
        ("2026-12-02T13:00:00+02:00", True),  # 11:00 UTC
    ],
)
def test_plausible_range(when: str, ok: bool) -> None:
    problems = time_problems([("envelope.submitted_at", when)], "r.json", NOW)
    assert (problems == []) is ok
    if not ok:
        assert problems[0].path == "envelope.submitted_at" and when in problems[0].message


def test_a_record_from_9999_breaks_the_record_rules(sample_docs: Docs) -> None:
    doc = sample_docs("RatingRecord")
    doc["envelope"]["submitted_at"] = "9999-01-01T00:00:00Z"
    record = RatingRecord.model_validate(doc)
    rubric = Rubric.model_validate(sample_docs("Rubric"))
    problems = record_problems(record, rubric, None, "r.json", rules=RubricRules(rubric, now=NOW))
    assert [p.path for p in problems] == ["envelope.submitted_at"]
    assert "in the future" in problems[0].message
    assert record_problems(record, rubric, None, "r.json", check_times=False) == []


def test_the_app_submits_even_when_its_clock_went_back(tmp_path: Path, sample_docs: Docs) -> None:
    # Opened at 10:00, the computer's clock then set back an hour: the record must still be valid.
    clock = FakeClock()
    session = new_session(make_bundle(tmp_path / "bundle", sample_docs), tmp_path / "data", clock)
    session.open_task("T-0001")
    for dim in session.rubric.dimensions:
        session.set_score(dim.id, 3)
    session.set_note("brief_rationale", "because")
    clock.wall_time -= 3600
    outcome = session.submit()
    assert outcome.ok and outcome.record is not None
    env = outcome.record.envelope
    assert env.started_at == env.submitted_at


def test_the_app_submits_with_a_clock_far_off(tmp_path: Path, sample_docs: Docs) -> None:
    clock = FakeClock()
    clock.wall_time = 1_000_000_000.0  # 2001: outside the plausible range, reported by the coordinator's tools
    session = new_session(make_bundle(tmp_path / "bundle", sample_docs), tmp_path / "data", clock)
    session.open_task("T-0001")
    for dim in session.rubric.dimensions:
        session.set_score(dim.id, 3)
    session.set_note("brief_rationale", "because")
    assert session.submit().ok
