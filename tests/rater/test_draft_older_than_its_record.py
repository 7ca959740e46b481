"""A draft whose removal after its submit did not reach the disk (a power cut: the drafts' folder is not
fsync'd; or a failed unlink) comes back on the next open. It is older than the record, so opening the
task already ignores it; the overview must ignore it too, not show the task as a revision in progress
(the task list's "(revising)" and the export's "revision(s) you have not submitted yet")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.kit.bundles import make_bundle
from tests.kit.sessions import new_session
from wmcdp_desktop.core.bundle_reader import open_bundle
from wmcdp_desktop.rater.session import RatingSession
from wmcdp_desktop.rater.timing import FakeClock


def _open(tmp_path: Path, bundle: Any, clock: FakeClock) -> RatingSession:
    return new_session(bundle, tmp_path / "data", clock, role="child psychologist")


def _fill(session: RatingSession, score: int) -> None:
    for dim in session.rubric.dimensions:
        session.set_score(dim.id, score)
    session.set_note("brief_rationale", "Warm but keeps reassuring.")


def test_a_draft_back_from_before_its_submit_is_not_a_revision(tmp_path: Path, sample_docs: Any) -> None:
    clock = FakeClock()
    bundle = open_bundle(make_bundle(tmp_path / "bundle", sample_docs))
    session = _open(tmp_path, bundle, clock)
    session.open_task("T-0001")
    _fill(session, 4)
    assert session.save_draft()
    draft_path = session.store.draft_path("T-0001")
    old_draft = draft_path.read_bytes()
    assert session.submit().ok
    assert not draft_path.exists()
    draft_path.write_bytes(old_draft)  # the removal was lost

    again = _open(tmp_path, bundle, clock)
    assert again.state("T-0001") == "submitted"
    assert not again.has_revision_draft("T-0001")
    assert again.drafts_not_submitted() == 0
    again.open_task("T-0001")  # shows the record, as before
    assert again.viewing_record is not None and again.current is None


def test_a_revision_in_progress_still_counts(tmp_path: Path, sample_docs: Any) -> None:
    clock = FakeClock()
    bundle = open_bundle(make_bundle(tmp_path / "bundle", sample_docs))
    session = _open(tmp_path, bundle, clock)
    session.open_task("T-0001")
    _fill(session, 4)
    assert session.submit().ok
    session.open_task("T-0001")
    session.revise()
    _fill(session, 3)
    assert session.save_draft()
    session.open_task("T-0002")
    _fill(session, 2)
    assert session.save_draft()

    again = _open(tmp_path, bundle, clock)
    assert again.has_revision_draft("T-0001")
    assert again.state("T-0002") == "draft" and again.drafts_not_submitted() == 1
    again.open_task("T-0001")
    assert again.current is not None and again.current.base_revision == 1
