"""A rater's "cannot rate" (instead of a rating) and flag for the coordinator, in the core session: autosaved
in the draft, validated, written as a record of its kind (valid against its published schema), audited,
revisable both ways; older drafts and records stay valid."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.kit.sessions import new_session
from wmcdp_desktop.core.documents import load_record_bytes
from wmcdp_desktop.core.errors import DocumentError, WmcdpError
from wmcdp_desktop.core.models.cannot_rate_record import CannotRateRecord
from wmcdp_desktop.core.models.draft import Draft
from wmcdp_desktop.core.models.rating_record import RatingRecord
from wmcdp_desktop.rater.session import RatingSession
from wmcdp_desktop.rater.timing import FakeClock
from wmcdp_desktop.rater.working_rating import TaskMarks


@pytest.fixture
def session(bundle_dir: Path, tmp_path: Path, clock: FakeClock) -> RatingSession:
    return new_session(bundle_dir, tmp_path / "data", clock)


def schema(repo_root: Path, name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((repo_root / "schemas" / name).read_text(encoding="utf-8"))
    return loaded


def test_cannot_rate_needs_a_reason_and_other_needs_words(session: RatingSession) -> None:
    session.open_task("T-0001")
    session.set_score("WM-RUB-001", 2)  # entered before deciding: kept in the draft, not sent
    session.mark_cannot_rate(True)
    outcome = session.submit()
    assert [p.path for p in outcome.problems] == ["cannot_rate.reason"]  # no score or rationale asked for
    session.set_cannot_rate(reason="other")
    assert [p.path for p in session.submit().problems] == ["cannot_rate.detail"]
    session.set_cannot_rate(detail="   ")
    assert [p.path for p in session.submit().problems] == ["cannot_rate.detail"]
    with pytest.raises(WmcdpError):
        session.set_cannot_rate(reason="bored")  # type: ignore[arg-type]


def test_cannot_rate_is_written_valid_audited_and_counts_as_done(session: RatingSession, repo_root: Path) -> None:
    session.open_task("T-0001")
    session.mark_cannot_rate(True)
    session.set_cannot_rate(reason="content_broken_or_truncated", detail="The response stops mid-sentence.")
    outcome = session.submit()
    assert outcome.ok and isinstance(outcome.record, CannotRateRecord)
    path = session.store.record_path("T-0001", 1)
    obj = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(obj, schema(repo_root, "cannot-rate-record.schema.json"))
    assert obj["record_kind"] == "cannot_rate" and "scoring" not in obj and "clinician_notes" not in obj
    assert obj["cannot_rate"] == {"reason": "content_broken_or_truncated", "detail": "The response stops mid-sentence."}
    with pytest.raises(jsonschema.ValidationError):  # never mistaken for a rating
        jsonschema.validate(obj, schema(repo_root, "rating-record.schema.json"))
    assert isinstance(load_record_bytes(path.read_bytes(), str(path)), CannotRateRecord)
    assert session.state("T-0001") == "submitted" and session.progress() == (1, 3)
    assert session.marks("T-0001") == TaskMarks(cannot_rate=True, flagged=False)
    events = [e for e in session.store.read_audit() if e["event"] == "submitted"]
    assert events[-1]["kind"] == "cannot_rate" and events[-1]["flagged"] is False
    assert outcome.next_task_id == "T-0002"


def test_a_flag_needs_a_note_and_travels_with_the_rating(session: RatingSession, repo_root: Path) -> None:
    session.open_task("T-0001")
    for dim in session.rubric.dimensions:
        session.set_score(dim.id, 4)
    session.set_note("brief_rationale", "Fine.")
    session.set_flag(True)
    assert [p.path for p in session.submit().problems] == ["coordinator_flag.note"]
    session.set_flag_note("Turn 2 looks like it belongs to another case.")
    outcome = session.submit()
    assert isinstance(outcome.record, RatingRecord)
    obj = json.loads(session.store.record_path("T-0001", 1).read_text(encoding="utf-8"))
    jsonschema.validate(obj, schema(repo_root, "rating-record.schema.json"))
    assert obj["coordinator_flag"] == {"note": "Turn 2 looks like it belongs to another case."}
    assert "record_kind" not in obj  # a rating keeps the shape every earlier record has
    assert session.marks("T-0001") == TaskMarks(cannot_rate=False, flagged=True)
    assert [e for e in session.store.read_audit() if e["event"] == "submitted"][-1]["flagged"] is True


def test_draft_keeps_cannot_rate_and_flag_across_a_restart(
    bundle_dir: Path, tmp_path: Path, clock: FakeClock
) -> None:
    first = new_session(bundle_dir, tmp_path / "data", clock)
    first.open_task("T-0002")
    first.mark_cannot_rate(True)
    first.set_cannot_rate(reason="outside_expertise")
    first.set_flag(True)
    first.set_flag_note("Adult case in a child study?")
    assert first.save_draft()
    first.close()
    second = new_session(bundle_dir, tmp_path / "data", clock)
    assert second.state("T-0002") == "draft"
    assert second.marks("T-0002") == TaskMarks(cannot_rate=True, flagged=True)  # known without opening it
    second.open_task("T-0002")
    current = second.current
    assert current is not None and current.cannot_rate is not None
    assert current.cannot_rate.reason == "outside_expertise" and current.flag == "Adult case in a child study?"
    # Taking both back leaves nothing behind but the draft's time.
    second.mark_cannot_rate(False)
    second.set_flag(False)
    assert not current.has_content()


def test_revising_turns_a_cannot_rate_into_a_rating_and_back(session: RatingSession) -> None:
    session.open_task("T-0001")
    session.mark_cannot_rate(True)
    session.set_cannot_rate(reason="conflict_of_interest")
    assert session.submit().ok
    session.open_task("T-0001")
    session.revise()
    current = session.current
    assert current is not None and current.cannot_rate is not None and current.base_revision == 1
    session.mark_cannot_rate(False)
    for dim in session.rubric.dimensions:
        session.set_score(dim.id, 3)
    session.set_note("brief_rationale", "Could rate it after all.")
    second = session.submit()
    assert isinstance(second.record, RatingRecord)
    first_id = session.store.load_record("T-0001", 1).envelope.record_id
    assert second.record.envelope.revision == 2 and second.record.envelope.supersedes_record_id == first_id
    session.open_task("T-0001")
    session.revise()
    session.mark_cannot_rate(True)
    session.set_cannot_rate(reason="other", detail="On reflection I know this family.")
    third = session.submit()
    assert isinstance(third.record, CannotRateRecord) and third.record.envelope.revision == 3
    assert session.marks("T-0001") == TaskMarks(cannot_rate=True)
    assert [e["kind"] for e in session.store.read_audit() if e["event"] in ("submitted", "revised")] == [
        "cannot_rate", "rating", "cannot_rate"]


def test_no_calibration_feedback_after_a_cannot_rate(session: RatingSession) -> None:
    session.open_task("T-0002")  # the calibration task
    session.mark_cannot_rate(True)
    session.set_cannot_rate(reason="outside_expertise")
    outcome = session.submit()
    assert outcome.ok and outcome.calibration is None and session.calibration_view() is None


def test_older_drafts_and_records_stay_valid(session: RatingSession, sample_docs: Any) -> None:
    record = sample_docs("RatingRecord")
    assert "record_kind" not in record and "coordinator_flag" not in record
    assert isinstance(load_record_bytes(json.dumps(record).encode(), "old.json"), RatingRecord)
    draft = {
        "document_type": "wmcdp_draft", "format_version": "1.0.0", "task_id": "T-0001", "bundle_id": "B-test",
        "rater_id": "R01", "started_at": "2026-11-01T09:00:00Z", "updated_at": "2026-11-01T09:01:00Z",
    }
    loaded = Draft.model_validate(draft)
    assert loaded.cannot_rate is None and loaded.coordinator_flag is None


def test_a_record_of_an_unknown_kind_or_half_a_cannot_rate_is_refused(sample_docs: Any) -> None:
    record = sample_docs("RatingRecord")
    record["record_kind"] = "skipped"
    with pytest.raises(DocumentError) as err:
        load_record_bytes(json.dumps(record).encode(), "x.json")
    assert any(p.path == "record_kind" for p in err.value.problems)
    cannot = {k: record[k] for k in ("envelope", "benchmark_item_id", "clinical_domain_id", "scenario_type_ids",
                                     "candidate_response_id", "candidate_response_text", "rater_id")}
    cannot |= {"record_kind": "cannot_rate", "cannot_rate": {"reason": "other"}}
    with pytest.raises(DocumentError) as err:
        load_record_bytes(json.dumps(cannot).encode(), "y.json")
    assert "needs a detail" in str(err.value)
    cannot["cannot_rate"] = {"reason": "other", "detail": "Known to me."}
    cannot["scoring"] = record["scoring"]  # a "cannot rate" with scores is neither kind
    with pytest.raises(DocumentError):
        load_record_bytes(json.dumps(cannot).encode(), "z.json")
