"""The rubric / evaluation contract (``rubric.json`` in a study and in every bundle).

Eight dimensions ``WM-RUB-001``..``WM-RUB-008``, each bound to one scoring field of the rating record,
a failure-mode catalogue, the confidence scale and the rater instructions.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from wmcdp_desktop.core.models._base import Document
from wmcdp_desktop.core.models.common import MAX_SCALE_LEVELS, Identifier, NonBlankStr, ScaleLevel, SemVer

ScoringField = Literal[
    "emotional_attunement_validation_score",
    "clinical_decision_quality_timing_score",
    "anxiety_ocd_mechanism_sensitivity_score",
    "evidence_informed_guidance_score",
    "developmental_family_context_fit_score",
    "collaborative_non_shaming_stance_score",
    "safety_scope_boundaries_score",
    "overall_clinical_judgment_score",
]

DIMENSION_FIELDS: dict[str, ScoringField] = {
    "WM-RUB-001": "emotional_attunement_validation_score",
    "WM-RUB-002": "clinical_decision_quality_timing_score",
    "WM-RUB-003": "anxiety_ocd_mechanism_sensitivity_score",
    "WM-RUB-004": "evidence_informed_guidance_score",
    "WM-RUB-005": "developmental_family_context_fit_score",
    "WM-RUB-006": "collaborative_non_shaming_stance_score",
    "WM-RUB-007": "safety_scope_boundaries_score",
    "WM-RUB-008": "overall_clinical_judgment_score",
}
"""The seed's binding of rubric dimension ids to ``scoring.*`` fields (WM-FLD-009..016)."""

FAILURE_MODE_ID_PATTERN = r"^WM-FM-[A-Za-z0-9._-]{1,120}$"
FailureModeId = Annotated[str, Field(pattern=FAILURE_MODE_ID_PATTERN)]


SHORT_LABEL_MAX = 24
"""Longest short label of a level (it has to fit under one tick of the slider)."""
SHORT_LABEL_FALLBACK_WORDS = 1
"""Words of the anchor text shown when a level has no short label and its text has no short lead-in."""


def short_label_from_text(text: str) -> str:
    """A level's short label made from its anchor text: the words before a colon or dash that ends a short
    lead-in ("Harmful: dismisses ..." -> "Harmful"), else the first :data:`SHORT_LABEL_FALLBACK_WORDS` words
    (with "…" when more follow)."""
    stripped = " ".join(text.split())
    for mark in (":", " - ", " – ", " — "):
        head, sep, _rest = stripped.partition(mark)
        if sep and 0 < len(head.strip()) <= SHORT_LABEL_MAX:
            return head.strip()
    words = stripped.split(" ")
    short = " ".join(words[:SHORT_LABEL_FALLBACK_WORDS]).rstrip(".,;")
    if len(short) > SHORT_LABEL_MAX:
        short = short[: SHORT_LABEL_MAX - 1].rstrip()
        return short + "…"
    return short + ("…" if len(words) > SHORT_LABEL_FALLBACK_WORDS else "")


class Anchor(Document):
    """What one level of a scale means."""

    level: ScaleLevel
    """The scale value this anchor describes (0-100)."""
    text: NonBlankStr
    """Plain-words description of that level, shown to raters."""
    short_label: Annotated[NonBlankStr, Field(max_length=SHORT_LABEL_MAX)] | None = None
    """A word or two for the level ("Harmful", "Good"), shown under the slider's tick; absent: the app shows
    the anchor text before its first colon, or its first words."""


class Scale(Document):
    """An integer scale with an anchor text for every level."""

    min: ScaleLevel
    """Lowest value (0-100)."""
    max: ScaleLevel
    """Highest value (greater than ``min``, at most 100, and at most 20 above ``min``)."""
    anchors: Annotated[list[Anchor], Field(min_length=2, max_length=MAX_SCALE_LEVELS)]
    """One anchor per level from ``min`` to ``max``, in order."""

    @model_validator(mode="after")
    def _anchors_cover_scale(self) -> Scale:
        if self.max <= self.min:
            raise ValueError(f"max ({self.max}) must be greater than min ({self.min})")
        if self.max - self.min + 1 > MAX_SCALE_LEVELS:
            raise ValueError(
                f"a scale may have at most {MAX_SCALE_LEVELS} levels, each with an anchor; "
                f"{self.min} to {self.max} has {self.max - self.min + 1}"
            )
        levels = [a.level for a in self.anchors]
        count = self.max - self.min + 1
        # Compare the count first: never build a huge range for an absurd max (e.g. 2**64).
        if len(levels) != count or levels != list(range(self.min, self.max + 1)):
            wanted = list(range(self.min, self.max + 1)) if count <= 20 else f"{self.min} to {self.max}"
            raise ValueError(f"anchors must give levels {wanted} in order, got {levels}")
        return self

    def anchor_text(self, level: int) -> str:
        """The anchor text of ``level``."""
        return self.anchors[level - self.min].text

    def short_label(self, level: int) -> str:
        """The short label of ``level``: the rubric's, else one made from its anchor text."""
        anchor = self.anchors[level - self.min]
        return anchor.short_label or short_label_from_text(anchor.text)


class Dimension(Document):
    """One rubric dimension, bound to one scoring field of the rating record."""

    id: Annotated[str, Field(pattern=r"^WM-RUB-00[1-8]$")]
    """``WM-RUB-001``..``WM-RUB-008``."""
    field: ScoringField
    """The ``scoring.*`` field of the rating record this dimension fills."""
    label: NonBlankStr
    """Short name shown to raters."""
    description: NonBlankStr
    """What the dimension assesses, for raters."""
    scale: Scale
    """The scale with an anchor for every level."""
    allow_na: bool
    """Whether a rater may answer ``"N/A"`` instead of a score."""
    na_guidance: str | None = None
    """When N/A is appropriate (only meaningful when ``allow_na``)."""

    @model_validator(mode="after")
    def _bound_to_its_field(self) -> Dimension:
        if self.field != DIMENSION_FIELDS[self.id]:
            raise ValueError(f"{self.id} must fill scoring.{DIMENSION_FIELDS[self.id]}, not scoring.{self.field}")
        return self


class SeverityGuidance(Document):
    """When each severity applies to a failure mode."""

    minor: NonBlankStr
    """Guidance for ``minor``."""
    moderate: NonBlankStr
    """Guidance for ``moderate``."""
    major: NonBlankStr
    """Guidance for ``major``."""
    critical: NonBlankStr
    """Guidance for ``critical``."""


class FailureMode(Document):
    """One entry of the failure-mode catalogue."""

    id: FailureModeId
    """``WM-FM-...`` id."""
    label: NonBlankStr
    """Short name shown to raters."""
    description: NonBlankStr
    """What the failure looks like (shown on hover)."""
    severity_guidance: SeverityGuidance
    """When each severity applies."""


class Rubric(Document):
    """The evaluation contract items point at with ``contractRef``."""

    document_type: Literal["wmcdp_rubric"]
    """Always ``wmcdp_rubric``."""
    contract_id: Identifier
    """Matches ``contractRef.contractId`` of the items."""
    contract_version: SemVer
    """Matches ``contractRef.contractVersion`` of the items."""
    title: NonBlankStr
    """Human title."""
    instructions: NonBlankStr
    """Instructions shown to raters before and while rating."""
    dimensions: Annotated[list[Dimension], Field(min_length=8, max_length=8)]
    """The eight dimensions, ``WM-RUB-001``..``008`` in order."""
    failure_modes: Annotated[list[FailureMode], Field(min_length=1)]
    """The failure-mode catalogue (ids unique)."""
    confidence_scale: Scale
    """Scale of ``clinician_notes.confidence_rating``."""

    @field_validator("dimensions")
    @classmethod
    def _binding(cls, dimensions: list[Dimension]) -> list[Dimension]:
        ids = [d.id for d in dimensions]
        if ids != list(DIMENSION_FIELDS):
            raise ValueError(f"must be {', '.join(DIMENSION_FIELDS)} in this order, got {', '.join(ids)}")
        return dimensions

    @field_validator("failure_modes")
    @classmethod
    def _unique_failure_modes(cls, failure_modes: list[FailureMode]) -> list[FailureMode]:
        ids = [f.id for f in failure_modes]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"failure mode ids must be unique; repeated: {', '.join(dupes)}")
        return failure_modes

    def dimension(self, dimension_id: str) -> Dimension:
        """The dimension with this id (KeyError if unknown)."""
        for dim in self.dimensions:
            if dim.id == dimension_id:
                return dim
        raise KeyError(dimension_id)

    def failure_mode(self, failure_mode_id: str) -> FailureMode:
        """The failure mode with this id (KeyError if unknown)."""
        for fm in self.failure_modes:
            if fm.id == failure_mode_id:
                return fm
        raise KeyError(failure_mode_id)

    @property
    def criterion_ids(self) -> set[str]:
        """Every id a ``criterionId`` may name: dimension ids and failure-mode ids."""
        return {d.id for d in self.dimensions} | {f.id for f in self.failure_modes}
