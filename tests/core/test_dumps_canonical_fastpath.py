"""`dumps_canonical` writes through pydantic-core for plain documents: the bytes must be exactly those of
``json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=2, allow_nan=False) + "\\n"``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wmcdp_desktop.core import strict_json
from wmcdp_desktop.core.strict_json import dumps_canonical


def reference(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=2, allow_nan=False) + "\n"


# Any text (control characters, quotes, backslashes, U+2028, emoji, lone surrogates included).
texts = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=12)
scalars = st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | texts | st.floats(
    allow_nan=False, allow_infinity=False
)
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None)
@given(documents)
def test_same_text_as_json_dumps(obj: Any) -> None:
    assert dumps_canonical(obj) == reference(obj)


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                    max_leaves=25))
def test_plain_documents_take_the_fast_path(obj: Any) -> None:
    strict_json._sorted_plain(obj)  # does not raise: these are written by pydantic-core


@settings(max_examples=500, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False) | st.floats(min_value=-1e7, max_value=1e7))
def test_floats_without_an_exponent_take_the_fast_path_with_the_same_text(x: float) -> None:
    if "e" not in repr(x):
        assert strict_json._sorted_plain([x]) == [x]
    assert dumps_canonical({"active_seconds": x}) == reference({"active_seconds": x})


@pytest.mark.parametrize(
    "obj",
    [1.5, -0.0, 0.0001, 1e-05, 12.5, 1e15, 9999999999999998.0, {"a": 1e16}, 2**63, -(2**63) - 1, "\ud800", {1: "x"}, {"a": (1, 2)}, {"b": {}, "a": []}],
)
def test_edge_values_match(obj: Any) -> None:
    assert dumps_canonical(obj) == reference(obj)


def test_unwritable_values_fail_like_json_dumps() -> None:
    for bad in (float("nan"), {"x": float("inf")}, {"s": {1, 2}}, {(1, 2): 3}):
        with pytest.raises((ValueError, TypeError)) as fast:
            dumps_canonical(bad)
        with pytest.raises(type(fast.value)):
            reference(bad)
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular"):
        dumps_canonical(loop)


def test_real_documents_are_byte_identical(repo_root: Path) -> None:
    files = sorted((repo_root / "resources").rglob("*.json"))
    assert len(files) > 20
    for path in files:
        obj = json.loads(path.read_text(encoding="utf-8"))
        assert dumps_canonical(obj) == reference(obj), path
