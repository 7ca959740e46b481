"""The case / scenario (a file in ``cases/``, usually ``<case_id>.json``): context and the conversation so far."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from wmcdp_desktop.core.models.base import Document
from wmcdp_desktop.core.models.common import MAX_TURNS, Identifier, NonBlankStr, SemVer

Role = Literal["parent", "caregiver", "child", "adolescent", "clinician", "assistant", "teacher", "other"]
ROLE_LABELS: dict[str, str] = {
    "parent": "Parent",
    "caregiver": "Caregiver",
    "child": "Child",
    "adolescent": "Adolescent",
    "clinician": "Clinician",
    "assistant": "AI assistant",
    "teacher": "Teacher",
    "other": "Other",
}


class Turn(Document):
    """One turn of the conversation so far."""

    role: Role
    """Who is speaking."""
    speaker_label: str | None = None
    """Optional display name, e.g. ``Mother`` or ``Sam (age 9)``."""
    text: str
    """What was said, as plain text."""


class ScenarioContext(Document):
    """Background the rater needs to judge the next move."""

    age_band: NonBlankStr
    """Age band of the child or adolescent, e.g. ``8-10``."""
    setting: NonBlankStr
    """Where/how the conversation happens, e.g. ``parent coaching chat``."""
    speakers: Annotated[list[Role], Field(min_length=1)]
    """Who takes part in the conversation."""
    summary: str
    """Short clinical background, as plain text."""


class Scenario(Document):
    """Context plus ordered turns; embedded in blinded tasks."""

    context: ScenarioContext
    """Background."""
    turns: Annotated[list[Turn], Field(max_length=MAX_TURNS)]
    """The conversation so far, oldest first (at most 2,000 turns)."""


class Case(Document):
    """A scenario document a benchmark item's ``caseRef`` points at."""

    document_type: Literal["wmcdp_case"]
    """Always ``wmcdp_case``."""
    case_id: Identifier
    """Matches ``caseRef.caseId``."""
    case_version: SemVer
    """Matches ``caseRef.caseVersion``."""
    title: str | None = None
    """Coordinator's short title (not shown to raters)."""
    clinical_domain_id: Identifier
    """Clinical domain, e.g. ``WM-DOM-OCD``."""
    scenario_type_ids: Annotated[list[Identifier], Field(min_length=1)]
    """Scenario types, e.g. ``WM-SCN-REASSURANCE``."""
    scenario: Scenario
    """Context and conversation so far."""
