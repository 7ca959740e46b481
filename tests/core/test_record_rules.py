"""A rating record checked against its rubric and task (core/record_rules.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from wmcdp_desktop.core.documents import load_file
from wmcdp_desktop.core.errors import Problem
from wmcdp_desktop.core.models import RatingRecord, Rubric, Task
from wmcdp_desktop.core.models.rubric import DIMENSION_FIELDS
from wmcdp_desktop.core.record_rules import RubricRules, record_problems
from wmcdp_desktop.core.resources import default_rubric_path

Docs = Callable[[str], dict[str, Any]]
NA_FIELD = DIMENSION_FIELDS["WM-RUB-005"]  # the sample rubric allows N/A only there
OTHER_FIELD = DIMENSION_FIELDS["WM-RUB-001"]


@pytest.fixture
def rubric(sample_docs: Docs) -> Rubric:
    return Rubric.model_validate(sample_docs("Rubric"))


@pytest.fixture
def task(sample_docs: Docs) -> Task:
    return Task.model_validate(sample_docs("Task"))


def check(record: dict[str, Any] | RatingRecord, rubric: Rubric, task: Task | None) -> list[Problem]:
    parsed = record if isinstance(record, RatingRecord) else RatingRecord.model_validate(record)
    problems = record_problems(parsed, rubric, task, source="records/T-0001.r1.json")
    # The rubric's lookups made once beforehand (as `wmcdp report` does) give the same problems, in order.
    rules = RubricRules(rubric)
    assert rules.problems(parsed, task, "records/T-0001.r1.json") == problems
    assert record_problems(parsed, rubric, task, "records/T-0001.r1.json", rules=rules) == problems
    return problems


def paths(problems: list[Problem]) -> list[str]:
    return [p.path for p in problems]


def test_valid_record_has_no_problems(sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    assert check(sample_docs("RatingRecord"), rubric, task) == []
    assert check(sample_docs("RatingRecord"), rubric, None) == []


@pytest.mark.parametrize("score", [0, 6, 100])  # -1 and 101 are refused by the model itself (0-100)
def test_score_outside_scale(score: int, sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    record = sample_docs("RatingRecord")
    record["scoring"][OTHER_FIELD] = score
    assert check(record, rubric, task) == [
        Problem("records/T-0001.r1.json", f"scoring.{OTHER_FIELD}",
                f"Emotional attunement and validation: {score} is outside the scale 1-5")
    ]


@pytest.mark.parametrize("score", [1, 5])
def test_scale_ends_are_inside(score: int, sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    record = sample_docs("RatingRecord")
    record["scoring"] = dict.fromkeys(record["scoring"], score)
    assert check(record, rubric, task) == []


def test_scale_comes_from_the_rubric(sample_docs: Docs, task: Task) -> None:
    doc = sample_docs("Rubric")
    doc["dimensions"][0]["scale"] = {"min": 0, "max": 3, "anchors": [{"level": n, "text": f"{n}"} for n in range(4)]}
    rubric = Rubric.model_validate(doc)
    record = sample_docs("RatingRecord")
    record["scoring"][OTHER_FIELD] = 0
    assert check(record, rubric, task) == []
    record["scoring"][OTHER_FIELD] = 4
    assert paths(check(record, rubric, task)) == [f"scoring.{OTHER_FIELD}"]


def test_na_only_where_allowed(sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    record = sample_docs("RatingRecord")
    record["scoring"][NA_FIELD] = "N/A"
    assert check(record, rubric, task) == []
    record["scoring"][OTHER_FIELD] = "N/A"
    problems = check(record, rubric, task)
    assert paths(problems) == [f"scoring.{OTHER_FIELD}"]
    assert "N/A is not allowed for this dimension" in problems[0].message


def test_every_score_is_checked(sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    record = sample_docs("RatingRecord")
    record["scoring"] = dict.fromkeys(record["scoring"], 9)
    assert paths(check(record, rubric, task)) == [f"scoring.{field}" for field in DIMENSION_FIELDS.values()]


def test_every_catalogue_failure_mode_needs_a_severity(sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    record = sample_docs("RatingRecord")
    del record["failure_mode_annotations"]["WM-FM-SHAMING"]
    del record["failure_mode_annotations"]["WM-FM-MISSED-RISK"]
    problems = check(record, rubric, task)
    assert paths(problems) == ["failure_mode_annotations.WM-FM-SHAMING", "failure_mode_annotations.WM-FM-MISSED-RISK"]
    assert all("every failure mode needs a severity" in p.message for p in problems)
    record["failure_mode_annotations"] = {}
    assert len(check(record, rubric, task)) == 3


@pytest.mark.parametrize("severity", ["none", "minor", "moderate", "major", "critical"])
def test_every_severity_is_accepted(severity: str, sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    record = sample_docs("RatingRecord")
    record["failure_mode_annotations"] = dict.fromkeys(record["failure_mode_annotations"], severity)
    assert check(record, rubric, task) == []


@pytest.mark.parametrize(
    "field", ["failure_mode_annotations", "failure_mode_evidence_notes", "failure_mode_evidence_spans"]
)
def test_unknown_failure_mode(field: str, sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    record = sample_docs("RatingRecord")
    value: Any = {
        "failure_mode_annotations": "minor",
        "failure_mode_evidence_notes": "note",
        "failure_mode_evidence_spans": [{"source": "candidate_response", "start": 0, "end": 2}],
    }[field]
    record[field]["WM-FM-NOT-IN-CATALOGUE"] = value
    assert check(record, rubric, task) == [
        Problem("records/T-0001.r1.json", f"{field}.WM-FM-NOT-IN-CATALOGUE", "is not a failure mode of this rubric")
    ]


def test_blank_rationale(sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    record = RatingRecord.model_validate(sample_docs("RatingRecord"))
    for blank in ("", "   ", "\t\n ", "\u00a0\u3000"):
        notes = record.clinician_notes.model_copy(update={"brief_rationale": blank})
        bad = record.model_copy(update={"clinician_notes": notes})  # built without validation, as a UI might
        assert check(bad, rubric, task) == [
            Problem("records/T-0001.r1.json", "clinician_notes.brief_rationale", "a brief rationale is required")
        ]


@pytest.mark.parametrize("blank", ["   ", "\t\n", "\u00a0", "\u2003\u3000"])
def test_blank_rationale_is_already_refused_by_the_model(blank: str, sample_docs: Docs) -> None:
    record = sample_docs("RatingRecord")
    record["clinician_notes"]["brief_rationale"] = blank
    with pytest.raises(ValidationError, match="brief_rationale"):
        RatingRecord.model_validate(record)


@pytest.mark.parametrize(("confidence", "ok"), [(1, True), (5, True), (0, False), (6, False), (100, False)])
def test_confidence_inside_its_scale(
    confidence: int, ok: bool, sample_docs: Docs, rubric: Rubric, task: Task
) -> None:
    record = sample_docs("RatingRecord")
    record["clinician_notes"]["confidence_rating"] = confidence
    problems = check(record, rubric, task)
    if ok:
        assert problems == []
    else:
        assert problems == [
            Problem("records/T-0001.r1.json", "clinician_notes.confidence_rating",
                    f"{confidence} is outside the confidence scale 1-5")
        ]


def test_confidence_may_be_absent(sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    record = sample_docs("RatingRecord")
    del record["clinician_notes"]["confidence_rating"]
    assert check(record, rubric, task) == []


def test_negative_time(sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    record = RatingRecord.model_validate(sample_docs("RatingRecord"))
    bad = record.model_copy(update={"time_spent_scoring_seconds": -1})
    assert paths(check(bad, rubric, task)) == ["time_spent_scoring_seconds"]
    zero = record.model_copy(update={"time_spent_scoring_seconds": 0})
    assert check(zero, rubric, task) == []


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (["envelope", "task_id"], "T-9999"),
        (["benchmark_item_id"], "ocd-08"),
        (["clinical_domain_id"], "WM-DOM-GAD"),
        (["candidate_response_id"], "cr-other"),
    ],
)
def test_ids_must_match_the_task(path: list[str], value: str, sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    record = sample_docs("RatingRecord")
    target = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    problems = check(record, rubric, task)
    assert paths(problems) == [".".join(path)]
    assert f"{value!r} does not match the task" in problems[0].message
    assert check(record, rubric, None) == []  # without a task only the rubric rules apply


def test_scenario_types_must_match_the_task(sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    record = sample_docs("RatingRecord")
    record["scenario_type_ids"] = ["WM-SCN-OTHER"]
    assert paths(check(record, rubric, task)) == ["scenario_type_ids"]


@pytest.mark.parametrize("change", ["extra space", "dropped", "edited"])
def test_response_text_must_match(change: str, sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    record = sample_docs("RatingRecord")
    text = record["candidate_response_text"]
    record["candidate_response_text"] = {
        "extra space": text + " ", "dropped": text[:-1], "edited": text.replace("Sam", "Sal")}[change]
    record.pop("failure_mode_evidence_spans")  # the span quote would not match either
    assert check(record, rubric, task) == [
        Problem("records/T-0001.r1.json", "candidate_response_text", "does not match the task's response text")
    ]


def _with_span(sample_docs: Docs, **span: Any) -> dict[str, Any]:
    record = sample_docs("RatingRecord")
    record["failure_mode_evidence_spans"]["WM-FM-REASSURANCE"].append({"source": "candidate_response", **span})
    return record


def test_span_inside_the_response(sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    length = len(sample_docs("Task")["candidate_response_text"])
    ok = _with_span(sample_docs, start=length - 3, end=length)
    assert check(ok, rubric, task) == []
    bad = _with_span(sample_docs, start=length - 3, end=length + 1)
    assert check(bad, rubric, task) == [
        Problem("records/T-0001.r1.json", "failure_mode_evidence_spans.WM-FM-REASSURANCE[1]",
                f"span end {length + 1} is past the end of the response")
    ]


def test_span_quote_must_match_the_offsets(sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    text = sample_docs("Task")["candidate_response_text"]
    start = text.index("exhausting")
    good = _with_span(sample_docs, start=start, end=start + 10, quote="exhausting")
    assert check(good, rubric, task) == []
    shifted = _with_span(sample_docs, start=start + 1, end=start + 11, quote="exhausting")
    assert check(shifted, rubric, task) == [
        Problem("records/T-0001.r1.json", "failure_mode_evidence_spans.WM-FM-REASSURANCE[1]",
                "quote does not match the response text at these offsets")
    ]


def test_span_offsets_count_code_points(sample_docs: Docs, rubric: Rubric) -> None:
    """Offsets are Unicode code points: an emoji (two UTF-16 units) counts as one."""
    text = "Well done 😀 you tried"
    task_doc = sample_docs("Task")
    task_doc["candidate_response_text"] = text
    record = sample_docs("RatingRecord")
    record["candidate_response_text"] = text
    start = 12  # "you" comes after "Well done " (10) + emoji (1) + space (1)
    record["failure_mode_evidence_spans"] = {
        "WM-FM-REASSURANCE": [{"source": "candidate_response", "start": start, "end": start + 3, "quote": "you"}]}
    assert check(record, rubric, Task.model_validate(task_doc)) == []


def test_span_must_point_into_the_response(sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    record = sample_docs("RatingRecord")
    record["failure_mode_evidence_spans"]["WM-FM-REASSURANCE"] = [
        {"source": "scenario", "turnIndex": 0, "start": 0, "end": 2}]
    assert check(record, rubric, task) == [
        Problem("records/T-0001.r1.json", "failure_mode_evidence_spans.WM-FM-REASSURANCE[0]",
                "evidence spans must point into the candidate response")
    ]


def test_all_problems_together(sample_docs: Docs, rubric: Rubric, task: Task) -> None:
    record = sample_docs("RatingRecord")
    record["scoring"][OTHER_FIELD] = 7
    record["scoring"][DIMENSION_FIELDS["WM-RUB-008"]] = "N/A"
    del record["failure_mode_annotations"]["WM-FM-SHAMING"]
    record["failure_mode_evidence_notes"]["WM-FM-X"] = "?"
    record["clinician_notes"]["confidence_rating"] = 9
    record["benchmark_item_id"] = "other"
    assert paths(check(record, rubric, task)) == [
        f"scoring.{OTHER_FIELD}",
        f"scoring.{DIMENSION_FIELDS['WM-RUB-008']}",
        "failure_mode_annotations.WM-FM-SHAMING",
        "failure_mode_evidence_notes.WM-FM-X",
        "clinician_notes.confidence_rating",
        "benchmark_item_id",
    ]


def test_calibration_task_is_rated_like_any_other(sample_docs: Docs, rubric: Rubric) -> None:
    task = Task.model_validate(sample_docs("CalibrationTask"))
    record = sample_docs("RatingRecord")
    record["envelope"]["task_id"] = task.task_id
    assert check(record, rubric, task) == []


def test_with_the_shipped_default_rubric(sample_docs: Docs, task: Task) -> None:
    rubric = load_file(Rubric, default_rubric_path())
    record = sample_docs("RatingRecord")
    record["failure_mode_annotations"] = {fm.id: "none" for fm in rubric.failure_modes}
    record.pop("failure_mode_evidence_notes")
    record.pop("failure_mode_evidence_spans")
    assert check(record, rubric, task) == []
    # The catalogue is the rubric's: leaving one mode out is a problem.
    first = rubric.failure_modes[0].id
    del record["failure_mode_annotations"][first]
    assert paths(check(record, rubric, task)) == [f"failure_mode_annotations.{first}"]
    for dim in rubric.dimensions:
        record["scoring"][dim.field] = dim.scale.max + 1
    assert len(check(record, rubric, task)) == 9
