"""Hostile JSON against every loader, explicit cases and Hypothesis fuzzing.

Promise: every document the project reads either loads into its model or fails with the project's own
error (a :class:`WmcdpError`; for documents a :class:`DocumentError` whose every problem names the
file). No other exception, no hang, no partial object.
"""

from __future__ import annotations

import functools
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from wmcdp_desktop.core.documents import load_bytes
from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.strict_json import parse_json_bytes, parse_jsonl_bytes

from .hostile_json_cases import HOSTILE_JSON
from .samples import all_models, valid_samples
from .tally import Tally

pytestmark = pytest.mark.reliability

SOURCE = "hostile-doc.json"
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None, derandomize=True)



def _assert_own_error(exc: DocumentError, source: str = SOURCE) -> None:
    assert exc.problems, "DocumentError without problems"
    for problem in exc.problems:
        assert problem.file.startswith(source.split(":")[0]), problem
        assert problem.message
    assert source.split(":")[0] in str(exc)


@pytest.mark.parametrize("case", list(HOSTILE_JSON))
def test_hostile_json_against_every_model(case: str, tally: Tally) -> None:
    data = HOSTILE_JSON[case]
    for model in all_models():
        with tally.hostile(f"json: {case}"):
            with pytest.raises(DocumentError) as info:
                load_bytes(model, data, SOURCE)
            _assert_own_error(info.value)
    with tally.hostile(f"json lines: {case}"):
        try:
            parse_jsonl_bytes(data + b"\n" + data, "hostile.jsonl")
        except DocumentError as exc:
            _assert_own_error(exc, "hostile.jsonl")


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = obj
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    return obj


WRONG_TYPES: list[Any] = ["text", "", 0, -1, 2**63, 1.5, True, None, [], {}, ["x"], {"k": "v"}, "N/A", "1e999"]


@pytest.mark.parametrize("name", sorted(valid_samples()))
def test_extra_and_mistyped_fields(name: str, tally: Tally) -> None:
    """Every field of a valid document replaced by each wrong type; an extra field at every object."""
    model, data = valid_samples()[name]
    base = json.loads(data)
    rng = random.Random(name)
    paths = [p for p in _paths(base) if p]
    rng.shuffle(paths)
    for path in paths[:25]:
        for wrong in rng.sample(WRONG_TYPES, 3):
            with tally.hostile(f"mistyped field ({name})"):
                doc = _set(json.loads(data), path, wrong)
                _load_or_own_error(model, json.dumps(doc).encode())
    # Every object except free-form ``metadata`` maps (open by design in the benchmark-item schema).
    objects = [p for p in _paths(base) if isinstance(_get(base, p), dict) and "metadata" not in p]
    for path in objects[:20]:
        with tally.hostile(f"extra field ({name})"):
            doc = json.loads(data)
            _get(doc, path)["zz_unexpected_field"] = 1
            with pytest.raises(DocumentError) as info:
                load_bytes(model, json.dumps(doc).encode(), SOURCE)
            _assert_own_error(info.value)
            assert "zz_unexpected_field" in str(info.value)


def _get(obj: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        obj = obj[part]
    return obj


def _load_or_own_error(model: type[BaseModel], data: bytes) -> None:
    try:
        load_bytes(model, data, SOURCE)
    except DocumentError as exc:
        _assert_own_error(exc)


# ----- Hypothesis fuzzing ---------------------------------------------------------------------------
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
JSON_TOKENS = [*'{}[]",:0123456789.eE+-\\ \n', "true", "false", "null", "NaN", "Infinity", "\\u0041", "\\ud800",
               "\\udc00", "\\ud83d\\ude00", "\ud800", "\ufeff", "\u202e", '"a"', '"a":1', "1e999", "9" * 30]
JSONISH = st.lists(st.sampled_from(JSON_TOKENS), max_size=40).map("".join)


@FUZZ
@given(data=st.binary(max_size=300))
def test_fuzz_strict_json_bytes(data: bytes) -> None:
    from .tally import TALLY

    try:
        parse_json_bytes(data, SOURCE)
    except DocumentError as exc:
        _assert_own_error(exc)
    TALLY.fuzz("strict_json (random bytes)")


@FUZZ
@given(text=JSONISH)
def test_fuzz_strict_json_text(text: str) -> None:
    from .tally import TALLY

    try:
        parse_json_bytes(text.encode("utf-8", "surrogatepass"), SOURCE)
    except DocumentError as exc:
        _assert_own_error(exc)
    TALLY.fuzz("strict_json (JSON-like text)")


SAMPLE_NAMES = sorted(valid_samples())


@functools.cache
def _sample_paths(name: str) -> list[tuple[Any, ...]]:
    return _paths(json.loads(valid_samples()[name][1]))


@FUZZ
@given(name=st.sampled_from(SAMPLE_NAMES), data=st.data())
def test_fuzz_every_model_with_mutated_documents(name: str, data: st.DataObject) -> None:
    from .tally import TALLY

    model, raw = valid_samples()[name]
    doc = json.loads(raw)
    path = data.draw(st.sampled_from(_sample_paths(name)))
    action = data.draw(st.sampled_from(["replace", "add", "delete"]))
    target = _get(doc, path[:-1]) if path else None
    if action == "replace" or not path:
        doc = _set(doc, path, data.draw(JSON_VALUES))
    elif action == "add" and isinstance(target, dict):
        target[data.draw(st.text(max_size=10))] = data.draw(JSON_VALUES)
    elif action == "delete" and isinstance(target, dict | list):
        del target[path[-1]]
    _load_or_own_error(model, json.dumps(doc).encode())
    TALLY.fuzz(f"documents.load_bytes ({name}, mutated JSON)")


@FUZZ
@given(name=st.sampled_from(SAMPLE_NAMES), data=st.data())
def test_fuzz_every_model_with_mutated_bytes(name: str, data: st.DataObject) -> None:
    from .tally import TALLY

    model, raw = valid_samples()[name]
    buf = bytearray(raw)
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, max(0, len(buf) - 1)))
        op = data.draw(st.sampled_from(["flip", "insert", "delete", "truncate"]))
        if op == "flip" and buf:
            buf[pos] ^= data.draw(st.integers(1, 255))
        elif op == "insert":
            buf[pos:pos] = data.draw(st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del buf[pos : pos + data.draw(st.integers(1, 8))]
        else:
            del buf[pos:]
    _load_or_own_error(model, bytes(buf))
    TALLY.fuzz("documents.load_bytes (all models, mutated bytes)")


@FUZZ
@given(data=st.binary(max_size=200))
def test_fuzz_models_with_random_bytes(data: bytes) -> None:
    from .tally import TALLY

    for model in all_models():
        _load_or_own_error(model, data)
    TALLY.fuzz("documents.load_bytes (all models, random bytes)", len(all_models()))
