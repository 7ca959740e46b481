"""The id rule (rater, task, study, bundle ids), without pydantic: the models use it (core/models/common.py)
and so does the rater app's command line before its window paints (``--rater``)."""

from __future__ import annotations

import re
from typing import NamedTuple

IDENTIFIER_PATTERN = r"^[A-Za-z0-9]([A-Za-z0-9._-]{0,126}[A-Za-z0-9_-])?$"
"""An id: 1-128 ASCII letters, digits, ``-``, ``_`` and ``.``, starting with a letter or digit and not
ending in ``.``. Ids become file and folder names (``bundles/<bundle>/<rater>/records/<task>.r1.json``,
``<study>-<rater>.wmcdp``), so nothing that means something in a path on any system is allowed: no ``:``
(a drive or an NTFS stream on Windows), no ``/`` or ``\\``, no space, no trailing dot (Windows drops it).
Windows' reserved device names are refused too (:data:`RESERVED_ID_PATTERN`; not expressible in the
pattern itself, which must work in both JSON Schema and pydantic's regex engine)."""
RESERVED_ID_PATTERN = (
    r"^([Cc][Oo][Nn]|[Pp][Rr][Nn]|[Aa][Uu][Xx]|[Nn][Uu][Ll]|[Cc][Oo][Mm][0-9]|[Ll][Pp][Tt][0-9])(\.|$)"
)
"""Windows device names (CON, PRN, AUX, NUL, COM0-9, LPT0-9), in any case, alone or with an extension
(``CON.txt`` opens the console too). Superscript digits (``COM¹``) are outside the id alphabet anyway."""
MAX_ID_LENGTH = 128
ID_ALPHABET_WORDS = "letters A-Z and a-z, digits, '-', '_' and '.'"


_ID_RE = re.compile(IDENTIFIER_PATTERN)
_RESERVED_RE = re.compile(RESERVED_ID_PATTERN)
_SPACES = re.compile(r"\s+")


class IdIssue(NamedTuple):
    """Why a text is not a valid id, as data (so the app can word it in the rater's language).

    ``kind``: ``empty``, ``too_long``, ``reserved``, ``space``, ``colon``, ``slash``, ``windows``
    (one of ``*?"<>|``), ``invisible``, ``character`` (any other character outside the alphabet),
    ``start`` (does not start with a letter or digit) or ``trailing_dot``."""

    kind: str
    char: str = ""
    """The character at fault (``space``, ``colon``, ``slash``, ``windows``, ``invisible``, ``character``,
    ``start``), or the reserved name (``reserved``)."""
    length: int = 0
    suggestion: str = ""
    """For ``space``: the id with the spaces written as ``_``, when that is a valid id."""


def id_issue(value: str) -> IdIssue | None:
    """Why ``value`` is not a valid id (:class:`IdIssue`), or None when it is. The rule of
    :data:`IDENTIFIER_PATTERN` and :data:`RESERVED_ID_PATTERN`."""
    if _ID_RE.fullmatch(value) and not _RESERVED_RE.match(value):
        return None
    if not value:
        return IdIssue("empty")
    if len(value) > MAX_ID_LENGTH:
        return IdIssue("too_long", length=len(value))
    if _RESERVED_RE.match(value):
        return IdIssue("reserved", value.split(".", 1)[0])
    bad = next((ch for ch in value if not (ch.isascii() and (ch.isalnum() or ch in "._-"))), None)
    if bad is not None:
        if bad.isspace():
            suggestion = _SPACES.sub("_", value.strip())
            ok = _ID_RE.fullmatch(suggestion) and not _RESERVED_RE.match(suggestion)
            return IdIssue("space", bad, suggestion=suggestion if ok else "")
        if bad == ":":
            return IdIssue("colon", bad)
        if bad in "/\\":
            return IdIssue("slash", bad)
        if bad in '*?"<>|':
            return IdIssue("windows", bad)
        if not bad.isprintable() or bad in "\u200b\u200c\u200d\u2060\ufeff":
            return IdIssue("invisible", bad)
        return IdIssue("character", bad)
    if not value[0].isalnum():
        return IdIssue("start", value[0])
    return IdIssue("trailing_dot")


def id_problem(value: str, what: str = "id") -> str | None:
    """Why ``value`` is not a valid id, in plain English naming ``what`` ("rater id", "task id"...); None
    when it is valid (:func:`id_issue` worded)."""
    issue = id_issue(value)
    if issue is None:
        return None
    a = "an" if what[:1].lower() in "aeiou" else "a"
    rule = f"{a} {what} may hold only {ID_ALPHABET_WORDS}, start with a letter or digit, and have at most {MAX_ID_LENGTH} characters"
    kind, char = issue.kind, issue.char
    if kind == "empty":
        return f"{a} {what} cannot be empty"
    if kind == "too_long":
        return f"{rule}; this one has {issue.length} characters"
    if kind == "reserved":
        return (
            f"{char!r} is a reserved device name on Windows (CON, PRN, AUX, NUL, COM0-9 and "
            f"LPT0-9, also with an extension such as CON.txt) and cannot name a file; choose another {what}"
        )
    if kind == "trailing_dot":
        return f"{a} {what} cannot end in '.' (Windows drops a trailing dot from file names)"
    if kind == "start":
        return f"{rule}: it starts with {char!r}"
    if kind == "space":
        named = {" ": "a space", "\t": "a tab", "\n": "a line break", "\r": "a line break"}
        shown = named.get(char, f"a space character (U+{ord(char):04X})")
    elif kind == "colon":
        shown = "':' (on Windows it names a drive or a hidden stream of a file)"
    elif kind == "slash":
        shown = f"{char!r} (it separates folders in a path)"
    elif kind == "windows":
        shown = f"{char!r} (not allowed in file names on Windows)"
    elif kind == "invisible":
        shown = f"the invisible character U+{ord(char):04X}"
    else:
        shown = repr(char)
    hint = f" (for example {issue.suggestion} would do)" if issue.suggestion else ""
    return f"{rule}: it has {shown}{hint}"


def rater_id_problem(value: str) -> str | None:
    """Why ``value`` cannot be a rater id (plain words), or None. The one rule for every entry point: the
    command line, the rater dialog, the settings file, and the ids of a bundle."""
    return id_problem(value, "rater id")
