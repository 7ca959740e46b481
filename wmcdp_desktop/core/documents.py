"""Reading documents: strict JSON, then the pydantic model, with every problem named by file and path."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from wmcdp_desktop.core.counts import count
from wmcdp_desktop.core.errors import (
    MAX_PROBLEMS_PER_DOCUMENT,
    DocumentError,
    Problem,
    json_path,
    more_problems,
)
from wmcdp_desktop.core.files import MAX_DOCUMENT_BYTES, FileTooLargeError, NotRegularFileError, read_regular
from wmcdp_desktop.core.ids import IDENTIFIER_PATTERN, id_problem
from wmcdp_desktop.core.models.base import NULL, NULL_MESSAGE
from wmcdp_desktop.core.models.bundle_manifest import BUNDLE_PATH_PATTERN
from wmcdp_desktop.core.models.common import (
    DATETIME_PATTERN,
    NON_BLANK_PATTERN,
    SEMVER_PATTERN,
    SHA256_PATTERN,
)
from wmcdp_desktop.core.models.rubric import FAILURE_MODE_ID_PATTERN
from wmcdp_desktop.core.strict_json import jsonl_line, parse_json_bytes, parse_jsonl_bytes

if TYPE_CHECKING:
    from wmcdp_desktop.core.models.task_record import TaskRecord

M = TypeVar("M", bound=BaseModel)

_PATTERN_NAMES = {
    SEMVER_PATTERN: "a version like 1.0.0",
    IDENTIFIER_PATTERN: "an id of 1-128 letters, digits and . _ - starting with a letter or digit",
    DATETIME_PATTERN: "a date and time with offset, like 2026-11-29T10:00:00Z",
    SHA256_PATTERN: "64 lower-case hex digits (a SHA-256)",
    FAILURE_MODE_ID_PATTERN: "a failure mode id like WM-FM-REASSURANCE",
    NON_BLANK_PATTERN: "text that is not blank",
    BUNDLE_PATH_PATTERN: "a path rubric.json or tasks/<task id>.json",
}

_TYPE_WORDS = {
    "string_type": "text",
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "bool_type": "true or false",
    "float_type": "a number",
    "list_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
}

_BOUND_WORDS = {
    "greater_than_equal": ("at least", "ge"),
    "greater_than": ("greater than", "gt"),
    "less_than_equal": ("at most", "le"),
    "less_than": ("less than", "lt"),
}


def describe_json_value(value: Any) -> str:
    """Short, safe description of a JSON value for an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _message(err: dict[str, Any]) -> str:
    kind = err["type"]
    value = err.get("input")
    ctx = err.get("ctx") or {}
    if value is NULL:
        return NULL_MESSAGE
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return "unknown field (not part of this format; check the spelling)"
    if kind == "literal_error":
        return f"{describe_json_value(value)} is not one of {ctx.get('expected', '')}"
    if kind == "string_pattern_mismatch" and ctx.get("pattern") == NON_BLANK_PATTERN:
        return "must not be blank"
    if kind == "string_pattern_mismatch" and ctx.get("pattern") == IDENTIFIER_PATTERN and isinstance(value, str):
        return f"{describe_json_value(value)} is not a valid id: {id_problem(value)}"
    if kind == "string_pattern_mismatch":
        wanted = _PATTERN_NAMES.get(ctx.get("pattern", ""), f"text matching {ctx.get('pattern')}")
        return f"{describe_json_value(value)} is not {wanted}"
    if kind in _TYPE_WORDS:
        return f"must be {_TYPE_WORDS[kind]}, not {describe_json_value(value)}"
    if kind in _BOUND_WORDS:
        words, key = _BOUND_WORDS[kind]
        bound = ctx.get(key)
        if isinstance(bound, float) and bound.is_integer():
            bound = int(bound)
        return f"must be {words} {bound}, not {describe_json_value(value)}"
    if kind in ("too_short", "too_long"):
        bound = ctx.get("min_length") if kind == "too_short" else ctx.get("max_length")
        words = "at least" if kind == "too_short" else "at most"
        return f"must have {words} {count(bound, 'item') if isinstance(bound, int) else bound}, has {ctx.get('actual_length')}"
    if kind == "string_too_short":
        return "must not be empty"
    if kind in ("value_error", "assertion_error"):
        return str(err["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
    msg = str(err["msg"])
    return msg[:1].lower() + msg[1:]


def problems_from_validation_error(exc: ValidationError, source: str, prefix: str = "") -> list[Problem]:
    """Turn a pydantic error into one plain line per problem, each with a JSON path; at most
    :data:`~wmcdp_desktop.core.errors.MAX_PROBLEMS_PER_DOCUMENT`, then one line counting the rest."""
    problems: list[Problem] = []
    for err in exc.errors(include_url=False)[:MAX_PROBLEMS_PER_DOCUMENT]:
        loc = list(err["loc"])
        message = _message(dict(err))
        if loc and loc[-1] == "[key]":
            loc = loc[:-1]
            message = f"key {message}" if loc else message
        path = json_path(loc)
        if prefix:
            path = f"{prefix}.{path}" if path and not path.startswith("[") else prefix + path
        problems.append(Problem(source, path, message))
    more = exc.error_count() - len(problems)
    if more > 0:
        problems.append(more_problems(source, more))
    return problems


# A JSON string (unterminated: to the end), or a run of text outside strings.
_JSON_PIECE_BYTES = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?|[^"]+', re.DOTALL)
_JSON_PIECE_TEXT = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[^"]+', re.DOTALL)


def json_values_at_most(data: bytes | str, limit: int) -> bool:
    """Whether a JSON text holds at most ``limit`` values that cost memory once parsed: objects, arrays and
    the items after a comma (``{``, ``[`` and ``,`` outside strings), counted without parsing it.

    Parsing builds a Python object per value (``{}`` takes 3 bytes of JSON and 64 of memory), so a reader
    checks a budget that fits the document before parsing it. Quick: a text no longer than the budget
    passes as it is, a longer one is counted whole (three counts); only a text over the budget is counted again outside its strings, piece by piece, stopping as soon as
    the budget is passed (no copy of the text).
    """
    if isinstance(data, bytes):
        return _marks_at_most(data, limit, (b"{", b"[", b","), _JSON_PIECE_BYTES, b'"')
    return _marks_at_most(data, limit, ("{", "[", ","), _JSON_PIECE_TEXT, '"')


def _marks_at_most(data: Any, limit: int, marks: tuple[Any, ...], pieces: re.Pattern[Any], quote: Any) -> bool:
    if len(data) <= limit or sum(data.count(mark) for mark in marks) <= limit:
        return True
    found = 0
    for piece in pieces.finditer(data):
        start, end = piece.span()
        if data[start : start + 1] != quote:
            found += sum(data.count(mark, start, end) for mark in marks)
            if found > limit:
                return False
    return True


def validate_obj(model: type[M], obj: Any, source: str) -> M:
    """Validate an already-parsed JSON value against ``model``; raise :class:`DocumentError`."""
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        raise DocumentError(problems_from_validation_error(exc, source)) from None


def with_fields(document: M, source: str, **changes: Any) -> M:
    """A copy of the valid ``document`` with the fields in ``changes`` set, each value checked by its own
    field's rules (None leaves an optional field out); the other fields are not checked again. Raises
    :class:`DocumentError` naming ``source`` and the field."""
    # pydantic checks a value for one field by assigning it; the copy assigned to is only a probe: on an
    # assignment, the models' ``_no_null`` sees (and changes) the probe's other fields too.
    probe = document.model_copy()
    checked = {}
    try:
        for name, value in changes.items():
            document.__pydantic_validator__.validate_assignment(probe, name, value)
            checked[name] = getattr(probe, name)
    except ValidationError as exc:
        raise DocumentError(problems_from_validation_error(exc, source)) from None
    return document.model_copy(update=checked)


def load_bytes(model: type[M], data: bytes, source: str) -> M:
    """Strictly parse ``data`` as JSON and validate it as ``model``."""
    return validate_obj(model, parse_json_bytes(data, source), source)


def validate_record_obj(obj: Any, source: str) -> TaskRecord:
    """A parsed record file as the record of its kind (a rating, or a "cannot rate"); raise :class:`DocumentError`."""
    from wmcdp_desktop.core.models.task_record import (
        record_model,  # on use: not needed for the app's first paint
    )

    return validate_obj(record_model(obj), obj, source)


def load_record_bytes(data: bytes, source: str) -> TaskRecord:
    """Strictly parse a record file's bytes and validate it as the record of its kind."""
    return validate_record_obj(parse_json_bytes(data, source), source)


def read_file_bytes(path: str | os.PathLike[str], source: str | None = None,
                    max_bytes: int = MAX_DOCUMENT_BYTES) -> bytes:
    """Read a regular file of at most ``max_bytes``, turning OS errors into a plain :class:`DocumentError`.

    A FIFO, a device or a folder is refused without waiting on it (:mod:`wmcdp_desktop.core.files`)."""
    name = source or os.fspath(path)
    try:
        return read_regular(path, max_bytes)
    except FileNotFoundError:
        raise DocumentError.single(name, "file not found") from None
    except NotRegularFileError as exc:
        if exc.is_folder:
            raise DocumentError.single(name, "is a folder, not a file") from None
        raise DocumentError.single(name, f"{exc.strerror}; give the file itself") from None
    except IsADirectoryError:
        raise DocumentError.single(name, "is a folder, not a file") from None
    except FileTooLargeError as exc:
        raise DocumentError.single(name, f"{exc.strerror}; not a WM-CDP document") from None
    except OSError as exc:
        raise DocumentError.single(name, f"cannot be read ({exc.strerror or exc})") from None


def load_file(model: type[M], path: Path, source: str | None = None) -> M:
    """Read, strictly parse and validate a document file."""
    name = source or str(path)
    return load_bytes(model, read_file_bytes(path, name), name)


def load_jsonl(model: type[M], data: bytes, source: str) -> list[M]:
    """Validate every line of a JSON Lines file; the bad lines are reported together (at most
    :data:`~wmcdp_desktop.core.errors.MAX_PROBLEMS_PER_DOCUMENT` problems, then how many more)."""
    out: list[M] = []
    problems: list[Problem] = []
    more = 0
    for number, obj in parse_jsonl_bytes(data, source):
        try:
            out.append(validate_obj(model, obj, jsonl_line(source, number)))
        except DocumentError as exc:
            room = MAX_PROBLEMS_PER_DOCUMENT - len(problems)
            problems.extend(exc.problems[:room])
            more += len(exc.problems[room:])
    if more:
        problems.append(more_problems(source, more))
    if problems:
        raise DocumentError(problems)
    return out
