"""The rubric / evaluation contract (``rubric.json`` in a study and in every bundle).

Eight dimensions ``WM-RUB-001``..``WM-RUB-008``, each bound to one scoring field of the rating record,
a failure-mode catalogue, the confidence scale and the rater instructions; optionally, translations of
every text a rater reads (``translations``, by language: :class:`RubricTranslation`), each complete or the
rubric is refused (never a mix of two languages on one screen).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError, ValidationError

from wmcdp_desktop.core.models.base import Document
from wmcdp_desktop.core.models.common import (
    MAX_FAILURE_MODES,
    MAX_SCALE_LEVELS,
    Identifier,
    NonBlankStr,
    ScaleLevel,
    SemVer,
)

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


LANGUAGE_PATTERN = r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}$"
LanguageCode = Annotated[str, Field(pattern=LANGUAGE_PATTERN, max_length=30)]
"""A BCP 47 language tag as the rubric writes it: ``es``, ``pt-BR``, ``zh-Hans`` (lower-case language first)."""
SOURCE_LANGUAGE = "en"
"""The language of a rubric that does not say (``language`` absent)."""
LevelKey = Annotated[str, Field(pattern=r"^(0|[1-9][0-9]?|100)$")]
"""A scale level written as a JSON object key: ``"1"`` .. ``"5"``."""


def primary_language(code: str) -> str:
    """The language subtag of a tag or a locale name: ``es-MX`` and ``es_MX`` -> ``es``."""
    return code.replace("_", "-").split("-", 1)[0].lower()


class AnchorTranslation(Document):
    """One level's anchor in another language."""

    text: NonBlankStr
    """The anchor text, translated."""
    short_label: Annotated[NonBlankStr, Field(max_length=SHORT_LABEL_MAX)] | None = None
    """The level's short label, translated (required where the original has one)."""


class ScaleTranslation(Document):
    """A scale's anchors in another language, by level."""

    anchors: dict[LevelKey, AnchorTranslation]
    """Every level of the original scale, by its number (``"1"``: ...)."""


class DimensionTranslation(Document):
    """What a rater reads of one dimension, in another language."""

    label: NonBlankStr
    """The dimension's name."""
    description: NonBlankStr
    """What it assesses."""
    anchors: dict[LevelKey, AnchorTranslation]
    """Every level of its scale, by number."""
    na_guidance: NonBlankStr | None = None
    """When N/A is appropriate (exactly where the original has it)."""


class FailureModeTranslation(Document):
    """What a rater reads of one failure mode, in another language."""

    label: NonBlankStr
    """Its short name."""
    description: NonBlankStr
    """What the failure looks like."""
    severity_guidance: SeverityGuidance
    """When each severity applies."""


class RubricTranslation(Document):
    """Every text of the rubric a rater reads, in one other language. Ids, fields, levels and rules are the
    original's: a translation changes words only."""

    clinically_validated: bool
    """Whether clinicians fluent in both languages checked that the translation means what the original means
    (``false`` is shown to the rater beside the rubric)."""
    note: NonBlankStr | None = None
    """Who translated it and how (shown to the rater with the notice), e.g. "Translated by the study team"."""
    title: NonBlankStr
    """The rubric's title."""
    instructions: NonBlankStr
    """The rater instructions."""
    dimensions: dict[Annotated[str, Field(pattern=r"^WM-RUB-00[1-8]$")], DimensionTranslation]
    """Every dimension, by id."""
    failure_modes: dict[FailureModeId, FailureModeTranslation]
    """Every failure mode of the catalogue, by id."""
    confidence_scale: ScaleTranslation
    """The confidence scale's anchors."""


Loc = tuple[str, ...]
"""Where in the rubric document a problem is (``("translations", "es", "dimensions")``)."""


def _keys_problems(where: Loc, given: list[str], wanted: list[str], what: str) -> list[tuple[Loc, str]]:
    missing = [k for k in wanted if k not in given]
    unknown = [k for k in given if k not in wanted]
    out = []
    if missing:
        out.append((where, f"misses {what} {', '.join(missing)} (a translation must cover the whole rubric)"))
    out += [((*where, k), f"the rubric has no {what} {k}") for k in unknown]
    return out


def _anchor_problems(where: Loc, scale: Scale, anchors: dict[str, AnchorTranslation]) -> list[tuple[Loc, str]]:
    wanted = [str(a.level) for a in scale.anchors]
    out = _keys_problems((*where, "anchors"), list(anchors), wanted, "level")
    for anchor in scale.anchors:
        got = anchors.get(str(anchor.level))
        if got is not None and anchor.short_label is not None and got.short_label is None:
            out.append(((*where, "anchors", str(anchor.level), "short_label"), "missing (the original has one)"))
    return out


def translation_problems(rubric: Rubric, language: str, t: RubricTranslation) -> list[tuple[Loc, str]]:
    """Where the translation into ``language`` does not cover ``rubric`` exactly: each problem's place names
    the language and the field (``translations.es.dimensions.WM-RUB-003.anchors``: misses level 4)."""
    base: Loc = ("translations", language)
    if primary_language(language) == primary_language(rubric.source_language):
        return [(base, f"the rubric itself is written in {rubric.source_language}: a translation into it is never shown")]
    out = _keys_problems((*base, "dimensions"), list(t.dimensions), [d.id for d in rubric.dimensions], "dimension")
    for dim in rubric.dimensions:
        dt = t.dimensions.get(dim.id)
        if dt is None:
            continue
        where: Loc = (*base, "dimensions", dim.id)
        out += _anchor_problems(where, dim.scale, dt.anchors)
        if dim.na_guidance is not None and dt.na_guidance is None:
            out.append(((*where, "na_guidance"), "missing (the original has one)"))
        elif dim.na_guidance is None and dt.na_guidance is not None:
            out.append(((*where, "na_guidance"), "the original has none"))
    out += _keys_problems(
        (*base, "failure_modes"), list(t.failure_modes), [f.id for f in rubric.failure_modes], "failure mode"
    )
    out += _anchor_problems((*base, "confidence_scale"), rubric.confidence_scale, t.confidence_scale.anchors)
    return out


def _anchors(scale: Scale, given: dict[str, AnchorTranslation]) -> Scale:
    anchors = []
    for a in scale.anchors:
        t = given[str(a.level)]
        anchors.append(a.model_copy(update={"text": t.text, "short_label": t.short_label}))
    return scale.model_copy(update={"anchors": anchors})


@dataclass(frozen=True)
class RubricInLanguage:
    """The rubric as a rater who reads ``wanted`` is shown it: translated when the rubric has that language."""

    rubric: Rubric
    """Its texts in :attr:`language` (ids, fields, levels and rules the original's)."""
    language: str
    """The language of those texts: a translation's, or the rubric's own."""
    wanted: str
    """The rater's language (a tag or a locale name)."""
    translation: RubricTranslation | None
    """The translation shown (None: the rubric's own words)."""
    source: str
    """The language the rubric is written in."""

    @property
    def in_wanted_language(self) -> bool:
        return primary_language(self.language) == primary_language(self.wanted)

    @property
    def unvalidated_translation(self) -> bool:
        """A translation is shown that clinicians have not validated."""
        return self.translation is not None and not self.translation.clinically_validated


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
    failure_modes: Annotated[list[FailureMode], Field(min_length=1, max_length=MAX_FAILURE_MODES)]
    """The failure-mode catalogue (ids unique; at most 200)."""
    confidence_scale: Scale
    """Scale of ``clinician_notes.confidence_rating``."""
    language: LanguageCode | None = None
    """The language the rubric is written in (absent: ``en``)."""
    translations: dict[LanguageCode, RubricTranslation] | None = None
    """Every rater-facing text in other languages, by language tag (``{"es": {...}}``); each must cover the
    whole rubric (:func:`translation_problems`). The app shows the rater's language when it is here."""

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

    @model_validator(mode="after")
    def _translations_complete(self) -> Rubric:
        problems = [p for code, t in (self.translations or {}).items() for p in translation_problems(self, code, t)]
        if problems:  # one problem per field, each at its own place
            raise ValidationError.from_exception_data(type(self).__name__, [
                InitErrorDetails(type=PydanticCustomError("rubric_translation", "{problem}", {"problem": text}),
                                 loc=loc, input=None)
                for loc, text in problems
            ])
        return self

    @property
    def source_language(self) -> str:
        """The language the rubric is written in."""
        return self.language or SOURCE_LANGUAGE

    def translation_language(self, wanted: str) -> str | None:
        """The key of the translation for ``wanted`` (``es-MX``, ``es_MX`` or ``es``): the same tag, else the
        same language in any region or script; None when there is none."""
        given = {code.lower(): code for code in self.translations or {}}
        tag = wanted.replace("_", "-").lower()
        if tag in given:
            return given[tag]
        primary = primary_language(wanted)
        return next((code for low, code in sorted(given.items()) if primary_language(low) == primary), None)

    def in_language(self, wanted: str | None) -> RubricInLanguage:
        """The rubric as shown to a rater reading ``wanted`` (None: its own language)."""
        own = RubricInLanguage(self, self.source_language, wanted or self.source_language, None, self.source_language)
        if wanted is None or primary_language(wanted) == primary_language(self.source_language):
            return own
        code = self.translation_language(wanted)
        if code is None or self.translations is None:
            return own
        t = self.translations[code]
        dims = []
        for d in self.dimensions:
            dt = t.dimensions[d.id]
            dims.append(d.model_copy(update={
                "label": dt.label, "description": dt.description, "na_guidance": dt.na_guidance,
                "scale": _anchors(d.scale, dt.anchors),
            }))
        modes = [
            fm.model_copy(update={
                "label": ft.label, "description": ft.description, "severity_guidance": ft.severity_guidance,
            })
            for fm in self.failure_modes
            for ft in [t.failure_modes[fm.id]]
        ]
        shown = self.model_copy(update={
            "title": t.title, "instructions": t.instructions, "dimensions": dims, "failure_modes": modes,
            "confidence_scale": _anchors(self.confidence_scale, t.confidence_scale.anchors),
            "language": code, "translations": None,
        })
        return RubricInLanguage(shown, code, wanted, t, self.source_language)

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
