"""The shared definitions of ``schemas/common.schema.json`` (FORMATS.md section 3) as pydantic types."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field, StringConstraints, model_validator

from wmcdp_desktop.core.models._base import Document, unique

# Patterns use [0-9] rather than \d: ECMA-262 (JSON Schema) and Rust (pydantic) disagree on what
# \d matches beyond ASCII. Both engines treat ^...$ as whole-string anchors.
SEMVER_PATTERN = (
    r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(-(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*)?"
    r"(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$"
)
IDENTIFIER_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"
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


def _real_datetime(value: str) -> str:
    """Reject calendar-impossible dates such as 2026-02-30 that the pattern lets through."""
    text = value.replace("t", "T").replace("z", "Z")
    if text[16:19] == ":60":  # a leap second: datetime has no 60th second, the date is what matters
        text = text[:16] + ":59" + text[19:]
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{value!r} is not a real date and time") from None
    return value


def _integral(value: Any) -> Any:
    """JSON Schema counts 3.0 as an integer; accept it as 3 so models and schemas agree."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


SemVer = Annotated[str, StringConstraints(pattern=SEMVER_PATTERN)]
"""Semantic version MAJOR.MINOR.PATCH, pre-release and build metadata allowed."""
Identifier = Annotated[str, StringConstraints(pattern=IDENTIFIER_PATTERN)]
"""1-128 characters, starts with a letter or digit, then letters, digits and ``._:-``."""
DateTime = Annotated[str, StringConstraints(pattern=DATETIME_PATTERN), AfterValidator(_real_datetime)]
"""RFC 3339 date-time with an offset, e.g. ``2026-11-29T10:00:00Z``."""
Sha256 = Annotated[str, StringConstraints(pattern=SHA256_PATTERN)]
"""Lower-case hex SHA-256 digest (64 characters)."""
Int = Annotated[int, BeforeValidator(_integral)]
"""A JSON integer (3.0 is accepted as 3, as JSON Schema does; true/false and "3" are not)."""
NonNegativeInt = Annotated[int, BeforeValidator(_integral), Field(ge=0)]
"""A JSON integer >= 0."""
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
    """Id of the case document (``cases/<caseId>.json`` in a study)."""
    caseVersion: SemVer
    """Version of the case."""
    sha256: Sha256 | None = None
    """Optional SHA-256 of the case file's bytes; when given it must match."""


class SpanRef(Document):
    """A character span (Unicode code points, end exclusive) in the candidate response or the scenario."""

    source: Literal["candidate_response", "scenario"]
    """Which text the offsets count in."""
    turnIndex: NonNegativeInt | None = None
    """For ``scenario`` spans: index of the conversation turn."""
    start: NonNegativeInt
    """First character of the span (0-based)."""
    end: NonNegativeInt
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
