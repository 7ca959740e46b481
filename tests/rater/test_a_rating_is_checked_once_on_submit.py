"""A rating is checked once per submit: ``check()`` (what the window runs before the blinding question)
builds and validates its record, and ``submit()`` writes that record without checking it again, as long as
the rating still holds what was checked. A change in between, however it is made, is checked and written,
never lost and never let through unchecked.

The checks are counted through the session's public seams: the rubric rules it checks records with
(``session.rules``) and the building of a record from the rating (``WorkingRating.to_record``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.kit.bundles import make_bundle
from tests.kit.sessions import new_session
from wmcdp_desktop.core.models.common import SpanRef
from wmcdp_desktop.core.models.rating_record import BlindingGuess, RatingRecord
from wmcdp_desktop.core.models.task_record import validate_record
from wmcdp_desktop.core.record_rules import record_problems
from wmcdp_desktop.rater.session import RatingSession, SubmitOutcome
from wmcdp_desktop.rater.timing import FakeClock, utc_iso
from wmcdp_desktop.rater.working_rating import WorkingRating

LABELS = ["Atlas Clinical", "Halcyon"]
RATIONALE = "Hi there! 😊 Validates first, then coaches the parent through the ERP step."


class Counted:
    """How often the session built a record from the rating and checked one against the rubric."""

    def __init__(self) -> None:
        self.built = 0
        self.checked = 0

    @property
    def both(self) -> tuple[int, int]:
        return self.built, self.checked


@pytest.fixture
def session(tmp_path: Path, sample_docs: Any, clock: FakeClock) -> RatingSession:
    bundle_dir = make_bundle(tmp_path / "bundle", sample_docs)
    manifest = json.loads((bundle_dir / "bundle.json").read_text(encoding="utf-8"))
    manifest["blinding_check_labels"] = LABELS
    (bundle_dir / "bundle.json").write_text(json.dumps(manifest), encoding="utf-8")
    return new_session(bundle_dir, tmp_path / "data", clock, role="child psychologist")


@pytest.fixture
def counted(session: RatingSession, monkeypatch: pytest.MonkeyPatch) -> Counted:
    counts = Counted()
    to_record = WorkingRating.to_record
    problems = session.rules.problems

    def building(self: WorkingRating, *args: Any, **kwargs: Any) -> Any:
        counts.built += 1
        return to_record(self, *args, **kwargs)

    def checking(*args: Any, **kwargs: Any) -> Any:
        counts.checked += 1
        return problems(*args, **kwargs)

    monkeypatch.setattr(WorkingRating, "to_record", building)
    monkeypatch.setattr(session.rules, "problems", checking)
    return counts


def fill(session: RatingSession, score: int = 4) -> None:
    for dim in session.rubric.dimensions:
        session.set_score(dim.id, score)
    session.set_failure_mode("WM-FM-SHAMING", checked=True, severity="minor", note="“just stop” — a bit blunt")
    session.set_note("brief_rationale", RATIONALE)


def on_disk(session: RatingSession, outcome: SubmitOutcome) -> dict[str, Any]:
    assert outcome.ok and outcome.record is not None, outcome.problems
    env = outcome.record.envelope
    path = session.store.records_dir / f"{env.task_id}.r{env.revision}.json"
    obj: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return obj


def assert_valid_whole(session: RatingSession, obj: dict[str, Any]) -> None:
    """The written record, read back and validated from scratch, is valid and says what was submitted."""
    record = validate_record(obj)
    problems = record_problems(record, session.rubric, session.bundle.task(record.envelope.task_id), check_times=False,
                               blinding_labels=session.blinding_labels, check_blinding=True)
    assert problems == []


def test_check_then_submit_checks_once_and_writes_what_was_checked(
    session: RatingSession, counted: Counted, clock: FakeClock
) -> None:
    session.open_task("T-0001")
    fill(session)
    assert session.asks_blinding_question()
    assert session.check() == []  # the window's step before the blinding question
    assert counted.both == (1, 1)
    clock.advance(12)  # the rater reads the question and answers
    session.user_input()
    answered_at = utc_iso(clock)
    outcome = session.submit(BlindingGuess(answer="label", label="Halcyon"))
    assert counted.both == (1, 1)  # not checked again
    written = on_disk(session, outcome)
    assert_valid_whole(session, written)
    assert written["blinding_guess"] == {"answer": "label", "label": "Halcyon"}
    assert written["clinician_notes"]["brief_rationale"] == RATIONALE
    assert written["failure_mode_annotations"]["WM-FM-SHAMING"] == "minor"
    # what only the moment of submitting decides is of that moment, not of the check
    assert written["envelope"]["submitted_at"] == answered_at
    assert written["time_spent_scoring_seconds"] == 12
    assert written["envelope"]["revision"] == 1 and written["envelope"]["record_id"] != "0" * 32


def test_submit_without_a_check_checks_once(session: RatingSession, counted: Counted) -> None:
    session.open_task("T-0001")
    fill(session)
    outcome = session.submit()
    assert counted.both == (1, 1)
    assert_valid_whole(session, on_disk(session, outcome))


def test_problems_are_found_by_the_check_and_nothing_is_written(session: RatingSession, counted: Counted) -> None:
    session.open_task("T-0001")
    fill(session)
    session.set_score("WM-RUB-003", None)
    assert [p.path for p in session.check()] == ["scoring.anxiety_ocd_mechanism_sensitivity_score"]
    outcome = session.submit(BlindingGuess(answer="cannot_tell"))
    assert not outcome.ok and [p.path for p in outcome.problems] == ["scoring.anxiety_ocd_mechanism_sensitivity_score"]
    assert list(session.store.records_dir.glob("*.json")) == [] and session.state("T-0001") == "draft"


Change = Callable[[RatingSession], None]


def _score_changed(s: RatingSession) -> None:
    s.set_score("WM-RUB-001", 2)


def _note_changed(s: RatingSession) -> None:
    s.set_note("main_concern", "Skips the safety question 🚩")


def _span_added(s: RatingSession) -> None:
    s.add_evidence_span("WM-FM-SHAMING", 0, 5)


def _flagged(s: RatingSession) -> None:
    s.set_flag(True)
    s.set_flag_note("Scenario mentions a real clinic")


def _edited_behind_the_sessions_back(s: RatingSession) -> None:
    assert s.current is not None
    s.current.scores["WM-RUB-001"] = 2  # no setter: no change notice either


def _severity_edited_in_place(s: RatingSession) -> None:
    assert s.current is not None
    s.current.failure_modes["WM-FM-SHAMING"].severity = "critical"  # inside an entry the check has seen


def _span_appended_in_place(s: RatingSession) -> None:
    assert s.current is not None
    text = s.task().candidate_response_text
    s.current.failure_modes["WM-FM-SHAMING"].spans.append(SpanRef(source="candidate_response", start=1, end=4,
                                                                   quote=text[1:4]))


@pytest.mark.parametrize("change", [_score_changed, _note_changed, _span_added, _flagged, _edited_behind_the_sessions_back,
                                    _severity_edited_in_place, _span_appended_in_place])
def test_a_change_after_the_check_is_checked_again_and_written(
    session: RatingSession, counted: Counted, change: Change
) -> None:
    session.open_task("T-0001")
    fill(session)
    assert session.check() == []
    change(session)
    assert session.current is not None
    expected = session.current.entries()
    outcome = session.submit(BlindingGuess(answer="cannot_tell"))
    assert counted.both == (2, 2)  # the changed rating was checked, once, on submit
    written = on_disk(session, outcome)
    assert_valid_whole(session, written)
    back = WorkingRating.from_record(validate_record(written), session.rubric)
    assert (back.scores, back.notes, back.flag) == (expected.scores, expected.notes, expected.flag)
    assert {k: e for k, e in back.failure_modes.items() if e.checked} == expected.failure_modes


def _rationale_cleared(s: RatingSession) -> None:
    s.set_note("brief_rationale", "   ")


def _severity_cleared(s: RatingSession) -> None:
    s.set_failure_mode("WM-FM-SHAMING", severity=None)


def _empty_flag(s: RatingSession) -> None:
    s.set_flag(True)


def _cannot_rate_without_a_reason(s: RatingSession) -> None:
    s.mark_cannot_rate(True)


def _score_removed_behind_the_sessions_back(s: RatingSession) -> None:
    assert s.current is not None
    del s.current.scores["WM-RUB-008"]


@pytest.mark.parametrize(("change", "path"), [
    (_rationale_cleared, "clinician_notes.brief_rationale"),
    (_severity_cleared, "failure_mode_annotations.WM-FM-SHAMING"),
    (_empty_flag, "coordinator_flag.note"),
    (_cannot_rate_without_a_reason, "cannot_rate.reason"),
    (_score_removed_behind_the_sessions_back, "scoring.overall_clinical_judgment_score"),
])
def test_a_change_that_breaks_a_checked_rating_is_never_let_through(
    session: RatingSession, counted: Counted, change: Change, path: str
) -> None:
    session.open_task("T-0001")
    fill(session)
    assert session.check() == []
    change(session)
    outcome = session.submit()
    assert not outcome.ok and [p.path for p in outcome.problems] == [path]
    assert list(session.store.records_dir.glob("*.json")) == [] and session.state("T-0001") == "draft"


def test_a_change_taken_back_needs_no_second_check(session: RatingSession, counted: Counted) -> None:
    session.open_task("T-0001")
    fill(session)
    assert session.check() == []
    session.set_score("WM-RUB-001", 1)
    session.set_score("WM-RUB-001", 4)  # back to what was checked
    outcome = session.submit(BlindingGuess(answer="cannot_tell"))
    assert counted.both == (1, 1)
    assert on_disk(session, outcome)["scoring"]["emotional_attunement_validation_score"] == 4


def test_a_check_of_one_task_is_not_used_for_another(session: RatingSession, counted: Counted) -> None:
    session.open_task("T-0001")
    fill(session)
    assert session.check() == []
    session.open_task("T-0003")  # the same entries on another task
    fill(session)
    outcome = session.submit()
    assert counted.both == (2, 2)
    written = on_disk(session, outcome)
    assert written["envelope"]["task_id"] == "T-0003"
    assert written["candidate_response_text"] == session.bundle.task("T-0003").candidate_response_text
    assert session.state("T-0001") == "draft"


def test_a_wrong_blinding_answer_after_the_check_is_refused_then_a_right_one_is_written(
    session: RatingSession, counted: Counted
) -> None:
    session.open_task("T-0001")
    fill(session)
    assert session.check() == []
    refused = session.submit(BlindingGuess(answer="label", label="ChatGPT"))
    assert not refused.ok and [p.path for p in refused.problems] == ["blinding_guess.label"]
    assert session.state("T-0001") == "draft"
    outcome = session.submit(BlindingGuess(answer="label", label="Atlas Clinical"))
    assert counted.both == (1, 1)  # the rating did not change: checked once for both attempts
    assert on_disk(session, outcome)["blinding_guess"] == {"answer": "label", "label": "Atlas Clinical"}


def test_a_revision_and_a_cannot_rate_are_checked_once_too(session: RatingSession, counted: Counted) -> None:
    session.open_task("T-0001")
    fill(session)
    assert session.submit(BlindingGuess(answer="cannot_tell")).ok
    session.open_task("T-0001")
    session.revise()
    session.set_score("WM-RUB-002", 5)
    assert session.check() == []
    revision = session.submit()
    written = on_disk(session, revision)
    assert written["envelope"]["revision"] == 2 and written["blinding_guess"] == {"answer": "cannot_tell"}
    assert written["scoring"]["clinical_decision_quality_timing_score"] == 5
    session.open_task("T-0003")
    session.mark_cannot_rate(True)
    session.set_cannot_rate(reason="content_broken_or_truncated")
    assert session.check() == []
    cannot = session.submit(BlindingGuess(answer="cannot_tell"))  # a "cannot rate" keeps no answer
    obj = on_disk(session, cannot)
    assert obj["record_kind"] == "cannot_rate" and "blinding_guess" not in obj
    assert_valid_whole(session, obj)
    assert counted.both == (3, 3)
    assert isinstance(validate_record(written), RatingRecord)
