"""The AutoQA benchmark item (seed ``002_217395684be5fd22.txt``, ``schemas/benchmark-item.schema.json``).

Field names are the seed's (camelCase). Every rule of the seed schema is expressed here, so a document
passes the model exactly when it passes the schema (tests/coordinator/publish/test_schema_differential.py).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from wmcdp_desktop.core.models.base import Document, unique
from wmcdp_desktop.core.models.common import (
    SPLITS,  # noqa: F401 (re-exported: it used to be defined here)
    AcceptableDecision,
    CaseRef,
    ContractRef,
    CriterionVerdict,
    DateTime,
    Identifier,
    Int,
    SemVer,
    Severity,
    SpanRef,
    Split,
)

ChallengeAttribute = Literal[
    "strong_positive",
    "subtle_valid_alternative",
    "polished_falsehood",
    "unsupported_rationale",
    "citation_mismatch",
    "partial_support",
    "required_content_omission",
    "severity_edge",
    "instruction_conflict",
    "ambiguous_case",
    "prompt_injection",
    "rubric_parroting",
    "correct_label_wrong_reason",
    "wrong_label_correct_observation",
    "long_context",
    "domain_expertise",
    "position_bias_probe",
]


def _unique_list(values: list[Any]) -> list[Any]:
    return unique(values)


# Every list the models keep free of repeats says so in the generated schemas too (uniqueItems).
_UNIQUE_ITEMS = Field(json_schema_extra={"uniqueItems": True})
UniqueStrs = Annotated[list[str], AfterValidator(_unique_list), _UNIQUE_ITEMS]


class CriterionGold(Document):
    """The adjudicated verdict for one criterion (a rubric dimension or a failure mode)."""

    criterionId: Identifier
    """A rubric dimension (``WM-RUB-00n``) or failure mode (``WM-FM-...``) of the contract."""
    applicability: Literal["applies", "does_not_apply", "uncertain"]
    """Whether the criterion applies to this item."""
    acceptableVerdicts: Annotated[
        list[CriterionVerdict], Field(min_length=1), AfterValidator(_unique_list), _UNIQUE_ITEMS
    ]
    """Verdicts the adjudicators accept as correct (at least one, no repeats)."""
    severity: Severity
    """How severe a failure on this criterion is."""
    positiveEvidenceSpans: list[SpanRef]
    """Spans that support the criterion being met."""
    negativeEvidenceSpans: list[SpanRef]
    """Spans that show the criterion being missed."""
    omissionDescriptions: list[str]
    """What a good response should have said but did not."""
    notes: str
    """Adjudicators' explanation of the verdict."""


class AnnotationGold(Document):
    """Gold for annotation behaviour (labels and expected disagreement)."""

    acceptableLabelSupport: list[str] | None = None
    """Label supports the adjudicators accept."""
    expectedDisagreementTypes: list[str] | None = None
    """Kinds of disagreement expected between reasonable raters."""
    notes: str | None = None
    """Free-text notes."""


class GoldStandard(Document):
    """The adjudicated reference answer for the item."""

    criterionGold: list[CriterionGold]
    """Verdict per criterion."""
    annotationGold: AnnotationGold | None = None
    """Optional annotation-level gold."""
    ambiguityStatus: Literal["clear", "reasonable_disagreement", "rubric_ambiguous", "insufficient_evidence"]
    """How clear-cut the item is."""
    validAlternativeNotes: list[str] | None = None
    """Other responses that would also be acceptable."""
    acceptableDecisions: Annotated[list[AcceptableDecision], Field(min_length=1)]
    """Acceptable operational decisions (at least one)."""


class Adjudication(Document):
    """How the gold standard was decided."""

    method: Literal["single_expert", "independent_then_adjudicate", "consensus_panel", "latent_label_model"]
    """Adjudication method."""
    adjudicatorCount: Annotated[Int, Field(ge=1)]
    """Number of adjudicators (>= 1)."""
    domainExpertCount: Annotated[Int, Field(ge=0)]
    """How many of them are domain experts (>= 0)."""
    blindToAutoQA: bool
    """Whether adjudicators were blind to AutoQA output."""
    blindToReviewerLabel: bool
    """Whether adjudicators were blind to reviewer labels."""
    initialAgreementRate: Annotated[float, Field(ge=0, le=1)] | None = None
    """Agreement before adjudication, 0..1."""
    disagreementTypes: UniqueStrs
    """Kinds of disagreement met (no repeats)."""
    adjudicationNotes: str | None = None
    """Adjudicators' notes (never shipped to raters)."""
    completedAt: DateTime
    """When adjudication finished."""


class LeakageControl(Document):
    """Rules that keep the item out of places it must not leak to."""

    allowedForPromptDevelopment: bool
    """Whether the item may be used while developing prompts."""
    heldOutProject: bool
    """Whether the item is held out for a separate project (never sent to raters of this study)."""
    firstFrozenAt: DateTime
    """When the item was first frozen."""
    accessPolicy: Annotated[str, Field(min_length=1)]
    """Who may see the item, in words."""


KNOWN_SCHEMA_VERSIONS = ("1.0.0",)
"""The benchmark-item schema versions (``schemaVersion``) this app reads; a study with another is refused
(``wmcdp study validate``)."""


NO_GOLD_STATUS = "insufficient_evidence"
"""``goldStandard.ambiguityStatus`` of an item with no gold yet: its ``criterionGold`` is empty (the one
spelling of "no gold yet"; docs/FORMATS.md)."""


def has_no_gold_yet(item: BenchmarkItem) -> bool:
    """Whether ``item`` is spelled as having no gold yet (empty ``criterionGold``, ``ambiguityStatus``
    :data:`NO_GOLD_STATUS`)."""
    gold = item.goldStandard
    return not gold.criterionGold and gold.ambiguityStatus == NO_GOLD_STATUS


GOLD_RESPONSE_KEY = "goldResponseId"
"""The ``metadata`` key naming the one response an item's gold standard describes."""


class BenchmarkItem(Document):
    """One AutoQA benchmark item: a clinical decision point with its gold standard."""

    documentType: Literal["benchmark_item"]
    """Always ``benchmark_item``."""
    schemaVersion: SemVer
    """Version of the benchmark-item schema the document follows."""
    benchmarkItemId: Identifier
    """Unique id of the item."""
    benchmarkVersion: SemVer
    """Version of the benchmark the item belongs to."""
    split: Split
    """Which split the item is in; the study decides which splits go to raters."""
    contractRef: ContractRef
    """The rubric/contract the item is scored against."""
    caseRef: CaseRef
    """The scenario the item is built on."""
    sliceTags: UniqueStrs
    """Free tags for slicing results (no repeats)."""
    challengeAttributes: Annotated[list[ChallengeAttribute], AfterValidator(_unique_list), _UNIQUE_ITEMS]
    """What makes the item hard (no repeats)."""
    goldStandard: GoldStandard
    """Adjudicated reference answer."""
    adjudication: Adjudication
    """How the gold standard was decided."""
    leakageControl: LeakageControl
    """Leakage rules."""
    weight: Annotated[float, Field(gt=0)]
    """Weight of the item in aggregate results (> 0)."""
    exclusionReason: str | None = None
    """When present, the item is excluded (never sent to raters)."""
    metadata: dict[str, Any] | None = None
    """Free-form metadata."""

    @property
    def gold_response_id(self) -> str | None:
        """``metadata.goldResponseId``: the one response the gold standard describes (None: every response)."""
        value = (self.metadata or {}).get(GOLD_RESPONSE_KEY)
        return value if isinstance(value, str) else None
