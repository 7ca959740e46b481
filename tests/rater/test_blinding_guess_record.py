"""The blinding check in the rater's core: asked once per task when the bundle has it, stored with the
record (schema-valid), kept by revisions, checked against the bundle's labels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.kit.bundles import make_bundle
from tests.kit.sessions import fill, new_session
from wmcdp_desktop.core.errors import WmcdpError
from wmcdp_desktop.core.models.rating_record import BlindingGuess, RatingRecord
from wmcdp_desktop.core.models.rubric import Rubric
from wmcdp_desktop.core.record_rules import record_problems
from wmcdp_desktop.rater.session import RatingSession

LABELS = ["Atlas", "Halcyon", "Meridian", "Solstice"]


def with_labels(bundle_dir: Path, labels: list[str] | None) -> Path:
    manifest = json.loads((bundle_dir / "bundle.json").read_text(encoding="utf-8"))
    if labels is not None:
        manifest["blinding_check_labels"] = labels
    (bundle_dir / "bundle.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return bundle_dir


def session_for(bundle_dir: Path, data: Path) -> RatingSession:
    return new_session(bundle_dir, data)


@pytest.fixture
def session(tmp_path: Path, sample_docs: Any) -> RatingSession:
    return session_for(with_labels(make_bundle(tmp_path / "b", sample_docs), LABELS), tmp_path / "data")


def test_the_answer_is_stored_with_the_record_and_published_in_the_schema(session: RatingSession, repo_root: Path) -> None:
    assert session.blinding_labels == LABELS
    session.open_task("T-0001")
    fill(session)
    assert session.asks_blinding_question()
    outcome = session.submit(BlindingGuess(answer="label", label="Halcyon"))
    assert outcome.ok and outcome.record is not None
    written = json.loads((session.store.records_dir / "T-0001.r1.json").read_text(encoding="utf-8"))
    assert written["blinding_guess"] == {"answer": "label", "label": "Halcyon"}
    schema = json.loads((repo_root / "schemas" / "rating-record.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(written, schema)

    session.open_task("T-0002")
    fill(session)
    assert session.submit(BlindingGuess(answer="cannot_tell")).ok
    session.open_task("T-0003")
    fill(session)
    assert session.submit().ok  # skipped: no answer stored
    assert "blinding_guess" not in json.loads((session.store.records_dir / "T-0003.r1.json").read_text())


def test_a_revision_keeps_the_first_answer_and_is_not_asked_again(session: RatingSession, tmp_path: Path) -> None:
    session.open_task("T-0001")
    fill(session, 3)
    assert session.submit(BlindingGuess(answer="label", label="Atlas")).ok
    session.open_task("T-0001")
    session.revise()
    assert not session.asks_blinding_question()
    with pytest.raises(WmcdpError):
        session.submit(BlindingGuess(answer="cannot_tell"))
    session.set_score("WM-RUB-001", 5)
    second = session.submit()
    assert second.ok and second.record is not None
    assert second.record.blinding_guess == BlindingGuess(answer="label", label="Atlas")
    # also after a restart in the middle of the revision (the draft does not hold the answer)
    session.open_task("T-0001")
    session.revise()
    session.set_score("WM-RUB-001", 4)
    assert session.save_draft()
    again = session_for(tmp_path / "b", tmp_path / "data")
    again.open_task("T-0001")
    third = again.submit()
    assert third.ok and third.record is not None and third.record.envelope.revision == 3
    assert third.record.blinding_guess == BlindingGuess(answer="label", label="Atlas")


def test_a_label_not_in_the_bundle_is_refused(session: RatingSession) -> None:
    session.open_task("T-0001")
    fill(session)
    outcome = session.submit(BlindingGuess(answer="label", label="ChatGPT"))
    assert not outcome.ok
    assert [p.path for p in outcome.problems] == ["blinding_guess.label"]
    assert session.state("T-0001") != "submitted"


def test_a_bundle_without_the_check_never_asks(tmp_path: Path, sample_docs: Any) -> None:
    session = session_for(make_bundle(tmp_path / "b", sample_docs), tmp_path / "data")
    assert session.blinding_labels is None
    session.open_task("T-0001")
    fill(session)
    assert not session.asks_blinding_question()
    outcome = session.submit(BlindingGuess(answer="cannot_tell"))
    assert not outcome.ok and [p.path for p in outcome.problems] == ["blinding_guess"]


def test_the_guess_model_and_rules(sample_docs: Any) -> None:
    record = sample_docs("RatingRecord")
    for bad in ({"answer": "label"}, {"answer": "cannot_tell", "label": "Atlas"}, {"answer": "maybe"},
                {"answer": "label", "label": " "}):
        record["blinding_guess"] = bad
        with pytest.raises(ValueError):
            RatingRecord.model_validate(record)
    record["blinding_guess"] = {"answer": "label", "label": "Atlas"}
    rec = RatingRecord.model_validate(record)
    rubric = Rubric.model_validate(sample_docs("Rubric"))
    assert record_problems(rec, rubric, None) == []  # not checked without a bundle
    assert record_problems(rec, rubric, None, check_blinding=True, blinding_labels=LABELS) == []
    assert [p.path for p in record_problems(rec, rubric, None, check_blinding=True, blinding_labels=["Halcyon"])] == [
        "blinding_guess.label"]
