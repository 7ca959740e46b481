"""The shared definitions of ``schemas/common.schema.json`` (FORMATS.md section 3) as pydantic types."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    StringConstraints,
    WithJsonSchema,
    model_validator,
)

from wmcdp_desktop.core.ids import _RESERVED_RE, IDENTIFIER_PATTERN, RESERVED_ID_PATTERN, id_problem
from wmcdp_desktop.core.models.base import Document, unique

# Patterns use [0-9] rather than \d: ECMA-262 (JSON Schema) and Rust (pydantic) disagree on what
# \d matches beyond ASCII. Both engines treat ^...$ as whole-string anchors.
SEMVER_PATTERN = (
    r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(-(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*)?"
    r"(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$"
)
DATETIME_PATTERN = (
    r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)"
    r"(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
)
SHA256_PATTERN = r"^[0-9a-f]{64}$"
# "Contains a character that is not white space", with the white space listed explicitly: \s means
# different things in Python's re (used by the jsonschema package), Rust (pydantic) and ECMA-262.
# The list is Python's str.isspace() set plus U+FEFF (white space in ECMA-262).
NON_BLANK_PATTERN = (
    r"[^\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"
)


def parse_datetime(value: str) -> datetime:
    """A :data:`DateTime` string as an aware ``datetime`` (a leap second read as :59). ValueError when the
    date is not a real one."""
    text = value.replace("t", "T").replace("z", "Z")
    if text[16:19] == ":60":  # a leap second: datetime has no 60th second, the date is what matters
        text = text[:16] + ":59" + text[19:]
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _real_datetime(value: str) -> str:
    """Reject calendar-impossible dates such as 2026-02-30 that the pattern lets through."""
    try:
        parse_datetime(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a real date and time") from None
    return value


def _not_reserved(value: str) -> str:
    """The part of the id rule a pattern cannot say in both regex engines: no Windows device name."""
    # reserved names are 3 or 4 characters, alone or before a dot: a quick look first
    if (len(value) <= 4 or value[3] == "." or value[4] == ".") and _RESERVED_RE.match(value):
        raise ValueError(id_problem(value))
    return value


def _integral(value: Any) -> Any:
    """JSON Schema counts 3.0 as an integer; accept it as 3 so models and schemas agree."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


SemVer = Annotated[str, StringConstraints(pattern=SEMVER_PATTERN)]
"""Semantic version MAJOR.MINOR.PATCH, pre-release and build metadata allowed."""
IDENTIFIER_JSON_SCHEMA: dict[str, Any] = {
    "type": "string",
    "pattern": IDENTIFIER_PATTERN,
    "not": {"pattern": RESERVED_ID_PATTERN},
}
Identifier = Annotated[
    str,
    StringConstraints(pattern=IDENTIFIER_PATTERN),
    AfterValidator(_not_reserved),
    WithJsonSchema(IDENTIFIER_JSON_SCHEMA),
]
"""1-128 characters: letters, digits and ``._-``, starting with a letter or digit, not ending in ``.``,
and no Windows device name (:data:`IDENTIFIER_PATTERN`). Safe as a file name on every system."""
DateTime = Annotated[str, StringConstraints(pattern=DATETIME_PATTERN), AfterValidator(_real_datetime)]
"""RFC 3339 date-time with an offset, e.g. ``2026-11-29T10:00:00Z``."""
Sha256 = Annotated[str, StringConstraints(pattern=SHA256_PATTERN)]
"""Lower-case hex SHA-256 digest (64 characters)."""
Int = Annotated[int, BeforeValidator(_integral)]
"""A JSON integer (3.0 is accepted as 3, as JSON Schema does; true/false and "3" are not)."""

# Bounds on every number a document can hand to the app or a command (issue 13, item 5): a typo or a
# hostile file with a 3,000,000,000 or a 309-digit number gets a plain error naming the field, never an
# OverflowError in a Qt widget or a crash in a statistic. Each bound is far beyond any real use.
SCALE_MIN, SCALE_MAX = 0, 100
"""Every rubric scale (dimensions and confidence) lies within 0..100."""
MAX_SCALE_LEVELS = 21
MAX_FAILURE_MODES = 200
"""Most failure modes a rubric may have (issue 25: a rubric of 10,000 passed ``bundle verify`` and took the app
23 s and 1.1 GB to open); refused at ``study validate``, ``bundle build``/``verify`` and in the app."""
MAX_TURNS = 2_000
"""Most turns a scenario may have (issue 25: 200,000 turns opened in 9.6 s and 788 MB)."""
"""A scale has at most this many levels (e.g. 0-20), each with its own anchor text."""
MAX_COUNT = 10_000_000
"""Counts (tasks, files, raters, overlap...)."""
MAX_BYTES = 1 << 40
"""Sizes of files in bytes (1 TiB)."""
MAX_SECONDS = 10_000_000
"""Active seconds on one task (about 115 days)."""
MAX_TEXT_OFFSET = 100_000_000
"""Character offsets into a text (evidence spans) and indexes of conversation turns."""
MAX_REVISION = 999_999_999
"""Revision numbers (nine digits, as in ``<task>.r<revision>.json``)."""
MAX_SEED = (1 << 63) - 1
"""Randomisation seeds (a signed 64-bit integer, which every tool can hold)."""

ScaleLevel = Annotated[int, BeforeValidator(_integral), Field(ge=SCALE_MIN, le=SCALE_MAX)]
"""A point of a rubric scale: a whole number from 0 to 100."""
Count = Annotated[int, BeforeValidator(_integral), Field(ge=0, le=MAX_COUNT)]
"""A count: 0 to 10,000,000."""
ByteSize = Annotated[int, BeforeValidator(_integral), Field(ge=0, le=MAX_BYTES)]
"""A size in bytes: 0 to 2**40."""
Seconds = Annotated[int, BeforeValidator(_integral), Field(ge=0, le=MAX_SECONDS)]
"""Whole seconds: 0 to 10,000,000."""
TextOffset = Annotated[int, BeforeValidator(_integral), Field(ge=0, le=MAX_TEXT_OFFSET)]
"""A character offset or index: 0 to 100,000,000."""
Revision = Annotated[int, BeforeValidator(_integral), Field(ge=1, le=MAX_REVISION)]
"""A revision number: 1 to 999,999,999."""
Seed = Annotated[int, BeforeValidator(_integral), Field(ge=0, le=MAX_SEED)]
"""A randomisation seed: 0 to 2**63 - 1."""
NonBlankStr = Annotated[str, StringConstraints(min_length=1, pattern=NON_BLANK_PATTERN)]
"""A string with at least one non-whitespace character."""

CriterionVerdict = Literal["satisfied", "partially_satisfied", "not_satisfied", "not_applicable", "cannot_determine"]
Severity = Literal["none", "minor", "moderate", "major", "critical"]
SEVERITIES: tuple[Severity, ...] = ("none", "minor", "moderate", "major", "critical")
DecisionTarget = Literal["candidate_response", "benchmark_item"]
OperationalAction = Literal["accept", "accept_with_minor_edits", "revise", "reject", "escalate", "exclude"]


class ContractRef(Document):
    """Points at the evaluation contract (the rubric) by id and version."""

    contractId: Identifier
    """Id of the rubric/contract, e.g. ``WM-CDP-RUBRIC``."""
    contractVersion: SemVer
    """Version of the rubric/contract."""


class CaseRef(Document):
    """Points at the scenario (case) a benchmark item is built on."""

    caseId: Identifier
    """``case_id`` of the case document (a file in ``cases/`` of the study, found by the id and version inside
    it; ``<caseId>.json`` is the usual name, any name ending in ``.json`` works)."""
    caseVersion: SemVer
    """Version of the case."""
    sha256: Sha256 | None = None
    """Optional SHA-256 of the case file's bytes; when given it must match."""


class SpanRef(Document):
    """A character span (Unicode code points, end exclusive) in the candidate response or the scenario."""

    source: Literal["candidate_response", "scenario"]
    """Which text the offsets count in."""
    turnIndex: TextOffset | None = None
    """For ``scenario`` spans: index of the conversation turn."""
    start: TextOffset
    """First character of the span (0-based)."""
    end: TextOffset
    """One past the last character; must be greater than ``start`` (a model-only rule)."""
    quote: str | None = None
    """The spanned text, for a human reading the document."""

    @model_validator(mode="after")
    def _end_after_start(self) -> SpanRef:
        if self.end <= self.start:
            raise ValueError(f"end ({self.end}) must be greater than start ({self.start})")
        return self


# Shared with BenchmarkItem, and needed by Task, Study and UnblindingKey: kept here so that those (and the
# rater app) do not import and build the whole benchmark-item model (cold start, docs/PERFORMANCE.md).
Split = Literal["development", "calibration", "test", "challenge", "shadow", "held_out_project"]
SPLITS: tuple[Split, ...] = ("development", "calibration", "test", "challenge", "shadow", "held_out_project")


def _unique_list(values: list[Any]) -> list[Any]:
    return unique(values)


# Every list the models keep free of repeats says so in the generated schemas too (uniqueItems).
_UNIQUE_ITEMS = Field(json_schema_extra={"uniqueItems": True})


class AcceptableDecision(Document):
    """Operational actions that are acceptable for a target."""

    target: DecisionTarget
    """What the decision is about."""
    acceptableActions: Annotated[
        list[OperationalAction], Field(min_length=1), AfterValidator(_unique_list), _UNIQUE_ITEMS
    ]
    """Actions accepted as correct (at least one, no repeats)."""
