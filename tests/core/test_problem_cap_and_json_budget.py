"""The shared bounds on hostile documents: at most 100 problems kept per file, and a JSON text's values
counted before it is parsed."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from wmcdp_desktop.core.documents import json_values_at_most, load_bytes
from wmcdp_desktop.core.errors import MAX_PROBLEMS_PER_DOCUMENT, DocumentError, Problem, capped
from wmcdp_desktop.core.models.results_manifest import ResultsManifest


def test_capped_keeps_the_first_problems_of_each_file_and_counts_the_rest_in_place() -> None:
    problems = [Problem("a", f"x[{i}]", "bad") for i in range(5)] + [Problem("b", "", "bad")] + [Problem("a", "y", "late")]
    out = capped(problems, limit=2)
    assert out == [
        Problem("a", "x[0]", "bad"),
        Problem("a", "x[1]", "bad"),
        Problem("a", "", "and 4 more problems in this file, not listed"),
        Problem("b", "", "bad"),
    ]
    assert capped(problems, limit=7) == problems
    assert capped(out, limit=2) == out  # capping twice changes nothing
    assert capped([*out, Problem("a", "z", "later")], limit=2)[2] == Problem("a", "", "and 5 more problems in this file, not listed")


def test_a_document_with_thousands_of_errors_reports_a_hundred_and_a_count() -> None:
    # 1,000 unknown fields (a list would stop at its first bad item: 1,000 empty entries make 6 problems)
    with_errors = json.dumps({f"unknown_{i:04d}": 1 for i in range(1_000)}).encode()
    required = sum(1 for field in ResultsManifest.model_fields.values() if field.is_required())
    try:
        load_bytes(ResultsManifest, with_errors, "m.json")
    except DocumentError as exc:
        problems = exc.problems
    assert len(problems) == MAX_PROBLEMS_PER_DOCUMENT + 1
    assert problems[-1] == Problem("m.json", "", f"and {required + 1_000 - MAX_PROBLEMS_PER_DOCUMENT:,} more problems in this "
                                                 "file, not listed")


def _values(value: Any) -> int:
    """What json_values_at_most counts, from the parsed value: each object and array, and each item
    after the first of one."""
    if isinstance(value, dict):
        return 1 + max(len(value) - 1, 0) + sum(_values(v) for v in value.values())
    if isinstance(value, list):
        return 1 + max(len(value) - 1, 0) + sum(_values(v) for v in value)
    return 0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet=st.sampled_from('ab{}[],:"\\\n é')),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(alphabet='k{[,"\\'), inner, max_size=4),
    max_leaves=30,
)


@given(json_values, st.integers(min_value=0, max_value=40))
def test_the_count_is_that_of_the_parsed_value(value: Any, limit: int) -> None:
    text = json.dumps(value, ensure_ascii=False)
    expected = _values(value) <= limit
    assert json_values_at_most(text, limit) is expected
    assert json_values_at_most(text.encode(), limit) is expected
