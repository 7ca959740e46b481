"""Explicit nulls are refused on every field with the same message and path after the per-object check
replaced the per-field validator (docs/PERFORMANCE.md)."""

from __future__ import annotations

from typing import Any

import pytest

from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.models import RatingRecord
from wmcdp_desktop.core.models.base import NULL_MESSAGE


def _problems(doc: dict[str, Any]) -> dict[str, str]:
    from wmcdp_desktop.core.documents import validate_obj

    with pytest.raises(DocumentError) as info:
        validate_obj(RatingRecord, doc, "r.json")
    return {p.path: p.message for p in info.value.problems}


def test_nulls_on_required_optional_score_and_nested_fields(sample_docs: Any) -> None:
    doc = sample_docs("RatingRecord")
    doc["rater_id"] = None  # required text
    doc["model_source"] = None  # optional text
    doc["scoring"]["overall_clinical_judgment_score"] = None  # score (plain validator)
    doc["envelope"]["revision"] = None  # nested integer
    doc["clinician_notes"]["confidence_rating"] = None  # nested optional integer
    assert _problems(doc) == {
        "rater_id": NULL_MESSAGE,
        "model_source": NULL_MESSAGE,
        "scoring.overall_clinical_judgment_score": NULL_MESSAGE,
        "envelope.revision": NULL_MESSAGE,
        "clinician_notes.confidence_rating": NULL_MESSAGE,
    }


def test_null_inside_a_list_is_a_type_error_and_valid_documents_pass(sample_docs: Any) -> None:
    doc = sample_docs("RatingRecord")
    RatingRecord.model_validate(doc)
    doc["scenario_type_ids"] = ["A", None]
    found = _problems(doc)
    assert list(found) == ["scenario_type_ids[1]"] and "null" in found["scenario_type_ids[1]"]
