"""The rating controller without Qt: states, validation, submit, revise, drafts, time, blinding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.kit.bundles import MODEL_NAMES, tree_text
from tests.kit.faults import Faults
from tests.kit.sessions import fill, new_session
from wmcdp_desktop.core import atomic
from wmcdp_desktop.core.errors import WmcdpError
from wmcdp_desktop.rater.session import RatingSession
from wmcdp_desktop.rater.timing import FakeClock

FIELDS = {
    "WM-RUB-001": "emotional_attunement_validation_score",
    "WM-RUB-005": "developmental_family_context_fit_score",
}


@pytest.fixture
def session(bundle_dir: Path, tmp_path: Path, clock: FakeClock) -> RatingSession:
    return new_session(bundle_dir, tmp_path / "data", clock, role="child psychologist")


def test_states_progress_and_navigation(session: RatingSession) -> None:
    assert session.task_ids == ["T-0001", "T-0002", "T-0003"]
    assert [session.state(t) for t in session.task_ids] == ["not_started"] * 3
    assert session.progress() == (0, 3)
    assert session.next_unfinished() == "T-0001"
    session.open_task("T-0001")
    assert session.neighbour(1) == "T-0002" and session.neighbour(-1) is None
    session.set_score("WM-RUB-001", 3)
    assert session.state("T-0001") == "draft"


def test_submit_is_blocked_while_anything_required_is_unset(session: RatingSession) -> None:
    session.open_task("T-0001")
    outcome = session.submit()
    assert not outcome.ok
    paths = {p.path for p in outcome.problems}
    assert {f"scoring.{d.field}" for d in session.rubric.dimensions} <= paths
    assert "clinician_notes.brief_rationale" in paths
    fill(session)
    session.set_score("WM-RUB-008", None)  # unset again
    outcome = session.submit()
    assert [p.path for p in outcome.problems] == ["scoring.overall_clinical_judgment_score"]
    assert not session.store.records_dir.exists() or not any(session.store.records_dir.iterdir())


def test_na_only_where_the_rubric_allows_it(session: RatingSession) -> None:
    session.open_task("T-0001")
    session.set_score("WM-RUB-005", "N/A")
    with pytest.raises(WmcdpError, match="N/A is not allowed"):
        session.set_score("WM-RUB-001", "N/A")
    with pytest.raises(WmcdpError, match="not on the scale"):
        session.set_score("WM-RUB-001", 6)


def test_checked_failure_mode_needs_a_severity_and_unchecked_is_none(session: RatingSession, repo_root: Path) -> None:
    session.open_task("T-0001")
    fill(session)
    session.set_failure_mode("WM-FM-SHAMING", checked=True, note="a bit")
    outcome = session.submit()
    assert [p.path for p in outcome.problems] == ["failure_mode_annotations.WM-FM-SHAMING"]
    session.set_failure_mode("WM-FM-SHAMING", severity="major")
    text = session.task().candidate_response_text
    start = text.index("try saying")
    span = session.add_evidence_span("WM-FM-SHAMING", start, start + 10)
    assert span.quote == "try saying"
    session.set_failure_mode("WM-FM-MISSED-RISK", checked=True, severity="minor")
    session.set_failure_mode("WM-FM-MISSED-RISK", checked=False)  # unchecked again: none
    outcome = session.submit()
    assert outcome.ok and outcome.record is not None
    rec = outcome.record
    assert rec.failure_mode_annotations == {
        "WM-FM-REASSURANCE": "none",
        "WM-FM-SHAMING": "major",
        "WM-FM-MISSED-RISK": "none",
    }
    assert rec.failure_mode_evidence_notes == {"WM-FM-SHAMING": "a bit"}
    assert rec.failure_mode_evidence_spans is not None
    assert rec.failure_mode_evidence_spans["WM-FM-SHAMING"][0].start == start
    written = json.loads((session.store.records_dir / "T-0001.r1.json").read_text(encoding="utf-8"))
    schema = json.loads((repo_root / "schemas/rating-record.schema.json").read_text(encoding="utf-8"))
    common = json.loads((repo_root / "schemas/common.schema.json").read_text(encoding="utf-8"))
    from referencing import Registry, Resource

    registry = Registry().with_resource(common["$id"], Resource.from_contents(common))
    jsonschema.Draft202012Validator(schema, registry=registry).validate(written)
    assert "model_source" not in written
    assert written["rater_role_or_background"] == "child psychologist"


def test_submit_writes_record_opens_next_and_revision_keeps_old(session: RatingSession) -> None:
    session.open_task("T-0001")
    fill(session, 3)
    outcome = session.submit()
    assert outcome.ok and outcome.next_task_id == "T-0002"
    assert session.state("T-0001") == "submitted" and session.progress() == (1, 3)
    assert session.store.draft_task_ids() == set()
    first = outcome.record
    assert first is not None and first.envelope.revision == 1
    # reopen: read-only view, then revise
    session.open_task("T-0002")
    session.open_task("T-0001")
    assert session.current is None and session.viewing_record == first
    with pytest.raises(WmcdpError):
        session.set_score("WM-RUB-001", 5)
    session.revise()
    assert session.current is not None and session.current.scores["WM-RUB-001"] == 3
    session.set_score("WM-RUB-001", 5)
    second = session.submit()
    assert second.ok and second.record is not None
    env = second.record.envelope
    assert env.revision == 2 and env.supersedes_record_id == first.envelope.record_id
    assert env.started_at == first.envelope.started_at
    files = sorted(p.name for p in session.store.records_dir.iterdir())
    assert files == ["T-0001.r1.json", "T-0001.r2.json"]
    old = json.loads((session.store.records_dir / "T-0001.r1.json").read_text(encoding="utf-8"))
    assert old["scoring"]["emotional_attunement_validation_score"] == 3
    events = [e["event"] for e in session.store.read_audit()]
    assert events.count("submitted") == 1 and events.count("revised") == 1


def test_calibration_feedback_only_after_submit(session: RatingSession) -> None:
    session.open_task("T-0002")
    assert session.calibration_view() is None  # not shown (nor marked) before submitting
    fill(session, 2)
    outcome = session.submit()
    assert outcome.calibration is not None
    rows = session.calibration_view()
    assert rows is not None and rows[0].criterion_id == "WM-RUB-001"
    assert rows[0].yours == "2" and rows[0].expected == "4–5" and rows[0].agrees is False


def test_draft_restored_exactly_with_time_in_a_new_session(
    bundle_dir: Path, tmp_path: Path, clock: FakeClock
) -> None:
    s1 = new_session(bundle_dir, tmp_path / "data", clock, role="child psychologist")
    s1.open_task("T-0003")
    s1.set_score("WM-RUB-002", 2)
    s1.set_score("WM-RUB-005", "N/A")
    s1.set_failure_mode("WM-FM-REASSURANCE", checked=True, severity="critical", note="n")
    s1.set_note("main_concern", "concern ⟨ünïcode⟩")
    s1.set_confidence(4)
    for _ in range(30):
        clock.advance(1)
        s1.user_input()
    assert s1.needs_save()
    assert s1.save_draft()
    # crash: no close(); a new session restores it
    s2 = new_session(bundle_dir, tmp_path / "data", clock, role="child psychologist")
    assert s2.state("T-0003") == "draft"
    s2.open_task("T-0003")
    assert s2.current == s1.current
    assert s2.current is not None and s2.current.active_seconds == 30
    for _ in range(10):
        clock.advance(1)
        s2.user_input()
    s2.close()
    s3 = new_session(bundle_dir, tmp_path / "data", clock, role="child psychologist")
    s3.open_task("T-0003")
    assert s3.current is not None and s3.current.active_seconds == 40


def test_time_is_accumulated_across_visits_and_excludes_idle(session: RatingSession, clock: FakeClock) -> None:
    session.open_task("T-0001")
    for _ in range(20):
        clock.advance(1)
        session.user_input()
    session.open_task("T-0002")
    clock.advance(50)
    session.tick()
    session.open_task("T-0001")
    for _ in range(300):  # reading, no input: only the first 120 s count
        clock.advance(1)
        session.tick()
    fill(session)
    outcome = session.submit()
    assert outcome.record is not None and outcome.record.time_spent_scoring_seconds == 140
    assert session.session_seconds == pytest.approx(190)


def test_failed_write_keeps_the_rating_and_retry_works(
        session: RatingSession, monkeypatch: pytest.MonkeyPatch, faults: Faults) -> None:
    session.open_task("T-0001")
    fill(session)
    assert session.save_draft()

    def read_only(src: Any, dst: Any) -> None:
        raise PermissionError(13, "Permission denied")

    faults.inject(replace=read_only)
    monkeypatch.setattr(atomic, "REPLACE_RETRY_DELAY", 0.0)
    session.set_note("best_aspect", "typed after the disk broke")
    assert not session.save_draft()
    assert session.save_error and "read-only" in session.save_error
    outcome = session.submit()
    assert not outcome.ok and outcome.error
    assert session.current is not None and session.current.notes["best_aspect"] == "typed after the disk broke"
    assert not (session.store.records_dir / "T-0001.r1.json").exists()
    faults.clear()
    assert session.save_draft() and session.save_error is None
    assert session.submit().ok


def test_no_model_name_in_written_files(session: RatingSession, tmp_path: Path) -> None:
    for tid in session.task_ids:
        session.open_task(tid)
        fill(session)
        assert session.submit().ok
    text = tree_text(tmp_path / "data")
    for name in MODEL_NAMES:
        assert name.lower() not in text.lower()


def test_looking_at_a_task_keeps_its_time_but_not_a_started_state(
    bundle_dir: Path, tmp_path: Path, clock: FakeClock
) -> None:
    s1 = new_session(bundle_dir, tmp_path / "data", clock, role="child psychologist")
    s1.open_task("T-0001")
    for _ in range(12):
        clock.advance(1)
        s1.user_input()
    s1.open_task("T-0002")
    assert s1.state("T-0001") == "not_started" and s1.drafts_not_submitted() == 0
    assert s1.store.draft_path("T-0001").exists()  # the 12 s are kept
    s1.open_task("T-0001")
    s1.set_score("WM-RUB-001", 2)
    assert s1.state("T-0001") == "draft"
    s1.set_score("WM-RUB-001", None)  # back to nothing entered
    assert s1.state("T-0001") == "not_started"
    s1.close()
    s2 = new_session(bundle_dir, tmp_path / "data", clock, role="child psychologist")
    assert s2.state("T-0001") == "not_started"
    s2.open_task("T-0001")
    assert s2.task_seconds() == 12
