"""The fast path of strict JSON reading (documents without surrogate escapes skip the escape scan) keeps
every verdict of the full check. Added with the benchmarks (docs/PERFORMANCE.md)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wmcdp_desktop.core.errors import DocumentError
from wmcdp_desktop.core.strict_json import parse_json_text


@pytest.mark.parametrize(
    "text",
    [
        '"\\uD800"',  # upper-case lone high escape
        '{"a": ["x", "\\uDC00"]}',  # upper-case lone low escape, nested
        '"\\ud800 "',
        '{"k\\ud800": 1}',  # in a key
    ],
)
def test_lone_surrogate_escapes_still_rejected(text: str) -> None:
    with pytest.raises(DocumentError, match="surrogate"):
        parse_json_text(text, "doc.json")


def test_raw_surrogate_character_in_text_is_rejected_with_its_path() -> None:
    # A str handed in directly (not decoded from UTF-8) can hold a raw surrogate without any escape.
    with pytest.raises(DocumentError) as info:
        parse_json_text('{"turns": ["ok", "a\ud800b"]}', "doc.json")
    assert info.value.problems[0].path == "turns[1]"


def test_valid_pairs_in_both_cases_are_accepted() -> None:
    assert parse_json_text('["\\ud83d\\ude00", "\\uD83D\\uDE00"]', "doc.json") == ["\U0001f600", "\U0001f600"]


@settings(max_examples=100, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
    max_leaves=12,
))
def test_documents_without_surrogates_read_as_json_loads(value: object) -> None:
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False)):
        if any(0xD800 <= ord(c) <= 0xDFFF for c in text) or "\\ud" in text or "\\uD" in text:
            continue
        assert parse_json_text(text, "doc.json") == json.loads(text)


def test_bytes_cannot_smuggle_a_raw_surrogate() -> None:
    from wmcdp_desktop.core.strict_json import parse_json_bytes

    with pytest.raises(DocumentError, match="UTF-8"):
        parse_json_bytes(b'"\xed\xa0\x80"', "doc.json")  # a UTF-8-encoded surrogate


@pytest.mark.parametrize("text", ["", " \n\t ", "\u3000"])
def test_blank_text_is_reported_as_empty(text: str) -> None:
    with pytest.raises(DocumentError, match="empty"):
        parse_json_text(text, "doc.json")


def _depth_ok_reference(text: str, max_depth: int) -> bool:
    """The original character-by-character depth check."""
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > max_depth:
                return False
        elif ch in "]}":
            depth -= 1
    return True


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('[]{}"\\ a\n')), max_size=300), st.integers(1, 6))
def test_depth_check_agrees_with_the_character_loop(text: str, extra: int) -> None:
    from wmcdp_desktop.core import strict_json

    # Enough brackets to leave the fast path: wrap in `extra` levels and pad with shallow pairs.
    doc = "[" * extra + text + "]" * extra + "[]" * (strict_json.MAX_DEPTH + 1)
    assert strict_json._depth_ok(doc) == _depth_ok_reference(doc, strict_json.MAX_DEPTH)


def test_many_shallow_objects_and_brackets_inside_strings_are_fine() -> None:
    from wmcdp_desktop.core.strict_json import MAX_DEPTH

    turns = [{"role": "parent", "text": "[" * (MAX_DEPTH + 5) + '\\" {'} for _ in range(200)]
    assert parse_json_text(json.dumps({"turns": turns}), "doc.json")["turns"][0] == turns[0]
    with pytest.raises(DocumentError, match="nested more than"):
        parse_json_text("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "doc.json")


@pytest.mark.parametrize(
    ("text", "key"),
    [('{"a": 1, "b": 2, "a": 3}', "a"), ('{"x": {"b": 1, "c": 2, "c": 3, "b": 4}}', "c"), ('[{"k": 1, "k": 1}]', "k")],
)
def test_the_first_repeated_key_is_named(text: str, key: str) -> None:
    with pytest.raises(DocumentError, match=f"key '{key}' appears more than once"):
        parse_json_text(text, "doc.json")
