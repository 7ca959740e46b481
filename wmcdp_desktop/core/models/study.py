"""The study configuration (``study.json`` in the coordinator's study folder)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, ValidationInfo, field_validator

from wmcdp_desktop.core.models._base import Document
from wmcdp_desktop.core.models.common import Count, DateTime, Identifier, NonBlankStr, Seed, Split


class Rater(Document):
    """A clinician who receives a bundle."""

    rater_id: Identifier
    """Anonymised rater id (goes into every record the rater writes)."""
    role_or_background: str | None = None
    """Optional role/background, e.g. ``child psychologist``."""


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
