"""The document models: good documents pass, bad ones give one plain line per problem (file: path: message)."""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from wmcdp_desktop.core.documents import load_bytes, validate_obj
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.models import (
    BenchmarkItem,
    BundleManifest,
    CandidateResponse,
    Case,
    RatingRecord,
    ResultsManifest,
    Rubric,
    Study,
    Task,
)
from wmcdp_desktop.core.models.draft import Draft
from wmcdp_desktop.core.models.unblinding_key import UnblindingKey
from wmcdp_desktop.core.strict_json import dumps_canonical

Docs = Callable[[str], dict[str, Any]]

MODELS: dict[str, type[BaseModel]] = {
    "Rubric": Rubric,
    "Task": Task,
    "CalibrationTask": Task,
    "RatingRecord": RatingRecord,
    "BenchmarkItem": BenchmarkItem,
    "Case": Case,
    "Study": Study,
    "BundleManifest": BundleManifest,
    "ResultsManifest": ResultsManifest,
    "CandidateResponse": CandidateResponse,
    "Draft": Draft,
    "UnblindingKey": UnblindingKey,
}
NULL_MESSAGE = "null is not allowed; leave the field out instead"
UNKNOWN_MESSAGE = "unknown field (not part of this format; check the spelling)"


def problems(model: type[BaseModel], doc: Any, source: str = "doc.json") -> list[Problem]:
    with pytest.raises(DocumentError) as info:
        validate_obj(model, doc, source)
    return info.value.problems


def one(model: type[BaseModel], doc: Any, source: str = "doc.json") -> Problem:
    found = problems(model, doc, source)
    assert len(found) == 1, found
    return found[0]


# --- good documents --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(MODELS))
def test_valid_sample_is_accepted_and_round_trips(name: str, sample_docs: Docs) -> None:
    doc = sample_docs(name)
    parsed = validate_obj(MODELS[name], doc, f"{name}.json")
    assert parsed.to_json_obj() == doc  # type: ignore[attr-defined]
    # Also through bytes, as documents are read from disk.
    again = load_bytes(MODELS[name], dumps_canonical(doc).encode("utf-8"), f"{name}.json")
    assert again == parsed


def test_optional_fields_may_be_left_out(sample_docs: Docs) -> None:
    record = sample_docs("RatingRecord")
    for key in ("model_source", "rater_role_or_background", "failure_mode_evidence_notes",
                "failure_mode_evidence_spans", "time_spent_scoring_seconds"):
        record.pop(key, None)
    record["clinician_notes"] = {"brief_rationale": "ok"}
    parsed = RatingRecord.model_validate(record)
    assert parsed.model_source is None
    assert "model_source" not in parsed.to_json_obj()


def test_models_are_frozen(sample_docs: Docs) -> None:
    study = Study.model_validate(sample_docs("Study"))
    with pytest.raises(ValidationError):
        study.overlap = 1  # type: ignore[misc]


# --- the message format of the issue ---------------------------------------------------------------


def test_issue_example_message(sample_docs: Docs) -> None:
    item = sample_docs("BenchmarkItem")
    item["goldStandard"]["criterionGold"][2]["severity"] = "severe"
    with pytest.raises(DocumentError) as info:
        load_bytes(BenchmarkItem, dumps_canonical(item).encode(), "items/ocd-07.json")
    assert str(info.value) == (
        "items/ocd-07.json: goldStandard.criterionGold[2].severity: "
        "'severe' is not one of 'none', 'minor', 'moderate', 'major' or 'critical'"
    )
    assert info.value.problems == [
        Problem(
            "items/ocd-07.json",
            "goldStandard.criterionGold[2].severity",
            "'severe' is not one of 'none', 'minor', 'moderate', 'major' or 'critical'",
        )
    ]


def test_problem_formatting() -> None:
    assert str(Problem("a.json", "x[1].y", "bad")) == "a.json: x[1].y: bad"
    assert str(Problem("a.json", "", "is empty")) == "a.json: is empty"


def test_every_problem_is_reported_at_once(sample_docs: Docs) -> None:
    item = sample_docs("BenchmarkItem")
    item["split"] = "training"
    item["adjudication"]["adjudicatorCount"] = "3"
    item["leakageControl"]["colour"] = "red"
    found = problems(BenchmarkItem, item, "items/x.json")
    assert len(found) == 3
    assert [p.path for p in found] == ["split", "adjudication.adjudicatorCount", "leakageControl.colour"]
    assert all(p.file == "items/x.json" for p in found)


def test_many_problems_in_a_record(sample_docs: Docs) -> None:
    record = sample_docs("RatingRecord")
    record["scoring"]["safety_scope_boundaries_score"] = "5"
    record["clinician_notes"]["confidence_rating"] = None
    del record["rater_id"]
    record["envelope"]["revision"] = 0
    record["surprise"] = 1
    found = {p.path: p.message for p in problems(RatingRecord, record)}
    assert found == {
        "scoring.safety_scope_boundaries_score": "a score must be a whole number or the text 'N/A', not '5'",
        "clinician_notes.confidence_rating": NULL_MESSAGE,
        "rater_id": "required field is missing",
        "envelope.revision": "must be at least 1, not 0",
        "surprise": UNKNOWN_MESSAGE,
    }


# --- unknown fields, types, null -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "where", "path"),
    [
        ("BenchmarkItem", [], "Notes"),
        ("BenchmarkItem", ["goldStandard", "criterionGold", 0], "goldStandard.criterionGold[0].Notes"),
        ("BenchmarkItem", ["caseRef"], "caseRef.Notes"),
        ("RatingRecord", ["clinician_notes"], "clinician_notes.Notes"),
        ("RatingRecord", ["envelope"], "envelope.Notes"),
        ("Rubric", ["dimensions", 3, "scale"], "dimensions[3].scale.Notes"),
        ("Task", ["scenario", "turns", 0], "scenario.turns[0].Notes"),
        ("Study", ["raters", 1], "raters[1].Notes"),
        ("BundleManifest", ["files", 1], "files[1].Notes"),
        ("ResultsManifest", ["counts"], "counts.Notes"),
        ("CandidateResponse", [], "Notes"),
        ("Case", ["scenario", "context"], "scenario.context.Notes"),
    ],
)
def test_unknown_field(name: str, where: list[str | int], path: str, sample_docs: Docs) -> None:
    doc = sample_docs(name)
    target: Any = doc
    for key in where:
        target = target[key]
    target["Notes"] = "typo"
    assert one(MODELS[name], doc) == Problem("doc.json", path, UNKNOWN_MESSAGE)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (True, "must be a whole number, not true"),
        (False, "must be a whole number, not false"),
        ("3", "must be a whole number, not '3'"),
        (3.5, "must be a whole number, not 3.5"),
        ([3], "must be a whole number, not a list"),
        ({"n": 3}, "must be a whole number, not an object"),
    ],
)
def test_integer_fields_refuse_other_types(value: Any, message: str, sample_docs: Docs) -> None:
    study = sample_docs("Study")
    study["seed"] = value
    assert one(Study, study) == Problem("doc.json", "seed", message)


def test_integral_float_is_an_integer(sample_docs: Docs) -> None:
    study = sample_docs("Study")
    study["seed"] = 3.0
    study["overlap"] = 2.0
    parsed = Study.model_validate(study)
    assert parsed.seed == 3 and type(parsed.seed) is int
    assert type(parsed.overlap) is int
    record = sample_docs("RatingRecord")
    record["scoring"]["overall_clinical_judgment_score"] = 5.0
    record["clinician_notes"]["confidence_rating"] = 2.0
    record["time_spent_scoring_seconds"] = 60.0
    parsed_record = RatingRecord.model_validate(record)
    assert type(parsed_record.scoring.overall_clinical_judgment_score) is int
    assert parsed_record.to_json_obj()["clinician_notes"]["confidence_rating"] == 2
    assert type(parsed_record.time_spent_scoring_seconds) is int


@pytest.mark.parametrize(
    ("value", "accepted"),
    [(4, True), (4.0, True), ("N/A", True), (0, True), (100, True), (-3, False), (101, False), (10**308, False),
     ("n/a", False), ("NA", False), ("4", False), (True, False), (4.5, False), ([], False), ({}, False)],
)
def test_score_shape(value: Any, accepted: bool, sample_docs: Docs) -> None:
    """The model accepts a whole number from 0 to 100 (the widest scale a rubric may have) or "N/A"; the
    rubric's own scale and N/A rule are record_rules' job."""
    record = sample_docs("RatingRecord")
    record["scoring"]["evidence_informed_guidance_score"] = value
    if accepted:
        RatingRecord.model_validate(record)
    else:
        problem = one(RatingRecord, record)
        assert problem.path == "scoring.evidence_informed_guidance_score"
        assert problem.message.startswith("a score must be a whole number ")
        assert "'N/A', not " in problem.message


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["study_title"], 7, "must be text, not 7"),
        (["study_title"], "   ", "must not be blank"),
        (["study_title"], "", "must not be empty"),
        (["task_order"], "T-0001", "must be a list, not 'T-0001'"),
        (["task_order"], [], "must have at least 1 item, has 0"),
        (["files", 0, "size"], -1, "must be at least 0, not -1"),
        (["files", 0, "path"], "../../etc/passwd", "'../../etc/passwd' is not a path rubric.json or tasks/<task id>.json"),
        (["files", 0, "sha256"], "A" * 64, "is not 64 lower-case hex digits (a SHA-256)"),
        (["bundle_id"], "-bad", "'-bad' is not a valid id: an id may hold only letters A-Z and a-z, digits, '-', '_' "
         "and '.', start with a letter or digit, and have at most 128 characters: it starts with '-'"),
        (["bundle_id"], "x" * 129, "this one has 129 characters"),
        (["bundle_id"], "D:evil", "it has ':' (on Windows it names a drive or a hidden stream of a file)"),
        (["rater_id"], "Dr Smith", "it has a space (for example Dr_Smith would do)"),
        (["rater_id"], "x.", "an id cannot end in '.'"),
        (["study_id"], "con.txt", "'con' is a reserved device name on Windows"),
        (["format_version"], "1.0", "'1.0' is not a version like 1.0.0"),
        (["format_version"], "01.0.0", "is not a version like 1.0.0"),
        (["created_at"], "2026-11-01T09:00:00", "is not a date and time with offset"),
        (["created_at"], "2026-11-01 09:00:00Z", "is not a date and time with offset"),
        (["created_at"], "2026-02-30T09:00:00Z", "'2026-02-30T09:00:00Z' is not a real date and time"),
        (["created_at"], "2025-02-29T09:00:00Z", "is not a real date and time"),
        (["document_type"], "wmcdp_task", "'wmcdp_task' is not one of 'wmcdp_bundle'"),
        (["rater_id"], None, NULL_MESSAGE),
        (["rater_role_or_background"], None, NULL_MESSAGE),
        (["study_id"], None, NULL_MESSAGE),
    ],
)
def test_field_rules(path: list[str | int], value: Any, message: str, sample_docs: Docs) -> None:
    doc = sample_docs("BundleManifest")
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    problem = one(BundleManifest, doc)
    assert problem.path == ".".join(str(p) for p in path).replace(".0.", "[0].")
    assert message in problem.message


def test_leap_day_and_leap_second_pattern(sample_docs: Docs) -> None:
    doc = sample_docs("BundleManifest")
    for ok in ("2024-02-29T09:00:00Z", "2026-11-01t09:00:00.5z", "2026-11-01T09:00:00-05:30",
               "2016-12-31T23:59:60Z"):
        doc["created_at"] = ok
        BundleManifest.model_validate(doc)


def test_required_fields_are_required(sample_docs: Docs) -> None:
    record = sample_docs("RatingRecord")
    for key in ("benchmark_item_id", "scoring", "failure_mode_annotations", "clinician_notes", "envelope"):
        del record[key]
    found = problems(RatingRecord, record)
    assert {p.path for p in found} == {"benchmark_item_id", "scoring", "failure_mode_annotations",
                                       "clinician_notes", "envelope"}
    assert {p.message for p in found} == {"required field is missing"}


def test_every_scoring_field_is_required(sample_docs: Docs) -> None:
    record = sample_docs("RatingRecord")
    del record["scoring"]["overall_clinical_judgment_score"]
    del record["clinician_notes"]["brief_rationale"]
    assert {p.path for p in problems(RatingRecord, record)} == {
        "scoring.overall_clinical_judgment_score", "clinician_notes.brief_rationale"}


def test_record_field_names_and_nesting_are_the_seeds(sample_docs: Docs) -> None:
    record = sample_docs("RatingRecord")
    seed_fields = {
        "benchmark_item_id", "clinical_domain_id", "scenario_type_ids", "candidate_response_id",
        "candidate_response_text", "model_source", "rater_id", "rater_role_or_background", "scoring",
        "failure_mode_annotations", "failure_mode_evidence_notes", "clinician_notes",
        "time_spent_scoring_seconds",
    }
    extensions = {"envelope", "failure_mode_evidence_spans", "record_kind", "coordinator_flag", "blinding_guess"}
    assert seed_fields | extensions == set(RatingRecord.model_fields)
    assert set(record["scoring"]) == set(RatingRecord.model_fields["scoring"].annotation.model_fields)  # type: ignore[union-attr]
    assert set(RatingRecord.model_fields["clinician_notes"].annotation.model_fields) == {  # type: ignore[union-attr]
        "brief_rationale", "best_aspect", "main_concern", "suggested_better_clinical_move", "confidence_rating"}


def test_record_bad_values(sample_docs: Docs) -> None:
    record = sample_docs("RatingRecord")
    record["failure_mode_annotations"] = {"reassurance": "none"}
    record["failure_mode_evidence_notes"]["WM-FM-SHAMING"] = None
    record["envelope"]["record_id"] = "not-a-uuid"
    record["envelope"]["schema_id"] = "OTHER"
    record["time_spent_scoring_seconds"] = -5
    found = {p.path: p.message for p in problems(RatingRecord, record)}
    assert found == {
        "failure_mode_annotations.reassurance": "key 'reassurance' is not a failure mode id like WM-FM-REASSURANCE",
        "failure_mode_evidence_notes.WM-FM-SHAMING": "must be text, not null",
        "envelope.record_id": "'not-a-uuid' is not text matching ^[0-9a-f]{32}$",
        "envelope.schema_id": "'OTHER' is not one of 'WM-CDP-ANNOTATION-SCHEMA-001'",
        "time_spent_scoring_seconds": "must be at least 0, not -5",
    }


def test_a_list_or_map_reports_its_first_bad_item_only(sample_docs: Docs) -> None:
    # Collections stop at their first invalid item (fail_fast, models/base.py): a small hostile file with a
    # million bad items makes one problem, not a million.
    record = sample_docs("RatingRecord")
    record["failure_mode_annotations"]["WM-FM-SHAMING"] = "severe"
    record["failure_mode_annotations"]["WM-FM-ZZZ"] = "awful"
    record["scenario_type_ids"] = [1, 2, 3]
    found = {p.path: p.message for p in problems(RatingRecord, record)}
    assert found == {
        "failure_mode_annotations.WM-FM-SHAMING":
            "'severe' is not one of 'none', 'minor', 'moderate', 'major' or 'critical'",
        "scenario_type_ids[0]": "must be text, not 1",
    }


def test_every_collection_of_every_model_stops_at_its_first_bad_item() -> None:
    from wmcdp_desktop.core.models.base import COLLECTION_SCHEMAS

    def collections(schema: Any) -> list[dict[str, Any]]:
        if isinstance(schema, dict):
            found = [schema] if schema.get("type") in COLLECTION_SCHEMAS else []
            return found + [c for key, value in schema.items() if key != "metadata" for c in collections(value)]
        if isinstance(schema, list):
            return [c for value in schema for c in collections(value)]
        return []

    for name, model in MODELS.items():
        found = collections(model.__pydantic_core_schema__)
        assert all(c.get("fail_fast") is True for c in found), name
    assert collections(MODELS["RatingRecord"].__pydantic_core_schema__)  # the walk sees collections at all


# --- rules across fields ---------------------------------------------------------------------------


@pytest.mark.parametrize(("start", "end"), [(5, 5), (6, 5)])
def test_span_end_after_start(start: int, end: int, sample_docs: Docs) -> None:
    item = sample_docs("BenchmarkItem")
    item["goldStandard"]["criterionGold"][1]["negativeEvidenceSpans"][0].update(start=start, end=end)
    assert one(BenchmarkItem, item) == Problem(
        "doc.json", "goldStandard.criterionGold[1].negativeEvidenceSpans[0]",
        f"end ({end}) must be greater than start ({start})")


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (["sliceTags"], ["ocd", "ocd"]),
        (["challengeAttributes"], ["severity_edge", "severity_edge"]),
        (["adjudication", "disagreementTypes"], ["a", "a"]),
        (["goldStandard", "criterionGold", 0, "acceptableVerdicts"], ["satisfied", "satisfied"]),
        (["goldStandard", "acceptableDecisions", 0, "acceptableActions"], ["accept", "accept"]),
    ],
)
def test_unique_lists(path: list[str | int], value: list[str], sample_docs: Docs) -> None:
    item = sample_docs("BenchmarkItem")
    target: Any = item
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    problem = one(BenchmarkItem, item)
    assert "must be unique" in problem.message and repr(value[0]) in problem.message


def test_benchmark_item_numbers(sample_docs: Docs) -> None:
    item = sample_docs("BenchmarkItem")
    item["weight"] = 0
    item["adjudication"]["initialAgreementRate"] = 1.5
    item["adjudication"]["adjudicatorCount"] = 0
    found = {p.path: p.message for p in problems(BenchmarkItem, item)}
    assert found == {
        "weight": "must be greater than 0, not 0",
        "adjudication.initialAgreementRate": "must be at most 1, not 1.5",
        "adjudication.adjudicatorCount": "must be at least 1, not 0",
    }
    item = sample_docs("BenchmarkItem")
    item["weight"] = 2  # an integer is a number
    assert BenchmarkItem.model_validate(item).weight == 2


def test_study_rules(sample_docs: Docs) -> None:
    study = sample_docs("Study")
    study["overlap"] = 3
    assert one(Study, study) == Problem("doc.json", "overlap", "3 is larger than the number of raters (2)")
    study = sample_docs("Study")
    study["raters"].append({"rater_id": "R01"})
    assert one(Study, study) == Problem(
        "doc.json", "raters", "rater ids must be unique (upper and lower case count as the same); repeated: R01"
    )
    study = sample_docs("Study")
    study["raters"].append({"rater_id": "r01"})  # <study>-R01.wmcdp and <study>-r01.wmcdp are one file on Windows
    assert "repeated: R01, r01" in one(Study, study).message
    study = sample_docs("Study")
    study["rater_splits"] = ["exam"]
    assert one(Study, study).path == "rater_splits[0]"


# --- rubric binding --------------------------------------------------------------------------------


def test_rubric_dimensions_in_order(sample_docs: Docs) -> None:
    rubric = sample_docs("Rubric")
    dims = rubric["dimensions"]
    dims[0], dims[1] = dims[1], dims[0]
    problem = one(Rubric, rubric)
    assert problem.path == "dimensions"
    assert problem.message.startswith("must be WM-RUB-001, WM-RUB-002, WM-RUB-003")
    assert "got WM-RUB-002, WM-RUB-001" in problem.message


@pytest.mark.parametrize("count", [7, 9])
def test_rubric_has_exactly_eight_dimensions(count: int, sample_docs: Docs) -> None:
    rubric = sample_docs("Rubric")
    dims = rubric["dimensions"]
    rubric["dimensions"] = dims[:count] if count < 8 else [*dims, dims[-1]]
    problem = one(Rubric, rubric)
    assert problem.path == "dimensions"
    assert f"has {count}" in problem.message


def test_rubric_dimension_bound_to_its_field(sample_docs: Docs) -> None:
    rubric = sample_docs("Rubric")
    rubric["dimensions"][2]["field"] = "overall_clinical_judgment_score"
    assert one(Rubric, rubric) == Problem(
        "doc.json", "dimensions[2]",
        "WM-RUB-003 must fill scoring.anxiety_ocd_mechanism_sensitivity_score, "
        "not scoring.overall_clinical_judgment_score")
    rubric = sample_docs("Rubric")
    rubric["dimensions"][2]["field"] = "made_up_score"
    assert one(Rubric, rubric).path == "dimensions[2].field"
    rubric = sample_docs("Rubric")
    rubric["dimensions"][2]["id"] = "WM-RUB-009"
    assert one(Rubric, rubric).path == "dimensions[2].id"


@pytest.mark.parametrize(
    ("levels", "lo", "hi"),
    [([1, 2, 3, 4], 1, 5), ([1, 2, 4, 3, 5], 1, 5), ([1, 2, 3, 4, 5, 6], 1, 5), ([0, 1, 2, 3, 4], 1, 5),
     ([1, 2, 2, 4, 5], 1, 5)],
    ids=["missing", "out-of-order", "extra", "shifted", "repeated"],
)
def test_anchors_cover_every_level(levels: list[int], lo: int, hi: int, sample_docs: Docs) -> None:
    rubric = sample_docs("Rubric")
    rubric["dimensions"][4]["scale"]["anchors"] = [{"level": n, "text": f"level {n}"} for n in levels]
    problem = one(Rubric, rubric)
    assert problem.path == "dimensions[4].scale"
    assert problem.message == f"anchors must give levels {list(range(lo, hi + 1))} in order, got {levels}"


def test_scales_other_than_one_to_five(sample_docs: Docs) -> None:
    rubric = sample_docs("Rubric")
    rubric["dimensions"][0]["scale"] = {
        "min": 0, "max": 3, "anchors": [{"level": n, "text": f"level {n}"} for n in range(4)]}
    parsed = Rubric.model_validate(rubric)
    assert parsed.dimensions[0].scale.anchor_text(2) == "level 2"
    rubric["confidence_scale"] = {"min": 2, "max": 2, "anchors": [{"level": 2, "text": "x"}, {"level": 2, "text": "y"}]}
    assert one(Rubric, rubric) == Problem("doc.json", "confidence_scale", "max (2) must be greater than min (2)")


def test_rubric_failure_modes(sample_docs: Docs) -> None:
    rubric = sample_docs("Rubric")
    rubric["failure_modes"].append(dict(rubric["failure_modes"][0]))
    assert one(Rubric, rubric) == Problem(
        "doc.json", "failure_modes", "failure mode ids must be unique; repeated: WM-FM-REASSURANCE")
    rubric = sample_docs("Rubric")
    rubric["failure_modes"][1]["id"] = "FM-SHAMING"
    assert one(Rubric, rubric).path == "failure_modes[1].id"
    rubric = sample_docs("Rubric")
    del rubric["failure_modes"][0]["severity_guidance"]["critical"]
    assert one(Rubric, rubric) == Problem(
        "doc.json", "failure_modes[0].severity_guidance.critical", "required field is missing")
    rubric = sample_docs("Rubric")
    rubric["failure_modes"] = []
    assert one(Rubric, rubric).path == "failure_modes"


def test_rubric_lookups(sample_docs: Docs) -> None:
    rubric = Rubric.model_validate(sample_docs("Rubric"))
    assert rubric.dimension("WM-RUB-007").field == "safety_scope_boundaries_score"
    assert rubric.failure_mode("WM-FM-SHAMING").label == "Shaming"
    assert rubric.criterion_ids >= {"WM-RUB-001", "WM-FM-MISSED-RISK"}
    with pytest.raises(KeyError):
        rubric.dimension("WM-RUB-010")


# --- every field documented ------------------------------------------------------------------------


def _all_models(model: type[BaseModel], seen: set[type[BaseModel]]) -> Iterator[type[BaseModel]]:
    if model in seen:
        return
    seen.add(model)
    yield model
    for field in model.model_fields.values():
        stack: list[Any] = [field.annotation]
        while stack:
            tp = stack.pop()
            if isinstance(tp, type) and issubclass(tp, BaseModel):
                yield from _all_models(tp, seen)
            stack.extend(typing.get_args(tp))


def test_every_field_has_a_description() -> None:
    # The docstring under each field: it becomes the field's description in the published schemas.
    from wmcdp_desktop.coordinator.publish.schemas import field_docstrings

    seen: set[type[BaseModel]] = set()
    missing = [
        f"{model.__name__}.{name}"
        for root in set(MODELS.values())
        for model in _all_models(root, seen)
        for name in model.model_fields
        if not field_docstrings(model).get(name, "").strip()
    ]
    assert len(seen) > 20  # the walk reached the nested models
    assert missing == []


@pytest.mark.parametrize("top", [2**64, 10**9, 3_000_000_000, 10**308])
def test_absurd_scale_is_refused_without_building_it(top: int, sample_docs: Docs) -> None:
    rubric = sample_docs("Rubric")
    rubric["confidence_scale"]["max"] = top
    problem = one(Rubric, rubric)
    assert problem.path == "confidence_scale.max"
    assert problem.message.startswith("must be at most 100, not ")


def test_a_scale_starting_at_three_billion_is_refused(sample_docs: Docs) -> None:
    # Issue 13, item 5: this passed study validate, bundle build and verify, then crashed every rater's app.
    rubric = sample_docs("Rubric")
    rubric["dimensions"][0]["scale"] = {
        "min": 3_000_000_000, "max": 3_000_000_004,
        "anchors": [{"level": 3_000_000_000 + i, "text": f"level {i}"} for i in range(5)],
    }
    paths = {p.path for p in problems(Rubric, rubric)}
    assert "dimensions[0].scale.min" in paths and "dimensions[0].scale.max" in paths


@pytest.mark.parametrize(("lo", "hi", "ok"), [(0, 20, True), (0, 21, False), (80, 100, True), (1, 101, False)])
def test_scale_levels_are_bounded(lo: int, hi: int, ok: bool, sample_docs: Docs) -> None:
    rubric = sample_docs("Rubric")
    rubric["confidence_scale"] = {
        "min": lo, "max": hi, "anchors": [{"level": v, "text": f"level {v}"} for v in range(lo, hi + 1)]
    }
    if ok:
        Rubric.model_validate(rubric)
    else:
        assert problems(Rubric, rubric)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (["time_spent_scoring_seconds"], 10**308),
        (["time_spent_scoring_seconds"], 10_000_001),
        (["clinician_notes", "confidence_rating"], 3_000_000_000),
        (["envelope", "revision"], 10**9),
        (["failure_mode_evidence_spans", "WM-FM-REASSURANCE", 0, "end"], 2**31),
    ],
)
def test_every_number_in_a_record_is_bounded(path: list[str | int], value: int, sample_docs: Docs) -> None:
    record = sample_docs("RatingRecord")
    target: Any = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    problem = one(RatingRecord, record)
    assert problem.path.replace("[", ".").replace("]", "") == ".".join(map(str, path))
    assert problem.message.startswith("must be at most")


def test_submitted_before_started_is_refused(sample_docs: Docs) -> None:
    record = sample_docs("RatingRecord")
    record["envelope"]["started_at"] = "2026-11-29T10:00:00Z"
    record["envelope"]["submitted_at"] = "2026-11-29T10:07:30+01:00"  # 09:07:30 UTC
    problem = one(RatingRecord, record)
    assert problem.path == "envelope"
    assert "is before started_at" in problem.message
