"""Strict JSON reading, used for every document the project reads.

Rejected, with an error naming the file (and the place where possible):
a byte-order mark, invalid UTF-8, lone UTF-16 surrogates, duplicate object keys, ``NaN`` /
``Infinity`` / ``-Infinity``, numbers too large to represent, nesting deeper than ``MAX_DEPTH``,
and anything that is not JSON. Shape and types are checked afterwards by the pydantic models
(:mod:`wmcdp_desktop.core.documents`).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from wmcdp_desktop.core.errors import MAX_PROBLEMS_PER_DOCUMENT, DocumentError, Problem, more_problems

MAX_DEPTH = 64
"""Deepest nesting of arrays/objects accepted; real documents are under 10 levels deep."""

# A \uXXXX escape for a surrogate that is not part of a valid high+low pair. The lookbehind makes
# sure the backslash itself is not escaped (an even number of backslashes precedes it).
_SURROGATE_ESCAPE = re.compile(
    r"(?<!\\)(?:\\\\)*\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<![\\]u[dD][89abAB][0-9a-fA-F]{2})(?<!\\)(?:\\\\)*\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # dict() in C, then a look for the repeated key only when there is one (5x faster than a loop that
    # checks every key; every object of every document passes through here).
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed (JSON has no NaN or Infinity)")


def _parse_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text[:40]} is too large")
    return value


# One decoder for every document: ``json.loads(text, object_pairs_hook=...)`` builds a new decoder and
# scanner on every call (``json.loads`` is exactly ``JSONDecoder(**kw).decode(text)``), which cost about
# 4 microseconds per line of a JSON Lines file (benchmarks/).
_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_hook, parse_constant=_reject_constant, parse_float=_parse_float)


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col


_PLAIN_SYNTAX = {
    "Expecting ',' delimiter": "a comma is missing between two values, or a text value is not closed with a double quote",
    "Expecting ':' delimiter": "a colon (:) is missing after a key",
    "Extra data": "there is more after the end of the JSON value (one document per file; a stray bracket or a "
    "second object?)",
    "Unterminated string starting at": "a text value starts here but has no closing double quote",
    "Invalid control character at": "a line break or tab inside a text value must be written as \\n or \\t",
    "Invalid \\escape": "a backslash in a text value that is not a valid escape (write \\\\ for a backslash)",
    "Invalid \\uXXXX escape": "a \\u escape in a text value needs four hexadecimal digits",
}


def _syntax_message(exc: json.JSONDecodeError) -> str:
    """``is not valid JSON at line L column C: <what is wrong, in plain words>``.

    The most common hand-editing mistake, a trailing comma (``[1, 2,]``), is named as such, at the comma.
    """
    text, pos = exc.doc, exc.pos
    if exc.msg in ("Expecting value", "Expecting property name enclosed in double quotes"):
        before = len(text[:pos].rstrip()) - 1
        if before >= 0 and text[before] == "," and text[pos : pos + 1] in ("]", "}"):
            line, col = _line_col(text, before)
            return (
                f"is not valid JSON at line {line} column {col}: a comma with nothing after it before "
                f"'{text[pos]}' (a trailing comma); remove the comma"
            )
    if exc.msg.startswith("Expecting") and not text[pos:].strip():
        plain = "the text ends before the JSON is complete (a bracket or brace not closed?)"
    elif exc.msg == "Expecting value":
        plain = "a value was expected here (text goes in double quotes; true, false and null in lower case)"
    elif exc.msg == "Expecting property name enclosed in double quotes":
        plain = 'a key was expected here, written in double quotes ("key": value)'
    else:
        plain = _PLAIN_SYNTAX.get(exc.msg, exc.msg)
    return f"is not valid JSON at line {exc.lineno} column {exc.colno}: {plain}"


def _too_deep(value: Any) -> bool:
    """Whether arrays and objects nest more than :data:`MAX_DEPTH` levels in the parsed ``value`` (looked at
    level by level, so no deeper than that)."""
    level = [value] if isinstance(value, dict | list) else []
    for _ in range(MAX_DEPTH):
        below = []
        for container in level:
            for item in container.values() if isinstance(container, dict) else container:
                if isinstance(item, dict | list):
                    below.append(item)
        if not below:
            return False
        level = below
    return True


_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(value: Any, path: str = "") -> tuple[str, str] | None:
    """``(json_path, character)`` of the first string (key or value) holding a lone surrogate.

    Backstop for the escape scan above: json combines valid pairs into one character, so any
    surrogate left in a parsed string is a lone one (e.g. after a literal backslash: ``"\\\\ud800\\udc00"``).
    """
    if isinstance(value, str):
        match = _SURROGATE.search(value)
        return (path, match.group(0)) if match else None
    if isinstance(value, dict):
        for key, item in value.items():
            sub = f"{path}.{key}" if path else key
            match = _SURROGATE.search(key)
            if match:
                return (sub, match.group(0))
            found = _lone_surrogate(item, sub)
            if found:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = _lone_surrogate(item, f"{path}[{i}]")
            if found:
                return found
    return None


def decode_text(data: bytes, source: str) -> str:
    """Decode document bytes as strict UTF-8 without a byte-order mark."""
    if data.startswith(b"\xef\xbb\xbf"):
        raise DocumentError.single(source, "starts with a byte-order mark (BOM); save it as UTF-8 without BOM")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise DocumentError.single(
            source,
            f"is not valid UTF-8 (bad byte 0x{data[exc.start]:02x} at line {line}, byte {col} of the line, "
            f"byte offset {exc.start}); save it as UTF-8 (it may have been saved as Windows-1252/ANSI or Latin-1)",
        ) from None


def parse_json_text(text: str, source: str, *, from_utf8: bool = False) -> Any:
    """Parse JSON text strictly; raise :class:`DocumentError` naming ``source`` on any problem.

    ``from_utf8``: the text was decoded from strict UTF-8 (:func:`decode_text`), so it cannot hold a raw
    surrogate character and that scan is skipped.
    """
    if text.startswith("\ufeff"):
        raise DocumentError.single(source, "starts with a byte-order mark (BOM); save it as UTF-8 without BOM")
    # Only a \uD800-\uDFFF escape can make a lone surrogate: the substring test (C speed) spares almost
    # every document the escape scan, which costs about a microsecond per character (benchmarks/).
    escapes = "\\ud" in text or "\\uD" in text
    match = _SURROGATE_ESCAPE.search(text) if escapes else None
    if match:
        line, col = _line_col(text, match.start())
        raise DocumentError.single(
            source, f"line {line} column {col}: lone surrogate escape {match.group(0)[-6:]} is not valid text"
        )
    if not text or text.isspace():
        raise DocumentError.single(source, "is empty (a JSON document was expected)")
    try:
        value = _DECODER.decode(text)
    except _DuplicateKey as exc:
        raise DocumentError.single(source, f"key {exc.key!r} appears more than once in the same object") from None
    except json.JSONDecodeError as exc:
        raise DocumentError.single(source, _syntax_message(exc)) from None
    except RecursionError:  # the parser's own limit (about a thousand levels), far beyond MAX_DEPTH
        raise DocumentError.single(source, f"is nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:  # NaN/Infinity, huge numbers, int digit limit
        raise DocumentError.single(source, f"is not valid JSON: {exc}") from None
    # A text with at most MAX_DEPTH brackets cannot nest deeper (C-speed counts spare most documents the walk).
    if text.count("[") + text.count("{") > MAX_DEPTH and _too_deep(value):
        raise DocumentError.single(source, f"is nested more than {MAX_DEPTH} levels deep")
    # Parsed strings can hold a surrogate only from such an escape or a raw surrogate in ``text``.
    raw = not from_utf8 and _SURROGATE.search(text) is not None
    lone = _lone_surrogate(value) if escapes or raw else None
    if lone is not None:
        path, char = lone
        raise DocumentError.single(
            source, f"lone surrogate \\u{ord(char):04x} is not valid text", path=path
        )
    return value


def parse_json_bytes(data: bytes, source: str) -> Any:
    """Decode (strict UTF-8, no BOM) and parse strictly. See :func:`parse_json_text`."""
    return parse_json_text(decode_text(data, source), source, from_utf8=True)


def jsonl_line(source: str, number: int) -> str:
    """How a line of a JSON Lines file is named in a message: ``responses/a.jsonl line 7``."""
    return f"{source} line {number}"


_ON_LINE_ONE = re.compile(r"^(?:is )?(not valid JSON at )?line 1 column ")


def _on_its_line(problem: Problem) -> Problem:
    """A problem of one JSON Lines line said of that line: ``not valid JSON at column 21`` (the line's own
    "line 1" would be the file's line 1 to a reader)."""
    message = _ON_LINE_ONE.sub(lambda m: f"{m.group(1) or ''}column ", problem.message)
    message = re.sub(r"^is (not valid JSON|nested|empty)", r"\1", message)
    return Problem(problem.file, problem.path, message)


def parse_jsonl_line(line: str, source: str, number: int) -> Any:
    """Parse line ``number`` of the JSON Lines file ``source``; a problem is said of that line
    (:func:`jsonl_line`: ``a.jsonl line 7: not valid JSON at column 21: ...``)."""
    try:
        return parse_json_text(line, jsonl_line(source, number), from_utf8=True)
    except DocumentError as exc:
        raise DocumentError([_on_its_line(p) for p in exc.problems]) from None


def parse_jsonl_bytes(data: bytes, source: str) -> list[tuple[int, Any]]:
    """Parse JSON Lines: one JSON value per non-blank line. Returns ``(line_number, value)`` pairs.

    Every bad line is reported (as ``source line N``, :func:`jsonl_line`: ``a.jsonl line 7: not valid JSON
    at column 21: ...``), not only the first (up to :data:`~wmcdp_desktop.core.errors.MAX_PROBLEMS_PER_DOCUMENT`,
    then how many more).
    """
    text = decode_text(data, source)
    problems: list[Problem] = []
    more = 0
    out: list[tuple[int, Any]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, parse_jsonl_line(line, source, number)))
        except DocumentError as exc:
            if len(problems) < MAX_PROBLEMS_PER_DOCUMENT:
                problems.extend(exc.problems)
            else:
                more += len(exc.problems)
    if more:
        problems.append(more_problems(source, more))
    if problems:
        raise DocumentError(problems)
    return out


def dumps_canonical(obj: Any) -> str:
    """The project's one way of writing JSON: UTF-8, sorted keys, 2-space indent, trailing newline.

    Deterministic, so the same document always gives the same bytes (and sha256). NaN and infinities
    raise ``ValueError`` (JSON has none).
    """
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=2, allow_nan=False) + "\n"
