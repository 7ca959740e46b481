"""The study configuration (``study.json`` in the coordinator's study folder)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator

from wmcdp_desktop.core.models.base import Document
from wmcdp_desktop.core.models.common import Count, DateTime, Identifier, NonBlankStr, Seed, Split


class Rater(Document):
    """A clinician who receives a bundle."""

    rater_id: Identifier
    """Anonymised rater id (goes into every record the rater writes)."""
    role_or_background: str | None = None
    """Optional role/background, e.g. ``child psychologist``."""


class ModelNames(Document):
    """More names of one model for the leak scan (besides its id, its natural spellings and the built-in
    list of vendors and families)."""

    model_source: NonBlankStr
    """The model, exactly as ``model_source`` in ``responses/*.jsonl``."""
    aliases: Annotated[list[NonBlankStr], Field(min_length=1)]
    """Names raters might know it by (product name, nickname, vendor...); matched as whole words."""


class AcceptedFinding(Document):
    """A leak-scan finding the coordinator has checked and accepts (listed by ``bundle build`` and ``report``).

    Exactly one of ``response_id`` (a finding in that response's text) and ``file`` (a finding in any other
    file of the study folder, e.g. ``cases/ocd-03.json``) says where.
    """

    model_config = ConfigDict(
        json_schema_extra={"oneOf": [{"required": ["response_id"]}, {"required": ["file"]}]}
    )

    term: NonBlankStr
    """The term as the finding names it (or the text it matched), e.g. ``Claude``."""
    reason: NonBlankStr
    """Why it is not a leak, e.g. ``Claude is the father's first name in this scenario``."""
    response_id: Identifier | None = None
    """The response whose text holds it."""
    file: NonBlankStr | None = None
    """The study file that holds it, relative to the study folder (``/``-separated)."""

    @model_validator(mode="after")
    def _one_place(self) -> AcceptedFinding:
        if (self.response_id is None) == (self.file is None):
            raise ValueError("give exactly one of response_id and file")
        return self


class AcceptedStyle(Document):
    """The coordinator has read the style separability finding (``wmcdp study validate``: the model can be told
    from the response text) and sends the responses as they are. Listed by ``bundle build`` and ``report``."""

    reason: NonBlankStr
    """Why, e.g. ``the study compares the two models' own styles; raters are told to rate content``."""
    up_to_accuracy: Annotated[float, Field(gt=0, le=1)]
    """The classifier's accuracy accepted: a later measurement above it warns again (new responses, say)."""


class BlindingLabel(Document):
    """One answer a rater may give to "Do you think you know which system wrote this response?"."""

    label: Annotated[NonBlankStr, Field(max_length=80)]
    """What the rater sees, e.g. ``ChatGPT (OpenAI)`` (at most 80 characters, one line). Labels reach every
    bundle (the only model names that do)."""
    model_source: NonBlankStr | None = None
    """The model the label stands for; absent for a decoy (a system that is not in the study)."""


class BlindingCheck(Document):
    """The optional question asked after a rating is submitted, and its answers."""

    labels: Annotated[list[BlindingLabel], Field(min_length=2, max_length=20)]
    """The answers besides "I can't tell" (2 to 20, decoys included); shown to every rater in the same order."""


class Study(Document):
    """Study-wide settings used by ``wmcdp bundle build`` and ``wmcdp report``."""

    document_type: Literal["wmcdp_study"]
    """Always ``wmcdp_study``."""
    study_id: Identifier
    """Study id (goes into every bundle)."""
    title: NonBlankStr
    """Human title, shown to raters."""
    description: str | None = None
    """Coordinator notes (not shipped)."""
    raters: Annotated[list[Rater], Field(min_length=1)]
    """The raters, each receiving one bundle."""
    overlap: Annotated[Count, Field(ge=1)]
    """How many raters see each task (at most the number of raters)."""
    seed: Seed
    """Randomisation seed for assignment and order (``--seed`` overrides)."""
    rater_splits: Annotated[list[Split], Field(min_length=1)]
    """Which item splits go into rater bundles, e.g. ``["test", "calibration"]``."""
    created_at: DateTime
    """Fixed creation time written into bundles, so builds are reproducible."""
    models: list[ModelNames] | None = None
    """Aliases per model for the leak scan."""
    accepted_findings: list[AcceptedFinding] | None = None
    """Leak-scan findings the coordinator accepts, each with its reason."""
    accepted_style: AcceptedStyle | None = None
    """The style separability finding the coordinator accepts, with the reason and the accuracy accepted."""
    blinding_check: BlindingCheck | None = None
    """Ask raters which system they think wrote each response (measures blinding; ``wmcdp report``)."""
    render_markdown: bool | None = None
    """``false``: the app shows every response and scenario turn exactly as written (markdown marks and all)
    and raters cannot switch it; absent or ``true``: rendered as markdown (CommonMark with tables, no HTML,
    nothing loaded), the rater may switch to plain text. Goes into every bundle."""

    @field_validator("raters")
    @classmethod
    def _unique_raters(cls, raters: list[Rater]) -> list[Rater]:
        # Compared without case: each rater's bundle is named after the id (<study>-<rater>.wmcdp), and
        # R01 and r01 would be one file on Windows and macOS.
        ids = [r.rater_id.casefold() for r in raters]
        dupes = sorted({r.rater_id for r, i in zip(raters, ids, strict=True) if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"rater ids must be unique (upper and lower case count as the same); repeated: {', '.join(dupes)}")
        return raters

    @field_validator("overlap")
    @classmethod
    def _overlap_fits(cls, overlap: int, info: ValidationInfo) -> int:
        raters = info.data.get("raters")  # absent when the raters themselves are invalid
        if raters is not None and overlap > len(raters):
            raise ValueError(f"{overlap} is larger than the number of raters ({len(raters)})")
        return overlap
