"""Strict JSON reading (core/strict_json.py): everything non-standard or ambiguous is rejected, naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wmcdp_desktop.core.documents import load_file
from wmcdp_desktop.core.errors import DocumentError, Problem
from wmcdp_desktop.core.models import CandidateResponse
from wmcdp_desktop.core.strict_json import (
    MAX_DEPTH,
    dumps_canonical,
    parse_json_bytes,
    parse_json_text,
    parse_jsonl_bytes,
)

SOURCE = "items/ocd-07.json"


def _error(data: bytes | str, source: str = SOURCE) -> DocumentError:
    with pytest.raises(DocumentError) as info:
        if isinstance(data, bytes):
            parse_json_bytes(data, source)
        else:
            parse_json_text(data, source)
    err = info.value
    assert err.problems, "a DocumentError must carry at least one problem"
    for problem in err.problems:
        assert problem.file == source
    assert str(err).startswith(source + ": ")
    return err


def _message(data: bytes | str) -> str:
    err = _error(data)
    assert len(err.problems) == 1
    return err.problems[0].message


# --- accepted --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1, "b": [true, false, null], "c": "x"}', {"a": 1, "b": [True, False, None], "c": "x"}),
        ('"caf\\u00e9 \\ud83d\\ude00"', "café 😀"),  # a valid surrogate pair is one character
        ('"\\\\ud800"', "\\ud800"),  # an escaped backslash, then plain text: not a surrogate
        ('"\\\\\\ud83d\\ude00"', "\\😀"),  # escaped backslash, then a valid pair
        ("1e308", 1e308),
        ("-0.5e-3", -0.0005),
        ("3.0", 3.0),
        ("  \n [1] \n\t", [1]),
        ('{"a": {"a": 1}}', {"a": {"a": 1}}),  # the same key in different objects is fine
        ('["' + "[{" * 80 + '"]', ["[{" * 80]),  # brackets inside strings do not count as nesting
    ],
)
def test_accepts_standard_json(text: str, value: object) -> None:
    assert parse_json_text(text, SOURCE) == value
    assert parse_json_bytes(text.encode("utf-8"), SOURCE) == value


def test_accepts_utf8_text() -> None:
    assert parse_json_bytes('{"t": "Grüße — 你好"}'.encode(), SOURCE) == {"t": "Grüße — 你好"}


def test_nesting_up_to_the_limit_is_fine() -> None:
    text = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    value = parse_json_text(text, SOURCE)
    for _ in range(MAX_DEPTH - 1):
        value = value[0]
    assert value == []


# --- rejected --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',
        '{"outer": {"x": 1, "y": 2, "x": 3}}',
        '[{"ok": 1}, {"k": {"deep": [{"d": 1, "d": 1}]}}]',
    ],
    ids=["top", "nested", "deep-in-list"],
)
def test_duplicate_keys(text: str) -> None:
    message = _message(text)
    assert "appears more than once" in message
    assert any(repr(k) in message for k in ("a", "x", "d"))


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity(constant: str) -> None:
    message = _message(f'{{"weight": {constant}}}')
    assert "NaN or Infinity" in message


@pytest.mark.parametrize("number", ["1e999", "-1e999", "1.5E+400"])
def test_numbers_too_large_for_a_float(number: str) -> None:
    assert "too large" in _message(f"[{number}]")


def test_5000_digit_integer() -> None:
    assert "not valid JSON" in _message("[" + "9" * 5000 + "]")


def test_invalid_utf8() -> None:
    message = _message(b'{"text": "caf\xe9"}')
    assert "not valid UTF-8" in message
    assert "0xe9" in message
    message = _message(b'{\n  "text": "a \x93quote\x94"\n}')  # typed in a Windows editor, saved as ANSI
    assert "bad byte 0x93 at line 2, byte 14 of the line" in message and "save it as UTF-8" in message


@pytest.mark.parametrize("data", [b'\xef\xbb\xbf{"a": 1}', '\ufeff{"a": 1}'], ids=["bytes", "text"])
def test_byte_order_mark(data: bytes | str) -> None:
    assert "byte-order mark" in _message(data)


@pytest.mark.parametrize(
    "text",
    [
        '"\\ud800"',  # lone high
        '"\\udc00"',  # lone low
        '"\\udc00\\ud800"',  # reversed pair
        '"a\\ud83d"',  # high at the end
        '"\\ud83dx\\ude00"',  # pair split by a character
        '{"\\udfff": 1}',  # in a key
        '"\\\\\\ud800"',  # escaped backslash, then a real lone escape
        '"\\ud800\\\\udc00"',  # high, then an escaped backslash: the "udc00" is plain text
        '"\\\\ud800\\udc00"',  # "ud800" is plain text after an escaped backslash: the low one is lone
    ],
)
def test_lone_surrogates(text: str) -> None:
    assert "surrogate" in _message(text)


def test_lone_surrogate_reports_the_json_path() -> None:
    err = _error('{"turns": [{"text": "ok"}, {"text": "\\\\ud800\\udc00"}]}')
    assert err.problems[0].path == "turns[1].text"


def test_deep_nesting() -> None:
    assert f"more than {MAX_DEPTH} levels" in _message("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    # Very deep input is refused quickly, without a RecursionError.
    assert f"more than {MAX_DEPTH} levels" in _message('{"a":' * 100_000 + "1" + "}" * 100_000)


@pytest.mark.parametrize("text", ['{"a": 1} x', '{"a": 1}{"b": 2}', "[1]]", "1 2"])
def test_trailing_garbage(text: str) -> None:
    assert "not valid JSON" in _message(text)


@pytest.mark.parametrize("data", [b"", b"   \n", ""], ids=["empty-bytes", "blank", "empty-text"])
def test_empty_file(data: bytes | str) -> None:
    assert "empty" in _message(data)


@pytest.mark.parametrize(
    "text",
    ["{'a': 1}", '{"a": 1,}', "[1, 2,]", '{"a": 01}', "// comment\n{}", '{"a": "tab\there"}', "undefined"],
)
def test_not_json(text: str) -> None:
    assert "not valid JSON" in _message(text)


def test_errors_name_the_file_and_position() -> None:
    message = _message('{\n  "a": 1,\n  "b": }')
    assert "line 3" in message


def test_load_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(b'{"a": NaN}')
    with pytest.raises(DocumentError) as info:
        load_file(CandidateResponse, path, source="responses/broken.json")
    assert str(info.value).startswith("responses/broken.json: ")
    missing = tmp_path / "missing.json"
    with pytest.raises(DocumentError) as info:
        load_file(CandidateResponse, missing)
    assert info.value.problems == [Problem(str(missing), "", "file not found")]


# --- JSON Lines ------------------------------------------------------------------------------------


def test_jsonl_reads_every_line_with_its_number() -> None:
    data = b'{"a": 1}\r\n\n  \n[2]\n"three"'
    assert parse_jsonl_bytes(data, "responses/r.jsonl") == [(1, {"a": 1}), (4, [2]), (5, "three")]


def test_jsonl_reports_every_bad_line() -> None:
    data = b'{"a": 1}\n{bad\n{"b": NaN}\n[1]\n{"c": 1, "c": 2}\n"\\udc00"\n'
    with pytest.raises(DocumentError) as info:
        parse_jsonl_bytes(data, "responses/r.jsonl")
    files = [p.file for p in info.value.problems]
    assert files == ["responses/r.jsonl line 2", "responses/r.jsonl line 3", "responses/r.jsonl line 5", "responses/r.jsonl line 6"]
    lines = str(info.value).splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("responses/r.jsonl line 2: not valid JSON at column")


def test_jsonl_with_bom_or_bad_utf8_is_one_problem() -> None:
    for data in (b'\xef\xbb\xbf{"a": 1}\n', b'{"a": 1}\n{"b": "\xff"}\n'):
        with pytest.raises(DocumentError) as info:
            parse_jsonl_bytes(data, "r.jsonl")
        assert len(info.value.problems) == 1
        assert info.value.problems[0].file == "r.jsonl"


# --- canonical writing -----------------------------------------------------------------------------


def test_dumps_canonical_is_deterministic_and_round_trips() -> None:
    obj = {"b": [1, 2.5, "é"], "a": {"z": None, "y": True}}
    text = dumps_canonical(obj)
    assert text == dumps_canonical(json.loads(text))
    assert text.endswith("}\n")
    assert text.index('"a"') < text.index('"b"')
    assert "é" in text  # not \u00e9
    assert parse_json_text(text, "x") == obj


def test_dumps_canonical_refuses_nan() -> None:
    with pytest.raises(ValueError):
        dumps_canonical({"x": float("nan")})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{\n  "a": [1, 2,\n  ]\n}', "line 2 column 13: a comma with nothing after it before ']' (a trailing comma)"),
        ('{"a": 1,\n}', "line 1 column 8: a comma with nothing after it before '}' (a trailing comma)"),
        ('{"a": 1 "b": 2}', "line 1 column 9: a comma is missing between two values"),
        ("{'a': 1}", 'a key was expected here, written in double quotes'),
        ('{"a": True}', "true, false and null in lower case"),
        ('{"a": [1, 2', "the text ends before the JSON is complete"),
        ('{"a" 1}', "a colon (:) is missing after a key"),
        ('{"a": 1}}', "there is more after the end of the JSON value"),
        ('{"a": "x', "has no closing double quote"),
    ],
)
def test_syntax_errors_in_plain_words(text: str, expected: str) -> None:
    message = _message(text)
    assert message.startswith("is not valid JSON at line ") and expected in message, message
    assert "Expecting" not in message


# --- surrogates, blank text, brackets inside strings ------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ['"\\uD800"', '{"a": ["x", "\\uDC00"]}', '"\\ud800 "', '{"k\\ud800": 1}'],
    ids=["upper-case-high", "upper-case-low-nested", "high-then-space", "in-a-key"],
)
def test_lone_surrogate_escapes_in_any_case_are_refused(text: str) -> None:
    assert "surrogate" in _message(text)


def test_a_raw_surrogate_character_in_text_is_refused_with_its_path() -> None:
    # A str handed in directly (not decoded from UTF-8) can hold a raw surrogate without any escape.
    err = _error('{"turns": ["ok", "a\ud800b"]}')
    assert err.problems[0].path == "turns[1]"


def test_valid_surrogate_pairs_in_both_cases_are_accepted() -> None:
    assert parse_json_text('["\\ud83d\\ude00", "\\uD83D\\uDE00"]', SOURCE) == ["\U0001f600", "\U0001f600"]


def test_utf8_encoded_surrogate_bytes_are_refused_as_bad_utf8() -> None:
    assert "UTF-8" in _message(b'"\xed\xa0\x80"')


@pytest.mark.parametrize("text", ["\u3000", "\u2028\n"])
def test_unicode_blank_text_is_reported_as_empty(text: str) -> None:
    assert "empty" in _message(text)


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    turns = [{"role": "parent", "text": "[" * (MAX_DEPTH + 5) + '\\" {'} for _ in range(200)]
    assert parse_json_text(json.dumps({"turns": turns}), SOURCE)["turns"][0] == turns[0]


@pytest.mark.parametrize(
    ("text", "key"),
    [('{"a": 1, "b": 2, "a": 3}', "a"), ('{"x": {"b": 1, "c": 2, "c": 3, "b": 4}}', "c"), ('[{"k": 1, "k": 1}]', "k")],
)
def test_the_first_repeated_key_is_named(text: str, key: str) -> None:
    assert f"key '{key}' appears more than once" in _message(text)


@settings(max_examples=100, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.integers(-(10**30), 10**30) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
    max_leaves=12,
))
def test_valid_json_without_surrogates_reads_as_the_standard_library_reads_it(value: object) -> None:
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False), dumps_canonical(value)):
        if any(0xD800 <= ord(c) <= 0xDFFF for c in text) or "\\ud" in text or "\\uD" in text:
            continue
        assert parse_json_text(text, SOURCE) == json.loads(text)


def test_dumps_canonical_is_the_standard_librarys_indented_sorted_json() -> None:
    obj = {"b": [1, 2.5e-7, 1e22, "\u2028\x00\ud800"], "a": {"z": None, "y": True, "x": 10**30}}
    assert dumps_canonical(obj) == json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=2) + "\n"


# --- at most 100 problems per file ------------------------------------------------------------------


def test_a_json_lines_file_lists_at_most_100_problems_then_how_many_more() -> None:
    data = b"".join(b"{bad\n" for _ in range(250)) + b'{"ok": 1}\n'
    with pytest.raises(DocumentError) as info:
        parse_jsonl_bytes(data, "r.jsonl")
    problems = info.value.problems
    assert len(problems) == 101
    assert [p.file for p in problems[:2]] == ["r.jsonl line 1", "r.jsonl line 2"]
    assert problems[-1] == Problem("r.jsonl", "", "and 150 more problems in this file, not listed")


def test_a_bad_json_lines_line_is_named_by_its_line_and_column() -> None:
    lines = [json.dumps({"response_id": f"r{i}"}) for i in range(6)] + ['{"response_id": "r7", oops}']
    with pytest.raises(DocumentError) as info:
        parse_jsonl_bytes("\n".join(lines).encode(), "model-a.jsonl")
    (problem,) = info.value.problems
    assert str(problem).startswith("model-a.jsonl line 7: not valid JSON at column 23: ")
    assert "line 1" not in str(problem)
    for bad, said in (('{"a": NaN}', "model-a.jsonl line 1: not valid JSON: "),
                      ('"\\udc00"', "model-a.jsonl line 1: column 2: lone surrogate"),
                      ("[" * 200 + "]" * 200, "model-a.jsonl line 1: nested more than")):
        with pytest.raises(DocumentError) as info:
            parse_jsonl_bytes(bad.encode(), "model-a.jsonl")
        assert str(info.value.problems[0]).startswith(said), str(info.value.problems[0])
